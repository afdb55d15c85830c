"""``hermes-audit prompt``: the system prompt a Hermes session would start with, layer by layer.

Formats:

* ``text`` (default): the system message exactly as Hermes sends it on
  stdout (the cached prompt, plus ``agent.system_prompt`` when config.yaml sets
  one), so ``hermes-audit prompt > prompt.txt`` holds the bytes; the budget
  table, the prompt findings and the notes go to stderr (``--no-budget`` drops
  them);
* ``json``: every layer (name, tier, status, source, characters, estimated
  tokens, text), the tiers, the prompt, the budget, findings and notes;
* ``markdown``: a report (settings, layers, budget, findings, then the prompt).

Exit codes: 0; 1 when Hermes would block a layer (SOUL.md, a context file, a
memory entry) or never start (a FIFO it would read); 3 when part of the prompt
cannot be predicted (a symlink out of the tree, an unread middle of a huge
file); 2 for usage and I/O errors. Placeholders for Hermes' own texts (no
hermes-agent installed, no ``--hermes-source``) do not change the exit code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from hermes_audit.hermes.profiles import get_profile, require_session_model
from hermes_audit.reporters.workflow import json_text
from hermes_audit.cli.common import echo_err, HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, EXIT_CLEAN, EXIT_FINDINGS, EXIT_INCOMPLETE, CliError, plural, write_output, terminal_safe, exact_or_safe, report_stalls


def _fmt_pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def budget_table(report, findings: list) -> str:
    """The budget table and what goes with it (text format, stderr)."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.prompt import ABSENT, ASSUMED_CONTEXT_WINDOW

    out: list[str] = []
    p = report.profile
    out.append(f"{p.label} system prompt for a {report.settings.platform} session in {report.cwd}")
    out.append(f"  HERMES_HOME {report.home}; model {report.model or '(none)'}; provider {report.provider}; "
               f"{plural(len(report.tools), 'tool')} ({'default set' if report.settings.tools is None else '--tools'})")
    src = report.source
    out.append("  Hermes' own texts: " + (f"{src.origin}" + (f" (hermes-agent {src.version})" if src.version else "")
                                         if src else "placeholders (install hermes-agent or give --hermes-source DIR)"))
    out.append(f"  tokens: {report.counter.describe()}")
    out.append(f"  context-file cap: {report.cap.cap:,} characters ({report.cap.source})")
    out.append("  prompt: " + ("exact, byte for byte" if report.exact else
                               "approximate (placeholders or unpredictable parts: see status)"))
    out.append("")
    rows = report.budget()
    width = max([len(r["name"]) for r in rows] + [5])
    out.append(f"  {'layer':<{width}}  {'tier':<8}  {'status':<11}  {'chars':>8}  {'tokens':>7}  {'share':>6}  "
               f"{'uncached if changed':>19}  changes when")
    for r in rows:
        out.append(f"  {r['name']:<{width}}  {r['tier']:<8}  {r['status']:<11}  {r['characters']:>8,}  "
                   f"{r['tokens']:>7,}  {_fmt_pct(r['share']):>6}  {r['uncached_tokens_on_change']:>19,}  "
                   f"{r['changes_when']}")
    window = report.context_window or ASSUMED_CONTEXT_WINDOW
    assumed = "" if report.context_window else " (assumed; pass --context-length)"
    total = report.total_tokens + report.api_call_tokens
    out.append(f"  total: {report.total_chars:,} characters, ~{report.total_tokens:,} tokens"
               + (f" + ~{report.api_call_tokens:,} sent after it" if report.api_call_tokens else "")
               + f" = {_fmt_pct(total / window)} of a {window:,}-token window{assumed}; "
                 f"budget {_fmt_pct(report.settings.max_share)}")
    out.append("  cache: Hermes caches the prompt as one prefix; a change in a layer re-sends it and every "
               "layer after it uncached")
    absent = [ly for ly in report.layers if ly.status == ABSENT]
    if absent:
        out.append("")
        out.append("Not in this prompt:")
        for ly in absent:
            out.append(f"  - {ly.id}: {ly.reason}")
    lost = [ly for ly in report.included() if ly.lost]
    if lost:
        out.append("")
        out.append("Instructions the model never sees:")
        for ly in lost:
            out.append(f"  - {ly.id} ({ly.status}): " + "; ".join(ly.lost[:12]) + (" ..." if len(ly.lost) > 12 else ""))
    if any(ly.id in ("memory", "user-profile") for ly in report.included()):
        # issue 22 QA: a poisoned entry was shown as "loaded" here with no word that nothing audited it
        out.append("")
        out.append("note: the memory entries are in this prompt as Hermes loads them; `hermes-audit memory` audits them "
                   "(this dry run reports only what Hermes blocks and how the prompt is built)")
    if findings:
        out.append("")
        out.append("Findings:")
        for f in findings:
            out.append(f"  {f.path}:{f.start.line}:{f.start.column}: {f.rule_id} [{f.severity.label}] {f.message}")
    if report.problem:
        out.append("")
        out.append(f"Not predictable: {report.problem}")
    if report.notes:
        out.append("")
        out.append("Notes:")
        out.extend(f"  - {n}" for n in report.notes)
    return "\n".join(out) + "\n"


