"""Opening paths below a root without ever going through a symbolic link out of it (issue 18, item 7).

A scanned tree is hostile, and may change while it is scanned: a parent directory can be swapped for a
symbolic link between the moment a path is checked and the moment it is opened (``renameat2`` with
``RENAME_EXCHANGE`` does it atomically). Checking a path with ``realpath`` and then opening it by name
therefore is not enough. Here a path is opened from the root down, one directory descriptor at a time:

1. the path is resolved (``os.path.realpath``) and must lie below the resolved root, else
   :class:`LeadsOut` (naming the first directory on the way that is a link out, when there is one);
2. the root is opened (``O_DIRECTORY``), then every directory between it and the file with
   ``os.open(name, O_DIRECTORY | O_NOFOLLOW, dir_fd=parent)``: a component that has become a symbolic link
   (or anything but a directory) since step 1 fails that open (``ELOOP``/``ENOTDIR``), which is
   :class:`Changed`;
3. the caller opens, reads, creates or renames the last component relative to the directory descriptor it
   gets (``dir_fd=``, ``O_NOFOLLOW``), so everything it does happens in that one directory, whatever is
   renamed afterwards.

Only real directories reached from the root are ever entered, so nothing outside it is read or written.
(Hard links and bind mounts inside the tree are out of scope: git creates neither.)

Where the platform lacks ``dir_fd`` support for ``os.open`` or has no ``O_NOFOLLOW``/``O_DIRECTORY``
(Windows), :data:`DIR_FD` is False and callers fall back to checking the resolved path and opening it by
name: links out are still refused, but a swap in the window between the check and the open is not.
"""

from __future__ import annotations

import errno
import functools
import os
from pathlib import Path
from typing import Optional, Union

