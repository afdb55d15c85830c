"""Whether the process at the other end of a connection has exactly this process's rights (Linux).

A forked copy of the scan server reads and writes with the server's rights, so the server runs a scan only
for a client process whose rights are the same as its own; and a client hands its terminal and environment
only to a server whose rights are the same as its own (``docs/server.md``, "Same rights"). Everything here
comes from the kernel (``SO_PEERCRED``, ``SO_PEERPIDFD``, ``SO_PEERGROUPS``, ``/proc/<pid>``), never from
what the other side says.

Both sides use it, so it is cheap to import (standard library C modules only, as
:mod:`hermes_audit.server.wire`).
"""

from __future__ import annotations

import _socket as socket  # not ``socket.py`` (selectors, enum: ~5 ms on each client run)
import errno
import os
import select
import struct

if False:  # pragma: no cover  (no ``typing`` at run time: see hermes_audit/server/wire.py)
    from typing import Optional

#: The namespaces compared (``/proc/<pid>/ns/<name>``). Not ``time``: it shifts clocks and grants nothing.
NAMESPACES = ("mnt", "user", "pid", "net", "ipc", "uts", "cgroup")
#: The fields of ``/proc/<pid>/status`` compared (a field the kernel does not have is ``""`` on both sides).
STATUS_FIELDS = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs",
                 "Seccomp", "Seccomp_filters")
#: LSM label files under ``/proc/<pid>/``: the shared one (SELinux, and the first LSM that has one) and
#: the per-LSM ones of Linux 5.1 and later.
ATTR_FILES = ("attr/current", "attr/apparmor/current", "attr/smack/current")

_LABELS = {
    "ns:mnt": "mount namespace", "ns:user": "user namespace", "ns:pid": "pid namespace",
    "ns:net": "network namespace", "ns:ipc": "IPC namespace", "ns:uts": "UTS namespace",
    "ns:cgroup": "cgroup namespace", "status:Uid": "user ids", "status:Gid": "group ids",
    "status:Groups": "supplementary groups", "status:NoNewPrivs": "no_new_privs flag",
    "status:Seccomp": "seccomp mode", "status:Seccomp_filters": "seccomp filters", "root": "root directory",
    "limits": "resource limits",
}

# Socket option numbers of <asm-generic/socket.h> (Linux 4.13 and 6.5). Alpha, MIPS, PA-RISC and SPARC
# number their options differently, and Python 3.11's socket module names neither option.
_GENERIC = os.uname().machine in {"x86_64", "i386", "i486", "i586", "i686", "aarch64", "arm64", "armv6l",
                                  "armv7l", "armv8l", "riscv64", "ppc64", "ppc64le", "loongarch64", "s390x"}
SO_PEERGROUPS: Optional[int] = getattr(socket, "SO_PEERGROUPS", 59 if _GENERIC else None)
SO_PEERPIDFD: Optional[int] = getattr(socket, "SO_PEERPIDFD", 77 if _GENERIC else None)
_UCRED = struct.Struct("3i")


class Refused(Exception):
    """The peer's rights cannot be established, or differ from this process's; the message is one line."""


def ucred(conn: socket.socket) -> tuple[int, int, int]:
    """``(pid, effective uid, effective gid)`` of the thread that connected ``conn`` (``SO_PEERCRED``; the pid
    as this process's pid namespace sees it, 0 when it cannot see it)."""
    return _UCRED.unpack(conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))


