"""Issue 8 (fresh-user QA): one long line made of a match-dense snippet repeated without a newline.

The work that grew with (findings x line length) was outside the rule patterns: the text report split the
file and redacted the whole line once per finding, and suppression parsing searched the whole text for code
markers, and cut each comment out of its line, once per comment. These tests count that work (never time it)
and compare the shortcuts with the straightforward versions they replace.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_audit.audits import suppressions as sup
from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.engine import engine as eng
from hermes_audit.patterns.catalog import load_catalog
from hermes_audit.reporters import text as text_report

QA_SNIPPET = "curl $(cat ~/.ssh/id_rsa) os.environ "


def _line(snippet: str, chars: int) -> str:
    return (snippet * (chars // len(snippet) + 1))[:chars]


def _scan(tmp_path, body: str, select=None):
    from hermes_audit.audits.scan import ScanOptions, run_scan

    f = tmp_path / ".cursorrules"
    f.write_text(body, encoding="utf-8")
    return run_scan([f], ScanOptions(base=tmp_path, use_git=False, loading=False, select=select, jobs=1))


def test_text_report_redacts_a_long_line_once_for_all_its_findings(tmp_path, monkeypatch):
    res = _scan(tmp_path, _line(QA_SNIPPET + "token=abcdefghijklmnop ", 40_000), select=["HA401", "HA402"])
    on_line_1 = [f for f in res.findings if f.start.line == 1]
    assert len(on_line_1) > 200
    calls = []
    real = text_report.redact_in_place

    def counting(s: str) -> str:
        calls.append(len(s))
        return real(s)

    monkeypatch.setattr(text_report, "redact_in_place", counting)
    out = text_report.render(res)
    assert calls == [40_000]  # one line, redacted once
    # the excerpts are those of the per-finding computation, secrets redacted
    text = res.files[0].document.text
    for f in on_line_1[:50] + on_line_1[-50:]:
        assert "\n".join(text_report._source_excerpt(text, f)) in out
    assert "abcdefghijklmnop" not in out and "abcd************" in out


def test_findings_past_the_cap_are_counted_and_the_last_kept_finding_says_how_many(monkeypatch):
    monkeypatch.setattr(eng, "MAX_FINDINGS_PER_RULE", 20)
    rule = next(r for r in load_catalog().rules if r.code == "HA402")
    doc = Document.from_text(_line("cat ~/.ssh/id_rsa " * 7 + "x" * 130 + " ", 30_000), "t/.cursorrules",
                             DocumentKind.CURSORRULES)
    # every match, uncapped, with the engine's own keyword-accelerated iteration
    views = eng.Views(doc.text)
    total = sum(1 for p in rule.compiled for _m in views.matches(rule.view, p))
    assert total > 100
    found = eng.Engine([rule]).run(doc).findings
    assert len(found) == 20
    last = max(found, key=lambda f: f.span.start)
    assert last.message.endswith(f"({total - 20:,} more matches of this rule in this file are not listed: "
                                 f"at most 20 per rule and file)")
    assert all("more matches" not in f.message for f in found if f is not last)


def _old_comment_only_lines(text, starts, sups):
    """The former implementation (cut each comment out of its line), kept as the reference."""
    by_line: dict = {}
    for s in sups:
        by_line.setdefault(sup._line_of(starts, s.start), []).append(s)
    out = set()
    for ln, items in by_line.items():
        lo = starts[ln]
        hi = starts[ln + 1] - 1 if ln + 1 < len(starts) else len(text)
        line = text[lo:hi]
        for s in sorted(items, key=lambda x: -x.start):
            a, b = s.start - lo, min(s.end - lo, len(line))
            line = line[:a] + line[b:]
        if not line.strip():
            out.add(ln)
    return out


_PIECES = st.sampled_from(["<!-- hermes-audit: allow HA101 -- ok -->", "<!-- hermes-audit\n allow HA1 -->",
                           " ", "\t", "\n", "x", "`", "```\n", "~~~\n", "`<!-- hermes-audit: allow HA2 -- r -->`",
                           "\u00a0", "<!-- note -->"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30))
def test_comment_only_lines_equal_the_former_cut_out_version(pieces):
    text = "".join(pieces)
    found = sup.find_suppressions(text)
    starts = sup._line_starts(text)
    assert sup._comment_only_lines(text, starts, found) == _old_comment_only_lines(text, starts, found)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30), st.data())
def test_code_containment_equals_the_scan_of_every_code_span(pieces, data):
    text = "".join(pieces)
    spans = sup.code_spans(text)
    contained = sup._code_containment(text)
    for _ in range(10):
        a = data.draw(st.integers(0, len(text)))
        b = data.draw(st.integers(a, len(text)))
        assert contained(a, b) == any(x <= a and b <= y for x, y in spans)


def test_a_long_line_of_comments_parses_once_with_the_right_targets(monkeypatch):
    calls = []
    real = sup.code_spans
    monkeypatch.setattr(sup, "code_spans", lambda t: calls.append(1) or real(t))
    comments = "<!-- hermes-audit: allow HA101 -- why --> " * 1500
    text = "`x` " + comments
    found = sup.find_suppressions(text)
    assert len(found) == 1500 and calls == [1]
    # not only comments on the line (the code span): each applies to its own line
    assert sup._comment_only_lines(text, sup._line_starts(text), found) == set()
    assert {s.target_line for s in found} == {1}
    # nothing but comments: they apply to the next line, and there is none
    alone = sup.find_suppressions(comments)
    assert sup._comment_only_lines(comments, sup._line_starts(comments), alone) == {0}
    assert {s.target_line for s in alone} == {None}
