"""Baselines: accept the findings a repository already has, report only new ones.

``hermes-audit scan --write-baseline FILE`` records every current finding
(not already suppressed inline) by its content fingerprint; ``--baseline FILE``
then marks findings whose fingerprint is recorded as suppressed, with the
entry's reason, so only new findings fail the run.

The fingerprint (:func:`hermes_audit.findings.fingerprint`) depends on the
rule, the file path (relative to the repository root, whichever directory the
scan runs from: :func:`hermes_audit.documents.paths.repository_path`; an entry's
``path`` is that path too) and the normalised matched text
(case-folded, whitespace collapsed), never on line numbers: a finding keeps its
identity when lines are added above it, and a *different* match on the same
line is a new finding. Changing the matched text makes it a new finding.

File format (JSON, UTF-8, ASCII-escaped; ``version`` 1)::

    {
      "version": 1,
      "tool": "hermes-audit",
      "findings": [
        {"fingerprint": "9f2c...", "rule_id": "HA101", "path": "AGENTS.md",
         "line": 12, "severity": "high", "snippet": "Ignore all previous instructions",
         "reason": "quoted in the threat-model section"}
      ]
    }

``fingerprint``, ``rule_id``, ``path`` and ``reason`` are required; ``line``,
``severity`` and ``snippet`` are informational (``line`` is never used to match).
Rewriting a baseline keeps the reasons of entries that still match.

A baseline entry that matches no finding is *stale*: it is reported as a note
(and in SARIF as a tool execution notification) when its file was scanned, or
no longer exists, and its rule was run. Stale entries do not fail the run.

A baseline that accepts every Hermes-parity finding of a file Hermes blocks
also stops that file from failing the run (it is still reported as blocked).

Trust model: a baseline hides findings. A hostile repository can ship one, so
``--no-suppressions`` ignores a baseline that lies inside the scanned repository.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from hermes_audit import __version__
from hermes_audit.documents.paths import repository_path
from hermes_audit.findings import Severity

BASELINE_VERSION = 1
#: Largest baseline file read (bytes).
MAX_BASELINE_BYTES = 64 * 1024 * 1024
#: Reason written for new entries; edit it in the file to say why each finding is accepted.
DEFAULT_REASON = "accepted when the baseline was written"


class BaselineError(ValueError):
    """The baseline file is unreadable or invalid; the message is one line naming the file."""


@dataclass
class BaselineEntry:
    """One accepted finding."""

    fingerprint: str
    rule_id: str
    path: str
    reason: str
    line: Optional[int] = None
    severity: Optional[str] = None
    snippet: str = ""

    def to_dict(self) -> dict:
        out: dict = {"fingerprint": self.fingerprint, "rule_id": self.rule_id, "path": self.path}
        if self.line is not None:
            out["line"] = self.line
        if self.severity:
            out["severity"] = self.severity
        if self.snippet:
            out["snippet"] = self.snippet
        out["reason"] = self.reason
        return out


@dataclass
class Baseline:
    """A loaded baseline: entries keyed by fingerprint (the last entry wins on duplicates)."""

    entries: list[BaselineEntry] = field(default_factory=list)
    source: Optional[Path] = None

    def by_fingerprint(self) -> dict[str, BaselineEntry]:
        return {e.fingerprint: e for e in self.entries}


def _err(path: Path, msg: str) -> BaselineError:
    return BaselineError(f"baseline {path}: {msg}")


def load_baseline(path: Path) -> Baseline:
    """Read and validate a baseline file.

    Raises :class:`BaselineError` (a ``ValueError``) when the file is missing,
    not a regular file, larger than :data:`MAX_BASELINE_BYTES`, not UTF-8 JSON,
    or not in the documented shape.
    """
    path = Path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _err(path, "file not found") from None
    except OSError as exc:
        raise _err(path, f"cannot read: {exc.strerror or exc}") from None
    import stat as _stat

    if not _stat.S_ISREG(st.st_mode):
        raise _err(path, "not a regular file")
    if st.st_size > MAX_BASELINE_BYTES:
        raise _err(path, f"larger than {MAX_BASELINE_BYTES:,} bytes")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not _stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise _err(path, "not a regular file")
            raw = fh.read(MAX_BASELINE_BYTES + 1)
    except BaselineError:
        raise
    except OSError as exc:
        raise _err(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise _err(path, "not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise _err(path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise _err(path, "invalid JSON: nested too deeply") from None
    return parse_baseline(data, path)


def parse_baseline(data, path: Path) -> Baseline:
    """Validate decoded JSON as a baseline. Raises :class:`BaselineError`."""
    if not isinstance(data, dict):
        raise _err(path, "top level must be an object")
    if data.get("version") != BASELINE_VERSION:
        raise _err(path, f"unsupported version {data.get('version')!r} (expected {BASELINE_VERSION})")
    items = data.get("findings")
    if not isinstance(items, list):
        raise _err(path, "'findings' must be a list")
    entries: list[BaselineEntry] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise _err(path, f"findings[{i}] must be an object")
        for key in ("fingerprint", "rule_id", "path", "reason"):
            if not isinstance(item.get(key), str):
                raise _err(path, f"findings[{i}].{key} must be a string")
        fp = item["fingerprint"]
        if not fp or len(fp) > 128:
            raise _err(path, f"findings[{i}].fingerprint is empty or too long")
        line = item.get("line")
        if line is not None and (not isinstance(line, int) or isinstance(line, bool)):
            raise _err(path, f"findings[{i}].line must be an integer")
        sev = item.get("severity")
        if sev is not None and not isinstance(sev, str):
            raise _err(path, f"findings[{i}].severity must be a string")
        snippet = item.get("snippet", "")
        entries.append(BaselineEntry(fp, item["rule_id"], item["path"], item["reason"], line, sev,
                                     snippet if isinstance(snippet, str) else ""))
    return Baseline(entries, path)


def is_baseline_reason(reason: Optional[str]) -> bool:
    """Whether a finding's ``suppressed`` value comes from a baseline."""
    return reason is not None and reason.startswith("baseline:")


