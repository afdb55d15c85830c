"""The scan pipeline: paths -> documents -> Hermes verdicts + rule engine -> findings.

This module wires the rooms together and holds no rule or Hermes logic of
its own. The CLI calls :func:`run_scan`; so can other programs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from hermes_audit.audits import loading as loading_audit  # looked up when called (tests replace loading_findings)
from hermes_audit.engine import seams  # looked up when called (tests replace seam_findings)
from hermes_audit.audits.detectors import AuditEngine as Engine  # every detector a rule may name
from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind, classify, same_folded
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES, ReadStatus, is_dir_symlink, is_real_dir, read_file
from hermes_audit.patterns.catalog import DEFAULT_VERSION, Catalog, Rule, load_catalog
from hermes_audit.engine.engine import EngineError, make_finding
from hermes_audit.findings import Finding, Position, Severity, Span, assign_fingerprints
from hermes_audit.hermes.profiles import VERSIONS, VersionProfile, get_profile
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.outcomes import BLOCKED, HermesVerdict, WARNED, manifest_state_from_text
from hermes_audit.hermes.verdict import MemoScanner, verdict_for, verdict_seed
from hermes_audit.pathglobs import anchored_path, path_matches, patterns_for_named_directory
from hermes_audit.audits.suppressions import apply_suppressions, rules_index
from hermes_audit.audits.trusted_hosts import command_lines, trusted_away
from hermes_audit.audits.parallel import start_map_documents
from hermes_audit.documents.paths import file_key, repository_path
from hermes_audit.documents.reader import ReadResult, pack_read, start_packing
from hermes_audit.engine.inputs import input_findings as _input
from hermes_audit.hermes.loading import case_collision_issues, session_directory
from hermes_audit.hermes.profiles import CONTEXT_FILE_DYNAMIC_CEILING
from hermes_audit.hermes.truncation import injected_ranges


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class ScanOptions:
    """Everything a scan needs besides the paths. Defaults match the CLI's."""

    hermes_version: str = DEFAULT_VERSION
    select: Optional[list[str]] = None
    ignore: list[str] = field(default_factory=list)
    min_severity: Severity = Severity.INFO
    fail_on: Optional[Severity] = Severity.HIGH  # None: never fail because of findings ("never")
    fail_on_blocked: bool = True
    kind: Optional[DocumentKind] = None
    max_bytes: int = DEFAULT_MAX_BYTES
    use_git: bool = True
    exclude: list[str] = field(default_factory=list)
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    #: ``trusted-hosts`` (hermes_audit.audits.trusted_hosts): HA501/HA761 findings naming only these hosts are
    #: dropped; normalised host names.
    trusted_hosts: Sequence[str] = ()
    #: The directory ``exclude`` and ``per-path-ignores`` patterns are anchored at: the configuration file's
    #: directory (as ruff does), so the result does not depend on where hermes-audit runs; ``None``: ``base``.
    config_dir: Optional[Path] = None
    rules_dir: Optional[Path] = None
    base: Optional[Path] = None
    #: Auditor's mode: inline suppressions are not honoured (see hermes_audit.audits.suppressions).
    no_suppressions: bool = False
    #: A baseline file (hermes_audit.audits.baseline): findings it records are marked suppressed.
    baseline: Optional[Path] = None
    #: Loading simulation (issue 3, hermes_audit.hermes.loading): the session directory (default: the
    #: scanned repository's root), the model context length for the cap (default: Hermes' 20,000), on/off.
    session_cwd: Optional[Path] = None
    context_length: Optional[int] = None
    loading: bool = True
    #: Prompt dry run (issue 5, hermes_audit.hermes.prompt): on/off, HERMES_HOME (default $HERMES_HOME or
    #: ~/.hermes), the share of the context window the prompt may take (default 0.25).
    prompt: bool = False
    hermes_home: Optional[Path] = None
    prompt_max_share: Optional[float] = None
    #: Processes for scanning documents (issue 8, hermes_audit.audits.parallel): None = $HERMES_AUDIT_JOBS or the CPUs.
    jobs: Optional[int] = None
    #: The repository root: fingerprints (and so baselines) name files relative to it, whichever directory the
    #: scan runs from (hermes_audit.documents.paths.repository_path); ``None``: ``base``.
    repo_root: Optional[Path] = None

    def identity_root(self) -> Path:
        """The directory findings are identified relative to (fingerprints, baselines) and that reports place
        them in: ``repo_root``, else ``base``, else the working directory; absolute."""
        return Path(self.repo_root or self.base or Path.cwd()).absolute()


@dataclass(eq=False)
class FileReport:
    """One scanned file: the document and Hermes' verdict on it."""

    document: Document
    verdict: HermesVerdict

    def to_dict(self) -> dict:
        d = self.document
        out = {
            "path": d.path,
            "kind": d.kind.value,
            "label": d.label,
            "read": {"status": d.read.status.value, "bytes": d.read.size_bytes, "characters": d.read.total_chars},
            "hermes": self.verdict.to_dict(),
        }
        if d.read.detail:
            out["read"]["detail"] = d.read.detail
        return out


