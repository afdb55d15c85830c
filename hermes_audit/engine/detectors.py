"""Built-in detectors that rules can name with ``detector:`` instead of a regex.

A detector finds things a regular expression cannot describe well: runs of
invisible characters classified as legitimate or not, hidden payloads in tag
characters, variation selectors or zero-width bits (decoded), unbalanced bidi
controls. Each yields :class:`DetectorHit` values with spans in the raw text.
Detectors take the rule's ``params`` mapping and ignore keys they do not know.
"""

from __future__ import annotations

import re
from typing import Callable, Iterator, Optional

from hermes_audit.engine import inputs
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.engine.hits import DECODED_MESSAGE_CHARS, distinct_chars, shown_decoded
from hermes_audit.findings import DetectorHit, Severity


#: The ASCII characters (none of them is invisible, a tag, a variation selector or a bidi control).
_ASCII = frozenset(map(chr, range(128)))


def _runs(text: str, pred: Callable[[str], bool], min_len: int = 1,
          only: Optional[frozenset] = None, ascii_false: bool = False) -> Iterator[tuple[int, int]]:
    """Maximal runs ``[i, j)`` of characters satisfying ``pred``, left to right.

    ``pred`` must depend on the character only. It is asked once per distinct
    character of ``text``; the runs are then found by one character-set search
    (issue 8: no per-character Python loop). Only runs of at least ``min_len``
    characters are yielded and, when ``only`` is given, only runs made solely
    of characters in ``only`` (still maximal for ``pred``): the regular
    expression skips the others, so a text of many short runs costs no Python
    work per run. ``ascii_false``: ``pred`` is False for every ASCII character, so it is asked only about the
    others (issue 8: an ASCII text costs one ``str.isascii``; tests check each caller's predicate).
    """
    if ascii_false:
        if text.isascii():
            return
        chars = sorted(c for c in distinct_chars(text) - _ASCII if pred(c))
    else:
        chars = sorted(c for c in distinct_chars(text) if pred(c))
    if not chars:
        return
    cls = "[" + "".join(re.escape(c) for c in chars) + "]"
    if only is not None:
        inner = [c for c in chars if c in only]
        if not inner:
            return
        # a maximal run of ``cls`` whose characters are all in ``inner``
        body = "[" + "".join(re.escape(c) for c in inner) + "]"
        pat = re.compile(f"(?<!{cls}){body}{{{max(1, min_len)},}}(?!{cls})")
    else:
        # a match of ``cls{min_len,}`` starts a maximal run: a longer run started earlier would have matched there
        pat = re.compile(cls + ("+" if min_len <= 1 else f"{{{min_len},}}"))
    for m in pat.finditer(text):
        yield m.start(), m.end()


def _neighbour(text: str, i: int, step: int) -> str:
    """The nearest character from ``i`` in direction ``step`` skipping VS15/VS16 and skin-tone modifiers."""
    j = i
    while 0 <= j < len(text):
        ch = text[j]
        o = ord(ch)
        if ch in "\ufe0e\ufe0f" or 0x1F3FB <= o <= 0x1F3FF:
            j += step
            continue
        return ch
    return ""


def legitimate_reason(text: str, i: int) -> Optional[str]:
    """Why the invisible character at ``text[i]`` is legitimate, or ``None`` when it is not."""
    ch = text[i]
    if ch == "\ufeff" and i == 0:
        return "byte-order mark at the start of the file"
    if ch == "\u200d":
        before, after = _neighbour(text, i - 1, -1), _neighbour(text, i + 1, 1)
        if before and after and uc.is_emoji_like(before) and uc.is_emoji_like(after):
            return "zero-width joiner inside an emoji sequence"
    if ch in "\u200c\u200d":
        before = text[i - 1] if i > 0 else ""
        after = text[i + 1] if i + 1 < len(text) else ""
        if before and after and uc.is_joining_script(before) and uc.is_joining_script(after):
            return "joiner inside a word of a joining script (Persian, Arabic, Indic)"
    return None


#: The only characters :func:`legitimate_reason` can find legitimate (byte-order mark, joiners).
_MAYBE_LEGITIMATE = frozenset("\ufeff\u200c\u200d")


def _zero_width_payload(run: str) -> bool:
    return len(run) >= 8 and set(run) <= uc.ZERO_WIDTH and len(set(run)) >= 2


