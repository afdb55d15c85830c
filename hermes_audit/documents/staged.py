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
    target stays inside the repository; a staged file below the target of a tracked link to a directory is
    added under its path through the link when that path has a name Hermes loads. Never raises."""
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
    links = _tracked_links(git_root)
    for rel in links:
        if classify(rel) is None:
            continue
        link = git_root / rel
        try:
            target = os.path.realpath(link)
        except (OSError, ValueError):
            continue
        if target in others and is_below(target, root_real):
            _add(kept, link, cwd)
    # a tracked link to a directory inside the repository (``.cursor -> cfg``): a staged file below its target
    # is read by Hermes through the link (``.cursor/rules/style.mdc``) when that path has a name Hermes loads
    for rel in links:
        link = git_root / rel
        try:
            target = os.path.realpath(link)
        except (OSError, ValueError):
            continue
        if not os.path.isdir(target) or not is_below(target, root_real) or target == root_real:
            continue
        prefix = target + os.sep
        for other in sorted(others):
            if other.startswith(prefix):
                through = link / os.path.relpath(other, target)
                if classify(through.as_posix()) is not None:
                    _add(kept, through, cwd)
    return kept


def _add(kept: list[Path], path: Path, cwd: Path) -> None:
    """Append ``path`` (relative to ``cwd`` when below it) unless it is there already."""
    try:
        shown = path.relative_to(cwd)
    except ValueError:
        shown = path
    if shown not in kept:
        kept.append(shown)
