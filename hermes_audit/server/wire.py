"""Where the scan server listens, who may talk to it, and how a message travels.

Standard library only, and cheap to import: the console entry point (:mod:`hermes_audit.server.client`)
imports this module on every run, before it knows whether a server is there.

**Where.** One socket per installation and user: ``<dir>/<key>.sock``, where ``<dir>`` is
``$HERMES_AUDIT_SERVER_DIR`` if set (an absolute path), else ``$XDG_RUNTIME_DIR/hermes-audit``, else
``/tmp/hermes-audit-<uid>``, and ``<key>`` is a checksum of :func:`identity` (interpreter, package
directory, version), so two installations never share a server. The directory must be a real directory
(not a symbolic link) owned by the user with no permission bits for group or others
(:func:`checked_dir`); the server creates it with mode 0700 and both sides refuse any other.

**Who.** Both ends check the other's user id from the kernel (``SO_PEERCRED``, :func:`peer_uid`): a
server only serves its own user, and a client only talks to a server of its own user. Within the user, the
server serves only a process with exactly its rights, and the client talks only to a server with exactly
its rights (:mod:`hermes_audit.server.peer`). A run is: the client sends ``{"op": "hello", "proof": n}``;
the server answers ``("hello", m)`` with the client's ``/proc/<pid>/fd/<n>`` opened (none when the kernel
refused it); the client sends ``{"op": "run", ...}`` with its standard streams and the server's
``/proc/<pid>/fd/<m>`` opened (three descriptors alone when it could not); the server answers
``("started", pid)`` then ``("exit", code)``, or ``("declined", reason)``.

**How.** A message is a 4-byte big-endian length and that many bytes of :mod:`marshal` data (plain
tuples, lists, dicts, strings and integers; at most :data:`MAX_MESSAGE` bytes). A request to run a
command carries the client's standard input, output and error as file descriptors (``SCM_RIGHTS``) with
its first 4 bytes.
"""

from __future__ import annotations

import _socket  # the C module under ``socket``: ``socket.py`` would add ``selectors`` and ``enum`` (~5 ms)
import marshal
import os
import stat
import struct
import sys
import zlib
from hermes_audit import __version__

# No ``typing`` import (about 8 ms with the ``re`` it pulls in, on every run): with postponed evaluation of
# annotations these names are only read by type checkers.
if False:  # pragma: no cover
    from typing import Any, Mapping, Optional, Sequence

#: Version of the message format; part of :func:`identity`.
PROTOCOL = 2  # 2: the handshake with the reach proofs (``hello``, docs/server.md "Same rights")
#: Largest message either side accepts, bytes (a request holds the client's environment).
MAX_MESSAGE = 1 << 20
#: Longest socket path used, bytes (Linux allows 107 in ``sun_path``; longer paths mean no server).
MAX_SOCKET_PATH = 100
#: Overrides the socket directory (tests, or a user whose runtime directory is unusual).
DIR_ENV = "HERMES_AUDIT_SERVER_DIR"
#: Set to anything but ``""``/``"0"``: the entry point never uses a server (every run in-process).
NO_SERVER_ENV = "HERMES_AUDIT_NO_SERVER"
#: Set to anything but ``""``/``"0"``: a ``scan`` that finds no server starts one for the next run.
AUTOSTART_ENV = "HERMES_AUDIT_SERVER"
#: Environment variables that hermes-audit reads when a module is imported (``patterns/keywords.py``): a
#: request whose values differ from the server's is declined and runs in-process.
IMPORT_TIME_ENV = ("HERMES_AUDIT_PURE_PYTHON",)
_HEAD = struct.Struct("!I")
_UCRED = struct.Struct("3i")


class ServerUnavailable(Exception):
    """No usable server: unsupported platform, unsafe directory, nothing listening, or a broken message.
    The message is one line."""


class MissingDirectory(ServerUnavailable):
    """The socket directory does not exist (yet): no server can be running, and ``server start`` creates
    it (a fresh machine, or ``/tmp`` and ``$XDG_RUNTIME_DIR`` emptied by a reboot)."""


