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


def _git_ls_files(repo_root: Path, args: list[str], warnings: Optional[list[str]] = None) -> Optional[list[str]]:
    """``git ls-files <args> -z`` in ``repo_root``: the NUL-separated names, ``None`` if git fails.

    Git's warnings (paths it could not read: too long, permission denied) are
    appended to ``warnings`` one per line.
    """
    try:
        import git  # gitpython
    except ImportError:  # pragma: no cover - hard dependency
        return None
    try:
        g = git.Git(str(repo_root))
        _status, out, err = g.execute(
            ["git", *SAFE_GIT_OPTIONS, "ls-files", *args, "-z"],
            stdout_as_string=False,
            with_extended_output=True,
            env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"},
            kill_after_timeout=120,
        )
    except Exception:
        return None
    if isinstance(out, str):  # pragma: no cover - defensive
        out = out.encode("utf-8", "surrogateescape")
    if warnings is not None and err:
        if isinstance(err, bytes):
            err = os.fsdecode(err)
        warnings.extend(line for line in err.splitlines() if line.startswith(("warning:", "error:")))
    return [os.fsdecode(b) for b in out.split(b"\0") if b][:MAX_LISTED_FILES]


def _git_list(repo_root: Path, warnings: Optional[list[str]] = None) -> Optional[list[str]]:
    """Paths (relative to ``repo_root``) that git tracks or would track; ``None`` if git fails."""
    return _git_ls_files(repo_root, ["--cached", "--others", "--exclude-standard"], warnings)


def _git_untracked_dirs(repo_root: Path) -> list[str]:
    """Untracked, not ignored directories (relative, ``/``-terminated), as ``git ls-files --directory``
    shows them: they may hold nothing git lists (a lone FIFO named ``AGENTS.md``)."""
    names = _git_ls_files(repo_root, ["--others", "--directory", "--exclude-standard"]) or []
    return [n for n in names if n.endswith("/")]


def _short(text: str, limit: int = 300) -> str:
    """``text`` cut in the middle to at most ``limit`` characters (long paths stay readable)."""
    return text if len(text) <= limit else text[: limit // 3] + "…" + text[-(2 * limit // 3):]


def _git_warning_note(git_root: Path, warnings: list[str]) -> str:
    """One note for git's warnings while listing (paths it could not read)."""
    first = _short(warnings[0].split(":", 1)[-1].strip())
    more = f" and {len(warnings) - 1} more" if len(warnings) > 1 else ""
    return (f"git could not read part of {git_root} ({first}{more}); files there were not scanned")


def _walk(root: Path, errors: Optional[list[str]] = None) -> Iterator[Path]:
    """Iterative walk (no recursion limit, no directory symlinks followed): every file, and every
    directory that has the name of a file Hermes reads.

    A directory that cannot be listed is skipped; ``errors`` gets one line for it.
    """
    stack = [root]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError as exc:
            if errors is not None:
                errors.append(f"cannot list directory {_short(str(d))}: {exc.strerror or exc}; "
                              "its files were not scanned")
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS:
                        stack.append(Path(e.path))
                    if classify(e.name) is not None or e.name.endswith(".mdc"):
                        yield Path(e.path)  # a directory named AGENTS.md: reported as not a regular file
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
            warnings: list[str] = []
            listed = _git_list(git_root, warnings)
            if listed is None:
                result.notes.append(
                    f"git could not list {git_root}; walked the tree without .gitignore"
                )
            else:
                if warnings:
                    result.notes.append(_git_warning_note(git_root, warnings))
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
        names = list(_walk(root, result.notes))
    else:
        untracked = [git_root / d for d in _git_untracked_dirs(git_root)] if result.git_root else []
        names.extend(_special_entries(names, root, untracked))
    for p in names:
        rel = _display(p, root)
        kind = classify(rel)
        if kind is None:
            continue
        try:
            os.lstat(p)
        except FileNotFoundError:
            continue  # tracked but deleted
        except OSError:
            pass  # path too long, permission denied...: the reader reports it as unreadable
        result.candidates.append(Candidate(p, _display(p, base), kind))
    result.candidates.sort(key=lambda c: c.display)
    return result


def _special_entries(listed: list[Path], root: Path, untracked_dirs: Optional[list[Path]] = None) -> list[Path]:
    """Non-regular entries with the names Hermes reads (FIFOs, sockets, devices, directories named
    ``AGENTS.md``, ``.cursor/rules/x.mdc``...).

    Git lists only regular files and symlinks, but such entries matter: Hermes
    0.19.0 blocks forever reading a FIFO named ``AGENTS.md``. Each directory
    that holds listed files is listed, and so is every directory below an
    untracked one (``untracked_dirs``: it may hold nothing git lists).
    """
    seen = set(listed)
    dirs = {p.parent for p in listed}
    dirs.add(root)
    for top in untracked_dirs or []:
        stack = [top]
        while stack and len(dirs) < MAX_LISTED_FILES:
            d = stack.pop()
            dirs.add(d)
            try:
                with os.scandir(d) as it:
                    stack.extend(Path(e.path) for e in it
                                 if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False))
            except OSError:
                continue
    extra: list[Path] = []
    for d in sorted(dirs):
        try:
            rel_dir = d.relative_to(root)
        except ValueError:
            continue
        try:
            with os.scandir(d) as it:
                entries = [(e.name, e.is_file(follow_symlinks=False) or e.is_symlink()) for e in it]
        except OSError:
            continue
        for name, regular_or_link in entries:
            if regular_or_link:
                continue
            p = d / name
            if p in seen or classify((rel_dir / name).as_posix()) is None:
                continue
            extra.append(p)
    return extra


def is_special(path: Path) -> bool:
    """True for FIFOs, sockets and devices (checked without opening)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))
