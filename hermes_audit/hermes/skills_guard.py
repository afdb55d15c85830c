"""Hermes' skills guard, reproduced: ``scan_skill`` and ``should_allow_install``.

The catalog is data (``rules/skills-guard.yaml``: the patterns, severities,
categories, structural limits and install policy of ``tools/skills_guard.py``
in hermes-agent 0.19.0, ``SCANNER_VERSION = "skills-guard-v1"``). What this
module reproduces (same source):

* only files whose suffix is scannable, or named ``SKILL.md``, are scanned; a
  file that is not UTF-8 is skipped;
* every pattern is searched on every line (``text.split("\\n")``) with
  ``re.IGNORECASE``; one finding per (pattern, line); the match text is the
  stripped line, cut to 117 characters + ``...`` above 120;
* invisible characters: one ``invisible_unicode`` finding (high) per line;
* structure: symlinks escaping the skill, broken symlinks, files over 256 KB,
  binaries, executable non-scripts, more than 50 files, more than 1 MB in all;
  ``.skillignore``/``.clawhubignore`` (gitignore-like) exclude paths, never
  ``SKILL.md``;
* verdict: any critical finding -> ``dangerous``, else any high -> ``caution``,
  else ``safe``; the install policy maps (trust level, verdict) to allow,
  block or ask.

Hermes (0.19.0) runs this scanner for ``hermes skills install``/``audit``/
``publish`` (skills-hub skills), the dashboard's hub scan, and skills the agent
writes itself when ``skills.guard_agent_created`` is on (off by default):
``hermes profile install`` copies a distribution's skills without it, and
nothing scans them when they are used. The patterns are run with
the ``regex`` module (Python ``re`` syntax, version 0) and a time limit, so a
hostile file cannot stall hermes-audit; Hermes' own ``re`` has no limit.
Hermes' order of invisible characters within a line depends on set iteration;
here the lowest code point present is reported.
"""

from __future__ import annotations

import fnmatch
import os
import stat
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable, Optional

import regex
import yaml

from hermes_audit.findings import Severity
from hermes_audit.findings import Confidence
from hermes_audit.hermes.distribution import walk_tree
from hermes_audit.patterns.catalog import Rule, default_rules_dir
from hermes_audit.patterns.prefilter import fold, prefilter_for

#: Seconds one pattern may run on one line before the file is reported as not fully scanned.
PATTERN_TIMEOUT = 2.0
#: Seconds the pattern scan of one skill may take in all (the rest is reported as not scanned).
SKILL_BUDGET = 60.0
#: Bytes read from one skill file at most (larger files are flagged by the structure check anyway).
MAX_READ_BYTES = 8 * 1024 * 1024
_SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}
VERDICTS = ("safe", "caution", "dangerous")


class SkillsGuardError(Exception):
    """``rules/skills-guard.yaml`` is missing or invalid."""


@dataclass(frozen=True)
class GuardPattern:
    code: str
    id: str
    severity: str
    category: str
    regex: str
    compiled: object


@dataclass
class GuardCatalog:
    """The skills-guard data file, validated and compiled."""

    scanner_version: str
    patterns: list[GuardPattern]
    scannable_extensions: frozenset[str]
    always_scanned: frozenset[str]
    binary_extensions: frozenset[str]
    script_extensions: frozenset[str]
    invisible: frozenset[str]
    max_file_count: int
    max_total_size_kb: int
    max_single_file_kb: int
    match_chars: int
    ignore_files: tuple[str, ...]
    trusted_repos: frozenset[str]
    install_policy: dict[str, tuple[str, str, str]]
    structural: dict[str, tuple[str, str, str]]  # id -> (code, severity, category)

    def severity_of(self, pattern_id: str) -> str:
        for p in self.patterns:
            if p.id == pattern_id:
                return p.severity
        return self.structural[pattern_id][1]


def default_catalog_path() -> Path:
    return default_rules_dir() / "skills-guard.yaml"


_CATALOG: dict[str, GuardCatalog] = {}