def enabled(environ: Mapping[str, str]) -> bool:
    """False when :data:`NO_SERVER_ENV` is set to anything but ``""``/``"0"``."""
    return environ.get(NO_SERVER_ENV, "") in ("", "0")


def autostart(environ: Mapping[str, str]) -> bool:
    """True when :data:`AUTOSTART_ENV` is set to anything but ``""``/``"0"``."""
    return environ.get(AUTOSTART_ENV, "") not in ("", "0")


def supported() -> bool:
    """Linux with descriptor passing and peer credentials."""
    return (sys.platform.startswith("linux") and hasattr(_socket, "SO_PEERCRED") and hasattr(_socket, "SCM_RIGHTS")
            and hasattr(_socket.socket, "sendmsg"))


def connect(path: str, timeout: Optional[float] = None) -> _socket.socket:
    """A Unix stream socket connected to ``path`` (``timeout`` seconds per operation, ``None`` for none).

    Raises ``OSError`` when nothing listens there."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def identity() -> tuple:
    """``(protocol, interpreter path, package directory, package version, Python version)``: what a client
    and a server must share."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return (PROTOCOL, sys.executable, package, __version__, sys.version)


def import_time_env(environ: Mapping[str, str]) -> tuple:
    """The values of :data:`IMPORT_TIME_ENV` in ``environ`` (``None`` for unset), in order."""
    return tuple(environ.get(name) for name in IMPORT_TIME_ENV)


def socket_dir(environ: Mapping[str, str]) -> str:
    """The socket directory for ``environ`` (see the module docstring); not checked nor created."""
    explicit = environ.get(DIR_ENV)
    if explicit:
        return explicit  # (checked_dir refuses a relative one)
    runtime = environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):  # the XDG spec: relative values are ignored
        return os.path.join(runtime, "hermes-audit")
    return f"/tmp/hermes-audit-{os.getuid()}"


