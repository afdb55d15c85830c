"""The session directory of a scan and the subdirectory-hint reads that hang or escape: the parts of the
loading model that :mod:`hermes_audit.audits.loading` (the loading findings of ``hermes-audit scan``) adds
to the session-start and hint models.

``scan`` looks at files one by one; the loading findings add what depends on the whole
tree, from the loading simulation (:mod:`hermes_audit.hermes.context` for
session start, :mod:`hermes_audit.hermes.hints` for subdirectory hints), as
findings of the ``loading`` family (``rules/loading.yaml``): text past Hermes'
65,536-character scan window that it would still inject, sections cut by the
cap and the headings they lose, files shadowed or skipped that the user
probably expects to load, empty or undecodable files, chain duplicates, hint
files over the hint cap, and reads that hang Hermes.

The session directory is the scanned repository's root (the git root of the
first directory scanned, else that directory; for file arguments, the git root
of the first file), or the ``--cwd`` given. The cap is Hermes' 20,000-character
default unless a context length is given; text past the scan window is also
checked at the 500,000-character ceiling a large model window reaches. Subdirectory
hints are simulated in the worst case: every directory of the tree touched once.
Only findings on files inside the scanned paths are reported.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path
from typing import Optional, Sequence

from hermes_audit.documents.kinds import (
    FOLD_PLACES, DocumentKind, case_collisions, classify, exact_kind, hermes_label, same_folded,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ThreatScanner
from hermes_audit.documents.reader import is_real_dir
from hermes_audit.hermes.context import (
    FileEntry, LoadingIssue, R_CASE, R_ESCAPE, R_HANG, RealFS, UNPREDICTABLE, escape_message, find_git_root, link_place, safe_type, simulate_context,
)

#: The rule family of ``rules/loading.yaml``.
LOADING_FAMILY = "loading"


def _hermes_git_root(start: Path) -> Optional[Path]:
    root = find_git_root(RealFS(), os.path.realpath(start))
    return Path(root) if root else None


def session_directory(paths: Sequence[Path], cwd: Optional[Path] = None) -> Optional[Path]:
    """The session directory a scan of ``paths`` simulates (see the module docstring).

    Raises ``ValueError`` when an explicit ``cwd`` is not a directory.
    """
    if cwd is not None:
        if not Path(cwd).is_dir():
            raise ValueError(f"--cwd {cwd}: not a directory")
        return Path(os.path.realpath(cwd))
    if not paths:
        paths = [Path(".")]

    dirs = [Path(p) for p in paths if is_real_dir(Path(p))]
    if dirs:  # a directory that cannot be listed is not scanned (hermes_audit.audits.scan.collect_documents): no session there
        from hermes_audit.documents.discovery import unlistable  # issue 8: a scan of files never imports it

        dirs = [d for d in dirs if unlistable(d) is None]
    if dirs:
        d = Path(os.path.realpath(dirs[0]))
        return _hermes_git_root(d) or d
    first = Path(os.path.realpath(Path(paths[0]).absolute().parent))
    return _hermes_git_root(first) or first


def subdirectory_hang_issues(hints, fs, profile: VersionProfile, scanner: ThreatScanner, cap) -> list:
    """HA608 (``context-read-hangs``) issues for FIFOs and character devices below the session directory.

    As a subdirectory hint such a file is skipped (hermes-agent 0.19.0
    ``agent/subdirectory_hints.py`` checks ``is_file()`` first), but a session
    *started* in its directory reads it with a plain ``read_text()``
    (``agent/prompt_builder.py``) and never starts. Candidates are the hint-named
    special files the hint simulation ``hints`` saw and ``.cursor/rules/*.mdc``
    special files of the directories it visited; each candidate directory is then
    simulated as a session directory, so priority is exact (a ``.hermes.md`` or a
    non-empty ``AGENTS.md`` read first means no hang).
    """
    import posixpath

    dirs: list[str] = []
    for path in hints.special_files:
        d = posixpath.dirname(path)
        if d not in dirs:
            dirs.append(d)
    for d in hints.visited:
        if posixpath.basename(d) != "rules" or posixpath.basename(posixpath.dirname(d)) != ".cursor":
            continue
        try:
            names = fs.listdir(d)
        except OSError:
            continue
        if any(n.endswith(".mdc") and safe_type(fs, posixpath.join(d, n)) in ("fifo", "chardev") for n in names):
            top = posixpath.dirname(posixpath.dirname(d))
            if top not in dirs:
                dirs.append(top)
    out = []
    for d in dirs:
        if d == hints.working_dir:
            continue  # the session directory itself: the main simulation reports it
        try:
            rep = simulate_context(d, profile, scanner, cap, fs=fs)
        except (ValueError, OSError):
            continue
        e = rep.hang
        if e is None:
            continue
        where = posixpath.relpath(d, hints.working_dir)
        shown = posixpath.relpath(e.path, hints.working_dir)
        hint = "" if e.kind is DocumentKind.CURSOR_RULE else "; as a subdirectory hint of a session started higher up it is skipped (is_file() is False)"
        out.append(LoadingIssue(R_HANG, e, 0, 0,
                                f"{shown} is a {e.fs_type}: a session started in {where}/ makes {profile.label} open it "
                                f"with a plain read_text() and block forever; the agent never starts{hint}"))
    return out


def subdirectory_escape_issues(hints, fs, profile: VersionProfile, scanner: ThreatScanner, cap) -> list:
    """HA609 (``context-symlink-escape``) issues for hint files ``latest`` refused as subdirectory hints.

    Hermes ``latest`` (``agent/subdirectory_hints.py`` @ 0081f93d, ``_resolved_hint_target``) refuses a
    hint file whose symlink target leaves the working directory, but its context-file loader
    (``agent/prompt_builder.py``) follows the same link when a session is *started* in that file's
    directory and puts the target into the system prompt. Each directory of a refused link
    (``hints.refused_links``) is simulated as a session directory, so priority is exact (a regular
    ``.hermes.md`` or a non-empty ``AGENTS.md`` read first means the link is never reached); a link whose
    target stays inside the repository (a denied ``.env``-like file) gives nothing here. Hermes 0.19 follows
    such a hint outright: :func:`hermes_audit.hermes.hints.hint_issues` reports that.
    """
    import posixpath

    dirs: list[str] = []
    for path in hints.refused_links:
        d = posixpath.dirname(path)
        if d not in dirs and d != hints.working_dir:  # the session directory itself: the main simulation
            dirs.append(d)
    links = set(hints.refused_links)
    out = []
    for d in dirs:
        try:
            rep = simulate_context(d, profile, scanner, cap, fs=fs)
        except (ValueError, OSError):
            continue
        where = posixpath.relpath(d, hints.working_dir)
        for e in rep.entries:
            if e.path not in links or e.status != UNPREDICTABLE or not e.reached or "symlink" not in e.reason:
                continue
            shown = posixpath.relpath(e.path, hints.working_dir)
            out.append(LoadingIssue(R_ESCAPE, e, 0, 0,
                                    escape_message(e, rep.root, profile.label, f"{where}/", shown) + " (as a subdirectory "
                                    "hint of a session started higher up it is refused)"))
    return out


def _place_name(fs_or_place: str) -> str:
    """The place (``macOS``) of a file system of :data:`~hermes_audit.documents.kinds.FOLD_PLACES` (``apfs``)."""
    return dict(FOLD_PLACES).get(fs_or_place, fs_or_place)


def _outside(rel: str) -> bool:
    """Whether the relative path ``rel`` climbs out of the directory it is relative to."""
    return rel == ".." or rel.startswith("../")


def case_collision_issues(paths: Sequence[str], root: str, documents: Optional[dict] = None,
                          shown: Optional[dict] = None) -> list:
    """HA612 (``case-collision``) issues: one for each of ``paths`` (absolute, below ``root``) that differs only in
    case from another of them, where at least one has a name Hermes reads
    (:func:`~hermes_audit.documents.kinds.case_collisions`). Hermes opens fixed names (``cwd_path / "AGENTS.md"``,
    hermes-agent 0.19.0 ``agent/prompt_builder.py``); on a case-insensitive file system (macOS, Windows) a
    checkout keeps one file of the group and that open reads whichever is left, so which text loads is not the
    one a reviewer on Linux reads as ``AGENTS.md`` (round 8 of issue 18). ``documents`` maps a path to the
    :class:`~hermes_audit.documents.document.Document` the issue points into (default: one made for it).
    ``shown`` maps a path to the name the message gives it (a scanned file's path as the scan shows it); a path
    it does not map is named relative to ``root`` when below it, else by its absolute path (issue 18: a scan of
    ``/tmp/x/repo`` from elsewhere named ``../../../tmp/x/repo/AGENTS.md``)."""
    rels = {posixpath.relpath(p, root): p for p in paths}
    names = {rel: (shown or {}).get(p) or (rel if not _outside(rel) else p) for rel, p in rels.items()}
    out = []
    for rel, others in sorted(case_collisions(list(rels)).items()):
        path = rels[rel]
        kind = classify(rel) or next((classify(o) for o in others if classify(o) is not None), DocumentKind.GENERIC)
        name = posixpath.basename(rel)
        e = FileEntry("", name, path, rel, name, kind)
        if documents is not None and path in documents:
            e.document = documents[path]
        named = ", ".join(names.get(o, o) for o in others)
        exact = next((x for x in [rel, *others] if exact_kind(x) is not None), None)
        read = f"Hermes reads whichever is left as {hermes_label(exact, kind)}" if exact else \
            "Hermes reads whichever is left"
        places = [pl for pl, _ in FOLD_PLACES if any(_place_name(pl) in same_folded(rel, o) for o in others)]
        where = " and ".join(_place_name(pl) for pl in places)
        how = "differ only in case" if all(o.lower() == rel.lower() for o in others) else \
            "differ only in case or Unicode form"
        out.append(LoadingIssue(R_CASE, e, 0, 0,
                                f"{names[rel]} and {named} {how}: on {where} (case-insensitive file "
                                f"systems) one replaces the other in a checkout and {read}, not necessarily the "
                                "text reviewed on Linux; keep one"))
    return out


# ---------------------------------------------------------------------------------------------------
# The `loading-model` detector: loading rules on scenario documents (rule examples, tests)


