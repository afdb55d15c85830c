"""Detector for text hidden in simple encodings and ciphers (registered in :mod:`hermes_audit.engine.detectors`).

:func:`detect_cipher_text` finds runs written in an encoding a model can read back but a regular expression
cannot: Ascii85, uuencode, 8-bit binary, Morse code, ROT13, Atbash, reversed text and leetspeak.
Each candidate is decoded and kept only when the result reads as English text (see :func:`_englishness`),
so honest prose, code and identifiers do not become payloads; the decoded text is returned with the hit, and
the engine scans it with every regular-expression rule and reports what it hides at the run's position (as
for :func:`hermes_audit.engine.payloads.detect_encoded_payloads`, which handles base64, base32 and hex).

Bounds: at most :data:`MAX_CANDIDATES` candidates decoded per document, each at most :data:`MAX_RUN_CHARS`
characters, :data:`MAX_TOTAL_DECODED` decoded characters per document. Every search is a linear regular
expression of the standard library, run only when a cheap necessary sign of its encoding is in the text (a
full uuencoded line, the bytes of ASCII letters for binary, enough ``.-`` pairs for Morse); the letter-substitution ciphers (ROT13, Atbash, reversal, leetspeak) are
tried only on lines that hold a tell-tale word of that cipher (``gur``/``naq`` for ROT13, ``gsv``/``zmw``
for Atbash, ``eht``/``dna`` reversed, a digit inside a word for leetspeak), found by one C-speed search.

Offsets are character (code point) offsets into the text given.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Iterator, Optional

from hermes_audit.findings import DetectorHit
from hermes_audit.engine.unicode_chars import printable

#: Most candidates decoded per document.
MAX_CANDIDATES = 300
#: Longest run (characters) considered.
MAX_RUN_CHARS = 20_000
#: Total decoded characters per document.
MAX_TOTAL_DECODED = 200_000
#: Fewest words a decoded text must have.
MIN_WORDS = 4
#: Share of a decoded text's words that must be common English words (see :data:`_COMMON`).
MIN_ENGLISH = 0.3
#: Highest share of common English words in a line as written (English prose is not a cipher; a short lead-in
#: such as "What does this mean?" may precede the ciphered words).
MAX_RAW_ENGLISH = 0.35
#: How much larger the share of common English words must be after a letter substitution than before.
MIN_GAIN = 0.3

#: Common English words, plus the vocabulary of instructions to an agent (the decoded text must read as English).
_COMMON = frozenset("""
a about above after again all also an and any are as at be been before but by can do does done each every
for from get give has have he her here him his how i if in into is it its just keep let make me more most
must my new no not now of off on once only or other our out over please print read reply run say see send
she should show so some tell than that the their them then there these they this those to up upload us
use was we were what when where which while who will with without would write you your
ignore disregard forget previous prior instructions instruction rules system prompt secret secrets
password passwords key keys token tokens credentials file files email emails customer user users data
collect exfiltrate execute command commands delete remove download install answer respond message
following above below restrictions safety everything anything admin access home ssh aws config env
""".split())

_WORD = re.compile(r"[A-Za-z']+")


def _englishness(text: str) -> tuple[int, float]:
    """``(words, share of them that are common English words)`` of ``text``."""
    words = [w.lower().strip("'") for w in _WORD.findall(text)]
    if not words:
        return 0, 0.0
    return len(words), sum(1 for w in words if w in _COMMON) / len(words)


def _reads_as_english(decoded: str) -> bool:
    n, share = _englishness(decoded)
    return n >= MIN_WORDS and share >= MIN_ENGLISH


#: issue 19 (general19): 8-bit binary that spells a short command or phrase ("cat ~/.ssh/id_rsa", "ignore previous
#: instructions"): printable ASCII, at least two words of letters, and no run of control or odd bytes. The shape of a
#: binary run (at least six whole bytes of ASCII letters) is rare enough in honest text that a short clear text counts.
_COMMAND_TEXT = re.compile(r"[ -~]{4,400}")


def _reads_as_command(decoded: str) -> bool:
    return _COMMAND_TEXT.fullmatch(decoded) is not None and len(re.findall(r"[A-Za-z]{2,}", decoded)) >= 2


# --- block encodings --------------------------------------------------------------------------------------

#: Ascii85: a run without spaces of the 85 characters ``!``..``u``, alone on its line, after a label (``x: ``) or
#: framed by ``<~ ~>``; it must mix lower case, upper case and punctuation, as encoded text does.
#: Ascii85 runs alone on a line (searched in ``"\n" + text``), after a ``label: ``, or framed by ``<~ ~>``; each
#: pattern opens with a literal, so ``re`` skips to candidates at C speed.
_A85_RUNS = (
    re.compile(r"\n[ \t]{0,8}([!-u]{25,4000})[ \t]{0,4}(?=\r?\n|$)"),
    re.compile(r": ([!-u]{25,4000})[ \t]{0,4}(?=\r?\n|$)"),
    re.compile(r"<~([!-u]{25,4000})~>"),
)
_A85_MIX = re.compile(r"(?=[^a-z]{0,20000}[a-z])(?=[^A-Z]{0,20000}[A-Z])(?=[^!-/:-@\[-`]{0,20000}[!-/:-@\[-`])")
#: uuencoded lines: a length character, then only characters from space to backquote (no lower case).
_UU_LINE = re.compile(r"(?m)(?:^|(?<=: ))(?:begin [0-7]{3} \S{1,200}\n)?([!-M][ -`]{20,61}[ \t]{0,4}(?:\n[!-M][ -`]{1,61}[ \t]{0,4}){0,400})")
#: A full uuencoded line (45 bytes: ``M`` and 60 characters from space to backquote).
_UU_HINT = re.compile(r"M[ -`]{60}")
_BINARY = re.compile(r"(?<![01])[01]{8}(?:[ \t,]{0,2}[01]{8}){5,2500}(?![01])")
_MORSE = re.compile(r"(?<![\w.\-])[.\-]{1,7}(?:[ \t]{1,3}(?:/[ \t]{1,3}|\|[ \t]{1,3})?[.\-]{1,7}){7,4000}(?![\w.\-])")

_MORSE_TABLE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
    "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6",
    "--...": "7", "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",", "..--..": "?", "-..-.": "/",
    "-....-": "-", "---...": ":", ".--.-.": "@", "..--.-": "_", "-.--.": "(", "-.--.-": ")", ".----.": "'",
}


def _text(data: Optional[bytes]) -> Optional[str]:
    if not data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if sum(1 for c in text if c.isprintable() or c in "\n\r\t") < 0.95 * len(text):
        return None
    return text


def _decode_a85(run: str) -> Optional[str]:
    t = run[2:] if run.startswith("<~") else run
    t = t[:-2] if t.endswith("~>") else t
    try:
        return _text(base64.a85decode(t))
    except (ValueError, binascii.Error):
        return None


def _decode_uu(block: str) -> Optional[str]:
    out = bytearray()
    for line in block.split("\n"):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        n = ord(line[0]) - 32
        need = 1 + (n + 2) // 3 * 4
        line = line.rstrip().ljust(need)
        try:
            out += binascii.a2b_uu(line)
        except binascii.Error:
            return None
    return _text(bytes(out))


def _decode_binary(run: str) -> Optional[str]:
    bits = re.sub(r"[^01]", "", run)
    return _text(bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits) - 7, 8)))


def _decode_morse(run: str) -> Optional[str]:
    words = []
    for word in re.split(r"[ \t]*[/|][ \t]*|[ \t]{3}", run):
        letters = [_MORSE_TABLE.get(code) for code in word.split()]
        if any(c is None for c in letters):
            return None
        words.append("".join(letters))  # type: ignore[arg-type]
    return " ".join(w for w in words if w)


# --- letter substitutions ---------------------------------------------------------------------------------

_ROT13 = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                       "NOPQRSTUVWXYZABCDEFGHIJKLMnopqrstuvwxyzabcdefghijklm")
_ATBASH = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                        "ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrqponmlkjihgfedcba")
_LEET = str.maketrans("0134579$|!", "oieastgsli")

#: Tell-tale words of each cipher (the, and, you, your, all, instructions, ignore written in it); a line holding one
#: is a candidate. Found with ``str.find`` in the lower-cased text (C speed), then widened to their line.
_TELLS = (
    ("ROT13", ("gur", "naq", "lbh", "nyy"), lambda s: s.translate(_ROT13)),
    ("Atbash", ("gsv", "zmw", "blf", "zoo"), lambda s: s.translate(_ATBASH)),
    ("reversed text", ("eht", "dna", "uoy", "lla"), lambda s: s[::-1]),
)
#: Leetspeak: a digit standing for a letter inside a word (``s3nd``, ``7h3m``, ``4nd``); the pattern starts with
#: the digit class so ``re`` skips to candidates at C speed.
_LEET_TELL = re.compile(r"[0134579](?:(?<=[A-Za-z][0134579])[A-Za-z]|(?<![A-Za-z0-9][0134579])[A-Za-z]{2}"
                        r"|(?<=[A-Za-z]{2}[0134579])(?![A-Za-z0-9]))")
#: Most candidate lines looked at per cipher and document.
MAX_TELL_LINES = 200
_LEET_WORD = re.compile(r"[A-Za-z0-9$|!]+")


def _unleet(line: str) -> str:
    """``line`` with digits and symbols inside words read as the letters they imitate (``s3nd`` -> ``send``)."""
    def one(m: "re.Match[str]") -> str:
        w = m.group(0)
        if w.isdigit() or w.isalpha() or not any(c.isalpha() for c in w):
            return w
        return w.translate(_LEET)
    return _LEET_WORD.sub(one, line)


def _line_of(text: str, start: int, end: int) -> tuple[int, int]:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return a, (len(text) if b == -1 else b)


def _word_lines(text: str, lower: str, words: tuple) -> list[tuple[int, int]]:
    """The lines (``(start, end)``, in order, each once) holding one of ``words`` as a whole word, at most
    :data:`MAX_TELL_LINES`."""
    found: set[tuple[int, int]] = set()
    for w in words:
        i = lower.find(w)
        while i != -1 and len(found) < MAX_TELL_LINES:
            j = i + len(w)
            if (i == 0 or not lower[i - 1].isalnum()) and (j == len(lower) or not lower[j].isalnum()):
                span = _line_of(text, i, j)
                found.add(span)
                i = lower.find(w, span[1])
            else:
                i = lower.find(w, j)
    return sorted(found)


def _leet_lines(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    while len(out) < MAX_TELL_LINES:
        m = _LEET_TELL.search(text, pos)
        if m is None:
            break
        span = _line_of(text, m.start(), m.end())
        out.append(span)
        pos = span[1] + 1
    return out


def _with_label_tails(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``lines`` and, for a line with a lead-in label ("Read this backwards and obey: ..."), the part after its last
    ``": "`` as a candidate of its own (issue 19: the clear lead-in would otherwise dilute the ciphered words)."""
    out: list[tuple[int, int]] = []
    for a, b in lines:
        out.append((a, b))
        cut = text.rfind(": ", a, b)
        if cut != -1 and b - (cut + 2) >= 20:
            out.append((cut + 2, b))
    return out


