"""Shared CLI pieces: exit codes, the error type that maps to exit 2, output helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import click

#: Exit codes (documented in README.md and docs/usage.md).
EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INCOMPLETE = 3


class CliError(click.ClickException):
    """A usage, configuration or I/O problem: one line on stderr, exit code 2."""

    exit_code = EXIT_ERROR

    def show(self, file=None) -> None:  # one line, no "Usage:" banner
        click.echo(f"hermes-audit: error: {one_line(self.format_message())}", err=True)


def one_line(text: str, limit: int = 2000) -> str:
    """``text`` for stderr: control, bidi and undecodable characters escaped (a path from a hostile
    repository cannot move the cursor or recolour the terminal), newlines included."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.engine.unicode_chars import safe_path

    return log_safe(safe_path(text)[:limit])


def log_safe(text: str, keep_commands: bool = False) -> str:
    """``text`` for standard output or error: under CI (:func:`hermes_audit.reporters.workflow.ci_log`)
    with every workflow-command marker broken (:func:`~hermes_audit.reporters.workflow.neutralise`), so no
    line of it is obeyed by the runner; unchanged elsewhere. ``keep_commands``: the text is hermes-audit's
    own annotations (``--format github``)."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.reporters.workflow import ci_log, neutralise

    return neutralise(text, keep_commands) if ci_log() else text


def echo_err(text: str, nl: bool = True) -> None:
    """``text`` on standard error, through :func:`log_safe`."""
    click.echo(log_safe(text), err=True, nl=nl)



def _is_stream(path: Path) -> bool:
    """True when ``path`` (links followed) is a character device or a FIFO: ``-o /dev/null`` must not replace
    the device with a regular file (an atomic write would)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(text: str, output: Optional[Path], color: Optional[bool] = None, commands: bool = False,
                 root: Optional[Path] = None) -> None:
    """Write to ``output`` atomically (see :mod:`hermes_audit.atomic`), or to stdout.

    ``color`` forces ANSI styles to be kept (``True``) or stripped (``False``) on
    stdout; ``None`` lets click decide (kept only on a terminal). On stdout under
    CI the text passes through :func:`log_safe` (``commands``: it is hermes-audit's
    own annotations, ``--format github``); a file gets the text as it is. The parent
    directory of ``output`` must exist (a mistyped path is an error, not a new
    directory tree). ``root``: ``output`` must be written below it, never through
    a symbolic link out of it. Raises :class:`CliError` (exit 2).
    """
    if output is None:
        click.echo(log_safe(text, keep_commands=commands), nl=False, color=color)
        return
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.atomic import atomic_write_text

    out = Path(output)
    if _is_stream(out):  # -o /dev/null, /dev/stdout, a FIFO: written into, never replaced by a regular file
        try:
            with open(out, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write(click.unstyle(text))
        except OSError as exc:
            raise CliError(f"cannot write {output}: {exc.strerror or exc}") from None
        return
    if not out.parent.is_dir():
        raise CliError(f"cannot write {output}: directory {out.parent} does not exist")
    if root is None:
        root = _enclosing_repository(out)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.atomic import OutsideRoot

    try:
        atomic_write_text(out, click.unstyle(text), root=root)
    except OutsideRoot as exc:
        raise CliError(f"cannot write {output}: {exc.strerror}; not written") from None
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror or exc}") from None


def _enclosing_repository(out: Path) -> Optional[Path]:
    """The repository (git root of the current directory, else the current directory) when ``out``, spelled
    as given, lies below it: a report written there must not go through a symbolic link the repository holds
    that leads out of it (seventh red team, issue 18: ``-o od/victim`` with a committed ``od -> /elsewhere``
    overwrote ``/elsewhere/victim``). ``None`` for a path outside it: the user's own, written as named."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.gitroot import find_git_root

    here = Path(os.getcwd())
    repo = find_git_root(here) or here
    lexical = os.path.normpath(os.path.abspath(out))
    base = str(repo).rstrip(os.sep) + os.sep
    return repo if lexical.startswith(base) else None


def color_enabled(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stdout_is_terminal()


def stdout_is_terminal() -> bool:
    """True when standard output is a terminal; False also when the process was started with it closed
    (``sys.stdout`` is then ``None``)."""
    return sys.stdout is not None and sys.stdout.isatty()


def plural(count: int, singular: str, many: str = "") -> str:
    """``"1 tool"``, ``"3 tools"``, ``"1 entry"`` (``many`` when the plural is not ``singular + "s"``);
    the count with thousands separators."""
    return f"{count:,} {singular if count == 1 else (many or singular + 's')}"


_TERMINAL_UNSAFE = None


def terminal_safe(text: str) -> str:
    """``text`` with C0/C1 control characters (except newline and tab), DEL and bidi controls escaped
    as ``\\xNN``/``\\uNNNN``, so no escape sequence from a scanned file reaches a terminal."""
    global _TERMINAL_UNSAFE
    if _TERMINAL_UNSAFE is None:
        import re

        _TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

    def esc(m) -> str:
        o = ord(m.group())
        return f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"

    return _TERMINAL_UNSAFE.sub(esc, text)


def exact_or_safe(text: str, output) -> str:
    """Exact text for a file or a pipe; :func:`terminal_safe` text when it goes to a terminal; under CI
    (:func:`hermes_audit.reporters.workflow.ci_log`) on stdout, escaped with
    :func:`~hermes_audit.reporters.workflow.ci_escape` (a note on stderr says so: ``-o FILE`` has the exact
    bytes), so no line of a file's text is obeyed as a workflow command."""
    if output is None:
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters.workflow import ci_escape, ci_log

        if ci_log():
            escaped = ci_escape(text)
            if escaped != text:
                echo_err("hermes-audit: note: CI log: control characters and workflow-command markers are escaped "
                         "in this output; -o FILE writes the exact text")
            return escaped
        if stdout_is_terminal():
            return terminal_safe(text)
    return text


