"""``hermes-audit memory``: Hermes' memory stores, entry by entry, with capacity and the rendered snapshot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from hermes_audit.cli.common import HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, CliError, color_enabled, write_output, exact_or_safe

SEVERITIES = ["info", "low", "medium", "high", "critical"]


def _split(values: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def render_text(audit, color: bool) -> str:
    """Human-readable report: each store with its entries, then the findings (text reporter)."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.engine.redact import redact
    from hermes_audit.engine.unicode_chars import printable
    from hermes_audit.hermes.memory import BLOCK_HEADERS, share_of_limit
    from hermes_audit.audits.memory import entry_findings
    from hermes_audit.reporters import text as text_report
    from hermes_audit.engine.unicode_chars import safe_path

    def style(s: str, fg: Optional[str] = None, bold: bool = False) -> str:
        return click.style(s, fg=fg, bold=bold) if color else s

    out: list[str] = []
    cfg = audit.config
    where = f"Hermes home: {safe_path(str(audit.home))}" if audit.home else "Memory store files"
    # each limit with where it comes from (issue 22 QA: "(from config.yaml)" when that file set none)
    lim = "limits " + ", ".join(
        f"{name} {cfg.limits[t]!r} ({cfg.limits_set.get(t, 'default')})"
        for t, name in (("memory", "MEMORY.md"), ("user", "USER.md"))) + " characters"
    out.append(style(f"{where} — {audit.result.hermes_version} profile; {lim}", bold=True))
    for p in cfg.problems:
        out.append(f"  ! {printable(p, 300)}")
    if audit.profile is not None and not audit.profile.memory_scan_on_load:
        out.append(f"  {audit.profile.label} scans memory only when its memory tool writes an entry: every entry on "
                   "disk enters the prompt as it is (the findings below are hermes-audit's)")
    out.append("")
    colors = {"loaded": "green", "blocked": "red", "empty": None, "missing": None, "skipped": "yellow",
              "disabled": "yellow"}
    for s in audit.stores:
        name = safe_path(s.document.path) if s.document is not None else s.filename
        head = f"{name} — {BLOCK_HEADERS[s.target]}: "
        if s.capacity is not None and s.entries:
            c = s.capacity
            head += f"{len(s.entries)} entr{'y' if len(s.entries) == 1 else 'ies'}, {c.current:,}/{c.limit:,} characters ({c.percent}%)"
            if c.over_limit:  # Hermes' header stops at 100%: the real share beside it
                head += style(f" OVER LIMIT ({share_of_limit(c.current, c.limit)} of it)", "red", bold=True)
            elif c.near_limit:
                head += style(" over 80%", "yellow")
        else:
            head += "no entries"
        head += "  [" + style(s.status, colors.get(s.status)) + "]"
        out.append(head)
        if s.note:
            out.append(f"  {printable(s.note, 400)}")
        by_entry = entry_findings(audit, s)
        for e in s.entries:
            line = s.document.lines.position(e.offset).line if s.document is not None else 0
            # the entry's first line, its secrets masked as in every snippet (seventh red team: a token was shown)
            first = printable(redact(s.live[e.index].split("\n", 1)[0]), 60)
            status = style("BLOCKED " + ", ".join(e.pattern_ids) if e.pattern_ids else
                           ("BLOCKED (too large to scan)" if e.status == "blocked" else "loaded"),
                           "red" if e.status == "blocked" else "green")
            n = len(by_entry.get(e.index, []))
            extra = f"  {n} finding{'s' if n != 1 else ''}" if n else ""
            out.append(f"  #{e.index + 1:<3} line {line:<5} {len(s.live[e.index]):>6,} chars  {status}  {first}{extra}")
        if s.drift is not None and s.drift.refused:
            out.append(style("  drift: Hermes' memory tool refuses replace/remove on this file:", "yellow"))
            for i in s.drift.issues[:5]:
                out.append(f"    - {printable(i.reason, 300)}")
        elif s.drift is not None and not s.drift.roundtrips and audit.profile is not None \
                and not audit.profile.memory_drift_guard:
            out.append(f"  drift: {audit.profile.label} has no drift guard: its next replace or remove rewrites "
                       "this file in the memory tool's format:")
            for i in s.drift.issues[:5]:
                out.append(f"    - {printable(i.reason, 300)}")
        if s.drift is not None and s.drift.duplicates:
            out.append(f"  {len(s.drift.duplicates)} duplicate entr{'y' if len(s.drift.duplicates) == 1 else 'ies'} "
                       "(Hermes keeps the first copy)")
        out.append("")
    out.append(text_report.render(audit.result, color=color))
    return "\n".join(out)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, readable=False))
