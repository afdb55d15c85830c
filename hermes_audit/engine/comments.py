"""The ``html-comments`` detector: hidden text (HTML comments and the other channels of Markdown and
HTML that are never rendered) whose text matches a rule's pattern.

An HTML comment (``<!-- ... -->``) is never rendered, so a reviewer of the
rendered file does not see it, but the model reads it. Nor are the other
channels :func:`channels` finds (issue 18): processing instructions
(``<?note ...?>``), CDATA sections (``<![CDATA[...]]>``) and markup declarations
(``<!NOTE ...>``), which browsers parse as (bogus) comments and CommonMark
passes through as raw HTML; the content of ``<template>`` elements; comments
inside ``<style>`` and ``<script>`` (and the whole body of a ``<script>`` whose
``type`` is not JavaScript, which is inert data); and the title of a Markdown
link reference definition (``[ref]: https://example.com "title"``), never shown
in the text. The detector finds every channel in linear time (an unclosed
``<!--`` hides the rest of the file when rendered, so it runs to the end of the
text; so do an unclosed ``<template>``, ``<style>`` and ``<script>``), de-obfuscates
the channel's text (:mod:`hermes_audit.engine.deobfuscate`) and reports the
comment when the rule's ``params.pattern`` matches it and ``params.exclude``
(matched at the start of the text) does not. A comment that opens as a note to the
file's author (``params.author_note``, matched at the start: the line an editor's
template writes, "Use this file to provide workspace-specific custom instructions to
Copilot") only counts when ``params.action`` (an action the agent is told to take:
read a secret, send data, hide something) matches it too. Patterns come from the rule file;
they run on at most :data:`MAX_COMMENT_CHARS` characters per comment, so their
cost is bounded whatever the file holds.

``params.channels`` (a list of :data:`CHANNELS` names, all by default) limits the channels a rule reads;
``params.code_pattern``, when given, replaces ``params.pattern`` for comments inside CSS and JavaScript code
(``style``, ``script``), where developers' notes ("// read the token from the response") are ordinary and only
words addressed to an AI count.

Hits are *describable*: the engine lowers their confidence and caps their
severity when the channel sits in a code block (an XML sample in documentation),
where a reader sees it. A block quote or a quoted string around hidden text does
not make it a quoted example: the reader does not see it either way
(:meth:`hermes_audit.engine.markdown.ExampleSpans.describes`).
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterator, NamedTuple

from hermes_audit.engine.detectors import DetectorHit
from hermes_audit.engine.unicode_chars import printable

#: Characters of one comment's text that the pattern is matched against.
MAX_COMMENT_CHARS = 4000


@functools.lru_cache(maxsize=64)
def _compile(pattern: str) -> Any:
    """``regex.compile(pattern, IGNORECASE | DOTALL)`` (a ``regex`` pattern), from the catalog cache's
    op-codes when it has them; ``regex`` itself is then not imported (issue 8)."""
    from hermes_audit.engine.regex_code import compile_known  # op-codes cached with the catalog (issue 8)

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


class Channel(NamedTuple):
    """One hidden-text channel: ``[start, end)`` is the whole construct, ``[body_start, body_end)`` the text the
    model reads and a reader of the rendered file does not see; ``kind`` is one of :data:`CHANNELS`."""

    start: int
    end: int
    body_start: int
    body_end: int
    kind: str


#: Channel kinds and how a finding names them.
CHANNELS = {
    "comment": "HTML comment",
    "processing-instruction": "processing instruction",
    "cdata": "CDATA section",
    "declaration": "markup declaration",
    "template": "<template> element",
    "style": "comment in <style>",
    "script": "comment in <script>",
    "script-data": "<script> data block",
    "link-title": "link reference title",
}

#: Where a channel may open: ``<!--``, ``<?``, ``<![CDATA[``, ``<!x`` (a bogus comment), ``</`` not followed by a
#: tag name (a bogus comment too), ``<template``, ``<style``, ``<script``; and a link reference definition line.
_OPENER = re.compile(
    r"<(?:(!--)|(\?)|(!\[CDATA\[)|(!)|(/)(?=[^A-Za-z>])|(template|style|script)(?=[\s/>]))"
    r"|^[ ]{0,3}(\[)(?!\^)(?=[^\]\n]{1,999}\]:)",
    re.I | re.M,
)
#: The rest of a link reference definition after its ``[``: label, destination, then a title on the same or the
#: next line (CommonMark, section 4.7; a title spanning lines is not looked for).
_LINK_DEF = re.compile(
    r"[^\]\n]{1,999}\]:[ \t]*(?:<[^<>\n]{0,2000}>|[^\s<>]{1,2000})(?:[ \t]{1,50}|[ \t]{0,50}\n[ \t]{0,50})"
    r"(?:\"([^\"\n]{1,2000})\"|'([^'\n]{1,2000})'|\(([^()\n]{1,2000})\))[ \t]*(?:\n|\Z)"
)
#: The end of an element's start tag.
_TAG_END = re.compile(r"[^<>]{0,2000}>")
#: The ``type`` of a ``<script>`` start tag.
_SCRIPT_TYPE = re.compile(r"""\btype[ \t\n]*=[ \t\n]*["']?([^"'\s>]*)""", re.I)
#: Script types that a browser runs as JavaScript (an empty or missing type counts too).
_JS_TYPES = frozenset({"", "module", "text/javascript", "application/javascript", "text/ecmascript",
                       "application/ecmascript", "application/x-javascript", "text/jscript"})
#: Comments in CSS (``/* */``) and JavaScript (``/* */``, ``// ...`` not right after ``:`` as in ``https://``).
_CSS_COMMENT = re.compile(r"/\*(.*?)(?:\*/|\Z)", re.S)
_JS_COMMENT = re.compile(r"/\*(.*?)(?:\*/|\Z)|(?<![:\\/\w])//([^\n]*)", re.S)
#: Channels that are comments in code, read with ``params.code_pattern``.
_CODE_KINDS = frozenset({"style", "script"})
_CLOSE = {name: re.compile(r"</" + name + r"[ \t\n]*>", re.I) for name in ("template", "style", "script")}

#: The name a processing instruction or a declaration opens with (``<?xml``, ``<!NOTE``) and the space after it.
_TARGET = re.compile(r"[A-Za-z_][\w:.-]{0,100}[ \t\n]+")


def _target_end(text: str, pos: int, limit: int) -> int:
    """Where the text of a processing instruction or declaration starts: after its name, when a space follows."""
    m = _TARGET.match(text, pos, limit)
    return m.end() if m else pos


def channels(text: str) -> Iterator[Channel]:
    """Every hidden-text channel of ``text`` (see the module docstring), in order, none inside another; linear
    in the length of the text."""
    pos = 0
    n = len(text)
    while True:
        m = _OPENER.search(text, pos)
        if m is None:
            return
        s = m.start()
        if m.group(1):  # <!-- ... -->
            e = text.find("-->", s + 4)
            yield Channel(s, n if e < 0 else e + 3, s + 4, n if e < 0 else e, "comment")
            pos = n if e < 0 else e + 3
        elif m.group(2) is not None and m.group(2):  # <? ... ?> (a browser ends it at the first >)
            e = text.find(">", s + 2)
            end = n if e < 0 else e + 1
            body_end = end - 2 if e > 0 and text[e - 1] == "?" else (n if e < 0 else e)
            body_start = _target_end(text, s + 2, body_end)
            yield Channel(s, end, body_start, max(body_start, body_end), "processing-instruction")
            pos = end
        elif m.group(3):  # <![CDATA[ ... ]]>
            e = text.find("]]>", s + 9)
            yield Channel(s, n if e < 0 else e + 3, s + 9, n if e < 0 else e, "cdata")
            pos = n if e < 0 else e + 3
        elif m.group(4) or m.group(5):  # <!NOTE ...> or </ ...>: a bogus comment up to the first >
            e = text.find(">", s + 2)
            end = n if e < 0 else e + 1
            body_end = n if e < 0 else e
            yield Channel(s, end, _target_end(text, s + 2, body_end), body_end, "declaration")
            pos = end
        elif m.group(6):  # <template>, <style>, <script>
            name = m.group(6).lower()
            tag = _TAG_END.match(text, m.end())
            if tag is None:
                pos = m.end()
                continue
            body_start = tag.end()
            close = _CLOSE[name].search(text, body_start)
            body_end = close.start() if close else n
            end = close.end() if close else n
            if name == "template":
                yield Channel(s, end, body_start, body_end, "template")
            else:
                kind = _SCRIPT_TYPE.search(text, m.end(), tag.end())
                inert = name == "script" and (kind.group(1).lower() if kind else "") not in _JS_TYPES
                if inert:  # a data block: nothing of it runs, nothing of it shows
                    yield Channel(s, end, body_start, body_end, "script-data")
                else:
                    for c in (_JS_COMMENT if name == "script" else _CSS_COMMENT).finditer(text, body_start, body_end):
                        g = 1 if c.group(1) is not None else 2
                        yield Channel(c.start(), c.end(), c.start(g), c.end(g), name)
            pos = end
        else:  # a line that may be a link reference definition
            d = _LINK_DEF.match(text, m.end())
            if d is None:
                pos = m.end()
                continue
            g = next(i for i in (1, 2, 3) if d.group(i) is not None)
            yield Channel(s, d.end(g) + 1, d.start(g), d.end(g), "link-title")
            pos = d.end(g) + 1


def detect_html_comments(text: str, params: dict) -> Iterator[DetectorHit]:
    """Hidden-text channels (:func:`channels`, those named in ``params.channels``, all by default) whose
    de-obfuscated text matches ``params.pattern`` (and not ``params.exclude``). A hit spans the whole channel;
    its fields are ``match``, ``excerpt`` and ``channel`` (how the channel is named, "HTML comment")."""
    from hermes_audit.engine.deobfuscate import deobfuscate

    pattern = params.get("pattern")
    if not pattern or ("<" not in text and "]:" not in text):
        return
    wanted = params.get("channels")
    kinds = frozenset(wanted) if isinstance(wanted, (list, tuple)) else None
    pat = _compile(str(pattern))
    exclude = _compile(str(params["exclude"])) if params.get("exclude") else None
    author_note = _compile(str(params["author_note"])) if params.get("author_note") else None
    action = _compile(str(params["action"])) if params.get("action") else None
    code_pat = _compile(str(params["code_pattern"])) if params.get("code_pattern") else pat
    for s, e, bs, be, kind in channels(text):
        if kinds is not None and kind not in kinds:
            continue
        body = text[bs:min(be, bs + MAX_COMMENT_CHARS)]
        view = deobfuscate(body).text
        if exclude is not None and exclude.match(view):
            continue
        if author_note is not None and author_note.match(view):
            # issue 19: a note to whoever edits the file addresses the agent only through an action
            m = action.search(view, timeout=5.0) if action is not None else None
        else:
            m = (code_pat if kind in _CODE_KINDS else pat).search(view, timeout=5.0)
        if m is None:
            continue
        yield DetectorHit(
            s, e,
            {"match": printable(" ".join(m.group(0).split()), 80), "excerpt": printable(" ".join(view.split()), 120),
             "channel": CHANNELS[kind]},
            describable=True,
        )
