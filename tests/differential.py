"""The counts of the differential tests (issue 20): how many inputs each release's package was compared on, and
how many of those comparisons agreed, recorded to ``tests/differential_counts.json`` when the tests run with
``HERMES_AUDIT_RECORD_DIFFERENTIAL=1`` (``HERMES_AUDIT_RECORD_DIFFERENTIAL=1 pytest -m oracle
tests/test_parity_versions.py``; one release alone with ``-m hermes_0_17_0``). docs/versions.md's table is
generated from that file (``python -m tests.versions_doc``).

The file maps each release to the date (UTC, ``YYYY-MM-DD``) of its last recorded run and, per kind of check,
``inputs`` (texts or stores given to both), ``comparisons`` (an input at one scope: pattern ids and, for the
context scope, the ``_scan_context_content`` result) and ``agreements``; corpus checks add ``files``. A run
replaces the entries of the releases it ran and keeps the others.
"""

from __future__ import annotations

import datetime
import json
import os
from collections import defaultdict
from pathlib import Path

RECORD_ENV = "HERMES_AUDIT_RECORD_DIFFERENTIAL"
DATA = Path(__file__).with_name("differential_counts.json")

#: release -> kind -> counter name -> count, for this session
_SESSION: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))


def count(release: str, kind: str, **counts: int) -> None:
    """Add ``counts`` (``inputs=``, ``comparisons=``, ``agreements=``, ``files=``) to ``release``'s ``kind``."""
    for name, n in counts.items():
        _SESSION[release][kind][name] += n


def load() -> dict:
    """The recorded counts (``{}`` when none were recorded)."""
    try:
        data = json.loads(DATA.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def recording() -> bool:
    return os.environ.get(RECORD_ENV, "") not in ("", "0")


def write_session(today: str = "") -> bool:
    """Merge this session's counts into :data:`DATA` (only when :func:`recording`); ``True`` when written."""
    if not recording() or not _SESSION:
        return False
    data = load()
    day = today or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    for rel, kinds in _SESSION.items():
        data[rel] = {"date": day, "checks": {k: dict(sorted(c.items())) for k, c in sorted(kinds.items())}}
    DATA.write_text(json.dumps(dict(sorted(data.items())), indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return True


def summary(release: str, data: dict | None = None) -> str:
    """``"4,812 of 4,812 comparisons agree (1,203 inputs, 310 corpus files; 2026-12-02)"`` or ``"not recorded"``."""
    entry = (load() if data is None else data).get(release)
    if not isinstance(entry, dict):
        return "not recorded"
    checks = entry.get("checks", {})
    tot = {k: sum(c.get(k, 0) for c in checks.values()) for k in ("inputs", "comparisons", "agreements", "files")}
    files = f", {tot['files']:,} corpus files" if tot["files"] else ""
    return (f"{tot['agreements']:,} of {tot['comparisons']:,} comparisons agree ({tot['inputs']:,} inputs{files}; "
            f"{entry.get('date', '?')})")
