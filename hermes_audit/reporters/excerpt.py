"""Source excerpts: the line of a finding with carets under the match, as the text reports show it.

Used by the scan report (:mod:`hermes_audit.reporters.text`) and the profile report
(``hermes-audit profile``), so both render a finding's source the same way::

     12 |
     12 | …some text before the match and after it…
        |                   ^^^^^

Everything taken from the scanned file is escaped (no terminal escape sequence or bidi
control reaches the terminal) and secrets on the line are redacted. Columns and widths are
counted in Python code points.
"""

from __future__ import annotations

from typing import Callable, Optional

from hermes_audit.engine.redact import redact_in_place
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Finding

#: Characters of a line shown around a match (at most; a long match widens it up to :data:`MARK_MAX`).
WINDOW = 100
#: Most characters of a match shown (and underlined) in a source excerpt.
MARK_MAX = 80
#: Characters kept before the match when the line is cut.
_BEFORE = 30


class ExcerptLines:
    """The redacted lines of the last text asked for, shared by the findings of one report.

    A file of one long line with thousands of findings would otherwise be split and redacted once
    per finding (quadratic, issue 8); with one ``ExcerptLines`` per report each text is split once
    and each line redacted once.

    ``redact``: applied to each line before it is shown (default:
    :func:`hermes_audit.engine.redact.redact_in_place`, which keeps the line's length).
    """

    def __init__(self, redact: Optional[Callable[[str], str]] = None) -> None:
        self._redact = redact if redact is not None else redact_in_place
        self._text: Optional[str] = None
        self._lines: list[str] = []
        self._redacted: dict[int, str] = {}

    def line(self, text: str, number: int) -> Optional[str]:
        """Line ``number`` (1-based) of ``text``, ``\\r`` stripped and secrets redacted; ``None`` when
        ``number`` is out of range."""
        if text is not self._text:
            self._text, self._lines, self._redacted = text, text.split("\n"), {}
        if not (1 <= number <= len(self._lines)):
            return None
        got = self._redacted.get(number)
        if got is None:
            got = self._redacted[number] = self._redact(self._lines[number - 1].rstrip("\r"))
        return got


def source_excerpt(text: str, finding: Finding, lines: Optional[ExcerptLines] = None) -> list[str]:
    """The three report lines showing ``finding``'s first line of ``text`` with carets under the match.

    The line is windowed around the match (about :data:`WINDOW` characters, ``…`` where cut) and at
    most :data:`MARK_MAX` characters of the match are underlined. Returns ``[]`` when ``text`` is
    empty (an undecodable, unreadable or empty file: the finding's message says why) or the
    finding's line is not in it. ``lines``: share one :class:`ExcerptLines` across the findings of
    a report. Raises nothing.
    """
    if not text:
        return []
    line = (lines if lines is not None else ExcerptLines()).line(text, finding.start.line)
    if line is None:
        return []
    col0 = finding.start.column - 1
    end0 = finding.end.column - 1 if finding.end.line == finding.start.line else len(line)
    end0 = max(end0, col0 + 1)
    lo = max(0, col0 - _BEFORE)
    hi = min(len(line), max(min(end0, col0 + MARK_MAX), lo + WINDOW))
    prefix = ("…" if lo > 0 else "") + printable(line[lo:col0], 10_000)
    marked = printable(line[col0:min(end0, hi)], 10_000) or " "
    suffix = printable(line[min(end0, hi):hi], 10_000) + ("…" if hi < len(line) else "")
    num = str(finding.start.line)
    pad = " " * len(num)
    return [
        f" {pad} |",
        f" {num} | {prefix}{marked}{suffix}",
        f" {pad} | {' ' * len(prefix)}{'^' * min(len(marked), MARK_MAX)}",
    ]
