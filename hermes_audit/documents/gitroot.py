"""The repository a path belongs to, found the way Hermes finds it: the nearest ancestor-or-self that
holds ``.git``. Its own module so a scan of files (the pre-commit case) need not import the tree walk of
:mod:`hermes_audit.documents.discovery` (issue 8: start-up)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional


def find_git_root(start: Path) -> Optional[Path]:
    """Nearest ancestor-or-self of ``start`` containing ``.git`` (file or directory), or ``None``;
    a parent that cannot be checked (``OSError``) is skipped. ``start`` should be absolute."""
    current = start
    for parent in [current, *current.parents]:
        try:
            if os.path.lexists(parent / ".git"):
                return parent
        except OSError:
            continue
    return None
