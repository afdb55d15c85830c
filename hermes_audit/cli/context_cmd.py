"""``hermes-audit context`` and ``hermes-audit hints``: what a Hermes session loads, and what it appends later.

Both commands only read (bounded, no FIFO opened, no symlink followed out of
the tree) and never write except ``--output``. Exit codes:

* ``context``: 0; 1 when Hermes would block a file it puts into the prompt
  (project context or SOUL.md) or hang at session start; 3 when the prediction
  is incomplete (a symlink out of the tree, an unread part of an oversized
  file, or, with ``--render --include-soul``, a SOUL.md Hermes would first
  create); 2 for usage or I/O errors.
* ``hints``: 0; 1 when a hint would be blocked; 3 when a hint is unknown (0.19
  follows a symlink out of the tree); 2 for usage errors or a bad trace line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from hermes_audit.hermes.profiles import get_profile, require_session_model
from hermes_audit.reporters.workflow import json_text
from hermes_audit.cli.common import echo_err, HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, EXIT_CLEAN, EXIT_FINDINGS, EXIT_INCOMPLETE, CliError, plural, write_output, terminal_safe, exact_or_safe, report_stalls


def _scanner(version: str):
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import CatalogError, load_catalog
    from hermes_audit.hermes.threats import scanner_for

    try:
        catalog = load_catalog()
    except CatalogError as exc:
        raise CliError(str(exc)) from None
    profile = get_profile(version)
    return profile, scanner_for(catalog.parity, profile.scanner)


def _fmt_chars(n: int) -> str:
    return f"{n:,}"


# ---------------------------------------------------------------------------------------------------
# context


_GLYPH = {
    "loaded": "+", "truncated": "~", "blocked": "x", "warned": "!", "empty": "o", "skipped": "o",
    "shadowed": "o", "duplicate": "o", "ignored": "o", "hang": "x", "unpredictable": "?", "not-reached": "-",
    "missing": "o", "seeded": "o",
}


def render_context_text(report, include_soul: bool) -> str:
    """The readable report of :func:`hermes_audit.hermes.context.simulate_context`."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.context import TYPE_TITLES
    from hermes_audit.hermes.truncation import UnknownText

    p = report.profile
    lines = [f"{p.label}: session started in {report.cwd}"]
    lines.append(f"  git root: {report.git_root or 'none (only the working directory is searched for .hermes.md)'}")
    lines.append(f"  cap: {_fmt_chars(report.cap.cap)} characters per context file ({report.cap.source}: {report.cap.detail})")
    winner = TYPE_TITLES.get(report.winner, "none") if report.winner else "none"
    lines.append(f"  project context: {winner}")
    lines.append(f"    {report.winner_reason}")
    lines.append("")
    lines.append("Files (status, characters after strip(), characters injected):")
    width = max([len(e.display) for e in report.entries] + [10])
    for e in report.entries:
        g = _GLYPH.get(e.status, " ")
        lines.append(f"  {g} {e.status:<13} {e.display:<{width}} {_fmt_chars(e.chars):>9} {_fmt_chars(e.injected_chars):>9}")
        reason = e.reason
        if e.pattern_ids and e.status in ("blocked", "warned") and not all(pid in reason for pid in e.pattern_ids):
            reason = f"patterns: {', '.join(e.pattern_ids)}; {reason}"
        if reason:
            lines.append(f"      {reason}")
    if not report.entries:
        lines.append("  (no project context file in the search path)")
    secs = list(report.sections) + ([report.merged] if report.merged is not None else [])
    if secs:
        lines.append("")
        lines.append("Sections:")
        if report.merged is not None:
            lines.append("  (two cuts: Hermes cuts each file's section of the AGENTS.md chain to the cap, joins them, then cuts "
                         "the joined chain to the cap again; the Files table counts what survives both)")
        for s in secs:
            tr = s.truncation
            state = "blocked" if s.blocked else ("truncated" if tr.truncated else "loaded")
            name = "merged AGENTS.md chain" if s.merged else f"## {s.label}"
            lines.append(f"  {name}: {state}, {_fmt_chars(tr.original_chars)} -> {_fmt_chars(len(tr.text))} characters")
            if tr.truncated:
                lines.append(f"    kept head {_fmt_chars(tr.head_chars)} + tail {_fmt_chars(tr.tail_chars)}; "
                             f"omitted characters {_fmt_chars(tr.omitted[0])}-{_fmt_chars(tr.omitted[1])} of the section")
                lines.append(f"    marker: {tr.marker.strip()}")
                if tr.lost_headings is None:
                    lines.append("    headings in the omitted middle: unknown (part of the file was not read)")
                elif tr.lost_headings:
                    heads = [h.text for h in tr.lost_headings]
                    lines.append(f"    headings the model never sees ({len(heads)}): " + "; ".join(heads[:30])
                                 + (" ..." if len(heads) > 30 else ""))
                else:
                    lines.append("    no Markdown heading falls in the omitted middle")
                try:
                    # start-up time: a command (and a report format) imports only what it runs
                    from hermes_audit.hermes.truncation import slice_text

                    head = slice_text(s.text, 0, min(tr.head_chars, 160))
                    tail = slice_text(s.text, len(s.text) - min(tr.tail_chars, 160), len(s.text)) if tr.tail_chars else ""
                    lines.append(f"    kept head starts: {head[:160]!r}")
                    if tail:
                        lines.append(f"    kept tail ends:   {tail[-160:]!r}")
                except UnknownText:
                    pass
    lines.append("")
    soul = report.soul
    if soul is None:
        lines.append("SOUL.md: not checked (--no-soul)")
    else:
        ids = f" ({', '.join(soul.entry.pattern_ids)})" if soul.entry is not None and soul.entry.pattern_ids else ""
        lines.append(f"SOUL.md ({soul.path}): {soul.status}{ids}")
        lines.append(f"    {soul.reason}")
        if soul.truncation is not None and soul.truncation.truncated:
            lines.append(f"    cut to {_fmt_chars(report.cap.cap)}: marker {soul.truncation.marker.strip()}")
    if report.notes:
        lines.append("")
        lines.append("Notes:")
        lines.extend(f"  - {n}" for n in report.notes)
    lines.append("")
    problem = report.render_problem
    if problem:
        lines.append(f"Rendered block: not predictable: {problem}")
    else:
        try:
            block = report.render(include_soul)
            what = "with SOUL.md" if include_soul else "SOUL.md goes to the identity slot, not here"
            lines.append(f"Rendered '# Project Context' block: {_fmt_chars(len(block))} characters "
                         f"(~{_fmt_chars((len(block) + 3) // 4)} tokens; {what}). Print it with --render.")
        except UnknownText as exc:
            lines.append(f"Rendered block: not predictable: {exc}")
    return "\n".join(lines) + "\n"


