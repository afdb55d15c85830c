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
from hermes_audit.engine.unicode_chars import safe_path
from hermes_audit.reporters.excerpt import ExcerptLines, source_excerpt

_SEV_COLOR = {
    Severity.CRITICAL: "magenta",
    Severity.HIGH: "red",
    Severity.MEDIUM: "yellow",
    Severity.LOW: "cyan",
    Severity.INFO: "blue",
}
_STATUS_COLOR = {"loaded": "green", "passes": "green", "blocked": "red", "warned": "yellow", "skipped": "yellow", "shadowed": "yellow",
                 "truncated": "yellow"}

#: Loading findings (rules/loading.yaml) that give a ``loaded`` file a word of its own in the verdict table:
#: a context file another type shadows never reaches the prompt (HA604, HA605); one Hermes' cap cuts loses its
#: middle (HA603, HA611). The word is taken from the findings, so it needs those rules selected.
_LOADING_WORD = {"HA604": "shadowed", "HA605": "shadowed", "HA603": "truncated", "HA611": "truncated"}


def _style(s: str, color: Optional[str], enabled: bool, bold: bool = False) -> str:
    return click.style(s, fg=color, bold=bold) if enabled else s


#: The former private name (tests call it); the public home is :mod:`hermes_audit.reporters.excerpt`.
_source_excerpt = source_excerpt


def plain_word(result) -> str:
    """The verdict word of a file Hermes lets through: ``loaded`` where the session is modelled for the run's
    version, ``passes`` where it is not (Hermes' scan lets the file through; whether the session loads it whole,
    shadowing and truncation, is not modelled)."""
    return "loaded" if getattr(result, "session_modelled", True) else "passes"


def display_status(result) -> dict[str, str]:
    """``{path: word}`` for the verdict table: the Hermes status (``loaded``, ``blocked``, ``warned``,
    ``skipped``), except that a ``loaded`` file with a shadowing finding, or one the loading simulation says
    never loads (``result.shadowed``: a twin of the winner, such as ``CLAUDE.md -> AGENTS.md``, has no finding),
    is ``shadowed`` and one with a truncation finding ``truncated`` (see :data:`_LOADING_WORD`; shadowed wins)."""
    words = {fr.document.path: fr.verdict.status for fr in result.files}
    plain = plain_word(result)
    if plain != "loaded":
        return {p: (plain if w == "loaded" else w) for p, w in words.items()}
    for f in result.findings:
        word, now = _LOADING_WORD.get(f.rule_id), words.get(f.path)
        if word and (now == "loaded" or (now == "truncated" and word == "shadowed")):
            words[f.path] = word
    for path in getattr(result, "shadowed", ()):  # the loading model's word, finding or not (a twin has none)
        if words.get(path) in ("loaded", "truncated"):
            words[path] = "shadowed"
    return words


def exit_reason(result) -> str:
    """Why the run exits as it does, in a few words: ``"exit 1: 2 findings at or above high"``."""
    code = result.exit_code()
    if code == 3:
        return f"exit 3: {len(result.errors)} error(s), the scan is incomplete"
    why = []
    failing = len(result.failing_findings())
    if failing:
        why.append(f"{failing} finding{'s' if failing != 1 else ''} at or above {result.options.fail_on.label}")
    if result.options.fail_on_blocked:
        blocked = len(result.failing_blocked_files())
        if blocked:
            why.append(f"Hermes {result.hermes_version} would block {blocked} file{'s' if blocked != 1 else ''}")
    if why:
        return f"exit {code}: " + " and ".join(why)
    fail_on = result.options.fail_on
    return f"exit {code}: nothing at or above {fail_on.label}" if fail_on is not None else f"exit {code}: --fail-on never"


def summary_line(result) -> str:
    """The last line of the text report: findings by severity, files, blocked files, suppressed, errors."""
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
    if s.get("ignored"):
        tail += f"; {s['ignored']} left out by per-path-ignores or trusted-hosts"
    if result.errors:
        tail += f"; {len(result.errors)} error(s): the scan is incomplete"
    return tail + "."


def render(result, color: bool = False, show_source: bool = True, include_suppressed: bool = False,
           show_files: bool = False) -> str:
    """The report as one string. Suppressed findings (inline suppressions, baseline) are only
    counted in the summary unless ``include_suppressed``. The verdict table lists only the files whose
    status (see :func:`display_status`) is not plain ``loaded``, plus a count line, unless ``show_files``."""
    out: list[str] = []
    documents = {fr.document.path: fr.document for fr in result.files}
    held: list = [None, ""]  # (path, text): one file's text at a time (issue 21: a tree's texts are kept packed)

    def text_of(path: str) -> str:
        if held[0] != path:
            d = documents.get(path)
            held[:] = [path, (d.text or "") if d is not None else ""]
        return held[1]
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
            out.extend(source_excerpt(text_of(f.path), f, excerpt_lines))
        if f.decoded:
            out.append(f"  = hidden text: {f.decoded}")
        for r in f.related:  # e.g. the other file of a cross-file seam
            out.append(f"  = related: {safe_path(r.path)}:{r.start.line}:{r.start.column}: {printable(r.message, 200)}")
        if f.fix:
            out.append(f"  = fix: {printable(f.fix, 300)}")
        out.append("")
    if result.files:
        words = display_status(result)
        counts: dict[str, int] = {}
        for w in words.values():
            counts[w] = counts.get(w, 0) + 1
        plain = plain_word(result)
        listed = [fr for fr in result.files
                  if show_files or words[fr.document.path] != plain or fr.verdict.message]
        n = len(result.files)
        count = ", ".join(f"{c} {w}" for w, c in sorted(counts.items(), key=lambda kv: (kv[0] != plain, kv[0])))
        hidden = "" if show_files or len(listed) == n else " (--verbose lists every file)"
        if plain != "loaded":  # see plain_word
            hidden = "; passes = not blocked: shadowing and truncation are not modelled for this version" + hidden
        label = result.hermes_label or result.hermes_version
        out.append(_style(f"Hermes verdicts ({label}): {n} file{'s' if n != 1 else ''}: {count}{hidden}",
                          None, color, bold=True))
        width = min(max((len(safe_path(fr.document.path)) for fr in listed), default=0), 60)
        for fr in listed:
            v = fr.verdict
            word = words[fr.document.path]
            status = _style(f"{word:<9}", _STATUS_COLOR.get(word), color)
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
    out.append(summary_line(result))
    return "\n".join(line.rstrip() for line in out) + "\n"