def peer_groups(conn: socket.socket) -> Optional[tuple[int, ...]]:
    """The supplementary groups of the thread that connected ``conn``, sorted (``SO_PEERGROUPS``); ``None``
    where the option is missing or the list is over 256 groups (Python reads at most 1024 bytes)."""
    if SO_PEERGROUPS is None:
        return None
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, SO_PEERGROUPS, 1024)
    except OSError:
        return None
    return tuple(sorted(struct.unpack(f"{len(raw) // 4}I", raw[:len(raw) // 4 * 4])))


class Peer:
    """The process that connected: its pid, ``/proc/<pid>`` opened as a directory (every fact is read
    through it, so nothing is read from another process once it ended), its pidfd (``None`` without
    ``SO_PEERPIDFD``) and its start time in clock ticks. :meth:`close` releases the descriptors."""

    def __init__(self, pid: int, procdir: int, pidfd: Optional[int]) -> None:
        self.pid, self.procdir, self.pidfd = pid, procdir, pidfd
        self.start = _start_time(procdir)
        self.cwd: Optional[int] = None

    def ended(self) -> bool:
        """True once the process has ended (its pidfd is readable) or, without a pidfd, when its start time
        can no longer be read or has changed."""
        if self.pidfd is not None:
            poller = select.poll()
            poller.register(self.pidfd, select.POLLIN)
            return bool(poller.poll(0))
        try:
            return _start_time(self.procdir) != self.start
        except Refused:
            return True

    def close(self) -> None:
        for fd in (self.procdir, self.pidfd, self.cwd):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.pidfd = self.cwd = None


def open_peer(conn: socket.socket) -> Peer:
    """The :class:`Peer` that connected ``conn``; call it as soon as the connection is accepted.

    With ``SO_PEERPIDFD`` (Linux 6.5) the pidfd is of the connecting process itself, and ``/proc/<pid>`` is
    opened and then checked to belong to it (its pidfd shows it has not ended): race-free. Without it,
    ``/proc/<pid>`` is opened at once; a pid reused between the client's ``connect`` and this call is not
    detected (``docs/server.md``, "Race-free").

    Raises :class:`Refused` when the process is not visible here (another pid namespace) or has ended."""
    pid, _uid, _gid = ucred(conn)
    if pid <= 0:
        raise Refused("the client's process is not visible from the server (another pid namespace)")
    pidfd = None
    if SO_PEERPIDFD is not None:
        try:
            pidfd = conn.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD)
        except OSError as exc:
            if exc.errno not in (errno.ENOPROTOOPT, errno.EOPNOTSUPP):
                raise Refused("the client's process has ended") from None
    try:
        procdir = os.open(f"/proc/{pid}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        if pidfd is not None:
            os.close(pidfd)
        raise Refused("the client's process has ended") from None
    try:
        peer = Peer(pid, procdir, pidfd)
    except Refused:
        os.close(procdir)
        if pidfd is not None:
            os.close(pidfd)
        raise
    if peer.ended():
        peer.close()
        raise Refused("the client's process has ended")
    return peer


def _start_time(procdir: int) -> int:
    """Field 22 of ``stat`` (start time, clock ticks after boot). Raises :class:`Refused`."""
    try:
        text = _read(procdir, "stat")
        return int(text.rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        raise Refused("the client's process has ended") from None


def _read(procdir: int, name: str) -> str:
    fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC, dir_fd=procdir)
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks).decode("utf-8", "surrogateescape")
            chunks.append(chunk)
    finally:
        os.close(fd)


def _error(exc: OSError) -> str:
    return "error:" + errno.errorcode.get(exc.errno or 0, str(exc.errno))


def facts(procdir: int) -> dict[str, str]:
    """``{fact: value}`` for the process whose ``/proc/<pid>`` directory is ``procdir``: ``ns:<name>`` for
    each of :data:`NAMESPACES` (the link, e.g. ``mnt:[4026531832]``), ``status:<field>`` for each of
    :data:`STATUS_FIELDS`, ``attr:<file>`` for each of :data:`ATTR_FILES` (the label, or the error reading
    it gave, e.g. ``error:EINVAL`` without an LSM), ``root`` (device and inode of its root directory) and
    ``limits`` (its resource limits, ``/proc/<pid>/limits``: a sandbox's smaller ``RLIMIT_FSIZE`` would
    otherwise not bound what a copy writes).

    Raises :class:`Refused` when ``status`` cannot be read (the process ended)."""
    try:
        status = _read(procdir, "status")
    except OSError:
        raise Refused("the client's process has ended") from None
    fields = {}
    for line in status.splitlines():
        name, sep, value = line.partition(":")
        if sep:
            fields[name] = " ".join(value.split())
    out = {}
    for name in NAMESPACES:
        try:
            out[f"ns:{name}"] = os.readlink(f"ns/{name}", dir_fd=procdir)
        except OSError as exc:
            out[f"ns:{name}"] = _error(exc)
    out.update((f"status:{name}", fields.get(name, "")) for name in STATUS_FIELDS)
    for name in ATTR_FILES:
        try:
            out[f"attr:{name}"] = _read(procdir, name).rstrip("\0\n")
        except OSError as exc:
            out[f"attr:{name}"] = _error(exc)
    try:
        st = os.stat("root", dir_fd=procdir)
        out["root"] = f"{st.st_dev}:{st.st_ino}"
    except OSError as exc:
        out["root"] = _error(exc)
    try:
        out["limits"] = _read(procdir, "limits")
    except OSError as exc:
        out["limits"] = _error(exc)
    return out


def own_facts() -> dict[str, str]:
    """:func:`facts` of this process."""
    procdir = os.open("/proc/self", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        return facts(procdir)
    finally:
        os.close(procdir)


def difference(mine: dict[str, str], theirs: dict[str, str]) -> Optional[str]:
    """``None`` when the two :func:`facts` are equal, else one line naming the first fact that differs, in
    the order of :func:`facts` (``"the client's mount namespace and the server's differ"``)."""
    for key in [*mine, *(k for k in theirs if k not in mine)]:
        if mine.get(key) != theirs.get(key):
            if key.startswith("status:Cap"):
                label = f"capabilities ({key[7:]})"
            elif key.startswith("attr:"):
                label = f"LSM label ({key[5:]})"
            else:
                label = _LABELS.get(key, key)
            return f"the client's {label} and the server's differ"
    return None


def refusal(conn: socket.socket, peer: Peer, mine: dict[str, str], cwd: bool = True) -> Optional[str]:
    """Why the process at the other end of ``conn`` (``peer``) does not have exactly the rights described
    by ``mine`` (:func:`own_facts` of this process), or ``None``. With ``cwd``, on ``None``, ``peer.cwd``
    is an ``O_PATH`` descriptor of its working directory, opened before its process was last seen alive.

    The server calls it after the request arrived, so that the facts are those of the process that sent
    it; the client before it sends anything."""
    _pid, uid, gid = ucred(conn)
    if (uid, gid) != (os.geteuid(), os.getegid()):
        return "the client's effective user or group id and the server's differ"
    groups = peer_groups(conn)
    if groups is not None and groups != tuple(sorted(os.getgroups())):
        return "the client's supplementary groups and the server's differ"
    try:
        theirs = facts(peer.procdir)
    except Refused as exc:
        return str(exc)
    reason = difference(mine, theirs)
    if reason is not None:
        return reason
    if cwd:
        try:
            peer.cwd = os.open("cwd", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=peer.procdir)
        except OSError as exc:
            return f"cannot open the client's working directory ({exc.strerror})"
    if peer.ended():
        return "the client's process has ended"
    return None


def reach(peer: Peer, number: int) -> Optional[int]:
    """The other side of the reach proof: ``/proc/<pid>/fd/<number>`` of ``peer`` opened with ``O_PATH``
    (through its pinned ``/proc/<pid>``), or ``None`` when the kernel refuses it (this process may not
    inspect that one) or ``number`` is not a descriptor number. The caller sends it and closes it."""
    if not isinstance(number, int) or isinstance(number, bool) or not 0 <= number < 1 << 31:
        return None
    try:
        return os.open(f"fd/{number}", os.O_PATH | os.O_CLOEXEC, dir_fd=peer.procdir)
    except OSError:
        return None


class Proof:
    """The object of a reach proof: a pipe's read end (its write end closed), held by one process only.

    The other side opens ``/proc/<pid>/fd/<number>`` (:func:`reach`) and sends the descriptor back; the
    kernel lets it open that only if it may inspect this process (``ptrace`` read access: the same ids,
    permitted capabilities that include this process's, no LSM policy against it, the same or an enclosing
    Landlock domain), which a sandboxed process may not (``security/landlock/task.c``)."""

    def __init__(self) -> None:
        self.number, write_end = os.pipe()  # both close-on-exec (PEP 446)
        os.close(write_end)
        st = os.fstat(self.number)
        self.key = (st.st_dev, st.st_ino)

    def verify(self, fds: list[int]) -> bool:
        """True when ``fds`` is one descriptor of this very pipe."""
        if len(fds) != 1:
            return False
        try:
            st = os.fstat(fds[0])
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self.key

    def close(self) -> None:
        try:
            os.close(self.number)
        except OSError:
            pass