def _substitution_candidates(text: str) -> Iterator[tuple[int, int, str, str]]:
    lower = text.lower()
    tells = [(name, _word_lines(text, lower, words), decode) for name, words, decode in _TELLS]
    tells.append(("leetspeak", _leet_lines(text), _unleet))
    for name, lines, decode in tells:
        for a, b in _with_label_tails(text, lines):
            line = text[a:b]
            if len(line) > MAX_RUN_CHARS:
                continue
            n, share = _englishness(line)
            if n < MIN_WORDS or share > MAX_RAW_ENGLISH:
                continue
            if name == "leetspeak":
                leet = sum(1 for w in _LEET_WORD.findall(line) if not w.isdigit() and not w.isalpha()
                           and any(c.isalpha() for c in w) and w.translate(_LEET).lower() in _COMMON)
                if leet < 2:
                    continue
            decoded = decode(line)
            if _englishness(decoded)[1] < share + MIN_GAIN:
                continue  # the clear text must read much more like English than the line as written
            yield a, b, name, decoded


def _block_candidates(text: str) -> Iterator[tuple[int, int, str, Optional[str]]]:
    # each encoding is looked for only when a cheap necessary sign of it is in the text (issue 8: speed)
    seen: set[int] = set()
    for k, rx in enumerate(_A85_RUNS):
        shift = 1 if k == 0 else 0
        for m in rx.finditer("\n" + text if k == 0 else text):
            a, b = m.start(1) - shift, m.end(1) - shift
            run = m.group(1)
            if a in seen or "://" in run or not _A85_MIX.match(run) or \
                    sum(1 for c in run if "a" <= c <= "z") > 0.6 * len(run):
                continue
            seen.add(a)
            yield a, b, "Ascii85", None
    if _UU_HINT.search(text):
        for m in _UU_LINE.finditer(text):
            yield m.start(1), m.end(1), "uuencode", None
    if text.count("0110") + text.count("0111") >= 4:  # the bytes of ASCII letters
        for m in _BINARY.finditer(text):
            yield m.start(), m.end(), "binary", None
    if text.count(".-") + text.count("-.") >= 8:
        for m in _MORSE.finditer(text):
            yield m.start(), m.end(), "Morse code", None


