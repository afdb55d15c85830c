"""``hermes-audit scan``: the main job. Parses options, merges configuration, runs, reports."""

from __future__ import annotations

import stat
import sys
from pathlib import Path
from typing import Optional

import click

from hermes_audit.cli.common import HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, CliError, color_enabled, write_output
from hermes_audit.cli.common import echo_err, one_line

FORMATS = ["text", "json", "sarif", "github"]
SEVERITIES = ["info", "low", "medium", "high", "critical"]


def _split(values: tuple[str, ...], option: str = "--select") -> list[str]:
    """Comma-separated selectors from a repeatable option; an empty one is a usage error."""
    out: list[str] = []
    for v in values:
        parts = [x.strip() for x in v.split(",") if x.strip()]
        if not parts:
            raise CliError(f"{option} needs a rule code, code prefix, name or family")
        out.extend(parts)
    return out


#: Names :func:`_note_empty_directories` cites (hermes_audit.documents.kinds.classify has them all).
_LOADED_NAMES = "AGENTS.md, CLAUDE.md, .hermes.md, .cursorrules, .cursor/rules/*.mdc, SOUL.md, memories/MEMORY.md, ..."


def _note_empty_directories(result, use_git: bool, to_stderr: bool) -> None:
    """A note (in every output format) per scanned directory that held no file Hermes loads, also on stderr
    when ``to_stderr`` (the output is machine-readable); the exit code is unchanged. A directory of renamed
    copies (``owner__repo__AGENTS.md``) would otherwise pass silently as clean."""
    ignored = " or .gitignore excludes them" if use_git else ""
    for d in getattr(result, "empty_directories", ()):
        note = (f"no file under {d} has a name Hermes loads ({_LOADED_NAMES}){ignored}; "
                "pass the files themselves to scan them (--kind sets how they are read)")
        result.notes.append(note)
        if to_stderr:
            click.echo(one_line("note: " + note), err=True)


def render_result(result, fmt: str, color: bool, extra: Optional[dict] = None) -> str:
    """Render a scan result in one of :data:`FORMATS`."""
    if fmt == "json":
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters import json_report

        return json_report.render(result)
    if fmt == "sarif":
        try:
            # start-up time: a command (and a report format) imports only what it runs
            from hermes_audit.reporters import sarif
        except ImportError:
            raise CliError("SARIF output is not available in this build") from None
        return sarif.render(result, **(extra or {}))
    if fmt == "github":
        try:
            # start-up time: a command (and a report format) imports only what it runs
            from hermes_audit.reporters import github
        except ImportError:
            raise CliError("GitHub output is not available in this build") from None
        return github.render(result)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.reporters import text

    return text.render(result, color=color, include_suppressed=bool((extra or {}).get("include_suppressed")),
                       show_files=bool((extra or {}).get("show_files")))


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, readable=False))
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--select", multiple=True, help="Only these rules: codes, code prefixes, names or families (repeatable, comma-separated).")
@click.option("--ignore", multiple=True, help="Skip these rules (same forms as --select).")
@click.option("--min-severity", type=click.Choice(SEVERITIES), default=None, help="Hide findings below this severity [default: info].")
@click.option("--fail-on", type=click.Choice([*SEVERITIES, "never"]), default=None,
              help="Exit 1 on findings at or above this severity; `never` reports only (not even blocked files fail) "
                   "[default: high].")
@click.option("--no-fail-on-blocked", is_flag=True, default=False, help="Do not fail because Hermes would block a file.")
@click.option("--kind", type=click.Choice([
    "hermes-md", "agents-md", "claude-md", "cursorrules", "cursor-rule", "soul-md", "memory", "user-profile",
    "distribution", "skill", "generic"]), default=None, help="Treat every file as this kind.")
@click.option("--config", "config_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Configuration file (pyproject.toml or .hermes-audit.toml).")
@click.option("--config-root", "config_root", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="With --config: the directory its exclude and per-path-ignores patterns are relative to "
                   "[default: the file's directory] (a configuration kept outside the repository, e.g. the "
                   "base branch's in a pull request).")
@click.option("--no-config", is_flag=True, help="Ignore configuration files in the scanned repository.")
@click.option("--no-git", is_flag=True, help="Walk directories without asking git (no .gitignore).")
@click.option("--max-file-size", type=click.IntRange(min=1), default=None,
              help="Bytes above which a file is not read whole: only its first 1,000,000 and last 200,000 characters are kept [default: 16 MiB].")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--baseline", "baseline_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Report only findings not recorded in this baseline file (see --write-baseline).")
@click.option("--write-baseline", "write_baseline", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Record the current findings in FILE by fingerprint, each with a reason to edit; keeps the "
                   "reasons of entries that still match. The run then exits as if they were accepted.")
