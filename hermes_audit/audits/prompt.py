"""Prompt findings: the issues of the prompt model (:mod:`hermes_audit.hermes.prompt`, what Hermes puts into
the system prompt of one session) turned into findings, for ``hermes-audit prompt`` and ``scan --prompt``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES
from hermes_audit.engine.finding import make_finding
from hermes_audit.hermes import context as ctx
from hermes_audit.hermes.hermes_source import installed_source
from hermes_audit.hermes.loading import session_directory
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.prompt import (
    DEFAULT_MAX_SHARE, PROMPT_FAMILY, R_SESSION_HANG, PromptError, PromptIssue, PromptSettings, assemble,
    prompt_issues,
)
from hermes_audit.hermes.threats import ThreatScanner


def issues_to_findings(issues: list[PromptIssue], catalog, selected: Optional[set[str]] = None,
                       display=None) -> list:
    """:class:`~hermes_audit.findings.Finding` objects for ``issues`` (rules looked up by name in
    ``catalog``; ``selected`` limits them to these codes; ``display(doc)`` renames the path)."""
    by_name = {r.name: r for r in catalog.rules if r.family == PROMPT_FAMILY or r.name == R_SESSION_HANG}
    out = []
    for it in issues:
        rule = by_name.get(it.rule)
        if rule is None or (selected is not None and rule.code not in selected):
            continue
        if display is not None:
            it.document.path = display(it.document)
        out.append(make_finding(it.document, rule, it.start, it.end, it.message, severity=it.severity))
    return out


def scan_prompt_findings(paths, catalog, selected: set[str], profile: VersionProfile, scanner: ThreatScanner, *,
                         session_cwd: Optional[Path] = None, hermes_home: Optional[Path] = None,
                         context_length: Optional[int] = None, max_share: Optional[float] = None,
                         base: Optional[Path] = None, max_bytes: int = DEFAULT_MAX_BYTES,
                         source: Any = "installed") -> tuple[list[tuple[Document, list]], list[str]]:
    """Prompt findings for ``hermes-audit scan --prompt``: the dry run of a session in the scanned
    repository's root (or ``session_cwd``) with ``hermes_home`` (default ``$HERMES_HOME``, else
    ``~/.hermes``). Returns findings grouped by document (paths relative to ``base`` when inside it) and
    notes. Raises ``ValueError`` for a ``session_cwd`` that is not a directory."""
    cwd = session_directory(list(paths), session_cwd)
    if cwd is None:
        return [], []
    home = Path(hermes_home) if hermes_home is not None else Path(ctx.default_hermes_home())
    notes: list[str] = []
    if not home.is_dir():
        notes.append(f"prompt: no HERMES_HOME at {home}; the dry run uses Hermes' defaults there")
    src = installed_source() if source == "installed" else source
    settings = PromptSettings(cwd=cwd, home=home.absolute(), context_length=context_length,
                              max_share=max_share if max_share is not None else DEFAULT_MAX_SHARE, max_bytes=max_bytes)
    try:
        report = assemble(settings, profile, scanner, src)
    except PromptError as exc:
        raise ValueError(str(exc)) from None
    notes.extend(f"prompt: {n}" for n in report.notes if "placeholders" not in n)
    if report.problem:
        notes.append(f"prompt: {profile.label} session in {report.cwd}: not predictable: {report.problem}")
    else:
        notes.append(f"prompt: {profile.label} session in {report.cwd}: ~{report.total_tokens:,} tokens "
                     f"({report.counter.method}), {len([ly for ly in report.included() if ly.tier != 'api-call'])} "
                     "layers" + ("" if report.exact else ", some sizes estimated"))
    base_dir = os.path.realpath(base or Path.cwd())

    def display(doc: Document) -> str:
        p = str(doc.abs_path) if doc.abs_path is not None else doc.path
        rel = os.path.relpath(os.path.realpath(p), base_dir)
        return p if rel.startswith("..") else Path(rel).as_posix()

    grouped: dict[int, tuple[Document, list]] = {}
    for it in prompt_issues(report, max_share):
        made = issues_to_findings([it], catalog, selected, display)
        if made:
            grouped.setdefault(id(it.document), (it.document, []))[1].extend(made)
    return list(grouped.values()), notes