def load_guard_catalog(path: Optional[Path] = None) -> GuardCatalog:
    """Load and compile ``rules/skills-guard.yaml``. Raises :class:`SkillsGuardError` naming the problem."""
    p = (path or default_catalog_path()).resolve()
    if str(p) in _CATALOG:
        return _CATALOG[str(p)]
    try:
        with open(p, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SkillsGuardError(f"cannot load {p.name}: {exc}") from None
    try:
        if data.get("catalog") != "skills-guard":
            raise SkillsGuardError(f"{p.name} is not a skills-guard catalog")
        pats = []
        for raw in data["patterns"]:
            if raw["severity"] not in _SEVERITY_ORDER:
                raise SkillsGuardError(f"{p.name}: pattern {raw['id']} has unknown severity {raw['severity']!r}")
            try:
                compiled = regex.compile(raw["regex"], regex.IGNORECASE | regex.VERSION0)
            except regex.error as exc:
                raise SkillsGuardError(f"{p.name}: pattern {raw['id']} does not compile: {exc}") from None
            pats.append(GuardPattern(raw["code"], raw["id"], raw["severity"], raw["category"], raw["regex"], compiled))
        limits = data["limits"]
        cat = GuardCatalog(
            scanner_version=str(data["scanner_version"]),
            patterns=pats,
            scannable_extensions=frozenset(data["scannable_extensions"]),
            always_scanned=frozenset(data["always_scanned_names"]),
            binary_extensions=frozenset(data["binary_extensions"]),
            script_extensions=frozenset(data["script_extensions"]),
            invisible=frozenset(chr(int(c[2:], 16)) for c in data["invisible_chars"]),
            max_file_count=int(limits["max_file_count"]),
            max_total_size_kb=int(limits["max_total_size_kb"]),
            max_single_file_kb=int(limits["max_single_file_kb"]),
            match_chars=int(limits["match_chars"]),
            ignore_files=tuple(data["ignore_files"]),
            trusted_repos=frozenset(data["trusted_repos"]),
            install_policy={k: tuple(v) for k, v in data["install_policy"].items()},
            structural={k: (v["code"], v["severity"], v["category"]) for k, v in data["structural"].items()},
        )
    except SkillsGuardError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SkillsGuardError(f"{p.name} is malformed: {type(exc).__name__}: {exc}") from None
    _CATALOG[str(p)] = cat
    return cat


#: The rule family of skills-guard findings in ``hermes-audit profile`` (they count through the guard's own
#: install decision, not through ``--fail-on``).
GUARD_FAMILY = "hermes-skills-guard"

#: What each structural check of the skills guard finds (hermes-agent 0.19.0 ``tools/skills_guard.py``;
#: the limits are those of ``rules/skills-guard.yaml``).
STRUCTURAL_CHECKS = {
    "invisible_unicode": "a line holding an invisible or bidirectional-control character (one finding per line)",
    "symlink_escape": "a symlink whose target resolves outside the skill directory",
    "broken_symlink": "a symlink whose target does not exist",
    "oversized_file": "a file larger than {max_single_file_kb} KB",
    "binary_file": "a file with a binary extension (.exe, .so, .dll...)",
    "unexpected_executable": "a file with the executable bit that is not a script (.sh, .py, .rb, .pl, .bash)",
    "too_many_files": "a skill with more than {max_file_count} files",
    "oversized_skill": "a skill larger than {max_total_size_kb} KB in all",
}


def guard_rules(cat: Optional["GuardCatalog"] = None) -> list:
    """The skills guard as read-only :class:`~hermes_audit.patterns.catalog.Rule` objects, one per pattern
    (codes HS001-HS1xx, in Hermes' order) and per structural check (HS201-HS208), built from
    ``rules/skills-guard.yaml``. ``hermes-audit profile`` reports the guard's findings with these rules;
    ``rules --all`` lists them and ``explain HSnnn`` prints their help. They have no detector: the
    engine never runs them. Raises :class:`SkillsGuardError` when the data file is broken."""
    cat = cat or load_guard_catalog()
    policy = ", ".join(f"{lvl}: {'/'.join(d)}" for lvl, d in cat.install_policy.items())
    why = ("**Why it matters**: Hermes runs its skills guard when it installs a skill from the skills hub: "
           "any critical finding makes the skill `dangerous`, any high one `caution`, and the install policy "
           f"decides per trust level (safe/caution/dangerous -> {policy}). `hermes profile install` copies a "
           "distribution's skills without running it, so `hermes-audit profile` reports what the guard would "
           "say. A guard finding does not fail the run by itself; a skill the guard would not allow at "
           "`--skills-trust` does.")
    out = []
    for p in cat.patterns:
        out.append(Rule(
            code=p.code, name=f"skills-guard-{p.id.replace('_', '-')}", family=GUARD_FAMILY,
            severity=severity_of(p.severity), confidence=Confidence.HIGH,
            title=f"Hermes skills guard: {p.id} ({p.category})", message="",
            help=(f"**What it finds**: Hermes' skills-guard pattern `{p.id}` (category {p.category}, severity "
                  f"{p.severity}; {cat.scanner_version}, tools/skills_guard.py of hermes-agent 0.19.0). Regex, "
                  f"searched on every line with `re.IGNORECASE`:\n\n    {p.regex}\n\n{why}\n\n"
                  "**Fix**: remove the line, or review the skill and install it at a trust level that allows it."),
            kinds=frozenset({"all"}), source="skills-guard.yaml",
            fix=("Read the line: keep it if it does what the skill says (Hermes' guard flags honest code too, "
                 "e.g. `if args.profile:`); only a hub install (`hermes skills install`) runs this guard."),
        ))
    limits = {"max_single_file_kb": cat.max_single_file_kb, "max_file_count": cat.max_file_count,
              "max_total_size_kb": cat.max_total_size_kb}
    for sid, (code, sev, category) in sorted(cat.structural.items(), key=lambda kv: kv[1][0]):
        what = STRUCTURAL_CHECKS.get(sid, sid).format(**limits)
        out.append(Rule(
            code=code, name=f"skills-guard-{sid.replace('_', '-')}", family=GUARD_FAMILY,
            severity=severity_of(sev), confidence=Confidence.HIGH,
            title=f"Hermes skills guard: {sid} ({category})", message="",
            help=(f"**What it finds**: the skills guard's structural check `{sid}` (category {category}, severity "
                  f"{sev}; {cat.scanner_version}): {what}.\n\n{why}\n\n**Fix**: remove or replace the file."),
            kinds=frozenset({"all"}), source="skills-guard.yaml", fix="Remove or replace the file.",
        ))
    return out


@dataclass
class GuardFinding:
    """One skills-guard finding, as Hermes' ``Finding`` (``line`` 0 for structural ones)."""

    pattern_id: str
    code: str
    severity: str
    category: str
    file: str
    line: int
    match: str

    def to_dict(self) -> dict:
        return {"pattern_id": self.pattern_id, "code": self.code, "severity": self.severity,
                "category": self.category, "file": self.file, "line": self.line, "match": self.match}


@dataclass
class GuardResult:
    """``ScanResult`` of one skill: verdict, findings and the install decision at a trust level.

    ``errors`` lists files hermes-audit could not scan completely (a pattern
    timed out): the verdict is then a lower bound.
    """

    skill: str
    path: str
    trust_level: str
    verdict: str
    findings: list[GuardFinding] = field(default_factory=list)
    decision: str = "allow"
    reason: str = ""
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"skill": self.skill, "path": self.path, "trust_level": self.trust_level, "verdict": self.verdict,
                "decision": self.decision, "reason": self.reason,
                "findings": [f.to_dict() for f in self.findings], "errors": list(self.errors)}


