"""``hermes-audit memory``: audit a Hermes home's memory stores (or given store files).

For each store this combines Hermes' own view (:mod:`hermes_audit.hermes.memory`:
entries, load-time verdicts, capacity, the rendered snapshot, format drift)
with the audit rules that apply to memory (rules/memory.yaml and every rule
whose ``kinds`` include memory), run with the limits config.yaml sets.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional, Sequence

from hermes_audit.audits.detectors import AuditEngine
from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES, ReadStatus
from hermes_audit.patterns.catalog import Catalog, Rule, load_catalog
from hermes_audit.engine.engine import EngineError
from hermes_audit.findings import Finding, Severity, assign_fingerprints
from hermes_audit.hermes import memory as mem
from hermes_audit.hermes.profiles import VersionProfile, get_profile
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.outcomes import BLOCKED
from hermes_audit.hermes.verdict import verdict_for
from hermes_audit.audits.scan import (DRIFT_RULE, FileReport, ScanOptions, ScanResult, input_findings, parity_findings, select_rules,
                               stall_report)
from hermes_audit.engine.engine import make_finding
from hermes_audit.hermes.outcomes import read_blocks, unreadable_consequence


class MemoryInputError(Exception):
    """Bad input for the memory audit (no such home or file); one line, exit code 2."""


@dataclass
class MemoryAudit:
    """Result of a memory audit: the scan-style result (files, findings) plus per-store analysis."""

    result: ScanResult
    stores: list[mem.StoreReport] = field(default_factory=list)
    config: mem.MemoryConfig = field(default_factory=mem.MemoryConfig)
    home: Optional[Path] = None
    #: the Hermes version profile the stores were read as (``None``: 0.19)
    profile: Optional[VersionProfile] = None

    def snapshot(self) -> str:
        """The memory blocks exactly as they would sit in the system prompt."""
        return mem.snapshot(self.stores, self.config, self.profile)

    def exit_code(self) -> int:
        """1 for findings at/above --fail-on, an entry Hermes blocks or a store Hermes fails to load
        (:func:`load_failure`: it is not UTF-8, or reading it hangs); 3 incomplete; else 0."""
        if self.result.incomplete:
            return 3
        if self.result.failing_findings():
            return 1
        if any(s.status == "blocked" or load_failure(s, self.config) for s in self.stores):
            return 1
        return 0

    def to_dict(self) -> dict:
        return {
            "home": str(self.home) if self.home else None,
            "config": self.config.to_dict(),
            "stores": [s.to_dict() for s in self.stores],
            "snapshot": self.snapshot(),
        }


def _target_for(path: Path, forced: Optional[str]) -> str:
    if forced:
        return forced
    return "user" if path.name == "USER.md" else "memory"


def resolve_inputs(paths: Sequence[Path], profile_name: Optional[str], target: Optional[str],
                   environ: Optional[dict] = None) -> tuple[Optional[Path], list[tuple[str, Path]]]:
    """(Hermes home or ``None``, [(target, store path)]) for the command's arguments.

    No argument: ``$HERMES_HOME`` or ``~/.hermes`` (``--profile NAME``: its
    ``profiles/NAME``). A directory: a Hermes home (with ``memories/``) or a
    ``memories`` directory itself. A file: one store (``USER.md`` is the user
    store; anything else the memory store unless ``target`` says). Raises
    :class:`MemoryInputError`.
    """
    if not paths:
        try:
            home = mem.resolve_home(None, profile_name, environ)
        except ValueError as exc:
            raise MemoryInputError(str(exc)) from None
        if not home.is_dir():
            raise MemoryInputError(f"no Hermes home at {home} (set HERMES_HOME or pass a path)")
        return home, [(t, home / "memories" / f) for t, f in mem.STORE_FILES.items()]
    out: list[tuple[str, Path]] = []
    home: Optional[Path] = None
    for p in paths:
        if not (p.exists() or p.is_symlink()):
            raise MemoryInputError(f"{p}: no such file or directory")
        if p.is_dir():
            d = p
            if profile_name:
                try:
                    d = mem.resolve_home(str(p), profile_name, environ)
                except ValueError as exc:
                    raise MemoryInputError(str(exc)) from None
                if not d.is_dir():
                    raise MemoryInputError(f"no profile at {d}")
            if (d / "memories").is_dir() or not any((d / f).exists() for f in mem.STORE_FILES.values()):
                home = home or d
                out.extend((t, d / "memories" / f) for t, f in mem.STORE_FILES.items())
            else:
                home = home or (d.parent if (d.parent / "config.yaml").is_file() else None)
                out.extend((t, d / f) for t, f in mem.STORE_FILES.items())
        else:
            out.append((_target_for(p, target), p))
    return home, out


def audit_memory(
    paths: Sequence[Path] = (),
    hermes_version: str = "latest",
    profile_name: Optional[str] = None,
    target: Optional[str] = None,
    limits: Optional[dict] = None,
    select: Optional[list[str]] = None,
    ignore: Sequence[str] = (),
    fail_on: Severity = Severity.HIGH,
    min_severity: Severity = Severity.INFO,
    max_bytes: int = DEFAULT_MAX_BYTES,
    catalog: Optional[Catalog] = None,
    environ: Optional[dict] = None,
    base: Optional[Path] = None,
) -> MemoryAudit:
    """Audit memory stores. Raises :class:`MemoryInputError` for bad input and ``ValueError`` for an
    unknown version or rule selector (both one line)."""
    catalog = catalog or load_catalog()
    profile = get_profile(hermes_version)
    scanner = scanner_for(catalog.parity, profile.scanner)
    home, stores = resolve_inputs(list(paths), profile_name, target, environ)
    cfg = mem.read_memory_config(home, limits)
    rules = [_with_limits(r, cfg) for r in select_rules(catalog, select, list(ignore))]
    codes = {r.code for r in rules}
    engine = AuditEngine(rules)
    opts = ScanOptions(hermes_version=profile.name, select=select, ignore=list(ignore), min_severity=min_severity,
                       fail_on=fail_on, max_bytes=max_bytes)
    result = ScanResult(hermes_version=profile.name, options=opts, rules_run=rules)
    audit = MemoryAudit(result, config=cfg, home=home, profile=profile)
    result.notes.extend(f"config: {p}" for p in cfg.problems)
    shown_base = (base or home or Path.cwd()).absolute()
    for tgt, path in stores:
        if not (os.path.lexists(path)):
            audit.stores.append(mem.analyse_store(None, tgt, cfg, scanner, profile))
            continue
        kind = DocumentKind.USER_PROFILE if tgt == "user" else DocumentKind.MEMORY
        display = _display(path, shown_base)
        root = home.resolve() if home is not None else None
        # the user's own Hermes home, read where Hermes runs: a dangling link is absent for Hermes too
        doc = Document.from_path(path, display, kind, root, max_bytes, dangling_out=False)
        stalled = len(scanner.stalls)
        rep = mem.analyse_store(doc, tgt, cfg, scanner, profile)
        audit.stores.append(rep)
        try:
            verdict = verdict_for(doc, scanner, profile)
        except Exception as exc:  # never lose the other store
            result.errors.append(EngineError("hermes-model", doc.path, f"Hermes model failed: {type(exc).__name__}: {exc}"))
            continue
        result.files.append(FileReport(doc, verdict))
        stall_found, stall_errors = stall_report(doc, list(scanner.stalls.values())[stalled:], profile, verdict)  # issue 18
        result.errors.extend(stall_errors)
        found = [f for f in parity_findings(doc, verdict, profile) if f.rule_id in codes]
        found.extend(f for f in stall_found if f.rule_id in codes)
        found.extend(input_findings(doc, verdict, profile, rules))  # HA951: not UTF-8, no memory loads
        found.extend(_hang_findings(doc, cfg, profile, catalog, codes))  # HA608: reading it never returns
        er = engine.run(doc)
        # HA709 describes the drift guard of 0.15.0 on; 0.13.0-0.14.0 rewrite such a store without refusing
        found.extend(f for f in er.findings if profile.memory_drift_guard or f.rule_id != DRIFT_RULE)
        result.errors.extend(er.errors)
        if doc.read.status is ReadStatus.OVERSIZED:
            result.errors.append(EngineError("memory", doc.path, rep.note))
        texts = [doc.slice(f.span.start, f.span.end) for f in found]
        assign_fingerprints(found, texts)
        result.findings.extend(f for f in found if f.severity >= min_severity)
    result.findings.sort(key=lambda f: (f.path, f.start.line, f.start.column, f.rule_id))
    return audit


def load_failure(store: mem.StoreReport, cfg: mem.MemoryConfig) -> bool:
    """True when Hermes loads no memory because of this store's file: it is not UTF-8
    (``MemoryStore.load_from_disk`` raises; hermes-agent 0.19.0 ``agent/agent_init.py`` swallows the error
    and runs without memory) or it is a FIFO or device whose read blocks the session start
    (:func:`hermes_audit.hermes.verdict.read_blocks`). Only when config.yaml enables a memory block."""
    doc = store.document
    if doc is None or not any(cfg.enabled.values()):
        return False
    if doc.read.status is ReadStatus.NOT_UTF8:
        return True
    return read_blocks(doc.kind, doc.read, get_profile("latest"), doc.path)


def _hang_findings(doc: Document, cfg: mem.MemoryConfig, profile, catalog: Catalog, codes: set[str]) -> list[Finding]:
    """HA608 (``context-read-hangs``, rules/loading.yaml) for a store that is a FIFO or device: both profiles
    read the memory stores with a plain ``read_text()`` at session start (``tools/memory_tool.py``
    ``MemoryStore._read_file``), which never returns. Nothing when config.yaml disables both blocks
    (Hermes then creates no memory store)."""
    rule = catalog.find("context-read-hangs")
    if rule is None or rule.code not in codes or not any(cfg.enabled.values()):
        return []
    if not read_blocks(doc.kind, doc.read, profile, doc.path):
        return []
    what = doc.read.file_type or "special file"
    msg = f"{doc.path} is a {what}: {unreadable_consequence(doc.kind, doc.read, profile, doc.path)}"
    return [make_finding(doc, rule, 0, 0, msg)]


def _with_limits(rule: Rule, cfg: mem.MemoryConfig) -> Rule:
    if rule.detector != "memory-store":
        return rule
    return replace(rule, params={**rule.params, "limits": dict(cfg.limits)})


def _display(p: Path, base: Path) -> str:
    try:
        return p.absolute().relative_to(base).as_posix()
    except ValueError:
        return p.as_posix()


def entry_findings(audit: MemoryAudit, store: mem.StoreReport) -> dict[int, list[Finding]]:
    """Findings of a store grouped by entry index (``-1``: not inside any entry)."""
    out: dict[int, list[Finding]] = {}
    if store.document is None:
        return out
    spans = [(e.offset, e.offset + e.length, e.index) for e in store.entries]
    for f in audit.result.findings:
        if f.path != store.document.path:
            continue
        idx = next((i for s, e, i in spans if s <= f.span.start < max(e, s + 1)), -1)
        out.setdefault(idx, []).append(f)
    return out


def blocked_entries(store: mem.StoreReport) -> list:
    return [e for e in store.entries if e.status == BLOCKED]
