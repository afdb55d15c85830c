"""Near-misses for every pattern: texts built to make a backtracking search work hard (issue 18).

A near-miss is a pattern's own must-match example with its last word cut off (so the search fails
at the very end, after trying every split), whose word gaps are pumped: every run of blanks becomes
a long run of one character that the pattern's overlapping repetitions share (:func:`fuzz.shapes.overlaps`),
or of blanks, or of ``ab__`` (letters and underscores, the HA101 shape), repeated to the size asked.
:func:`subjects` lists every Hermes pattern of every modelled version and every audit rule;
:func:`run_one` runs one subject on one text under its deadline and reports what happened.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

#: Seconds per MB of text a search may take when it finishes (the fuzz target's bound): the scan of
#: record is 44 ms/MB at worst (docs/performance.md); this leaves room for a loaded machine.
BOUND_S_PER_MB = 10.0
#: Fixed allowance per run (start-up of a search, a loaded machine).
SLACK_S = 1.0
#: Fillers tried between words, besides the characters a pattern's overlaps share.
FILLERS = ("  ", "ab__", "_", "\t ", " x ")


@dataclass(frozen=True)
class Subject:
    """One pattern to try: ``kind`` is ``"hermes"`` (a parity rule under ``version``) or ``"audit"``."""

    kind: str
    code: str
    version: str
    pattern: str
    flags: int
    examples: tuple


@dataclass
class Outcome:
    """What one run did: seconds taken, characters searched, and whether it stopped at the deadline."""

    seconds: float
    chars: int
    stopped: int  # searches stopped at the deadline (Hermes stalls, audit-rule timeouts)
    deadline: float

    def allowed(self) -> float:
        """The time the run may take: the bound per MB, plus the deadline for each stopped search."""
        return BOUND_S_PER_MB * self.chars / 1_000_000 + self.stopped * self.deadline * 1.5 + SLACK_S


@lru_cache(maxsize=1)
def _catalog():
    from hermes_audit.patterns.catalog import load_catalog

    return load_catalog()


@lru_cache(maxsize=1)
def subjects() -> tuple:
    """Every Hermes pattern of every version profile, and every audit rule with patterns."""
    from hermes_audit.patterns.catalog import VERSIONS

    cat = _catalog()
    out = []
    for r in cat.parity.rules:
        for v in VERSIONS:
            out.append(Subject("hermes", r.code, v, r.pattern_for(v), re.IGNORECASE, tuple(r.examples_match)))
    for r in cat.rules:
        for p, c in zip(r.patterns, r.compiled):
            out.append(Subject("audit", r.code, "", p, c.flags, tuple(r.examples_match)))
    return tuple(out)


def fillers(subject: Subject) -> list[str]:
    """Gap fillers for ``subject``: a character each of its overlaps shares, then :data:`FILLERS`."""
    from fuzz.shapes import overlaps

    out: list[str] = []
    try:
        for o in overlaps(subject.pattern, subject.flags):
            ch = next((c for c in o.shared if c.isprintable() or c in " \t"), "")
            if ch and ch * 2 not in out:
                out.append(ch * 2)
    except (re.error, RecursionError):
        pass
    return out + [f for f in FILLERS if f not in out]


#: How a near-miss breaks its example: ``cut`` drops the last word; ``block`` puts a 600-letter word before
#: it (longer than the patterns' bounded gaps, so the words stay, and a keyword prefilter passes, but the
#: match fails after every split was tried: the shape of issue 18's AGENTS.md); ``block2`` before the
#: last two words.
BREAKS = ("cut", "block", "block2")


def near_miss(example: str, filler: str, size: int, pump: int = 40, how: str = "cut") -> str:
    """``example`` broken as ``how`` says (:data:`BREAKS`), each gap ``filler * pump``, repeated to about
    ``size`` characters."""
    words = example.split() or [example]
    blocker = "x" * 600
    if how == "block" and len(words) > 1:
        words = words[:-1] + [blocker, words[-1]]
    elif how == "block2" and len(words) > 2:
        words = words[:-2] + [blocker, *words[-2:]]
    else:
        words = words[:-1] if len(words) > 1 else [example[: max(1, len(example) - 1)]]
    gap = filler * pump
    unit = gap.join(words) + gap + "\n"
    return (unit * max(1, size // max(1, len(unit))))[: max(size, len(unit))]


#: Fillers per gap: a short gap, and one as long as the bounded gaps of Hermes' patterns (``{0,512}``).
PUMPS = (40, 600)


def texts(subject: Subject, size: int) -> list[str]:
    """The near-misses of ``subject`` at about ``size`` characters (two examples, every filler, each pump,
    each break)."""
    out = []
    for ex in subject.examples[:2] or ("x y",):
        for f in fillers(subject):
            for pump in PUMPS:
                for how in BREAKS:
                    out.append(near_miss(ex, f, size, max(1, pump // len(f)), how))
    return out


def run_one(subject: Subject, text: str, deadline: float) -> Outcome:
    """Run ``subject`` on ``text`` the way a scan does: a Hermes pattern through its version's scanner
    (strict scope, deadline ``deadline``), an audit rule through the engine (``regex_timeout=deadline``)."""
    import os

    cat = _catalog()
    t0 = time.perf_counter()
    if subject.kind == "hermes":
        old = os.environ.get("HERMES_AUDIT_PATTERN_DEADLINE")
        os.environ["HERMES_AUDIT_PATTERN_DEADLINE"] = str(deadline)
        try:
            scanner = _scanner(subject.version)
            before = len(scanner.stalls)
            scanner.scan(text, "strict")
            stopped = len(scanner.stalls) - before
        finally:
            if old is None:
                os.environ.pop("HERMES_AUDIT_PATTERN_DEADLINE", None)
            else:
                os.environ["HERMES_AUDIT_PATTERN_DEADLINE"] = old
        chars = min(len(text), scanner.max_scan_chars)
    else:
        from hermes_audit.documents.document import Document
        from hermes_audit.documents.kinds import DocumentKind
        from hermes_audit.audits.detectors import AuditEngine as Engine

        rule = next(r for r in cat.rules if r.code == subject.code)
        kind = next((k for k in (DocumentKind.GENERIC, *DocumentKind) if rule.applies_to(k)), DocumentKind.GENERIC)
        res = Engine([rule], regex_timeout=deadline).run(Document.from_text(text, "fuzz/AGENTS.md", kind))
        stopped = sum(1 for e in res.errors if "timed out" in e.message)
        chars = len(text)
    return Outcome(time.perf_counter() - t0, chars, stopped, deadline)


_SCANNERS: dict = {}


def _scanner(version: str):
    """A scanner of its own per version (its stall record starts empty)."""
    from hermes_audit.hermes.threats import ThreatScanner

    if version not in _SCANNERS:
        _SCANNERS[version] = ThreatScanner(_catalog().parity, version)
    return _SCANNERS[version]


def sweep(size: int = 16_384, deadline: float = 1.0, only: Optional[str] = None, verbose: bool = False) -> list:
    """Every subject on every near-miss of ``size`` characters; returns ``(subject, outcome)`` pairs whose
    time passed :meth:`Outcome.allowed` (``only``: a rule code)."""
    bad = []
    for s in subjects():
        if only and s.code != only:
            continue
        for t in texts(s, size):
            o = run_one(s, t, deadline)
            if verbose and (o.stopped or o.seconds > 0.2):
                print(f"{s.kind} {s.code} {s.version}: {o.seconds:.2f} s, {o.stopped} stopped, {o.chars:,} chars")
            if o.seconds > o.allowed():
                bad.append((s, o))
    return bad
