"""A scan killed mid-way (SIGKILL: no clean-up runs) leaves no worker behind, even one whose results fill its
pipe: the worker holds no read end of its own pipe, so its next send fails and it ends (QA: a worker stuck in
a pipe write kept a scan server's client waiting and its lock taken)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Forks workers (3 processes in all) over 40 documents whose results (200,000 characters each) overfill a
#: pipe, prints the workers' pids, then computes.
PROGRAM = r"""
import multiprocessing, sys, time
from hermes_audit.audits import parallel

def work(d):
    time.sleep(0.3)
    return "r" * 200_000

finish = parallel.start_map_documents(work, ["x" * 40_000] * 40, (), jobs=3)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
finish()
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ")[-1][:1] not in ("Z", "X")  # a zombie has ended
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork start method and /proc")
def test_workers_end_when_their_scan_is_killed():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", PROGRAM], stdout=subprocess.PIPE, env=env, cwd=ROOT)
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2, pids
        time.sleep(1.0)  # mid-way: chunks left to send, and soon nobody to read them
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 60  # a liveness bound, not a speed figure: stuck workers never end
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in pids if _alive(p)]
        assert not left, f"workers still running after their scan was killed: {left}"
    finally:
        for p in pids if "pids" in locals() else ():
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