@dataclass(eq=False)
class ScanResult:
    #: The version profile's name (``0.15``, ``0.19``, ``latest``; hermes_audit/hermes/versions/).
    hermes_version: str
    files: list[FileReport] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[EngineError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    options: ScanOptions = field(default_factory=ScanOptions)
    rules_run: list[Rule] = field(default_factory=list)
    #: Baseline entries that matched no finding (hermes_audit.audits.baseline.StaleEntry).
    baseline_stale: list = field(default_factory=list)
    #: Directories given to the scan in which discovery found no file with a name Hermes loads (display paths).
    empty_directories: list[str] = field(default_factory=list)
    #: The profile for people: ``latest``, ``0.19`` or ``0.15, releases 0.15.0-0.17.0``; empty means the name.
    hermes_label: str = ""
    #: False for a profile whose session is not simulated (0.15, 0.18): a file Hermes' scan lets through
    #: may still be shadowed or cut, which this run cannot tell.
    session_modelled: bool = True
    #: Display paths of scanned files the loading simulation says never load (a higher-priority context type
    #: won), twins of the winner included: the verdict table's ``shadowed`` (round 9 of issue 18: a symlinked
    #: ``CLAUDE.md -> AGENTS.md`` showed ``loaded`` while ``hermes-audit context`` said shadowed).
    shadowed: set[str] = field(default_factory=set)
    #: Findings at or above ``min-severity`` of the per-file audit that the configuration's ``per-path-ignores``
    #: or ``trusted-hosts`` left out (new-user round: they were dropped without a word).
    ignored: int = 0

    @property
    def incomplete(self) -> bool:
        return bool(self.errors)

    def failing_findings(self) -> list[Finding]:
        if self.options.fail_on is None:
            return []
        return [f for f in self.findings if f.suppressed is None and f.severity >= self.options.fail_on]

    def blocked_files(self) -> list[FileReport]:
        return [f for f in self.files if f.verdict.status == BLOCKED]

    def failing_blocked_files(self) -> list[FileReport]:
        """Blocked files that fail the run: all, except a file whose Hermes-parity findings
        are all accepted by a baseline (it is still reported as blocked)."""
        accepted = {f.path for f in self.findings if f.hermes_pattern_id and f.suppressed is not None}
        live = {f.path for f in self.findings if f.hermes_pattern_id and f.suppressed is None}
        return [fr for fr in self.blocked_files() if fr.document.path not in accepted - live]

    def exit_code(self) -> int:
        """0 clean, 1 findings at/above ``fail_on`` or a blocked file, 3 incomplete."""
        if self.incomplete:
            return 3
        if self.failing_findings():
            return 1
        if self.options.fail_on_blocked and self.failing_blocked_files():
            return 1
        return 0

    def summary(self) -> dict:
        by_sev = {s.label: 0 for s in sorted(Severity, reverse=True)}
        for f in self.findings:
            if f.suppressed is None:
                by_sev[f.severity.label] += 1
        statuses: dict[str, int] = {}
        for fr in self.files:
            statuses[fr.verdict.status] = statuses.get(fr.verdict.status, 0) + 1
        return {
            "files": len(self.files),
            "findings": sum(by_sev.values()),
            "suppressed": sum(1 for f in self.findings if f.suppressed is not None),
            "ignored": self.ignored,
            "by_severity": by_sev,
            "hermes": statuses,
            "errors": len(self.errors),
            "exit_code": self.exit_code(),
        }


def _matches_selector(rule: Rule, sel: str) -> bool:
    s = sel.strip()
    low = s.lower()
    return (
        rule.code.lower() == low
        or (len(s) >= 2 and rule.code.lower().startswith(low) and s[:1].upper() == "H")
        or rule.name == low
        or rule.family == low
    )


class UnknownSelector(ValueError):
    """A ``select``/``ignore`` entry that matches no rule; ``selector`` is the entry."""

    def __init__(self, selector: str) -> None:
        super().__init__(f"no rule, code prefix or family matches {selector!r} (see `hermes-audit rules`)")
        self.selector = selector


def select_rules(catalog: Catalog, select: Optional[Sequence[str]], ignore: Sequence[str]) -> list[Rule]:
    """Rules chosen by ``select`` (all when ``None``) minus ``ignore``; selectors are codes,
    code prefixes (``HA1``), names or families. Raises :class:`UnknownSelector` (a ``ValueError``) for a
    selector that matches nothing."""
    rules = catalog.all_rules()
    for sel in [*(select or []), *ignore]:
        if not any(_matches_selector(r, sel) for r in rules):
            raise UnknownSelector(sel)
    chosen = [r for r in rules if select is None or any(_matches_selector(r, s) for s in select)]
    return [r for r in chosen if not any(_matches_selector(r, s) for s in ignore)]


def _display(p: Path, base: Path) -> str:
    try:
        return p.absolute().relative_to(base).as_posix()
    except ValueError:
        return p.as_posix()


def _read_document(path: Path, display: str, kind: DocumentKind, root: Optional[Path], max_bytes: int,
                   errors: Optional[list[EngineError]]) -> Document:
    """``Document.from_path``; an unexpected failure gives an unreadable document and an error (run incomplete)."""
    try:
        return Document.from_path(path, display, kind, root, max_bytes)
    except Exception as exc:  # never lose the other files

        msg = f"reading failed: {type(exc).__name__}: {exc}"
        if errors is not None:
            errors.append(EngineError("read", display, msg))
        return Document(path=display, kind=kind, read=ReadResult(ReadStatus.UNREADABLE, detail=msg), abs_path=path)


def _deferred_document(path: Path, display: str, kind: DocumentKind, root: Optional[Path]) -> Document:
    """A document not read yet (``read`` is ``None``; ``size_hint``: the file's size in bytes, 0 unknown)."""
    doc = Document(path=display, kind=kind, read=None, abs_path=path, root=root)  # type: ignore[arg-type]
    try:
        doc.size_hint = os.stat(path).st_size  # type: ignore[attr-defined]
    except (OSError, ValueError):
        doc.size_hint = 0  # type: ignore[attr-defined]
    return doc


def read_deferred(doc: Document, max_bytes: int) -> Optional[EngineError]:
    """Read a document made by ``collect_documents(..., defer=True)`` (in place), as
    :func:`collect_documents` would have read it; the error it would have recorded, else ``None``."""
    errors: list[EngineError] = []
    got = _read_document(doc.abs_path, doc.path, doc.kind, doc.root, max_bytes, errors)  # type: ignore[arg-type]
    doc.read = got.read
    return errors[0] if errors else None


def unscannable_reason(path: Path) -> Optional[str]:
    """Why a path argument gives nothing to scan, ``None`` when it can be scanned: a symbolic link to a
    directory (never followed) or a directory that cannot be listed. Never raises. Named beside scannable
    paths it gets a note (:func:`collect_documents`); named alone, the CLI makes it a usage error."""
    if is_dir_symlink(path):
        return ("a symbolic link to a directory; hermes-audit does not follow it (a hostile repository could "
                "point it anywhere): scan its target instead")
    if is_real_dir(path):
        from hermes_audit.documents.discovery import unlistable  # issue 8: start-up (files need no tree walk)

        why = unlistable(path)
        if why is not None:
            return f"cannot list directory: {why}; nothing in it was scanned"
    return None


def collect_documents(paths: Sequence[Path], options: ScanOptions, notes: list[str],
                      errors: Optional[list[EngineError]] = None,
                      empty_dirs: Optional[list[str]] = None,
                      excluded_paths: Optional[set[str]] = None,
                      defer: bool = False) -> list[Document]:
    """Documents for the given paths: directories are walked for Hermes' file names; files are taken
    whatever their name (kind from the name, ``--kind`` to override, ``generic`` otherwise).

    A file whose reading fails unexpectedly becomes an unreadable document and an entry of ``errors``;
    a directory in which discovery finds no candidate at all is added (display path) to ``empty_dirs``;
    the display paths of files that the configured ``exclude`` kept out (and no other path argument
    brought in) are added to ``excluded_paths``. ``exclude`` patterns (:mod:`hermes_audit.pathglobs`) match
    paths relative to ``options.config_dir`` (the configuration file's directory), or without it display
    paths, relative to ``options.base`` (default: the current directory).

    ``defer`` (issue 21: memory): no file is read here; each document's ``read`` is ``None`` until
    :func:`read_deferred` reads it (``run_scan`` reads, scans and packs one file at a time).
    """
    base = (options.base or Path.cwd()).absolute()

    def make(path: Path, display: str, kind: DocumentKind, root: Optional[Path]) -> Document:
        if not defer:
            return _read_document(path, display, kind, root, options.max_bytes, errors)
        doc = _deferred_document(path, display, kind, root)
        # where in ``errors`` its read failure would have been recorded (read_deferred reports it later)
        doc.error_slot = len(errors) if errors is not None else None  # type: ignore[attr-defined]
        return doc

    docs: list[Document] = []
    seen: set[str] = set()
    dropped: set[str] = set()
    for raw in paths:
        p = Path(raw)
        why = unscannable_reason(p)
        if why is not None:  # named but not scanned: a note here, exit 2 when it was all (cli/scan_cmd.py)
            notes.append(f"{_display(p, base) or raw}: {why}")
            continue
        if is_real_dir(p):
            from hermes_audit.documents.discovery import discover  # issue 8: start-up (files need no tree walk)

            res = discover(p, base=base, use_git=options.use_git)
            notes.extend(res.notes)
            for why in res.incomplete if errors is not None else ():  # a listing that may have missed files: exit 3
                errors.append(EngineError("discovery", _display(p, base) or ".", why))
            if not res.candidates and empty_dirs is not None:
                empty_dirs.append(_display(p, base) or ".")
            root = p.resolve()
            named = _display(p, base)
            if named not in ("", "."):  # the base directory itself is never "named" (see pathglobs.patterns_for_named_directory)
                named = anchored_path(named, options.base, options.config_dir)
            exclude = patterns_for_named_directory(named, options.exclude) if named is not None else []
            excluded = 0
            for c in res.candidates:
                if c.display in seen:
                    continue
                anchored = anchored_path(c.display, options.base, options.config_dir) if exclude else None
                if anchored is not None and path_matches(anchored, exclude):
                    excluded += 1
                    dropped.add(c.display)
                    continue
                seen.add(c.display)
                kind = options.kind or c.kind
                docs.append(make(c.abs_path, c.display, kind, root))
            if excluded and excluded == len(res.candidates):
                which = "the only file" if excluded == 1 else f"all {excluded} files"
                notes.append(f"{which} Hermes loads under {_display(p, base) or '.'} "
                             f"match{'es' if excluded == 1 else ''} the configured `exclude` patterns "
                             f"({', '.join(options.exclude)}); nothing there was scanned")
        else:
            display = _display(p, base)
            if display in seen:
                continue
            seen.add(display)
            kind = options.kind or classify(display) or DocumentKind.GENERIC
            root = base.resolve() if _inside(p, base) else None
            docs.append(make(p, display, kind, root))
    if excluded_paths is not None:
        excluded_paths.update(dropped - seen)
    return docs


def _inside(p: Path, base: Path) -> bool:
    """Whether ``p`` as written (``..`` folded lexically, no link resolved) lies below ``base``: a file named
    there is read below ``base`` (its directories never followed out of it, docs/hardening.md); one named
    outside it (``../AGENTS.md``, ``/tmp/x.md``) is read as named."""
    try:
        Path(os.path.normpath(p.absolute())).relative_to(base)
        return True
    except ValueError:
        return False


def soul_manifest_state(doc: Document) -> Optional[dict]:
    """The ``distribution.yaml`` next to a SOUL.md: ``None`` (absent), ``{"error": msg}`` or
    ``{"distribution_owned": [...]}``. Read safely (size-bounded, ``yaml.safe_load``)."""
    if doc.abs_path is None:
        return None
    mf = doc.abs_path.parent / "distribution.yaml"
    if not os.path.lexists(mf):
        return None
    # below the root the SOUL.md was read from (never through a link out of it, issue 18), else its directory
    res = read_file(mf, doc.root if doc.root is not None else doc.abs_path.parent.resolve(), max_bytes=1024 * 1024)
    if res.status is not ReadStatus.OK or res.text is None:
        return {"error": res.detail or "unreadable"}
    return manifest_state_from_text(res.text)


def parity_findings(doc: Document, verdict: HermesVerdict, profile: VersionProfile) -> list[Finding]:
    """One finding per Hermes pattern id that blocks (or warns about) the file, at its first match."""
    out: list[Finding] = []
    if verdict.status not in (BLOCKED, WARNED):
        return out
    action = "only warns about" if verdict.status == WARNED else "blocks"
    unit = "memory entry" if doc.kind.is_memory_store else "file"
    for lh in verdict.hits:
        rule = lh.hit.rule
        fields = {
            "version": profile.label.replace("Hermes ", ""),
            "hermes": profile.label,
            "unit": unit,
            "hermes_id": lh.hit.pattern_id,
            "title": rule.title,
            "codepoint": lh.hit.codepoint or "",
            "charname": "",
            "pattern_id": lh.hit.pattern_id,
        }
        if lh.hit.codepoint:
            import unicodedata

            ch = chr(int(lh.hit.codepoint[2:], 16))
            fields["charname"] = unicodedata.name(ch, lh.hit.codepoint)
            msg = f"{profile.label} {action} this {unit}: invisible character {lh.hit.codepoint} ({fields['charname']}) is on its blocklist"
        else:
            msg = f"{profile.label} {action} this {unit}: threat pattern '{lh.hit.pattern_id}' matches here ({rule.title})"
        out.append(make_finding(doc, rule, lh.start, lh.end, msg, hermes_pattern_id=lh.hit.pattern_id))
    return out


def stall_report(doc: Document, stalls: Sequence, profile: VersionProfile,
                 verdict: Optional[HermesVerdict] = None) -> tuple[list[Finding], list[EngineError]]:
    """A finding and an error per :class:`~hermes_audit.hermes.threats.Stall` (issue 18): Hermes' own
    scanner does not finish that pattern on this file within the deadline.

    The finding is the parity rule's (``HP...``), at the first occurrence of the keyword the pattern
    opens with (else at the start of the file); the error makes the run incomplete (exit 3): Hermes'
    verdict is not known, since its search of that pattern was stopped; ``verdict`` (when given) gets a
    note saying so.
    """
    findings: list[Finding] = []
    errors: list[EngineError] = []
    if not stalls:
        return findings, errors
    if verdict is not None:
        ids = ", ".join(sorted({st.pattern_id for st in stalls}))
        verdict.note = ((verdict.note + "; ") if verdict.note else "") + (
            f"Hermes' scan did not finish ({ids} stopped at the deadline): the status assumes no match")
    text = doc.text or ""
    lowered = text.lower()
    if len(lowered) != len(text):  # a case change altered the length: offsets would not agree
        lowered = ""
    for st in stalls:
        i = lowered.find(st.lead) if st.lead and lowered else -1
        start, end = (i, i + len(st.lead)) if i >= 0 else (0, 1)
        what = (f"{profile.label}'s own threat scanner did not finish pattern '{st.pattern_id}' on this "
                f"{'memory entry' if doc.kind.is_memory_store else 'file'} within {st.seconds:g} s "
                f"({st.chars:,} characters): its search backtracks, and the session that loads it hangs at start-up")
        findings.append(make_finding(doc, st.rule, start, end, what, hermes_pattern_id=st.pattern_id))
        errors.append(EngineError(st.rule.code, doc.path, f"Hermes pattern '{st.pattern_id}' stopped after "
                                  f"{st.seconds:g} s: Hermes' verdict on this file is unknown (see {st.rule.code})"))
    return findings, errors


def input_findings(doc: Document, verdict: HermesVerdict, profile: VersionProfile, rules: list[Rule]) -> list[Finding]:
    """Findings of the ``input`` family about how a file is encoded (issue 9, rules/hardening.yaml):
    a file that is not UTF-8 has no text for the rule engine, so its note is made here."""
    return _input(doc, verdict, profile, rules)


def _drop_covered_input_findings(result: ScanResult) -> None:
    """An HA951 (not UTF-8) finding adds nothing where the loading simulation already reports the
    same file as unreadable (HA606 ``context-file-unreadable``); keep one finding per file."""
    covered = {f.path for f in result.findings if f.rule_id == "HA606"}
    if covered:
        result.findings = [f for f in result.findings if not (f.rule_id == "HA951" and f.path in covered)]


def _path_ignored(f: Finding, per_path: dict[str, list[str]], catalog_rules: list[Rule],
                  options: Optional[ScanOptions] = None) -> bool:
    """Whether a ``per-path-ignores`` entry whose pattern covers the finding's path (the same globs as
    ``exclude``: :func:`hermes_audit.pathglobs.path_matches`, anchored at ``options.config_dir``) names the finding's rule."""
    path = anchored_path(f.path, options.base, options.config_dir) if options is not None else f.path
    if path is None:
        return False
    for pat, sels in per_path.items():
        if path_matches(path, [pat]):
            for r in catalog_rules:
                if r.code == f.rule_id and any(_matches_selector(r, s) for s in sels):
                    return True
    return False


def audit_tail(doc: Document, engine: Engine) -> tuple[list[Finding], list[EngineError]]:
    """Audit findings in the kept tail of an oversized file, with spans and positions in the whole file.

    The reader starts the tail at a line start and records its offset, line and column
    (:class:`~hermes_audit.documents.reader.ReadResult`); files whose middle was skipped unread
    have no known tail position and get no tail findings.
    """
    r = doc.read
    if r.status is not ReadStatus.OVERSIZED or not r.tail or r.tail_line is None or r.tail_start is None:
        return [], []
    head_end = len(doc.text) if doc.text is not None else 0
    if r.tail_start + len(r.tail) <= head_end:
        return [], []  # the head already covers it
    sub_doc = Document.from_text(r.tail, doc.path, doc.kind)
    res = engine.run(sub_doc)
    col0 = (r.tail_column or 1) - 1
    for f in res.findings:
        f.span = Span(f.span.start + r.tail_start, f.span.end + r.tail_start)
        f.start = Position(f.start.line + r.tail_line - 1, f.start.column + (col0 if f.start.line == 1 else 0))
        f.end = Position(f.end.line + r.tail_line - 1, f.end.column + (col0 if f.end.line == 1 else 0))
    # a tail that overlaps the head: what lies wholly inside the head was found there already
    return [f for f in res.findings if f.span.end > head_end], res.errors


def unaudited_injection(read) -> Optional[str]:
    """Why an oversized file's audit misses text Hermes may put in the prompt, ``None`` when it misses none.

    ``read`` is a :class:`~hermes_audit.documents.reader.ReadResult`. Hermes reads the whole file, strips it
    (``str.strip()``; ``latest`` also drops a leading U+FEFF) and keeps the first 70 % and the last 20 % of
    the cap, which the dynamic cap keeps at most 500,000 characters (``_truncate_content`` and
    ``_get_context_file_max_chars``, ``agent/prompt_builder.py``, hermes-agent 0.19.0 and ``latest``;
    :func:`hermes_audit.hermes.truncation.injected_ranges`). Those characters must lie in what the audit ran
    over: the kept head, and the kept tail when its place in the file is known (issue 18, item 9). A
    ``context_file_max_chars`` above 500,000 in config.yaml is not assumed (the note on the file says the
    middle was not audited). One line, no path.
    """
    if read.status is not ReadStatus.OVERSIZED:
        return None
    head = read.text or ""
    if read.tail is None or read.tail_start is None or read.tail_line is None:
        return (f"Hermes puts up to the last {int(CONTEXT_FILE_DYNAMIC_CEILING * 0.2):,} characters of this file in "
                "the prompt, but the file's middle was not read, so where its tail starts is unknown and the tail "
                "was not audited")
    start, total, tail = read.tail_start, read.total_chars, read.tail
    if start <= len(head):
        return None  # head and tail together cover the whole file
    kept = head.lstrip()
    if kept.startswith("\ufeff"):
        kept = kept[1:].lstrip()
    if not kept:
        return ("its first non-blank character lies beyond the audited head, so the text Hermes keeps from the "
                "start of the file was not audited")
    stripped_tail = tail.rstrip()
    if not stripped_tail:
        return ("its last non-blank character lies before the audited tail (the tail is all whitespace), so "
                "the text Hermes keeps from the end of the file was not audited")
    s = len(head) - len(kept)
    e = total - (len(tail) - len(stripped_tail))
    for a, b in injected_ranges(e - s, CONTEXT_FILE_DYNAMIC_CEILING):
        a, b = a + s, b + s
        if b <= len(head) or a >= start:
            continue
        return (f"Hermes may put characters {a:,} to {b:,} of it in the prompt, but only characters 0 to "
                f"{len(head):,} and {start:,} to {total:,} were audited")
    return None


def _profile_label(profile) -> str:
    """``0.15, releases 0.15.0-0.16.0`` for a profile that models several releases, else its name: a
    release given to ``--hermes-version`` (``0.17.0``) then shows which profile answered for it."""
    return f"{profile.name}, releases {profile.release_range}" if len(profile.releases) > 1 else profile.name


def run_scan(paths: Sequence[Path], options: ScanOptions, catalog: Optional[Catalog] = None) -> ScanResult:
    """Scan ``paths`` and return documents, verdicts and findings (filtered by the options).

    Raises ``ValueError`` for an unknown Hermes version or selector, and
    :class:`~hermes_audit.patterns.catalog.CatalogError` for a broken rules directory.
    """
    catalog = catalog or load_catalog(options.rules_dir)
    start_packing()  # issue 21: this scan's packed texts get their own allowance and spill file
    profile = get_profile(options.hermes_version)
    rules = select_rules(catalog, options.select, options.ignore)
    select_rules(catalog, None, [s for sels in options.per_path_ignores.values() for s in sels])  # each names a rule
    selected_codes = {r.code for r in rules}
    scanner = scanner_for(catalog.parity, profile.scanner)
    engine = Engine(rules)
    # issue 8: the audit rules search the same texts for their keywords: Hermes' scanner shares that search
    scanner.share_keywords = any(r.patterns for r in engine.rules)
    result = ScanResult(hermes_version=profile.name, options=options, rules_run=rules,
                        hermes_label=_profile_label(profile), session_modelled=profile.loading_model)
    if options.loading and options.session_cwd is not None:  # a bad --cwd fails now, not after the scan

        session_directory(paths, options.session_cwd)
    excluded: set[str] = set()  # configured `exclude`: no finding of any kind on these paths
    # issue 21: memory: each file is read when it is scanned, then kept packed (compressed) with the facts the
    # checks across files need, so only the files being scanned are held whole
    docs = collect_documents(paths, options, result.notes, result.errors, result.empty_directories, excluded,
                             defer=True)
    all_rules = catalog.all_rules()
    rule_index = rules_index(all_rules)

    ran_by_kind: dict[DocumentKind, set[str]] = {}

    seeding = options.loading or options.prompt

    def scan_document(doc: Document) -> tuple:
        """Read, scan and pack one document (run here or in a worker process): its verdict, kept findings,
        errors, packed read result, read error and memo seed (:func:`hermes_audit.hermes.verdict.verdict_seed`)."""
        read_error = read_deferred(doc, options.max_bytes) if doc.read is None else None
        verdict, kept, errors, ignored = scan_read(doc)
        seed = None
        if verdict is not None and seeding:
            seed = verdict_seed(doc, verdict, profile, scanner.max_scan_chars)
        doc.read = pack_read(doc.read)
        doc._lines = doc._tail_lines = None  # rebuilt if a report needs them
        return verdict, kept, errors, doc.read, read_error, seed, ignored

    def scan_read(doc: Document) -> tuple[Optional[HermesVerdict], list[Finding], list[EngineError], int]:
        """Verdict, kept findings, errors and the number of findings at or above ``min-severity`` that
        ``per-path-ignores`` or ``trusted-hosts`` left out, of one document that has been read."""
        stalled = len(scanner.stalls)
        try:
            soul = soul_manifest_state(doc) if doc.kind is DocumentKind.SOUL_MD else None
            verdict = verdict_for(doc, scanner, profile, soul)
        except Exception as exc:  # never lose the other files
            return None, [], [EngineError("hermes-model", doc.path, f"Hermes model failed: {type(exc).__name__}: {exc}")], 0
        stall_found, stall_errors = stall_report(doc, list(scanner.stalls.values())[stalled:], profile, verdict)
        try:
            found = [f for f in parity_findings(doc, verdict, profile) if f.rule_id in selected_codes]
            found.extend(f for f in stall_found if f.rule_id in selected_codes)
            found.extend(input_findings(doc, verdict, profile, rules))  # issue 9: encoding notes
            er = engine.run(doc)
            # HA709 describes the drift guard of 0.15.0 on; 0.13.0-0.14.0 rewrite such a store without refusing
            found.extend(f for f in er.findings if profile.memory_drift_guard or f.rule_id != DRIFT_RULE)
            tail_findings, tail_errors = audit_tail(doc, engine)
            found.extend(tail_findings)
            er.errors.extend(tail_errors)
            ran = ran_by_kind.get(doc.kind)
            if ran is None:  # issue 8: decided once per document kind
                ran = ran_by_kind[doc.kind] = {r.code for r in rules if r.is_parity or r.applies_to(doc.kind)}
            apply_suppressions(doc, found, rule_index, ran, catalog.parity, honour=not options.no_suppressions)
            texts = [doc.slice(f.span.start, f.span.end) for f in found]
            assign_fingerprints(found, texts, _identity_path(doc, options) if found else None)
            shown = [f for f in found if f.severity >= options.min_severity]
            kept = [f for f in shown
                    if not (options.per_path_ignores and _path_ignored(f, options.per_path_ignores, all_rules, options))
                    and not (options.trusted_hosts and trusted_away(
                        f, command_lines(doc.text or "", f.span.start, f.span.end), options.trusted_hosts))]
        except Exception as exc:  # a crash in one file: reported, the verdict and the other files kept
            return verdict, [], [*stall_errors, EngineError("scan", doc.path, f"scanning failed: {type(exc).__name__}: {exc}")], 0
        return verdict, kept, [*stall_errors, *er.errors], len(shown) - len(kept)

    results = start_map_documents(scan_document, docs, all_rules, options.jobs)()
    # issue 8: the loading simulation and the prompt dry run scan many of the same texts again (the hints, the
    # session's context files): they reuse the verdicts' scans (exact: keyed by the scanned text and scope)
    memo = MemoScanner(scanner)
    scanned = []
    read_errors = []
    reads: list = []
    for doc, (verdict, kept, errors, read, read_error, seed, ignored) in zip(docs, results):
        result.ignored += ignored
        doc.read = read  # (a worker's document came back as this result)
        if read_error is not None:
            read_errors.append((doc.error_slot, read_error))  # type: ignore[attr-defined]
        elif doc.abs_path is not None:  # the loading simulation reads the same files: it takes these reads
            reads.append((str(doc.abs_path), str(doc.root) if doc.root is not None else None, read))
        if seed is not None:
            memo.seed_key(*seed)
        scanned.append((verdict, kept, errors))
    del results
    for slot, err in reversed(read_errors):  # where collect_documents would have recorded them
        result.errors.insert(slot, err)
    stalled = len(scanner.stalls)
    session = profile.loading_model  # the context files and the hints are modelled for this profile
    dry_run = "prompt" in profile.simulations
    if not session and (options.loading or options.prompt):
        result.notes.append(f"{profile.label}: per-file verdicts only; the session simulation (chain, truncation, "
                            "hints, the prompt) is modelled for " + ", ".join(n for n in VERSIONS
                                                                               if get_profile(n).session_model))
    elif not dry_run and options.prompt:
        result.notes.append(f"{profile.label}: the prompt dry run is skipped (it is modelled for "
                            + ", ".join(n for n in VERSIONS if "prompt" in get_profile(n).simulations)
                            + "); the loading simulation ran")
    loading = _simulate_loading(paths, catalog, rules, profile, memo, options, reads) if session else None
    del reads
    for doc, (verdict, kept, errors) in zip(docs, scanned):
        if doc.read.status is ReadStatus.OVERSIZED:
            r = doc.read
            if r.tail_start is not None and r.tail_start <= len(doc.text or ""):
                result.notes.append(f"{doc.path}: {r.detail}; all of it was audited")
            else:
                part = "its head and its tail" if r.tail_line is not None else "its head"
                result.notes.append(f"{doc.path}: {r.detail}; only {part} were audited (raise --max-file-size "
                                    "to read it whole)")
            gap = unaudited_injection(r)
            if gap is not None:  # issue 18, item 9: text Hermes injects was not audited: the run is incomplete
                result.errors.append(EngineError("read", doc.path, f"not fully audited: {gap} (raise "
                                                 "--max-file-size to read it whole)"))
        if verdict is not None:
            result.files.append(FileReport(doc, verdict))
        result.errors.extend(errors)
        result.findings.extend(kept)
    _add_seam_findings(result, engine, profile, options, all_rules)
    _add_case_findings(result, catalog, options, all_rules, rule_index, selected_codes)
    if session:
        _add_loading_findings(result, loading, catalog, options, all_rules, rule_index)
    if session and dry_run:
        _add_prompt_findings(result, paths, catalog, rules, profile, memo, options, all_rules, rule_index)
    for st in list(scanner.stalls.values())[stalled:]:  # issue 18: a text only the session model scans
        result.errors.append(EngineError(st.rule.code, "", f"Hermes pattern '{st.pattern_id}' stopped after "
                                         f"{st.seconds:g} s on a text of the session model ({st.chars:,} "
                                         "characters): what Hermes loads is not known"))
    _drop_covered_input_findings(result)
    if excluded:  # the loading simulation and the prompt dry run still model these files; nothing is reported on them
        result.findings = [f for f in result.findings if f.path not in excluded]
    result.findings.sort(key=lambda f: (f.path, f.start.line, f.start.column, f.rule_id))
    if options.baseline is not None:
        # start-up time: baselines, for --baseline only
        from hermes_audit.audits.baseline import apply_baseline, load_baseline

        apply_baseline(result, load_baseline(options.baseline))
    return result


#: The rule of a memory store Hermes' drift guard refuses to rewrite (``memory-format-drift``); not reported
#: for a profile without ``memory_drift_guard`` (0.13.0-0.14.0).
DRIFT_RULE = "HA709"


def _identity_path(doc: Document, options: ScanOptions) -> str:
    """The path that identifies ``doc``'s findings (fingerprints, baselines): relative to the repository root."""
    return repository_path(doc.path, doc.abs_path, options.identity_root())


def _as_scanned(result: ScanResult, grouped: list, options: ScanOptions) -> list:
    """``grouped`` (``[(document, findings)]`` from a Hermes model: loading simulation, prompt dry run) with each
    document that is also one of the scanned files shown by that file's path, in every output: the models name
    files relative to ``options.base`` when inside it, else by absolute path, where a scan of ``..`` shows
    ``../AGENTS.md``; one file, one path (SARIF places a finding by it)."""
    if not grouped:
        return grouped

    base = os.path.abspath(options.base or os.getcwd())
    shown = {file_key(fr.document.abs_path): fr.document.path for fr in result.files
             if fr.document.abs_path is not None}
    for doc, found in grouped:
        where = shown.get(file_key(doc.abs_path if doc.abs_path is not None else os.path.join(base, doc.path)))
        if where is not None and where != doc.path:
            doc.path = where
            for f in found:
                f.path = where
    return grouped


def _keep_model_findings(result: ScanResult, doc: Document, found: list[Finding], catalog: Catalog,
                         options: ScanOptions, all_rules: list[Rule], rule_index) -> None:
    """Suppressions, fingerprints and the severity/path filters for findings a Hermes model produced on ``doc``
    (loading simulation, prompt dry run); kept ones join ``result``."""
    ran = {f.rule_id for f in found}
    apply_suppressions(doc, found, rule_index, ran, catalog.parity, honour=not options.no_suppressions)
    assign_fingerprints(found, [doc.slice(f.span.start, f.span.end) for f in found], _identity_path(doc, options))
    for f in found:
        if f.severity < options.min_severity:
            continue
        if options.per_path_ignores and _path_ignored(f, options.per_path_ignores, all_rules, options):
            continue
        result.findings.append(f)


# --- loading simulation (issue 3) -------------------------------------------------------------------
def _simulate_loading(paths: Sequence[Path], catalog: Catalog, rules: list[Rule], profile: VersionProfile, scanner,
                      options: ScanOptions, reads: Sequence = ()):
    """The session simulation (:mod:`hermes_audit.hermes.loading`): its result, an :class:`EngineError` when it
    failed, or ``None`` when it is off. Raises ``ValueError`` for bad options."""
    if not options.loading:
        return None
    try:
        return loading_audit.loading_findings(paths, catalog, rules, profile, scanner, base=options.base,
                                              cwd=options.session_cwd, context_length=options.context_length,
                                              max_bytes=options.max_bytes, reads=reads)
    except ValueError:
        raise
    except Exception as exc:  # the simulation failing must not lose the per-file results
        return EngineError("loading", "", f"loading simulation failed: {type(exc).__name__}: {exc}")


def _add_loading_findings(result: ScanResult, lr, catalog: Catalog, options: ScanOptions, all_rules: list[Rule],
                          rule_index) -> None:
    """Findings of the ``loading`` family from :func:`_simulate_loading`'s result ``lr``."""
    if lr is None:
        return
    if isinstance(lr, EngineError):
        result.errors.append(lr)
        return
    result.notes.extend(lr.notes)
    result.shadowed.update(doc.path for doc, _ in _as_scanned(result, [(d, []) for d in lr.shadowed], options))
    for doc, found in _as_scanned(result, lr.by_document, options):
        _keep_model_findings(result, doc, found, catalog, options, all_rules, rule_index)
# --- end loading simulation ---------------------------------------------------------------------------


# --- prompt dry run (issue 5) ---------------------------------------------------------------------------
#: Prompt rules skipped on a file that already has the named finding (the same problem, seen per file).
_PROMPT_DUPLICATES = {"HA803": ("HA603",), "HA804": ("HA707", "HA708")}


def _add_prompt_findings(result: ScanResult, paths: Sequence[Path], catalog: Catalog, rules: list[Rule],
                         profile: VersionProfile, scanner, options: ScanOptions, all_rules: list[Rule],
                         rule_index) -> None:
    """Findings of the ``prompt`` family from dry-running the prompt assembly (:mod:`hermes_audit.hermes.prompt`)."""
    selected = {r.code for r in rules if r.family == "prompt"}
    if not options.prompt or not selected:
        return
    selected |= {r.code for r in rules if r.name == "context-read-hangs"}  # a HERMES_HOME file that hangs Hermes
    # start-up time: the prompt dry run, for --prompt only
    from hermes_audit.audits.prompt import scan_prompt_findings

    try:
        grouped, notes = scan_prompt_findings(
            paths, catalog, selected, profile, scanner, session_cwd=options.session_cwd,
            hermes_home=options.hermes_home, context_length=options.context_length,
            max_share=options.prompt_max_share, base=options.base, max_bytes=options.max_bytes)
    except ValueError:
        raise
    except Exception as exc:  # the dry run failing must not lose the per-file results
        result.errors.append(EngineError("prompt", "", f"prompt dry run failed: {type(exc).__name__}: {exc}"))
        return
    result.notes.extend(notes)
    have = {(f.path, f.rule_id) for f in result.findings}
    for doc, found in _as_scanned(result, grouped, options):
        found = [f for f in found if not any((f.path, d) in have for d in _PROMPT_DUPLICATES.get(f.rule_id, ()))]
        _keep_model_findings(result, doc, found, catalog, options, all_rules, rule_index)
# --- end prompt dry run -----------------------------------------------------------------------------------


#: Most paths :func:`_case_siblings` returns for one file (a tree of case variants cannot make it slow).
_MAX_CASE_SIBLINGS = 64


def _case_siblings(path: str, base: str, listed: dict[str, list[str]]) -> list[str]:
    """Paths on disk that differ from ``path`` (absolute, below ``base``) only in case, in any of the names from
    ``base`` down (``Agents.md`` beside ``AGENTS.md``, ``.Cursor/Rules/x.mdc`` beside ``.cursor/rules/x.mdc``), at
    most :data:`_MAX_CASE_SIBLINGS`; ``listed`` caches directory listings. Never raises; a directory that is a
    symbolic link is not listed."""
    rel = os.path.relpath(path, base)
    if rel.startswith(".."):
        return []
    parts = rel.split(os.sep)
    found: list[str] = []
    stack = [(base, 0)]
    while stack and len(found) <= _MAX_CASE_SIBLINGS:
        d, i = stack.pop()
        names = listed.get(d)
        if names is None:
            try:
                names = listed[d] = [] if os.path.islink(d) else os.listdir(d)
            except (OSError, ValueError):
                names = listed[d] = []
        want = parts[i]
        for n in names:
            if n != want and not same_folded(n, want):  # as APFS or NTFS compare names (round 9)
                continue
            nxt = os.path.join(d, n)
            if i + 1 == len(parts):
                if nxt != path:
                    found.append(nxt)
            else:
                stack.append((nxt, i + 1))
    return found[:_MAX_CASE_SIBLINGS]


def _add_case_findings(result: ScanResult, catalog: Catalog, options: ScanOptions, all_rules: list[Rule],
                       rule_index, selected: set[str]) -> None:
    """HA612 (``case-collision``, :func:`hermes_audit.hermes.loading.case_collision_issues`): scanned files whose
    path differs only in case from another scanned file or from a file beside it on disk (the pre-commit hook
    names only the staged one; round 8 of issue 18)."""
    rule = catalog.find("case-collision")
    if rule is None or rule.code not in selected:
        return
    base = os.path.abspath(options.base or os.getcwd())
    docs = {os.path.abspath(fr.document.abs_path): fr.document for fr in result.files
            if fr.document.abs_path is not None}
    listed: dict[str, list[str]] = {}
    paths = set(docs)
    for p in docs:
        # a file outside the base directory (``scan /tmp/x/repo/AGENTS.md`` from elsewhere): its own directory's names
        inside = not os.path.relpath(p, base).startswith(".." + os.sep)
        paths.update(_case_siblings(p, base if inside else os.path.dirname(p), listed))
    if len(paths) < 2:
        return
    shown = {p: d.path for p, d in docs.items()}  # a scanned file is named as the scan shows it
    for it in case_collision_issues(sorted(paths), base, docs, shown):
        doc = docs.get(it.entry.path)
        if doc is None:  # a sibling that was not scanned: its partner carries the finding
            continue
        found = loading_audit.issues_to_findings([it], catalog, lambda e: doc.path, {rule.code})
        for f in found:
            f.path = doc.path
        _keep_model_findings(result, doc, found, catalog, options, all_rules, rule_index)


def _add_seam_findings(result: ScanResult, engine: Engine, profile: VersionProfile, options: ScanOptions,
                       all_rules: list[Rule]) -> None:
    """Matches that span files Hermes concatenates (:mod:`hermes_audit.engine.seams`)."""
    try:
        seam, texts, errors = seams.seam_findings([(fr.document, fr.verdict) for fr in result.files], engine, profile)
    except Exception as exc:  # a seam problem must not lose the per-file results
        result.errors.append(EngineError("seams", "", f"seam scan failed: {type(exc).__name__}: {exc}"))
        return
    result.errors.extend(errors)
    assign_fingerprints(seam, texts)
    for f in seam:  # trusted-hosts is not applied across files: a seam has no single command line to judge
        if f.severity < options.min_severity:
            continue
        if options.per_path_ignores and _path_ignored(f, options.per_path_ignores, all_rules, options):
            continue
        result.findings.append(f)