@click.option("--profile", "profile_name", default=None, metavar="NAME",
              help="Read the profile NAME (HERMES_HOME/profiles/NAME) instead of the home itself.")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--target", type=click.Choice(["memory", "user"]), default=None,
              help="Store type of FILE arguments not named USER.md [default: memory].")
@click.option("--memory-limit", type=click.IntRange(min=0), default=None,
              help="MEMORY.md limit in characters [default: config.yaml, else 2200].")
@click.option("--user-limit", type=click.IntRange(min=0), default=None,
              help="USER.md limit in characters [default: config.yaml, else 1375].")
@click.option("--render", is_flag=True, help="Print only the memory blocks exactly as Hermes puts them in the system prompt.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--select", multiple=True, help="Only these rules (codes, prefixes, names or families).")
@click.option("--ignore", multiple=True, help="Skip these rules.")
@click.option("--min-severity", type=click.Choice(SEVERITIES), default="info", show_default=True)
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="high", show_default=True,
              help="Exit 1 on findings at or above this severity (an entry Hermes blocks, or a store it cannot load, always fails).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--hermes-home", type=click.Path(path_type=Path, file_okay=False, readable=False), default=None,
              help="The Hermes home, as the other commands take it (the same as naming it as PATHS).")
def memory(paths, profile_name, hermes_version, target, memory_limit, user_limit, render, fmt, output, select,
           ignore, min_severity, fail_on, color, hermes_home=None) -> None:
    """Audit Hermes' memory stores (memories/MEMORY.md and memories/USER.md).

    PATHS is a Hermes home (default: $HERMES_HOME, else ~/.hermes), a
    memories/ directory, or store files. Each store is parsed exactly as
    Hermes parses it ("\\n§\\n" entries, stripped, empties and duplicates
    dropped); each entry gets Hermes' load-time verdict (strict scan,
    [BLOCKED: ...] placeholder) and the audit rules; capacity is counted
    against the limits (config.yaml memory.memory_char_limit /
    memory.user_char_limit, else 2,200 and 1,375 characters).

    Exit codes: 0 clean, 1 findings at or above --fail-on, an entry Hermes
    blocks, or a store that makes Hermes load no memory (not UTF-8) or hang
    (a FIFO), 2 usage or input error, 3 incomplete.
    """
    hermes_version = default_hermes_version(hermes_version)
    if hermes_home is not None:  # issue 22 QA: `prompt`, `scan` and `profile` take --hermes-home; so does memory
        if paths:
            raise CliError("give the Hermes home as PATHS or as --hermes-home, not both")
        paths = (hermes_home,)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import CatalogError
    from hermes_audit.findings import Severity
    from hermes_audit.audits.memory import MemoryInputError, audit_memory

    try:
        audit = audit_memory(
            list(paths), hermes_version=hermes_version, profile_name=profile_name, target=target,
            limits={"memory": memory_limit, "user": user_limit}, select=_split(select) or None,
            ignore=_split(ignore), fail_on=Severity.parse(fail_on), min_severity=Severity.parse(min_severity),
        )
    except (MemoryInputError, CatalogError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if render:
        write_output(exact_or_safe(audit.snapshot() + ("\n" if audit.snapshot() else ""), output), output)
        sys.exit(3 if audit.result.incomplete else 0)
    if fmt == "json":
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters.json_report import to_dict
        from hermes_audit.reporters.workflow import json_text

        doc = to_dict(audit.result)
        doc["memory"] = audit.to_dict()
        doc["summary"]["exit_code"] = audit.exit_code()
        write_output(json_text(doc) + "\n", output)
    elif fmt == "sarif":
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters import sarif

        write_output(sarif.render(audit.result), output)
    else:
        write_output(render_text(audit, color_enabled(color) and output is None), output)
    sys.exit(audit.exit_code())