def severity_of(level: str) -> Severity:
    """Hermes' severity word as a hermes-audit :class:`Severity`."""
    return Severity.parse(level)


def _match_text(line: str, width: int) -> str:
    t = line.strip()
    return t[: width - 3] + "..." if len(t) > width else t


_NAMES = {
    "\u200b": "zero-width space", "\u200c": "zero-width non-joiner", "\u200d": "zero-width joiner",
    "\u2060": "word joiner", "\u2062": "invisible times", "\u2063": "invisible separator",
    "\u2064": "invisible plus", "\ufeff": "BOM/zero-width no-break space", "\u202a": "LTR embedding",
    "\u202b": "RTL embedding", "\u202c": "pop directional", "\u202d": "LTR override", "\u202e": "RTL override",
    "\u2066": "LTR isolate", "\u2067": "RTL isolate", "\u2068": "first strong isolate",
    "\u2069": "pop directional isolate",
}


def scan_text(cat: GuardCatalog, text: str, rel: str, errors: Optional[list[str]] = None,
              deadline: Optional[float] = None) -> list[GuardFinding]:
    """``scan_file`` on already-decoded text: pattern findings in catalog order, then invisible characters.

    ``deadline`` (a ``time.monotonic()`` value) stops the pattern scan early; the stop is recorded in
    ``errors``.
    """
    lines = text.split("\n")
    out: list[GuardFinding] = []
    folded = fold(text)
    for p in cat.patterns:
        if deadline is not None and time.monotonic() > deadline:
            if errors is not None:
                errors.append(f"{rel}: the skill's scan time budget ran out at pattern {p.id}; the rest was not scanned")
            break
        pf = prefilter_for(p.compiled)
        if pf is not None and not pf.passes(folded):
            # a literal every match holds is nowhere in the text, so no line can match: the per-line search
            # (Hermes' own loop) is skipped. It was 60 % of `profile` on a 1 MB distribution (round 8, issue 18.4)
            continue
        for i, line in enumerate(lines, start=1):
            try:
                hit = p.compiled.search(line, timeout=PATTERN_TIMEOUT)
            except TimeoutError:
                if errors is not None:
                    errors.append(f"{rel}:{i}: pattern {p.id} timed out; the line was not fully scanned")
                continue
            if hit:
                out.append(GuardFinding(p.id, p.code, p.severity, p.category, rel, i, _match_text(line, cat.match_chars)))
    code, sev, category = cat.structural["invisible_unicode"]
    for i, line in enumerate(lines, start=1):
        present = sorted(set(line) & cat.invisible)
        if present:
            ch = present[0]
            out.append(GuardFinding("invisible_unicode", code, sev, category, rel, i,
                                    f"U+{ord(ch):04X} ({_NAMES.get(ch, unicodedata.name(ch, '?'))})"))
    return out