def detect_invisible(text: str, params: dict) -> Iterator[DetectorHit]:
    """Runs of invisible characters. ``params.mode``: ``suspicious`` (default) or ``legitimate``."""
    want_legit = params.get("mode") == "legitimate"
    pred = _is_invisible_not_bidi
    # legitimate_reason() is None for every other character, so a legitimate run consists of these only
    only = _MAYBE_LEGITIMATE if want_legit else None
    for s, e in _runs(text, pred, only=only, ascii_false=True):
        if _zero_width_payload(text[s:e]):
            continue  # reported by zero-width-encoding
        legit = all(legitimate_reason(text, i) for i in range(s, e))  # stops at the first illegitimate one
        if legit != want_legit:
            continue
        chars = text[s:e]
        distinct = list(dict.fromkeys(chars))
        yield DetectorHit(
            s, e,
            {
                "count": len(chars),
                "codepoints": ", ".join(uc.codepoint(c) for c in distinct),
                "names": ", ".join(uc.char_name(c) for c in distinct),
                "reason": legitimate_reason(text, s) or "",
            },
        )


def detect_tags(text: str, params: dict) -> Iterator[DetectorHit]:
    """Runs of Unicode tag characters (U+E0000-U+E007F) decoded to the ASCII they hide.

    An emoji tag sequence (U+1F3F4 black flag, tag letters/digits, U+E007F
    cancel tag; e.g. the flag of Scotland) is legitimate and not reported.
    """
    for s, e in _runs(text, uc.is_tag, ascii_false=True):
        run = text[s:e]
        if (
            s > 0 and ord(text[s - 1]) == uc.BLACK_FLAG and ord(run[-1]) == uc.TAG_CANCEL and len(run) <= 8
            and all(chr(ord(c) - 0xE0000).isalnum() for c in run[:-1])
        ):
            continue
        decoded = "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)
        yield DetectorHit(s, e, {"count": len(run), "decoded": shown_decoded(decoded, DECODED_MESSAGE_CHARS)}, decoded=decoded)


def detect_variation_selectors(text: str, params: dict) -> Iterator[DetectorHit]:
    """Variation selectors used as a byte channel (U+FE00-U+FE0F, U+E0100-U+E01EF).

    One selector after an emoji or a CJK ideograph is ordinary; a run of two or
    more, or a supplementary selector after anything else, carries data. The
    bytes (VS1..VS16 = 0..15, VS17..VS256 = 16..255) are decoded as UTF-8.
    """
    min_run = int(params.get("min_run", 2))
    for s, e in _runs(text, uc.is_variation_selector, ascii_false=True):
        run = text[s:e]
        base = text[s - 1] if s > 0 else ""
        if len(run) < min_run:
            o = ord(base) if base else 0
            cjk = 0x3400 <= o <= 0x9FFF or 0x20000 <= o <= 0x3FFFF or 0xF900 <= o <= 0xFAFF
            if run in ("\ufe0e", "\ufe0f") or cjk or not base:
                continue
        data = bytes(uc.variation_selector_byte(c) for c in run)
        decoded = data.decode("utf-8", errors="replace")
        yield DetectorHit(s, e, {"count": len(run), "decoded": shown_decoded(decoded, DECODED_MESSAGE_CHARS)}, decoded=decoded)


def _decode_bits(run: str) -> Optional[str]:
    """Try the common zero-width binary schemes; return decoded printable text or ``None``."""
    kinds = list(dict.fromkeys(run))
    candidates = []
    for zero in kinds:
        for one in kinds:
            if zero == one:
                continue
            seps = [k for k in kinds if k not in (zero, one)]
            groups = [g for g in _split_any(run, seps)] if seps else [run]
            bits = "".join("0" if c == zero else "1" for g in groups for c in g)
            per_group = [g for g in groups if g]
            out = []
            if seps and per_group and all(len(g) <= 8 for g in per_group):
                for g in per_group:
                    out.append(chr(int("".join("0" if c == zero else "1" for c in g), 2)))
            else:
                for k in range(0, len(bits) - 7, 8):
                    out.append(chr(int(bits[k:k + 8], 2)))
            txt = "".join(out)
            if txt:
                score = sum(1 for c in txt if c.isprintable() and ord(c) < 128) / len(txt)
                candidates.append((score, txt))
    if not candidates:
        return None
    score, txt = max(candidates)
    return txt if score >= 0.9 else None


def _split_any(s: str, seps: list[str]) -> list[str]:
    out, cur = [], []
    for c in s:
        if c in seps:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur))
    return out


def _is_zero_width(c: str) -> bool:
    return c in uc.ZERO_WIDTH


def _is_bidi_control(c: str) -> bool:
    return c in uc.BIDI_CONTROLS


