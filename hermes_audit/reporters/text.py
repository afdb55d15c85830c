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
from hermes_audit.findings import Severity
from hermes_audit.reporters.json_report import safe_path
from hermes_audit.reporters.excerpt import ExcerptLines, source_excerpt

_SEV_COLOR = {
    Severity.CRITICAL: "magenta",
    Severity.HIGH: "red",
    Severity.MEDIUM: "yellow",
    Severity.LOW: "cyan",
    Severity.INFO: "blue",
}
_STATUS_COLOR = {"loaded": "green", "blocked": "red", "warned": "yellow", "skipped": "yellow"}


def _style(s: str, color: Optional[str], enabled: bool, bold: bool = False) -> str:
    return click.style(s, fg=color, bold=bold) if enabled else s


#: The former private name (tests call it); the public home is :mod:`hermes_audit.reporters.excerpt`.
_source_excerpt = source_excerpt


def render(result, color: bool = False, show_source: bool = True, include_suppressed: bool = False) -> str:
    """The report as one string. Suppressed findings (inline suppressions, baseline) are only
    counted in the summary unless ``include_suppressed``."""
    out: list[str] = []
    texts = {fr.document.path: fr.document.text or "" for fr in result.files}
    excerpt_lines = ExcerptLines(redact_in_place)  # one per report: each text split, each line redacted, once
    for f in result.findings:
        if f.suppressed is not None and not include_suppressed:
            continue
        sev = _style(f.severity.label, _SEV_COLOR[f.severity], color, bold=True)
        head = f"{safe_path(f.path)}:{f.start.line}:{f.start.column}: {_style(f.rule_id, None, color, bold=True)} [{sev}/{f.confidence.label}] {printable(f.message, 400)}"
        if f.suppressed is not None:
            head += f"  (suppressed: {printable(f.suppressed, 200)})"
        out.append(head)
        if show_source:
            out.extend(source_excerpt(texts.get(f.path, ""), f, excerpt_lines))
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
            if v.message:  # a loaded file has one only when something about it needs saying (a manifest's bomb)
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
