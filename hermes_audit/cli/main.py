"""``hermes-audit``: the command group. Commands are imported lazily to keep start-up fast."""

from __future__ import annotations

import sys

import click

from hermes_audit import __version__
from hermes_audit.cli.common import EXIT_ERROR
from hermes_audit.cli.common import one_line

#: name -> (module, attribute). A command whose module is not present is simply not offered.
_COMMANDS = {
    "scan": ("hermes_audit.cli.scan_cmd", "scan"),
    "rules": ("hermes_audit.cli.rules_cmd", "rules"),
    "explain": ("hermes_audit.cli.rules_cmd", "explain"),
    "context": ("hermes_audit.cli.context_cmd", "context"),
    "hints": ("hermes_audit.cli.context_cmd", "hints"),
    "memory": ("hermes_audit.cli.memory_cmd", "memory"),
    "profile": ("hermes_audit.cli.profile_cmd", "profile"),
    "prompt": ("hermes_audit.cli.prompt_cmd", "prompt"),
    "init": ("hermes_audit.cli.init_cmd", "init"),
    "server": ("hermes_audit.cli.server_cmd", "server"),
}


def _available(module: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


class OneLineUsageError(click.UsageError):
    """A usage error (bad option value, unknown option or command, missing argument) shown as one line on stderr,
    ``hermes-audit: error: <click's message> (see '<command> --help')``, exit code 2, instead of click's usage
    block: the same form as every other error of the CLI."""

    @classmethod
    def of(cls, exc: click.UsageError) -> "OneLineUsageError":
        new = cls(exc.format_message(), exc.ctx)
        new.exit_code = exc.exit_code
        return new

    def show(self, file=None) -> None:
        where = f" (see '{self.ctx.command_path} --help')" if self.ctx is not None else ""
        message = " ".join(self.format_message().split()).removesuffix(".")
        click.echo(f"hermes-audit: error: {one_line(message)}{where}", file=file, err=file is None)


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked; usage errors are one line
    (:class:`OneLineUsageError`)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except OneLineUsageError:
            raise
        except click.UsageError as exc:  # the group's own options and arguments
            raise OneLineUsageError.of(exc) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except OneLineUsageError:
            raise
        except click.UsageError as exc:  # an unknown command, a command's options, a callback's BadParameter
            raise OneLineUsageError.of(exc) from None

    def list_commands(self, ctx):
        return sorted(n for n, (mod, _) in _COMMANDS.items() if _available(mod))

    def get_command(self, ctx, name):
        spec = _COMMANDS.get(name)
        if spec is None or not _available(spec[0]):
            return None
        import importlib

        return getattr(importlib.import_module(spec[0]), spec[1])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hermes-audit")
def cli() -> None:
    """Security linter for the text Hermes Agent puts into its system prompt.

    Exit codes: 0 clean, 1 findings at or above --fail-on (or a file Hermes
    would block), 2 usage/configuration/I/O error, 3 scan incomplete.
    """


def main(argv=None) -> None:
    """Console entry point: never shows a traceback for bad input."""
    try:
        cli.main(args=argv, prog_name="hermes-audit", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("hermes-audit: interrupted", err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except PermissionError as exc:  # a path under a directory the user cannot enter: an I/O error, not a crash

        where = f"{exc.filename}: " if exc.filename is not None else ""
        click.echo(f"hermes-audit: error: {one_line(str(where))}permission denied", err=True)
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # last resort: one line, exit 2

        click.echo(f"hermes-audit: internal error: {type(exc).__name__}: {one_line(str(exc))}", err=True)
        sys.exit(EXIT_ERROR)
