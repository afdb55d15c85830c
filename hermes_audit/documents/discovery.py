"""Finding the files Hermes may read in a tree.

In a git work tree the file list comes from git (through gitpython): tracked
files plus untracked ones that ``.gitignore`` does not exclude. Git is run
with options that keep a hostile repository's configuration from running
anything (no fsmonitor, no hooks; ``ls-files`` runs none anyway). Outside git,
or when git refuses the repository, the tree is walked without following
directory symlinks. ``.git`` and ``node_modules`` are never entered.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Optional

from hermes_audit.documents.kinds import DocumentKind, classify

#: Directory names never descended into.
SKIP_DIRS = frozenset({".git", "node_modules"})
#: Git options that neutralise repository configuration able to run programs.
SAFE_GIT_OPTIONS = (
    "-c", "core.fsmonitor=false",
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.untrackedCache=false",
    "-c", "protocol.ext.allow=never",
)
#: Upper bound on files listed from one tree (a hostile tree cannot exhaust memory).
MAX_LISTED_FILES = 2_000_000


@dataclass
class Candidate:
    """A file found in a tree: absolute path, display path and kind."""

    abs_path: Path
    display: str
    kind: DocumentKind


@dataclass
class DiscoveryResult:
    candidates: list[Candidate] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    git_root: Optional[Path] = None


def find_git_root(start: Path) -> Optional[Path]:
    """Nearest ancestor-or-self containing ``.git`` (file or directory), as Hermes does it."""
    current = start
    for parent in [current, *current.parents]:
        try:
            if os.path.lexists(parent / ".git"):
                return parent
        except OSError:
            continue
    return None


def _git_list(repo_root: Path) -> Optional[list[str]]:
    """Paths (relative to ``repo_root``) that git tracks or would track; ``None`` if git fails."""
    try:
        import git  # gitpython
    except ImportError:  # pragma: no cover - hard dependency
        return None
    try:
        g = git.Git(str(repo_root))
        out = g.execute(
            ["git", *SAFE_GIT_OPTIONS, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            stdout_as_string=False,
            with_extended_output=False,
            env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"},
            kill_after_timeout=120,
        )
    except Exception:
        return None
    if isinstance(out, str):  # pragma: no cover - defensive
        out = out.encode("utf-8", "surrogateescape")
    names = [os.fsdecode(b) for b in out.split(b"\0") if b]
    return names[:MAX_LISTED_FILES]


def _walk(root: Path) -> Iterator[Path]:
    """Iterative walk (no recursion limit, no directory symlinks followed)."""
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS:
                        stack.append(Path(e.path))
                else:
                    yield Path(e.path)
            except OSError:
                continue


def _display(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def discover(root: Path, base: Optional[Path] = None, use_git: bool = True) -> DiscoveryResult:
    """Every file under ``root`` whose name Hermes may read.

    ``base`` is what display paths are relative to (default ``root``).
    """
    root = root.absolute()
    base = base or root
    result = DiscoveryResult()
    names: Optional[list[Path]] = None
    if use_git:
        git_root = find_git_root(root.resolve())
        if git_root is not None:
            listed = _git_list(git_root)
            if listed is None:
                result.notes.append(
                    f"git could not list {git_root}; walked the tree without .gitignore"
                )
            else:
                result.git_root = git_root
                names = []
                real_root = root.resolve()
                for rel in listed:
                    p = git_root / rel
                    parts = Path(rel).parts
                    if any(part in SKIP_DIRS for part in parts):
                        continue
                    try:
                        p.relative_to(real_root)
                    except ValueError:
                        continue
                    # map back under the root the user gave (which may be a symlinked path)
                    names.append(root / p.relative_to(real_root))
    if names is None:
        names = list(_walk(root))
    else:
        names.extend(_special_entries(names, root))
    for p in names:
        rel = _display(p, root)
        kind = classify(rel)
        if kind is None:
            continue
        try:
            os.lstat(p)
        except OSError:
            continue  # tracked but deleted
        result.candidates.append(Candidate(p, _display(p, base), kind))
    result.candidates.sort(key=lambda c: c.display)
    return result


def _special_entries(listed: list[Path], root: Path) -> list[Path]:
    """Non-regular entries with context-file names (FIFOs, directories named ``AGENTS.md``...).

    Git lists only regular files and symlinks, but such entries matter: Hermes
    0.19.0 blocks forever reading a FIFO named ``AGENTS.md``. Each directory
    that holds listed files is probed for the exact names.
    """
    from hermes_audit.documents.kinds import NAME_KINDS

    seen = set(listed)
    dirs = {p.parent for p in listed}
    dirs.add(root)
    extra: list[Path] = []
    for d in sorted(dirs):
        for name in NAME_KINDS:
            p = d / name
            if p in seen:
                continue
            try:
                mode = os.lstat(p).st_mode
            except OSError:
                continue
            if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
                extra.append(p)
    return extra


def is_special(path: Path) -> bool:
    """True for FIFOs, sockets and devices (checked without opening)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))
