"""GitHub Actions output (``--format github``): workflow-command annotations and a job summary.

Each unsuppressed finding becomes one line::

    ::error file=AGENTS.md,line=6,endLine=6,col=1,endColumn=21,title=HA102 hide-from-user::message

A finding on a file outside the repository (``scan --prompt``: SOUL.md, memory
stores, config.yaml of ``HERMES_HOME``) has no ``file=``/``line=`` properties,
which GitHub could not resolve against the checkout (it drops such an
annotation's location): it is shown on the run's summary page, with the file
and position at the start of its message.

``error`` for critical and high, ``warning`` for medium, ``notice`` for low and
info. Files Hermes would block, files that could not be read and rule errors
are annotated too. GitHub shows at most 10 error and 10 warning annotations per
step (the rest stay in the log); a final notice says how many there were.

Escaping (GitHub's rules for workflow commands, as the Actions toolkit applies
them): in the message ``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``; in
property values additionally ``:`` -> ``%3A`` and ``,`` -> ``%2C``. Text taken
from scanned files (paths, matches, decoded hidden payloads) is first passed
through :func:`~hermes_audit.engine.unicode_chars.printable` (control and bidi
characters escaped), so every command is exactly one line and nothing from a
scanned file can start a workflow command of its own (``::set-output``,
``::add-mask::``, ``::stop-commands::`` ...).

When ``$GITHUB_STEP_SUMMARY`` names a file, a Markdown summary (counts, the
findings table, the files Hermes would block) is appended to it, with Markdown
and HTML metacharacters from scanned files escaped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Finding, Severity
from hermes_audit.documents.gitroot import find_git_root
from hermes_audit.documents.paths import repo_relative
from hermes_audit.documents.reader import ReadStatus
from hermes_audit.engine.unicode_chars import safe_path
from hermes_audit.reporters.sarif import _blocked_without_result, outside_repository

COMMANDS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}
#: Annotations GitHub displays per step and per kind (errors, warnings).
DISPLAY_LIMIT = 10
#: Findings listed in the job summary table.
SUMMARY_ROWS = 200


def escape_data(value: str) -> str:
    """Escape a workflow-command message: ``%``, CR, LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow-command property value: ``%``, CR, LF, ``:``, ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _clean(text: str, limit: int = 2000) -> str:
    """Text from a scanned file made printable (controls, bidi, line breaks escaped)."""
    return printable(text, limit)


def command(kind: str, message: str, **props: Optional[object]) -> str:
    """One workflow command line: ``::kind prop=value,...::message`` (all escaped)."""
    parts = [f"{k}={escape_property(str(v))}" for k, v in props.items() if v is not None and str(v) != ""]
    head = f"::{kind}" + (" " + ",".join(parts) if parts else "")
    return f"{head}::{escape_data(message)}"


def _root(result) -> Path:
    if getattr(result.options, "repo_root", None) is not None:  # the CLI's: the one fingerprints use
        return result.options.identity_root()
    base = (result.options.base or Path.cwd()).absolute()
    try:
        return find_git_root(base.resolve()) or base
    except Exception:  # git missing or unusable: paths relative to the base directory
        return base


def _path(display: str, abs_path, root: Path) -> str:
    rel, _ = repo_relative(display, abs_path, root)
    return safe_path(rel)  # undecodable bytes of a file name as \xNN, as in the other formats


def _finding_line(f: Finding, abs_path, root: Path) -> str:
    end_line, end_col = f.end.line, f.end.column
    if (end_line, end_col) <= (f.start.line, f.start.column):
        end_line, end_col = f.start.line, f.start.column + 1
    msg = f"[{f.severity.label}/{f.confidence.label}] {_clean(f.message)}"
    if f.decoded:
        msg += f"\nhidden text: {_clean(f.decoded, 500)}"
    if f.fix:
        msg += f"\nfix: {_clean(f.fix, 500)}"
    if outside_repository(f.path, abs_path, root):  # no file=: GitHub cannot place it (see the module docstring)
        where = f"{safe_path(f.path)}:{f.start.line}:{f.start.column} (outside the repository)"
        return command(COMMANDS[f.severity], f"{where} {msg}", title=f"{f.rule_id} {f.rule_name}")
    return command(
        COMMANDS[f.severity], msg,
        file=_path(f.path, abs_path, root), line=f.start.line, endLine=end_line,
        col=f.start.column, endColumn=end_col, title=f"{f.rule_id} {f.rule_name}",
    )


def annotations(result) -> list[str]:
    """The workflow-command lines for a scan result."""
    root = _root(result)
    doc_paths = {fr.document.path: fr.document.abs_path for fr in result.files}
    findings = [f for f in result.findings if f.suppressed is None] + _blocked_without_result(result)
    findings.sort(key=lambda f: (-int(f.severity), f.path, f.start.line, f.start.column))
    lines = [_finding_line(f, doc_paths.get(f.path), root) for f in findings]
    for fr in result.files:
        d = fr.document
        if d.read.status not in (ReadStatus.OK, ReadStatus.OVERSIZED):
            lines.append(command("warning", f"could not be read: {_clean(d.read.detail or d.read.status.value)}",
                                 file=_path(d.path, d.abs_path, root), title="hermes-audit: unreadable file"))
    for e in result.errors:
        lines.append(command("error", _clean(e.message), file=_path(e.path, doc_paths.get(e.path), root),
                             title="hermes-audit: scan incomplete"))
    errors = sum(1 for f in findings if COMMANDS[f.severity] == "error")
    warnings = sum(1 for f in findings if COMMANDS[f.severity] == "warning")
    if errors > DISPLAY_LIMIT or warnings > DISPLAY_LIMIT:
        lines.append(command(
            "notice",
            f"{errors} error and {warnings} warning annotations; GitHub shows {DISPLAY_LIMIT} of each per step. "
            "See the job summary, the log, or upload SARIF (--format sarif) for all of them.",
            title="hermes-audit",
        ))
    return lines


