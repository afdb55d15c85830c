"""Where a document quotes rather than instructs: code, block quotes, quoted examples.

A phrase inside a fenced code block, an inline code span, a block quote or a
double-quoted string probably *describes* an attack rather than performs it.
Audit findings there keep their severity and get lower confidence; parity
verdicts never change.
"""

from __future__ import annotations

import bisect
import re

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_INLINE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_QUOTE_LINE = re.compile(r"^[ \t]{0,3}>.*$", re.M)
_DQUOTED = re.compile(r"[\"\u201c\u00ab\u300c]([^\"\u201d\u00bb\u300d\n]{3,400})[\"\u201d\u00bb\u300d]")


class ExampleSpans:
    """Sorted, merged spans of quoted/code regions of a text."""

    def __init__(self, text: str) -> None:
        spans: list[tuple[int, int]] = []
        # fenced blocks
        pos = 0
        open_fence = None
        open_start = 0
        for m in _FENCE.finditer(text):
            marker = m.group(1)
            if open_fence is None:
                open_fence = marker
                open_start = m.start()
            elif marker[0] == open_fence[0] and len(marker) >= len(open_fence):
                spans.append((open_start, m.end()))
                open_fence = None
        if open_fence is not None:
            spans.append((open_start, len(text)))
        for m in _INLINE.finditer(text):
            spans.append((m.start(), m.end()))
        for m in _QUOTE_LINE.finditer(text):
            spans.append((m.start(), m.end()))
        for m in _DQUOTED.finditer(text):
            spans.append((m.start(), m.end()))
        spans.sort()
        merged: list[tuple[int, int]] = []
        for s, e in spans:
            if merged and s <= merged[-1][1]:
                if e > merged[-1][1]:
                    merged[-1] = (merged[-1][0], e)
            else:
                merged.append((s, e))
        self._starts = [s for s, _ in merged]
        self._spans = merged
        del pos

    def contains(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` lies inside one quoted/code region."""
        i = bisect.bisect_right(self._starts, start) - 1
        return i >= 0 and self._spans[i][1] >= end