def _context_exit(report) -> int:
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.context import BLOCKED, HANG

    if report.hang is not None or (report.soul is not None and report.soul.status == HANG):
        return EXIT_FINDINGS
    if report.unpredictable is not None or report.unknown is not None:
        return EXIT_INCOMPLETE
    blocked = any(s.blocked or any(m.status == BLOCKED for m in s.members) for s in report.sections)
    if blocked or (report.soul is not None and report.soul.status == BLOCKED):
        return EXIT_FINDINGS
    return EXIT_CLEAN


@click.command()
@click.option("--cwd", "cwd", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The session's working directory.")
@click.option("--hermes-home", type=click.Path(path_type=Path), default=None,
              help="HERMES_HOME (SOUL.md, config.yaml) [default: $HERMES_HOME or ~/.hermes].")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--context-length", type=int, default=None, metavar="TOKENS",
              help="The model's context window; Hermes derives the cap from it (tokens x 4 x 0.06, 20,000 to 500,000; 0 or less means unknown, as in Hermes) [default: config.yaml model.context_length, else unknown].")
@click.option("--max-chars", type=click.IntRange(min=1), default=None, metavar="N",
              help="The cap itself, as if context_file_max_chars were set in config.yaml.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Hermes' config.yaml [default: HERMES_HOME/config.yaml].")
@click.option("--no-soul", is_flag=True, help="Leave SOUL.md out entirely.")
@click.option("--include-soul", is_flag=True,
              help="Render as build_context_files_prompt(skip_soul=False): SOUL.md at the end of the block.")
