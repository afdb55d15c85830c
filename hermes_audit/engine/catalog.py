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

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import regex
import yaml

from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.findings import Confidence, Severity

VERSIONS = ("latest", "0.19")
DEFAULT_VERSION = "latest"
SCOPES = ("all", "context", "strict")
VIEWS = ("raw", "nfkc", "deobfuscated", "decoded")
KIND_GROUPS = ("context", "soul", "memory", "skill", "distribution")
_CODE_RE = re.compile(r"^H[A-Z][0-9]{3}$")
_NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: Largest rule file accepted (a rules directory is trusted, but not unboundedly).
MAX_RULE_FILE_BYTES = 2 * 1024 * 1024
#: Files in ``rules/`` that hold other Hermes scanners as data (not audit rules); loaded by
#: ``hermes_audit.hermes.skills_guard`` and ``hermes_audit.profile_audit``.
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
    # parity only
    hermes_id: Optional[str] = None
    scope: Optional[str] = None
    version_patterns: dict[str, str] = field(default_factory=dict)
    version_compiled: dict[str, "re.Pattern[str]"] = field(default_factory=dict)

    @property
    def is_parity(self) -> bool:
        return self.hermes_id is not None

    def applies_to(self, kind: DocumentKind) -> bool:
        return "all" in self.kinds or kind.group in self.kinds or kind.value in self.kinds

    def pattern_for(self, version: str) -> str:
        return self.version_patterns.get(version, self.patterns[0] if self.patterns else "")


@dataclass
class VersionScanConfig:
    """Per-version facts of Hermes' scanner: scan window and invisible-character set."""

    max_scan_chars: int
    invisible_chars: frozenset[str]


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


def _load_yaml(path: Path) -> Any:
    try:
        size = path.stat().st_size
        if size > MAX_RULE_FILE_BYTES:
            raise _err(path, None, f"file is {size:,} bytes (limit {MAX_RULE_FILE_BYTES:,})")
        with open(path, encoding="utf-8") as fh:
            return yaml.safe_load(fh)
    except CatalogError:
        raise
    except yaml.YAMLError as exc:
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
    try:
        return regex.compile(pat, flags)
    except regex.error as exc:
        raise _err(path, rid, f"pattern does not compile: {exc}") from None


_FLAG_NAMES = {"ignorecase": regex.IGNORECASE, "multiline": regex.MULTILINE, "dotall": regex.DOTALL}


def _load_parity(path: Path) -> ParityCatalog:
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
            versions[str(v)] = VersionScanConfig(int(cfg["max_scan_chars"]), chars)
        except (KeyError, TypeError, ValueError) as exc:
            raise _err(path, None, f"version {v}: bad max_scan_chars/invisible_chars ({exc})") from None
    msg_t = _req_str(path, None, data, "message")
    help_t = _req_str(path, None, data, "help")
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
                compiled[v] = re.compile(p, re.IGNORECASE)
            except re.error as exc:
                raise _err(path, rid, f"pattern for {v} does not compile: {exc}") from None
        title = _req_str(path, rid, raw, "title")
        m, n = _examples(path, rid, raw)
        rule = Rule(
            code=rid, name=raw["name"], family=family, severity=sev, confidence=conf, title=title,
            message=msg_t, help=help_t, kinds=frozenset({"all"}), source=path.name,
            fix=raw.get("fix", "") or "", references=["CWE-1427", "OWASP-LLM01"],
            examples_match=m, examples_no_match=n, patterns=[base], hermes_id=pid, scope=scope,
            version_patterns=vp, version_compiled=compiled, demote_in_examples=False,
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
        references=["CWE-1427", "OWASP-LLM01"], hermes_id="invisible_unicode", scope="all",
        demote_in_examples=False,
    )
    return ParityCatalog(rules, versions, inv_rule)


def _check_ids(path: Path, rid: str, raw: dict) -> None:
    if not isinstance(raw.get("code"), str) or not _CODE_RE.match(raw["code"]):
        raise _err(path, rid, "'code' must look like HA101 (H, a letter, three digits)")
    if not isinstance(raw.get("name"), str) or not _NAME_RE.match(raw["name"]):
        raise _err(path, rid, "'name' must be kebab-case")


def _load_audit_file(path: Path) -> list[Rule]:
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
            "demote_in_examples",
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
        detector = raw.get("detector")
        if bool(pats) == bool(detector):
            raise _err(path, rid, "give either 'pattern'/'patterns' or 'detector', not both or neither")
        if detector is not None:
            from hermes_audit.engine.detectors import DETECTORS

            if detector not in DETECTORS:
                raise _err(path, rid, f"unknown detector {detector!r} (known: {', '.join(sorted(DETECTORS))})")
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
        m, n = _examples(path, rid, raw)
        rule = Rule(
            code=rid, name=raw["name"], family=family, severity=sev, confidence=conf,
            title=_req_str(path, rid, raw, "title"), message=_req_str(path, rid, raw, "message"),
            help=_req_str(path, rid, raw, "help"), kinds=frozenset(kinds), source=path.name,
            fix=str(raw.get("fix", "") or ""), references=_str_list(path, rid, raw, "references"),
            examples_match=m, examples_no_match=n, patterns=pats,
            compiled=[_compile_audit(path, rid, p, flags) for p in pats], view=view,
            detector=detector, params=params, demote_in_examples=bool(raw.get("demote_in_examples", True)),
        )
        out.append(rule)
    return out


_CACHE: dict[str, Catalog] = {}


def load_catalog(rules_dir: Optional[Path] = None) -> Catalog:
    """Load and validate every ``*.yaml`` in ``rules_dir`` (default: the shipped rules).

    Raises :class:`CatalogError` on the first problem (file and rule named),
    including duplicate codes or names across files.
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
    parity = _load_parity(parity_path)
    rules: list[Rule] = []
    files = [parity_path.name]
    for p in sorted(d.glob("*.yaml")):
        if p.name == parity_path.name or p.name in HERMES_DATA_FILES:
            continue
        rules.extend(_load_audit_file(p))
        files.append(p.name)
    seen: dict[str, str] = {}
    for r in [*parity.rules, parity.invisible_rule, *rules]:
        for k in (r.code, r.name):
            if k in seen:
                raise CatalogError(f"invalid rule file {r.source}, rule {r.code}: '{k}' is already used in {seen[k]}")
            seen[k] = r.source
    cat = Catalog(rules, parity, files)
    _CACHE[key] = cat
    return cat
