"""Shared CLI pieces: exit codes, the error type that maps to exit 2, output helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import click

#: Exit codes (documented in README.md).
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
    from hermes_audit.reporters.json_report import safe_path

    return safe_path(text)[:limit]


def _is_stream(path: Path) -> bool:
    """True when ``path`` (links followed) is a character device or a FIFO: ``-o /dev/null`` must not replace
    the device with a regular file (an atomic write would)."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_output(text: str, output: Optional[Path], color: Optional[bool] = None,
                 root: Optional[Path] = None) -> None:
    """Write to ``output`` atomically (see :mod:`hermes_audit.atomic`), or to stdout.

    ``color`` forces ANSI styles to be kept (``True``) or stripped (``False``) on
    stdout; ``None`` lets click decide (kept only on a terminal). The parent
    directory of ``output`` must exist (a mistyped path is an error, not a new
    directory tree). ``root``: ``output`` must be written below it, never through
    a symbolic link out of it. Raises :class:`CliError` (exit 2).
    """
    if output is None:
        click.echo(text, nl=False, color=color)
        return
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
    from hermes_audit.atomic import OutsideRoot

    try:
        atomic_write_text(out, click.unstyle(text), root=root)
    except OutsideRoot as exc:
        raise CliError(f"cannot write {output}: {exc.strerror}; not written") from None
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror or exc}") from None


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
    """Exact text for a file or a pipe; :func:`terminal_safe` text when it goes to a terminal."""
    if output is None and stdout_is_terminal():
        return terminal_safe(text)
    return text

