"""Issue 18 item 10: no audit pattern has overlapping adjacent repetitions (the polynomial-backtracking
shape; :mod:`fuzz.shapes`), and the checker finds the shapes that were there."""

from __future__ import annotations

import re

import pytest

from fuzz.shapes import overlaps


def _audit_patterns(catalog):
    for r in catalog.rules:
        for p, c in zip(r.patterns, r.compiled):
            yield r.code, p, c.flags


def test_no_audit_pattern_has_overlapping_adjacent_repeats(catalog):
    bad = {}
    for code, p, flags in _audit_patterns(catalog):
        found = overlaps(p, flags)
        if found:
            bad.setdefault(code, []).append((p[:80], found[0]))
    assert not bad, bad


@pytest.mark.parametrize("pattern, shared", [
    # HA101 before issue 18: \w holds "_", and so does [\W_]
    (r"\bignore[\W_]{1,4}(?:\w+[\W_]{1,4}){0,4}?(?:all|any)[\W_]{1,4}(?:\w+[\W_]{1,4}){0,3}?instructions\b", "_"),
    # HA303 before: two \s* with only an optional marker between them
    (r"^[ \t]{0,3}\[(?://|comment|_|#)\]:\s*(?:#|<>)?\s*[(\"'][^\n]{12,}", "\t"),
    # HA503 before: the key's characters are also the gap's
    (r"AAAA[A-Za-z0-9+/=]{8,}[^\n]{0,200}authorized_keys", "+"),
    # Hermes' own translate_execute (latest): \s+ and [^\n]{0,512} share the blanks
    (r"translate\s+[^\n]{0,512}\s+into\s+\w+(?:[\s-]+\w+){0,2}\s+and\s+(execute|run|eval)\b", "\t"),
])
def test_the_checker_finds_the_old_shapes(pattern, shared):
    found = overlaps(pattern, re.IGNORECASE)
    assert found and any(shared in o.shared for o in found), found  # (o.shared: the first eight shared)


@pytest.mark.parametrize("pattern", [
    r"\bignore[\W_]{1,4}(?:[^\W_]+[\W_]{1,4}){0,4}?(?:all|any)\b",  # disjoint classes
    r"AAAA[A-Za-z0-9+/=]{8,}+[^\n]{0,200}authorized_keys",          # the left side gives nothing back
    r"[A-Z_]*\}?[^\s]{0,200}[\"']?",                                 # nothing after it can fail
    r"[ \t]{1,4}[^\n]{0,80}x",                                       # bounded: at most 320 splits
])
def test_the_checker_passes_safe_shapes(pattern):
    assert overlaps(pattern, re.IGNORECASE) == []
