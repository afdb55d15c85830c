"""An oversized regular file (read as head + tail) as a subdirectory hint or context file: latest's truncation
marker lists the headings of the omitted middle, which is predictable when the reader saw that the unread
middle holds no heading or fence line (``ReadResult.middle_plain``), and unknown otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_audit.documents import reader
from hermes_audit.documents.reader import ReadStatus, read_file
from hermes_audit.patterns.catalog import load_catalog
from hermes_audit.hermes.context import RealFS, hermes_text
from hermes_audit.hermes.hints import TRUNCATED, UNPREDICTABLE, simulate_hints
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.truncation import UnknownText, truncate_content

FILLER = "Keep the build reproducible and the tests fast.\n"


@pytest.fixture
def small_window(monkeypatch):
    """Head and tail sizes small enough for files of a few kilobytes (read at call time)."""
    monkeypatch.setattr(reader, "OVERSIZE_HEAD_CHARS", 3_000)
    monkeypatch.setattr(reader, "OVERSIZE_TAIL_CHARS", 2_000)


def _both(tmp_path: Path, text: str, cap: int = 1_000):
    """(truncation of the file read whole, truncation of it read as head + tail) under latest."""
    p = tmp_path / "AGENTS.md"
    p.write_text(text, encoding="utf-8")
    whole, part = read_file(p, tmp_path), read_file(p, tmp_path, max_bytes=100)
    assert whole.status is ReadStatus.OK and part.status is ReadStatus.OVERSIZED and part.total_chars == len(text)
    prof = get_profile("latest")
    full = truncate_content(hermes_text(whole, "utf-8-sig").text, "AGENTS.md", cap, prof)
    return full, part, lambda: truncate_content(hermes_text(part, "utf-8-sig").text, "AGENTS.md", cap, prof)


def test_plain_middle_gives_the_exact_truncation(tmp_path, small_window):
    head = "# Project\n\n```sh\n# not a heading: inside a fence\n```\n## Build\n" + FILLER * 20 + "## Deploy\n" + FILLER
    tail = "## Tests\n" + FILLER * 5 + "```\n# fenced in the tail\n```\n### Release\n" + FILLER * 3
    text = head + FILLER * 400 + tail
    full, part, cut = _both(tmp_path, text)
    assert part.middle_plain is True
    got = cut()
    assert got.text == full.text and got.marker == full.marker
    assert [h.text for h in got.lost_headings] == [h.text for h in full.lost_headings]
    # the omitted middle starts in the known head and ends in the known tail
    assert "Omitted sections: Deploy; Tests." in got.marker and "Release" not in got.marker


@pytest.mark.parametrize("middle", ["## Hidden section\n", "   ~~~\n", "\t`` x\n"])
def test_markup_in_the_unread_middle_stays_unknown(tmp_path, small_window, middle):
    text = "# Project\n" + FILLER * 100 + middle + FILLER * 100
    _full, part, cut = _both(tmp_path, text)
    assert part.middle_plain is False
    with pytest.raises(UnknownText):
        cut()


def test_heading_cut_by_the_head_edge_stays_unknown(tmp_path, small_window):
    body = "# Project\n" + FILLER * 50
    text = body + "y" * (3_000 - len(body) - 7) + "\n## Section that runs past the head\n" + FILLER * 200
    _full, part, cut = _both(tmp_path, text)
    assert part.middle_plain is True and part.text.endswith("\n## Sec")  # the rest of the line was not kept
    with pytest.raises(UnknownText):
        cut()


def test_big_regular_hint_is_truncated_not_unknown(tmp_path, monkeypatch):
    """The QA case: big/AGENTS.md larger than the reader's limit, no Markdown in it, as a latest hint.
    The head must still cover Hermes' 65,536-character scan window, as the real 1,000,000 does."""
    monkeypatch.setattr(reader, "OVERSIZE_HEAD_CHARS", 70_000)
    monkeypatch.setattr(reader, "OVERSIZE_TAIL_CHARS", 10_000)
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "AGENTS.md").write_text("Use the project conventions.\n" * 8_000, encoding="utf-8")
    (tmp_path / "big" / "x.py").write_text("", encoding="utf-8")
    cat = load_catalog()
    out = {}
    for version in ("latest", "0.19"):
        rep = simulate_hints(tmp_path, [("read_file", {"path": str(tmp_path / "big" / "x.py")})], get_profile(version),
                             scanner_for(cat.parity, version), home="/nonexistent-home", fs=RealFS(max_bytes=1_000))
        (h,) = [h for c in rep.calls for h in c.hints]
        assert h.document.read.status is ReadStatus.OVERSIZED
        out[version] = h
    assert out["0.19"].status == TRUNCATED and out["0.19"].injected > 8_000
    assert out["latest"].status == TRUNCATED, out["latest"].detail
    assert "Omitted sections" not in out["latest"].text and out["latest"].injected > 0
    # with a heading in the unread middle the latest marker cannot be known
    (tmp_path / "big" / "AGENTS.md").write_text("Use it.\n" * 10_000 + "# Mid\n" + "Use it.\n" * 20_000,
                                                encoding="utf-8")
    rep = simulate_hints(tmp_path, [("read_file", {"path": str(tmp_path / "big" / "x.py")})], get_profile("latest"),
                         scanner_for(cat.parity, "latest"), home="/nonexistent-home", fs=RealFS(max_bytes=1_000))
    (h,) = [h for c in rep.calls for h in c.hints]
    assert h.status == UNPREDICTABLE and "not read" in h.detail
