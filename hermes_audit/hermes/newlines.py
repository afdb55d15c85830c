"""Universal newlines, as ``Path.read_text`` applies them, with a map back to the raw text.

Hermes reads every context file, SOUL.md and memory store with
``Path.read_text(encoding=...)`` (hermes-agent 0.19.0 ``agent/prompt_builder.py``,
``tools/memory_tool.py``), which opens the file in text mode with
``newline=None``: ``\\r\\n`` and a lone ``\\r`` both become ``\\n``.
"""

from __future__ import annotations

import bisect


class NewlineMap:
    """Text after universal-newline translation, with a map back to the raw offsets.

    ``text`` is ``raw`` with every ``\\r\\n`` turned into ``\\n`` and every other
    ``\\r`` into ``\\n``, which is what ``open(..., newline=None)`` returns.
    :meth:`to_raw` maps an offset in ``text`` to the offset in ``raw``.
    """

    __slots__ = ("raw", "text", "_shifts")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        if "\r" not in raw:
            self.text = raw
            self._shifts: list[int] = []
            return
        shifts: list[int] = []
        out: list[str] = []
        i = 0
        n = len(raw)
        removed = 0
        while i < n:
            j = raw.find("\r", i)
            if j == -1:
                out.append(raw[i:])
                break
            out.append(raw[i:j])
            out.append("\n")
            if j + 1 < n and raw[j + 1] == "\n":
                shifts.append(j - removed)
                removed += 1
                i = j + 2
            else:
                i = j + 1
        self.text = "".join(out)
        self._shifts = shifts

    @property
    def translated(self) -> bool:
        """True when the raw text had carriage returns."""
        return self.text is not self.raw

    def to_raw(self, offset: int) -> int:
        """Raw offset of translated ``offset`` (a translated ``\\n`` maps to its ``\\r``)."""
        return offset + bisect.bisect_left(self._shifts, offset) if self._shifts else offset

    @property
    def crlf_positions(self) -> list[int]:
        """Translated offsets of the ``\\n`` characters that were ``\\r\\n`` pairs, ascending."""
        return self._shifts
