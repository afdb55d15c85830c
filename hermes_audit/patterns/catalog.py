"""The threat catalog: rules loaded from ``rules/*.yaml``, validated when loaded.

Two rule sources share one schema family:

* ``rules/hermes-parity.yaml``: Hermes Agent's own threat patterns, per
  version profile, compiled with Python's ``re`` exactly as Hermes does
  (``re.IGNORECASE``); they decide the Hermes verdict.
* every other ``rules/*.yaml``: the audit rules, compiled with the ``regex``
  module (timeouts, full Unicode), or naming a built-in detector.

A broken rule file raises :class:`CatalogError` with the file and rule named.
YAML is read with ``yaml.safe_load`` only.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from hermes_audit import __version__, datacache
from hermes_audit.datacache import digest, file_signature, stat_key
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.findings import Confidence, Severity
from hermes_audit.patterns.lazy import LazyPattern, materialize
from hermes_audit.patterns.prefilter import (
    export_analysis, export_boundary, export_narrowing, narrowing_helpers, preload_analysis, preload_boundary,
    preload_narrowing,
)
from hermes_audit.patterns.regex_code import (
    builtin_codes, compile_and_capture, package_files, packed, re_builtin_codes, re_compile_and_capture, remember,
    remember_re, remember_tails,
)
from hermes_audit.patterns.tails import tail_pattern

#: Hermes' threat-pattern catalogs (``rules/hermes-parity.yaml`` ``versions``): one per distinct
#: ``tools/threat_patterns.py``. Which release uses which is data of the version profiles
#: (:mod:`hermes_audit.hermes.profiles`).
VERSIONS = ("latest", "0.19", "0.15", "0.13")
DEFAULT_VERSION = "latest"
SCOPES = ("all", "context", "strict")
VIEWS = ("raw", "nfkc", "deobfuscated", "decoded")
KIND_GROUPS = ("context", "soul", "memory", "skill", "distribution")
#: The built-in detectors a rule may name (``detector:``), as data: the text-only detectors of
#: :data:`hermes_audit.engine.detectors.DETECTORS` and the model detectors of
#: :data:`hermes_audit.audits.detectors.MODEL_DETECTORS` (which look at the Hermes model's facts); the
#: catalog sits below both, so it names them without importing them (tests/test_layers.py checks they agree).
DETECTOR_NAMES = frozenset({
    "invisible-characters", "tag-smuggling", "variation-selector-smuggling", "zero-width-encoding", "bidi-controls",
    "encoded-payload", "cipher-text", "opaque-encoding", "confusable-words", "html-comments", "input-encoding", "yaml-duplicate-keys",
    "cue-sentences",
    "suppression-comments", "memory-store", "mcp-servers", "hermes-config", "distribution-manifest", "install-plan",
    "cron-jobs", "skill-frontmatter", "loading-model", "prompt-model",
})
_CODE_RE = re.compile(r"^H[A-Z][0-9]{3}$")
_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: Largest rule file accepted (a rules directory is trusted, but not unboundedly).
MAX_RULE_FILE_BYTES = 2 * 1024 * 1024
#: Files in ``rules/`` that hold other Hermes scanners as data (not audit rules); loaded by
#: ``hermes_audit.hermes.skills_guard`` and ``hermes_audit.audits.profile``.
HERMES_DATA_FILES = frozenset({"skills-guard.yaml", "hermes-cron.yaml"})


class CatalogError(Exception):
    """A rule file is missing, unreadable or invalid. The message names file and rule."""


@dataclass
class Rule:
    """One rule of the catalog. See ``docs/rules.md`` for the YAML schema."""

    code: str
    name: str
    family: str
    severity: Severity
    confidence: Confidence
    title: str
    message: str
    help: str
    kinds: frozenset[str]
    source: str
    fix: str = ""
    references: list[str] = field(default_factory=list)
    examples_match: list[str] = field(default_factory=list)
    examples_no_match: list[str] = field(default_factory=list)
    # regex matcher
    patterns: list[str] = field(default_factory=list)
    compiled: list[Any] = field(default_factory=list)
    view: str = "raw"
    # built-in detector
    detector: Optional[str] = None
    params: dict = field(default_factory=dict)
    demote_in_examples: bool = True
    #: issue 18 (round 8): a shell command of this rule in inline code performs unless the text around it clearly
    #: describes or forbids it (secret exfiltration, SSH-key persistence, reverse shells): see
    #: :meth:`hermes_audit.engine.markdown.ExampleSpans.describes`
    code_performs: bool = False
    #: codes of rules that say more about the same text: a finding of this rule whose span a finding of one of
    #: them covers, in the same file, is dropped (HA305 "imperative in a comment" beside HA301 on that comment)
    yields_to: tuple[str, ...] = ()
    # parity only
    hermes_id: Optional[str] = None
    scope: Optional[str] = None
    version_patterns: dict[str, str] = field(default_factory=dict)
    version_compiled: dict[str, "re.Pattern[str]"] = field(default_factory=dict)
    #: parity examples that hold in every catalog but these: example text -> catalog names where the
    #: opposite is true (``"You are Praxis"`` is blocked by 0.15-0.17, whose C2 list still named it)
    examples_except: dict[str, list[str]] = field(default_factory=dict)

    @property
    def is_parity(self) -> bool:
        return self.hermes_id is not None

    def applies_to(self, kind: DocumentKind) -> bool:
        return "all" in self.kinds or kind.group in self.kinds or kind.value in self.kinds

    def pattern_for(self, version: str) -> str:
        return self.version_patterns.get(version, self.patterns[0] if self.patterns else "")


@dataclass
class VersionScanConfig:
    """Per-version facts of Hermes' scanner: scan window (characters; ``None``: the whole text, as
    before hermes-agent 0.18.0), invisible-character set, and whether the text is NFKC-normalised
    before the patterns run (from 0.18.0)."""

    max_scan_chars: Optional[int]
    invisible_chars: frozenset[str]
    nfkc: bool = True
    #: scope -> the ``hermes_id`` of the patterns it runs, in Hermes' order (``None``: every rule whose
    #: ``scope`` is in the scope, in catalog order). hermes-agent 0.13.0-0.14.0's legacy scanner in
    #: ``agent/prompt_builder.py`` runs ten patterns in its own order.
    scopes: Optional[dict[str, tuple[str, ...]]] = None
    #: the id reported for an invisible character (``str.format`` of its code point)
    invisible_id: str = "invisible_unicode_U+{:04X}"


@dataclass
class ParityCatalog:
    """Hermes' own threat patterns, in Hermes' order, for every version profile."""

    rules: list[Rule]
    versions: dict[str, VersionScanConfig]
    invisible_rule: Rule

    def by_hermes_id(self, pid: str) -> Optional[Rule]:
        for r in self.rules:
            if r.hermes_id == pid:
                return r
        return None


@dataclass
class Catalog:
    """All rules: audit rules plus the parity catalog."""

    rules: list[Rule]
    parity: ParityCatalog
    files: list[str]

    def all_rules(self) -> list[Rule]:
        return [*self.parity.rules, self.parity.invisible_rule, *self.rules]

    def find(self, key: str) -> Optional[Rule]:
        """Rule by code (``HA101``) or name (``instruction-override``), case-insensitive."""
        k = key.strip().lower()
        for r in self.all_rules():
            if r.code.lower() == k or r.name == k:
                return r
        return None

    def families(self) -> set[str]:
        return {r.family for r in self.all_rules()}


def default_rules_dir() -> Path:
    """The shipped ``rules/`` directory: inside the wheel, or the source checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_rules"
    if packaged.is_dir():
        return packaged
    return here.parent / "rules"