def _is_invisible_not_bidi(c: str) -> bool:
    return uc.is_invisible(c) and c not in uc.BIDI_CONTROLS


#: The predicates given to :func:`_runs` with ``ascii_false`` (tests check each against every ASCII character).
ASCII_FALSE_PREDICATES = (_is_invisible_not_bidi, uc.is_tag, uc.is_variation_selector, _is_zero_width, _is_bidi_control)


def detect_zero_width_encoding(text: str, params: dict) -> Iterator[DetectorHit]:
    """Long runs of mixed zero-width characters: binary-encoded hidden text."""
    for s, e in _runs(text, _is_zero_width, min_len=8, ascii_false=True):  # shorter runs are no payload
        run = text[s:e]
        if not _zero_width_payload(run):
            continue
        decoded = _decode_bits(run)
        yield DetectorHit(
            s, e,
            {"count": len(run), "decoded": shown_decoded(decoded or "(no readable decoding)", DECODED_MESSAGE_CHARS)},
            decoded=decoded,
        )


def detect_bidi(text: str, params: dict) -> Iterator[DetectorHit]:
    """Explicit bidi embedding, override and isolate controls; unbalanced ones per line are flagged."""
    if text.isascii() or uc.BIDI_CONTROLS.isdisjoint(distinct_chars(text)):
        return  # nothing to report (issue 8: skip the per-line walk; no bidi control is ASCII)
    line_start = 0
    for line in text.split("\n"):
        stack: list[str] = []
        unbalanced = False
        positions = []
        for i, ch in enumerate(line):
            if ch in uc.BIDI_OPENERS:
                stack.append(ch)
                positions.append(i)
            elif ch in uc.BIDI_CLOSERS:
                positions.append(i)
                if stack and stack[-1] in uc.BIDI_CLOSERS[ch]:
                    stack.pop()
                else:
                    unbalanced = True
        if stack:
            unbalanced = True
        for s, e in _runs(line, _is_bidi_control, ascii_false=True):
            chars = line[s:e]
            yield DetectorHit(
                line_start + s, line_start + e,
                {
                    "codepoints": ", ".join(uc.codepoint(c) for c in dict.fromkeys(chars)),
                    "names": ", ".join(uc.char_name(c) for c in dict.fromkeys(chars)),
                    "balance": "unbalanced on its line" if unbalanced else "balanced",
                },
                severity=None if unbalanced else Severity.MEDIUM,
            )
        line_start += len(line) + 1



# The three modules below compile their patterns when imported, from the op-codes the catalog cache holds
# (patterns.regex_code.compile_builtin): they are imported on a detector's first call, after the catalog is
# loaded, not when the engine is (issue 8: start-up time; otherwise the ``regex`` package is imported).


def _comments():
    from hermes_audit.engine import comments  # start-up time: compiled from the catalog cache's op-codes

    return comments


def _ciphers():
    from hermes_audit.engine import ciphers  # start-up time: compiled from the catalog cache's op-codes

    return ciphers


def _cues():
    from hermes_audit.engine import cues  # start-up time: compiled from the catalog cache's op-codes

    return cues


def _payloads():
    from hermes_audit.engine import payloads  # start-up time: compiled from the catalog cache's op-codes

    return payloads


#: The text-only detectors by name: each looks at the document text (and the rule's ``params``) alone. The
#: detectors that read the Hermes model's facts (memory stores, loading, prompts, profiles, suppression comments)
#: are the audits' (:data:`hermes_audit.audits.detectors.MODEL_DETECTORS`); the catalog knows every name
#: (:data:`hermes_audit.patterns.catalog.DETECTOR_NAMES`).
DETECTORS: dict[str, Callable[[str, dict], Iterator[DetectorHit]]] = {
    "invisible-characters": detect_invisible,
    "tag-smuggling": detect_tags,
    "variation-selector-smuggling": detect_variation_selectors,
    "zero-width-encoding": detect_zero_width_encoding,
    "bidi-controls": detect_bidi,
    "encoded-payload": lambda text, params: _payloads().detect_encoded_payloads(text, params),
    "cipher-text": lambda text, params: _ciphers().detect_cipher_text(text, params),
    "opaque-encoding": lambda text, params: _ciphers().detect_opaque_encoding(text, params),
    "confusable-words": lambda text, params: _payloads().detect_confusable_words(text, params),
    "html-comments": lambda text, params: _comments().detect_html_comments(text, params),
    "input-encoding": inputs.detect_input,
    "yaml-duplicate-keys": inputs.detect_duplicate_keys,
    "cue-sentences": lambda text, params: _cues().detect_cue_sentences(text, params),
}
