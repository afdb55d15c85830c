"""The scan server: one resident process that forks a ready copy of itself for each ``scan`` it is handed.

Lifecycle (``hermes-audit server start|stop|status``, :mod:`hermes_audit.cli.server_cmd`):

- :func:`start` binds the socket (:func:`hermes_audit.server.wire.socket_path`, directory created with mode
  0700), imports the scan path, loads the rules and compiles every pattern, runs one scan of the rules'
  own examples (:func:`warm_up`), then serves until it has been idle for ``idle_timeout`` seconds, is
  stopped, or finds that its code changed (:func:`code_files`: the package, the shipped rules, every module
  it imported, its dependencies' installed metadata; it then declines the request, which runs in-process,
  and exits). By default it detaches from the terminal (a daemon).
- For each ``run`` request it checks the peer's user id, the client's :func:`~hermes_audit.server.wire.identity`
  and :data:`~hermes_audit.server.wire.IMPORT_TIME_ENV` values, its code, and that the client process has
  exactly the server's rights (:mod:`hermes_audit.server.peer`: the kernel's facts about it and the reach
  proof), then forks. The copy takes the client's
  standard streams (the passed descriptors), working directory (the client's own, through
  ``/proc/<pid>/cwd``), environment, umask and arguments, sends
  ``("started", pid)``, runs the click command group exactly as the in-process entry point does
  (:func:`hermes_audit.cli.main.main`), and sends ``("exit", code)``. The copy starts from the server's
  memory, so the imports, the catalog and the compiled patterns are already there; anything a scan reads
  from the repository (configuration, baseline, files) is read by the copy, as in-process.
- The server never runs a command itself and keeps no state from one request to the next: each copy's
  changes die with it.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Optional

from hermes_audit.server import peer, wire
from hermes_audit import __version__

#: Default idle time after which a server exits, seconds.
DEFAULT_IDLE_TIMEOUT = 3600.0
#: Seconds a connection may take to send its request (a client sends it as soon as it is connected; the
#: accept loop serves one connection at a time, so a connection that sends nothing delays the next by this).
REQUEST_TIMEOUT = 1.0
#: Seconds to wait for a server's answer to ``status`` or ``stop`` (:func:`request`).
REPLY_TIMEOUT = 5.0
#: Exit status of a forked copy that failed before it could run the command (``EX_SOFTWARE``); the client
#: then runs the command in-process, and ``status`` counts it.
EXIT_COPY_FAILED = 70
#: How often the accept loop wakes to reap finished copies and check the idle time, seconds.
TICK = 1.0


@dataclass(eq=False)
class ServerState:
    """What ``status`` reports, and the snapshot that tells a changed installation."""

    path: str
    started: float
    idle_timeout: float
    import_env: tuple
    snapshot: dict[str, tuple[int, int]]  # of code_files()
    listings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # of installation_dirs()
    served: int = 0
    failed: int = 0
    declined: int = 0
    last_declined: str = ""
    last_request: float = field(default_factory=time.time)  # the last ``run`` request (idle time)


def installation_files() -> list[str]:
    """The package's files (``__pycache__`` excepted) and the shipped rule files, sorted: a change to any
    of them makes a running server stale."""
    return sorted(f for f in _installation() if not f.endswith(os.sep))


def installation_dirs() -> list[str]:
    """The package's directories (``__pycache__`` excepted) and the shipped rules' directories, sorted: a
    file added to or removed from any of them makes a running server stale (:func:`listing`)."""
    return sorted(d[:-1] for d in _installation() if d.endswith(os.sep))


def _installation() -> set[str]:
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import default_rules_dir

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = set()  # a set: in a wheel the rules are inside the package (``_rules``); directories end with "/"
    for top in (package, str(default_rules_dir())):
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            out.add(os.path.join(root, ""))
            out.update(os.path.join(root, f) for f in files if not f.endswith(".pyc"))
    return out


def listing(dirs: list[str]) -> dict[str, tuple[str, ...]]:
    """``{directory: its entries, sorted}``, without ``__pycache__`` and ``*.pyc`` (Python may add those at
    any time); a missing directory lists as ``()``. Cheaper than a walk: the names of a few directories."""
    out = {}
    for d in dirs:
        try:
            out[d] = tuple(sorted(n for n in os.listdir(d) if n != "__pycache__" and not n.endswith(".pyc")))
        except OSError:
            out[d] = ()
    return out


def imported_files() -> list[str]:
    """The source (or extension) file of every module imported in this process (``__file__``; the standard
    library and third-party packages included), sorted."""
    out = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.isabs(path):
            out.add(path)
    return sorted(out)


#: The distribution whose requirements :func:`dependency_files` follows.
DISTRIBUTION = "hermes-audit"


def dependency_files() -> list[str]:
    """The installed metadata file (``METADATA`` or ``PKG-INFO``) of hermes-audit and of every installed
    distribution it requires, directly or not, sorted: an upgrade, a downgrade or a reinstall rewrites or
    removes it, also of a dependency the server has not imported yet (a forked copy would import the new
    version beside the old ones). Optional extras are not followed (their modules are in
    :func:`imported_files` once imported, as the ``fast`` extra's ``ahocorasick`` is by :func:`warm_up`).
    Empty when hermes-audit runs from a source tree that is not installed."""
    import importlib.metadata as metadata
    import re

    seen: set[str] = set()
    out: set[str] = set()
    todo = [DISTRIBUTION]
    while todo:
        name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except (metadata.PackageNotFoundError, ValueError):
            continue
        path = _metadata_file(dist)
        if path:
            out.add(path)
        for requirement in dist.requires or ():
            name_part, _, marker = requirement.partition(";")
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", name_part)
            if match and not re.search(r"\bextra\b", marker):  # an extra's modules count once imported
                todo.append(match.group(1))
    return sorted(out)


def _metadata_file(dist: Any) -> Optional[str]:
    for entry in dist.files or ():
        if entry.name in ("METADATA", "PKG-INFO") and entry.parent.name.endswith((".dist-info", ".egg-info")):
            return os.path.abspath(str(dist.locate_file(entry)))
    base = getattr(dist, "_path", None)  # a distribution without a RECORD
    if base is not None:
        for name in ("METADATA", "PKG-INFO"):
            if os.path.exists(os.path.join(str(base), name)):
                return os.path.abspath(os.path.join(str(base), name))
    return None


def code_files() -> list[str]:
    """Every file whose change makes a running server stale, sorted: :func:`installation_files`,
    :func:`imported_files` and :func:`dependency_files`."""
    return sorted({*installation_files(), *imported_files(), *dependency_files()})


def snapshot(paths: list[str]) -> dict[str, tuple[int, int]]:
    """``{path: (mtime in ns, size in bytes)}``; a missing file maps to ``(-1, -1)``."""
    out = {}
    for p in paths:
        try:
            st = os.stat(p)
            out[p] = (st.st_mtime_ns, st.st_size)
        except OSError:
            out[p] = (-1, -1)
    return out


def warm_up() -> None:
    """Import the scan path, load the shipped rules, compile every pattern, and scan the rules' own
    examples once (output discarded), so that each forked copy starts with all of it done."""
    # start-up time: a command (and a report format) imports only what it runs
    import contextlib
    import io
    import tempfile

    from hermes_audit.cli.main import cli
    from hermes_audit.patterns.catalog import load_catalog, materialize

    catalog = load_catalog()
    examples = []
    for rule in catalog.all_rules():
        for pattern in rule.compiled:
            materialize(pattern)
        examples.extend(rule.examples_match[:1])
    with tempfile.TemporaryDirectory(prefix="hermes-audit-warm-") as tmp:
        path = os.path.join(tmp, "AGENTS.md")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n\n".join(examples))
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            try:
                cli.main(args=["scan", "--no-config", path], prog_name="hermes-audit", standalone_mode=True)
            except SystemExit:
                pass


class Server:
    """A bound scan server. :meth:`serve` runs until idle, stopped or stale; :meth:`close` unlinks the
    socket if it is still this server's."""

    def __init__(self, path: str, idle_timeout: float = DEFAULT_IDLE_TIMEOUT) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.listener.bind(path)
        except OSError as exc:
            self.listener.close()
            raise wire.ServerUnavailable(f"{path}: cannot bind ({exc.strerror})") from None
        os.chmod(path, 0o600)
        self.inode = os.stat(path).st_ino
        self.listener.listen(16)
        self.listener.settimeout(TICK)
        self.state = ServerState(path=path, started=time.time(), idle_timeout=idle_timeout,
                                 import_env=wire.import_time_env(os.environ), snapshot=snapshot(code_files()),
                                 listings=listing(installation_dirs()))
        self.proof = peer.Proof()
        self.rights = peer.own_facts()
        self._stop = False

    def ready(self) -> None:
        """Add the files of the modules imported since the server was made (:func:`warm_up`) to the snapshot
        (those already in it keep their first values)."""
        for path, value in snapshot(code_files()).items():
            self.state.snapshot.setdefault(path, value)

    def close(self) -> None:
        self.listener.close()
        self.proof.close()
        try:
            if os.stat(self.state.path).st_ino == self.inode:
                os.unlink(self.state.path)
        except OSError:
            pass

    def serve(self) -> None:
        """Accept and answer requests until idle for ``idle_timeout`` seconds, stopped, or stale.

        Everything allocated so far (imports, catalog, compiled patterns) is first moved out of the garbage
        collector's reach (``gc.freeze``): a forked copy's collections then never touch those pages, which
        it would otherwise have to copy from the server's."""
        import gc

        gc.collect()
        gc.freeze()
        signal.signal(signal.SIGTERM, self._on_term)
        try:
            while not self._stop:
                self.state.failed += _reap()
                if time.time() - self.state.last_request > self.state.idle_timeout:
                    break
                try:
                    conn, _ = self.listener.accept()
                except (socket.timeout, InterruptedError):
                    continue
                except OSError:
                    break
                try:
                    self._answer(conn)
                except Exception:
                    pass  # a broken request never takes the server down
                finally:
                    conn.close()
        finally:
            self.close()

    def _on_term(self, _signum: int, _frame: Any) -> None:
        self._stop = True

    def _answer(self, conn: socket.socket) -> None:
        conn.settimeout(REQUEST_TIMEOUT)
        if wire.peer_uid(conn) != os.getuid():
            return
        client: Optional[peer.Peer] = None
        unknown = ""
        try:
            client = peer.open_peer(conn)  # at once: the pid is that of the process that connected
        except peer.Refused as exc:
            unknown = str(exc)
        fds: list[int] = []
        try:
            message, fds = wire.recv(conn, max_fds=3)
            op = message.get("op") if isinstance(message, dict) else None
            if op == "hello":  # the reach proofs, both ways (docs/server.md, "Same rights"); then the run
                wire.close_fds(fds)
                fds = []
                self._hello(conn, client, message)
                message, fds = wire.recv(conn, max_fds=4)
                op = message.get("op") if isinstance(message, dict) else None
                if op != "run":
                    op = "unknown"
            elif op == "run":  # without the handshake
                op = "unproven"
            if op == "status":
                wire.send(conn, ("status", self.status()))
            elif op == "stop":
                self._stop = True
                wire.send(conn, ("stopping", os.getpid()))
            elif op in ("run", "unproven"):
                self.state.last_request = time.time()  # only scans keep the server alive (not status)
                stdio, proof = fds[:3], fds[3:]
                reason = self._refusal(message, stdio)
                if reason is None and op == "unproven":
                    reason = "a run request without the handshake"
                if reason is None:
                    reason = self._rights(conn, client, proof) if client is not None else unknown
                if reason is None and client is not None and client.cwd is not None:
                    self.state.served += 1
                    self._fork(conn, message, stdio, client.cwd)
                else:
                    self.state.declined += 1
                    self.state.last_declined = reason or "unknown client"
                    wire.send(conn, ("declined", self.state.last_declined))
            else:
                wire.send(conn, ("declined", "unknown request"))
        finally:
            wire.close_fds(fds)
            if client is not None:
                client.close()

    def _hello(self, conn: socket.socket, client: Optional[peer.Peer], message: dict) -> None:
        """Answer a client's ``{"op": "hello", "proof": n}``: ``("hello", <this server's proof number>)``
        with the client's ``/proc/<pid>/fd/<n>`` opened, when the kernel lets this process open it."""
        fd = peer.reach(client, message.get("proof")) if client is not None else None
        try:
            wire.send(conn, ("hello", self.proof.number), fds=() if fd is None else (fd,))
        finally:
            if fd is not None:
                os.close(fd)

    def _rights(self, conn: socket.socket, client: peer.Peer, proof: list[int]) -> Optional[str]:
        """Why the client process does not have exactly the server's rights, or ``None`` (then
        ``client.cwd`` is its working directory): the kernel's facts about it
        (:func:`hermes_audit.server.peer.refusal`), then the reach proof it sent with its request."""
        reason = peer.refusal(conn, client, self.rights)
        if reason is None and not self.proof.verify(proof):
            reason = ("the client may not inspect the server's process (a sandbox: Landlock, an LSM policy, "
                      "fewer capabilities, another pid namespace)")
        return reason

    def status(self) -> dict:
        """``{pid, socket, started, idle_timeout, served, failed, declined, last_declined, version}``: ``served``
        counts forked copies, ``failed`` those of them that could not run their command."""
        self.state.failed += _reap()

        s = self.state
        return {"pid": os.getpid(), "socket": s.path, "started": s.started, "idle_timeout": s.idle_timeout,
                "served": s.served, "failed": s.failed, "declined": s.declined, "last_declined": s.last_declined,
                "version": __version__}

    def _refusal(self, req: dict, fds: list[int]) -> Optional[str]:
        """Why ``req`` cannot run here, or ``None``. A changed installation also stops the server."""
        if len(fds) != 3:
            return "a run request needs standard input, output and error"
        if req.get("identity") != wire.identity():
            return "a different installation or version"
        argv, cwd, env, io = req.get("argv"), req.get("cwd"), req.get("env"), req.get("io")
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and isinstance(cwd, str)
                and isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
                and isinstance(req.get("umask"), int) and isinstance(io, list) and len(io) == 3):
            return "a malformed request"
        if wire.import_time_env(env) != self.state.import_env:
            return f"different values of {', '.join(wire.IMPORT_TIME_ENV)}"
        if snapshot(list(self.state.snapshot)) != self.state.snapshot or \
                listing(list(self.state.listings)) != self.state.listings:
            self._stop = True
            return "the installed package, its rules or its dependencies changed since the server started"
        return None

    def _fork(self, conn: socket.socket, req: dict, fds: list[int], cwd: int) -> None:
        pid = os.fork()
        if pid:
            return
        code = EXIT_COPY_FAILED
        try:
            code = self._child(conn, req, fds, cwd)
        except BaseException:
            pass
        finally:
            os._exit(code if isinstance(code, int) and 0 <= code < 256 else 1)

    def _child(self, conn: socket.socket, req: dict, fds: list[int], cwd: int) -> int:
        """In the forked copy: become the client's command, run it, report its exit code.

        The copy leads a process group of its own (its workers and ``git`` join it) and ends that group at
        once if the client goes away before the command finished (:func:`_end_with_client`)."""
        import io
        import threading

        for sig in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        self.listener.close()
        self.proof.close()  # only the server holds it
        os.setpgid(0, 0)
        finished = threading.Event()
        threading.Thread(target=_end_with_client, args=(conn.fileno(), finished), daemon=True).start()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        wire.close_fds([fd for fd in fds if fd > 2])
        os.fchdir(cwd)  # the client's own working directory (``req["cwd"]`` only names it)
        os.close(cwd)
        os.environ.clear()
        os.environ.update(req["env"])
        os.umask(req["umask"])
        streams = []
        for fd, (encoding, errors) in enumerate(req["io"]):
            raw = io.open(fd, "rb" if fd == 0 else "wb", closefd=False)
            streams.append(io.TextIOWrapper(raw, encoding=encoding or "utf-8", errors=errors or "strict",
                                            line_buffering=(fd == 2 or (fd == 1 and os.isatty(1)))))
        sys.stdin, sys.stdout, sys.stderr = streams
        sys.argv = ["hermes-audit", *req["argv"]]
        wire.send(conn, ("started", os.getpid()))
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.cli.main import main

        try:
            main(list(req["argv"]))
            code: Any = 0
        except SystemExit as exc:
            code = exc.code
        if code is None:
            code = 0
        elif not isinstance(code, int):
            sys.stderr.write(f"{code}\n")
            code = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        finished.set()
        conn.settimeout(REPLY_TIMEOUT)
        try:
            wire.send(conn, ("exit", code))
        except OSError:
            pass
        return code