def _err(path: Path, rule: Optional[str], msg: str) -> CatalogError:
    where = f"{path.name}" + (f", rule {rule}" if rule else "")
    return CatalogError(f"invalid rule file {where}: {msg}")


@functools.lru_cache(maxsize=1)
def _rule_file_loader() -> type:
    """The loader for rule files, made on first use (PyYAML is imported only when a rule file is parsed,
    not when the catalog comes from the cache; issue 8). libyaml's safe loader when PyYAML was built with
    it (same constructor, C parser), else the Python one."""
    import yaml

    safe_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class _RuleFileLoader(safe_loader):  # type: ignore[misc,valid-type]
        """The safe loader, refusing a key given twice in one mapping (issue 9): PyYAML would keep the
        last value silently, so a second ``pattern:`` could replace a reviewed one unnoticed."""

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict = {}
                for key_node, _ in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                        k = (key_node.tag, key_node.value)
                        if k in seen:
                            raise yaml.constructor.ConstructorError(
                                None, None, f"duplicate key {key_node.value!r} (first on line {seen[k]})",
                                key_node.start_mark)
                        seen[k] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep=deep)

    return _RuleFileLoader


def _yaml_error() -> type:
    import yaml

    return yaml.YAMLError


def _load_yaml(path: Path, raw: Optional[bytes] = None) -> Any:
    try:
        size = path.stat().st_size if raw is None else len(raw)
        if size > MAX_RULE_FILE_BYTES:
            raise _err(path, None, f"file is {size:,} bytes (limit {MAX_RULE_FILE_BYTES:,})")
        if raw is None:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_RULE_FILE_BYTES + 1)
        import yaml

        return yaml.load(raw.decode("utf-8"), Loader=_rule_file_loader())  # noqa: S506 - a safe loader
    except CatalogError:
        raise
    except RecursionError:
        raise _err(path, None, "collections nested too deeply") from None
    except _yaml_error() as exc:
        mark = getattr(exc, "problem_mark", None)
        loc = f" at line {mark.line + 1}" if mark is not None else ""
        raise _err(path, None, f"YAML syntax error{loc}: {getattr(exc, 'problem', exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _err(path, None, f"cannot read: {exc}") from None


def _req_str(path: Path, rid: str, d: dict, key: str, allow_empty: bool = False) -> str:
    v = d.get(key)
    if not isinstance(v, str) or (not allow_empty and not v.strip()):
        raise _err(path, rid, f"'{key}' must be a non-empty string")
    return v


def _str_list(path: Path, rid: str, d: dict, key: str) -> list[str]:
    v = d.get(key, [])
    if v is None:
        return []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _err(path, rid, f"'{key}' must be a list of strings")
    return list(v)


def _parity_examples(path: Path, rid: str, d: dict) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """:func:`_examples` for a parity rule, whose examples may also be ``{text: ..., except: [catalog, ...]}``:
    the example holds in every catalog but those, where the opposite holds."""
    ex = d.get("examples")
    if not isinstance(ex, dict):
        raise _err(path, rid, "'examples' with 'match' and 'no_match' lists is required")
    excepted: dict[str, list[str]] = {}
    lists = []
    for key in ("match", "no_match"):
        items = ex.get(key)
        if not isinstance(items, list):
            raise _err(path, rid, f"'examples.{key}' must be a list")
        texts = []
        for item in items:
            if isinstance(item, dict):
                text, versions = item.get("text"), item.get("except")
                if set(item) != {"text", "except"} or not isinstance(text, str) or not isinstance(versions, list) \
                        or not all(str(v) in VERSIONS for v in versions):
                    raise _err(path, rid, f"an example mapping needs 'text' and 'except' (catalogs of {', '.join(VERSIONS)})")
                excepted[text] = [str(v) for v in versions]
                item = text
            if not isinstance(item, str):
                raise _err(path, rid, f"'examples.{key}' items must be strings")
            texts.append(item)
        lists.append(texts)
    m, n = lists
    if not m or not n:
        raise _err(path, rid, "'examples' needs at least one 'match' and one 'no_match' example")
    return m, n, excepted


def _examples(path: Path, rid: str, d: dict) -> tuple[list[str], list[str]]:
    ex = d.get("examples")
    if not isinstance(ex, dict):
        raise _err(path, rid, "'examples' with 'match' and 'no_match' lists is required")
    m = _str_list(path, rid, ex, "match")
    n = _str_list(path, rid, ex, "no_match")
    if not m or not n:
        raise _err(path, rid, "'examples' needs at least one 'match' and one 'no_match' example")
    return m, n


def _compile_audit(path: Path, rid: str, pat: str, flags: int) -> Any:
    import regex

    try:
        compiled, code = compile_and_capture(pat, flags)
    except regex.error as exc:
        raise _err(path, rid, f"pattern does not compile: {exc}") from None
    return LazyPattern("regex", pat, flags, compiled, code)


#: ``regex`` flag values (``regex.IGNORECASE`` 2, ``regex.MULTILINE`` 8, ``regex.DOTALL`` 16, the same as
#: :mod:`re`'s; tests/test_startup_imports.py checks them) as plain ints, so that loading the catalog does
#: not import ``regex`` (issue 8: see ``regex_code.c_module``).
_FLAG_NAMES = {"ignorecase": 2, "multiline": 8, "dotall": 16}
#: Flags a detector compiles its ``params.pattern``/``params.exclude`` with (``hermes_audit.engine.comments``);
#: their op-codes are cached with the catalog under these flags (a mismatch only costs a normal compile).
_PARAM_PATTERN_FLAGS = _FLAG_NAMES["ignorecase"] | _FLAG_NAMES["dotall"]
_PARAM_PATTERN_KEYS = ("pattern", "exclude", "author_note", "action", "code_pattern", "cues")


def _load_parity(path: Path, data: Any = None) -> ParityCatalog:
    if data is None:
        data = _load_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise _err(path, None, "top level must be a mapping with a 'rules' list")
    family = data.get("family", "hermes-parity")
    defaults = data.get("defaults") or {}
    versions_raw = data.get("versions")
    if not isinstance(versions_raw, dict) or set(map(str, versions_raw)) != set(VERSIONS):
        raise _err(path, None, f"'versions' must define exactly {', '.join(VERSIONS)}")
    versions: dict[str, VersionScanConfig] = {}
    for v, cfg in versions_raw.items():
        try:
            chars = frozenset(chr(int(c[2:], 16)) for c in cfg["invisible_chars"])
            window = cfg["max_scan_chars"]
            nfkc_on = cfg.get("nfkc", True)
            if not isinstance(nfkc_on, bool):
                raise TypeError("nfkc must be true or false")
            if set(cfg) - {"max_scan_chars", "invisible_chars", "nfkc", "scopes", "invisible_id"}:
                raise ValueError(f"unknown keys {sorted(set(cfg) - {'max_scan_chars', 'invisible_chars', 'nfkc', 'scopes', 'invisible_id'})}")
            inv_id = cfg.get("invisible_id", "invisible_unicode_U+{:04X}")
            if not isinstance(inv_id, str) or "{:04X}" not in inv_id:
                raise TypeError("invisible_id must be a string holding {:04X}")
            scopes_raw = cfg.get("scopes")
            scopes = None
            if scopes_raw is not None:
                if not isinstance(scopes_raw, dict) or set(scopes_raw) != set(SCOPES) or not all(
                        isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in scopes_raw.values()):
                    raise TypeError(f"scopes must map each of {', '.join(SCOPES)} to a list of hermes_id")
                scopes = {k: tuple(ids) for k, ids in scopes_raw.items()}
            versions[str(v)] = VersionScanConfig(None if window is None else int(window), chars, nfkc_on,
                                                 scopes, inv_id)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _err(path, None, f"version {v}: bad max_scan_chars/invisible_chars/nfkc/scopes/invisible_id ({exc})") from None
    msg_t = _req_str(path, None, data, "message")
    help_t = _req_str(path, None, data, "help")
    fix_default = data.get("fix", "") or ""  # a rule's own `fix` wins
    if not isinstance(fix_default, str):
        raise _err(path, None, "'fix' must be a string")
    sev = Severity.parse(defaults.get("severity", "medium"))
    conf = Confidence.parse(defaults.get("confidence", "high"))
    rules: list[Rule] = []
    for raw in data["rules"]:
        if not isinstance(raw, dict):
            raise _err(path, None, "each rule must be a mapping")
        rid = str(raw.get("code", "?"))
        _check_ids(path, rid, raw)
        pid = _req_str(path, rid, raw, "hermes_id")
        scope = raw.get("scope")
        if scope not in SCOPES:
            raise _err(path, rid, f"'scope' must be one of {', '.join(SCOPES)}")
        base = _req_str(path, rid, raw, "pattern")
        vp = {v: base for v in VERSIONS}
        for v, p in (raw.get("versions") or {}).items():
            if str(v) not in VERSIONS or not isinstance(p, str):
                raise _err(path, rid, f"'versions' key {v!r} unknown or not a string")
            vp[str(v)] = p
        compiled = {}
        for v, p in vp.items():
            try:
                compiled[v] = LazyPattern("re", p, re.IGNORECASE, re.compile(p, re.IGNORECASE))
            except re.error as exc:
                raise _err(path, rid, f"pattern for {v} does not compile: {exc}") from None
        title = _req_str(path, rid, raw, "title")
        m, n, except_in = _parity_examples(path, rid, raw)
        rule = Rule(
            code=rid, name=raw["name"], family=family, severity=sev, confidence=conf, title=title,
            message=msg_t, help=help_t, kinds=frozenset({"all"}), source=path.name,
            fix=raw.get("fix", "") or fix_default, references=["CWE-1427", "OWASP-LLM01"],
            examples_match=m, examples_no_match=n, patterns=[base], hermes_id=pid, scope=scope,
            version_patterns=vp, version_compiled=compiled, demote_in_examples=False, examples_except=except_in,
        )
        rules.append(rule)
    inv = data.get("invisible_rule")
    if not isinstance(inv, dict):
        raise _err(path, None, "'invisible_rule' mapping is required")
    _check_ids(path, str(inv.get("code")), inv)
    inv_rule = Rule(
        code=inv["code"], name=inv["name"], family=family, severity=sev, confidence=conf,
        title="Invisible character Hermes blocks", message=_req_str(path, inv["code"], inv, "message"),
        help=_req_str(path, inv["code"], inv, "help"), kinds=frozenset({"all"}), source=path.name,
        fix=str(inv.get("fix", "") or ""),
        references=["CWE-1427", "OWASP-LLM01"], hermes_id="invisible_unicode", scope="all",
        demote_in_examples=False,
    )
    known = {r.hermes_id for r in rules}
    for v, c in versions.items():
        unknown = sorted({i for ids in (c.scopes or {}).values() for i in ids} - known)
        if unknown:
            raise _err(path, None, f"version {v}: scopes name unknown hermes_id {', '.join(unknown)}")
    return ParityCatalog(rules, versions, inv_rule)


def _check_ids(path: Path, rid: str, raw: dict) -> None:
    if not isinstance(raw.get("code"), str) or not _CODE_RE.match(raw["code"]):
        raise _err(path, rid, "'code' must look like HA101 (H, a letter, three digits)")
    if not isinstance(raw.get("name"), str) or not _NAME_RE.match(raw["name"]):
        raise _err(path, rid, "'name' must be kebab-case")


#: ``{{name}}`` in an audit rule's pattern: the rule's list ``name`` (``lists:``), see :func:`_expand_lists`.
_LIST_REF = re.compile(r"\{\{([a-z][a-z0-9_]{0,40})\}\}")


def _list_entry(entry: str) -> str:
    """One entry of a rule's list as a pattern: the literal text (a host, or a host and a path prefix such as
    ``astral.sh/uv/``); an entry without ``/`` is a whole host name, so a URL's host must end there: what follows
    is a port, a path, a query or the end of the URL (``get.docker.com`` is not ``get.docker.com.evil.example``,
    nor ``github.com@evil.example``, whose host is ``evil.example``)."""
    return re.escape(entry) + ("" if "/" in entry else _HOST_END)


#: After a whole host name in a URL: a port, a path, a query, a fragment, or the end of the URL.
_HOST_END = r"(?![^/:?#\s\"'`)\]>|,;&])"


def _expand_lists(path: Path, rid: str, lists: Any, pats: list[str]) -> list[str]:
    """``pats`` with every ``{{name}}`` replaced by the alternation of the literal entries of the rule's list
    ``name`` (:func:`_list_entry`): allowlists kept as data (HA501's vendor installers, forges and package
    indexes), one entry per line with its reason, instead of copies inside several patterns. A reference to a
    list the rule does not define, or a list no pattern uses, is an error."""
    if lists is None:
        lists = {}
    if not isinstance(lists, dict) or not all(
            isinstance(k, str) and _LIST_REF.fullmatch("{{" + k + "}}") and isinstance(v, list) and v
            and all(isinstance(e, str) and e.strip() == e and e for e in v) for k, v in lists.items()):
        raise _err(path, rid, "'lists' must map lower-case names to non-empty lists of strings")
    used: set[str] = set()

    def sub(m: "re.Match[str]") -> str:
        name = m.group(1)
        if name not in lists:
            raise _err(path, rid, f"pattern names the list {{{{{name}}}}}, which 'lists' does not define")
        used.add(name)
        return "(?:" + "|".join(_list_entry(e) for e in lists[name]) + ")"

    out = [_LIST_REF.sub(sub, p) for p in pats]
    unused = sorted(set(lists) - used)
    if unused:
        raise _err(path, rid, f"'lists' {', '.join(unused)} not used by any pattern")
    return out


def _load_audit_file(path: Path, data: Any = None) -> list[Rule]:
    if data is None:
        data = _load_yaml(path)
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise _err(path, None, "top level must be a mapping with 'family' and a 'rules' list")
    family = data.get("family")
    if not isinstance(family, str) or not _NAME_RE.match(family):
        raise _err(path, None, "'family' must be a kebab-case string")
    out: list[Rule] = []
    for raw in data["rules"]:
        if not isinstance(raw, dict):
            raise _err(path, None, "each rule must be a mapping")
        rid = str(raw.get("code", "?"))
        _check_ids(path, rid, raw)
        known = {
            "code", "name", "title", "severity", "confidence", "kinds", "patterns", "pattern", "flags",
            "view", "detector", "params", "message", "help", "fix", "references", "examples",
            "demote_in_examples", "code_performs", "yields_to", "lists",
        }
        unknown = set(raw) - known
        if unknown:
            raise _err(path, rid, f"unknown key(s): {', '.join(sorted(unknown))}")
        try:
            sev = Severity.parse(str(raw.get("severity", "")))
            conf = Confidence.parse(str(raw.get("confidence", "")))
        except ValueError as exc:
            raise _err(path, rid, str(exc)) from None
        kinds = _str_list(path, rid, raw, "kinds") or ["all"]
        valid_kinds = {"all", *KIND_GROUPS, *(k.value for k in DocumentKind)}
        bad = [k for k in kinds if k not in valid_kinds]
        if bad:
            raise _err(path, rid, f"unknown kind(s) {', '.join(bad)}")
        pats = _str_list(path, rid, raw, "patterns")
        if "pattern" in raw:
            pats = [_req_str(path, rid, raw, "pattern"), *pats]
        pats = _expand_lists(path, rid, raw.get("lists"), pats)
        detector = raw.get("detector")
        if bool(pats) == bool(detector):
            raise _err(path, rid, "give either 'pattern'/'patterns' or 'detector', not both or neither")
        if detector is not None:
            if detector not in DETECTOR_NAMES:
                raise _err(path, rid, f"unknown detector {detector!r} (known: {', '.join(sorted(DETECTOR_NAMES))})")
        view = raw.get("view", "raw")
        if view not in VIEWS:
            raise _err(path, rid, f"'view' must be one of {', '.join(VIEWS)}")
        flags = 0
        for fl in _str_list(path, rid, raw, "flags") or ["ignorecase"]:
            if fl not in _FLAG_NAMES:
                raise _err(path, rid, f"unknown flag {fl!r}")
            flags |= _FLAG_NAMES[fl]
        params = raw.get("params") or {}
        if not isinstance(params, dict):
            raise _err(path, rid, "'params' must be a mapping")
        if detector == "cue-sentences":  # issue 19 (gen19): the cues are patterns, all of which a sentence must hold
            cues = params.get("cues")
            alts = [a for c in cues for a in ([c] if isinstance(c, str) else c)] if isinstance(cues, list) else []
            if not cues or not all(isinstance(c, str) or (isinstance(c, list) and c) for c in cues) or not all(
                    isinstance(a, str) and a for a in alts):
                raise _err(path, rid, "'params.cues' must be a non-empty list of patterns or lists of patterns")
            for a in alts:
                _compile_audit(path, rid, a, _PARAM_PATTERN_FLAGS)
        m, n = _examples(path, rid, raw)
        rule = Rule(
            code=rid, name=raw["name"], family=family, severity=sev, confidence=conf,
            title=_req_str(path, rid, raw, "title"), message=_req_str(path, rid, raw, "message"),
            help=_req_str(path, rid, raw, "help"), kinds=frozenset(kinds), source=path.name,
            fix=str(raw.get("fix", "") or ""), references=_str_list(path, rid, raw, "references"),
            examples_match=m, examples_no_match=n, patterns=pats,
            compiled=[_compile_audit(path, rid, p, flags) for p in pats], view=view,
            detector=detector, params=params, demote_in_examples=bool(raw.get("demote_in_examples", True)),
            code_performs=bool(raw.get("code_performs", False)),
            yields_to=tuple(_str_list(path, rid, raw, "yields_to")),
        )
        out.append(rule)
    return out


_CACHE: dict[str, Catalog] = {}

#: Shape of the on-disk catalog cache; part of its key.
_CACHE_FORMAT = 8
#: Fields of :class:`Rule` stored in the cache as they are (``severity``/``confidence`` by name; the compiled
#: patterns are rebuilt lazily from ``patterns``/``version_patterns``).
_RULE_FIELDS = ("code", "name", "family", "title", "message", "help", "kinds", "source", "fix", "references",
                "examples_match", "examples_no_match", "patterns", "view", "detector", "params",
                "demote_in_examples", "code_performs", "hermes_id", "scope", "version_patterns", "examples_except", "yields_to")


def _cache_key(raw: dict[str, bytes]) -> str:
    """Digest of everything a cached catalog depends on: the rule files' bytes, the code that validates
    them and derives their prefilters and compiled forms, and the versions of ``regex`` and PyYAML."""
    import regex

    here = Path(__file__).resolve().parent
    code = []
    for src in _KEY_SOURCES:
        try:
            code.append((here / src).read_bytes())
        except OSError:
            code.append(b"?")
    parts: list = [_CACHE_FORMAT, __version__, getattr(regex, "__version__", "?"), _yaml_version(), *code]
    for name in sorted(raw):
        parts += [name, raw[name]]
    return digest(parts)


#: Source files (relative to this package) whose code a cached catalog depends on; see :func:`_cache_key`.
_KEY_SOURCES = ("catalog.py", "lazy.py", "prefilter.py", "regex_code.py", "tails.py", "../hermes/threats.py")


def _file_signature(path: Path) -> str:
    """:func:`hermes_audit.datacache.file_signature` of ``path``."""
    return file_signature(path)


def _stat_key(names: list) -> Optional[str]:
    """A cheap key for the catalog of a rules directory (issue 8: start-up time): a digest of the rule
    files' and the validating code's :func:`_file_signature` plus the versions :func:`_cache_key` covers.
    It maps to the content digest (:func:`_cache_key`) the files had when the entry was written (the
    ``catalogkey`` entries of :mod:`hermes_audit.datacache`), so a run whose files are unchanged reads no
    rule file and hashes no content; any change to a file's signature is a miss, and the rule files are
    read and hashed in full (``None``: a file could not be stat'ed). ``names`` are the rule files' paths."""
    here = Path(__file__).resolve().parent
    # the regex package by its files' signatures, not its __version__: importing it is what issue 8 avoids
    regex_files = package_files()
    if regex_files is None:
        return None
    parts: list = [_CACHE_FORMAT, __version__, _yaml_version()]
    return stat_key(parts, [*(here / src for src in _KEY_SOURCES), *regex_files, *names])


def _yaml_version() -> str:
    """PyYAML's identity without importing it: the path, size and time of its ``__init__``."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("yaml")
        origin = spec.origin if spec is not None else None
        if origin:
            st = os.stat(origin)
            return f"{origin}:{st.st_size}:{st.st_mtime_ns}"
    except (ImportError, OSError, ValueError):
        pass
    return "?"


def _rule_record(r: Rule) -> tuple:
    """A validated rule as plain data (:data:`_RULE_FIELDS`, severity, confidence, pattern flags)."""
    return (tuple(getattr(r, f) for f in _RULE_FIELDS), r.severity.name, r.confidence.name,
            [int(c.flags) for c in r.compiled])


def _rule_from_record(rec: Any, codes: dict) -> Rule:
    """The :class:`Rule` of :func:`_rule_record` (its patterns compiled on first use)."""
    values, sev, conf, flags = rec
    r = Rule(**dict(zip(_RULE_FIELDS, values)), severity=Severity[sev], confidence=Confidence[conf])
    r.compiled = [LazyPattern("regex", p, fl, code=codes.get(f"{fl}\x00{p}")) for p, fl in zip(r.patterns, flags)]
    return r


def _parity_from_record(rec: Any, codes: dict, re_codes: dict) -> ParityCatalog:
    versions_rec, rule_recs, inv_rec = rec
    versions = {v: VersionScanConfig(n, frozenset(chars), nf, None if sc is None else {k: tuple(i) for k, i in sc.items()},
                                     inv_id)
                for v, (n, chars, nf, sc, inv_id) in versions_rec.items()}
    rules = []
    flags = int(re.IGNORECASE)
    for rr in rule_recs:
        r = _rule_from_record(rr, codes)
        r.version_compiled = {v: LazyPattern("re", p, re.IGNORECASE, code=re_codes.get(f"{flags}\x00{p}"))
                              for v, p in r.version_patterns.items()}
        rules.append(r)
    return ParityCatalog(rules, versions, _rule_from_record(inv_rec, codes))


def _write_cache(key: str, cat: "Catalog") -> bool:
    """Store the validated catalog as plain data (:mod:`hermes_audit.datacache`; silently skipped when a
    rule holds a value :mod:`marshal` cannot write, e.g. a YAML date in detector parameters). True when stored."""
    import regex

    pats = [(p, int(re.IGNORECASE)) for r in cat.parity.rules for p in r.version_patterns.values()]
    pats += [(c.pattern, int(c.flags)) for r in cat.rules for c in r.compiled]
    codes = {f"{int(c.flags)}\x00{c.pattern}": c.code for r in cat.rules for c in r.compiled
             if isinstance(c, LazyPattern) and c.code is not None}
    for r in cat.rules:  # detector parameters that are patterns (issue 8: see regex_code.compile_known)
        for k in _PARAM_PATTERN_KEYS if r.detector and isinstance(r.params, dict) else ():
            value = r.params.get(k)
            flat = ([v for x in value for v in (x if isinstance(x, list) else [x])] if isinstance(value, list)
                    else [value])
            for pat in flat:  # ``cues``: a list of patterns or of lists of patterns
                if not isinstance(pat, str):
                    continue
                try:
                    _compiled, code = compile_and_capture(pat, _PARAM_PATTERN_FLAGS)
                except regex.error:
                    continue
                if code is not None:
                    codes[f"{int(_PARAM_PATTERN_FLAGS)}\x00{pat}"] = code

    try:  # the engine's own constant patterns too (issue 8: start-up time; see regex_code.compile_builtin)
        codes.update(builtin_codes())
    except Exception:  # only costs time: those patterns are compiled the ordinary way
        pass
    # Hermes' patterns (compiled with ``re``) and the tails hermes.threats checks before them

    re_codes: dict = {}
    tails: dict = {}
    for r in cat.parity.rules:
        for p in r.version_patterns.values():
            compiled, rec = re_compile_and_capture(p, re.IGNORECASE)
            if rec is not None:
                re_codes[f"{int(re.IGNORECASE)}\x00{p}"] = rec
            tail = tail_pattern(p, compiled.flags)
            tails[f"{int(compiled.flags)}\x00{p}"] = (
                None if tail is None else (tail.pattern, re_compile_and_capture(tail.pattern, compiled.flags)[1]))

    try:  # the engine's own ``re`` constants (issue 8: see regex_code.re_compile_builtin)
        re_codes.update({k: v for k, v in re_builtin_codes().items() if k not in re_codes})
    except Exception:  # only costs time: those patterns are compiled the ordinary way
        pass
    # what the engine's candidate-start narrowing derives from each pattern's text (keyed by the compiled
    # pattern's own flags, as prefilter.narrowing looks it up)
    engine_pats = [materialize(c) for r in [*cat.parity.rules, cat.parity.invisible_rule, *cat.rules]
                   for c in r.compiled]
    narrowing = export_narrowing((c.pattern, int(c.flags)) for c in engine_pats)
    boundary = export_boundary((c.pattern, int(c.flags)) for c in engine_pats)
    for c in engine_pats:  # the helper patterns narrowing compiles, by their own engine (see narrowing_helpers)
        is_re = isinstance(c, re.Pattern)
        rec = narrowing.get(f"{int(c.flags)}\x00{c.pattern}")
        for src, fl in (narrowing_helpers(rec, int(c.flags), not is_re).values() if rec is not None else ()):
            k = f"{fl}\x00{src}"
            try:
                if is_re and k not in re_codes:
                    got = re_compile_and_capture(src, fl)[1]
                    if got is not None:
                        re_codes[k] = got
                elif not is_re and k not in codes:
                    got = compile_and_capture(src, fl)[1]
                    if got is not None:
                        codes[k] = got
            except (re.error, regex.error):  # narrowing then compiles it (and gives up) as before
                continue
    par = cat.parity
    parity_rec = ({v: (c.max_scan_chars, tuple(sorted(c.invisible_chars)), c.nfkc,
                       None if c.scopes is None else {k: list(i) for k, i in c.scopes.items()}, c.invisible_id)
                   for v, c in par.versions.items()},
                  [_rule_record(r) for r in par.rules], _rule_record(par.invisible_rule))

    try:  # each op-code record as one byte string, loaded when its pattern is first used
        codes = {k: packed(v) for k, v in codes.items()}
        re_codes = {k: packed(v) for k, v in re_codes.items()}
        tails = {k: None if v is None else (v[0], None if v[1] is None else packed(v[1])) for k, v in tails.items()}
    except ValueError:
        return False
    return datacache.write("catalog", key, {"format": _CACHE_FORMAT, "files": list(cat.files), "parity": parity_rec,
                                     "rules": [_rule_record(r) for r in cat.rules],
                                     "prefilters": export_analysis(pats), "regex_code": codes,
                                     "re_code": re_codes, "tails": tails,
                                     "narrowing": narrowing, "boundary": boundary})


def _from_cache(cached: Any) -> Optional["Catalog"]:
    """The catalog of a cache entry written by :func:`_write_cache`, or ``None`` (a malformed entry: a miss).

    The entry holds rules that validated when it was written; its key covers the rule files' bytes and the
    validating code, so they are not validated again."""
    try:
        codes = cached["regex_code"]
        parity = _parity_from_record(cached["parity"], codes, cached["re_code"])
        rules = [_rule_from_record(rec, codes) for rec in cached["rules"]]
        cat = Catalog(rules, parity, list(cached["files"]))
        prefilters, tails, narrowing = cached["prefilters"], cached["tails"], cached["narrowing"]
        boundary = cached["boundary"]
        if not all(isinstance(x, dict) for x in (codes, prefilters, tails, narrowing, cached["re_code"], boundary)):
            return None
    except Exception:  # any surprise in the entry: load from YAML instead
        return None

    preload_analysis(prefilters)
    preload_narrowing(narrowing)
    preload_boundary(boundary)
    remember(codes)
    remember_re(cached["re_code"])
    remember_tails(tails)
    return cat


def load_catalog(rules_dir: Optional[Path] = None) -> Catalog:
    """Load and validate every ``*.yaml`` in ``rules_dir`` (default: the shipped rules).

    Raises :class:`CatalogError` on the first problem (file and rule named),
    including duplicate codes or names across files.

    Issue 8 (start-up time): a catalog that validated once is cached as plain
    data (:mod:`hermes_audit.datacache`, :mod:`marshal`), keyed by a SHA-256
    digest of the rule files' bytes, of the validating code and of the Python,
    ``regex`` and PyYAML versions (:func:`_cache_key`). With a cache hit the
    YAML is not parsed and, since the same bytes validated with the same code
    when the entry was written, the rules are not validated again; the
    patterns' keyword prefilters and candidate-start narrowing
    (:func:`hermes_audit.patterns.prefilter.narrowing_record`) are not derived
    again, and each pattern
    (``regex`` for audit rules, ``re`` for Hermes' own) is built from its
    recorded op-codes the first time a text passes its prefilter
    (:class:`LazyPattern`). An entry that does not load is a miss. Before reading the rule files, a
    cheap key over their sizes, modification and change times (:func:`_stat_key`) is looked up: when it
    names the content digest of an entry, the rule files are not read or hashed at all.
    """
    d = (rules_dir or default_rules_dir()).resolve()
    key = str(d)
    if key in _CACHE:
        return _CACHE[key]
    if not d.is_dir():
        raise CatalogError(f"rules directory not found: {d}")
    parity_path = d / "hermes-parity.yaml"
    if not parity_path.is_file():
        raise CatalogError(f"rules directory {d} has no hermes-parity.yaml")

    paths = [p for p in sorted(d.glob("*.yaml")) if p.name not in HERMES_DATA_FILES]
    quick = _stat_key(paths)
    content_key = datacache.read_stat_key("catalog", quick)
    if content_key is not None:  # the files are as they were when an entry was written: no read, no hash
        cat = _cached_catalog(datacache.read("catalog", content_key), {p.name for p in paths})
        if cat is not None:
            _CACHE[key] = cat
            return cat
    raw: dict[str, bytes] = {}
    for p in paths:
        try:
            with open(p, "rb") as fh:
                data = fh.read(MAX_RULE_FILE_BYTES + 1)
        except OSError as exc:
            raise _err(p, None, f"cannot read: {exc}") from None
        if len(data) > MAX_RULE_FILE_BYTES:
            raise _err(p, None, f"file is more than {MAX_RULE_FILE_BYTES:,} bytes")
        raw[p.name] = data
    digest = _cache_key(raw)
    cat = _cached_catalog(datacache.read("catalog", digest), set(raw))
    if cat is None:
        parsed = {name: _load_yaml(d / name, data) for name, data in raw.items()}
        parity = _load_parity(parity_path, parsed[parity_path.name])
        rules: list[Rule] = []
        files = [parity_path.name]
        for name in sorted(parsed):
            if name == parity_path.name:
                continue
            rules.extend(_load_audit_file(d / name, parsed[name]))
            files.append(name)
        seen: dict[str, str] = {}
        for r in [*parity.rules, parity.invisible_rule, *rules]:
            for k in (r.code, r.name):
                if k in seen:
                    raise CatalogError(f"invalid rule file {r.source}, rule {r.code}: '{k}' is already used in {seen[k]}")
                seen[k] = r.source
        for r in rules:
            bad = [c for c in r.yields_to if c == r.code or seen.get(c) is None]
            if bad:
                raise CatalogError(f"invalid rule file {r.source}, rule {r.code}: 'yields_to' names "
                                   f"{', '.join(bad)}, not another rule of the catalog")
        cat = Catalog(rules, parity, files)
        if not _write_cache(digest, cat):
            _CACHE[key] = cat
            return cat
    datacache.write_stat_key("catalog", quick, digest)
    _CACHE[key] = cat
    return cat


def _cached_catalog(cached: Any, names: set) -> Optional["Catalog"]:
    """The catalog of a cache entry (:func:`_from_cache`) when it has this format and these rule files."""
    if isinstance(cached, dict) and cached.get("format") == _CACHE_FORMAT and isinstance(cached.get("files"), list) \
            and set(cached["files"]) == names:
        return _from_cache(cached)
    return None
