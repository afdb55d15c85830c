"""Findings: what a rule reports, with positions in the original file text, and the hits a detector
yields (:class:`DetectorHit`). The vocabulary of every layer (tests/test_layers.py: the base layer).

Positions are 1-based lines and columns. Columns count Python code points
(not bytes, not UTF-16 units); ``end_column`` is the column *after* the last
matched character, as SARIF defines it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional, TypeVar

# SHA-256 without loading OpenSSL (issue 8: start-up time): ``hashlib`` loads the OpenSSL bindings
# (``_hashlib``, about 2 ms at every start); CPython's own module computes the same digest.
try:
    from _sha256 import sha256  # type: ignore[import-not-found]  # CPython <= 3.11
except ImportError:  # pragma: no cover - other interpreters and layouts
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,no-redef]  # CPython 3.12+
    except ImportError:
        from hashlib import sha256  # type: ignore[assignment]


_L = TypeVar("_L", bound="_Level")


class _Level(enum.IntEnum):
    """An ordered level with a lower-case ``label`` that :meth:`parse` reads back."""

    @classmethod
    def parse(cls: type[_L], value: str) -> _L:
        """The member named ``value`` (case-insensitive, surrounding blanks ignored).

        Raises ``ValueError`` naming the accepted values.
        """
        try:
            return cls[value.strip().upper()]
        except KeyError:
            accepted = ", ".join(m.label for m in cls)
            raise ValueError(f"unknown {cls.__name__.lower()} {value!r} (expected one of: {accepted})") from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Severity(_Level):
    """Finding severity, ordered so that comparisons work (``HIGH > MEDIUM``); ``parse("high")`` reads a label."""

    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4


class Confidence(_Level):
    """How sure a rule is that a match is what it claims; ``parse("medium")`` reads a label."""

    LOW = 0
    MEDIUM = 1
    HIGH = 2


@dataclass(frozen=True)
class Span:
    """A half-open character range ``[start, end)`` in a document's text."""

    start: int
    end: int


@dataclass(frozen=True)
class Position:
    """1-based line and column (code points) in the original text."""

    line: int
    column: int


class LineIndex:
    """Maps character offsets in a text to 1-based (line, column) positions.

    Lines end at ``\\n``; a ``\\r`` before it is part of the line's content as
    far as columns are concerned (it is never counted as a line break on its
    own, matching how Hermes and most editors treat CRLF files).
    """

    def __init__(self, text: str) -> None:
        self._starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            self._starts.append(i + 1)
            i = find("\n", i + 1)
        self._length = len(text)

    def position(self, offset: int) -> Position:
        """Position of the character at ``offset`` (clamped to the text)."""
        import bisect

        offset = max(0, min(offset, self._length))
        line = bisect.bisect_right(self._starts, offset) - 1
        return Position(line + 1, offset - self._starts[line] + 1)

    def line_bounds(self, line: int) -> tuple[int, int]:
        """Offsets ``[start, end)`` of 1-based ``line`` without its newline."""
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else self._length
        return start, end


@dataclass
class Finding:
    """One problem found by one rule in one document.

    ``span`` is in the document's decoded text (see ``Document.text``);
    ``start``/``end`` are derived positions. ``snippet`` is the matched text
    with secrets redacted and control characters escaped. ``hermes_pattern_id``
    is set for findings that mirror a Hermes threat pattern.
    """

    rule_id: str
    rule_name: str
    family: str
    severity: Severity
    confidence: Confidence
    path: str
    span: Span
    start: Position
    end: Position
    message: str
    snippet: str
    hermes_pattern_id: Optional[str] = None
    fingerprint: str = ""
    fix: Optional[str] = None
    related: list["RelatedLocation"] = field(default_factory=list)
    decoded: Optional[str] = None
    suppressed: Optional[str] = None  # reason, when an inline suppression or baseline applies

    def to_dict(self) -> dict:
        """JSON-ready dictionary (the schema documented in docs/usage.md)."""
        out = {
            "rule_id": self.rule_id,
            "rule_name": self.rule_name,
            "family": self.family,
            "severity": self.severity.label,
            "confidence": self.confidence.label,
            "path": self.path,
            "start_line": self.start.line,
            "start_column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "message": self.message,
            "snippet": self.snippet,
            "fingerprint": self.fingerprint,
            "hermes_pattern_id": self.hermes_pattern_id,
        }
        if self.fix:
            out["fix"] = self.fix
        if self.decoded is not None:
            out["decoded"] = self.decoded
        if self.related:
            out["related"] = [r.to_dict() for r in self.related]
        if self.suppressed is not None:
            out["suppressed"] = self.suppressed
        return out


@dataclass
class RelatedLocation:
    """A second location that belongs to a finding (e.g. the other side of a seam)."""

    path: str
    start: Position
    end: Position
    message: str

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "start_line": self.start.line,
            "start_column": self.start.column,
            "end_line": self.end.line,
            "end_column": self.end.column,
            "message": self.message,
        }


def normalise_for_fingerprint(text: str) -> str:
    """Case-folded text with runs of whitespace collapsed to one space."""
    return " ".join(text.casefold().split())


def fingerprint(rule_id: str, path: str, matched: str, occurrence: int = 0) -> str:
    """Content-based fingerprint: 16 hex digits of SHA-256.

    Depends on the rule, the file path, the normalised matched text and the
    occurrence index among identical matches in the same file; never on line
    numbers, so findings keep their identity when lines move.
    """
    h = sha256()
    for part in (rule_id, path, normalise_for_fingerprint(matched), str(occurrence)):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def assign_fingerprints(findings: list[Finding], matched_texts: list[str], path: Optional[str] = None) -> None:
    """Set ``fingerprint`` on each finding, numbering identical matches in order. ``path``: the path that
    identifies the findings' file (all in one file; :func:`hermes_audit.documents.paths.repository_path`:
    relative to the repository root, whichever directory the scan runs from), else each finding's own."""
    seen: dict[tuple[str, str, str], int] = {}
    for f, text in zip(findings, matched_texts):
        where = path if path is not None else f.path
        key = (f.rule_id, where, normalise_for_fingerprint(text))
        n = seen.get(key, 0)
        seen[key] = n + 1
        f.fingerprint = fingerprint(f.rule_id, where, text, n)


@dataclass
class DetectorHit:
    """A detector match: raw span, message fields, optional decoded payload and severity override.

    ``describable`` hits (e.g. an HTML comment's instructions) get the engine's
    describes-versus-performs treatment: inside a code block or a quoted example
    their confidence drops and their severity is capped, as for regex rules.
    """

    start: int
    end: int
    fields: dict = field(default_factory=dict)
    decoded: Optional[str] = None
    severity: Optional[Severity] = None
    describable: bool = False
