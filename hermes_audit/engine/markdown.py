"""Describes versus performs: where a document quotes an attack rather than makes one.

A phrase inside a fenced code block (unless the line before it tells the agent
to run it: "Run this once per session:"), an inline code span, a block quote, an
explicitly quoted string (``"..."``, ``“...”``, ``«...»``, ``„...“``,
``「...」``, ``『...』``) or reported speech (``... telling you to ignore
previous instructions``, ``phrases such as ...``) probably *describes* an
attack: security guides, scanner documentation and defensive SOUL.md files
are full of them. Audit findings there are never silenced: the engine lowers
their confidence by one level and caps their severity at
:data:`DESCRIBES_SEVERITY_CAP` (medium), and says why in the message.
Parity verdicts never change (Hermes does not make this distinction).

Offsets are character (code point) offsets into the document text.
"""

from __future__ import annotations

import bisect
import re
from typing import Optional

from hermes_audit.findings import Severity

#: Highest severity an audit finding keeps when it lies in quoted or code text.
DESCRIBES_SEVERITY_CAP = Severity.MEDIUM

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_INLINE = re.compile(r"(`+)(?!`)((?:(?!\n[ \t]*\n).){1,2000}?)(?<!`)\1(?!`)", re.S)
_QUOTE_LINE = re.compile(r"^[ \t]{0,3}>.*$", re.M)
#: Pairs of quotation marks that delimit a quoted example (opening, closing), one line at most.
_QUOTE_PAIRS = [
    ("\"", "\""), ("\u201c", "\u201d"), ("\u201e", "\u201c"), ("\u00ab", "\u00bb"), ("\u300c", "\u300d"),
    ("\u300e", "\u300f"), ("\u2018", "\u2019"), ("\uff02", "\uff02"),
]
_QUOTED = [re.compile(re.escape(o) + r"([^\n" + re.escape(o + c) + r"]{3,400})" + re.escape(c)) for o, c in _QUOTE_PAIRS]

#: Reported speech right before a match: the phrase is what someone else says, not an instruction.
_REPORTED = re.compile(
    r"(?:"
    r"\b(?:tell(?:s|ing)?|ask(?:s|ing)?|instruct(?:s|ing)?|urg(?:es|ing)|direct(?:s|ing)?|trick(?:s|ing)?|"
    r"convinc(?:es|ing)|push(?:es|ing)?|get(?:s|ting)?|want(?:s|ing)?)\s+(?:you|the\s+(?:model|agent|assistant|ai|llm))\s+to"
    r"|\b(?:such\s+as|e\.g\.|i\.e\.|for\s+example|for\s+instance|like|including|say(?:s|ing)?|reads?|contain(?:s|ing)?)"
    r"|\b(?:instructions?|attempts?|tries|trying|designed|meant|prompts?|payloads?|attacks?)\s+to"
    r"|\b(?:phrases?|wording|text|strings?|patterns?|examples?|payloads?|attempts?|attacks?|requests?|messages?|input)"
    r"\s+(?:like|such\s+as|that\s+says?|saying|reading|containing|asking\s+you\s+to|telling\s+you\s+to)"
    r")[\s:,\-\u2014]{0,3}$",
    re.I,
)
#: Characters of the same line looked at before a match for reported speech.
_REPORTED_WINDOW = 60
#: A line that hands the following code block to the agent to run: the block then performs, not describes.
_RUN_THIS = re.compile(
    r"\b(?:run|execute|exec|paste|source|eval)\b[^\n]{0,60}\b(?:this|these|the\s+following|below|it)\b"
    r"|\b(?:always|first|before\s+\w+(?:\s+\w+)?|once\s+per\s+session|every\s+(?:session|time|task))\b[^\n]{0,40}\b(?:run|execute)\b",
    re.I,
)


def _introduced_as_instruction(text: str, fence_start: int) -> bool:
    """True when the last non-blank line before a fenced block tells the agent to run it ("Run this once per session:")."""
    before = text[max(0, fence_start - 400):fence_start].rstrip()
    line = before[before.rfind("\n") + 1:]
    return bool(line) and not line.lstrip().startswith((">", "|", "-", "*")) and _RUN_THIS.search(line) is not None


class ExampleSpans:
    """Quoted and code regions of a text, and a test for reported speech before a span.

    Build once per document (linear time); :meth:`describes` is a binary search.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        spans: list[tuple[int, int, str]] = []
        open_fence: Optional[str] = None
        open_start = 0
        for m in _FENCE.finditer(text):
            marker = m.group(1)
            if open_fence is None:
                open_fence = marker
                open_start = m.start()
            elif marker[0] == open_fence[0] and len(marker) >= len(open_fence):
                if not _introduced_as_instruction(text, open_start):
                    spans.append((open_start, m.end(), "inside a fenced code block"))
                open_fence = None
        if open_fence is not None and not _introduced_as_instruction(text, open_start):
            spans.append((open_start, len(text), "inside a fenced code block"))
        for m in _INLINE.finditer(text):
            at_line_start = m.start() == 0 or text[m.start() - 1] == "\n"
            if len(m.group(1)) >= 3 and at_line_start:
                continue  # a fence, handled above (a fence the text tells the agent to run is not an example)
            spans.append((m.start(), m.end(), "inside inline code"))
        for m in _QUOTE_LINE.finditer(text):
            spans.append((m.start(), m.end(), "inside a block quote"))
        for pat in _QUOTED:
            for m in pat.finditer(text):
                spans.append((m.start(), m.end(), "inside a quoted example"))
        spans.sort()
        merged: list[tuple[int, int, str]] = []
        for s, e, why in spans:
            if merged and s <= merged[-1][1]:
                if e > merged[-1][1]:
                    merged[-1] = (merged[-1][0], e, merged[-1][2])
            else:
                merged.append((s, e, why))
        self._starts = [s for s, _, _ in merged]
        self._spans = merged

    def _at(self, offset: int) -> Optional[tuple[int, int, str]]:
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and self._spans[i][0] <= offset < self._spans[i][1]:
            return self._spans[i]
        return None

    def region(self, start: int, end: int) -> Optional[str]:
        """Why ``[start, end)`` is quoted or code (``"inside inline code"`` ...), or ``None``.

        A span counts when it lies inside one region, or when both its first
        and its last character lie in (possibly different) regions: a match
        that runs from one quoted example into the next (``"ignore previous
        instructions", "disregard your rules"``) is still quoted text.
        """
        first = self._at(start)
        if first is None:
            return None
        if first[1] >= end:
            return first[2]
        last = self._at(max(start, end - 1))
        return first[2] if last is not None else None

    def contains(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` lies inside one quoted or code region."""
        return self.region(start, end) is not None

    def reported_speech(self, start: int) -> Optional[str]:
        """The reported-speech marker just before ``start`` on its line (``"telling you to"``), or ``None``."""
        line_start = self._text.rfind("\n", 0, start) + 1
        prefix = self._text[max(line_start, start - _REPORTED_WINDOW):start]
        m = _REPORTED.search(prefix)
        return " ".join(m.group(0).split()).rstrip(":,-\u2014 ") if m else None

    def describes(self, start: int, end: int) -> Optional[str]:
        """Why ``[start, end)`` probably describes rather than performs, or ``None``.

        Returns e.g. ``"inside a fenced code block"`` or
        ``"reported speech (\\"telling you to\\")"``.
        """
        why = self.region(start, end)
        if why:
            return why
        marker = self.reported_speech(start)
        if marker:
            return f'reported speech ("{marker}")'
        return None