# --- job summary ---------------------------------------------------------------------------------

#: Markdown characters that can start emphasis, code, links, images, strikethrough or a table cell.
_MD_SPECIAL = set("\\`*_[]|~")


#: What GitHub's Markdown turns into a link by itself (GFM autolinks): a scheme before ``//`` or a
#: ``mailto:``/``xmpp:`` scheme, ``www.``, and the ``@`` of an e-mail address.
_AUTOLINK = None


def defang(text: str) -> str:
    """``text`` with nothing GitHub's Markdown would autolink: ``https://x`` -> ``https[:]//x``,
    ``www.x`` -> ``www[.]x``, ``a@b.c`` -> ``a[@]b.c`` (the brackets are then escaped by :func:`md_escape`,
    so they show as written)."""
    global _AUTOLINK
    if _AUTOLINK is None:
        import re

        _AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9+.-])(:)(?=//)|(?<=\bmailto)(:)|(?<=\bxmpp)(:)|(?<=\bwww)(\.)|(?<=\w)(@)(?=\w)")
    return _AUTOLINK.sub(lambda m: "[" + m.group() + "]", text)


def md_escape(text: str, limit: int = 300) -> str:
    """Text from a scanned file made safe for a Markdown table cell: printable, no autolink
    (:func:`defang`), HTML metacharacters as entities, Markdown punctuation backslash-escaped, no
    line breaks."""
    t = defang(_clean(text, limit))
    t = t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join("\\" + c if c in _MD_SPECIAL else c for c in t)


def summary_markdown(result) -> str:
    """The job summary: verdict counts, the findings table, the files Hermes would block."""
    s = result.summary()
    root = _root(result)
    doc_paths = {fr.document.path: fr.document.abs_path for fr in result.files}
    out = ["## hermes-audit", ""]
    code = s["exit_code"]
    status = {0: "passed", 1: "failed", 3: "incomplete"}.get(code, f"exit {code}")
    parts = [f"{n} {sev}" for sev, n in s["by_severity"].items() if n]
    out.append(
        f"**{status}**: {s['findings']} finding{'s' if s['findings'] != 1 else ''}"
        + (f" ({', '.join(parts)})" if parts else "")
        + f" in {s['files']} file{'s' if s['files'] != 1 else ''}"
        + f"; Hermes {result.hermes_version} would block {s['hermes'].get('blocked', 0)}"
        + (f"; {s['suppressed']} suppressed" if s["suppressed"] else "")
        + (f"; {s['ignored']} left out by per-path-ignores or trusted-hosts" if s.get("ignored") else "")
        + (f"; {s['errors']} error(s)" if s["errors"] else "")
        + "."
    )
    out.append("")
    live = [f for f in result.findings if f.suppressed is None]
    live.sort(key=lambda f: (-int(f.severity), f.path, f.start.line))
    if live:
        out += ["| Severity | Rule | Location | Message |", "|---|---|---|---|"]
        for f in live[:SUMMARY_ROWS]:
            loc = f"{md_escape(_path(f.path, doc_paths.get(f.path), root), 200)}:{f.start.line}:{f.start.column}"
            out.append(f"| {f.severity.label} | {f.rule_id} {md_escape(f.rule_name, 60)} | {loc} | {md_escape(f.message)} |")
        if len(live) > SUMMARY_ROWS:
            out.append(f"\n{len(live) - SUMMARY_ROWS} more findings are in the log.")
        out.append("")
    blocked = result.blocked_files()
    if blocked:
        out += [f"### Files Hermes {result.hermes_version} would block", ""]
        for fr in blocked:
            ids = ", ".join(md_escape(i, 80) for i in fr.verdict.pattern_ids)
            out.append(f"- {md_escape(_path(fr.document.path, fr.document.abs_path, root), 200)}: {ids}")
        out.append("")
    return "\n".join(out) + "\n"


def write_summary(result, path: Optional[str] = None) -> Optional[str]:
    """Append the job summary to ``path`` (default ``$GITHUB_STEP_SUMMARY``). Returns an error
    message when the file cannot be written, ``None`` otherwise (also when no path is set)."""
    target = path if path is not None else os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    try:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(summary_markdown(result))
    except OSError as exc:
        return f"cannot write the job summary to {target}: {exc.strerror or exc}"
    return None


def render(result, summary_path: Optional[str] = None) -> str:
    """The annotation lines (one per line), after appending the job summary when
    ``$GITHUB_STEP_SUMMARY`` (or ``summary_path``) is set."""
    problem = write_summary(result, summary_path)
    lines = annotations(result)
    if problem:
        lines.append(command("warning", problem, title="hermes-audit"))
    return "\n".join(lines) + ("\n" if lines else "")
