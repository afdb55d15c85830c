"""Issue 19: detection on the shared half of the external evaluation set (``../shared/corpus-external``, files
nobody on this project wrote), measured by ``python -m benchmarks.detection``. The figures may only get better:
each floor below is what the code reached when it was set (docs/detection.md has the table)."""

from __future__ import annotations

import pytest

from benchmarks.detection import DEFAULT_DIR, evaluate, figures

#: Attacks detected at medium or above (detection findings only), per class: at least these many.
MIN_DETECTED = {"agent": 331, "jailbreak": 94}
#: Honest files with a detection finding at medium or above: at most this many (of 214; the goal is <= 2 %).
MAX_HONEST_AT_MEDIUM = 2


@pytest.fixture(scope="module")
def fig():
    if not (DEFAULT_DIR / "attacks-manifest.tsv").is_file() or not (DEFAULT_DIR / "benign-manifest.tsv").is_file():
        pytest.skip(f"external evaluation set not found at {DEFAULT_DIR} (set HERMES_AUDIT_EXTERNAL_CORPUS)")
    return figures(evaluate(DEFAULT_DIR))


@pytest.mark.parametrize("klass", sorted(MIN_DETECTED))
def test_recall_does_not_get_worse(fig, klass):
    got = fig["classes"][klass]
    assert got["detected"] >= MIN_DETECTED[klass], got


def test_no_honest_file_has_a_detection_at_high(fig):
    assert fig["benign"]["high"] == 0, [p for p in fig["false_alarms"] if p.startswith("benign/")]


def test_honest_files_at_medium_stay_few(fig):
    assert fig["benign"]["medium"] <= MAX_HONEST_AT_MEDIUM, fig["benign"]


def test_no_look_alike_or_probe_is_flagged_at_high(fig):
    assert fig["noise"]["high"] == 0, [p for p in fig["false_alarms"] if p.startswith("attacks/")]
