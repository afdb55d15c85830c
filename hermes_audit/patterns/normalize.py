"""Normalised views of a text that keep a map back to the original characters.

Hermes matches its patterns on ``unicodedata.normalize("NFKC", text)``; the
audit rules also match on a de-obfuscated view. Findings must still point at
the raw text, so every view here can translate a span of the normalised
string into a span of the raw string.

The NFKC map is exact: the text is cut into segments that normalise
independently (a starter plus its combining marks, merged with the next
segment whenever normalising the pair differs from normalising each alone,
which covers Hangul jamo and other composing starters), so the normalised
string is the concatenation of the segments' normal forms and each
normalised character belongs to exactly one raw segment.

Speed and memory (issue 8). A map is stored as *pieces*, not one entry per
character: a piece is a run of derived characters that either maps one to
one onto a run of raw characters (a shift) or maps as a whole onto one raw
span (a block, e.g. the characters ``NFKC`` makes of one ligature). Unchanged
text costs nothing per character, so memory is proportional to the number of
edits, not to the file size. Only the lines that ``NFKC`` changes are cut into
segments (``\\n`` is a stable boundary: it never composes and never reorders).
:func:`nfkc_reference` and :func:`filter_map_reference` keep the character by
character algorithms; the equivalence tests compare the two.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from typing import Callable, Iterable, Iterator, Optional


class _Builder:
    """Accumulates pieces ``(derived start, raw start, raw end, step)`` left to right.

    For derived character ``i`` of a piece starting at ``d``: raw span is
    ``[a + (i - d) * step, b + (i - d) * step)``; ``step`` is 1 (shift) or 0 (block).
    """

    __slots__ = ("d0", "a", "b", "s", "n")

    def __init__(self) -> None:
        # machine integers, 8 bytes per value (a list would hold a 28-byte int object per value)
        self.d0 = array("q")
        self.a = array("q")
        self.b = array("q")
        self.s = array("b")
        self.n = 0

    def shift(self, raw_start: int, length: int) -> None:
        """Next ``length`` derived characters map one to one onto raw ``[raw_start, raw_start + length)``."""
        if length <= 0:
            return
        if self.s and self.s[-1] == 1 and self.a[-1] + (self.n - self.d0[-1]) == raw_start:
            self.n += length
            return
        self.d0.append(self.n)
        self.a.append(raw_start)
        self.b.append(raw_start + 1)
        self.s.append(1)
        self.n += length

    def block(self, raw_start: int, raw_end: int, length: int) -> None:
        """Next ``length`` derived characters all map onto raw ``[raw_start, raw_end)``."""
        if length <= 0:
            return
        if length == 1 and raw_end == raw_start + 1:
            self.shift(raw_start, 1)
            return
        if self.s and self.s[-1] == 0 and self.a[-1] == raw_start and self.b[-1] == raw_end:
            self.n += length
            return
        self.d0.append(self.n)
        self.a.append(raw_start)
        self.b.append(raw_end)
        self.s.append(0)
        self.n += length


class MappedText:
    """A derived string with, for each of its characters, the raw span it came from.

    Construct with per-character lists (``starts[i]``/``ends[i]``: raw
    ``[start, end)`` of derived character ``i``), or with :meth:`from_edits`.
    An identity view stores nothing.
    """

    __slots__ = ("raw", "text", "_d0", "_a", "_b", "_s")

    def __init__(self, raw: str, text: str, starts: Optional[list[int]] = None, ends: Optional[list[int]] = None):
        self.raw = raw
        self.text = text
        self._d0: Optional[array] = None
        self._a: array = array("q")
        self._b: array = array("q")
        self._s: array = array("b")
        if starts is not None and ends is not None:
            b = _Builder()
            for st, en in zip(starts, ends):
                b.block(st, en, 1)
            self._set(b)

    def _set(self, b: _Builder) -> "MappedText":
        self._d0, self._a, self._b, self._s = b.d0, b.a, b.b, b.s
        return self

    @classmethod
    def _from_builder(cls, raw: str, text: str, b: _Builder) -> "MappedText":
        return cls(raw, text)._set(b)

    @classmethod
    def from_edits(cls, raw: str, edits: Iterable[tuple[int, str]]) -> "MappedText":
        """``raw`` with the characters at the given positions replaced (``""`` removes).

        ``edits`` are ``(position, replacement)`` in increasing position order;
        every other character is kept and maps onto itself; each character of a
        replacement maps onto the one raw character it replaces.
        """
        out: list[str] = []
        b = _Builder()
        prev = 0
        for i, rep in edits:
            if i > prev:
                out.append(raw[prev:i])
                b.shift(prev, i - prev)
            if rep:
                out.append(rep)
                b.block(i, i + 1, len(rep))
            prev = i + 1
        if prev == 0 and not out:
            return cls(raw, raw)
        if prev < len(raw):
            out.append(raw[prev:])
            b.shift(prev, len(raw) - prev)
        return cls._from_builder(raw, "".join(out), b)

    @property
    def is_identity(self) -> bool:
        return self._d0 is None

    def _piece(self, i: int) -> int:
        return bisect.bisect_right(self._d0, i) - 1  # type: ignore[arg-type]

    def start_of(self, i: int) -> int:
        """Raw start of derived character ``i`` (``0 <= i < len(text)``)."""
        if self._d0 is None:
            return i
        k = self._piece(i)
        return self._a[k] + (i - self._d0[k]) * self._s[k]

    def end_of(self, i: int) -> int:
        """Raw end of derived character ``i`` (``0 <= i < len(text)``)."""
        if self._d0 is None:
            return i + 1
        k = self._piece(i)
        return self._b[k] + (i - self._d0[k]) * self._s[k]

    def to_raw(self, start: int, end: int) -> tuple[int, int]:
        """Raw ``[start, end)`` covering derived ``[start, end)``; never empty for a non-empty input."""
        if self._d0 is None:
            return start, end
        n = len(self.text)
        if n == 0:
            return 0, 0
        s = min(max(start, 0), n - 1)
        e = min(max(end, s + 1), n)
        return self.start_of(s), self.end_of(e - 1)

    @property
    def pieces(self) -> int:
        """Number of stored pieces (memory is proportional to it; 0 for an identity view)."""
        return 0 if self._d0 is None else len(self._d0)


def _segments(raw: str) -> Iterator[tuple[int, int]]:
    """Cut ``raw`` at characters with canonical combining class 0."""
    start = 0
    combining = unicodedata.combining
    for i in range(1, len(raw)):
        if combining(raw[i]) == 0:
            yield start, i
            start = i
    if raw:
        yield start, len(raw)


def _merged_segments(raw: str) -> Iterator[tuple[int, int, str]]:
    """Segments with their NFKC, a segment merged into the previous one whenever normalising the pair
    differs from normalising each alone. Generated one at a time (memory: one pending segment)."""
    norm = unicodedata.normalize
    pending: Optional[tuple[int, int, str]] = None
    for s, e in _segments(raw):
        piece = norm("NFKC", raw[s:e])
        if pending is not None:
            ps, _pe, pp = pending
            joined = norm("NFKC", raw[ps:e])
            if joined != pp + piece:
                pending = (ps, e, joined)
                continue
            yield pending
        pending = (s, e, piece)
    if pending is not None:
        yield pending


def _coarse(raw: str, normalised: str) -> MappedText:
    n, m = len(normalised), max(len(raw), 1)
    starts = [min(m - 1, i * m // max(n, 1)) for i in range(n)]
    ends = [min(m, (i + 1) * m // max(n, 1) + 1) for i in range(n)]
    return MappedText(raw, normalised, starts, ends)


def nfkc(raw: str) -> MappedText:
    """NFKC of ``raw`` with an exact map back to raw offsets.

    The derived text is exactly ``unicodedata.normalize("NFKC", raw)`` (checked;
    on the impossible mismatch a coarse proportional map is used instead of
    failing). Lines (split at ``\\n``) that NFKC leaves alone map one to one;
    only changed lines are segmented (a line starting with a combining mark stays with the line
    before). Same map as :func:`nfkc_reference`.
    """
    normalised = unicodedata.normalize("NFKC", raw)
    if normalised == raw:
        return MappedText(raw, normalised)
    raw_lines = raw.split("\n")
    norm_lines = normalised.split("\n")
    if len(raw_lines) != len(norm_lines):  # pragma: no cover - NFKC never adds or removes U+000A
        return nfkc_reference(raw)
    b = _Builder()
    out_parts: list[str] = []
    combining = unicodedata.combining
    # segments of a starter with combining marks map as a whole, even on unchanged lines
    marks = sorted(c for c in set(raw) if combining(c))
    has_mark = re.compile("[" + "".join(re.escape(c) for c in marks) + "]").search if marks else None
    off = 0
    i, count = 0, len(raw_lines)
    while i < count:
        # a chunk: this line plus following lines that start with a combining mark (which the
        # character-by-character algorithm keeps in one segment with the preceding U+000A)
        j = i + 1
        while j < count and raw_lines[j] and combining(raw_lines[j][0]):
            j += 1
        if j == i + 1:
            r, n = raw_lines[i], norm_lines[i]
        else:
            r, n = "\n".join(raw_lines[i:j]), "\n".join(norm_lines[i:j])
        if r == n and (has_mark is None or has_mark(r) is None):
            b.shift(off, len(r))
        else:
            got = 0
            for s, e, piece in _merged_segments(r):
                if not n.startswith(piece, got):  # the segments do not rebuild NFKC: as the reference does
                    return _coarse(raw, normalised)
                b.block(off + s, off + e, len(piece))
                got += len(piece)
            if got != len(n):
                return _coarse(raw, normalised)
        out_parts.append(n)
        off += len(r)
        if j < count:
            b.shift(off, 1)
            out_parts.append("\n")
            off += 1
        i = j
    text = "".join(out_parts)
    if text != normalised:  # pragma: no cover - defensive; NFKC is segment-stable after merging
        return _coarse(raw, normalised)
    return MappedText._from_builder(raw, text, b)


def nfkc_reference(raw: str) -> MappedText:
    """:func:`nfkc` computed character by character over the whole text (slow; for tests)."""
    normalised = unicodedata.normalize("NFKC", raw)
    if normalised == raw:
        return MappedText(raw, normalised)
    starts: list[int] = []
    ends: list[int] = []
    merged = list(_merged_segments(raw))
    for s, e, piece in merged:
        starts.extend([s] * len(piece))
        ends.extend([e] * len(piece))
    text = "".join(p for _, _, p in merged)
    if text != normalised:  # pragma: no cover - defensive
        return _coarse(raw, normalised)
    return MappedText(raw, text, starts, ends)


def compose(outer: MappedText, inner_to_outer: MappedText) -> MappedText:
    """Chain two maps: ``inner_to_outer.raw == outer.text``; result maps to ``outer.raw``.

    Derived character ``i`` maps to ``[outer.start_of(inner.start_of(i)),
    outer.end_of(inner.end_of(i) - 1))``; computed piece by piece.
    """
    inner = inner_to_outer
    if outer.is_identity:
        res = MappedText(outer.raw, inner.text)
        res._d0, res._a, res._b, res._s = inner._d0, inner._a, inner._b, inner._s
        return res
    if inner.is_identity:
        res = MappedText(outer.raw, inner.text)
        res._d0, res._a, res._b, res._s = outer._d0, outer._a, outer._b, outer._s
        return res
    b = _Builder()
    od0, oa, ob, os_ = outer._d0, outer._a, outer._b, outer._s
    assert od0 is not None and inner._d0 is not None
    n_inner = len(inner.text)
    for k in range(len(inner._d0)):
        d_start = inner._d0[k]
        d_end = inner._d0[k + 1] if k + 1 < len(inner._d0) else n_inner
        length = d_end - d_start
        if length <= 0:
            continue
        if inner._s[k] == 0:  # block: every character maps onto inner-raw [a, b)
            a, bb = inner._a[k], inner._b[k]
            b.block(outer.start_of(a), outer.end_of(bb - 1), length)
            continue
        # shift: derived d_start + t maps onto outer-derived r0 + t, t in [0, length)
        r0 = inner._a[k]
        pos = r0
        stop = r0 + length
        j = bisect.bisect_right(od0, pos) - 1
        while pos < stop:
            piece_end = od0[j + 1] if j + 1 < len(od0) else len(outer.text)
            upto = min(stop, piece_end)
            cnt = upto - pos
            if os_[j] == 1:
                b.shift(oa[j] + (pos - od0[j]), cnt)
            else:
                b.block(oa[j], ob[j], cnt)
            pos = upto
            j += 1
    return MappedText._from_builder(outer.raw, inner.text, b)


def filter_map(raw: str, keep: Callable[[str], bool], replace: Optional[Callable[[str], Optional[str]]] = None) -> MappedText:
    """Drop characters for which ``keep`` is false; optionally replace kept ones.

    ``replace(ch)`` returns the replacement string (may be several characters,
    all mapped to the one raw character) or ``None`` to keep ``ch``. Both
    functions must depend on the character only: they are asked once per
    distinct character, and the affected positions are found with one
    character-set search (same result as :func:`filter_map_reference`).
    """
    special: dict[str, str] = {}
    for ch in set(raw):
        if not keep(ch):
            special[ch] = ""
            continue
        rep = replace(ch) if replace is not None else None
        if rep is not None:
            special[ch] = rep
    if not special:
        return MappedText(raw, raw)
    pat = re.compile("[" + "".join(re.escape(c) for c in sorted(special)) + "]")
    return MappedText.from_edits(raw, ((m.start(), special[m.group(0)]) for m in pat.finditer(raw)))


def filter_map_reference(raw: str, keep: Callable[[str], bool],
                         replace: Optional[Callable[[str], Optional[str]]] = None) -> MappedText:
    """:func:`filter_map` character by character (slow; for tests)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    changed = False
    for i, ch in enumerate(raw):
        if not keep(ch):
            changed = True
            continue
        rep = replace(ch) if replace is not None else None
        if rep is None:
            out.append(ch)
            starts.append(i)
            ends.append(i + 1)
        else:
            changed = True
            out.append(rep)
            starts.extend([i] * len(rep))
            ends.extend([i + 1] * len(rep))
    if not changed:
        return MappedText(raw, raw)
    return MappedText(raw, "".join(out), starts, ends)


def line_of(starts: list[int], offset: int) -> int:
    """0-based index of the line containing ``offset`` given sorted line starts."""
    return bisect.bisect_right(starts, offset) - 1