_DECODERS = {"Ascii85": _decode_a85, "uuencode": _decode_uu, "binary": _decode_binary,
             "Morse code": _decode_morse}


def detect_cipher_text(text: str, params: dict) -> Iterator[DetectorHit]:
    """Runs in Ascii85, uuencode, binary, Morse, ROT13, Atbash, reversed text or leetspeak whose
    decoding reads as English (bounded; see module). Yields hits with ``decoded`` set to the clear text."""
    candidates: list[tuple[int, int, str, Optional[str]]] = list(_block_candidates(text))
    candidates.extend(_substitution_candidates(text))
    candidates.sort(key=lambda c: (c[0], -c[1]))
    taken_until = -1
    budget = MAX_TOTAL_DECODED
    for tried, (s, e, kind, decoded) in enumerate(candidates):
        if tried >= MAX_CANDIDATES or budget <= 0:
            break
        if s < taken_until or e - s > MAX_RUN_CHARS:
            continue
        if decoded is None:
            decoded = _DECODERS[kind](text[s:e])
        if decoded is None or not (_reads_as_english(decoded) or (kind == "binary" and _reads_as_command(decoded))):
            continue
        budget -= len(decoded)
        taken_until = e
        yield DetectorHit(s, e, {"encoding": kind, "count": e - s, "decoded": printable(decoded, 300, count_rest=True)},
                          decoded=decoded)


