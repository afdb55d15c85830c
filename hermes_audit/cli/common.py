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


def write_output(text: str, output: Optional[Path], color: Optional[bool] = None) -> None:
    """Write to ``output`` atomically (see :mod:`hermes_audit.atomic`), or to stdout.

    ``color`` forces ANSI styles to be kept (``True``) or stripped (``False``) on
    stdout; ``None`` lets click decide (kept only on a terminal). Missing parent
    directories of ``output`` are created (CI reports go to new folders). Raises :class:`CliError` (exit 2).
    """
    if output is None:
        click.echo(text, nl=False, color=color)
        return
    from hermes_audit.atomic import atomic_write_text

    out = Path(output)
    try:
        atomic_write_text(out, click.unstyle(text), create_parents=True)
    except OSError as exc:
        raise CliError(f"cannot write {output}: {exc.strerror or exc}") from None


def color_enabled(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


def plural(count: int, singular: str, many: str = "") -> str:
    """``"1 tool"``, ``"3 tools"``, ``"1 entry"`` (``many`` when the plural is not ``singular + "s"``);
    the count with thousands separators."""
    return f"{count:,} {singular if count == 1 else (many or singular + 's')}"