def checked_dir(path: str, create: bool = False) -> str:
    """``path`` if it is a directory (not a symbolic link) owned by this user with mode ``0o700`` or
    stricter; with ``create``, a missing one is made with mode ``0o700`` (the last component only: its
    parent must exist; one made at the same moment by another process is checked like any existing one).

    Raises :class:`MissingDirectory` for a missing one without ``create``, :class:`ServerUnavailable`
    otherwise (one line naming the path and the reason), also for a relative path (it would depend on the
    working directory, perhaps inside a scanned repository)."""
    if not os.path.isabs(path):
        raise ServerUnavailable(f"{path}: the socket directory must be an absolute path")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise MissingDirectory(f"{path}: no such directory") from None
        st = _make_dir(path)
    except OSError as exc:
        raise ServerUnavailable(f"{path}: {exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise ServerUnavailable(f"{path}: not a directory (or a symbolic link)")
    if st.st_uid != os.getuid():
        raise ServerUnavailable(f"{path}: owned by another user")
    if st.st_mode & 0o077:
        raise ServerUnavailable(f"{path}: group or others have access (mode {stat.S_IMODE(st.st_mode):o})")
    return path


def _make_dir(path: str) -> os.stat_result:
    """Create the directory ``path`` with mode 0700 whatever the umask; its ``lstat``. Raises
    :class:`ServerUnavailable`."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:  # another process made it since: checked as an existing one
        pass
    except OSError as exc:
        raise ServerUnavailable(f"{path}: cannot create the socket directory ({exc.strerror})") from None
    else:
        # the umask may have taken some of the owner's bits: set 0700 on the directory just made (opened
        # without following a link; only its owner could have replaced it since, /tmp being sticky)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                if os.fstat(fd).st_uid == os.getuid():
                    os.fchmod(fd, 0o700)
            finally:
                os.close(fd)
        except OSError:
            pass  # checked below
    try:
        return os.lstat(path)
    except OSError as exc:
        raise ServerUnavailable(f"{path}: {exc.strerror}") from None


def socket_path(environ: Mapping[str, str], create: bool = False) -> str:
    """The socket path of this installation for ``environ``, its directory checked (:func:`checked_dir`).

    Raises :class:`ServerUnavailable` when the platform is not :func:`supported`, the directory is unsafe,
    or the path is longer than :data:`MAX_SOCKET_PATH` bytes."""
    if not supported():
        raise ServerUnavailable("the scan server needs Linux (peer credentials and descriptor passing)")
    directory = checked_dir(socket_dir(environ), create=create)
    text = "\0".join(map(str, identity())).encode("utf-8", "surrogateescape")
    path = os.path.join(directory, f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}.sock")
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise ServerUnavailable(f"{path}: socket path longer than {MAX_SOCKET_PATH} bytes; "
                                f"{'use a shorter' if environ.get(DIR_ENV) else 'set'} {DIR_ENV}")
    return path


def peer_uid(sock: _socket.socket) -> int:
    """The user id of the process at the other end of the Unix socket ``sock`` (``SO_PEERCRED``)."""
    _pid, uid, _gid = _UCRED.unpack(sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _UCRED.size))
    return uid


def peer_pid(sock: _socket.socket) -> int:
    """The process id of the process at the other end of ``sock`` (``SO_PEERCRED``), as this process's pid
    namespace sees it; 0 when it cannot see it."""
    pid, _uid, _gid = _UCRED.unpack(sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _UCRED.size))
    return pid


def send(sock: _socket.socket, message: Any, fds: Sequence[int] = ()) -> None:
    """Send ``message`` (marshal-able plain data) on ``sock``, with ``fds`` attached to its first bytes.

    Raises ``OSError`` (the peer went away) or ``ValueError`` (a message over :data:`MAX_MESSAGE`)."""
    data = marshal.dumps(message)
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"message of {len(data)} bytes is over {MAX_MESSAGE}")
    head = _HEAD.pack(len(data))
    if fds:
        sock.sendmsg([head], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))])
        sock.sendall(data)
    else:
        sock.sendall(head + data)


def recv(sock: _socket.socket, max_fds: int = 0) -> tuple[Any, list[int]]:
    """The next message on ``sock`` and the descriptors sent with it (at most ``max_fds``; the caller owns
    and must close them).

    Raises :class:`ServerUnavailable` when the peer closed the connection, sent more than
    :data:`MAX_MESSAGE` bytes or more descriptors than allowed; ``OSError`` (``TimeoutError`` included)
    from the socket."""
    fds: list[int] = []
    if max_fds:
        size = struct.calcsize("i")
        head, ancillary, flags, _addr = sock.recvmsg(_HEAD.size, _socket.CMSG_LEN(max_fds * size))
        for level, kind, data in ancillary:
            if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
                n = len(data) // size
                fds.extend(struct.unpack(f"{n}i", data[:n * size]))
        if flags & _socket.MSG_CTRUNC:
            close_fds(fds)
            raise ServerUnavailable("too many file descriptors in a message")
    else:
        head = b""
    try:
        head += _exactly(sock, _HEAD.size - len(head))
        (size,) = _HEAD.unpack(head)
        if size > MAX_MESSAGE:
            raise ServerUnavailable(f"message of {size} bytes is over {MAX_MESSAGE}")
        try:
            message = marshal.loads(_exactly(sock, size))
        except (EOFError, ValueError, TypeError):
            raise ServerUnavailable("a malformed message") from None
    except BaseException:
        close_fds(fds)
        raise
    return message, fds


def _exactly(sock: _socket.socket, n: int) -> bytes:
    chunks = []
    while n > 0:
        chunk = sock.recv(min(n, 1 << 16))
        if not chunk:
            raise ServerUnavailable("the connection closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def close_fds(fds: Sequence[int]) -> None:
    """Close each of ``fds``, ignoring those already closed."""
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
