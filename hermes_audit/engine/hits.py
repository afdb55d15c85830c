"""How a detector's decoded payload is shown, and the distinct characters of a text: shared by the text
detectors (:mod:`hermes_audit.engine.detectors`, ``ciphers``, ``comments``, ``payloads``) and the engine.
A detector yields :class:`hermes_audit.findings.DetectorHit` values."""

from __future__ import annotations

from hermes_audit.engine import unicode_chars as uc

#: Characters of a decoded hidden payload shown in a finding's ``decoded`` field (the rest is counted).
DECODED_CHARS = 500


#: Characters of a decoded hidden payload quoted in a finding's message.
DECODED_MESSAGE_CHARS = 300


def shown_decoded(decoded: str, limit: int = DECODED_CHARS) -> str:
    """A decoded payload as findings show it: control and invisible characters escaped, at most
    ``limit`` characters (code points of ``decoded``), then ``… (N more)`` with the count left out.

    :attr:`DetectorHit.decoded` keeps the whole payload (the engine scans it again); only what
    is shown is bounded, so a 50,000-character tag run does not become a 50,000-character report line.
    """
    return uc.printable(decoded, limit, count_rest=True)


#: One-entry cache: the last text whose distinct characters were computed, and that set.
_DISTINCT: tuple = ("", frozenset())


def distinct_chars(text: str) -> frozenset:
    """The set of characters of ``text`` (cached for the last text: the detectors share it)."""
    global _DISTINCT
    cached = _DISTINCT
    if cached[0] is text:
        return cached[1]
    chars = frozenset(text)
    _DISTINCT = (text, chars)
    return chars
