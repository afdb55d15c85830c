"""Loading findings for ``hermes-audit scan``: what Hermes does with the files of the session directory.

``scan`` looks at files one by one; this module adds what depends on the whole
tree, from the loading simulation (:mod:`hermes_audit.hermes.context` for
session start, :mod:`hermes_audit.hermes.hints` for subdirectory hints,
:mod:`hermes_audit.hermes.loading` for the session directory and the hint
reads), as findings of the ``loading`` family (``rules/loading.yaml``): text past Hermes'
65,536-character scan window that it would still inject, sections cut by the
cap and the headings they lose, files shadowed or skipped that the user
probably expects to load, empty or undecodable files, chain duplicates, hint
files over the hint cap, and reads that hang Hermes. The model gives the
issues (facts); this module turns them into findings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from hermes_audit.audits.detectors import AuditEngine
from hermes_audit.documents.document import Document
from hermes_audit.documents.reader import ReadResult, ReadStatus, is_real_dir
from hermes_audit.engine.finding import make_finding
from hermes_audit.findings import Finding
from hermes_audit.hermes.context import (
    CEILING_CAP, SHADOWED, FileEntry, LoadingIssue, RealFS, entry_document, loading_issues, simulate_context,
)
from hermes_audit.hermes.hints import REFUSED_LINK_NOTE, hint_issues, simulate_hints
from hermes_audit.hermes.loading import (
    LOADING_FAMILY, session_directory, subdirectory_escape_issues, subdirectory_hang_issues,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ThreatScanner
from hermes_audit.hermes.truncation import MISSING, resolve_cap


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class LoadingResult:
    """Loading findings grouped by the document they point into, plus notes for the report."""

    session_cwd: Optional[Path] = None
    by_document: list[tuple[Document, list[Finding]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the session's context files that the model says never load (status ``shadowed``: a higher-priority type
    #: won), each as the document findings about it would point into: also a twin of the winner (``CLAUDE.md ->
    #: AGENTS.md``, or the same text), which has no HA604 since nothing is lost, but is shadowed all the same
    shadowed: list[Document] = field(default_factory=list)


def _targets(paths: Sequence[Path]) -> tuple[list[str], set[str]]:
    dirs: list[str] = []
    files: set[str] = set()
    for p in paths or [Path(".")]:
        p = Path(p)
        if is_real_dir(p):  # never raises (a file in a closed directory)
            dirs.append(os.path.realpath(p))
        else:
            files.add(os.path.realpath(p.absolute().parent / p.name))
            files.add(os.path.abspath(p))
    return dirs, files


def _inside(path: str, dirs: list[str], files: set[str]) -> bool:
    if path in files or os.path.realpath(path) in files:
        return True
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def loading_findings(
    paths: Sequence[Path],
    catalog,
    rules: Sequence,
    profile: VersionProfile,
    scanner: ThreatScanner,
    *,
    base: Optional[Path] = None,
    cwd: Optional[Path] = None,
    context_length: Optional[int] = None,
    max_bytes: Optional[int] = None,
    hints: bool = True,
    reads: Sequence[tuple[str, Optional[str], ReadResult]] = (),
) -> LoadingResult:
    """Simulate the session for a scan of ``paths`` and return its loading findings.

    ``rules`` are the selected rules (loading rules outside them are dropped;
    the audit rules among them are run over text Hermes injects unscanned).
    ``base`` is what finding paths are relative to (default: the current
    directory). Problems with the tree become findings or notes, never
    exceptions; a ``cwd`` that is not a directory raises ``ValueError``. ``reads`` are files already read
    with :func:`~hermes_audit.documents.reader.read_file` at ``max_bytes``, as ``(path, root, result)``
    (absolute path, root as a string or ``None``; :meth:`hermes_audit.hermes.context.RealFS.remember`): the
    simulation takes those instead of reading them again.
    """
    out = LoadingResult()
    session = session_directory(paths, cwd)
    out.session_cwd = session
    if session is None:
        return out
    selected = {r.code for r in rules if r.family == LOADING_FAMILY}
    if not selected:
        return out
    base_dir = os.path.realpath(base or Path.cwd())
    fs = RealFS(max_bytes, packed=True) if max_bytes else RealFS(packed=True)  # issue 21: a whole tree is read
    for path, root, read in reads:
        fs.remember(path, root, read)
    audit = AuditEngine([r for r in rules if r.family != LOADING_FAMILY and not r.is_parity])
    cap = resolve_cap(MISSING, context_length, dynamic=profile.context_cap_dynamic)
    report = simulate_context(session, profile, scanner, cap, fs=fs)
    ceiling = simulate_context(session, profile, scanner, resolve_cap(CEILING_CAP), fs=fs)
    issues = loading_issues(report, ceiling, scanner, audit)
    out.notes.extend(f"loading: {n}" for n in report.notes)
    dirs, files = _targets(paths)
    if hints:
        # file arguments only (pre-commit): just their directories, not a walk of the whole repository
        only = None if dirs else [os.path.dirname(f) for f in files if os.path.isabs(f)]
        hr = simulate_hints(session, [], profile, scanner, fs=fs, all_dirs=True, directories=only, keep_text=False)
        issues.extend(hint_issues(hr, scanner, audit))
        issues.extend(subdirectory_hang_issues(hr, fs, profile, scanner, cap))
        issues.extend(subdirectory_escape_issues(hr, fs, profile, scanner, cap))
        out.notes.extend(f"hints: {n}" for n in hr.notes if not n.startswith(REFUSED_LINK_NOTE))  # HA609 instead
    kept = [it for it in issues if _inside(it.entry.path, dirs, files)]

    def display(entry) -> str:
        rel = os.path.relpath(entry.path, base_dir)
        return entry.path if rel.startswith("..") else Path(rel).as_posix()

    grouped: dict[int, tuple[Document, list[Finding]]] = {}
    for it in kept:
        made = issues_to_findings([it], catalog, display, selected)
        if not made:
            continue
        where = display(it.entry)
        doc = it.entry.document
        doc.path = where  # the document may have been created earlier with a session-relative path
        for f in made:
            f.path = where
        grouped.setdefault(id(doc), (doc, []))[1].extend(made)
    out.by_document = list(grouped.values())
    for e in report.entries:
        if e.status == SHADOWED and _inside(e.path, dirs, files):
            # a document of its own: the one findings point into is renamed by the scan after this (one path per file)
            rd = e.read if e.read is not None else ReadResult(ReadStatus.MISSING, detail=e.reason)
            out.shadowed.append(Document(path=display(e), kind=e.kind, read=rd, abs_path=Path(e.path)))
    return out


def issues_to_findings(issues: list[LoadingIssue], catalog, display: Optional[Callable[[FileEntry], str]] = None,
                       selected: Optional[set[str]] = None) -> list:
    """:class:`~hermes_audit.findings.Finding` objects for ``issues`` (rules looked up by name in ``catalog``)."""
    out = []
    for it in issues:
        rule = catalog.find(it.rule)
        if rule is None or (selected is not None and rule.code not in selected):
            continue
        doc = entry_document(it.entry, display(it.entry) if display else None)
        f = make_finding(doc, rule, it.start, it.end, it.message, severity=it.severity, confidence=it.confidence)
        if it.fix:
            f.fix = it.fix
        out.append(f)
    return out
