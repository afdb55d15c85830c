"""The ``hermes-audit`` console entry point: hand a ``scan`` to a running scan server, else run in-process.

Only ``scan`` is handed over (the command a pre-commit hook runs on every commit); every other command, and
any ``scan`` that cannot be handed over, runs in this process through :func:`hermes_audit.cli.main.main`
exactly as before. A scan is handed over only when all of these hold: the platform is
:func:`~hermes_audit.server.wire.supported`, ``HERMES_AUDIT_NO_SERVER`` is unset, the socket directory is
safe, a server of this user and this installation answers, it has exactly this process's rights
(:func:`handshake`: else it could be a sandboxed process posing as the server), and it accepts the request
(this process has exactly the server's rights, :mod:`hermes_audit.server.peer`; the same
:data:`~hermes_audit.server.wire.IMPORT_TIME_ENV` values; none of the server's code changed since it
started). The decision costs one ``connect`` when no server runs. A missing socket directory means no
server runs; with ``HERMES_AUDIT_SERVER`` set, one is started for the next run (it creates the directory).

Once the server has forked the command's process (its first reply), the command's output goes straight to
this process's standard output and error, and this process exits with the command's exit code. Ctrl-C
is passed on (``SIGINT`` to the command's process). If the connection drops before the exit code arrives,
the exit code is 2 with a one-line error.
"""

from __future__ import annotations

import os
import sys

from hermes_audit.server import wire

if False:  # pragma: no cover  (no ``typing`` at run time: see hermes_audit/server/wire.py)
    from typing import NoReturn, Optional

#: The exit code for a lost connection (``EXIT_ERROR`` of ``hermes_audit.cli.common``, not imported: it
#: would import click).
EXIT_ERROR = 2
#: Seconds to wait for the server's first reply before running in-process instead.
START_TIMEOUT = 10.0


def main() -> NoReturn:
    """Run ``hermes-audit`` with ``sys.argv``: through the scan server when it can, else in-process."""
    args = sys.argv[1:]
    if args[:1] == ["scan"] and wire.enabled(os.environ):
        try:
            code = forward(args)
        except KeyboardInterrupt:  # before the server's copy started (once started, Ctrl-C is passed on)
            sys.stderr.write("hermes-audit: interrupted\n")
            sys.exit(130)
        if code is not None:
            sys.exit(code)
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.cli.main import main as run_in_process

    run_in_process()
    sys.exit(0)  # pragma: no cover  (click exits itself)


def forward(args: list[str]) -> Optional[int]:
    """Run ``hermes-audit <args>`` in the scan server; its exit code, or ``None`` when the server is not
    usable and nothing has run (the caller runs the command itself). With ``HERMES_AUDIT_SERVER`` set, a
    missing server is started in the background for the next run."""
    try:
        for fd in (0, 1, 2):  # before the socket exists: it would take the number of a closed stream
            os.fstat(fd)  # a closed standard stream: run in-process, which reports it its own way
        path = wire.socket_path(os.environ)
        sock = wire.connect(path, START_TIMEOUT)
    except wire.MissingDirectory:  # a fresh machine, or after a reboot: the server creates it
        if wire.autostart(os.environ):
            _start_in_background()
        return None
    except wire.ServerUnavailable:
        return None
    except OSError:  # a closed standard stream, or nothing listening
        if wire.autostart(os.environ):
            _start_in_background()
        return None
    try:
        return _run(sock, args)
    finally:
        sock.close()


def _run(sock, args: list[str]) -> Optional[int]:
    try:
        if wire.peer_uid(sock) != os.getuid():
            return None
        proof = handshake(sock)
        if proof is None:
            return None
        streams = (sys.stdin, sys.stdout, sys.stderr)
        umask = os.umask(0o022)
        os.umask(umask)
        request = {
            "op": "run", "identity": wire.identity(), "argv": args, "cwd": os.getcwd(),
            "env": dict(os.environ), "umask": umask,
            "io": [(s.encoding, s.errors) if s is not None else (None, None) for s in streams],
        }
        try:
            wire.send(sock, request, fds=(0, 1, 2, *proof))
        finally:
            wire.close_fds(proof)
        reply, _ = wire.recv(sock)
    except (OSError, ValueError, wire.ServerUnavailable):
        return None
    if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "started" and isinstance(reply[1], int)):
        return None  # declined (its reason is for `hermes-audit server status`), or not a server of ours
    pid = reply[1]
    sock.settimeout(None)
    while True:
        try:
            reply, _ = wire.recv(sock)
        except KeyboardInterrupt:
            import signal

            try:
                os.killpg(pid, signal.SIGINT)  # the copy leads its own process group (its workers too)
            except OSError:
                pass
            continue
        except (OSError, wire.ServerUnavailable) as exc:
            sys.stderr.write(f"hermes-audit: error: the scan server's process ended without an exit code ({exc}); "
                             f"run again with {wire.NO_SERVER_ENV}=1\n")
            return EXIT_ERROR
        if isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "exit" and isinstance(reply[1], int):
            return reply[1]


def handshake(sock) -> Optional[tuple]:
    """Make sure the server at the other end of ``sock`` has exactly this process's rights, and give it the
    means to check the same of this process (docs/server.md, "Same rights"), before anything of this
    process (its environment, its terminal) is sent. ``None`` when the server does not qualify; else the
    reach proof to send with the request: a 1-tuple with ``/proc/<server pid>/fd/<n>`` opened, or ``()``
    when the kernel refused it (the server then declines). The caller closes the descriptors.

    A process of this user with fewer rights (a sandbox that can write to the socket directory) could
    otherwise pose as the server and receive this process's terminal and environment.

    Raises ``OSError`` and :class:`~hermes_audit.server.wire.ServerUnavailable` from the connection."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.server import peer

    try:
        server = peer.open_peer(sock)
    except (peer.Refused, OSError):
        return None
    mine = peer.Proof()
    try:
        if peer.refusal(sock, server, peer.own_facts(), cwd=False) is not None:
            return None
        wire.send(sock, {"op": "hello", "proof": mine.number})
        reply, fds = wire.recv(sock, max_fds=1)
        try:
            if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "hello" and mine.verify(fds)):
                return None  # the server may not inspect this process: it has fewer rights
        finally:
            wire.close_fds(fds)
        fd = peer.reach(server, reply[1])
        return () if fd is None else (fd,)
    finally:
        mine.close()
        server.close()


def _start_in_background() -> None:
    """``hermes-audit server start --quiet`` as a detached process; errors are ignored (the next run falls
    back to in-process again)."""
    import subprocess

    try:
        subprocess.Popen([sys.executable, "-m", "hermes_audit", "server", "start", "--quiet"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        pass
