"""A document: one file as hermes-audit sees it (path, kind, text, Hermes label)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from hermes_audit.documents.kinds import DocumentKind, hermes_label
from hermes_audit.documents.reader import ReadResult, ReadStatus, decode_bytes, read_file
from hermes_audit.findings import LineIndex, Position


@dataclass
class Document:
    """One file to scan.

    ``path`` is the display path (relative to the scan root where possible,
    ``/``-separated). ``text`` is the decoded text (see ``ReadResult``), or
    ``None`` when the file could not be read. ``label`` is the name Hermes
    uses for the file in headings and ``[BLOCKED: ...]`` markers.
    """

    path: str
    kind: DocumentKind
    read: ReadResult
    abs_path: Optional[Path] = None
    label: str = ""
    #: The directory the file was read below (:func:`~hermes_audit.documents.reader.read_file`'s ``root``):
    #: ``--fix`` writes it back below the same root. ``None``: read as named (outside any scanned tree).
    root: Optional[Path] = None
    _lines: Optional[LineIndex] = field(default=None, repr=False)
    _tail_lines: Optional[LineIndex] = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.label:
            self.label = hermes_label(self.path, self.kind)

    @property
    def text(self) -> Optional[str]:
        return self.read.text

    @property
    def readable(self) -> bool:
        return self.read.readable

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            self._lines = LineIndex(self.text or "")
        return self._lines

    def _tail_known(self) -> bool:
        r = self.read
        return r.tail is not None and r.tail_start is not None and r.tail_line is not None

    @property
    def extent(self) -> int:
        """Characters addressable by offsets: the text, or the whole file for an oversized one whose
        tail position is known (offsets from ``read.tail_start`` address ``read.tail``)."""
        if self._tail_known():
            return self.read.total_chars
        return len(self.text or "")

    def slice(self, start: int, end: int) -> str:
        """Characters ``[start, end)``; offsets past the head of an oversized file address its tail."""
        r = self.read
        if self._tail_known() and start >= r.tail_start:
            return r.tail[start - r.tail_start:end - r.tail_start]
        return (self.text or "")[start:end]

    def position(self, offset: int) -> Position:
        """1-based line and column of ``offset`` (see :meth:`slice` for oversized files)."""
        r = self.read
        if self._tail_known() and offset >= r.tail_start:
            if self._tail_lines is None:
                self._tail_lines = LineIndex(r.tail)
            p = self._tail_lines.position(offset - r.tail_start)
            col = p.column + ((r.tail_column or 1) - 1 if p.line == 1 else 0)
            return Position(p.line + r.tail_line - 1, col)
        return self.lines.position(offset)

    @classmethod
    def from_path(
        cls,
        path: Path,
        display: str,
        kind: DocumentKind,
        root: Optional[Path],
        max_bytes: int,
        dangling_out: bool = True,
    ) -> "Document":
        """Read ``path`` (:func:`~hermes_audit.documents.reader.read_file`, ``dangling_out`` passed on)."""
        return cls(path=display, kind=kind, read=read_file(path, root, max_bytes, dangling_out=dangling_out),
                   abs_path=path, root=root)

    @classmethod
    def from_text(cls, text: str, path: str = "<text>", kind: DocumentKind = DocumentKind.GENERIC) -> "Document":
        """A document from in-memory text (tests, stdin)."""
        return cls(path=path, kind=kind, read=ReadResult(ReadStatus.OK, text=text, total_chars=len(text)))

    @classmethod
    def from_bytes(cls, data: bytes, path: str, kind: DocumentKind) -> "Document":
        return cls(path=path, kind=kind, read=decode_bytes(data))
