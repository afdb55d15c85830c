"""Seventh red team (issue 18): every Python that hermes-audit starts in a directory the scanned repository
controls runs isolated (`python -I`): `python -m` otherwise puts the current directory first on sys.path, and
a `sarif_om.py` or `hermes_audit.py` committed there runs as the user (the Action, the scan server's start)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_the_actions_step_runs_python_isolated():
    steps = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["steps"]
    runs = [s["run"] for s in steps if "hermes_audit" in str(s.get("run", ""))]
    assert runs and all(" -I -m hermes_audit" in r for r in runs), runs


def test_the_actions_scans_run_python_isolated():
    src = (ROOT / "hermes_audit" / "action.py").read_text(encoding="utf-8")
    assert '"-m", "hermes_audit"' not in src.replace('"-I", "-m", "hermes_audit"', "")


def test_the_scan_server_starts_isolated(monkeypatch):
    from hermes_audit.server import client

    seen = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **kw: seen.append(argv))
    client._start_in_background()
    assert seen and seen[0][1:4] == ["-I", "-m", "hermes_audit"]