def _fence(text: str) -> str:
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def render_markdown(report, findings: list) -> str:
    """A Markdown report: settings, layers, budget, findings, notes, then the prompt."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.prompt import ASSUMED_CONTEXT_WINDOW

    p = report.profile
    src = report.source
    lines = [f"# System prompt dry run ({p.label})", ""]
    lines += [
        "| setting | value |", "|---|---|",
        f"| working directory | `{report.cwd}` |",
        f"| HERMES_HOME | `{report.home}` |",
        f"| platform | {report.settings.platform} |",
        f"| model / provider | {report.model or '(none)'} / {report.provider} |",
        f"| tools | {len(report.tools)} ({'default set' if report.settings.tools is None else '--tools'}) |",
        f"| session start | {report.now.isoformat()} |",
        f"| Hermes' own texts | {src.origin if src else 'placeholders'} |",
        f"| tokens | {report.counter.describe()} |",
        f"| context-file cap | {report.cap.cap:,} characters ({report.cap.source}) |",
        f"| exact | {'yes' if report.exact else 'no (placeholders or unpredictable parts)'} |",
        "",
        "## Budget", "",
        "| layer | tier | status | source | characters | tokens | share | uncached if changed | changes when |",
        "|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    src_of = {ly.id: ly.source for ly in report.layers}
    for r in report.budget():
        lines.append(f"| {r['name']} | {r['tier']} | {r['status']} | {src_of.get(r['name'], '') or ''} | "
                     f"{r['characters']:,} | {r['tokens']:,} | {_fmt_pct(r['share'])} | "
                     f"{r['uncached_tokens_on_change']:,} | {r['changes_when']} |")
    window = report.context_window or ASSUMED_CONTEXT_WINDOW
    total = report.total_tokens + report.api_call_tokens
    lines += ["", f"Total: {report.total_chars:,} characters, ~{report.total_tokens:,} tokens, "
                  f"{_fmt_pct(total / window)} of a {window:,}-token context window"
                  + ("" if report.context_window else " (assumed)")
                  + f" (budget {_fmt_pct(report.settings.max_share)}).", ""]
    absent = [ly for ly in report.layers if ly.status == "absent"]
    if absent:
        lines += ["## Not in this prompt", ""]
        lines += [f"- **{ly.id}**: {ly.reason}" for ly in absent]
        lines.append("")
    lost = [ly for ly in report.included() if ly.lost]
    if lost:
        lines += ["## Instructions the model never sees", ""]
        lines += [f"- **{ly.id}** ({ly.status}): " + "; ".join(ly.lost) for ly in lost]
        lines.append("")
    if findings:
        lines += ["## Findings", ""]
        lines += [f"- `{f.path}:{f.start.line}` **{f.rule_id}** ({f.severity.label}): {f.message}" for f in findings]
        lines.append("")
    if report.notes or report.problem:
        lines += ["## Notes", ""]
        if report.problem:
            lines.append(f"- not predictable: {report.problem}")
        lines += [f"- {n}" for n in report.notes]
        lines.append("")
    text = report.api_system_message
    fence = _fence(text)
    lines += ["## The prompt", "", fence + "text", text, fence, ""]
    return "\n".join(lines)


def exit_code(report) -> int:
    """1 blocked or hanging, 3 unpredictable, else 0."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.hermes.prompt import BLOCKED, UNKNOWN

    rep = report.context_report
    if rep is not None and (rep.hang is not None or (rep.soul is not None and rep.soul.status == "hang")):
        return EXIT_FINDINGS
    if report.memory_hang is not None:  # a FIFO memory store: the session never starts
        return EXIT_FINDINGS
    if report.problem or any(ly.status == UNKNOWN for ly in report.layers):
        return EXIT_INCOMPLETE
    if any(ly.status == BLOCKED for ly in report.included()):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _max_share_from_config(cwd: Path) -> Optional[float]:
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.config import ConfigError, load_config
    from hermes_audit.documents.gitroot import find_git_root

    root = find_git_root(cwd.resolve()) or cwd.resolve()
    try:
        return load_config(root).prompt_max_share
    except (ConfigError, AttributeError):
        return None


@click.command()
@click.option("--cwd", "cwd", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The directory the session is started in.")
@click.option("--hermes-home", type=click.Path(path_type=Path), default=None,
              help="HERMES_HOME [default: $HERMES_HOME, else ~/.hermes].")
@click.option("--profile", "profile_name", default=None, metavar="NAME",
              help="Hermes profile NAME (HERMES_HOME/profiles/NAME).")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--context-length", type=int, default=None, metavar="TOKENS",
              help="The model's context window [default: config.yaml model.context_length, else unknown].")
@click.option("--platform", default="cli", show_default=True, metavar="NAME",
              help="The surface: cli, tui, telegram, discord, slack, cron...")
