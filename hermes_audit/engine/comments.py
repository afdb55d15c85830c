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
link reference definition (``[ref]: https://example.com "title"``) or of an
inline link or image (``[text](https://example.com "title")``), never shown in
the text (a tooltip at most). The detector finds every channel in linear time (an unclosed
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

import bisect
import functools
import heapq
import re
from typing import Any, Iterator, NamedTuple, Optional

from hermes_audit.findings import DetectorHit
from hermes_audit.engine.code_regions import code_spans
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
    "inline-link-title": "link title",
}

#: Where a channel may open: ``<!--``, ``<?``, ``<![CDATA[``, ``<!x`` (a bogus comment), ``</`` not followed by a
#: tag name (a bogus comment too), ``<template``, ``<style``, ``<script``; and a link reference definition line.
_OPENER = re.compile(
    r"<(?:(!--)|(\?)|(!\[CDATA\[)|(!)|(/)(?=[^A-Za-z>])|(template|style|script)(?=[\s/>]))", re.I)
#: ... and a line that may be a link reference definition (searched apart: a pattern that opens with a literal
#: ``<`` is found by a fast scan, one that opens with ``^`` is tried at every position).
_LINK_LINE = re.compile(r"^[ ]{0,3}(\[)(?!\^)(?=[^\]\n]{1,999}\]:)", re.M)
#: The rest of a link reference definition after its ``[``: label, destination, then a title on the same or the
#: next line (CommonMark, section 4.7; a title spanning lines is not looked for).
_LINK_DEF = re.compile(
    r"[^\]\n]{1,999}\]:[ \t]*(?:<[^<>\n]{0,2000}>|[^\s<>]{1,2000})(?:[ \t]{1,50}|[ \t]{0,50}\n[ \t]{0,50})"
    r"(?:\"([^\"\n]{1,2000})\"|'([^'\n]{1,2000})'|\(([^()\n]{1,2000})\))[ \t]*(?:\n|\Z)"
)
#: An inline link's or image's destination and title after its ``](``: ``(url "title")``, ``'title'`` or
#: ``(title)`` (CommonMark, section 6.3; a title spanning lines is not looked for).
_INLINE_TITLE = re.compile(
    r"\]\([ \t]{0,50}(?:<[^<>\n]{0,2000}>|[^\s()<>]{1,2000})[ \t]{1,50}"
    r"(?:\"([^\"\n]{1,2000})\"|'([^'\n]{1,2000})'|\(([^()\n]{1,2000})\))[ \t]{0,50}\)"
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


def _starts_line(text: str, pos: int) -> bool:
    """True when only up to three spaces lie between the start of its line and ``pos``."""
    j = pos
    while j > 0 and pos - j < 3 and text[j - 1] == " ":
        j -= 1
    return j == 0 or text[j - 1] == "\n"


def _code_starts(text: str, code: Optional[list[tuple[int, int]]]) -> tuple[list[tuple[int, int]], list[int]]:
    """The code regions of ``text`` (``code``, or found with :func:`hermes_audit.engine.code_regions.code_spans`)
    merged where they overlap (an inline span can lie inside a fenced block), and their starts."""
    if code is None:
        code = code_spans(text)
    merged: list[tuple[int, int]] = []
    for c in code:
        if merged and c[0] <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], c[1]))
        else:
            merged.append(c)
    return merged, [c[0] for c in merged]


class _CodeRegions:
    """The merged code regions of a text and their starts (:func:`_code_starts`), found on the first
    :meth:`get` (issue 21: a text with ``](`` or ``<`` but no channel candidate needs no code spans), or taken
    from the ``code`` given."""

    __slots__ = ("_text", "_code", "_got")

    def __init__(self, text: str, code: Optional[list[tuple[int, int]]]) -> None:
        self._text, self._code = text, code
        self._got: Optional[tuple[list[tuple[int, int]], list[int]]] = None

    def get(self) -> tuple[list[tuple[int, int]], list[int]]:
        if self._got is None:
            self._got = _code_starts(self._text, self._code)
        return self._got


def _in_code(code: list[tuple[int, int]], starts: list[int], pos: int) -> bool:
    i = bisect.bisect_right(starts, pos) - 1
    return i >= 0 and code[i][1] > pos


def channels(text: str, code: Optional[list[tuple[int, int]]] = None) -> Iterator[Channel]:
    """Every hidden-text channel of ``text`` (see the module docstring), in order; linear in the length of
    the text.

    The channels of :func:`_block_channels` and the titles of inline links and images outside code and
    outside those channels (``[text](url "title")``; issue 18, left by the seventh red team), merged by start.
    """
    regions = _CodeRegions(text, code)  # found on first use, shared by both scans (issue 21)
    inline = _inline_titles(text, regions) if "](" in text else iter(())
    covered = -1  # the end of the furthest block channel yielded (an inline title inside it is its text)
    for c in heapq.merge(_block_channels(text, regions), inline, key=lambda c: c.start):
        if c.kind == "inline-link-title":
            if c.start < covered:
                continue
        else:
            covered = max(covered, c.end)
        yield c


def _inline_titles(text: str, regions: "_CodeRegions") -> Iterator[Channel]:
    """The titles of inline links and images in ``text`` that do not lie in code (``regions``, looked up only
    when a title is found), in order."""
    for m in _INLINE_TITLE.finditer(text):
        merged, starts = regions.get()
        if _in_code(merged, starts, m.start()):
            continue
        g = next(i for i in (1, 2, 3) if m.group(i) is not None)
        yield Channel(m.start(g) - 1, m.end(g) + 1, m.start(g), m.end(g), "inline-link-title")


def _block_channels(text: str, regions: _CodeRegions) -> Iterator[Channel]:
    """The channels of ``text`` but inline link titles, in order; linear in the length of the text.

    ``regions``: the fenced blocks and inline code spans of ``text`` (:class:`_CodeRegions`, found on first
    use). Markup that opens inside code is literal text, so no channel but an HTML comment (found everywhere,
    as before issue 18; the engine demotes one shown as code) opens there. A processing instruction or declaration that does not start a line
    must close on its line, and a bogus end tag (``</ ...>``) always: ``(?<!x)`` in a regular expression is
    not a declaration. Channels do not nest, except that HTML comments inside ``<style>`` and ``<script>``
    are yielded too (after their element's code comments)."""
    pos = 0
    n = len(text)
    code: list[tuple[int, int]] = []
    starts: Optional[list[int]] = None
    found: dict[str, int] = {}

    def nxt(ch: str, frm: int) -> int:
        """The next ``ch`` at or after ``frm`` (-1: none; remembered, so that the scans stay linear)."""
        at = found.get(ch)
        if at is None or (0 <= at < frm):
            at = found[ch] = text.find(ch, frm)
        return at if at < 0 or at >= frm else -1

    links, tags = "]:" in text, "<" in text  # (False once no more can follow)
    next_tag: Optional[re.Match] = None
    next_link: Optional[re.Match] = None
    while True:
        if tags and (next_tag is None or next_tag.start() < pos):
            next_tag = _OPENER.search(text, pos)
            tags = next_tag is not None
        if links and (next_link is None or next_link.start() < pos):
            next_link = _LINK_LINE.search(text, pos)
            links = next_link is not None
        if next_tag is None and next_link is None:
            return
        m = next_link if next_tag is None or (next_link is not None and next_link.start() < next_tag.start()) \
            else next_tag
        s = m.start()
        if m.re is _LINK_LINE:  # a line that may be a link reference definition
            d = _LINK_DEF.match(text, m.end())
            if d is None or (starts is not None and _in_code(code, starts, s)):
                pos = m.end()
                continue
            if starts is None:
                code, starts = regions.get()
                if _in_code(code, starts, s):
                    pos = m.end()
                    continue
            g = next(i for i in (1, 2, 3) if d.group(i) is not None)
            yield Channel(s, d.end(g) + 1, d.start(g), d.end(g), "link-title")
            pos = d.end(g) + 1
            continue
        if m.group(1):  # <!-- ... -->
            e = text.find("-->", s + 4)
            yield Channel(s, n if e < 0 else e + 3, s + 4, n if e < 0 else e, "comment")
            pos = n if e < 0 else e + 3
            continue
        if starts is None:
            code, starts = regions.get()
        if _in_code(code, starts, s):
            pos = m.end()
            continue
        if m.group(2) or m.group(4) or m.group(5):
            # where the construct may end: its first ">" (a browser's rule), on its own line unless it starts one
            gt = nxt(">", s + 2)
            at_line_start = _starts_line(text, s)
            nl = nxt("\n", s)
            if (gt < 0 and not at_line_start) or (not (at_line_start and not m.group(5)) and 0 <= nl < gt):
                pos = m.end()
                continue
            e = -1 if gt < 0 else gt
        if m.group(2):  # <? ... ?>
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
                    at = text.find("<!--", body_start, body_end)
                    while at >= 0:  # an HTML comment in the element is still a comment to a reader of the source
                        e = text.find("-->", at + 4, body_end)
                        yield Channel(at, body_end if e < 0 else e + 3, at + 4, body_end if e < 0 else e, "comment")
                        at = -1 if e < 0 else text.find("<!--", e + 3, body_end)
            pos = end


def detect_html_comments(text: str, params: dict) -> Iterator[DetectorHit]:
    """Hidden-text channels (:func:`channels`, those named in ``params.channels``, all by default) whose
    de-obfuscated text matches ``params.pattern`` (and not ``params.exclude``). A hit spans the whole channel;
    its fields are ``match``, ``excerpt`` and ``channel`` (how the channel is named, "HTML comment")."""
    # start-up time: compiled from the catalog cache's op-codes when imported, so imported after the catalog is
    # loaded
    from hermes_audit.engine.deobfuscate import deobfuscate

    pattern = params.get("pattern")
    if not pattern or ("<" not in text and "]:" not in text and "](" not in text):
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
