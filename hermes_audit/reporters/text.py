"""Human-readable report (``--format text``), in the style of ruff and zizmor.

Each finding: ``path:line:col: CODE [severity/confidence] message``, the source
line with carets under the match, and the fix. Then the Hermes verdict of each
file and a summary by severity. Everything taken from scanned files is escaped,
so no terminal escape sequence or bidi control reaches the terminal.
"""

from __future__ import annotations

from typing import Optional

import click

from hermes_audit.engine.redact import redact_in_place
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Finding, Severity
from hermes_audit.reporters.json_report import safe_path

_SEV_COLOR = {
    Severity.CRITICAL: "magenta",
    Severity.HIGH: "red",
    Severity.MEDIUM: "yellow",
    Severity.LOW: "cyan",
    Severity.INFO: "blue",
}
_STATUS_COLOR = {"loaded": "green", "blocked": "red", "warned": "yellow", "skipped": "yellow"}
_WINDOW = 100
#: Most characters of a match shown (and underlined) in a source excerpt.
_MARK_MAX = 80


def _style(s: str, color: Optional[str], enabled: bool, bold: bool = False) -> str:
    return click.style(s, fg=color, bold=bold) if enabled else s


class _ExcerptLines:
    """The redacted lines of the last text asked for (issue 8: a file of one long line with thousands of
    findings was split and redacted once per finding, quadratic; now once per text and line)."""

    def __init__(self) -> None:
        self._text: Optional[str] = None
        self._lines: list[str] = []
        self._redacted: dict[int, str] = {}

    def line(self, text: str, number: int) -> Optional[str]:
        """Line ``number`` (1-based) of ``text``, ``\\r`` stripped and secrets redacted in place; ``None``
        when out of range."""
        if text is not self._text:
            self._text, self._lines, self._redacted = text, text.split("\n"), {}
        if not (1 <= number <= len(self._lines)):
            return None
        got = self._redacted.get(number)
        if got is None:
            got = self._redacted[number] = redact_in_place(self._lines[number - 1].rstrip("\r"))
        return got


def _source_excerpt(text: str, f: Finding, lines: Optional[_ExcerptLines] = None) -> list[str]:
    """The finding's first line, windowed around the match, with a caret line; nothing when the document has
    no text (an undecodable, unreadable or empty file: the message says why). ``lines``: shared across the
    findings of one report so each text is split, and each line redacted, once."""
    if not text:
        return []
    line = (lines if lines is not None else _ExcerptLines()).line(text, f.start.line)
    if line is None:
        return []
    col0 = f.start.column - 1
    end0 = f.end.column - 1 if f.end.line == f.start.line else len(line)
    end0 = max(end0, col0 + 1)
    lo = max(0, col0 - 30)
    hi = min(len(line), max(min(end0, col0 + _MARK_MAX), lo + _WINDOW))
    prefix = ("…" if lo > 0 else "") + printable(line[lo:col0], 10_000)
    marked = printable(line[col0:min(end0, hi)], 10_000) or " "
    suffix = printable(line[min(end0, hi):hi], 10_000) + ("…" if hi < len(line) else "")
    num = str(f.start.line)
    pad = " " * len(num)
    return [
        f" {pad} |",
        f" {num} | {prefix}{marked}{suffix}",
        f" {pad} | {' ' * len(prefix)}{'^' * min(len(marked), 80)}",
    ]


def render(result, color: bool = False, show_source: bool = True, include_suppressed: bool = False) -> str:
    """The report as one string. Suppressed findings (inline suppressions, baseline) are only
    counted in the summary unless ``include_suppressed``."""
    out: list[str] = []
    texts = {fr.document.path: fr.document.text or "" for fr in result.files}
    excerpt_lines = _ExcerptLines()
    for f in result.findings:
        if f.suppressed is not None and not include_suppressed:
            continue
        sev = _style(f.severity.label, _SEV_COLOR[f.severity], color, bold=True)
        head = f"{safe_path(f.path)}:{f.start.line}:{f.start.column}: {_style(f.rule_id, None, color, bold=True)} [{sev}/{f.confidence.label}] {printable(f.message, 400)}"
        if f.suppressed is not None:
            head += f"  (suppressed: {printable(f.suppressed, 200)})"
        out.append(head)
        if show_source:
            out.extend(_source_excerpt(texts.get(f.path, ""), f, excerpt_lines))
        if f.decoded:
            out.append(f"  = hidden text: {f.decoded}")
        for r in f.related:  # e.g. the other file of a cross-file seam
            out.append(f"  = related: {safe_path(r.path)}:{r.start.line}:{r.start.column}: {printable(r.message, 200)}")
        if f.fix:
            out.append(f"  = fix: {printable(f.fix, 300)}")
        out.append("")
    if result.files:
        out.append(_style(f"Hermes verdicts ({result.hermes_version}):", None, color, bold=True))
        width = min(max(len(safe_path(fr.document.path)) for fr in result.files), 60)
        for fr in result.files:
            v = fr.verdict
            status = _style(f"{v.status:<8}", _STATUS_COLOR.get(v.status), color)
            line = f"  {safe_path(fr.document.path):<{width}}  {fr.document.kind.value:<13} {status}"
            if v.pattern_ids:
                line += " " + ", ".join(v.pattern_ids)
            out.append(line)
            if v.message and v.status != "loaded":
                out.append(f"  {'':<{width}}  {'':<13} {printable(v.message, 600)}")
        out.append("")
    for note in result.notes:
        out.append(f"note: {safe_path(note)}")
    for e in result.errors:
        out.append(_style(f"error: {safe_path(e.path)}: {printable(e.message, 300)}", "red", color))
    s = result.summary()
    parts = [f"{n} {sev}" for sev, n in s["by_severity"].items() if n]
    total = s["findings"]
    tail = f"Found {total} finding{'s' if total != 1 else ''}" + (f" ({', '.join(parts)})" if parts else "")
    tail += f" in {s['files']} file{'s' if s['files'] != 1 else ''}"
    blocked = s["hermes"].get("blocked", 0)
    if blocked:
        tail += f"; Hermes {result.hermes_version} would block {blocked}"
    if s["suppressed"]:
        tail += f"; {s['suppressed']} suppressed"
    if result.errors:
        tail += f"; {len(result.errors)} error(s): the scan is incomplete"
    out.append(tail + ".")
    return "\n".join(line.rstrip() for line in out) + "\n"
