"""The de-obfuscated view audit rules match on, with an exact map back to the raw text.

A hostile file hides a trigger phrase from regular expressions without hiding
it from the model. This view undoes the usual tricks, in order; every step is
a :class:`~hermes_audit.patterns.normalize.MappedText`, and the steps are
composed, so a match in the view still points at the raw characters:

1. **Invisible characters removed**: zero-width characters, format (``Cf``)
   characters including the soft hyphen, tag characters, variation selectors,
   bidi controls and marks, combining marks stacked on Latin letters
   (U+0300-U+036F), Arabic tatweel and harakat, Hebrew points. **Blank
   letters** that render as nothing but are not whitespace (U+3164 HANGUL
   FILLER, U+115F/U+1160, U+FFA0, U+2800 BRAILLE PATTERN BLANK) become spaces.
2. **NFKC**: full-width and mathematical letters become ASCII, exactly as
   Hermes normalises (``unicodedata.normalize("NFKC", ...)``).
3. **TR39 confusable folding**: letters of other scripts that Unicode lists as
   look-alikes of Latin letters (Cyrillic ``і``, ``а``, Greek ``ο`` ...) are
   replaced by the Latin letters they imitate, using the prototypes of
   Unicode's ``confusables.txt`` (UTS #39, vendored in ``hermes_audit/data``;
   no hand-written list). Only words that already mix in ASCII letters, or
   that sit on a line written mostly in ASCII letters, are folded, so Russian
   or Greek prose stays itself for the rules written in those languages.
4. **Letter-spacing splices**: three or more single letters separated by one
   repeated separator (``i g n o r e``, ``i.g.n.o.r.e``, ``i-g-n-o-r-e``)
   are joined into one word.

5. **Turkish I**: dotted capital ``İ`` and dotless ``ı`` become ``I`` and ``i``
   (Python's case-insensitive matching keeps them apart from ``i``), so
   ``İGNORE`` matches the English rules and the Turkish rules need one spelling.
6. **Split keywords** (issue 19): a word broken by hyphens or underscores
   (``ig-nore``, ``in-struc-tions``, ``ex_filtrate``) is joined when the joined
   word is one of :data:`SPLIT_KEYWORDS`, and quoted fragments glued with ``+``
   (``'ign' + 'ore all prev' + 'ious'``) are joined when the joined text holds
   a keyword that no fragment holds alone. Ordinary compounds (``pre-commit``,
   ``prior_instructions``, ``'Hello, ' + 'world'``) are left alone.

7. **Markdown emphasis and empty inline tags** (issue 18, round 8): the
   rendered words, not the markup that splits them. A ``*``/``**``/``***`` or
   ``~~`` run between two letters (``Ig*no*re``, ``ig~~no~~re``) is removed; a
   pair of ``_``/``__``/``___`` runs around a word or a few words
   (``_Ignore_ all _previous_``, ``__reveal__``) is removed, the opening run at
   a line start or after a space, quote or tag and the closing one before a
   space, quote, tag or sentence punctuation (so ``__import__(``,
   ``getattr(__builtins__`` and ``snake_case`` stay); and a run of inline
   HTML tags without attributes between two letters (``Ign<b></b>ore``,
   ``Ig<i>no</i>re``, ``Ig<wbr>nore``, ``Ig<br>nore``, ``Ig<x-y></x-y>nore``), HTML comments, empty links
   (``Ig[]()nore``), backticks between Latin letters (``Ig`no`re``) and invisible characters written as entities (``Ig&shy;nore``,
   ``&#8203;``) between two letters are removed (round 9). ``_`` is a word character
   for the rules, so ``_Ignore_`` was not the word ``Ignore``; ``*`` and tags
   between letters cut one word in two. Tags with attributes (``<span
   style=...>``) stay for the hidden-markup rules.

8. **Shell line continuations** (session 12): a ``\\`` that ends a line after
   a blank is removed with the newline and the next line's indentation, so a command written
   over several lines (``pip install \\`` / ``--index-url https://... \\`` /
   ``--extra-index-url https://...``) is one line for the rules, as it is for
   the shell. A ``\\`` glued to a word (a Markdown hard line break) stays.

Splices *between* words (``Ignore, all previous``) are left to the rules,
which accept any short run of punctuation as a word separator.

Sizes are in characters (code points). The functions never raise on any
``str`` input.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from typing import Optional

from hermes_audit.engine import unicode_chars as uc
from hermes_audit.patterns.normalize import MappedText, compose, filter_map, nfkc
from hermes_audit.patterns.regex_code import compile_builtin  # issue 8: op-codes from the catalog cache
from hermes_audit import datacache

#: The vendored UTS #39 data file.
CONFUSABLES_PATH = Path(__file__).resolve().parent.parent / "data" / "confusables.txt"

#: Letters of the de-obfuscated view that are dropped because they only decorate other letters.
_ARABIC_DECORATION = frozenset(
    [chr(c) for c in range(0x064B, 0x0660)] + ["\u0670", "\u0640"] + [chr(c) for c in range(0x06D6, 0x06EE)]
)
_HEBREW_POINTS = frozenset(chr(c) for c in range(0x0591, 0x05C8) if unicodedata.category(chr(c)) == "Mn")

#: Anything step 1 might change; a text without any of these skips step 1 entirely.
_STEP1_TRIGGER = compile_builtin(
    r"[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0\ufe00-\ufe0f\U000e0000-\U000e01ef"
    r"\u0300-\u036f\u0591-\u05c7\u0640\u064b-\u065f\u0670\u06d6-\u06ed]"
)
_NON_ASCII = compile_builtin(r"[^\x00-\x7f]")
_BLANK_LETTER = compile_builtin("[" + "".join(sorted(uc.BLANK_LETTERS)) + "]")
_WORD = compile_builtin(r"[\p{L}\p{M}\p{Nd}]+")
#: One non-ASCII character of ``_WORD``'s class (issue 8: where a word with a non-ASCII character starts).
_NON_ASCII_WORD_CHAR = compile_builtin(r"(?V1)[[\p{L}\p{M}\p{Nd}]--[\x00-\x7f]]")
_LETTER_SPACED = compile_builtin(r"(?<![\p{L}\p{Nd}])\p{L}(?P<sep>[ .\-_*\u00b7\u2022|/+~])\p{L}(?:(?P=sep)\p{L}){1,200}(?![\p{L}\p{Nd}])")


def dropped(ch: str) -> bool:
    """True for a character step 1 removes from the view (see the module docstring)."""
    if ch in uc.BLANK_LETTERS:
        return False
    o = ord(ch)
    return (
        uc.is_invisible(ch)
        or uc.is_tag(ch)
        or uc.is_variation_selector(ch)
        or ch in uc.BIDI_MARKS
        or 0x0300 <= o <= 0x036F
        or ch in _ARABIC_DECORATION
        or ch in _HEBREW_POINTS
    )


def _blank_to_space(ch: str) -> Optional[str]:
    return " " if ch in uc.BLANK_LETTERS else None


def strip_invisible(text: str) -> MappedText:
    """Step 1 alone: invisible and decorating characters removed, blank letters turned into spaces."""
    # every character step 1 changes is outside ASCII (issue 8: str.isascii needs no scan of the text)
    if text.isascii() or (not _STEP1_TRIGGER.search(text) and not _BLANK_LETTER.search(text)):
        return MappedText(text, text)
    return filter_map(text, lambda c: not dropped(c), _blank_to_space)


@functools.lru_cache(maxsize=1)
def confusable_prototypes() -> dict[str, str]:
    """Non-ASCII character -> the ASCII letters it is confusable with (UTS #39 ``confusables.txt``).

    Only entries whose prototype, after NFKC, is one to three ASCII letters
    or digits are kept: they are the look-alikes that hide Latin words. The
    file is read once; a missing or unreadable file gives an empty mapping
    (the view then simply does not fold), never an exception. The mapping is
    kept in :mod:`hermes_audit.datacache`, keyed by the file's and this module's
    bytes (issue 8: start-up time), and found first by a cheap key over both files'
    size, modification and change time and inode (:func:`hermes_audit.datacache.stat_key`),
    so unchanged files are neither read nor hashed.
    """
    out: dict[str, str] = {}
    sources = (CONFUSABLES_PATH, Path(__file__))
    quick = datacache.stat_key(["confusables", unicodedata.unidata_version], sources)
    hit = datacache.read_by_stat_key("confusables", quick)
    if isinstance(hit, dict):
        return {str(k): str(v) for k, v in hit.items()}
    try:
        with open(CONFUSABLES_PATH, "rb") as fb:
            raw = fb.read()
        key = datacache.digest(["confusables", raw, Path(__file__).read_bytes(), unicodedata.unidata_version])
        hit = datacache.read("confusables", key)
        if isinstance(hit, dict):
            datacache.write_stat_key("confusables", quick, key)
            return {str(k): str(v) for k, v in hit.items()}
        with open(CONFUSABLES_PATH, encoding="utf-8-sig") as fh:
            for line in fh:
                body = line.split("#", 1)[0].strip()
                if not body:
                    continue
                parts = [p.strip() for p in body.split(";")]
                if len(parts) < 2:
                    continue
                try:
                    src = "".join(chr(int(c, 16)) for c in parts[0].split())
                    target = "".join(chr(int(c, 16)) for c in parts[1].split())
                except ValueError:
                    continue
                if len(src) != 1 or ord(src) < 0x80:
                    continue
                proto = unicodedata.normalize("NFKC", target)
                if 1 <= len(proto) <= 3 and proto.isascii() and proto.isalnum():
                    out[src] = proto
        if datacache.write("confusables", key, out):
            datacache.write_stat_key("confusables", quick, key)
    except OSError:
        return {}
    return out


def confusables_version() -> str:
    """The ``# Version:`` of the vendored ``confusables.txt`` (``"unknown"`` when absent)."""
    try:
        with open(CONFUSABLES_PATH, encoding="utf-8-sig") as fh:
            for _ in range(20):
                line = fh.readline()
                if line.startswith("# Version:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _is_ascii_letter(ch: str) -> bool:
    return ("a" <= ch <= "z") or ("A" <= ch <= "Z")


_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _non_ascii_words(text: str):
    """``(start, word)`` of each ``_WORD`` match of ``text`` holding a non-ASCII character, in order.

    The same words as filtering ``_WORD.finditer(text)`` (issue 8: without visiting the ASCII words). The
    ASCII members of ``_WORD``'s class are exactly ``[A-Za-z0-9]``, so a word's first non-ASCII character
    is found by searching for one, and the word extends back over ASCII letters and digits only. Each search
    skips non-word characters (emoji, CJK punctuation) in one step, so the cost is per word, as before.
    """
    search = _NON_ASCII_WORD_CHAR.search
    word_at = _WORD.match
    pos = 0
    while True:
        m = search(text, pos)
        if m is None:
            return
        p = m.start()
        w = word_at(text, p)
        if w is None:  # defensive: the character found is one of the word class
            pos = p + 1
            continue
        start = p
        while start > pos and text[start - 1] in _ASCII_ALNUM:
            start -= 1
        pos = w.end()
        yield start, text[start:pos]


def fold_confusables(text: str) -> MappedText:
    """Step 3: TR39 look-alike letters replaced by their Latin prototypes, in Latin context only.

    A word (letters, marks, digits) is folded when it contains an ASCII letter
    and a confusable letter (``іgnore``), or when every letter of it has a
    Latin prototype and its line has more ASCII letters than other letters
    (``аll`` written entirely in Cyrillic inside an English sentence).
    """
    if not _NON_ASCII.search(text):
        return MappedText(text, text)
    protos = confusable_prototypes()
    if not protos or protos.keys().isdisjoint(set(text)):  # issue 8: no look-alike letter at all
        return MappedText(text, text)
    replace_at: dict[int, str] = {}
    line_cache: dict[int, bool] = {}

    def latin_line(pos: int) -> bool:
        start = text.rfind("\n", 0, pos) + 1
        hit = line_cache.get(start)
        if hit is None:
            end = text.find("\n", pos)
            line = text[start:end if end != -1 else len(text)]
            ascii_letters = sum(1 for c in line if _is_ascii_letter(c))
            other = sum(1 for c in line if c.isalpha() and not _is_ascii_letter(c))
            hit = ascii_letters > other
            line_cache[start] = hit
        return hit

    for start, word in _non_ascii_words(text):
        conf = [(i, protos[c]) for i, c in enumerate(word) if c in protos]
        if not conf:
            continue
        has_ascii = any(_is_ascii_letter(c) for c in word)
        letters = [c for c in word if c.isalpha()]
        all_conf = bool(letters) and all(c in protos or _is_ascii_letter(c) for c in letters)
        if has_ascii or (all_conf and latin_line(start)):
            for i, p in conf:
                replace_at[start + i] = p
    if not replace_at:
        return MappedText(text, text)
    return MappedText.from_edits(text, sorted(replace_at.items()))


#: Every _LETTER_SPACED match starting at ``p`` has a separator, a letter and the same separator at ``p + 1``
#: (stdlib ``re`` finds these several times faster than the look-behind pattern runs over prose). The middle
#: class is "no ASCII character but a letter, no separator": it holds every ``\p{L}`` of ``regex``, whose
#: Unicode tables may be newer than ``re``'s (issue 21: with any character there, runs of punctuation such as
#: ``-- .. ,,`` were a candidate at every other character; tests/test_performance_equivalence.py checks the
#: class on every code point).
_SPACED_LETTER = re.compile(r"([ .\-_*\u00b7\u2022|/+~])[^\x00-\x40\x5b-\x60\x7b-\x7f\u00b7\u2022]\1")


def _letter_spaced_matches(text: str):
    """``_LETTER_SPACED.finditer(text)``, tried only where a match can start (issue 8: the same matches)."""
    search = _SPACED_LETTER.search
    match = _LETTER_SPACED.match
    end = 0
    c = search(text, 1)
    while c is not None:
        p = c.start() - 1
        if p >= end:
            m = match(text, p)
            if m is not None:
                yield m
                end = m.end()
        c = search(text, max(p + 2, end + 1))


def join_letter_spacing(text: str) -> MappedText:
    """Step 4: ``i g n o r e`` / ``i.g.n.o.r.e`` (three or more letters, one repeated separator) joined."""
    drop: set[int] = set()
    for m in _letter_spaced_matches(text):
        sep = m.group("sep")
        for i in range(m.start() + 1, m.end(), 2):
            if text[i] == sep:
                drop.add(i)
    if not drop:
        return MappedText(text, text)
    return MappedText.from_edits(text, ((i, "") for i in sorted(drop)))


#: Step 5: Turkish dotted capital I and dotless small i, folded to the ASCII letters (issue 19).
_TURKISH_I = {"\u0130": "I", "\u0131": "i"}


def fold_turkish_i(text: str) -> MappedText:
    """Step 5: ``İ`` (U+0130) becomes ``I`` and ``ı`` (U+0131) becomes ``i``, one character for one.

    Python's case-insensitive matching does not equate ``İ``/``ı`` with ``i``, so ``İGNORE`` or
    ``JAİLBREAK`` would slip past an English rule, and a Turkish word written with or without its
    dotless letters (``kuralları``/``kurallari``) would need two patterns. The Turkish patterns are
    written in the folded form.
    """
    if "\u0130" not in text and "\u0131" not in text:
        return MappedText(text, text)
    edits = [(i, _TURKISH_I[c]) for i, c in enumerate(text) if c in _TURKISH_I]
    return MappedText.from_edits(text, edits)


#: Step 6: words of the injection and exfiltration rules that a splice may break (issue 19).
SPLIT_KEYWORDS = frozenset("""
ignore disregard forget previous prior instructions instruction directives guidelines system prompt override
bypass jailbreak reveal exfiltrate exfiltration credentials credential password passwords secret secrets token
tokens upload download execute delete private apikey apikeys
""".split())
_SPLIT_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{1,12}(?:[-_][A-Za-z]{1,12}){1,5}(?![A-Za-z0-9])")
_FRAGMENTS = re.compile(r"""(['"])[^'"\n]{1,60}\1(?:[ \t]{0,3}\+[ \t]{0,3}(['"])[^'"\n]{1,60}\2){1,20}""")
_FRAGMENT = re.compile(r"""(['"])([^'"\n]{1,60})\1""")
_KEYWORD = re.compile(r"[A-Za-z]+")


def join_split_keywords(text: str) -> MappedText:
    """Step 6: ``ig-nore`` / ``ex_filtrate`` joined when the joined word is a keyword, and ``'ign' + 'ore'`` joined
    when the joined text holds a keyword that no fragment holds (see the module docstring)."""
    if "-" not in text and "_" not in text and "+" not in text:
        return MappedText(text, text)
    drop: list[int] = []
    for m in _SPLIT_WORD.finditer(text):
        word = m.group(0)
        if "".join(c for c in word if c.isalpha()).lower() in SPLIT_KEYWORDS:
            drop.extend(m.start() + i for i, c in enumerate(word) if c in "-_")
    if "+" in text:
        for m in _FRAGMENTS.finditer(text):
            parts = list(_FRAGMENT.finditer(text, m.start(), m.end()))
            joined = "".join(f.group(2) for f in parts).lower()
            alone = {w.lower() for f in parts for w in _KEYWORD.findall(f.group(2))}
            if not any(w in SPLIT_KEYWORDS and w not in alone for w in _KEYWORD.findall(joined)):
                continue
            for a, b in zip(parts, parts[1:]):
                drop.extend(range(a.end() - 1, b.start() + 1))  # closing quote, " + ", opening quote
    if not drop:
        return MappedText(text, text)
    return MappedText.from_edits(text, ((i, "") for i in sorted(set(drop))))


_INLINE_TAG = (r"(?:b|i|u|s|em|strong|del|ins|mark|span|sub|sup|small|big|tt|font|q|abbr|cite|dfn|var|samp|kbd|code"
               r"|strike|wbr)")
#: Step 7: emphasis delimiters and attribute-less inline tags that split or wrap a word (see the module docstring).
#: Each alternative opens with its delimiter and checks what stands before it in a look-behind (the search then
#: jumps from one delimiter to the next). Bounded: a ``_`` pair holds at most 80 characters, a tag run at most
#: eight tags of at most 14 characters each.
#: Invisible characters written as HTML entities (soft hyphen, zero-width space and joiners, word joiner, BOM,
#: direction marks): rendered as nothing, so between two letters they split a word for the rules only.
_INVISIBLE_ENTITY = (r"&(?:shy|zwj|zwnj|lrm|rlm|ZeroWidthSpace|NoBreak|#0*(?:173|8203|8204|8205|8206|8207|8288|65279)"
                     r"|#[xX]0*(?:ad|AD|200[b-fB-F]|2060|[fF][eE][fF][fF]));")
_EMPHASIS = compile_builtin(
    r"(?:\*{1,3}|~{2,4})(?<=\p{L}(?:\*{1,3}|~{2,4}))(?=\p{L})"
    # backticks between Latin letters only: a code span abuts the particles of Korean or Japanese text
    # ("`curl ... | sh`를 실행하세요"), which must stay apart from the command
    r"|`{1,3}(?<=[A-Za-z]`{1,3})(?=[A-Za-z])"
    r"|(?:</?[A-Za-z][\w-]{0,20}[ \t]{0,2}/?>|<!--[^\n]{0,200}?-->|\[\]\([^()\s]{0,200}\)|" + _INVISIBLE_ENTITY + r"){1,8}"
    # the letter after first (issue 21): both assertions hold at the same position, so the matches are the
    # same, but a run of tags followed by another tag ("</sys></sys>...") no longer runs the look-behind, up to
    # eight tags back, for each of its eight lengths (7,200 ms/MB for the de-obfuscated view, now ~100)
    r"(?=\p{L})"
    r"(?<=\p{L}(?:<[^<>\n]{1,30}>|<!--[^\n]{0,200}?-->|\[\]\([^()\s]{0,200}\)|&[#\w]{1,20};){1,8})"
    r"|(?P<u>_{1,3})(?<=(?:^|[\s*\"'>~\u201c\u2018\u00ab])_{1,3})(?=\p{L})[^_\n]{0,80}?(?<=\p{L})(?P=u)"
    r"(?=$|[\s*\"'<~\u201d\u2019\u00bb]|[.!?,;:)](?:\s|$))",
    re.I | re.M,
)
#: Every character step 7 removes is one of these (issue 8: a text without any skips the step).
_EMPHASIS_CHARS = ("*", "~~", "_", "<", "`", "[]", "&")


def strip_emphasis(text: str) -> MappedText:
    """Step 7: emphasis delimiters and empty or attribute-less inline tags that split or wrap words removed."""
    if not any(c in text for c in _EMPHASIS_CHARS):
        return MappedText(text, text)
    drop: list[int] = []
    for m in _EMPHASIS.finditer(text):
        u = m.group("u")
        if u is None:
            drop.extend(range(m.start(), m.end()))
        else:
            drop.extend(range(m.start(), m.start() + len(u)))
            drop.extend(range(m.end() - len(u), m.end()))
    if not drop:
        return MappedText(text, text)
    return MappedText.from_edits(text, ((i, "") for i in drop))


_CONTINUATION = compile_builtin(r"(?<=[ \t])\\\n[ \t]*")


def join_continuations(text: str) -> MappedText:
    """Step 8: ``\\`` + newline + the next line's blanks, after a blank, removed (the blank before stays)."""
    if "\\\n" not in text:
        return MappedText(text, text)
    edits = [(i, "") for m in _CONTINUATION.finditer(text) for i in range(m.start(), m.end())]
    if not edits:
        return MappedText(text, text)
    return MappedText.from_edits(text, edits)


def deobfuscate(text: str, nfkc_view: Optional[MappedText] = None) -> MappedText:
    """De-obfuscated view of ``text`` (steps 1-8 of the module docstring) with a map back to ``text``.

    ``nfkc_view``: ``nfkc(text)`` when the caller has it already; it is used (not computed again) when
    step 1 changes nothing (issue 8).
    """
    view = strip_invisible(text)
    for step in (nfkc, fold_confusables, join_letter_spacing, fold_turkish_i, join_split_keywords, strip_emphasis,
                 join_continuations):
        if step is nfkc and nfkc_view is not None and view.is_identity and view.text is text:
            nxt = nfkc_view
        else:
            nxt = step(view.text)
        if not nxt.is_identity or nxt.text != view.text:
            view = compose(view, nxt)
    return view
