"""Finding the files Hermes may read in a tree.

In a git work tree the file list comes from git (``git ls-files``, run through
gitpython): tracked files plus untracked ones that the tree's own ``.gitignore``
files do not exclude (never ``.git/info/exclude`` or ``core.excludesFile``: a
prepared tree controls both, issue 18 M1). Git is run with options that keep a
hostile repository's configuration from running anything (no fsmonitor, no
hooks; ``ls-files`` runs none anyway), and a listing that blocks opening a FIFO
(a ``.gitignore`` that is a named pipe) is killed at once (issue 18 H6).
Outside git, or when git refuses the repository, the tree is walked.
``.git`` and ``node_modules`` are never entered.

Issue 18 (red team): what git does not list but Hermes reads is added. Checked-out
submodules and nested repositories (git lists only their directory) are walked
(H3). Directory symbolic links whose target stays inside the tree (and outside
``.git``) are followed, as Hermes follows them: the files below are named by the
path through the link (``.cursor/rules/style.mdc`` for ``.cursor -> cfg``), a file
already found under its own path is not listed again, and chains and loops are
bounded (:data:`MAX_LINK_DEPTH`, :data:`MAX_LINK_ENTRIES`) (H1). A link out of the
tree is never followed.

Round 8: a directory git lists as an entry of its own (a gitlink) is walked whether or not it holds a
``.git`` (a prepared index puts a gitlink over a plain ``.cursor``), and so is a root at or below one; names
that match a Hermes name only when case is ignored (``Agents.md``, ``.Cursor/Rules/x.mdc``) are candidates
(:func:`~hermes_audit.documents.kinds.classify`): a case-insensitive file system loads them.

Issue 8 (a 50,000-file repository): listed paths are handled as strings and
only those whose base name may be a context file
(:func:`~hermes_audit.documents.kinds.may_classify`) become ``Path`` objects
and get the full checks; directories are listed once each, for the
non-regular entries git does not list (FIFOs, directories named ``AGENTS.md``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence

from hermes_audit.documents.beneath import is_below
from hermes_audit.documents.gitroot import find_git_root
from hermes_audit.documents.kinds import (CANDIDATE_NAMES, FOLDED_NAMES, NAME_KINDS, DocumentKind, classify, may_classify,
                                          may_fold)

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
#: Seconds after which a ``git ls-files`` run is killed (and the tree walked instead). The listing is linear in
#: the files (about 4 microseconds each: 50,002 files in about 215 ms, docs/performance.md), so the
#: :data:`MAX_LISTED_FILES` cap lists in well under 10 s; 30 s leaves room for a cold disk cache. A listing
#: blocked on a FIFO ends sooner (:func:`_blocked_on_fifo`).
GIT_TIMEOUT_S = 30
#: Seconds between checks that a running listing is not blocked opening a FIFO.
GIT_POLL_S = 0.1
#: Longest chain of directory links followed one inside another (``a -> b`` whose target holds ``c -> d``...).
MAX_LINK_DEPTH = 8
#: Directory entries read at most through directory links, in all (link loops re-reach the same tree).
MAX_LINK_ENTRIES = 200_000
#: Directory names on which a file's kind depends (``.cursor/rules/*.mdc``, ``memories/USER.md``).
_KIND_DIRS = frozenset({".cursor", "rules", "memories"})


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
    #: why the listing may have missed files Hermes reads (a bound on following links): the run is incomplete
    incomplete: list[str] = field(default_factory=list)


#: ``git ls-files`` arguments: every path git tracks or would track.
#: Exclusions come only from the tree's ``.gitignore`` files: ``--exclude-standard`` would add ``.git/info/exclude``
#: and ``core.excludesFile``, which a prepared tree sets to hide its payload (issue 18 M1).
_EXCLUDES = "--exclude-per-directory=.gitignore"
_LIST_ARGS = ("--cached", "--others", _EXCLUDES)
#: ``git ls-files`` arguments: untracked, not ignored directories shown as ``dir/``.
_UNTRACKED_DIR_ARGS = ("--others", "--directory", _EXCLUDES)
#: ``git ls-files`` arguments: files ``.gitignore`` hides whose names Hermes loads as context (a local session
#: still reads them, as project context or subdirectory hints; issue 22 QA: a poisoned, ignored
#: ``.devcontainer/AGENTS.md`` went unmentioned). Only names are listed (pathspecs), never contents.
_IGNORED_CONTEXT_ARGS = ("--others", "--ignored", _EXCLUDES, "--",
                         *(f":(glob)**/{n}" for n in sorted(NAME_KINDS) if NAME_KINDS[n].value != "distribution"),
                         ":(glob)**/.cursor/rules/*.mdc")
#: Seconds the scan waits for that listing after its own (it only feeds a note; a huge ignored tree is let go).
IGNORED_LIST_WAIT_S = 3.0


def _git_start(repo_root: Path, args: Sequence[str]) -> Any:
    """Start ``git ls-files <args> -z`` in ``repo_root`` through gitpython (its process handle, whose
    ``proc`` is the ``subprocess.Popen``), or ``None`` if it cannot.

    gitpython adds ``LC_ALL=C`` and ``LANGUAGE=C`` and gives git ``/dev/null`` as
    stdin; we add no system configuration and no terminal prompt. gitpython is
    imported here, not at start-up: importing it runs ``git version``, which a
    scan of named files does not need (issue 8).
    """
    try:
        import git  # gitpython
    except ImportError:  # pragma: no cover - hard dependency
        return None
    try:
        return git.Git(str(repo_root)).execute(
            ["git", *SAFE_GIT_OPTIONS, "ls-files", "-z", *args], as_process=True, stdout_as_string=False,
            env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"})
    except Exception:  # no git executable, bad directory (gitpython raises its own errors)
        return None


def _git_finish(handle: Any, warnings: Optional[list[str]] = None,
                failure: Optional[list[str]] = None, timeout: float = GIT_TIMEOUT_S) -> Optional[list[str]]:
    """The NUL-separated names a :func:`_git_start` process printed, ``None`` if git failed, took more
    than ``timeout`` seconds (default :data:`GIT_TIMEOUT_S`) or blocked opening a FIFO (it is then killed).

    Git's warnings (paths it could not read: too long, permission denied) are
    appended to ``warnings`` one per line; when git fails, its first ``fatal:``/``error:`` line (or
    the first line of its stderr) is appended to ``failure``, as is the reason it was killed.
    Every :data:`GIT_POLL_S` seconds the process is checked (:func:`_blocked_on_fifo`): a FIFO named
    ``.gitignore`` anywhere in the tree makes git's ``open`` wait for a writer forever (issue 18 H6).
    """
    import subprocess
    import time

    if handle is None:
        return None
    proc = handle.proc  # the subprocess.Popen inside gitpython's handle
    deadline = time.monotonic() + timeout
    blocked = 0
    while True:
        left = deadline - time.monotonic()
        try:
            # communicate() keeps what it read when it times out: calling it again loses no output
            out, err = proc.communicate(timeout=max(0.0, min(GIT_POLL_S, left)))
            break
        except subprocess.TimeoutExpired:
            pass
        except (OSError, ValueError):
            _git_abandon(handle)
            return None
        blocked = blocked + 1 if _blocked_on_fifo(proc.pid) else 0
        if blocked >= 2 or left <= 0:  # twice in a row: not a FIFO opened between two reads
            _git_abandon(handle)
            if failure is not None:
                failure.append("git blocked opening a FIFO (named pipe) in the tree, such as a .gitignore"
                               if blocked >= 2 else f"git took more than {timeout:g} s")
            return None
    if proc.returncode != 0:
        if failure is not None and err:
            lines = [ln.strip() for ln in os.fsdecode(err).splitlines() if ln.strip()]
            reason = next((ln for ln in lines if ln.startswith(("fatal:", "error:"))), lines[0] if lines else "")
            if reason:
                failure.append(_short(reason, 200))
        return None
    if warnings is not None and err:
        warnings.extend(line for line in os.fsdecode(err).splitlines() if line.startswith(("warning:", "error:")))
    return [os.fsdecode(b) for b in out.split(b"\0") if b][:MAX_LISTED_FILES]


def _blocked_on_fifo(pid: int) -> bool:
    """True when process ``pid`` waits in the kernel for the other end of a FIFO it is opening (Linux:
    ``/proc/<pid>/wchan`` is ``wait_for_partner``, ``fs/pipe.c``'s ``fifo_open``). False where that cannot be
    read (another OS, a kernel without ``wchan``): only :data:`GIT_TIMEOUT_S` then ends such a listing."""
    try:
        with open(f"/proc/{pid}/wchan", "rb") as fh:
            return fh.read(64).strip() == b"wait_for_partner"
    except OSError:
        return False


def _git_abandon(handle: Any) -> None:
    """Kill a :func:`_git_start` process whose output is not needed, and reap it."""
    if handle is None:
        return
    proc = handle.proc
    try:
        proc.kill()
        proc.communicate()
    except (OSError, ValueError):  # pragma: no cover - already gone
        pass


def _git_ls_files(repo_root: Path, args: Sequence[str], warnings: Optional[list[str]] = None,
                  failure: Optional[list[str]] = None) -> Optional[list[str]]:
    """``git ls-files <args> -z`` in ``repo_root``: the NUL-separated names, ``None`` if git fails.

    Git's warnings (paths it could not read: too long, permission denied) are
    appended to ``warnings`` one per line.
    """
    return _git_finish(_git_start(repo_root, args), warnings, failure)


def _git_list(repo_root: Path, warnings: Optional[list[str]] = None,
              failure: Optional[list[str]] = None) -> Optional[list[str]]:
    """Paths (relative to ``repo_root``) that git tracks or would track; ``None`` if git fails (its reason
    then in ``failure``, see :func:`_git_finish`)."""
    return _git_ls_files(repo_root, _LIST_ARGS, warnings, failure)


def _git_untracked_dirs(repo_root: Path, started: Any = None) -> list[str]:
    """Untracked, not ignored directories (relative, ``/``-terminated), as ``git ls-files --directory``
    shows them: they may hold nothing git lists (a lone FIFO named ``AGENTS.md``). ``started``: the
    :func:`_git_start` process for :data:`_UNTRACKED_DIR_ARGS`, when it was started earlier."""
    proc = started if started is not None else _git_start(repo_root, _UNTRACKED_DIR_ARGS)
    names = _git_finish(proc) or []
    return [n for n in names if n.endswith("/")]


def _short(text: str, limit: int = 300) -> str:
    """``text`` cut in the middle to at most ``limit`` characters (long paths stay readable)."""
    return text if len(text) <= limit else text[: limit // 3] + "…" + text[-(2 * limit // 3):]


def _git_warning_note(git_root: Path, warnings: list[str]) -> str:
    """One note for git's warnings while listing (paths it could not read)."""
    first = _short(warnings[0].split(":", 1)[-1].strip())
    more = f" and {len(warnings) - 1} more" if len(warnings) > 1 else ""
    return (f"git could not read part of {git_root} ({first}{more}); files there were not scanned")


def unlistable(directory: Path) -> Optional[str]:
    """The OS reason (``"Permission denied"``) why ``directory`` cannot be listed, ``None`` when it can.

    The directory is opened and its first entry read, nothing more: a directory the user may not read or
    enter (mode ``000``, or inside one) yields its reason here instead of a scan that quietly finds nothing.
    """
    try:
        with os.scandir(directory) as it:
            next(it, None)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _walk(root: Path, errors: Optional[list[str]] = None, links: Optional[list[str]] = None,
          budget: Optional[list[int]] = None) -> Iterator[Path]:
    """Iterative walk (no recursion limit, no directory symlinks followed): every file, and every
    directory that has the name of a file Hermes reads.

    A directory that cannot be listed is skipped; ``errors`` gets one line for it. ``links`` (when given)
    gets the path of every symbolic link met that is not itself a candidate name (a directory link for
    :func:`_through_links` to follow). ``budget`` (a one-item list) is decreased by the entries read; the
    walk stops when it reaches 0.
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
        if budget is not None:
            budget[0] -= len(entries)
            if budget[0] < 0:
                return
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS:
                        stack.append(Path(e.path))
                    if classify(e.name) is not None or may_fold(e.name):
                        yield Path(e.path)  # a directory named AGENTS.md: reported as not a regular file
                elif may_classify(e.name):  # any other file is never a candidate (issue 8)
                    yield Path(e.path)
                elif links is not None and e.is_symlink():
                    links.append(e.path)
            except OSError:
                continue


def _link_context(path: str) -> tuple[str, ...]:
    """The last two directory names of ``path`` that a file's kind below it may depend on (:data:`_KIND_DIRS`),
    others as ``""``: two links to one target with the same context reach the same candidates."""
    return tuple(c.lower() if c.lower() in _KIND_DIRS else "" for c in path.rsplit("/", 2)[-2:])


def _through_links(links: Sequence[str], root: Path, notes: list[str],
                   incomplete: Optional[list[str]] = None) -> list[Path]:
    """The candidates reached through directory symbolic links inside ``root`` (issue 18 H1), named by the
    path through the link (``root/.cursor/rules/x.mdc`` for ``.cursor -> cfg``), as Hermes names them:
    hermes-agent 0.19.0 ``agent/prompt_builder.py`` ``_load_cursorrules`` globs ``cwd/.cursor/rules/*.mdc``
    through links and heads each ``## .cursor/rules/<name>``; ``agent/subdirectory_hints.py`` resolves a
    touched path and loads hints from any directory below the working directory, so a linked directory is
    one a session can enter. Returns absolute ``Path`` s (unsorted, may repeat a resolved file).

    ``links`` are absolute paths (strings, below ``root`` as given) of symbolic links found while listing.
    A link is followed only when its target (fully resolved) is a directory below the resolved root and
    outside any ``.git`` directory; links out of the tree, dangling links and loops are left alone (a link
    out is reported where it is a candidate itself, as before). Links met below a followed target are
    followed in turn, up to :data:`MAX_LINK_DEPTH` deep; a target is walked once per
    :func:`_link_context`, and at most :data:`MAX_LINK_ENTRIES` entries are read in all (a note says
    when either bound stopped the walk). Nothing outside ``root`` is listed; the files found are read
    later through :func:`~hermes_audit.documents.reader.read_file`, which opens them from ``root`` down.
    """
    root_real = os.path.realpath(root)
    budget = [MAX_LINK_ENTRIES]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out: list[Path] = []
    queue = [(link, 1) for link in sorted(links)]
    deep = False
    i = 0
    while i < len(queue):
        link, depth = queue[i]
        i += 1
        try:
            target = os.path.realpath(link)
            if not is_below(target, root_real) or ".git" in target[len(root_real):].split(os.sep):
                continue
            if not stat.S_ISDIR(os.stat(target).st_mode):  # stat never opens: safe on a FIFO
                continue
        except (OSError, ValueError):  # dangling, a loop (ELOOP), a name too long
            continue
        key = (target, _link_context(link))
        if key in seen:
            continue
        seen.add(key)
        if depth > MAX_LINK_DEPTH:
            deep = True
            continue
        found: list[str] = []
        cut = len(target)
        for p in _walk(Path(target), None, found, budget):
            out.append(Path(link + str(p)[cut:]))
        queue.extend((link + f[cut:], depth + 1) for f in sorted(found))
        if budget[0] < 0:
            why = (f"stopped following directory links after {MAX_LINK_ENTRIES:,} entries; files reached "
                   "only through further links were not scanned")
            # a bound is a gap, never a pass (seventh red team: padding links hid a linked .cursor/rules)
            (incomplete if incomplete is not None else notes).append(why)
            return out
    if deep:
        why = f"directory links nested more than {MAX_LINK_DEPTH} deep were not followed"
        (incomplete if incomplete is not None else notes).append(why)
    return out


def _display(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def _classify(path: Path, root: Path) -> Optional[DocumentKind]:
    """The kind of ``path`` by its place under the scanned ``root``; a ``*.mdc`` file whose own directories are
    ``.cursor/rules`` is a Cursor rule even when ``root`` is ``.cursor`` or ``.cursor/rules`` itself (then
    its path below ``root`` no longer shows them), and a ``USER.md`` in a ``memories`` directory is the user
    store also when ``root`` is that directory (``scan ~/.hermes/memories``)."""
    kind = classify(_display(path, root))
    if kind is None and (may_fold(path.name)):
        kind = classify(Path(os.path.abspath(path)).as_posix())
    return kind


def discover(root: Path, base: Optional[Path] = None, use_git: bool = True) -> DiscoveryResult:
    """Every file under ``root`` whose name Hermes may read, as :class:`Candidate` s sorted by display path.

    ``base`` is what display paths are relative to (default ``root``). In a git work tree (``use_git``) git
    lists the files (``.gitignore`` applies); submodules and nested repositories are walked, and directory
    links inside the tree followed (see the module docstring). Never raises for what the tree holds:
    problems become ``notes`` (one line each).
    """
    root = root.absolute()
    base = base or root
    result = DiscoveryResult()
    names: Optional[list[Path]] = None
    pending = None
    ignored_names: Optional[list[str]] = None
    if use_git:
        git_root = find_git_root(root.resolve())
        if git_root is not None:
            warnings: list[str] = []
            # both listings run at once: the untracked directories are read after the main list (issue 8)
            pending = _git_start(git_root, _UNTRACKED_DIR_ARGS)
            ignored = _git_start(git_root, _IGNORED_CONTEXT_ARGS)
            failure: list[str] = []
            listed = _git_list(git_root, warnings, failure)
            if listed is not None:
                ignored_names = _git_finish(ignored, timeout=IGNORED_LIST_WAIT_S)
            else:
                _git_abandon(ignored)
            if listed is None:
                _git_abandon(pending)
                why = f" ({failure[0]})" if failure else ""
                result.notes.append(
                    f"git could not list {git_root}{why}; walked the tree without .gitignore"
                )
            elif _in_gitlink(listed, root, git_root):
                # git lists nothing below a gitlink: the directory is walked as a submodule is (round 8)
                _git_abandon(pending)
                ignored_names = None
                result.git_root = git_root
            else:
                if warnings:
                    result.notes.append(_git_warning_note(git_root, warnings))
                result.git_root = git_root
                nested: list[str] = []
                names, dirs = _git_names(listed, root, git_root, nested)
    links: list[str] = []
    if names is None:
        names = list(_walk(root, result.notes, links))
    else:
        untracked = [os.path.join(str(git_root), d) for d in _git_untracked_dirs(git_root, pending)]
        found_links: list[str] = []
        repos: list[str] = []
        names.extend(_special_entries(names, dirs, root, untracked, found_links, repos))
        kept = _git_listed(found_links + repos, listed, root, git_root)
        links.extend(p for p in found_links if p in kept)  # a link .gitignore hides is not followed
        root_real = os.path.realpath(root)
        gitlinks = {p for p in repos if p in kept}
        for top in sorted(set(nested) | gitlinks):
            # a submodule or nested repository: git lists only its directory; walk it (issue 18 H3). A gitlink
            # over a plain directory (no .git: `git update-index --cacheinfo 160000,<sha>,.cursor` in a prepared
            # index) is walked too: Hermes reads the directory whatever the index says (round 8)
            try:
                if not (stat.S_ISDIR(os.lstat(top).st_mode) and is_below(os.path.realpath(top), root_real)
                        and (top in gitlinks or os.path.lexists(os.path.join(top, ".git")))):
                    continue
            except (OSError, ValueError):
                continue
            names.extend(_walk(Path(top), result.notes, links))
    taken: set[Path] = set()
    for p in names:
        kind = _classify(p, root)
        if kind is None or p in taken:  # a special entry of a nested repository is also in its walk
            continue
        taken.add(p)
        try:
            os.lstat(p)
        except FileNotFoundError:
            continue  # tracked but deleted
        except OSError:
            pass  # path too long, permission denied...: the reader reports it as unreadable
        result.candidates.append(Candidate(p, _display(p, base), kind))
    linked = bool(links) and _add_linked(result, _through_links(links, root, result.notes, result.incomplete),
                                         root, base)
    if ignored_names:
        # a file reached through a directory link is scanned under that name: not "not scanned" (issue 18 H1)
        scanned = {os.path.realpath(c.abs_path) for c in result.candidates} if linked else set()
        note = _ignored_context_note(ignored_names, root, git_root, base, scanned)
        if note:
            result.notes.insert(0, note)
    result.candidates.sort(key=lambda c: c.display)
    return result


def _in_gitlink(listed: list[str], root: Path, git_root: Path) -> bool:
    """True when ``root`` is, or lies below, a path git lists as an entry of its own (``listed``: relative to
    ``git_root``): a gitlink, in which git lists nothing. ``scan sub`` (or the hook naming a staged ``sub``) with
    ``sub`` a gitlink a prepared index put over a plain directory found nothing (round 8 of issue 18)."""
    try:
        rel = root.resolve().relative_to(git_root).as_posix()
    except ValueError:
        return False
    if rel == ".":
        return False
    parts = rel.split("/")
    ancestors = {"/".join(parts[: i + 1]) for i in range(len(parts))}
    return any(name in ancestors for name in listed)


def _git_listed(paths: Sequence[str], listed: list[str], root: Path, git_root: Path) -> set[str]:
    """Those of ``paths`` (absolute strings below ``root`` as given) that git listed (``listed``: relative to
    ``git_root``); the set of git's paths is built only when there is something to look up."""
    if not paths:
        return set()
    sub = root.resolve().relative_to(git_root).as_posix()
    prefix = "" if sub == "." else sub + "/"
    cut = len(str(root).rstrip("/")) + 1
    have = set(listed)
    return {p for p in paths if prefix + p[cut:] in have}


def _add_linked(result: DiscoveryResult, linked: list[Path], root: Path, base: Path) -> bool:
    """Add to ``result`` the candidates found through directory links (:func:`_through_links`), except a file
    already listed with the same kind under its own path or through another link (compared by resolved path):
    a session reaches it either way, and it is scanned once. True when any was added."""
    before = len(result.candidates)
    seen = set()
    for c in result.candidates:
        try:
            seen.add((os.path.realpath(c.abs_path), c.kind))
        except (OSError, ValueError):
            continue
    for p in linked:
        kind = _classify(p, root)
        if kind is None:
            continue
        try:
            key = (os.path.realpath(p), kind)
        except (OSError, ValueError):
            continue
        if key in seen:
            continue
        seen.add(key)
        result.candidates.append(Candidate(p, _display(p, base), kind))
    return len(result.candidates) > before


def _ignored_context_note(ignored: Optional[list[str]], root: Path, git_root: Path, base: Path,
                          scanned: frozenset[str] | set[str] = frozenset()) -> str:
    """A note naming the context files under ``root`` that ``.gitignore`` hides from the scan (``""`` for
    none): Hermes does not read .gitignore, so a local session still loads them. Paths in ``.git`` or
    ``node_modules`` are left out, as in the scan itself, and so are files whose resolved path is in
    ``scanned`` (reached through a directory link, hence scanned under another name)."""
    if not ignored:
        return ""
    sub = root.resolve().relative_to(git_root).as_posix()
    prefix = "" if sub == "." else sub + "/"
    found = []
    for rel in ignored:
        if prefix and not rel.startswith(prefix):
            continue
        if any(part in SKIP_DIRS for part in Path(rel).parts) or classify(rel) is None:
            continue
        if scanned and os.path.realpath(git_root / rel) in scanned:
            continue
        found.append(_display(git_root / rel, base))
    if not found:
        return ""
    shown = ", ".join(_short(str(p), 120) for p in sorted(found)[:3]) + (", ..." if len(found) > 3 else "")
    return (f"{len(found)} file{'s' if len(found) != 1 else ''} with a name Hermes loads "
            f"{'are' if len(found) != 1 else 'is'} ignored by .gitignore and not scanned ({shown}); a local "
            f"session still reads {'them' if len(found) != 1 else 'it'}: name {'them' if len(found) != 1 else 'it'} "
            f"or scan with --no-git")


def _git_names(listed: list[str], root: Path, git_root: Path,
               nested: Optional[list[str]] = None) -> tuple[list[Path], set[str]]:
    """From git's paths (relative to ``git_root``): the paths under ``root`` that may be context files
    (mapped back under ``root`` as the user gave it, which may be a symlinked path), and the directories
    (absolute, as strings) that hold any listed path under ``root``. ``nested`` (when given) gets the
    absolute paths of the nested repositories git shows as ``dir/`` (it lists nothing inside them).

    Paths inside ``.git`` or ``node_modules`` are dropped. Only paths that pass
    :func:`~hermes_audit.documents.kinds.may_classify` become ``Path`` objects;
    the rest cost a few string operations each (issue 8).
    """
    sub = root.resolve().relative_to(git_root).as_posix()
    prefix = "" if sub == "." else sub + "/"
    root_s = str(root)
    base = root_s.rstrip("/")  # "" for the file system root
    names: list[Path] = []
    dirs: set[str] = set()
    for rel in listed:
        if prefix:
            if not rel.startswith(prefix):
                continue
            rest = rel[len(prefix):]
        else:
            rest = rel
        if (".git" in rel or "node_modules" in rel) and any(part in SKIP_DIRS for part in Path(rel).parts):
            continue
        if "//" in rest or "/./" in rest or rest.startswith("./") or rest.endswith(("/", "/.")) or rest in ("", "."):
            p = root / rest  # unusual spelling: let pathlib normalise it exactly as before
            dirs.add(str(p.parent))
            if rest.endswith("/") and nested is not None:
                nested.append(str(p))  # `git ls-files --others` shows a nested repository as `dir/` (issue 18 H3)
            if may_classify(rest):
                names.append(p)
            continue
        cut = rest.rfind("/")
        dirs.add(root_s if cut < 0 else base + "/" + rest[:cut])
        name = rest[cut + 1:]
        # may_classify(rest), with its common cases inline (this loop sees every listed path)
        if name in CANDIDATE_NAMES or name.endswith(".mdc") or (low := name.lower()) in FOLDED_NAMES \
                or low.endswith(".mdc") or ("\\" in name and may_classify(name)) \
                or ((not name.isascii() or name.endswith((".", " "))) and may_fold(name)):  # Agents.md, AGENTſ.md
            names.append(root / rest)
    return names, dirs


def _special_entries(listed: list[Path], dirs: set[str], root: Path, untracked_dirs: Optional[list[str]] = None,
                     links: Optional[list[str]] = None, repos: Optional[list[str]] = None) -> list[Path]:
    """Non-regular entries with the names Hermes reads (FIFOs, sockets, devices, directories named
    ``AGENTS.md``, ``.cursor/rules/x.mdc``...).

    Git lists only regular files and symlinks, but such entries matter: Hermes
    0.19.0 blocks forever reading a FIFO named ``AGENTS.md``. Each directory
    in ``dirs`` (absolute paths of the directories that hold listed files) is
    listed, and so are ``root`` and every directory below an untracked one
    (``untracked_dirs``: it may hold nothing git lists). Directories outside
    ``root`` are not, nor one that resolves outside it (a tracked directory replaced by a symbolic link
    out of the tree). ``listed`` are the paths already found (not reported again).

    The same pass collects, when given, into ``links`` the symbolic links in those directories (absolute
    paths; whether git lists them is the caller's check), and into ``repos`` the directories in which git lists
    nothing (the caller keeps those git lists as an entry of their own: a gitlink, that is a checked-out
    submodule (issue 18 H3) or a gitlink a prepared index puts over a plain directory (round 8)).
    """
    seen = set(listed)
    dirs = set(dirs)
    root_s = str(root)
    dirs.add(root_s)
    for top in untracked_dirs or []:
        stack = [str(Path(top))]
        while stack and len(dirs) < MAX_LISTED_FILES:
            d = stack.pop()
            dirs.add(d)
            try:
                with os.scandir(d) as it:
                    stack.extend(e.path for e in it if e.name not in SKIP_DIRS and e.is_dir(follow_symlinks=False))
            except OSError:
                continue
    extra: list[Path] = []
    inside = root_s.rstrip("/") + "/"
    root_real = os.path.realpath(root_s)
    for d in dirs:
        if d != root_s and not d.startswith(inside):
            continue  # outside the scanned root
        try:
            real = os.path.realpath(d)
        except OSError:  # a component changed between lstat and readlink (a link swapped for a directory)
            continue
        if not is_below(real, root_real):
            continue  # a directory git lists that is now a symbolic link out of the root: never listed (issue 18)
        entries = []
        try:
            with os.scandir(d) as it:
                # only names Hermes may read are looked at further (issue 8); of the rest, links and directories
                for e in it:
                    n = e.name
                    if n in CANDIDATE_NAMES or n.endswith(".mdc") or may_classify(n):
                        entries.append((n, e.is_file(follow_symlinks=False) or e.is_symlink()))
                    elif e.is_file(follow_symlinks=False):
                        continue
                    elif e.is_symlink():
                        if links is not None:
                            links.append(e.path)
                    elif repos is not None and n not in SKIP_DIRS and e.is_dir(follow_symlinks=False):
                        sub = e.path
                        if sub not in dirs:  # git lists nothing in it: whether it lists the directory, the caller checks
                            repos.append(sub)
        except OSError:
            continue
        for name, regular_or_link in entries:
            if regular_or_link:
                continue
            p = Path(d) / name
            if p in seen or _classify(p, root) is None:
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
