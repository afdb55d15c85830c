"""The tail of a Hermes pattern (issue 8): the part after its last long gap, a necessary condition
that :class:`hermes_audit.hermes.threats.ThreatScanner` checks before trying each candidate start, and
that the catalog cache records (:mod:`hermes_audit.patterns.catalog`). Pure regular-expression syntax,
below the Hermes model (moved here from ``hermes/threats.py``, issue 21)."""

from __future__ import annotations

import re
from typing import Optional

from hermes_audit.patterns.prefilter import depth0_units

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: A top-level repetition allowing at least this many characters is a gap the tail check splits at.
_GAP_MIN = 64


def _top_level_alternation(pattern: str) -> Optional[bool]:
    """Whether ``pattern`` has a ``|`` outside every group and class (``None``: not sure, e.g. an
    unbalanced text; :func:`~hermes_audit.patterns.prefilter.depth0_units` reads the text)."""
    try:
        return any(kind == "|" for _start, _end, kind, _atom_end in depth0_units(pattern))
    except ValueError:
        return None


def _is_space_repeat(item) -> bool:
    """Whether a parsed item is a repetition of ``\\s`` (part of a gap's edge, not a gap of its own)."""
    op, av = item
    return op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and list(av[2]) == [(_c.IN, [(_c.CATEGORY, _c.CATEGORY_SPACE)])]


def _is_word_repeat(item) -> bool:
    """Whether a parsed item is a repetition of ``\\w`` alone: a run within one word, not a gap across text (issue
    21: in ``curl\\s+[^\\n]*\\$\\{?\\w*(KEY|TOKEN|...)`` the tail after ``\\w*`` was ``(KEY|...)``, which a text
    with "api" everywhere passes; after ``[^\\n]*`` it needs a ``$`` before the keyword)."""
    op, av = item
    return op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and list(av[2]) == [(_c.IN, [(_c.CATEGORY, _c.CATEGORY_WORD)])]


def tail_pattern(pattern: str, flags: int):
    """The part of ``pattern`` after its last gap, compiled with ``re`` and ``flags``, or ``None``
    when the pattern does not split so.

    A gap is a top-level repetition of at least :data:`_GAP_MIN` characters (``[^\\n]{0,2048}``); a run of
    ``\\w`` alone is not one (the tail may start before it, :func:`_is_word_repeat`).
    The tail starts after the last gap other than a ``\\s`` run, and after the ``\\s`` runs that
    follow it (``(to|at)\\s+https?://`` in ``...[^\\n]{0,2048}\\s+(to|at)\\s+https?://``): a tail that
    starts with a repetition tries every position, slower than no tail. Without such a gap the
    tail follows the last long repetition (``["'][A-Za-z0-9+/=_-]{20,}`` after ``\\s*``).

    Soundness: ``pattern`` is the concatenation of two complete regular expressions ``P`` and
    ``S`` (neither has a top-level ``|``; no back-references, conditionals or inline flags,
    which could tie ``S`` to ``P``), so a match of ``pattern`` at ``i`` is a match of ``P`` on
    ``[i, q)`` followed by a match of ``S`` at ``q >= i``, and ``S.match(text, q)`` succeeds
    there too (look-arounds see the whole text, as in the full pattern). Hence when
    ``S.search(text, i)`` finds nothing, no match starts at ``i`` or later.
    """
    if flags & re.VERBOSE or re.search(r"\(\?[aiLmsux-]|\(\?\(|\(\?P=|\\[1-9]|\\g<", pattern):
        return None
    if _top_level_alternation(pattern) is not False:
        return None
    splits = []  # (j, the head ends with a gap that is not a \s run, the tail is usable)
    for j in range(1, len(pattern)):
        if pattern[j - 1] not in "}*+?":
            continue
        head, rest = pattern[:j], pattern[j:]
        if _top_level_alternation(head) is not False or _top_level_alternation(rest) is not False:
            continue
        try:
            head_items = list(_sre_parse.parse(head, flags))
            rest_items = _sre_parse.parse(rest, flags)
        except (re.error, RecursionError, OverflowError):
            continue
        if not head_items or head_items[-1][0] not in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            continue
        if head_items[-1][1][1] < _GAP_MIN:
            continue  # ``s?`` in ``https?://`` leaves a weak tail
        usable = bool(len(rest_items) and rest_items[0][0] not in (_c.MAX_REPEAT, _c.MIN_REPEAT)
                      and rest_items.getwidth()[0] > 0)  # a tail matching the empty string is no condition
        splits.append((j, not (_is_space_repeat(head_items[-1]) or _is_word_repeat(head_items[-1])), usable))
    # Only the tails the choice depends on are compiled (issue 8: compiling every candidate cost
    # ~15 ms per process). A split whose tail does not compile (an error ``re`` raises only when
    # compiling) is dropped and the choice made again, as if it had never been a candidate.
    compiled: dict = {}

    def compiles(j: int) -> bool:
        if j not in compiled:
            try:
                compiled[j] = re.compile(pattern[j:], flags)
            except (re.error, RecursionError, OverflowError):
                compiled[j] = None
        return compiled[j] is not None

    while True:
        gaps = [j for j, real_gap, _u in splits if real_gap]
        if gaps and not compiles(gaps[-1]):
            splits = [sp for sp in splits if sp[0] != gaps[-1]]
            continue
        if gaps:
            after = [j for j, _g, u in splits if j >= gaps[-1] and u]
            chosen = after[0] if after else None
        else:
            usable_tails = [j for j, _g, u in splits if u]
            chosen = usable_tails[-1] if usable_tails else None
        if chosen is None:
            return None
        if compiles(chosen):
            return compiled[chosen]
        splits = [sp for sp in splits if sp[0] != chosen]
