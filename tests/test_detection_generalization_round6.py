"""Issue 19, round 6 of the project's independent set (``tests/generalization/round6/``): 65 payloads in 11 languages
and 31 honest look-alikes, written before reading any rule and measured once untuned (``round6/measurement.txt``:
agent 90/118, jailbreak 10/12, honest 1/37 at high). Nothing has been tuned on it yet; the floors below are the
untuned figures, so the set guards against regressions until its misses are fixed as capabilities (the known
false alarm, h006, is a defensive prompt whose second listed item sits on the line after "asks you to")."""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.detection import evaluate, figures

HERE = Path(__file__).resolve().parent / "generalization"
SET6 = HERE / "round6"


def test_round6_figures_do_not_get_worse():
    fig = figures(evaluate(SET6))
    assert fig["classes"]["agent"]["detected"] >= 90, fig["classes"]["agent"]
    assert fig["classes"]["jailbreak"]["detected"] >= 10, fig["classes"]["jailbreak"]
    assert fig["benign"]["high"] <= 1 and fig["benign"]["medium"] <= 1, fig["false_alarms"]


def test_round6_is_what_its_sources_build():
    sys.path.insert(0, str(HERE))
    try:
        from build import manifests
        from carriers3 import CARRIERS
        from honest6 import HONEST
        from payloads6 import PAYLOADS
    finally:
        sys.path.remove(str(HERE))
    attacks, benign = manifests(SET6)
    assert len(PAYLOADS) >= 60 and len(HONEST) >= 30
    assert {lang for _, lang, _ in PAYLOADS} >= {"en", "tr", "es", "fr", "de", "ru", "zh", "ja"}
    assert len(attacks) == 2 * len(PAYLOADS) and len(benign) == len(HONEST) + len(CARRIERS)
    for row in attacks:
        assert PAYLOADS[int(row["payload_no"]) - 1][2] in (SET6 / row["path"]).read_text(encoding="utf-8"), row["path"]
