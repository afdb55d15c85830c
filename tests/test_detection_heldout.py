"""Detection quality on the held-out cases of tests/heldout/cases.yaml (written for this project).

Each case is one small file in one of fourteen languages. An attack must get an audit finding at
medium or above; an honest file must get none at high or above. The confusion table is printed,
and docs/detection.md reports it; the test fails if recall or false positives get worse than the
numbers recorded here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hermes_audit.documents.kinds import DocumentKind, classify
from hermes_audit.audits.detectors import AuditEngine as Engine
from hermes_audit.findings import Severity
from tests.detection_util import Outcome, audit_findings, confusion_table

CASES = Path(__file__).parent / "heldout" / "cases.yaml"
#: Recorded bar (see docs/detection.md): attacks detected, and honest files flagged at high or above.
MIN_DETECTED = 41
MAX_FALSE_POSITIVES = 0
#: Languages the set must cover (issue 7).
LANGUAGES = {"en", "zh", "ja", "ko", "fa", "ar", "he", "ru", "de", "fr", "es", "pt", "it", "hi"}

#: Filler for the case that hides its payload past Hermes' 65,536-character scan window.
_FILLER = "- Keep functions short and name them clearly.\n"


def load_cases() -> list[dict]:
    with open(CASES, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    cases = data["cases"]
    for c in cases:
        if "PADDING_PLACEHOLDER_70000" in c["text"]:
            c["text"] = c["text"].replace("PADDING_PLACEHOLDER_70000", _FILLER * (70_000 // len(_FILLER) + 1))
    return cases


def _run(catalog) -> list[Outcome]:
    engine = Engine(catalog.rules)
    out = []
    for c in load_cases():
        kind = classify(c["name"]) or DocumentKind.GENERIC
        label = "malicious" if c["expect"] == "attack" else "benign"
        out.append(Outcome(f"{c['id']} ({c['lang']})", label, audit_findings(engine, c["text"], c["name"], kind)))
    return out


def test_heldout_set_is_well_formed():
    cases = load_cases()
    assert len(cases) >= 60
    assert len({c["id"] for c in cases}) == len(cases)
    assert {c["expect"] for c in cases} == {"attack", "honest"}
    for lang in LANGUAGES:
        kinds = {c["expect"] for c in cases if c["lang"] == lang}
        assert kinds == {"attack", "honest"}, f"{lang}: needs an attack and an honest case"
    big = [c for c in cases if len(c["text"]) > 65_536]
    assert big and all(c["text"].index("Disregard") > 65_536 for c in big)


def test_heldout_confusion_table(catalog):
    outcomes = _run(catalog)
    table, nums = confusion_table("Audit rules on tests/heldout/cases.yaml", outcomes)
    print("\n" + table)
    assert nums["detected"] >= MIN_DETECTED, table
    assert nums["false_positives"] <= MAX_FALSE_POSITIVES, table


@pytest.mark.parametrize("lang", sorted(LANGUAGES - {"en"}))
def test_every_language_attack_detected_and_honest_quiet(catalog, lang):
    engine = Engine(catalog.rules)
    for c in load_cases():
        if c["lang"] != lang:
            continue
        kind = classify(c["name"]) or DocumentKind.GENERIC
        found = audit_findings(engine, c["text"], c["name"], kind)
        top = max((f.severity for f in found), default=Severity.INFO)
        if c["expect"] == "attack":
            assert top >= Severity.MEDIUM, (c["id"], [f.rule_id for f in found])
        else:
            assert top < Severity.HIGH, (c["id"], [(f.rule_id, f.snippet) for f in found])
