"""Issue 18: a small, quick run of the ``redos`` fuzz target's near-misses (:mod:`fuzz.nearmiss`).

No wall-clock assertion: the near-misses run in a subprocess whose timeout is the guard (without the
deadline, Hermes' ``translate_execute`` takes hours on them); what is asserted is that the searches that
backtrack are stopped and reported (a Hermes stall; the CLI's finding and exit code 3), and that every
pattern's near-misses come to an end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz import nearmiss

ROOT = Path(__file__).resolve().parent.parent
GUARD = 600

_SCRIPT = r"""
import json, sys
from fuzz import nearmiss as m
kind, size, deadline = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
stopped, runs = set(), 0
for s in m.subjects():
    if s.kind != kind:
        continue
    texts = m.texts(s, size)
    if kind == "audit":
        texts = [t for t in texts if t.count("x" * 600)][:2] + texts[:1]  # quick: three per pattern
    for t in texts:
        got = m.run_one(s, t, deadline)
        runs += 1
        if got.stopped:
            stopped.add(f"{s.code}@{s.version}")
print(json.dumps({"runs": runs, "stopped": sorted(stopped)}))
"""


def _sweep(kind: str, size: int, deadline: float) -> dict:
    out = subprocess.run([sys.executable, "-c", _SCRIPT, kind, str(size), str(deadline)], capture_output=True,
                         text=True, timeout=GUARD, cwd=ROOT, env={**os.environ, "HERMES_AUDIT_JOBS": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_modelled_hermes_pattern_has_near_misses():
    subs = nearmiss.subjects()
    hermes = {(s.code, s.version) for s in subs if s.kind == "hermes"}
    assert {v for _c, v in hermes} == set(nearmiss._catalog().parity.versions)
    assert len({c for c, _v in hermes}) == len(nearmiss._catalog().parity.rules)
    assert {s.code for s in subs if s.kind == "audit"} == {r.code for r in nearmiss._catalog().rules if r.patterns}
    assert all(nearmiss.texts(s, 2048) for s in subs)


def test_hermes_near_misses_end_and_the_backtracking_ones_stall():
    got = _sweep("hermes", 2048, 0.3)
    assert got["runs"] > 1000
    # translate_execute (HP007) of 0.19 and 0.15: the session would hang; the scan stops and says so
    assert {"HP007@0.19", "HP007@0.15"} <= set(got["stopped"]), got


def test_audit_near_misses_end():
    got = _sweep("audit", 2048, 2.0)
    assert got["runs"] > 300


# latest's translate_execute bounds its second gap to three words: its near-misses end in about 0.1 s, close
# enough to a 0.3 s deadline that whether they stall depends on the machine; 0.19's and 0.15's take hours
@pytest.mark.parametrize("version", ["0.19", "0.15"])
def test_a_generated_near_miss_is_a_stall_finding_and_exit_3(tmp_path, version):
    subject = next(s for s in nearmiss.subjects() if s.code == "HP007" and s.version == version)
    text = next(t for t in nearmiss.texts(subject, 2048) if "x" * 600 in t and "  " in t)
    (tmp_path / "AGENTS.md").write_text(text)
    out = subprocess.run([sys.executable, "-m", "hermes_audit", "scan", "--hermes-version", version, "--format",
                          "json", str(tmp_path)], capture_output=True, text=True, timeout=GUARD, cwd=ROOT,
                         env={**os.environ, "HERMES_AUDIT_PATTERN_DEADLINE": "0.3", "HERMES_AUDIT_JOBS": "1"})
    assert out.returncode == 3, out.stderr[-2000:]
    assert any(f.get("hermes_pattern_id") == "translate_execute" and "did not finish" in f["message"]
               for f in json.loads(out.stdout)["findings"])
