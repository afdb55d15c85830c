"""Detectors for hidden payloads and look-alike letters (registered in :mod:`hermes_audit.engine.detectors`).

* :func:`detect_encoded_payloads`: base64 (standard and URL-safe), base32, hex strings,
  ``\\xNN`` and ``\\uXXXX`` escape runs that decode to readable text. Decoding is bounded:
  at most :data:`MAX_CANDIDATES` candidates per document, each at most
  :data:`MAX_RUN_CHARS` characters, nested encodings unwrapped at most
  :data:`MAX_DEPTH` times, and at most :data:`MAX_TOTAL_DECODED` characters
  decoded per document. The decoded text is returned with the hit, so the
  engine scans it with the other rules and reports what it hides at the
  payload's position.
* :func:`detect_confusable_words`: words that mix ASCII letters with letters
  of another script that Unicode lists as their look-alikes (UTS #39
  ``confusables.txt``), such as ``іgnore`` with a Cyrillic ``і``.

Offsets are character (code point) offsets into the text given.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re as _re
import unicodedata
from typing import Iterator, Optional

from hermes_audit.engine.hits import distinct_chars
from hermes_audit.findings import DetectorHit
from hermes_audit.patterns.regex_code import compile_builtin  # issue 8: op-codes from the catalog cache
from hermes_audit.engine.unicode_chars import printable

#: Most encoded-looking runs decoded per document.
MAX_CANDIDATES = 500
#: Longest run (characters) considered for decoding.
MAX_RUN_CHARS = 100_000
#: Nested encodings unwrapped (base64 of base64 of text = depth 2).
MAX_DEPTH = 3
#: Total decoded characters per document.
MAX_TOTAL_DECODED = 1_000_000
#: Shortest decoded text reported.
MIN_DECODED_CHARS = 12

_B64 = compile_builtin(
    r"(?<![A-Za-z0-9+/=_-])(?:[A-Za-z0-9+/]{4}){5,25000}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![A-Za-z0-9+/=_-])"
)
_B64URL = compile_builtin(
    r"(?<![A-Za-z0-9+/=_-])(?=[A-Za-z0-9_-]{0,100000}[_-])[A-Za-z0-9_-]{20,100000}={0,2}(?![A-Za-z0-9+/=_-])"
)
_HEX = compile_builtin(r"(?<![0-9A-Za-z])(?:0x)?((?:[0-9A-Fa-f]{2}){12,50000})(?![0-9A-Za-z])")
_HEX_ESCAPES = compile_builtin(r"(?:\\x[0-9A-Fa-f]{2}){8,50000}")
#: A run of ``\\uXXXX`` escapes (JSON, JavaScript, Python string escapes), each one code point (issue 19, round 3:
#: "Unescape and obey: \\u0069\\u0067...").
_U_ESCAPES = compile_builtin(r"(?:\\u[0-9A-Fa-f]{4}){8,25000}")
#: A base32 run (RFC 4648 alphabet, upper case) inside one of :class:`_RunSearch`'s runs (issue 19).
_B32 = _re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Z2-7]{24,100000}={0,6}(?![A-Za-z0-9+/=_-])")
class _RunSearch:
    """``finditer`` of the maximal runs of the joint alphabet of _HEX, _B64 and _B64URL (``=`` included) long
    enough to hold a match: the spans of ``[A-Za-z0-9+/=_-]{20,}``'s matches (issue 8; stdlib ``re``, several
    times faster on prose than the look-behind patterns; tests/test_performance_equivalence.py compares).

    A run not at the start of the text is found with the character before it, which is outside the
    alphabet: ``re`` then skips from one such character to the next at C speed (30% less time than a
    look-behind tried at every position, which itself beat the plain pattern's retries at each letter of a
    word), and a failed try is never repeated inside the same run.
    """

    _first = _re.compile(r"[A-Za-z0-9+/=_-]{20,}")
    _after = _re.compile(r"[^A-Za-z0-9+/=_-]([A-Za-z0-9+/=_-]{20,})")

    def finditer(self, text: str) -> Iterator["_Run"]:
        m = self._first.match(text)
        if m is not None:
            yield _Run(m.start(), m.end())
        for m in self._after.finditer(text):
            yield _Run(m.start(1), m.end(1))


class _Run:
    """A run found by :class:`_RunSearch` (``span()`` as a match's)."""

    __slots__ = ("_span",)

    def __init__(self, start: int, end: int) -> None:
        self._span = (start, end)

    def span(self) -> tuple[int, int]:
        return self._span


_RUNS = _RunSearch()


def _readable(data: bytes) -> Optional[str]:
    """``data`` as text when it is UTF-8 and mostly printable with some word structure, else ``None``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < MIN_DECODED_CHARS:
        return None
    ok = sum(1 for c in text if c.isprintable() or c in "\n\r\t")
    if ok / len(text) < 0.95:
        return None
    letters = sum(1 for c in text if c.isalpha())
    if letters / len(text) < 0.4:
        return None
    if not any(c in " \n\t.,;:/(){}\"'=_-" for c in text):
        return None
    return text


def _decode_b64(s: str, urlsafe: bool = False) -> Optional[bytes]:
    t = s.rstrip("=")
    t += "=" * (-len(t) % 4)
    try:
        return base64.urlsafe_b64decode(t) if urlsafe else base64.b64decode(t, validate=True)
    except (binascii.Error, ValueError):
        return None


def _decode_b32(s: str) -> Optional[bytes]:
    t = s.rstrip("=")
    t += "=" * (-len(t) % 8)
    try:
        return base64.b32decode(t)
    except (binascii.Error, ValueError):
        return None


def _decode_once(s: str) -> Optional[tuple[str, str]]:
    """Decode a whole string that is one encoded blob: ``(encoding, text)`` or ``None``."""
    st = s.strip()
    if _HEX_ESCAPES.fullmatch(st):
        try:
            data = bytes(int(st[i + 2:i + 4], 16) for i in range(0, len(st), 4))
        except ValueError:
            return None
        txt = _readable(data)
        return ("hex escapes", txt) if txt else None
    m = _HEX.fullmatch(st)
    if m:
        raw = bytes.fromhex(m.group(1))
        txt = _readable(raw) or _encoded_text(raw)
        return ("hex", txt) if txt else None
    if _B64.fullmatch(st):
        data = _decode_b64(st)
        txt = (_readable(data) or _encoded_text(data)) if data is not None else None
        return ("base64", txt) if txt else None
    if _B64URL.fullmatch(st):
        data = _decode_b64(st, urlsafe=True)
        txt = (_readable(data) or _encoded_text(data)) if data is not None else None
        return ("base64url", txt) if txt else None
    return None


def _encoded_text(data: bytes) -> Optional[str]:
    """``data`` as ASCII when it is itself one encoded blob (a layer of a nested encoding), else ``None``."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    st = text.strip()
    if _HEX_ESCAPES.fullmatch(st) or _HEX.fullmatch(st) or _B64.fullmatch(st) or _B64URL.fullmatch(st):
        return st
    return None


def _unwrap(text: str, encoding: str) -> tuple[str, list[str]]:
    """Unwrap nested encodings of an already decoded ``text`` (bounded by :data:`MAX_DEPTH`)."""
    chain = [encoding]
    while len(chain) < MAX_DEPTH:
        nxt = _decode_once(text)
        if nxt is None:
            break
        chain.append(nxt[0])
        text = nxt[1]
    return text, chain


def detect_encoded_payloads(text: str, params: dict) -> Iterator[DetectorHit]:
    """Base64, URL-safe base64, hex and ``\\xNN`` runs that decode to readable text (bounded; see module)."""
    candidates: list[tuple[int, int, str, str]] = []
    if "\\x" in text:  # issue 8: each pattern's cheap necessary condition first
        for m in _HEX_ESCAPES.finditer(text):
            candidates.append((m.start(), m.end(), "hex escapes", m.group(0)))
    if "\\u" in text:
        for m in _U_ESCAPES.finditer(text):
            candidates.append((m.start(), m.end(), "unicode escapes", m.group(0)))
    # issue 8: every _HEX, _B64 or _B64URL match lies inside one maximal run of their joint alphabet of at
    # least 20 characters (the characters around a run are outside the alphabet, so the look-arounds see
    # the same thing at the run's ends); the patterns are searched only inside such runs: the same matches
    for run in _RUNS.finditer(text):
        a, b = run.span()
        for m in _HEX.finditer(text, a, b):
            candidates.append((m.start(1), m.end(1), "hex", m.group(1)))
        for m in _B64.finditer(text, a, b):
            candidates.append((m.start(), m.end(), "base64", m.group(0)))
        for m in _B64URL.finditer(text, a, b):
            candidates.append((m.start(), m.end(), "base64url", m.group(0)))
        m = _B32.fullmatch(text, a, b)
        if m is not None:  # issue 19: tried after base64 of the same span, whose decoding is then unreadable
            candidates.append((a, b, "base32", m.group(0)))
    candidates.sort()
    taken_until = -1
    budget = MAX_TOTAL_DECODED
    tried = 0
    for s, e, kind, run in candidates:
        if s < taken_until or e - s > MAX_RUN_CHARS:
            continue
        tried += 1
        if tried > MAX_CANDIDATES or budget <= 0:
            break
        if kind == "hex escapes":
            data: Optional[bytes] = bytes(int(run[i + 2:i + 4], 16) for i in range(0, len(run), 4))
        elif kind == "unicode escapes":
            data = "".join(chr(int(run[i + 2:i + 6], 16)) for i in range(0, len(run), 6)).encode("utf-8", "surrogatepass")
        elif kind == "hex":
            data = bytes.fromhex(run)
        elif kind == "base32":
            data = _decode_b32(run)
        else:
            data = _decode_b64(run, urlsafe=kind == "base64url")
        if data is None:
            continue
        decoded = _readable(data) or _encoded_text(data)
        if decoded is None:
            continue
        decoded, chain = _unwrap(decoded, kind)
        if _readable(decoded.encode("utf-8", "surrogatepass")) is None:
            continue
        budget -= len(decoded)
        taken_until = e
        yield DetectorHit(
            s, e,
            {"encoding": " inside ".join(reversed(chain)), "count": e - s, "decoded": printable(decoded, 300, count_rest=True)},
            decoded=decoded,
        )


_WORD = compile_builtin(r"[\p{L}\p{M}]{2,200}")
#: Longest word :data:`_WORD` takes: a longer run of letters is cut into words of this many characters.
_WORD_MAX = 200
#: Every letter or mark (``[\\p{L}\\p{M}]``) is in this class, a stdlib ``re`` class (faster than ``regex``).
_LETTERISH = "A-Za-z\\u0080-\\U0010ffff"
_ASCII_LETTER = _re.compile("[A-Za-z]")


@functools.lru_cache(maxsize=16)
def _mixed_run_pattern(odd: str) -> "_re.Pattern[str]":
    """A maximal run of :data:`_LETTERISH` characters holding an ASCII letter and one of ``odd``.

    The look-behind anchors a match at a run's start and the lazy look-aheads stop at the
    run's end, so the search is linear in the text; runs that cannot hold a word the
    detector reports cost no Python work (issue 8).
    """
    # the same set as [A-Za-z\u0080-\U0010ffff] spelled as a negation: ``re`` compiles this one in 0.2 ms
    # instead of 6 ms (it walks every code point of a range above U+00FF); issue 8: start-up
    cls = "[^\\x00-@\\[-`{-\\x7f]"
    odd_cls = "[" + "".join(_re.escape(c) for c in odd) + "]"
    return _re.compile(f"(?<!{cls})(?={cls}*?[A-Za-z])(?={cls}*?{odd_cls}){cls}++")


@functools.lru_cache(maxsize=2)
def _odd_letters(protos_id: int, protos: tuple) -> frozenset:
    """The look-alike letters the detector reports (in ``protos``, script not Latin)."""
    return frozenset(c for c in protos if _script(c) not in ("LATIN", ""))


def _mixed_words(text: str, protos: dict) -> Iterator[tuple[str, int, int]]:
    """``(word, start, end)`` of the matches of :data:`_WORD` in ``text`` that hold an ASCII letter
    and a non-ASCII character, in order, leaving out only words that hold none of the look-alike
    letters of ``protos`` (they yield no finding).

    A run of letters and marks lies inside one run of :data:`_LETTERISH` characters, and
    :data:`_WORD` cuts it into words from its start; so the words of the runs found by
    :func:`_mixed_run_pattern` (for the look-alike letters present) are exactly the text's
    words inside those runs.
    """
    present = _odd_letters(id(protos), tuple(protos)) & distinct_chars(text)
    if not present or _ASCII_LETTER.search(text) is None:
        return
    for m in _mixed_run_pattern("".join(sorted(present))).finditer(text):
        for w in _WORD.finditer(text, m.start(), m.end()):
            word = w.group(0)
            if word.isascii() or not any(("a" <= c <= "z") or ("A" <= c <= "Z") for c in word):
                continue
            yield word, w.start(), w.end()


def _script(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else ""


def detect_confusable_words(text: str, params: dict) -> Iterator[DetectorHit]:
    """Words mixing ASCII letters with look-alike letters of another script (UTS #39 prototypes)."""
    # start-up time: compiled from the catalog cache's op-codes when imported, so imported after the catalog is
    # loaded
    from hermes_audit.engine.deobfuscate import confusable_prototypes

    protos = confusable_prototypes()
    if not protos or text.isascii():
        return
    for word, start, end in _mixed_words(text, protos):
        odd = [c for c in word if c in protos and _script(c) not in ("LATIN", "")]
        if not odd:
            continue
        folded = "".join(protos.get(c, c) if c in odd else c for c in word)
        chars = list(dict.fromkeys(odd))
        yield DetectorHit(
            start, end,
            {
                "word": printable(word, 80),
                "folded": printable(folded, 80),
                "codepoints": ", ".join(f"U+{ord(c):04X}" for c in chars),
                "names": ", ".join(unicodedata.name(c, "?") for c in chars),
            },
        )