@click.option("--render", is_flag=True, help="Print the exact '# Project Context' block, byte for byte.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write to FILE (atomically) instead of stdout.")
def context(cwd, hermes_home, hermes_version, context_length, max_chars, config_path, no_soul, include_soul, render,
            fmt, output) -> None:
    """What a Hermes session started in --cwd loads: the winning context type and why, every other candidate
    with the reason it is not loaded, each section (loaded, blocked, truncated with the lost headings), the cap
    and its source, and SOUL.md. --render prints the exact '# Project Context' block Hermes injects."""
    hermes_version = default_hermes_version(hermes_version)
    try:
        require_session_model(get_profile(hermes_version), 'hermes-audit context (the session simulation)', 'context')
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.context import (cap_from_config, default_hermes_home, model_context_length, read_hermes_config,
                                            simulate_context)
    from hermes_audit.hermes.truncation import UnknownText

    if context_length is not None and max_chars is not None:
        raise CliError("give --context-length or --max-chars, not both")
    if not cwd.is_dir():
        raise CliError(f"--cwd {cwd}: not a directory")
    home = Path(hermes_home) if hermes_home is not None else Path(default_hermes_home())
    cfg_path = config_path if config_path is not None else home / "config.yaml"
    if config_path is not None and not config_path.exists():
        raise CliError(f"{config_path}: no such file")
    config, problem = read_hermes_config(cfg_path)
    if context_length is None and max_chars is None:
        context_length = model_context_length(config)  # as `prompt` does (issue 22 QA: the two disagreed)
    profile, scanner = _scanner(hermes_version)
    cap = cap_from_config(config, context_length, str(cfg_path), max_chars, profile=profile)
    stalled = len(scanner.stalls)
    try:
        report = simulate_context(cwd, profile, scanner, cap, hermes_home=None if no_soul else home)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if problem:
        report.notes.append(problem)
    code = EXIT_INCOMPLETE if report_stalls(scanner, stalled) else _context_exit(report)  # issue 18
    if render:
        try:
            block = report.render(include_soul)
        except UnknownText as exc:
            echo_err(f"hermes-audit: cannot render: {exc}")
            sys.exit(EXIT_INCOMPLETE)
        write_output(exact_or_safe(block, output), output)
        sys.exit(code)
    if fmt == "json":
        data = report.to_dict()
        try:
            data["render"] = report.render(include_soul)
        except UnknownText:
            data["render"] = None
        data["exit_code"] = code
        write_output(json_text(data) + "\n", output)
    else:
        write_output(terminal_safe(render_context_text(report, include_soul)), output)
    sys.exit(code)


# ---------------------------------------------------------------------------------------------------
# hints


def render_hints_text(report, show_text: bool = True) -> str:
    """The readable report of :func:`hermes_audit.hermes.hints.simulate_hints`."""
    p = report.profile
    lines = [f"{p.label}: subdirectory hints for a session in {report.working_dir}"]
    cap = p.hint_max_chars
    how = "head and tail kept around a marker" if p.hint_head_tail else "head kept, rest dropped silently"
    lines.append(f"  per-file cap: {_fmt_chars(cap)} characters ({how})")
    if report.mode == "all":
        lines.append("  worst case (--all): every directory of the tree touched once, in path order")
    if report.disabled:
        lines.append(f"  hints are off: {report.disabled}")
    lines.append("")
    for c in report.calls:
        if report.mode == "all":
            head = f"[{c.index}] {c.hints[0].display if c.hints else c.args.get('path')}"
        else:
            head = f"[{c.index}] {c.tool} {json.dumps(c.args, ensure_ascii=True)[:200]}"
        lines.append(head)
        if report.mode != "all":
            if c.error:
                lines.append(f"    fails: {c.error}")
            elif c.directories:
                lines.append("    new directories: " + ", ".join(_rel(d, report.working_dir) for d in c.directories))
            elif c.paths:
                lines.append("    paths: " + ", ".join(c.paths[:10]) + " (no new directory)")
        for h in c.hints:
            ids = f" ({', '.join(h.pattern_ids)})" if h.pattern_ids else ""
            lines.append(f"    {h.status:<13} {h.display}{ids}: {_fmt_chars(h.content_chars)} characters -> "
                         f"{_fmt_chars(h.injected)} appended")
            if h.detail:
                lines.append(f"      {h.detail}")
            if h.lost_headings:
                lines.append("      headings lost: " + "; ".join(t for _, t in h.lost_headings[:20]))
        if c.text:
            lines.append(f"    appended to the tool result: {_fmt_chars(len(c.text))} characters")
            if show_text:
                for ln in c.text.split("\n"):
                    lines.append("    |" + (" " + ln if ln else ""))
        elif not c.hints:
            lines.append("    nothing appended")
    b = report.budget()
    if not b["calls"]:  # issue 22 QA: an empty budget table for a tree with no hint files
        lines.append("")
        lines.append("No subdirectory hints: no directory below the session directory holds a file Hermes appends "
                     "as a hint (AGENTS.md, CLAUDE.md, .cursorrules).")
        return "\n".join(lines) + "\n"
    lines.append("")
    lines.append("Hint budget:")
    lines.append(f"  {plural(b['hints'], 'hint')} in {b['calls_with_hints']} of {plural(b['calls'], 'call')}: "
                 f"{_fmt_chars(b['total_injected'])} characters (~{_fmt_chars(b['estimated_tokens'])} tokens)")
    if b["largest"]:
        lines.append("  costliest:")
        for x in b["largest"]:
            lines.append(f"    {_fmt_chars(x['injected']):>9}  {x['path']} ({x['status']})")
    for key, title in (("truncated", "cut by the cap"), ("blocked", "blocked"), ("duplicates", "duplicates (not sent)"),
                       ("unpredictable", "unknown text (a symlink out of the tree, or an unread part of an "
                                         "oversized file)")):
        if b[key]:
            items = [x["path"] if isinstance(x, dict) else x for x in b[key]]
            lines.append(f"  {title}: " + ", ".join(items))
    if report.notes:
        lines.append("Notes:")
        lines.extend(f"  - {n}" for n in report.notes)
    if any(len(c.directories) > 1 for c in report.calls):
        lines.append("(Within one call Hermes visits new directories in set order, which varies between runs; "
                     "they are shown sorted by path.)")
    return "\n".join(lines) + "\n"


