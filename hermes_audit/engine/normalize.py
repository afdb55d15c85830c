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
"""

from __future__ import annotations

import bisect
import unicodedata
from typing import Callable, Optional


class MappedText:
    """A derived string with, for each of its characters, the raw span it came from.

    ``starts[i]``/``ends[i]`` give the raw ``[start, end)`` of derived character
    ``i``. An identity view stores no arrays.
    """

    __slots__ = ("raw", "text", "_starts", "_ends")

    def __init__(self, raw: str, text: str, starts: Optional[list[int]] = None, ends: Optional[list[int]] = None):
        self.raw = raw
        self.text = text
        self._starts = starts
        self._ends = ends

    @property
    def is_identity(self) -> bool:
        return self._starts is None

    def to_raw(self, start: int, end: int) -> tuple[int, int]:
        """Raw ``[start, end)`` covering derived ``[start, end)``; never empty for a non-empty input."""
        if self._starts is None:
            return start, end
        n = len(self.text)
        if n == 0:
            return 0, 0
        s = min(max(start, 0), n - 1)
        e = min(max(end, s + 1), n)
        return self._starts[s], self._ends[e - 1]


def _segments(raw: str) -> list[tuple[int, int]]:
    """Cut ``raw`` at characters with canonical combining class 0."""
    segs: list[tuple[int, int]] = []
    start = 0
    combining = unicodedata.combining
    for i in range(1, len(raw)):
        if combining(raw[i]) == 0:
            segs.append((start, i))
            start = i
    if raw:
        segs.append((start, len(raw)))
    return segs


def nfkc(raw: str) -> MappedText:
    """NFKC of ``raw`` with an exact map back to raw offsets.

    The derived text is exactly ``unicodedata.normalize("NFKC", raw)`` (checked;
    on the impossible mismatch a coarse proportional map is used instead of
    failing).
    """
    normalised = unicodedata.normalize("NFKC", raw)
    if normalised == raw:
        return MappedText(raw, normalised)
    norm = unicodedata.normalize
    merged: list[tuple[int, int, str]] = []
    for s, e in _segments(raw):
        piece = norm("NFKC", raw[s:e])
        if merged:
            ps, pe, pp = merged[-1]
            joined = norm("NFKC", raw[ps:e])
            if joined != pp + piece:
                merged[-1] = (ps, e, joined)
                continue
        merged.append((s, e, piece))
    starts: list[int] = []
    ends: list[int] = []
    for s, e, piece in merged:
        starts.extend([s] * len(piece))
        ends.extend([e] * len(piece))
    text = "".join(p for _, _, p in merged)
    if text != normalised:  # pragma: no cover - defensive; NFKC is segment-stable after merging
        n, m = len(normalised), max(len(raw), 1)
        starts = [min(m - 1, i * m // max(n, 1)) for i in range(n)]
        ends = [min(m, (i + 1) * m // max(n, 1) + 1) for i in range(n)]
        text = normalised
    return MappedText(raw, text, starts, ends)


def compose(outer: MappedText, inner_to_outer: MappedText) -> MappedText:
    """Chain two maps: ``inner_to_outer.raw == outer.text``; result maps to ``outer.raw``."""
    if outer.is_identity:
        return MappedText(outer.raw, inner_to_outer.text, inner_to_outer._starts, inner_to_outer._ends)
    if inner_to_outer.is_identity:
        return MappedText(outer.raw, inner_to_outer.text, outer._starts, outer._ends)
    starts = [outer._starts[s] for s in inner_to_outer._starts]
    ends = [outer._ends[e - 1] for e in inner_to_outer._ends]
    return MappedText(outer.raw, inner_to_outer.text, starts, ends)


def filter_map(raw: str, keep: Callable[[str], bool], replace: Optional[Callable[[str], Optional[str]]] = None) -> MappedText:
    """Drop characters for which ``keep`` is false; optionally replace kept ones.

    ``replace(ch)`` returns the replacement string (may be several characters,
    all mapped to the one raw character) or ``None`` to keep ``ch``.
    """
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