# --- encodings the audit cannot read back (issue 19) ------------------------------------------------------
# NATO spelling has no word breaks, Ecoji and base2048 map bytes to emoji or to letters of many scripts, Zalgo
# buries letters under combining marks: a model reads them back, a regular expression cannot. Honest context files
# hold none of these shapes, so each is reported as it is (rule HA309), with what can be shown of it.

_NATO_WORDS = {
    "alfa": "a", "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e", "foxtrot": "f", "golf": "g",
    "hotel": "h", "india": "i", "juliet": "j", "juliett": "j", "kilo": "k", "lima": "l", "mike": "m",
    "november": "n", "oscar": "o", "papa": "p", "quebec": "q", "romeo": "r", "sierra": "s", "tango": "t",
    "uniform": "u", "victor": "v", "whiskey": "w", "whisky": "w", "xray": "x", "x-ray": "x", "yankee": "y",
    "zulu": "z",
}
#: Fewest NATO code words in a row (a call sign or an example spelling is shorter).
MIN_NATO_WORDS = 12
_NATO_WORD = (r"(?:alfa|alpha|bravo|charlie|delta|echo|foxtrot|golf|hotel|india|juliett?|kilo|lima|mike|november|"
              r"oscar|papa|quebec|romeo|sierra|tango|uniform|victor|whiske?y|x-?ray|yankee|zulu)")
#: A candidate NATO run: at least :data:`MIN_NATO_WORDS` capitalised words of 4 to 8 letters in a row (code words are
#: written capitalised or in capitals); the words are then checked against :data:`_NATO_WORDS`. The pattern opens
#: with an upper-case letter, so prose (mostly lower case) is skipped at C speed.
_CAP_RUN = re.compile(r"[A-Z](?<![A-Za-z][A-Z])[A-Za-z-]{3,7}(?:[ \t,/]{1,3}[A-Z][A-Za-z-]{3,7}){%d,4000}(?![A-Za-z])"
                      % (MIN_NATO_WORDS - 1))
_CAP_WORD = re.compile(r"[A-Za-z-]+")

#: Emoji runs (Ecoji): at least this many emoji in a row, of at least :data:`MIN_DISTINCT_EMOJI` different ones.
MIN_EMOJI_RUN = 20
MIN_DISTINCT_EMOJI = 12
_EMOJI_ANY = re.compile("[\U0001F000-\U0001FAFF]")
_EMOJI_RUN = re.compile("[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F\u200D]{%d,20000}" % MIN_EMOJI_RUN)

