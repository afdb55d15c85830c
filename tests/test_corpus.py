"""The evaluation corpus (../shared/corpus): parity with the newest Hermes, and quiet audit rules on honest files.

Skips with a clear reason when the corpus is absent. Prints a per-file table
(run pytest with -s to see it); docs/development.md states the figures.
"""

from __future__ import annotations

import pytest

from hermes_audit.documents.document import Document
from hermes_audit.audits.detectors import AuditEngine as Engine
from hermes_audit.findings import Severity
from hermes_audit.hermes.threats import ThreatScanner
from tests.corpus_util import corpus_kind, load_manifest


def test_latest_scanner_equals_manifest_notes(catalog, corpus):
    """The manifest records what Hermes' newest threat_patterns.py (00fd54f0) reports at the context scope."""
    scanner = ThreatScanner(catalog.parity, "latest")
    rows = load_manifest(corpus)
    assert len(rows) >= 80
    checked = 0
    for row in rows:
        note = row.hermes_note
        if not note:
            continue
        expected = set() if note == "clean" else {x.strip() for x in note.split(",")}
        text = row.path.read_bytes().decode("utf-8")
        assert set(scanner.scan(text, "context")) == expected, row.rel
        checked += 1
    assert checked >= 80


def _audit(catalog, row):
    kind = corpus_kind(row.rel)
    doc = Document.from_bytes(row.path.read_bytes(), row.rel, kind)
    return kind, Engine(catalog.rules).run(doc).findings


def test_benign_corpus_has_no_high_audit_findings(catalog, corpus):
    rows = [r for r in load_manifest(corpus) if r.label == "benign"]
    assert rows
    table = []
    offenders = []
    for row in rows:
        kind, findings = _audit(catalog, row)
        worst = max((f.severity for f in findings), default=None)
        table.append((row.rel, kind.value, len(findings), worst.label if worst is not None else "-",
                      ",".join(sorted({f.rule_id for f in findings})) or "-"))
        offenders.extend((row.rel, f.rule_id, f.start.line, f.message) for f in findings if f.severity >= Severity.HIGH)
    print("\nbenign corpus: file | kind | findings | worst | rules")
    for line in table:
        print(" | ".join(map(str, line)))
    print(f"benign files: {len(rows)}; with a finding at high or above: {len({o[0] for o in offenders})}")
    assert not offenders, offenders
