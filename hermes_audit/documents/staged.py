"""Which of the files a pre-commit hook hands over are Hermes' to load (``scan --only-loaded``).

pre-commit passes every staged file (the hook has no ``files:`` filter), so that a commit which changes
only the target of a context file's symbolic link (``AGENTS.md -> notes/rules.txt``, then an edit of
``notes/rules.txt``) is still audited: Hermes reads the link, so it reads the new text (sixth red team,
issue 18). Kept are the named files whose name Hermes loads, plus every tracked symbolic link with such a
name whose target, resolved inside the repository, is one of the named files. Everything else is
dropped without a word. Nothing is run but ``git ls-files -s`` with the scan's safe options.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

from hermes_audit.documents.beneath import is_below
from hermes_audit.documents.discovery import GIT_TIMEOUT_S, SAFE_GIT_OPTIONS
from hermes_audit.documents.gitroot import find_git_root
from hermes_audit.documents.kinds import classify

#: ``git ls-files -s`` mode of a symbolic link.
_LINK_MODE = "120000"


def _tracked_links(git_root: Path) -> list[str]:
    """Repository-relative paths of the tracked symbolic links (``[]`` when git cannot list them)."""
    import subprocess

    try:
        proc = subprocess.run(["git", *SAFE_GIT_OPTIONS, "ls-files", "-s", "-z"], cwd=str(git_root),
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=GIT_TIMEOUT_S,
                              env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C"))
    except (OSError, subprocess.SubprocessError):
        return []
    if proc.returncode != 0:
        return []
    out = []
    for entry in proc.stdout.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        if path and meta.startswith(_LINK_MODE.encode()):
            out.append(os.fsdecode(path))
    return out


def loaded_files(paths: Sequence[Path], cwd: Optional[Path] = None) -> list[Path]:
    """The subset of ``paths`` (as given, relative to ``cwd``) that a scan should read, in their order,
    followed by the context-file links that point at one of the others (as paths relative to ``cwd`` when
    they lie below it). A path Hermes loads by name is kept whatever it is; a link is added only when its
    target stays inside the repository. Never raises."""
    cwd = (cwd or Path.cwd()).absolute()
    kept: list[Path] = []
    others: set[str] = set()
    for p in paths:
        absolute = p if p.is_absolute() else cwd / p
        if classify(absolute.as_posix()) is not None:
            kept.append(p)
        else:
            try:
                others.add(os.path.realpath(absolute))
            except (OSError, ValueError):
                continue
    if not others:
        return kept
    git_root = find_git_root(cwd.resolve())
    if git_root is None:
        return kept
    root_real = os.path.realpath(git_root)
    for rel in _tracked_links(git_root):
        if classify(rel) is None:
            continue
        link = git_root / rel
        try:
            target = os.path.realpath(link)
        except (OSError, ValueError):
            continue
        if target in others and is_below(target, root_real):
            try:
                shown = link.relative_to(cwd)
            except ValueError:
                shown = link
            if shown not in kept:
                kept.append(shown)
    return kept
