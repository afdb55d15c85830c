"""The fuzzing harness (``fuzz/``, issue 9) stays runnable: each target passes its seeds and a short
hypothesis session, and a saved failure replays. Longer sessions: ``python -m fuzz all --seconds 600``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fuzz.targets import TARGETS, seeds

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_target_passes_its_seeds(name):
    for data in seeds():
        TARGETS[name](data)


def test_a_target_reports_a_real_failure(monkeypatch):
    """The harness would notice a bug: with a memory splitter that forgets universal newlines, the
    memory target fails on a CRLF store (and passes on it with the real one)."""
    import hermes_audit.hermes.memory as memory

    data = "one\r\n\u00a7\r\ntwo".encode()
    TARGETS["memory"](data)

    def broken(text):
        return [(text.find(e), e) for e in dict.fromkeys(p.strip() for p in text.split("\n\u00a7\n")) if e]

    monkeypatch.setattr(memory, "memory_entries", broken)
    with pytest.raises(AssertionError):
        TARGETS["memory"](data)


def test_command_line_session_and_replay(tmp_path):
    p = subprocess.run([sys.executable, "-m", "fuzz", "memory", "--seconds", "1", "--engine", "hypothesis"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and "no failure" in p.stdout, p.stderr
    sample = tmp_path / "input.bin"
    sample.write_bytes(b"\x01one\n\xc2\xa7\ntwo")
    p = subprocess.run([sys.executable, "-m", "fuzz", "scan", "--replay", str(sample)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "no failure" in p.stdout, p.stderr
