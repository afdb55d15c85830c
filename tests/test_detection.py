"""Detection quality on the evaluation corpus (../shared/corpus): the bar of issue 7.

* every malicious file gets at least one audit finding at medium or above
  (recall 100 %; no row is excluded: the story-framed Mosscap row is caught by
  the medium-severity ``secret-extraction`` rule, the two seam-split pairs by
  the seam scan of the two files laid out as ``.cursor/rules/*.mdc``);
* no benign file gets an audit finding at high or above.

The confusion table is printed (``pytest -s`` shows it); the test fails if
either number is worse than recorded here.
"""

from __future__ import annotations

import pytest

from hermes_audit.audits.detectors import AuditEngine as Engine
from hermes_audit.findings import Severity
from tests.corpus_util import corpus_kind, load_manifest
from tests.detection_util import Outcome, audit_findings, confusion_table, seam_findings_for, seam_key

#: Rows excluded from recall, with the reason. Empty: every malicious row is covered.
EXCLUDED: dict[str, str] = {}
#: The recorded bar: recall on covered malicious rows and false positives on benign rows.
MIN_RECALL = 1.0
MAX_FALSE_POSITIVES = 0
#: Expected-kind coverage: share of (malicious file, expected kind) pairs answered by a rule of that kind
#: (measured 84/86; the two misses: `rm -rf ~/.cache/*` is not reported as destructive, and issue 41594's
#: file has no deception wording).
MIN_KIND_COVERAGE = 84 / 86


def _outcomes(corpus, catalog, tmp_path, version="latest"):
    engine = Engine(catalog.rules)
    rows = load_manifest(corpus)
    outcomes = {}
    for row in rows:
        text = row.path.read_text(encoding="utf-8", errors="surrogateescape")
        o = Outcome(row.rel, row.label, audit_findings(engine, text, row.rel, corpus_kind(row.rel)), row.expected_kinds)
        outcomes[row.rel] = o
    pairs: dict[str, list] = {}
    for row in rows:
        key = seam_key(row.rel)
        if key:
            pairs.setdefault(key, []).append(row)
    for key, members in pairs.items():
        found = seam_findings_for(engine, [r.path for r in members], tmp_path / key, version)
        for r in members:
            outcomes[r.rel].findings.extend(found.get(r.path.name, []))
    return outcomes


def test_corpus_confusion_table(corpus, catalog, tmp_path):
    outcomes = _outcomes(corpus, catalog, tmp_path)
    covered = [o for rel, o in outcomes.items() if rel not in EXCLUDED]
    table, nums = confusion_table("Audit rules on ../shared/corpus (Hermes profile latest)", covered)
    pairs = [(o, k) for o in covered if o.label == "malicious" for k in o.expected_kinds]
    kinds_hit = sum(1 for o, k in pairs if k in o.kinds_found())
    coverage = kinds_hit / len(pairs) if pairs else 1.0
    print("\n" + table + f"\n  expected-kind coverage {kinds_hit}/{len(pairs)} ({coverage:.1%})")
    assert nums["recall"] >= MIN_RECALL, table
    assert nums["false_positives"] <= MAX_FALSE_POSITIVES, table
    assert coverage >= MIN_KIND_COVERAGE, f"expected-kind coverage fell to {coverage:.1%}"


def test_seam_pairs_are_found_only_together(corpus, catalog, tmp_path):
    """Each half of a seam split scans clean alone at high severity; together they give a finding with both files."""
    engine = Engine(catalog.rules)
    rows = [r for r in load_manifest(corpus) if seam_key(r.rel)]
    assert len(rows) == 4
    by_key: dict[str, list] = {}
    for r in rows:
        by_key.setdefault(seam_key(r.rel), []).append(r)
    for key, members in by_key.items():
        first = sorted(members, key=lambda r: r.rel)[0]
        alone = audit_findings(engine, first.path.read_text(encoding="utf-8"), first.rel, corpus_kind(first.rel))
        assert not [f for f in alone if f.rule_id == "HA101"], key
        found = seam_findings_for(engine, [r.path for r in members], tmp_path / key, "latest")
        seam = [f for fs in found.values() for f in fs if f.rule_id == "HA101"]
        assert seam, key
        f = seam[0]
        assert f.severity >= Severity.HIGH
        assert len(f.related) == 1 and f.related[0].path != f.path
        assert "across the seam" in f.message


@pytest.mark.parametrize("version", ["0.19", "latest"])
def test_benign_corpus_quiet_in_both_profiles(corpus, catalog, tmp_path, version):
    outcomes = _outcomes(corpus, catalog, tmp_path, version)
    noisy = {rel: sorted({f"{f.rule_id}:{f.severity.label}" for f in o.findings if f.severity >= Severity.HIGH})
             for rel, o in outcomes.items() if o.label == "benign" and o.false_positive}
    assert not noisy


def test_attack_descriptions_are_demoted_not_silenced(corpus, catalog):
    """Benign security docs quote attacks: the findings stay, at lower confidence and at most medium."""
    engine = Engine(catalog.rules)
    rel = "benign/renxia__hermes-agent-docs__docs__user-guide__features__context-files.md"
    path = corpus / rel
    if not path.exists():
        pytest.skip("corpus file missing")
    found = audit_findings(engine, path.read_text(encoding="utf-8"), rel, corpus_kind(rel))
    assert found, "descriptions must not be silenced"
    assert all(f.severity <= Severity.MEDIUM for f in found)
    assert any("describe rather than instruct" in f.message for f in found)
