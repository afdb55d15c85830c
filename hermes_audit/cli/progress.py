"""Progress on a terminal for long work (scans, profile clones, ``hints --all``).

A :class:`Progress` shows one self-erasing line on standard error, redrawn a few
times a second, once the work has taken longer than a threshold (``$HERMES_AUDIT_PROGRESS_AFTER``
seconds, default 1.0): what is being done and for how long, and how far when the caller counts
(:meth:`Progress.advance`). It is shown only when standard error is a terminal and the run is not
in CI (``$CI`` unset or empty/``0``/``false``), and ``$HERMES_AUDIT_PROGRESS`` is not ``0``: pipes,
files and CI logs never get it. The line is written with :func:`os.write` on file descriptor 2 from a
daemon thread (no Python-level lock a forked worker could inherit held) and erased when the work ends.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Optional
from hermes_audit.cli.common import one_line

#: Environment variables (documented in docs/usage.md).
AFTER_ENV = "HERMES_AUDIT_PROGRESS_AFTER"
SWITCH_ENV = "HERMES_AUDIT_PROGRESS"
_FRAMES = "|/-\\"


def progress_enabled() -> bool:
    """True when a progress line may be drawn: standard error is a terminal, not CI, not switched off."""
    if os.environ.get(SWITCH_ENV, "").strip() == "0":
        return False
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    err = sys.stderr
    try:
        return err is not None and err.isatty() and os.isatty(2)
    except (OSError, ValueError):
        return False


def _threshold() -> float:
    try:
        return max(0.0, float(os.environ.get(AFTER_ENV, "1.0")))
    except ValueError:
        return 1.0


class Progress:
    """``with Progress("scanning 12 paths"):`` around long work. ``total`` and :meth:`advance` add a count
    (``37/120``). Does nothing at all when :func:`progress_enabled` is false."""

    def __init__(self, label: str, total: Optional[int] = None, interval: float = 0.15) -> None:
        self.label = one_line(label, 120)  # a label may carry a path or URL from a hostile source
        self.total = total
        self.done = 0
        self.interval = interval
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._drawn = False

    def advance(self, n: int = 1) -> None:
        self.done += n

    def _line(self, elapsed: float, frame: int) -> str:
        count = f" {self.done}/{self.total}" if self.total else ""
        return f"\rhermes-audit: {self.label}{count} {_FRAMES[frame % len(_FRAMES)]} {elapsed:.0f}s\x1b[K"

    def _run(self, start: float, after: float) -> None:
        if self._stop.wait(after):
            return
        frame = 0
        while not self._stop.is_set():
            try:
                os.write(2, self._line(time.monotonic() - start, frame).encode("utf-8", "replace"))
                self._drawn = True
            except OSError:
                return
            frame += 1
            self._stop.wait(self.interval)

    def __enter__(self) -> "Progress":
        if progress_enabled():
            self._thread = threading.Thread(target=self._run, args=(time.monotonic(), _threshold()),
                                            name="hermes-audit-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        if self._drawn:
            try:
                os.write(2, b"\r\x1b[K")  # erase the line: the report starts on a clean line
            except OSError:
                pass