def _end_with_client(fd: int, finished: Any) -> None:
    """In a copy (a thread): wait until the client's end of the connection ``fd`` closes or sends anything
    (a client sends nothing after its request). If the command has not ``finished`` by then, the client was
    killed or hung up (SIGTERM, SIGHUP, SIGKILL, a closed terminal): the copy's process group is killed at
    once, as the client's death would have ended an in-process run, so nothing is written afterwards
    (Ctrl-C is different: the client passes it on and waits, see :mod:`hermes_audit.server.client`)."""
    import select

    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLRDHUP)
    while True:
        try:
            if poller.poll():
                break
        except InterruptedError:
            continue
        except OSError:
            break
    if not finished.is_set():
        os.killpg(os.getpgrp(), signal.SIGKILL)


def _reap() -> int:
    """Collect finished copies (without blocking); how many of them failed before running their command
    (exit status :data:`EXIT_COPY_FAILED`)."""
    failed = 0
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return failed
        if pid == 0:
            return failed
        failed += os.WIFEXITED(status) and os.WEXITSTATUS(status) == EXIT_COPY_FAILED


def request(op: str, environ: Optional[dict] = None, timeout: float = REPLY_TIMEOUT) -> Any:
    """Send ``{"op": op}`` to this installation's server and return its reply.

    Raises :class:`~hermes_audit.server.wire.ServerUnavailable` when no server of this user answers."""
    env = os.environ if environ is None else environ
    path = wire.socket_path(env)
    try:
        sock = wire.connect(path, timeout)
    except OSError as exc:
        raise wire.ServerUnavailable(f"{path}: {exc.strerror or exc}") from None
    try:
        if wire.peer_uid(sock) != os.getuid():
            raise wire.ServerUnavailable(f"{path}: the server belongs to another user")
        try:
            wire.send(sock, {"op": op})
            reply, _ = wire.recv(sock)
        except OSError as exc:
            raise wire.ServerUnavailable(f"{path}: {exc}") from None
        return reply
    finally:
        sock.close()