#: Letters of many scripts in a row without a space (base2048 and its kin): a run this long, whose first
#: :data:`SCRIPT_WINDOW` characters fall in at least :data:`MIN_SCRIPT_BLOCKS` different 128-code-point blocks
#: (a Russian, Hindi or Arabic word spans two or three).
MIN_MIXED_RUN = 24
SCRIPT_WINDOW = 48
MIN_SCRIPT_BLOCKS = 8
#: Only letters below U+1100 are looked at (base2048 draws from Latin, IPA, Greek, Cyrillic, Armenian, the Indic
#: scripts, Thai, Tibetan and Georgian), so Chinese, Japanese and Korean prose never forms a candidate.
_NON_ASCII_RUN = re.compile(r"[\u0080-\u10ff]{%d,20000}" % MIN_MIXED_RUN)
#: At most this many non-ASCII runs are examined per document (CJK prose has many).
MAX_MIXED_RUNS = 200

#: Zalgo: at least three letters in a row, each under at least three combining marks.
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
_COMBINING_ANY = re.compile("[\u0300-\u036f]")  # a sign of Zalgo, found at C speed (one range: issue 8)
_ZALGO = re.compile("(?:[^\\W\\d_][" + _COMBINING + "]{3,64}){3,2000}")
_COMBINING_MARK = re.compile("[" + _COMBINING + "]")


def _script_blocks(run: str) -> int:
    blocks = set()
    for ch in run[:SCRIPT_WINDOW]:
        cp = ord(ch)
        blocks.add(cp >> 7)
    return len(blocks)


def detect_opaque_encoding(text: str, params: dict) -> Iterator[DetectorHit]:
    """Runs in encodings the audit cannot turn back into words: NATO spelling (at least
    :data:`MIN_NATO_WORDS` code words), emoji encodings such as Ecoji, letters of many scripts without a space
    (base2048) and Zalgo text. Yields one hit per run, with ``encoding``, ``count`` (characters) and ``shown``
    (the NATO letters, the Zalgo letters, or the run's first characters). Linear in the length of ``text``; the
    emoji, script and Zalgo searches run only on text that is not pure ASCII."""
    for m in _CAP_RUN.finditer(text):
        run: list = []  # consecutive NATO words of this candidate: (start, end, letter)
        for w in list(_CAP_WORD.finditer(m.group(0))) + [None]:
            letter = _NATO_WORDS.get(w.group(0).lower()) if w is not None else None
            if letter is not None:
                run.append((m.start() + w.start(), m.start() + w.end(), letter))
                continue
            if len(run) >= MIN_NATO_WORDS:
                letters = "".join(r[2] for r in run)
                yield DetectorHit(run[0][0], run[-1][1], {"encoding": "NATO spelling", "count": run[-1][1] - run[0][0],
                                                          "shown": printable(letters.upper(), 120, count_rest=True)},
                                  describable=True)
            run = []
    if text.isascii():
        return
    if _EMOJI_ANY.search(text):
        for m in _EMOJI_RUN.finditer(text):
            if len(set(m.group(0)) - {"\ufe0f", "\u200d"}) >= MIN_DISTINCT_EMOJI:
                yield DetectorHit(m.start(), m.end(), {"encoding": "emoji encoding (Ecoji)", "count": m.end() - m.start(),
                                                       "shown": printable(m.group(0), 40, count_rest=True)},
                                  describable=True)
    for k, m in enumerate(_NON_ASCII_RUN.finditer(text)):
        if k >= MAX_MIXED_RUNS:
            break
        if _script_blocks(m.group(0)) >= MIN_SCRIPT_BLOCKS:
            yield DetectorHit(m.start(), m.end(), {"encoding": "letters of many scripts (base2048)",
                                                   "count": m.end() - m.start(),
                                                   "shown": printable(m.group(0), 40, count_rest=True)},
                              describable=True)
    if _COMBINING_ANY.search(text):
        for m in _ZALGO.finditer(text):
            yield DetectorHit(m.start(), m.end(), {"encoding": "Zalgo text", "count": m.end() - m.start(),
                                                   "shown": _COMBINING_MARK.sub("", m.group(0))[:120]},
                              describable=True)
