"""``hermes-audit server start|stop|status``: the resident scan server (opt-in; Linux).

See :mod:`hermes_audit.server` for what the server does and ``docs/server.md`` for when to use it.
Exit codes: 0 done (``start`` also when a server was already running, ``stop`` also when none was),
2 the server cannot be started or reached (one line saying why: platform, socket directory, ...).
"""

from __future__ import annotations

import os
import time

import click

from hermes_audit.cli.common import CliError
from hermes_audit.server import daemon, wire


@click.group()
def server() -> None:
    """Keep a scan server running so that `hermes-audit scan` starts in a few milliseconds.

    While it runs, the `hermes-audit` command hands each `scan` to it (same output and exit code).
    HERMES_AUDIT_NO_SERVER=1 turns this off for one run; HERMES_AUDIT_SERVER=1 makes a `scan` that finds
    no server start one for the next run.
    """


@server.command()
@click.option("--idle-timeout", type=click.FloatRange(min=1.0), default=daemon.DEFAULT_IDLE_TIMEOUT,
              show_default=True, help="Exit after this many seconds without a request.")
@click.option("--foreground", is_flag=True, help="Serve in this process (no daemon) until stopped.")
@click.option("--quiet", is_flag=True, help="Print nothing when the server starts or is already running.")
def start(idle_timeout: float, foreground: bool, quiet: bool) -> None:
    """Start the scan server (does nothing when one is running)."""
    try:
        running = daemon.request("status")
    except wire.ServerUnavailable:
        running = None
    if isinstance(running, tuple) and running[:1] == ("status",):
        if not quiet:
            click.echo(f"hermes-audit: scan server already running (pid {running[1].get('pid')})")
        return
    try:
        if foreground and not quiet:
            click.echo(f"hermes-audit: scan server serving at {wire.socket_path(os.environ, create=True)}")
        pid = daemon.start(idle_timeout=idle_timeout, foreground=foreground)
    except daemon.AlreadyRunning as exc:
        if not quiet:
            click.echo(f"hermes-audit: {exc}")
        return
    except wire.ServerUnavailable as exc:
        raise CliError(str(exc)) from None
    if not quiet and not foreground:
        click.echo(f"hermes-audit: scan server started (pid {pid}, exits after {idle_timeout:g} s idle)")


@server.command()
def stop() -> None:
    """Stop the scan server (does nothing when none is running)."""
    try:
        reply = daemon.request("stop")
    except wire.ServerUnavailable as exc:
        click.echo(f"hermes-audit: no scan server running ({exc})")  # the reason, as `status` gives it
        return
    click.echo(f"hermes-audit: scan server stopped (pid {reply[1] if isinstance(reply, tuple) else '?'})")


@server.command()
def status() -> None:
    """Say whether the scan server runs, and what it has done. Exit code 0 either way."""
    try:
        reply = daemon.request("status")
    except wire.ServerUnavailable as exc:
        click.echo(f"hermes-audit: no scan server running ({exc})")
        return
    if not (isinstance(reply, tuple) and len(reply) == 2 and isinstance(reply[1], dict)):
        raise CliError("the scan server sent an unexpected reply")
    s = reply[1]
    up = time.time() - float(s.get("started", time.time()))
    click.echo(f"scan server: pid {s.get('pid')}, version {s.get('version')}, up {up:.0f} s, "
               f"idle timeout {float(s.get('idle_timeout', 0)):g} s")
    click.echo(f"socket: {s.get('socket')}")
    click.echo(f"scans served: {s.get('served')}, failed to start: {s.get('failed')}, declined: {s.get('declined')}"
               + (f" (last: {s.get('last_declined')})" if s.get("last_declined") else ""))
