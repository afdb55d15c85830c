"""Hermes' context-file cap and truncation, per version profile.

Mirrors ``agent/prompt_builder.py`` (hermes-agent 0.19.0 for profile ``0.19``;
``f44718bf`` for ``latest``, see ``../shared/reference/hermes-behaviour.md``
section 2.7) and ``agent/subdirectory_hints.py`` (0.19.0; ``0081f93d``):

* cap resolution (``_get_context_file_max_chars``): a ``context_file_max_chars``
  number > 0 in ``config.yaml`` wins (``int(value)``; ``true`` counts as 1, as in
  Python); else ``int(context_length * 4 * 0.06)`` clamped to
  ``[20_000, 500_000]`` when the model's context length is a positive int;
  else 20,000;
* ``_truncate_content``: text of at most ``cap`` characters is unchanged; longer
  text becomes ``text[:int(cap * 0.7)] + marker + text[-int(cap * 0.2):]``
  (Python slicing, so a tail of 0 keeps the *whole* text after the marker);
* the marker text differs per version; ``latest`` lists the Markdown headings of
  the omitted middle (at most 15, then ``...``);
* subdirectory hints in 0.19 are cut silently to their first 8,000 characters.

All sizes are Python code points. Text may be a :class:`LongText` when the file
was too large to hold (only its head and tail were read); operations that need
unread characters raise :class:`UnknownText`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from hermes_audit.hermes.profiles import (
    CONTEXT_FILE_CHARS_PER_TOKEN,
    CONTEXT_FILE_DYNAMIC_CEILING,
    CONTEXT_FILE_MAX_CHARS,
    CONTEXT_FILE_WINDOW_FRACTION,
    CONTEXT_TRUNCATE_HEAD_RATIO,
    CONTEXT_TRUNCATE_TAIL_RATIO,
    VersionProfile,
)

#: Headings listed in a ``latest`` truncation marker before ``...``.
MARKER_HEADING_LIMIT = 15
#: The em dash Hermes uses in markers and warnings (U+2014).
EM_DASH = "\u2014"
#: The warning sign Hermes prefixes truncation warnings with (U+26A0 U+FE0F).
WARNING_SIGN = "\u26a0\ufe0f"


class UnknownText(Exception):
    """A computation needed characters of a file that hermes-audit did not read (an oversized file's middle)."""


# ---------------------------------------------------------------------------
# Text that may be only partly known
# ---------------------------------------------------------------------------


class LongText:
    """A string known only in part: ``parts`` are known strings and unknown gaps (ints, their length).

    Used for files larger than the reader's limit, of which only a head and a
    tail are held in memory. ``exact`` is False when the total length itself is
    an estimate (an oversized file whose unread middle may hold CR LF pairs that
    Hermes' universal-newline reading would shorten). ``plain_gaps`` is True when
    the reader saw every unread gap and no line starting in one begins, after
    whitespace, with ``#``, a backtick or ``~`` (no Markdown heading or fence there;
    :attr:`~hermes_audit.documents.reader.ReadResult.middle_plain`).
    """

    __slots__ = ("parts", "exact", "plain_gaps")

    def __init__(self, parts: list, exact: bool = True, plain_gaps: bool = False) -> None:
        merged: list = []
        for p in parts:
            if isinstance(p, str):
                if not p:
                    continue
                if merged and isinstance(merged[-1], str):
                    merged[-1] += p
                    continue
            elif p <= 0:
                continue
            elif merged and not isinstance(merged[-1], str):
                merged[-1] += p
                continue
            merged.append(p)
        self.parts = merged
        self.exact = exact
        self.plain_gaps = plain_gaps

    def __len__(self) -> int:
        return sum(len(p) if isinstance(p, str) else p for p in self.parts)

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"LongText(len={len(self)}, parts={len(self.parts)})"

    @property
    def known(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)


Text = Union[str, LongText]


def text_len(t: Text) -> int:
    return len(t)


def concat(*pieces: Text) -> Text:
    """Concatenate strings and long texts (a plain ``str`` when every piece is one)."""
    if all(isinstance(p, str) for p in pieces):
        return "".join(pieces)  # type: ignore[arg-type]
    parts: list = []
    exact = True
    plain = True
    for p in pieces:
        if isinstance(p, str):
            parts.append(p)
        else:
            parts.extend(p.parts)
            exact = exact and p.exact
            plain = plain and p.plain_gaps
    return LongText(parts, exact, plain)


def slice_text(t: Text, start: int, end: int) -> str:
    """``t[start:end]`` for ``0 <= start <= end``; raises :class:`UnknownText` if it touches an unread gap."""
    if isinstance(t, str):
        return t[start:end]
    out: list[str] = []
    pos = 0
    for p in t.parts:
        n = len(p) if isinstance(p, str) else p
        lo, hi = max(start, pos), min(end, pos + n)
        if lo < hi:
            if not isinstance(p, str):
                raise UnknownText(f"characters {lo:,}-{hi:,} were not read")
            out.append(p[lo - pos:hi - pos])
        pos += n
        if pos >= end:
            break
    return "".join(out)


def py_tail(t: Text, n: int) -> str:
    """``t[-n:]`` with Python's semantics (``n == 0`` gives the whole text)."""
    total = len(t)
    if n == 0 or n >= total:
        return slice_text(t, 0, total)
    return slice_text(t, total - n, total)


def known_text(t: Text) -> str:
    """The whole text; raises :class:`UnknownText` for a long text with unread parts."""
    return slice_text(t, 0, len(t))


def strip_text(t: Text) -> tuple[Text, int]:
    """``str.strip()`` of ``t`` and the number of characters removed at the start.

    Raises :class:`UnknownText` when the known head or tail of a long text is all
    whitespace (the strip would reach into the unread middle).
    """
    if isinstance(t, str):
        stripped = t.strip()
        return stripped, (len(t) - len(t.lstrip())) if stripped else 0
    parts = list(t.parts)
    if not isinstance(parts[0], str) or not isinstance(parts[-1], str):
        raise UnknownText("file starts or ends in an unread part")
    head = parts[0].lstrip()
    tail = parts[-1].rstrip()
    if not head or not tail:
        raise UnknownText("leading or trailing whitespace reaches the unread middle")
    removed = len(parts[0]) - len(head)
    parts[0], parts[-1] = head, tail
    return LongText(parts, t.exact, t.plain_gaps), removed


def lstrip_chars(t: Text, chars: str) -> tuple[Text, int]:
    """``t.lstrip(chars)`` and how many characters it removed."""
    if isinstance(t, str):
        s = t.lstrip(chars)
        return s, len(t) - len(s)
    head = t.parts[0]
    if not isinstance(head, str):
        return t, 0
    s = head.lstrip(chars)
    if not s:
        raise UnknownText("leading characters reach the unread middle")
    return LongText([s, *t.parts[1:]], t.exact, t.plain_gaps), len(head) - len(s)


def drop_prefix(t: Text, n: int) -> Text:
    """``t[n:]``."""
    if isinstance(t, str):
        return t[n:]
    head = t.parts[0]
    if not isinstance(head, str) or len(head) < n:
        raise UnknownText("prefix reaches the unread middle")
    return LongText([head[n:], *t.parts[1:]], t.exact, t.plain_gaps)


def startswith(t: Text, prefix: str) -> bool:
    if isinstance(t, str):
        return t.startswith(prefix)
    return slice_text(t, 0, len(prefix)) == prefix


# ---------------------------------------------------------------------------
# Cap resolution
# ---------------------------------------------------------------------------

#: Where the cap in force came from.
CAP_FROM_CONFIG = "config"
CAP_FROM_CONTEXT_LENGTH = "context-length"
CAP_FROM_DEFAULT = "default"
#: Sentinel: config.yaml has no ``context_file_max_chars`` key (or no config at all).
MISSING = object()


@dataclass(frozen=True)
class CapResolution:
    """The context-file cap in force (characters) and where it came from.

    ``source`` is ``config`` (``context_file_max_chars`` in config.yaml or
    ``--max-chars``), ``context-length`` (the model window through Hermes'
    formula) or ``default`` (20,000). ``detail`` is one human sentence.
    """

    cap: int
    source: str
    detail: str
    config_value: Any = None
    context_length: Optional[int] = None

    def to_dict(self) -> dict:
        out = {"cap": self.cap, "source": self.source, "detail": self.detail}
        if self.context_length is not None:
            out["context_length"] = self.context_length
        if self.config_value is not None and not isinstance(self.config_value, (int, float, str, bool)):
            out["config_value"] = repr(self.config_value)
        elif self.config_value is not None:
            out["config_value"] = self.config_value
        return out


def dynamic_cap(context_length: Any) -> int:
    """``_dynamic_context_file_max_chars``: ``int(tokens * 4 * 0.06)`` clamped to [20,000, 500,000];
    20,000 when ``context_length`` is not a positive ``int`` (``bool`` counts as ``int``, as in Hermes)."""
    if not isinstance(context_length, int) or context_length <= 0:
        return CONTEXT_FILE_MAX_CHARS
    budget = int(context_length * CONTEXT_FILE_CHARS_PER_TOKEN * CONTEXT_FILE_WINDOW_FRACTION)
    return max(CONTEXT_FILE_MAX_CHARS, min(budget, CONTEXT_FILE_DYNAMIC_CEILING))


def resolve_cap(config_value: Any = MISSING, context_length: Optional[int] = None, config_label: str = "config.yaml",
                dynamic: bool = True) -> CapResolution:
    """Hermes' ``_get_context_file_max_chars`` with its provenance.

    ``dynamic`` is the profile's ``context_cap_dynamic``: when false (0.13.0-0.16.0 ``_truncate_content``
    with its default ``max_chars=CONTEXT_FILE_MAX_CHARS``) the cap is always 20,000 and neither
    ``config_value`` nor ``context_length`` is consulted (the detail says what is ignored).

    ``config_value`` is the value of ``context_file_max_chars`` in config.yaml
    (``MISSING`` when absent). A number > 0 wins (``int()`` of it, so ``0.5`` is a
    cap of 0 and ``true`` a cap of 1, both as in Hermes); an infinite value makes
    ``int()`` fail and Hermes falls back to the dynamic cap; anything else
    (``null``, a string, a list) is ignored.
    """
    if not dynamic:
        unused = [f"context_file_max_chars {config_value!r} in {config_label}"] \
            if config_value is not MISSING and config_value is not None else []
        if context_length is not None:
            unused.append(f"the model context length ({context_length!r})")
        return CapResolution(CONTEXT_FILE_MAX_CHARS, CAP_FROM_DEFAULT,
                             f"Hermes' fixed cap ({CONTEXT_FILE_MAX_CHARS:,}): this release reads no "
                             "context_file_max_chars and no model context length"
                             + (f"; {' and '.join(unused)} ignored" if unused else ""),
                             config_value=None if config_value is MISSING else config_value)
    if config_value is not MISSING and isinstance(config_value, (int, float)) and config_value > 0:
        try:
            cap = int(config_value)
        except (OverflowError, ValueError):
            cap = None
        if cap is not None:
            return CapResolution(cap, CAP_FROM_CONFIG, f"context_file_max_chars: {config_value!r} in {config_label} (always wins)",
                                 config_value=config_value, context_length=context_length)
    ignored = ""
    if config_value is not MISSING and config_value is not None:
        ignored = f"; context_file_max_chars {config_value!r} in {config_label} is not a positive number, so Hermes ignores it"
    if isinstance(context_length, int) and context_length > 0:
        cap = dynamic_cap(context_length)
        raw = int(context_length * CONTEXT_FILE_CHARS_PER_TOKEN * CONTEXT_FILE_WINDOW_FRACTION)
        clamp = "" if cap == raw else f", clamped from {raw:,} to [{CONTEXT_FILE_MAX_CHARS:,}, {CONTEXT_FILE_DYNAMIC_CEILING:,}]"
        return CapResolution(cap, CAP_FROM_CONTEXT_LENGTH,
                             f"model context window of {context_length:,} tokens x 4 chars x 0.06{clamp}{ignored}",
                             config_value=None if config_value is MISSING else config_value, context_length=context_length)
    window = ("no model context length" if context_length is None else
              f"a model context length of {context_length!r}, which Hermes treats as unknown (not a positive number)")
    return CapResolution(CONTEXT_FILE_MAX_CHARS, CAP_FROM_DEFAULT,
                         f"Hermes default ({CONTEXT_FILE_MAX_CHARS:,}); no context_file_max_chars and {window}{ignored}",
                         config_value=None if config_value is MISSING else config_value)


# ---------------------------------------------------------------------------
# Headings of an omitted middle
# ---------------------------------------------------------------------------

_HEADING = re.compile(r"#{1,6} \S")


@dataclass(frozen=True)
class Heading:
    """A Markdown heading: ``offset`` of its line in the text, ``level`` (1-6) and ``text``."""

    offset: int
    level: int
    text: str


def markdown_headings(content: str, start: int = 0, end: Optional[int] = None) -> list[Heading]:
    """Headings whose line starts in ``content[start:end]`` (latest ``_omitted_headings``, no limit).

    Lines come from ``str.splitlines(keepends=True)``; a stripped line starting
    with ``` or ~~~ toggles a fence and ``#`` lines inside a fence are not
    headings; a heading is a stripped line matching ``#{1,6} \\S`` and its text is
    the line without the ``#`` run, stripped.
    """
    if end is None:
        end = len(content)
    out: list[Heading] = []
    offset = 0
    fenced = False
    for line in content.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and start <= offset < end and _HEADING.match(stripped):
            level = len(stripped) - len(stripped.lstrip("#"))
            out.append(Heading(offset, level, stripped.lstrip("#").strip()))
        offset += len(line)
    return out


#: A line that may be a Markdown heading or fence once stripped (first non-space character).
_MAY_BE_MARKUP = ("#", "`", "~")


def headings_across_plain_gaps(t: LongText, start: int, end: int) -> Optional[list[Heading]]:
    """:func:`markdown_headings` of a long text whose gaps are plain (:attr:`LongText.plain_gaps`), or ``None``
    when they are not or a line crossing a gap's edge might be a heading or fence.

    No line starting inside a plain gap is a heading or fence, so the gaps change neither the
    headings nor the fence state; only the lines cut by a gap's edges are unknown: the known
    start of a line running into a gap, and the known end of a line coming out of one, must not
    begin (after whitespace) with ``#``, a backtick or ``~``.
    """
    if not t.plain_gaps:
        return None
    pieces: list[str] = []
    shifts: list[tuple[int, int]] = []  # (proxy offset after a gap, characters to add from there on)
    proxy_len, extra = 0, 0
    for i, p in enumerate(t.parts):
        if isinstance(p, str):
            pieces.append(p)
            proxy_len += len(p)
            continue
        before = t.parts[i - 1] if i > 0 else ""
        after = t.parts[i + 1] if i + 1 < len(t.parts) else ""
        last = before.splitlines(keepends=True)[-1] if before else ""
        open_line = last if last and last.splitlines()[0] == last else ""  # no line break: runs on into the gap
        close_line = after.splitlines()[0] if after else ""  # comes out of the gap
        if open_line.lstrip().startswith(_MAY_BE_MARKUP) or close_line.lstrip().startswith(_MAY_BE_MARKUP):
            return None
        pieces.append("x")  # one plain character stands for the gap: no line break, no markup
        proxy_len += 1
        extra += p - 1
        shifts.append((proxy_len, extra))
    out: list[Heading] = []
    for h in markdown_headings("".join(pieces)):
        add = 0
        for at, n in shifts:
            if h.offset >= at:
                add = n
        off = h.offset + add
        if start <= off < end:
            out.append(Heading(off, h.level, h.text))
    return out


def marker_heading_list(headings: list[Heading]) -> list[str]:
    """The heading texts a ``latest`` marker lists: the first 15, then ``...`` if there are more."""
    texts = [h.text for h in headings]
    return texts[:MARKER_HEADING_LIMIT] + (["..."] if len(texts) > MARKER_HEADING_LIMIT else [])


# ---------------------------------------------------------------------------
# _truncate_content
# ---------------------------------------------------------------------------


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class Truncation:
    """The result of Hermes' head/tail cut of one string.

    ``text`` is what Hermes injects (equal to the input when not truncated; it
    may be a :class:`LongText` only then). For a truncated text: ``head_chars`` and
    ``tail_chars`` are the kept sizes, ``omitted`` the ``[start, end)`` of the
    dropped middle in the input, ``marker`` the exact marker, ``lost_headings``
    every Markdown heading whose line starts in the dropped middle (``None`` when
    that middle was not read), ``warning`` the user-facing warning Hermes logs.
    """

    text: Text
    original_chars: int
    cap: int
    truncated: bool = False
    head_chars: int = 0
    tail_chars: int = 0
    marker: str = ""
    omitted: tuple[int, int] = (0, 0)
    lost_headings: Optional[list[Heading]] = field(default_factory=list)
    warning: str = ""
    silent: bool = False

    @property
    def kept_chars(self) -> int:
        return len(self.text)

    @property
    def omitted_chars(self) -> int:
        return self.omitted[1] - self.omitted[0]

    def to_dict(self) -> dict:
        out: dict = {"truncated": self.truncated, "characters_before": self.original_chars,
                     "characters_after": len(self.text), "cap": self.cap}
        if self.truncated:
            out.update({
                "kept_head": self.head_chars, "kept_tail": self.tail_chars,
                "omitted": {"start": self.omitted[0], "end": self.omitted[1], "characters": self.omitted_chars},
                "marker": self.marker,
                "lost_headings": None if self.lost_headings is None else [h.text for h in self.lost_headings],
                "warning": self.warning,
                "silent": self.silent,
            })
        return out


def truncation_marker(profile: VersionProfile, filename: str, head: int, tail: int, total: int,
                      target: str, listed: Optional[list[str]] = None) -> str:
    """The marker Hermes puts between the kept head and tail (``_truncate_content``; 0.13.0-0.16.0 with
    ``profile.truncation_marker_file_tools``: ``Use file tools to read the full file.``, no path)."""
    if profile.truncation_marker_file_tools:
        return (f"\n\n[...truncated {filename}: kept {head}+{tail} of {total} chars. Use file tools to read the "
                "full file.]\n\n")
    if profile.marker_lists_headings:
        sections = f" Omitted sections: {'; '.join(listed)}." if listed else ""
        return (f"\n\n[...truncated {filename}: kept {head}+{tail} of {total} chars. The middle is "
                f"omitted.{sections} If you need the full instructions, read the complete file with the read_file "
                f"tool: {target}]\n\n")
    return (f"\n\n[...truncated {filename}: kept {head}+{tail} of {total} chars. The middle is omitted {EM_DASH} "
            f"if you need the full instructions, read the complete file with the read_file tool: {target}]\n\n")


def truncation_warning(filename: str, total: int, cap: int, queue_warning: bool = True, target: str = "") -> str:
    """The warning Hermes logs (and, when ``queue_warning``, shows in the chat status line)."""
    remedy = ("trim the file, pin a larger context_file_max_chars, or use a larger-context model!" if queue_warning
              else f"the full file stays readable with read_file: {target}")
    return f"{WARNING_SIGN}  Context file {filename} TRUNCATED: {total} chars exceeds limit of {cap} {EM_DASH} {remedy}"


def truncate_content(content: Text, filename: str, cap: int, profile: VersionProfile,
                     read_path: Optional[str] = None, queue_warning: bool = True) -> Truncation:
    """Hermes' ``_truncate_content(content, filename, max_chars=cap, read_path=...)``.

    ``filename`` is the warn-name (``AGENTS.md``, ``.hermes.md``,
    ``AGENTS.md (directory chain)``...), ``read_path`` what the marker tells the
    model to ``read_file`` (default ``filename``). Raises :class:`UnknownText`
    when the kept head or tail lies in an unread part of a long text, or when a
    long text fits the cap (it would be injected whole).
    """
    total = len(content)
    if total <= cap:
        if isinstance(content, LongText) and not content.known:
            raise UnknownText(f"the whole {total:,}-character text would be injected, but only part of it was read")
        return Truncation(content if isinstance(content, str) else known_text(content), total, cap)
    head_chars = int(cap * CONTEXT_TRUNCATE_HEAD_RATIO)
    tail_chars = int(cap * CONTEXT_TRUNCATE_TAIL_RATIO)
    omitted_end = total - tail_chars
    target = read_path or filename
    lost: Optional[list[Heading]]
    try:
        middle_known = slice_text(content, 0, total) if isinstance(content, LongText) else content
        lost = markdown_headings(middle_known, head_chars, omitted_end)
    except UnknownText:
        lost = headings_across_plain_gaps(content, head_chars, omitted_end) if isinstance(content, LongText) else None
    if profile.marker_lists_headings and lost is None:
        raise UnknownText("the truncation marker lists headings of a middle that was not read")
    marker = truncation_marker(profile, filename, head_chars, tail_chars, total, target,
                               marker_heading_list(lost or []) if profile.marker_lists_headings else None)
    head = slice_text(content, 0, head_chars)
    tail = py_tail(content, tail_chars)
    return Truncation(
        text=head + marker + tail,
        original_chars=total,
        cap=cap,
        truncated=True,
        head_chars=head_chars,
        tail_chars=tail_chars,
        marker=marker,
        omitted=(head_chars, max(head_chars, omitted_end)) if tail_chars else (head_chars, head_chars),
        lost_headings=lost,
        warning=truncation_warning(filename, total, cap, queue_warning, target) if profile.truncation_warning else "",
    )


def hint_cut_019(content: str, filename: str, limit: int) -> Truncation:
    """Hermes 0.19's hint cap: ``content[:limit] + "\\n\\n[...truncated NAME: N chars total]"``, no log."""
    total = len(content)
    if total <= limit:
        return Truncation(content, total, limit)
    marker = f"\n\n[...truncated {filename}: {total:,} chars total]"
    return Truncation(
        text=content[:limit] + marker,
        original_chars=total,
        cap=limit,
        truncated=True,
        head_chars=limit,
        tail_chars=0,
        marker=marker,
        omitted=(limit, total),
        lost_headings=markdown_headings(content, limit, total),
        warning="",
        silent=True,
    )


def estimate_tokens(chars: int) -> int:
    """Rough token estimate Hermes uses for ASCII text (``(chars + 3) // 4``)."""
    return (chars + 3) // 4 if chars > 0 else 0


def injected_ranges(total: int, cap: int) -> list[tuple[int, int]]:
    """``[start, end)`` ranges of a ``total``-character string that survive a cut at ``cap``."""
    if total <= cap:
        return [(0, total)] if total else []
    head = int(cap * CONTEXT_TRUNCATE_HEAD_RATIO)
    tail = int(cap * CONTEXT_TRUNCATE_TAIL_RATIO)
    if tail == 0:
        return [(0, total)]  # Python's text[-0:] keeps everything after the marker
    return [(0, head), (total - tail, total)]


def is_finite_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not (isinstance(v, float) and not math.isfinite(v))