@click.option("--now", "now", default=None, metavar="ISO-TIME",
              help="Session start, e.g. 2026-07-15T09:30:00+00:00 [default: now].")
@click.option("--hermes-source", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="A hermes-agent source checkout or site-packages directory to read Hermes' own texts from "
                   "(parsed, never imported) [default: an installed hermes-agent, else placeholders].")
@click.option("--model", default=None, help="Model name as Hermes reports it [default: config.yaml model].")
@click.option("--provider", default=None, help="Provider [default: config.yaml model.provider].")
@click.option("--tools", "tools", default=None, metavar="LIST",
              help="The session's tools: comma-separated names, 'none', or 'default' (core tools that need no setup).")
@click.option("--system-message", default=None, help="A caller's system_message (the CLI and gateway pass none).")
@click.option("--session-id", default=None, help="Session ID, shown when Hermes runs with --pass-session-id.")
@click.option("--max-share", type=click.FloatRange(min=0.0, max=1.0), default=None,
              help="Share of the context window the prompt may take before HA801 [default: config prompt-max-share, "
                   "else 0.25].")
@click.option("--tokens", "token_method", type=click.Choice(["auto", "chars", "tiktoken"]), default="auto",
              show_default=True, help="Token counting: tiktoken when installed, else characters / 4.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--no-budget", is_flag=True, help="Text format: print only the prompt, no budget table on stderr.")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write to FILE (atomically) instead of stdout.")
@click.option("--no-config", is_flag=True, help="Ignore the repository's configuration (prompt-max-share).")
def prompt(cwd, hermes_home, profile_name, hermes_version, context_length, platform, now, hermes_source, model,
           provider, tools, system_message, session_id, max_share, token_method, fmt, no_budget, output,
           no_config) -> None:
    """The system prompt a Hermes session started in --cwd would begin with, layer by layer: identity
    (SOUL.md), Hermes' guidance, the skills index, the project context, the memory snapshot, the session line,
    the platform hint; with each layer's tier, status, size and tokens, and a budget table."""
    hermes_version = default_hermes_version(hermes_version)
    try:
        require_session_model(get_profile(hermes_version), 'hermes-audit prompt (the system-prompt dry run)', 'prompt')
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import CatalogError, load_catalog
    from hermes_audit.findings import assign_fingerprints
    from hermes_audit.hermes import memory as mem
    from hermes_audit.hermes.hermes_source import SourceError, find_source
    from hermes_audit.audits.prompt import issues_to_findings
    from hermes_audit.hermes.prompt import (
        DEFAULT_MAX_SHARE, PromptError, PromptSettings, assemble, parse_now, parse_tools, prompt_issues,
    )
    from hermes_audit.hermes.threats import scanner_for
    from hermes_audit.hermes.tokens import get_counter

    if not cwd.is_dir():
        raise CliError(f"--cwd {cwd}: not a directory")
    try:
        home = mem.resolve_home(str(hermes_home) if hermes_home else None, profile_name)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if hermes_home is not None and not Path(hermes_home).is_dir():
        raise CliError(f"--hermes-home {hermes_home}: not a directory")
    if profile_name and not home.is_dir():
        raise CliError(f"no profile {profile_name!r} at {home}")
    try:
        when = parse_now(now) if now else None
        counter = get_counter(token_method)
        source = find_source(hermes_source)
    except (ValueError, SourceError) as exc:
        raise CliError(str(exc)) from None
    share = max_share if max_share is not None else ((None if no_config else _max_share_from_config(cwd)) or DEFAULT_MAX_SHARE)
    settings = PromptSettings(cwd=cwd, home=home.absolute(), platform=platform, model=model, provider=provider,
                              tools=parse_tools(tools), context_length=context_length, now=when,
                              system_message=system_message, session_id=session_id, max_share=share)
    try:
        catalog = load_catalog()
        profile = get_profile(hermes_version)
        scanner = scanner_for(catalog.parity, profile.scanner)
        stalled = len(scanner.stalls)
        report = assemble(settings, profile, scanner, source, counter=counter)
    except (PromptError, CatalogError, ValueError) as exc:
        raise CliError(str(exc)) from None
    findings = issues_to_findings(prompt_issues(report), catalog)
    assign_fingerprints(findings, [(f.snippet or "") for f in findings])
    code = EXIT_INCOMPLETE if report_stalls(scanner, stalled) else exit_code(report)  # issue 18
    if fmt == "json":
        doc = report.to_dict()
        doc["findings"] = [f.to_dict() for f in findings]
        doc["exit_code"] = code
        write_output(json_text(doc) + "\n", output)
    elif fmt == "markdown":
        write_output(terminal_safe(render_markdown(report, findings)), output)
    else:
        text = report.api_system_message
        # a file gets the exact bytes; a terminal gets one newline after them
        write_output(exact_or_safe(text if output is not None else text + "\n", output), output)
        if not no_budget:
            echo_err(terminal_safe(budget_table(report, findings)), nl=False)
    sys.exit(code)
