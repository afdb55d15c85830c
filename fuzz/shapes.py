"""A checker for the regular-expression shape that backtracks polynomially (issue 18 item 10).

Two repetitions that can meet (one right after the other, or the end of a repeated group's body and
its start, where one iteration meets the next) and whose characters overlap let the engine split
the same text between them in many ways: ``(?:\\w+[\\W_]{1,4}){0,4}?`` overlaps on ``_`` (``\\w``
holds it), so ``'ignore ' + 'ab__' * 100`` made HA101 time out on 430 bytes. :func:`overlaps` lists
such pairs in a pattern, from its parse (``re``'s parser, which reads the syntax the audit rules use;
``regex``-only syntax raises ``re.error``).

A pair counts when it can cost more than a constant per match attempt: one side unbounded (``+``,
``*``, ``{n,}``) or both bounds multiplied above :data:`MAX_BOUNDED_WORK`. It does not count when the
left side cannot give characters back (possessive ``*+``/``++``/``{m,n}+``, an atomic group), or when
nothing that follows it can fail (everything after it, to the end of the pattern, matches the empty
string: the first split found is the match). Characters are compared over U+0000..U+2FFF and the
full-width forms, case-folded under ``IGNORECASE``; ``\\w``, ``\\s``, ``\\d`` as ``re`` defines them.
tests/test_pattern_shapes.py runs it over the catalog; fixes: disjoint classes (``[^\\W_]+`` before
``[\\W_]{1,4}``) or a possessive repeat where it keeps the language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse as P  # type: ignore[no-redef]

#: Above this product of two bounded repetitions' maxima, an overlap counts (a constant, but a large one).
MAX_BOUNDED_WORK = 16_384
_ALPHABET = [chr(i) for i in range(0x3000)] + [chr(i) for i in range(0xFF00, 0xFF70)]
_INDEX = {c: i for i, c in enumerate(_ALPHABET)}
_ALL = frozenset(range(len(_ALPHABET)))
_REPEATS = tuple(op for op in (getattr(C, n, None) for n in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"))
                 if op is not None)
_POSSESSIVE = getattr(C, "POSSESSIVE_REPEAT", None)
_ATOMIC = getattr(C, "ATOMIC_GROUP", None)
_CATEGORIES: dict = {}


@dataclass(frozen=True)
class Overlap:
    """Two repetitions that can meet and share characters: ``where`` is ``"next"`` (one follows the
    other) or ``"wrap"`` (the end and the start of one repeated group's body); ``shared`` shows up to
    eight shared characters."""

    where: str
    left: str
    right: str
    shared: str


def _category(cat) -> frozenset:
    if cat not in _CATEGORIES:
        src = {C.CATEGORY_DIGIT: r"\d", C.CATEGORY_NOT_DIGIT: r"\D", C.CATEGORY_SPACE: r"\s",
               C.CATEGORY_NOT_SPACE: r"\S", C.CATEGORY_WORD: r"\w", C.CATEGORY_NOT_WORD: r"\W"}.get(cat)
        rx = re.compile(src) if src else None
        _CATEGORIES[cat] = frozenset(i for i, ch in enumerate(_ALPHABET) if rx is None or rx.match(ch))
    return _CATEGORIES[cat]


def _literal(code: int, icase: bool) -> frozenset:
    ch = chr(code)
    forms = {ch, ch.lower(), ch.upper()} if icase else {ch}
    return frozenset(_INDEX[f] for f in forms if f in _INDEX)


def _charset(op, av, icase: bool):
    if op is C.LITERAL:
        return _literal(av, icase)
    if op is C.NOT_LITERAL:
        return _ALL - _literal(av, icase)
    if op is C.ANY:
        return _ALL - _literal(10, False)
    if op is C.CATEGORY:
        return _category(av)
    if op is C.IN:
        got: set = set()
        negate = False
        for o, a in av:
            if o is C.NEGATE:
                negate = True
            elif o is C.LITERAL:
                got |= _literal(a, icase)
            elif o is C.RANGE:
                for c in range(a[0], min(a[1], 0xFF6F) + 1):
                    got |= _literal(c, icase)
            elif o is C.CATEGORY:
                got |= _category(a)
            else:
                return _ALL  # unknown member: assume anything
        return _ALL - got if negate else frozenset(got)
    return None


def _nullable(item) -> bool:
    op, av = item
    if op in _REPEATS:
        return av[0] == 0 or _nullable_seq(av[2])
    if op in (C.ASSERT, C.ASSERT_NOT, C.AT):
        return True
    if op is C.SUBPATTERN:
        return _nullable_seq(av[3])
    if op is _ATOMIC:
        return _nullable_seq(av)
    if op is C.BRANCH:
        return any(_nullable_seq(b) for b in av[1])
    return False


def _nullable_seq(seq) -> bool:
    return all(_nullable(i) for i in seq)


def _icase(av, icase: bool) -> bool:
    add, remove = av[1] or 0, av[2] or 0
    return (icase or bool(add & re.IGNORECASE)) and not bool(remove & re.IGNORECASE)


def _edge(item, icase: bool, last: bool) -> frozenset:
    op, av = item
    cs = _charset(op, av, icase)
    if cs is not None:
        return cs
    if op in _REPEATS:
        return _edge_seq(av[2], icase, last)
    if op is C.SUBPATTERN:
        return _edge_seq(av[3], _icase(av, icase), last)
    if op is _ATOMIC:
        return _edge_seq(av, icase, last)
    if op is C.BRANCH:
        return frozenset().union(*(_edge_seq(b, icase, last) for b in av[1]))
    if op in (C.ASSERT, C.ASSERT_NOT, C.AT):
        return frozenset()
    return _ALL  # back-references, conditionals: anything


def _edge_seq(seq, icase: bool, last: bool) -> frozenset:
    out: frozenset = frozenset()
    for it in (list(seq)[::-1] if last else list(seq)):
        out |= _edge(it, icase, last)
        if not _nullable(it):
            break
    return out


def _is_repeat(item) -> bool:
    return item[0] in _REPEATS and item[1][1] >= 2


def _costly(a, b) -> bool:
    ca, cb = a[1][1], b[1][1]
    return ca >= C.MAXREPEAT or cb >= C.MAXREPEAT or ca * cb > MAX_BOUNDED_WORK


def _gives_back(item) -> bool:
    return item[0] is not _POSSESSIVE


def _show(item) -> str:
    op, av = item
    return f"{op.name.lower()}{{{av[0]},{'inf' if av[1] >= C.MAXREPEAT else av[1]}}}"


def _shared(s: frozenset) -> str:
    return "".join(_ALPHABET[i] for i in sorted(s)[:8])


def _walk(seq, icase: bool, free_after: bool, out: list) -> None:
    items = list(seq)
    for k, a in enumerate(items):
        op, av = a
        rest_free = free_after and _nullable_seq(items[k + 1:])
        if op in _REPEATS:
            body = list(av[2])
            _walk(body, icase, False, out)  # another iteration may follow: a failure inside can backtrack
            if av[1] >= 2 and len(body) > 1:
                first = next((x for x in body if _is_repeat(x) or not _nullable(x)), None)
                last_ = next((x for x in body[::-1] if _is_repeat(x) or not _nullable(x)), None)
                if (first is not None and last_ is not None and first is not last_ and _is_repeat(first)
                        and _is_repeat(last_) and _gives_back(last_) and _costly(last_, first)):
                    s = _edge(last_, icase, True) & _edge(first, icase, False)
                    if s:
                        out.append(Overlap("wrap", _show(last_), _show(first), _shared(s)))
        elif op is C.SUBPATTERN:
            _walk(av[3], _icase(av, icase), rest_free, out)
        elif op is _ATOMIC:
            _walk(av, icase, False, out)
        elif op is C.BRANCH:
            for b in av[1]:
                _walk(b, icase, rest_free, out)
        elif op in (C.ASSERT, C.ASSERT_NOT):
            _walk(av[1], icase, True, out)
        if _is_repeat(a) and _gives_back(a) and not rest_free:
            for b in items[k + 1:]:
                if _is_repeat(b):
                    s = _edge(a, icase, True) & _edge(b, icase, False)
                    if s and _costly(a, b):
                        out.append(Overlap("next", _show(a), _show(b), _shared(s)))
                    break
                if not _nullable(b):
                    break


def overlaps(pattern: str, flags: int = 0) -> list[Overlap]:
    """The overlapping adjacent repetitions of ``pattern`` (see the module). Raises ``re.error`` when
    ``re``'s parser does not read it."""
    out: list[Overlap] = []
    _walk(P.parse(pattern, flags & ~(re.UNICODE | 256)), bool(flags & re.IGNORECASE), True, out)
    return out