def start(idle_timeout: float = DEFAULT_IDLE_TIMEOUT, foreground: bool = False) -> int:
    """Start this installation's server; its process id (the current process's with ``foreground``, which
    returns only when the server ends).

    Raises :class:`AlreadyRunning` when a server of this installation runs or is starting, and
    :class:`~hermes_audit.server.wire.ServerUnavailable` (one line) for an unsupported platform, an unsafe
    socket directory, or a failure while starting."""
    path = wire.socket_path(os.environ, create=True)
    lock = _lock(path)  # held by the server for its whole life (the daemon inherits it)
    try:
        if os.path.lexists(path):
            os.unlink(path)  # the lock is free, so no server owns it: left by one that was killed
        if foreground:
            server = Server(path, idle_timeout)
            try:
                warm_up()
                server.ready()
            except BaseException:
                server.close()
                raise
            server.serve()
            return os.getpid()
        return _daemonize(path, idle_timeout)
    finally:
        os.close(lock)


class AlreadyRunning(wire.ServerUnavailable):
    """Another server of this installation holds the lock (running, or starting)."""


def _lock(path: str) -> int:
    """An open descriptor holding an exclusive ``flock`` on ``<socket path>.lock``; raises
    :class:`AlreadyRunning` when another process holds it."""
    import fcntl

    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise AlreadyRunning(f"a scan server is already running or starting ({path})") from None
    return fd


def _daemonize(path: str, idle_timeout: float) -> int:
    """Fork a detached server (new session, working directory ``/``, standard streams on ``/dev/null``);
    wait for it to be bound and warm; its pid."""
    read_end, write_end = os.pipe()
    first = os.fork()
    if first:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as fh:
            answer = fh.read(4096).decode("utf-8", "replace")
        os.waitpid(first, 0)
        if answer.startswith("ok "):
            return int(answer[3:])
        raise wire.ServerUnavailable(answer.strip() or "the server ended while starting")
    code = 0
    try:
        os.close(read_end)
        os.setsid()
        if os.fork():
            os._exit(0)
        os.chdir("/")
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
        try:
            server = Server(path, idle_timeout)
            warm_up()
            server.ready()
        except BaseException as exc:  # reported to the starting process, one line
            os.write(write_end, f"cannot start the scan server: {type(exc).__name__}: {exc}".encode()[:4000])
            code = 1
        else:
            os.write(write_end, f"ok {os.getpid()}".encode())
            os.close(write_end)
            server.serve()
    except BaseException:
        code = 1
    finally:
        os._exit(code)