@click.option("--no-suppressions", is_flag=True, default=False,
              help="Auditor's mode: ignore inline suppressions, the repository's own configuration and any "
                   "baseline inside the scanned repository.")
@click.option("--include-suppressed", is_flag=True, default=False,
              help="Also show suppressed findings (inline suppressions, baseline) in text and SARIF output; JSON always "
                   "lists them with their reason. SARIF leaves them out by default because GitHub shows them as open alerts.")
@click.option("--sarif-category", default=None, metavar="ID",
              help="SARIF runAutomationDetails.id, so several uploads for one commit do not replace each other "
                   "[default: hermes-audit/<hermes-version>/].")
@click.option("--fix", is_flag=True, default=False,
              help="Remove hidden-text runs, bidi controls and stray invisible characters from the files "
                   "(atomic writes; nothing else changes), then report what is left.")
@click.option("--fix-hermes-blocking", is_flag=True, default=False,
              help="With --fix or --diff: also remove legitimate invisible characters the chosen Hermes version "
                   "still blocks a file for (e.g. a zero-width joiner inside an emoji).")
@click.option("--diff", "show_diff", is_flag=True, default=False,
              help="Print the changes --fix would make as a unified diff and write nothing "
                   "(exit 1 when there is something to fix).")
@click.option("--cwd", "session_cwd", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Session directory for the loading findings (what a Hermes session started there loads) "
                   "[default: the scanned repository's root].")
@click.option("--prompt", "with_prompt", is_flag=True, default=False,
              help="Also dry-run the system prompt of a session there (HA8xx: over budget, blocked or cut layers, "
                   "memory capacity, repeated instructions; see `hermes-audit prompt`).")
@click.option("--hermes-home", "hermes_home", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="With --prompt: HERMES_HOME [default: $HERMES_HOME, else ~/.hermes].")
@click.option("--prompt-max-share", type=click.FloatRange(min=0.0, max=1.0, min_open=True), default=None,
              help="With --prompt: share of the context window the prompt may take [default: config "
                   "prompt-max-share, else 0.25].")
@click.option("-v", "--verbose", "--show-files", "show_files", is_flag=True, default=False,
              help="Text output: list every file's Hermes verdict, not only the files that are not plainly loaded.")
@click.option("--only-loaded", is_flag=True, default=False,
              help="Of the named files, scan those Hermes loads and the context-file links that point at one of "
                   "them; skip the rest without a word (the pre-commit hook, which is given every staged file).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Processes for scanning a large tree [default: $HERMES_AUDIT_JOBS, else the CPUs].")