def _rel(path: str, base: str) -> str:
    return path[len(base):].lstrip("/") or "." if path.startswith(base) else path


@click.command()
@click.argument("paths", nargs=-1)
@click.option("--cwd", "cwd", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The session's working directory.")
@click.option("--trace", "trace", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help='Tool calls as JSON lines: {"tool": NAME, "args": {...}} per line.')
@click.option("--all", "all_dirs", is_flag=True,
              help="Worst case: every hint file in the tree, as if the agent touched each directory once.")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--home", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="What ~ and the home directory mean [default: this user's home].")
@click.option("--no-text", is_flag=True, help="Text format: do not print the appended text itself.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write to FILE (atomically) instead of stdout.")
def hints(paths, cwd, trace, all_dirs, hermes_version, home, no_text, fmt, output) -> None:
    """Simulate Hermes' subdirectory hints for a sequence of tool calls: which AGENTS.md / CLAUDE.md /
    .cursorrules get appended to which tool result, the exact text, and the hint budget.

    PATHS are read_file calls on those paths (in order). --trace gives any tool calls; --all the worst case.
    """
    hermes_version = default_hermes_version(hermes_version)
    try:
        require_session_model(get_profile(hermes_version), 'hermes-audit hints (the subdirectory-hint simulation)', 'hints')
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.hints import BLOCKED, UNPREDICTABLE, TraceError, read_trace, simulate_hints

    if all_dirs and (trace is not None or paths):
        raise CliError("--all simulates every directory; do not combine it with --trace or PATHs")
    if not all_dirs and trace is None and not paths:
        raise CliError("give PATHs, --trace FILE.jsonl or --all")
    if not cwd.is_dir():
        raise CliError(f"--cwd {cwd}: not a directory")
    calls: list = []
    if trace is not None:
        if not (trace.exists() or trace.is_symlink()):
            raise CliError(f"{trace}: no such file")
        try:
            calls.extend(read_trace(trace))
        except TraceError as exc:
            raise CliError(str(exc)) from None
    calls.extend(("read_file", {"path": p}) for p in paths)
    profile, scanner = _scanner(hermes_version)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.progress import Progress

    stalled = len(scanner.stalls)
    try:
        with Progress("simulating the hints of every directory" if all_dirs else f"simulating {len(calls)} tool calls"):
            report = simulate_hints(cwd, calls, profile, scanner, home=str(home) if home else None, all_dirs=all_dirs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    code = EXIT_CLEAN
    if any(h.status == BLOCKED for h in report.hints):
        code = EXIT_FINDINGS
    if any(h.status == UNPREDICTABLE for h in report.hints) or report_stalls(scanner, stalled):  # issue 18
        code = EXIT_INCOMPLETE
    if fmt == "json":
        data = report.to_dict()
        data["exit_code"] = code
        write_output(json_text(data) + "\n", output)
    else:
        write_output(terminal_safe(render_hints_text(report, show_text=not no_text)), output)
    sys.exit(code)
