"""Atomic file writes: the one way hermes-audit writes a file.

Data goes to a temporary file in the target's directory, is flushed and
fsync'ed, gets its permissions (the existing file's, or ``0o666`` minus the
umask for a new file, like any ordinary file), and then replaces the target
with ``os.replace``. On any failure the temporary file is removed and the
target is untouched.

The directory is opened once and the temporary file is created
(``O_CREAT | O_EXCL | O_NOFOLLOW``), renamed over the target and removed on failure relative to that one
descriptor (``dir_fd=``, ``src_dir_fd=``/``dst_dir_fd=``): a directory swapped for a symbolic link after
it was opened changes nothing (issue 18, item 7). With ``root`` the directory is reached from ``root``
down without following a link (:mod:`hermes_audit.documents.beneath`): a path inside a scanned tree whose
directory is a link out of it is refused (:class:`OutsideRoot`, an ``OSError``). Where
directory descriptors are not supported (Windows) the write falls back to ``tempfile.mkstemp`` and
``os.replace`` by name.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import tempfile
from pathlib import Path
from typing import Optional, Union
from hermes_audit.documents.beneath import Changed, DIR_FD, LeadsOut, is_below, open_parent, resolve_below


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class OutsideRoot(OSError):
    """The target's directory is, or goes through, a symbolic link out of the ``root`` it must stay in (or it
    changed during the write); ``str()`` is a one-line reason. Nothing was written."""


def write_at(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """Replace the entry ``name`` of the directory ``dir_fd`` with ``data`` atomically: a temporary file
    ``.<name>.<random>.tmp`` created there with ``O_EXCL | O_NOFOLLOW``, written, ``fchmod``-ed to ``mode``,
    fsync'ed, then ``os.replace``-d over ``name`` in the same directory (a symbolic link named ``name`` is
    replaced, never followed). Raises ``OSError``; the temporary file is then removed."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
            break
        except FileExistsError:
            continue
    else:  # pragma: no cover - 100 collisions of 48 random bits
        raise FileExistsError(errno.EEXIST, "no free temporary name", name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    try:
        os.fsync(dir_fd)  # the rename itself reaches the disk
    except OSError:  # pragma: no cover - some file systems refuse fsync on a directory
        pass


def _make_parents_below(path: Path, root: Union[str, Path]) -> None:
    """Create the missing directories between ``root`` and ``path`` (lexically below it), each with
    ``os.mkdir(name, dir_fd=...)`` in the one before and entered with ``O_DIRECTORY | O_NOFOLLOW``: a
    directory that is a symbolic link raises :class:`OutsideRoot`, and nothing is created outside ``root``.
    A ``path`` not lexically below ``root`` creates nothing (the write then checks it)."""
    parent = os.path.abspath(path.parent)
    base = next((r for r in (os.path.abspath(root), os.path.realpath(root)) if is_below(parent, r)), None)
    if base is None:
        return
    rel = parent[len(base):].strip(os.sep)
    fd = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in rel.split(os.sep) if rel else []:
            try:
                os.mkdir(part, 0o777, dir_fd=fd)
            except FileExistsError:
                pass
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                              dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise OutsideRoot(errno.EPERM, f"{part!r} on its path is not a plain directory (a symbolic "
                                                   "link?); nothing written") from None
                raise
            os.close(fd)
            fd = nxt
    finally:
        os.close(fd)


def atomic_write_bytes(path: Union[str, Path], data: bytes, mode: Optional[int] = None,
                       create_parents: bool = False, root: Optional[Union[str, Path]] = None) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` defaults to the existing file's permission bits, else ``0o666 & ~umask``.
    ``create_parents`` creates missing parent directories (off by default, so a
    mistyped path is an error rather than a new directory tree).
    ``root``: the directory ``path`` must stay inside; its directories are then
    entered from ``root`` down without following a symbolic link, and one that
    leads out (or changes during the write) raises :class:`OutsideRoot`.
    Raises ``OSError`` (the target is then unchanged).
    """
    path = Path(path)

    if create_parents and root is not None and DIR_FD:
        _make_parents_below(path, root)
    elif create_parents:
        path.parent.mkdir(parents=True, exist_ok=True)

    if DIR_FD:
        try:
            dfd, name = open_parent(path, root, resolve_leaf=False)
        except (LeadsOut, Changed) as exc:
            raise OutsideRoot(errno.EPERM, str(exc)) from None
        try:
            if mode is None:
                try:
                    mode = stat.S_IMODE(os.stat(name, dir_fd=dfd).st_mode)
                except OSError:
                    mode = 0o666 & ~_umask()
            write_at(dfd, name, data, mode)
        finally:
            os.close(dfd)
        return
    if root is not None:
        try:
            resolve_below(path, root, resolve_leaf=False)
        except LeadsOut as exc:
            raise OutsideRoot(errno.EPERM, str(exc)) from None
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Union[str, Path], text: str, mode: Optional[int] = None,
                      create_parents: bool = False, root: Optional[Union[str, Path]] = None) -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8 (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), mode, create_parents, root)
