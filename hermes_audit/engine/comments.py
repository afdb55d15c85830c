"""The ``html-comments`` detector: HTML comments whose text matches a rule's pattern.

An HTML comment (``<!-- ... -->``) is never rendered, so a reviewer of the
rendered file does not see it, but the model reads it. The detector finds
every comment in linear time (``str.find``; an unclosed ``<!--`` hides the rest
of the file when rendered, so it runs to the end of the text), de-obfuscates
the comment's text (:mod:`hermes_audit.engine.deobfuscate`) and reports the
comment when the rule's ``params.pattern`` matches it and ``params.exclude``
(matched at the start of the text) does not. A comment that opens as a note to the
file's author (``params.author_note``, matched at the start: the line an editor's
template writes, "Use this file to provide workspace-specific custom instructions to
Copilot") only counts when ``params.action`` (an action the agent is told to take:
read a secret, send data, hide something) matches it too. Patterns come from the rule file;
they run on at most :data:`MAX_COMMENT_CHARS` characters per comment, so their
cost is bounded whatever the file holds.

Hits are *describable*: the engine lowers their confidence and caps their
severity when the comment sits in a code block or a quoted example (an XML
sample in documentation), as it does for regex rules.
"""

from __future__ import annotations

import functools
from typing import Any, Iterator

from hermes_audit.findings import DetectorHit
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.patterns.regex_code import compile_known

#: Characters of one comment's text that the pattern is matched against.
MAX_COMMENT_CHARS = 4000


@functools.lru_cache(maxsize=64)
def _compile(pattern: str) -> Any:
    """``regex.compile(pattern, IGNORECASE | DOTALL)`` (a ``regex`` pattern), from the catalog cache's
    op-codes when it has them; ``regex`` itself is then not imported (issue 8)."""
    return compile_known(pattern, _FLAGS)


#: ``regex.IGNORECASE | regex.DOTALL`` as an int (checked by tests/test_startup_imports.py).
_FLAGS = 0x2 | 0x10


def comments(text: str) -> Iterator[tuple[int, int, int, int]]:
    """``(start, end, body_start, body_end)`` of every HTML comment; an unclosed one runs to the end."""
    pos = 0
    while True:
        s = text.find("<!--", pos)
        if s < 0:
            return
        e = text.find("-->", s + 4)
        if e < 0:
            yield s, len(text), s + 4, len(text)
            return
        yield s, e + 3, s + 4, e
        pos = e + 3


def detect_html_comments(text: str, params: dict) -> Iterator[DetectorHit]:
    """Comments whose de-obfuscated text matches ``params.pattern`` (and not ``params.exclude``)."""
    # start-up time: compiled from the catalog cache's op-codes when imported, so imported after the catalog is
    # loaded
    from hermes_audit.engine.deobfuscate import deobfuscate

    pattern = params.get("pattern")
    if not pattern or "<!--" not in text:
        return
    pat = _compile(str(pattern))
    exclude = _compile(str(params["exclude"])) if params.get("exclude") else None
    author_note = _compile(str(params["author_note"])) if params.get("author_note") else None
    action = _compile(str(params["action"])) if params.get("action") else None
    for s, e, bs, be in comments(text):
        body = text[bs:min(be, bs + MAX_COMMENT_CHARS)]
        view = deobfuscate(body).text
        if exclude is not None and exclude.match(view):
            continue
        if author_note is not None and author_note.match(view):
            # issue 19: a note to whoever edits the file addresses the agent only through an action
            m = action.search(view, timeout=5.0) if action is not None else None
        else:
            m = pat.search(view, timeout=5.0)
        if m is None:
            continue
        yield DetectorHit(
            s, e,
            {"match": printable(" ".join(m.group(0).split()), 80), "excerpt": printable(" ".join(view.split()), 120)},
            describable=True,
        )
