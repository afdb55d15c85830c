"""Where a scanned file lies relative to the repository root.

The reporters place findings by it (SARIF URIs, GitHub annotations), and the scan and baselines identify a
finding by it (fingerprints, baseline paths), so the same file has the same identity whichever directory the
scan runs from (``scan ..`` from a subdirectory shows ``../AGENTS.md`` and fingerprints ``AGENTS.md``).
Plain path work: it reads no file but asks whether one is a regular file, to use a symbolic link's target.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Optional


def _is_within(p: Path, root: Path) -> Optional[str]:
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return None


def repo_relative(display: str, abs_path: Optional[Path], root: Optional[Path]) -> tuple[str, bool]:
    """``(path, relative)``: the path relative to ``root`` when the file lies inside it
    (its symlink-resolved target when that is a regular file inside too: where the text lies; a link to a
    directory, a FIFO or a loop keeps its own path, since nothing was read from its target), else the display
    path (``relative`` False when that is absolute). An absolute display path stands for the file when
    ``abs_path`` is ``None`` (a file the session simulation named that the scan itself did not read)."""
    if abs_path is None and display.startswith("/"):
        abs_path = Path(display)
    if root is not None and abs_path is not None:
        r = Path(os.path.abspath(root))
        a = Path(os.path.abspath(abs_path))
        rel = None
        try:
            if os.path.isfile(a):  # follows links; False for a directory, a special file, a loop or an error
                resolved = Path(os.path.realpath(a))
                rel = _is_within(resolved, Path(os.path.realpath(r)))
        except (OSError, ValueError):
            rel = None
        if rel is None:
            rel = _is_within(a, r)
        if rel is not None and rel != ".":
            return rel, True
    return display, not display.startswith("/")


@functools.lru_cache(maxsize=4096)
def _real_directory(directory: str) -> str:
    return os.path.realpath(directory)


def file_key(path) -> str:
    """One string per file for comparing paths given in different forms (``../AGENTS.md``, an absolute path,
    through a symlinked directory): absolute, with its directories resolved (cached per directory, so a tree
    of thousands of files costs a ``realpath`` per directory) and the file itself not (a symbolic link is
    its own file)."""
    p = os.path.abspath(path)
    return os.path.join(_real_directory(os.path.dirname(p)), os.path.basename(p))


def repository_path(display: str, abs_path: Optional[Path], root: Optional[Path]) -> str:
    """The path that identifies a file in fingerprints and baselines: ``/``-separated, relative to ``root`` when
    the file lies inside it, else ``display``; ``display`` too when ``root`` is ``None``. Compared as
    :func:`file_key` (a symlinked working directory or root changes nothing). ``abs_path`` ``None``:
    ``display`` is the path."""
    if root is None:
        return display
    rel = os.path.relpath(file_key(abs_path if abs_path is not None else display),
                          _real_directory(os.path.abspath(root)))
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep):
        return display
    return rel.replace(os.sep, "/")