#: True where directory descriptors can be used (Linux, macOS, the BSDs); False on Windows.
DIR_FD = (os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and os.unlink in os.supports_dir_fd
          and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY"))
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: Errors of an ``O_NOFOLLOW | O_DIRECTORY`` open meaning "no longer a plain directory" (FreeBSD says EMLINK).
_NOT_A_DIR = {errno.ELOOP, errno.ENOTDIR, errno.EMLINK}

PathLike = Union[str, Path]


class LeadsOut(Exception):
    """The path resolves outside the root; ``link`` is the first symbolic link on the way that leads out
    (a path string), when one was found. The message is one line."""

    def __init__(self, message: str, link: Optional[str] = None) -> None:
        super().__init__(message)
        self.link = link


class Changed(Exception):
    """A directory on the way stopped being a directory (became a symbolic link, was removed) between
    resolving the path and opening it: the tree changed during the scan. The message is one line."""


def is_below(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or lies below it (both absolute and resolved strings)."""
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(prefix)


def _link_out(path: str, root_real: str, root_given: str) -> Optional[str]:
    """The first symbolic link on ``path`` (absolute, lexical) below ``root_given`` whose target lies outside
    ``root_real``; ``None`` when there is none (or ``path`` is not lexically below the root)."""
    for root in dict.fromkeys((root_given, root_real)):
        if not is_below(path, root):
            continue
        rel = os.path.relpath(path, root)
        cur = root
        for part in rel.split(os.sep):
            cur = os.path.join(cur, part)
            if os.path.islink(cur) and not is_below(os.path.realpath(cur), root_real):
                return cur
        return None
    return None


def _absolute(path: PathLike) -> str:
    """``path`` made absolute without folding ``..`` lexically (``link/..`` is the link target's parent, as the
    OS sees it, not the link's directory)."""
    p = os.fspath(path)
    return p if os.path.isabs(p) else os.path.join(os.getcwd(), p)


def resolve_below(path: PathLike, root: PathLike, resolve_leaf: bool = True) -> tuple[str, list[str], str]:
    """``(root_real, parts, name)``: the resolved root, the directories between it and the file, and the
    file's name. ``resolve_leaf`` False keeps the last component as it is (a symbolic link stays itself: what
    ``--fix`` wants), else the file is its link's target.

    Raises :class:`LeadsOut` when the resolved path is not below the resolved root.
    """
    root_real = _real_root(os.fspath(root))
    absolute = _absolute(path)
    if resolve_leaf:
        real = os.path.realpath(absolute)
        parent, name = os.path.split(real)
    else:
        head, name = os.path.split(absolute)
        if name in ("", os.curdir, os.pardir):  # "x/..", "x/.": the directory itself is the file
            head, name = os.path.split(os.path.realpath(absolute))
        parent = os.path.realpath(head)
    if not is_below(parent, root_real):
        root_given = os.path.abspath(root)
        link = _link_out(absolute, root_real, root_given)
        if link is None:
            where = "it resolves to a place"
        else:
            shown = os.path.relpath(link, root_given) if is_below(link, root_given) else link
            where = f"a directory on its path ({shown}) is a symbolic link that leads"
        raise LeadsOut(f"{where} outside the scanned tree ({root_real})", link)
    rel = parent[len(root_real):].strip(os.sep)
    parts = rel.split(os.sep) if rel else []
    return root_real, parts, name


@functools.lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    """``os.path.realpath(root)``, cached: a root is a directory the user chose (callers pass it resolved
    already), not part of the hostile tree, and is resolved once per file otherwise. Its resolution only
    chooses where the walk starts; what lies below it is never taken from a cache."""
    return os.path.realpath(root)


def open_directory(root_real: str, parts: list[str]) -> int:
    """A descriptor of ``root_real/parts...``, each part opened with ``O_NOFOLLOW | O_DIRECTORY`` relative to
    the one before (see the module docstring). The caller closes it. Raises :class:`Changed` when a part is
    no longer a directory, ``OSError`` for other failures (permission denied...)."""
    fd = os.open(root_real, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for part in parts:
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _NOT_A_DIR or exc.errno == errno.ENOENT:
                    raise Changed(f"the directory {part!r} on its path changed during the scan (now a symbolic "
                                  "link or gone); not followed") from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_parent(path: PathLike, root: Optional[PathLike], resolve_leaf: bool = True) -> tuple[int, str]:
    """``(dir_fd, name)``: a descriptor of the directory that holds ``path`` (reached from ``root`` as
    :func:`open_directory` does) and the file's name in it. ``root`` ``None``: the directory is opened by
    name (a path the user named outside any scanned tree). Needs :data:`DIR_FD`. The caller closes
    ``dir_fd``. Raises :class:`LeadsOut`, :class:`Changed` or ``OSError``."""
    if root is None:
        absolute = os.path.realpath(_absolute(path)) if resolve_leaf else _absolute(path)
        parent, name = os.path.split(absolute)  # opened by name: the OS resolves links and ".." in it
        return os.open(parent or os.sep, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC), name
    root_real, parts, name = resolve_below(path, root, resolve_leaf)
    return open_directory(root_real, parts), name


def open_file(path: PathLike, root: Optional[PathLike], flags: int) -> int:
    """A descriptor of the file ``path`` opened with ``flags | O_NOFOLLOW`` below ``root`` (see
    :func:`open_parent`; a symbolic link as the last component is resolved first, and must stay inside).
    Without :data:`DIR_FD`: the resolved path is checked and opened by name. Raises :class:`LeadsOut`,
    :class:`Changed` (also when the file itself became a link) or ``OSError``."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    if not DIR_FD:
        if root is not None:
            resolve_below(path, root)
        return os.open(os.path.realpath(path), flags | nofollow | _CLOEXEC)
    dfd, name = open_parent(path, root)
    return open_in(dfd, name, flags)


def open_in(dfd: int, name: str, flags: int) -> int:
    """``os.open(name, flags | O_NOFOLLOW, dir_fd=dfd)``, closing ``dfd``; a link there is :class:`Changed`."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        try:
            return os.open(name, flags | nofollow | _CLOEXEC, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise Changed("the file changed during the scan (now a symbolic link); not followed") from None
            raise
    finally:
        os.close(dfd)