def build_baseline(result, previous: Optional[Baseline] = None, reason: str = DEFAULT_REASON) -> Baseline:
    """A baseline of ``result``'s findings that are not suppressed inline.

    Findings already accepted by a baseline are included. Reasons of
    ``previous`` entries with the same fingerprint are kept; new entries get ``reason``.
    """
    old = previous.by_fingerprint() if previous else {}
    identity = _identity_paths(result)
    entries: list[BaselineEntry] = []
    seen: set[str] = set()
    for f in result.findings:
        if f.suppressed is not None and not is_baseline_reason(f.suppressed):
            continue
        if not f.fingerprint or f.fingerprint in seen:
            continue
        seen.add(f.fingerprint)
        prev = old.get(f.fingerprint)
        entries.append(BaselineEntry(
            fingerprint=f.fingerprint, rule_id=f.rule_id, path=identity(f.path),
            reason=prev.reason if prev else reason, line=f.start.line, severity=f.severity.label,
            snippet=f.snippet[:200],
        ))
    entries.sort(key=lambda e: (e.path, e.line or 0, e.rule_id, e.fingerprint))
    return Baseline(entries)


def _identity_paths(result):
    """A function from a finding's displayed path to the path that identifies its file (relative to the
    repository root, :func:`hermes_audit.documents.paths.repository_path`)."""
    root = result.options.identity_root()
    files = {fr.document.path: fr.document.abs_path for fr in result.files}
    return lambda display: repository_path(display, files.get(display), root)


def dump_baseline(baseline: Baseline) -> str:
    """The baseline file's text (stable order, ASCII-only JSON, trailing newline)."""
    doc = {
        "version": BASELINE_VERSION,
        "tool": "hermes-audit",
        "generated_by": f"hermes-audit {__version__}",
        "findings": [e.to_dict() for e in baseline.entries],
    }
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


@dataclass
class StaleEntry:
    """A baseline entry that matched no finding."""

    entry: BaselineEntry
    why: str

    def message(self) -> str:
        e = self.entry
        return (f"baseline entry {e.fingerprint} ({e.rule_id} in {e.path}) no longer matches a finding "
                f"({self.why}); remove it or rewrite the baseline with --write-baseline")


def apply_baseline(result, baseline: Baseline) -> list[StaleEntry]:
    """Mark ``result``'s findings recorded in ``baseline`` as suppressed and find stale entries.

    A matched finding gets ``suppressed = "baseline: <reason>"`` (findings
    suppressed inline keep their reason). Stale entries are appended to
    ``result.notes`` and ``result.baseline_stale`` and returned.
    """
    entries = baseline.by_fingerprint()
    matched: set[str] = set()
    for f in result.findings:
        e = entries.get(f.fingerprint)
        if e is None:
            continue
        matched.add(e.fingerprint)
        if f.suppressed is None:
            f.suppressed = f"baseline: {e.reason}" if e.reason else "baseline"
    identity = _identity_paths(result)
    scanned = {identity(fr.document.path) for fr in result.files}
    ran = {r.code for r in getattr(result, "rules_run", [])}
    base = result.options.identity_root()  # entries name files relative to the repository root
    min_sev = result.options.min_severity
    stale: list[StaleEntry] = []
    for e in baseline.entries:
        if e.fingerprint in matched:
            continue
        if ran and e.rule_id not in ran:
            continue
        if e.severity:
            try:
                if Severity.parse(e.severity) < min_sev:
                    continue
            except ValueError:
                pass
        if e.path in scanned:
            stale.append(StaleEntry(e, "the file was scanned"))
        elif not os.path.lexists(base / e.path):
            stale.append(StaleEntry(e, "the file no longer exists"))
    for s in stale:
        result.notes.append(s.message())
    existing = getattr(result, "baseline_stale", None)
    if isinstance(existing, list):
        existing.extend(stale)
    else:
        result.baseline_stale = stale
    return stale
