"""The safe reader: streamed oversized files keep a head and a tail whose position is exact."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_audit.documents import reader
from hermes_audit.findings import LineIndex

PIECES = st.sampled_from(["a", "bb\n", "\n", "\u00e9\u00e9\u00e9", "x" * 37, "\n\n", "\r\n", "\U0001F600"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, min_size=1, max_size=300), st.integers(1, 60), st.integers(1, 17))
def test_streamed_tail_offset_line_and_column_are_exact(monkeypatch_parts, tail_chars, chunk):
    text = "".join(monkeypatch_parts)
    data = text.encode("utf-8")
    old = reader.OVERSIZE_TAIL_CHARS, reader.OVERSIZE_HEAD_CHARS, reader._CHUNK
    reader.OVERSIZE_TAIL_CHARS, reader.OVERSIZE_HEAD_CHARS, reader._CHUNK = tail_chars, 10, chunk
    try:
        res = reader._decode_stream(io.BytesIO(data), len(data), 0)
    finally:
        reader.OVERSIZE_TAIL_CHARS, reader.OVERSIZE_HEAD_CHARS, reader._CHUNK = old
    assert res.status is reader.ReadStatus.OVERSIZED
    assert res.text == text[:10] and res.total_chars == len(text)
    assert res.tail == text[res.tail_start:] and len(res.tail) == min(len(text), tail_chars)
    if res.tail_start < len(text):
        p = LineIndex(text).position(res.tail_start)
        assert (p.line, p.column) == (res.tail_line, res.tail_column)
