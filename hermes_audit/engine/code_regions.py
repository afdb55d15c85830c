"""Where Markdown shows text as code: fenced blocks and inline code spans.

Shared by :mod:`hermes_audit.engine.markdown` (code describes rather than performs) and
:mod:`hermes_audit.engine.comments` (markup that opens inside code is literal text, not a hidden channel).
Offsets are character (code point) offsets into the text.
"""

from __future__ import annotations

import re
from typing import Optional

from hermes_audit.patterns.regex_code import re_compile_builtin as _compile  # issue 8: op-codes from the catalog cache

_FENCE = _compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
#: An inline code span. ``(``*)`` is ``(`+)`` spelled to open with a literal: ``re`` then jumps from one
#: backtick to the next instead of trying a match at every position (issue 8: 38% less time; same spans,
#: tests/test_performance_equivalence.py).
_INLINE = _compile(r"(``*)(?!`)((?:(?!\n[ \t]*\n).){1,2000}?)(?<!`)\1(?!`)", re.S)


def _code_candidates(text: str) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]]]:
    """The fenced blocks ``(open start, close start or -1, end)`` and inline code spans ``(start, end)`` of
    ``text``, each list ascending (a fence the text tells the agent to run is still listed)."""
    fences: list[tuple[int, int, int]] = []
    open_fence: Optional[str] = None
    open_start = 0
    for m in (_FENCE.finditer(text) if "```" in text or "~~~" in text else ()):  # issue 8: needed for any fence
        marker = m.group(1)
        if open_fence is None:
            open_fence = marker
            open_start = m.start()
        elif marker[0] == open_fence[0] and len(marker) >= len(open_fence):
            fences.append((open_start, m.start(), m.end()))
            open_fence = None
    if open_fence is not None:
        fences.append((open_start, -1, len(text)))
    inline: list[tuple[int, int]] = []
    for m in _INLINE.finditer(text) if "`" in text else ():
        at_line_start = m.start() == 0 or text[m.start() - 1] == "\n"
        if len(m.group(1)) >= 3 and at_line_start:
            continue  # a fence, handled above (a fence the text tells the agent to run is not an example)
        inline.append((m.start(), m.end()))
    return fences, inline


def code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every fenced block and inline code span of ``text``, ascending by start: where
    Markdown shows text as code, so markup there is literal (used by
    :func:`hermes_audit.engine.comments.channels`)."""
    fences, inline = _code_candidates(text)
    return sorted([(f[0], f[2]) for f in fences] + inline)
