"""Unicode facts used by the detectors: invisible characters, emoji, scripts, smuggling channels.

Character classes come from ``unicodedata`` (general category, combining
class, names) rather than hand-written tables wherever Unicode defines them.
"""

from __future__ import annotations

import re
import unicodedata

#: Zero-width and other invisible characters that are not bidi controls.
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u034f\u00ad\u17b4\u17b5")
#: Characters that render blank but are letters (not ``\s``): fillers used to split words.
BLANK_LETTERS = frozenset("\u3164\u115f\u1160\uffa0\u2800")
#: Explicit bidi embedding/override/isolate controls (Trojan Source).
BIDI_OPENERS = frozenset("\u202a\u202b\u202d\u202e\u2066\u2067\u2068")
BIDI_CLOSERS = {"\u202c": frozenset("\u202a\u202b\u202d\u202e"), "\u2069": frozenset("\u2066\u2067\u2068")}
BIDI_CONTROLS = BIDI_OPENERS | frozenset(BIDI_CLOSERS)
#: Marks that are legitimate in right-to-left text.
BIDI_MARKS = frozenset("\u200e\u200f\u061c")
#: Format characters that are visible number signs (prepended concatenation marks), not hiding tools.
_PREPENDED_MARKS = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u08e2" + chr(0x110BD) + chr(0x110CD))
TAG_BEGIN, TAG_END = 0xE0000, 0xE007F
TAG_CANCEL = 0xE007F
BLACK_FLAG = 0x1F3F4


def is_tag(ch: str) -> bool:
    return TAG_BEGIN <= ord(ch) <= TAG_END


def is_variation_selector(ch: str) -> bool:
    o = ord(ch)
    return 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF


def variation_selector_byte(ch: str) -> int:
    """Byte value carried by a variation selector in the usual smuggling scheme (VS1..VS256 -> 0..255)."""
    o = ord(ch)
    if 0xFE00 <= o <= 0xFE0F:
        return o - 0xFE00
    return o - 0xE0100 + 16


def is_invisible(ch: str) -> bool:
    """Zero-width, format (Cf) or blank-letter character, excluding tags and variation selectors."""
    if ch in ZERO_WIDTH or ch in BLANK_LETTERS or ch in BIDI_CONTROLS:
        return True
    if is_tag(ch) or is_variation_selector(ch):
        return False
    return unicodedata.category(ch) == "Cf" and ch not in BIDI_MARKS and ch not in _PREPENDED_MARKS


def is_emoji_like(ch: str) -> bool:
    """Approximation of Extended_Pictographic plus emoji components (skin tones, keycap, regional indicators)."""
    o = ord(ch)
    return (
        0x1F000 <= o <= 0x1FAFF
        or 0x2600 <= o <= 0x27BF
        or 0x2300 <= o <= 0x23FF
        or 0x2B00 <= o <= 0x2BFF
        or 0x2190 <= o <= 0x21FF
        or 0x25A0 <= o <= 0x25FF
        or 0x2900 <= o <= 0x297F
        or o in (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299, 0x20E3)
    )


def _script_letter(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "LM"


def is_joining_script(ch: str) -> bool:
    """Letters of scripts where ZWNJ/ZWJ are orthographic: Arabic (incl. Persian/Urdu), Syriac, Indic, Sinhala, Myanmar, Khmer."""
    o = ord(ch)
    return _script_letter(ch) and (
        0x0600 <= o <= 0x08FF  # Arabic, Syriac, Thaana, Arabic Extended
        or 0x0900 <= o <= 0x0DFF  # Devanagari .. Sinhala
        or 0x1000 <= o <= 0x109F  # Myanmar
        or 0x1780 <= o <= 0x17FF  # Khmer
        or 0xFB50 <= o <= 0xFDFF or 0xFE70 <= o <= 0xFEFF  # Arabic presentation forms
        or 0xA8E0 <= o <= 0xA8FF
    ) or unicodedata.category(ch) in ("Mn", "Mc") and 0x0600 <= o <= 0x0DFF


def char_name(ch: str) -> str:
    """Unicode name, or ``U+XXXX`` when unnamed."""
    return unicodedata.name(ch, f"U+{ord(ch):04X}")


def codepoint(ch: str) -> str:
    return f"U+{ord(ch):04X}"


#: An escape sequence cut short at the end of a text (``\u20``, ``\U000e00``, ``\x0``, a lone ``\``).
_PARTIAL_ESCAPE = re.compile(r"\\(?:x[0-9a-fA-F]?|u[0-9a-fA-F]{0,3}|U[0-9a-fA-F]{0,7})?\Z")


def _cut(text: str, limit: int) -> str:
    """``text[:limit]`` without a backslash escape cut in half at its end.

    ``printable`` output is often shortened again (a message holding an
    escaped match, a reporter's own bound); a cut inside ``\\u200b`` would
    leave a bare ``\\u``. Only the partial escape at the cut is dropped.
    """
    head = text[:limit]
    if "\\" not in head[-10:]:
        return head
    m = _PARTIAL_ESCAPE.search(head)
    return head[:m.start()] if m else head


def printable(text: str, limit: int = 200, count_rest: bool = False) -> str:
    """Text safe to show in any output: control, format and bidi characters escaped, length bounded.

    ``limit`` is in characters (code points) of ``text``, counted before
    escaping, so an escape is never cut in half; when ``text`` is itself
    already escaped (a message holding an escaped match), a partial escape at
    the cut is dropped. A shortened text ends with ``…``, or with
    ``… (N more)`` (N characters of ``text`` not shown) when ``count_rest``.
    """
    out = []
    head = _cut(text, limit) if len(text) > limit else text
    for ch in head:
        cat = unicodedata.category(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif cat in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") or is_tag(ch) or is_variation_selector(ch) or ch in BLANK_LETTERS:
            o = ord(ch)
            out.append(f"\\x{o:02x}" if o < 0x100 else (f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"))
        else:
            out.append(ch)
    if len(text) > len(head):
        out.append(f"… ({len(text) - len(head)} more)" if count_rest else "…")
    return "".join(out)


#: Characters ``printable`` escapes although ``str.isprintable`` accepts them (variation selectors, blank letters).
_PRINTABLE_BUT_ESCAPED = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef" + "".join(sorted(BLANK_LETTERS)) + "]")


#: Longest text :func:`safe_path` shows.
_SAFE_CHARS = 4096


def safe_path(path: str) -> str:
    """A path with control, bidi and undecodable characters escaped (never shown raw)."""
    # issue 8: most texts need no escape. ``str.isprintable`` is False for every category ``printable``
    # escapes (Cc, Cf, Cs, Co, Cn, Zl, Zp; the tags are Cf or Cn; surrogate-escaped bytes are Cs), and
    # the pattern finds the printable characters it escapes too: such a text comes back unchanged.
    if len(path) <= _SAFE_CHARS and path.isprintable() and (path.isascii() or
                                                            _PRINTABLE_BUT_ESCAPED.search(path) is None):
        return path
    return _safe_path_escaped(path)


def _safe_path_escaped(path: str) -> str:
    """:func:`safe_path` without its no-escape shortcut."""
    try:
        raw = path.encode("utf-8", "surrogateescape")  # undecodable bytes of a file name, back to bytes
    except UnicodeEncodeError:  # another lone surrogate: printable() shows it as \udXXX
        return printable(path, _SAFE_CHARS)
    return printable(raw.decode("utf-8", "backslashreplace"), _SAFE_CHARS)
