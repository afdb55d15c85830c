"""A deadline for one call that may spend a long time in Python's ``re`` (issue 18).

Hermes' own patterns run under ``re`` (exact parity with ``tools/threat_patterns.py``,
hermes-agent 0.19.0), and ``re`` has no ``timeout``. Its matcher does, however, call
``PyErr_CheckSignals`` every few thousand steps (CPython's ``Modules/_sre``: a handler's exception
ends the match with ``SRE_ERROR_INTERRUPTED``), so a Python signal handler that raises stops a search
that backtracks for hours (tests/test_pattern_deadline.py checks that it does). :func:`call_with_deadline` arms a one-shot ``ITIMER_REAL`` timer whose
``SIGALRM`` handler raises :class:`PatternDeadline`; the match itself is the unchanged ``re`` call,
so whenever it finishes in time its result is exactly Hermes'.

Limits: signals are delivered to the main thread only, and ``setitimer`` is POSIX. Outside the
main thread, on a platform without ``setitimer``, inside another :func:`call_with_deadline`, or
while some other code holds an ``ITIMER_REAL`` timer, the call runs without a deadline (every
``hermes-audit`` command, its scan server's forked copies and its forked workers run scans in
their main thread). docs/hardening.md explains why this was chosen over the ``regex`` module and
over a killable worker process (measurements there).
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, Callable, Optional

#: Seconds one Hermes pattern may run on one scanned text before it is abandoned (the audit rules have
#: ``hermes_audit.engine.engine.REGEX_TIMEOUT``, the same value). ``$HERMES_AUDIT_PATTERN_DEADLINE``
#: (a positive number of seconds) overrides it: see :func:`hermes_deadline`.
HERMES_PATTERN_DEADLINE = 5.0

_armed = False
_HAS_TIMER = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")


class PatternDeadline(TimeoutError):
    """A call passed its deadline and was interrupted (raised by :func:`call_with_deadline`)."""


def hermes_deadline() -> float:
    """Seconds for one Hermes pattern on one text: ``$HERMES_AUDIT_PATTERN_DEADLINE`` when it is a
    positive number, else :data:`HERMES_PATTERN_DEADLINE`."""
    env = os.environ.get("HERMES_AUDIT_PATTERN_DEADLINE", "").strip()
    if env:
        try:
            value = float(env)
        except ValueError:
            value = 0.0
        if 0 < value < 1e6:
            return value
    return HERMES_PATTERN_DEADLINE


def _on_alarm(_signum: int, _frame: Any) -> None:
    if _armed:
        raise PatternDeadline()


def deadline_available() -> bool:
    """Whether :func:`call_with_deadline` can interrupt a call made here (main thread, POSIX timer)."""
    return _HAS_TIMER and threading.current_thread() is threading.main_thread()


def call_with_deadline(seconds: Optional[float], fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, interrupted by :class:`PatternDeadline` once ``seconds`` (wall clock) have passed.

    ``fn`` must be safe to interrupt at any point (a regular-expression search is). ``None`` or a
    call where no deadline can be armed (see the module's limits) runs ``fn`` without one. A ``SIGALRM``
    handler installed from Python is put back afterwards, also when ``fn`` raises; when there is none
    (the default action, or ignored), this module's handler stays installed for later calls (it costs
    two system calls fewer) and ignores a ``SIGALRM`` that arrives outside a call.
    """
    global _armed
    if seconds is None or _armed or not deadline_available():
        return fn(*args)
    current = signal.getsignal(signal.SIGALRM)
    restore = None  # the handler to put back afterwards (None: ours stays installed)
    if current is not _on_alarm:
        if current in (signal.SIG_DFL, signal.SIG_IGN, None):
            signal.signal(signal.SIGALRM, _on_alarm)  # nobody else handles SIGALRM: ours stays (speed)
        else:
            restore = signal.signal(signal.SIGALRM, _on_alarm)  # someone else's: lent for this call only
    _armed = True
    other = signal.setitimer(signal.ITIMER_REAL, seconds)
    if other[0] > 0:  # someone else's timer: give it back, and run without a deadline
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, *other)
        if restore is not None:
            signal.signal(signal.SIGALRM, restore)
        return fn(*args)
    try:
        try:
            return fn(*args)
        finally:
            _armed = False  # a signal arriving after this line is ignored by the handler
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        if restore is not None:
            signal.signal(signal.SIGALRM, restore)