def scan(paths, hermes_version, fmt, output, select, ignore, min_severity, fail_on, no_fail_on_blocked, kind,
         config_path, no_config, no_git, max_file_size, color, baseline_path=None, config_root=None, write_baseline=None,
         no_suppressions=False, include_suppressed=False, sarif_category=None,
         fix=False, fix_hermes_blocking=False, show_diff=False, session_cwd=None, with_prompt=False,
         hermes_home=None, prompt_max_share=None, jobs=None, show_files=False, only_loaded=False) -> None:
    """Scan files Hermes reads: verdicts (load, block, warn, skip) and audit findings.

    PATHS are files or directories (default: the current directory). Files are
    scanned whatever their name; directories are searched for the names Hermes
    reads (AGENTS.md, CLAUDE.md, .hermes.md, .cursorrules, .cursor/rules/*.mdc,
    SOUL.md, memories/MEMORY.md and USER.md, distribution.yaml, SKILL.md).
    """
    if only_loaded:  # first: a commit that changes no file Hermes reads costs no more imports (pre-commit)
        from hermes_audit.documents.staged import loaded_files  # start-up time: the hook path only

        paths = loaded_files(list(paths))
        if not paths:  # a commit that touches nothing Hermes reads: nothing to say, nothing to fail
            return
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.config import Config, ConfigError, load_config
    from hermes_audit.documents.gitroot import find_git_root
    from hermes_audit.documents.kinds import DocumentKind
    from hermes_audit.patterns.catalog import CatalogError
    from hermes_audit.findings import Severity
    from hermes_audit.audits.scan import ScanOptions, UnknownSelector, run_scan

    from hermes_audit.documents.reader import path_mode, path_present  # never raise (closed directories)

    if output is not None or write_baseline is not None:  # a name from the scanned tree read as an option
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.documents.kinds import classify

        for flag, dest in (("-o", output), ("--write-baseline", write_baseline)):
            if dest is not None and classify(Path(dest).as_posix()) is not None:
                raise CliError(f"{flag} {dest}: refusing to write over a file Hermes loads into its prompt "
                               f"(a file name read as an option? pass paths after '--')")
    targets = list(paths) or [Path(".")]
    for t in targets:
        if not path_present(t):  # a file in a directory we cannot enter exists: the reader reports it skipped
            hint = ("; every argument after '--' is a path (a pre-commit hook's args: too): give options before "
                    "'--', e.g. entry: hermes-audit scan --only-loaded --hermes-version 0.19 --") if str(t).startswith("-") else ""
            raise CliError(f"{t}: no such file or directory{hint}")
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.audits.scan import unscannable_reason

    unscannable = [unscannable_reason(t) for t in targets]
    if all(unscannable):  # nothing else to scan: a gate must not pass on nothing
        raise CliError(f"{targets[0]}: {unscannable[0]}")
    first = targets[0].absolute()
    first_mode = path_mode(first, follow_symlinks=True)
    root = find_git_root((first if first_mode is not None and stat.S_ISDIR(first_mode) else first.parent).resolve()) \
        or Path.cwd()
    if config_root is not None and config_path is None:
        raise CliError("--config-root needs --config")
    try:
        cfg = Config() if (no_config or no_suppressions) and config_path is None else load_config(root, config_path)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    opts = ScanOptions(
        hermes_version=hermes_version or cfg.hermes_version or default_hermes_version(None),
        select=_split(select) or cfg.select,
        ignore=_split(ignore, "--ignore") or cfg.ignore,
        min_severity=Severity.parse(min_severity) if min_severity else (cfg.min_severity or Severity.INFO),
        fail_on=Severity.parse(fail_on) if fail_on and fail_on != "never" else (cfg.fail_on or Severity.HIGH),
        fail_on_blocked=False if no_fail_on_blocked else (cfg.fail_on_blocked if cfg.fail_on_blocked is not None else True),
        kind=DocumentKind(kind) if kind else None,
        use_git=not no_git,
        exclude=cfg.exclude,
        per_path_ignores=cfg.per_path_ignores,
        trusted_hosts=tuple(cfg.trusted_hosts),
        config_dir=(config_root.absolute() if config_root is not None and cfg.source is not None else
                    cfg.source.absolute().parent if cfg.source is not None else None),  # patterns anchored there
        no_suppressions=no_suppressions,
        repo_root=root,  # fingerprints and baselines name files relative to it
    )
    if fail_on == "never" or (fail_on is None and cfg.fail_on_never):
        opts.fail_on = None
        opts.fail_on_blocked = False
    if max_file_size or cfg.max_file_size:
        opts.max_bytes = max_file_size or cfg.max_file_size or opts.max_bytes
    if jobs is not None:  # issue 8: parallel scan
        opts.jobs = jobs
    if session_cwd is not None:  # issue 3: loading simulation
        if not session_cwd.is_dir():
            raise CliError(f"--cwd {session_cwd}: not a directory")
        opts.session_cwd = session_cwd
    if with_prompt:  # issue 5: prompt dry run
        opts.prompt = True
        opts.hermes_home = hermes_home
        opts.prompt_max_share = prompt_max_share if prompt_max_share is not None else cfg.prompt_max_share
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.baseline_support import finish_baseline, prepare_baseline

    notes = prepare_baseline(opts, baseline_path, write_baseline, no_suppressions, root)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.progress import Progress

    try:
        with Progress(f"scanning {targets[0]}" + (f" and {len(targets) - 1} more" if len(targets) > 1 else "")):
            result = run_scan(targets, opts)
    except UnknownSelector as exc:  # from the configuration file, not the command line: name the file
        named_here = exc.selector in _split(select) + _split(ignore, "--ignore")
        raise CliError(str(exc) if named_here or cfg.source is None else f"{cfg.source}: {exc}") from None
    except (ValueError, CatalogError) as exc:
        raise CliError(str(exc)) from None
    if fix or show_diff or fix_hermes_blocking:
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.cli.fix_support import run_fix

        result = run_fix(result, targets, opts, fix=fix, hermes_blocking=fix_hermes_blocking, diff=show_diff)
    result.notes[:0] = notes
    finish_baseline(result, write_baseline)
    _note_empty_directories(result, opts.use_git, to_stderr=fmt != "text")
    extra = ({"include_suppressed": include_suppressed, "category": sarif_category, "root": root} if fmt == "sarif"
             else {"include_suppressed": include_suppressed, "show_files": show_files} if fmt == "text" else None)
    use_color = color_enabled(color) and output is None
    write_output(render_result(result, fmt, use_color, extra), output, color=True if use_color else None,
                 commands=fmt == "github")
    if output is not None:  # a CI log must say why the job failed, whatever went into the file
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters.text import exit_reason, summary_line

        echo_err(one_line(f"hermes-audit: {summary_line(result)} {exit_reason(result)}; report in {output}"))
    sys.exit(result.exit_code())