def is_scannable(cat: GuardCatalog, name: str) -> bool:
    """Does Hermes scan a file with this name (suffix in the list, or ``SKILL.md``)?"""
    suffix = PurePosixPath(name).suffix.lower()
    return suffix in cat.scannable_extensions or name in cat.always_scanned


def _read_text(path: Path) -> Optional[str]:
    """Text of a regular file as ``Path.read_text(encoding="utf-8")`` returns it (universal newlines),
    or ``None`` when Hermes skips it (not UTF-8, unreadable); FIFOs and symlinks are never opened."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            data = fh.read(MAX_READ_BYTES + 1)
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        text = data[:MAX_READ_BYTES].decode("utf-8")
    except UnicodeDecodeError:
        return None
    # Path.read_text uses universal newlines: CRLF and a lone CR both end a line
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def load_skill_ignore(skill_dir: Path, cat: GuardCatalog) -> Callable[[str], bool]:
    """``_load_skill_ignore``: a matcher for ``.skillignore``/``.clawhubignore`` patterns (gitignore basics)."""
    patterns: list[str] = []
    for name in cat.ignore_files:
        text = _read_text(skill_dir / name)
        if text is None:
            continue
        for raw in text.splitlines():
            line = raw.strip()
            if line and not line.startswith("#"):
                patterns.append(line)
    never = cat.always_scanned
    always = set(cat.ignore_files)

    def ignore(rel: str) -> bool:
        rel_posix = PurePosixPath(rel).as_posix()
        base = rel_posix.split("/")[-1]
        if base in never:
            return False
        if base in always:
            return True
        for pat in patterns:
            anchored = pat.startswith("/")
            p = pat.lstrip("/")
            is_dir = p.endswith("/")
            p = p.rstrip("/")
            if not p:
                continue
            if is_dir:
                if rel_posix == p or rel_posix.startswith(p + "/"):
                    return True
                if not anchored and ("/" + rel_posix + "/").find("/" + p + "/") != -1:
                    return True
                continue
            if fnmatch.fnmatch(rel_posix, p):
                return True
            if not anchored:
                if fnmatch.fnmatch(base, p):
                    return True
                if "/" not in p and any(fnmatch.fnmatch(seg, p) for seg in rel_posix.split("/")):
                    return True
                if rel_posix.startswith(p + "/"):
                    return True
        return False

    return ignore


def _walk(skill_dir: Path) -> list[tuple[Path, str, os.stat_result]]:
    """Files and symlinks under ``skill_dir`` (no symlink followed), bounded, in rglob order."""
    tree = walk_tree(skill_dir)
    out = []
    for e in tree.entries:
        if e.type == "dir":
            continue
        p = skill_dir / e.rel
        try:
            out.append((p, e.rel, os.lstat(p)))
        except OSError:
            continue
    return out


def _structure(cat: GuardCatalog, skill_dir: Path, ignore: Callable[[str], bool]) -> list[GuardFinding]:
    """``_check_structure``: symlinks, sizes, binaries, executable bits, file count, total size."""
    out: list[GuardFinding] = []
    count = 0
    total = 0
    root_real = skill_dir.resolve()

    def f(pid: str, file: str, match: str) -> GuardFinding:
        code, sev, category = cat.structural[pid]
        return GuardFinding(pid, code, sev, category, file, 0, match)

    for path, rel, st in _walk(skill_dir):
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            # Hermes' is_file() is false for FIFOs and sockets: they are neither counted nor scanned
            continue
        if ignore(rel):
            continue
        count += 1
        if stat.S_ISLNK(st.st_mode):
            try:
                resolved = Path(os.path.realpath(path, strict=True))
                if not _is_relative_to(resolved, root_real):
                    out.append(f("symlink_escape", rel, f"symlink -> {resolved}"))
            except (OSError, RuntimeError):
                out.append(f("broken_symlink", rel, "broken symlink"))
            continue
        size = st.st_size
        total += size
        if size > cat.max_single_file_kb * 1024:
            out.append(f("oversized_file", rel, f"{size // 1024}KB"))
        ext = PurePosixPath(rel).suffix.lower()
        if ext in cat.binary_extensions:
            out.append(f("binary_file", rel, f"binary: {ext}"))
        if ext not in cat.script_extensions and st.st_mode & 0o111:
            out.append(f("unexpected_executable", rel, "executable bit set"))
    if count > cat.max_file_count:
        out.append(f("too_many_files", "(directory)", f"{count} files"))
    if total > cat.max_total_size_kb * 1024:
        out.append(f("oversized_skill", "(directory)", f"{total // 1024}KB total"))
    return out


def _is_relative_to(p: Path, root: Path) -> bool:
    try:
        p.relative_to(root)
        return True
    except ValueError:
        return False


def resolve_trust_level(cat: GuardCatalog, source: str) -> str:
    """``_resolve_trust_level``: builtin, trusted, agent-created or community."""
    for prefix in ("skills-sh/", "skills.sh/", "skils-sh/", "skils.sh/"):
        if source.startswith(prefix):
            source = source[len(prefix):]
            break
    if source == "agent-created":
        return "agent-created"
    if source == "official":
        return "builtin"
    for trusted in cat.trusted_repos:
        if source == trusted or source.startswith(f"{trusted}/"):
            return "trusted"
    return "community"


def determine_verdict(findings: list[GuardFinding]) -> str:
    """``_determine_verdict``: dangerous on any critical, caution on any high, else safe."""
    if any(f.severity == "critical" for f in findings):
        return "dangerous"
    if any(f.severity == "high" for f in findings):
        return "caution"
    return "safe"


def install_decision(cat: GuardCatalog, trust_level: str, verdict: str, n_findings: int) -> tuple[str, str]:
    """``should_allow_install`` without ``--force``: (``allow``|``block``|``ask``, Hermes' reason text)."""
    policy = cat.install_policy.get(trust_level, cat.install_policy["community"])
    decision = policy[VERDICTS.index(verdict) if verdict in VERDICTS else 2]
    if decision == "allow":
        return "allow", f"Allowed ({trust_level} source, {verdict} verdict)"
    if decision == "ask":
        return "ask", f"Requires confirmation ({trust_level} source + {verdict} verdict, {n_findings} findings)"
    if verdict == "dangerous" and trust_level in ("community", "trusted"):
        return "block", (f"Blocked ({trust_level} source + dangerous verdict, {n_findings} findings). "
                         "--force does not override a dangerous verdict.")
    return "block", f"Blocked ({trust_level} source + {verdict} verdict, {n_findings} findings). Use --force to override."


def scan_skill(skill_dir: Path, display: str, trust_level: str = "community",
               cat: Optional[GuardCatalog] = None) -> GuardResult:
    """``scan_skill`` of a skill directory (or a single file), with the install decision at ``trust_level``.

    ``display`` is the path shown for the skill. Finding ``file`` values are
    relative to the skill directory, as Hermes reports them.
    """
    cat = cat or load_guard_catalog()
    findings: list[GuardFinding] = []
    errors: list[str] = []
    deadline = time.monotonic() + SKILL_BUDGET
    try:
        st = os.lstat(skill_dir)
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        ignore = load_skill_ignore(skill_dir, cat)
        findings.extend(_structure(cat, skill_dir, ignore))
        root_real = skill_dir.resolve()
        for path, rel, fst in _walk(skill_dir):
            if ignore(rel) or not is_scannable(cat, PurePosixPath(rel).name):
                continue
            if stat.S_ISLNK(fst.st_mode):
                # Hermes' is_file() follows links: a link to a file inside the skill is scanned as that
                # file; a link that leaves the skill is reported (symlink_escape) but never read here
                try:
                    target = Path(os.path.realpath(path, strict=True))
                except (OSError, RuntimeError):
                    continue
                if not _is_relative_to(target, root_real):
                    continue
                path = target
            elif not stat.S_ISREG(fst.st_mode):
                continue
            text = _read_text(path)
            if text is not None:
                findings.extend(scan_text(cat, text, rel, errors, deadline))
    elif st is not None and stat.S_ISREG(st.st_mode) and is_scannable(cat, skill_dir.name):
        text = _read_text(skill_dir)
        if text is not None:
            findings.extend(scan_text(cat, text, skill_dir.name, errors, deadline))
    verdict = determine_verdict(findings)
    decision, reason = install_decision(cat, trust_level, verdict, len(findings))
    return GuardResult(skill_dir.name, display, trust_level, verdict, findings, decision, reason, errors)
