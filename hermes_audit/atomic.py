"""Atomic file writes: the one way hermes-audit writes a file.

Data goes to a temporary file in the target's directory, is flushed and
fsync'ed, gets its permissions (the existing file's, or ``0o666`` minus the
umask for a new file, like any ordinary file), and then replaces the target
with ``os.replace``. On any failure the temporary file is removed and the
target is untouched.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Optional, Union


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write_bytes(path: Union[str, Path], data: bytes, mode: Optional[int] = None,
                       create_parents: bool = False) -> None:
    """Replace ``path`` with ``data`` atomically.

    ``mode`` defaults to the existing file's permission bits, else ``0o666 & ~umask``.
    ``create_parents`` creates missing parent directories (off by default, so a
    mistyped path is an error rather than a new directory tree).
    Raises ``OSError`` (the target is then unchanged).
    """
    path = Path(path)
    if create_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
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
                      create_parents: bool = False) -> None:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8 (no newline translation)."""
    atomic_write_bytes(path, text.encode("utf-8", "surrogateescape"), mode, create_parents)