def report_stalls(scanner, before: int) -> bool:
    """Say on stderr, one line each, which Hermes patterns stopped at their deadline (issue 18:
    :attr:`hermes_audit.hermes.threats.ThreatScanner.stalls` past its first ``before`` entries); True when
    any did (the command then exits 3: what Hermes does with that text is not known, and its own scan of
    it takes at least that long)."""
    stalls = list(getattr(scanner, "stalls", {}).values())[before:]
    for st in stalls:
        echo_err(f"hermes-audit: Hermes' own pattern '{st.pattern_id}' ({st.rule.code}) did not finish within "
                   f"{st.seconds:g} s on a text of {st.chars:,} characters: a session that loads it hangs at "
                 "start-up; this report assumes it does not match")
    return bool(stalls)


# ---------------------------------------------------------------------------
# --hermes-version
# ---------------------------------------------------------------------------


def resolve_hermes_version(value: Optional[str], path_env: Optional[str] = None) -> tuple[str, str]:
    """The version profile for ``--hermes-version`` and a note for stderr (``""`` for none).

    ``value`` is what the user gave: a profile (``0.19``), a release (``0.17.0``), ``latest``, ``auto``,
    or ``None`` (the default, which is ``auto`` without its notes). ``auto`` reads the installed
    hermes-agent (:func:`hermes_audit.documents.installed_hermes.find_installed_hermes`) and uses
    its profile, else ``latest``. Raises :class:`CliError` for a version no profile models, and when
    ``$HERMES_AUDIT_HERMES_COMMAND`` names the command about to run (the install gate) but its release cannot be
    told or has no profile: a gate never audits ``latest`` in place of the Hermes it runs.
    """
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.installed_hermes import find_installed_hermes, hermes_command, named_command
    from hermes_audit.hermes.profiles import profile_name_for, supported_text

    def _has_profile(version: str) -> bool:
        try:
            profile_name_for(version)
        except ValueError:
            return False
        return True

    if value is not None and value.strip().lower() != "auto":
        try:
            return profile_name_for(value), ""
        except ValueError as exc:
            raise CliError(f"--hermes-version: {exc}") from None
    explicit = value is not None
    found = find_installed_hermes(path_env)
    gate = named_command()
    if gate and (found is None or not _has_profile(found.version)):
        # the install gate is about to run this command: never decide on a guessed version (round 8, issue 18)
        what = (f"cannot tell which hermes-agent release {one_line(gate)} is (no hermes-agent metadata beside it, and "
                "`--version` printed no 'Hermes Agent vX.Y.Z')" if found is None else
                f"hermes-agent {found.version} ({one_line(found.where)}) has no version profile")
        raise CliError(f"--hermes-version auto {what}; not auditing a guessed version: pin the release it runs, e.g. "
                       f"HERMES_AUDIT_ARGS=\"--hermes-version 0.19\" (one of {supported_text().removesuffix(', auto')})")
    if found is None:
        if not explicit:
            return "latest", ""
        command = hermes_command(path_env)
        if command:
            return "latest", (f"note: --hermes-version auto cannot tell the version of {one_line(command)} (not a Python "
                              "entry point of an environment holding hermes-agent); using latest; pin one with "
                              "--hermes-version")
        return "latest", ("note: --hermes-version auto found no installed hermes-agent (no package in this "
                          "environment, no hermes on PATH); using latest")
    try:
        name = profile_name_for(found.version)
    except ValueError:
        return "latest", (f"note: hermes-agent {found.version} ({found.where}) has no version profile; using latest; "
                          "pin one with --hermes-version")
    return name, (f"note: using version profile {name} for hermes-agent {found.version} ({found.where})"
                  if explicit else "")


class ProfileName(str):
    """A version profile's name (a ``str``) that remembers the release it was asked for: ``release`` is
    ``"0.18.2"`` for ``--hermes-version 0.18.2``, ``None`` for a profile name (``0.18``) or ``auto``."""

    release: Optional[str] = None


class HermesVersionType(click.ParamType):
    """``--hermes-version``: any name :func:`resolve_hermes_version` takes; converts to a :class:`ProfileName`."""

    name = "VERSION"

    def convert(self, value, param, ctx):
        if value is None:
            return None
        name, note = resolve_hermes_version(str(value))
        if note:
            echo_err(note)
        out = ProfileName(name)
        given = str(value).strip().lower().lstrip("v")
        if given.count(".") >= 2 and given[:1].isdigit():
            out.release = given  # a release (0.18.2), not a profile: profile checks hermes_requires against it
        return out


HERMES_VERSION = HermesVersionType()
#: The --hermes-version help, shared by every command.
#: Start-up time: written out, not built from hermes_audit.hermes.profiles.VERSIONS (a test keeps them equal).
HERMES_VERSION_HELP = ("Hermes version to predict: a release (0.13.0 to 0.19.0, 0.20.1), a profile (latest, 0.20, 0.19, "
                       "0.18, 0.17, 0.16, 0.15, 0.13) or auto (the installed hermes-agent) [default: auto, else latest].")


def default_hermes_version(value: Optional[str]) -> str:
    """The profile for an option left at its default (``None``): the installed hermes-agent's, else latest."""
    if value is not None:
        return value
    return resolve_hermes_version(None)[0]
