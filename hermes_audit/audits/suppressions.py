"""Inline suppressions: ``<!-- hermes-audit: allow HA101 -- reason -->``.

A suppression is an HTML comment, so it stays invisible in rendered Markdown
and is legal in every file Hermes reads. Its grammar::

    <!-- hermes-audit: allow SELECTORS -- REASON -->        this line, or the next one
    <!-- hermes-audit: allow-file SELECTORS -- REASON -->   the whole file

``SELECTORS`` are rule codes (``HA101``) or rule names (``instruction-override``),
separated by commas or spaces; there is no "all rules" form. ``REASON`` is
required free text. Keywords are case-insensitive.

Scope of ``allow``: when the comment shares its line with other text, findings
that start on that line; when it stands alone on its line, findings that start
on the next line that is neither blank nor another hermes-audit comment (so
several suppressions can be stacked above one line). When that next line opens
a fenced code block (```` ``` ```` or ``~~~``), the scope is the whole block, from
the opening fence line to the closing one (or to the end of the file when the
block is never closed): a comment cannot stand inside a code block.

Why this form: Hermes blocks a whole context file when any HTML comment in it
contains ``ignore``, ``override``, ``system``, ``secret`` or ``hidden``
(pattern ``html_comment_injection`` of ``tools/threat_patterns.py``; in
hermes-agent 0.15.0-0.19.0 as a plain substring, so "ignored", "systematic" or
"secretary" count too; the newest Hermes requires whole words). ``allow`` and
``allow-file`` avoid those words; a reason must avoid them as well, and rule
HA901 reports a hermes-audit comment that would trip Hermes.

Findings these comments can produce (rules in ``rules/suppressions.yaml``):

* HA901 ``suppression-trips-hermes``: the comment itself makes Hermes block the file;
* HA902 ``unused-suppression``: a named rule reported nothing where the comment applies;
* HA903 ``invalid-suppression``: a hermes-audit comment that is not a valid suppression
  (no reason, no rule, an unknown rule, or a rule that cannot be suppressed inline).

Findings of the ``hermes-parity`` family (what Hermes itself does) and of the
``suppression`` family cannot be suppressed inline: a comment cannot change what
Hermes does with the file. A baseline can accept them (see :mod:`hermes_audit.audits.baseline`).

Trust model: the scanned repository writes these comments, so a hostile
repository can suppress its own findings. ``--no-suppressions`` (the auditor's
mode) ignores them all; suppressed findings are always listed, with their
reason, in the text and JSON reports.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterator, Optional, Sequence
from hermes_audit.engine import engine as engine_module  # engine_module.MAX_FINDINGS_PER_RULE: read when used
from hermes_audit.engine.engine import make_finding
from hermes_audit.findings import DetectorHit
from hermes_audit.hermes.profiles import PROFILES, VERSIONS

#: Family of the rules in ``rules/suppressions.yaml``.
FAMILY = "suppression"
#: Rule codes of the suppression family.
TRIPS_HERMES = "HA901"
UNUSED = "HA902"
INVALID = "HA903"
#: Families whose findings a comment cannot suppress.
NOT_SUPPRESSIBLE_FAMILIES = frozenset({"hermes-parity", FAMILY})
#: Longest HTML comment examined as a suppression candidate (characters).
MAX_COMMENT_CHARS = 2000
#: The words Hermes' ``html_comment_injection`` pattern looks for in an HTML comment.
HERMES_TRIGGER_WORDS = ("ignore", "override", "system", "secret", "hidden")

# Any HTML comment whose text starts with "hermes-audit" (a candidate suppression).
_CANDIDATE = re.compile(r"<!--[ \t]*hermes[-_ ]?audit\b(?:(?!-->)[^\n]){0,%d}?-->" % MAX_COMMENT_CHARS, re.IGNORECASE)
_GRAMMAR = re.compile(
    r"<!--[ \t]*hermes-audit[ \t]*:[ \t]*(?P<kw>allow-file|allow)\b(?P<sel>.*?)"
    r"(?:[ \t]--[ \t]*(?P<reason>.*?))?[ \t]*-->\Z",
    re.IGNORECASE | re.DOTALL,
)
_CODE = re.compile(r"^H[A-Z][0-9]{3}$", re.IGNORECASE)
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class Suppression:
    """One hermes-audit comment of a document.

    ``start``/``end`` are character offsets of the comment in the document
    text; ``line`` its 1-based line. ``selectors`` are as written (codes upper-cased).
    ``target_line`` is the line an ``allow`` applies to (``None`` for ``allow-file``);
    ``target_end_line`` the last line of its scope when ``target_line`` opens a fenced code
    block (the closing fence line, or the file's last line), else ``None``.
    ``error`` says why the comment is not a valid suppression (``None`` when it is).
    ``used`` collects the selectors that suppressed at least one finding.
    """

    start: int
    end: int
    line: int
    text: str
    file_wide: bool = False
    selectors: list[str] = field(default_factory=list)
    reason: str = ""
    target_line: Optional[int] = None
    error: Optional[str] = None
    used: set[str] = field(default_factory=set)
    target_end_line: Optional[int] = None

    @property
    def valid(self) -> bool:
        return self.error is None

    def applies_to_line(self, line: int) -> bool:
        if not self.valid:
            return False
        if self.file_wide:
            return True
        if self.target_line is None:
            return False
        return self.target_line <= line <= (self.target_end_line or self.target_line)

    def scope_text(self) -> str:
        """Where the suppression applies, for messages: ``in this file``, ``on line 3``, ``in the code block
        on lines 3-7``."""
        if self.file_wide:
            return "in this file"
        if self.target_line is None:
            return "(no line follows it)"
        if self.target_end_line is not None:
            return f"in the code block on lines {self.target_line}-{self.target_end_line}"
        return f"on line {self.target_line}"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def _line_of(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset) - 1  # 0-based


def parse_comment(comment: str) -> tuple[bool, list[str], str, Optional[str]]:
    """Parse one candidate comment: ``(file_wide, selectors, reason, error)``.

    ``error`` is ``None`` for a well-formed suppression, else a one-line reason
    why it is not one (this check does not know the catalog; unknown rules are
    found by :func:`apply_suppressions`).
    """
    m = _GRAMMAR.match(comment)
    if not m:
        return False, [], "", (
            "unknown form: write <!-- hermes-audit: allow HA101 -- reason --> "
            "(or allow-file for the whole file)"
        )
    file_wide = m.group("kw").lower() == "allow-file"
    raw = [s for s in re.split(r"[\s,]+", m.group("sel") or "") if s]
    reason = (m.group("reason") or "").strip()
    sels: list[str] = []
    for s in raw:
        if _CODE.match(s):
            sels.append(s.upper())
        elif _NAME.match(s.lower()):
            sels.append(s.lower())
        else:
            return file_wide, sels, reason, f"{s!r} is not a rule code or name"
    if not sels:
        return file_wide, sels, reason, "names no rule: list the rule codes to allow (there is no all-rules form)"
    if not reason:
        return file_wide, sels, reason, "gives no reason: add ' -- why this is acceptable' before -->"
    return file_wide, sels, reason, None


_FENCE_LINE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_CODE_SPAN = re.compile(r"(`+)(?!`)[^\n]+?(?<!`)\1(?!`)")


def code_spans(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` spans of fenced code blocks and inline code spans (Markdown)."""
    spans: list[tuple[int, int]] = []
    fence: Optional[str] = None
    fence_start = 0
    for m in _FENCE_LINE.finditer(text):
        marker = m.group(1)
        if fence is None:
            fence, fence_start = marker, m.start()
        elif marker[0] == fence[0] and len(marker) >= len(fence):
            spans.append((fence_start, m.end()))
            fence = None
    if fence is not None:
        spans.append((fence_start, len(text)))
    spans.extend((m.start(), m.end()) for m in _CODE_SPAN.finditer(text))
    return spans


def _code_containment(text: str):
    """A function ``(start, end) -> bool``: whether ``[start, end)`` lies within one span of
    :func:`code_spans` (spans sorted by start; the farthest end among the spans starting at or before
    ``start`` decides)."""
    import bisect

    spans = sorted(code_spans(text))
    firsts = [a for a, _ in spans]
    reach: list[int] = []
    far = -1
    for _, b in spans:
        far = max(far, b)
        reach.append(far)

    def contained(start: int, end: int) -> bool:
        i = bisect.bisect_right(firsts, start) - 1
        return i >= 0 and reach[i] >= end

    return contained


def find_suppressions(text: str) -> list[Suppression]:
    """Every hermes-audit comment of ``text``, parsed, with the line each ``allow`` applies to.

    Comments inside Markdown code (fenced blocks, inline code spans) are
    documentation about suppressions, not suppressions, and are left out.
    """
    if "audit" not in text.lower():  # cheap exit for the common case
        return []
    starts = _line_starts(text)
    out: list[Suppression] = []
    # issue 8: the text is searched for code markers once, not once per comment (quadratic on a long line of
    # comments), and a comment's containment in a code span is one bisection
    in_code = _code_containment(text) if ("`" in text or "~~~" in text) else None
    for m in _CANDIDATE.finditer(text):
        if in_code is not None and in_code(m.start(), m.end()):
            continue
        comment = m.group(0)
        file_wide, sels, reason, err = parse_comment(comment)
        ln = _line_of(starts, m.start())
        out.append(Suppression(m.start(), m.end(), ln + 1, comment, file_wide, sels, reason, None, err))
    if not out:
        return out
    comment_lines = _comment_only_lines(text, starts, out)
    next_content: Optional[list[int]] = None
    for s in out:
        if s.file_wide or not s.valid:
            continue
        ln = s.line - 1
        if ln not in comment_lines:
            s.target_line = s.line  # trailing comment: this line
            continue
        if next_content is None:  # once per text (red team, issue 18: a walk per comment was quadratic)
            next_content = _next_content_lines(text, starts, comment_lines)
        after = _line_of(starts, s.end - 1) + 1
        nxt = next_content[after] if after < len(starts) else len(starts)
        s.target_line = nxt + 1 if nxt < len(starts) else None
        if nxt < len(starts):
            s.target_end_line = _fenced_block_end(text, starts, nxt)
    return out


def _next_content_lines(text: str, starts: list[int], comment_lines: set[int]) -> list[int]:
    """For each 0-based line ``i``, the first line ``j >= i`` that holds something other than blanks and
    hermes-audit comments (``len(starts)`` when none): what a comment-only line's ``allow`` applies to.
    One backward pass, so a file of 100,000 consecutive comments costs linear time."""
    n = len(starts)
    out = [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        lo = starts[i]
        hi = starts[i + 1] - 1 if i + 1 < n else len(text)
        out[i] = i if (i not in comment_lines and text[lo:hi].strip()) else out[i + 1]
    return out


def _fenced_block_end(text: str, starts: list[int], ln: int) -> Optional[int]:
    """When 0-based line ``ln`` opens a fenced code block: the 1-based line of its closing fence (a fence
    line of the same character at least as long, as :func:`code_spans` reads it), or of the file's last
    line when the block is never closed. ``None`` when ``ln`` is not a fence line."""
    def line(i: int) -> str:
        return text[starts[i]:starts[i + 1] - 1 if i + 1 < len(starts) else len(text)]

    m = _FENCE_LINE.match(line(ln))
    if not m:
        return None
    opener = m.group(1)
    for i in range(ln + 1, len(starts)):
        c = _FENCE_LINE.match(line(i))
        if c and c.group(1)[0] == opener[0] and len(c.group(1)) >= len(opener):
            return i + 1
    return len(starts)


def _comment_only_lines(text: str, starts: list[int], sups: list[Suppression]) -> set[int]:
    """0-based lines whose only content is hermes-audit comments."""
    by_line: dict[int, list[Suppression]] = {}
    for s in sups:
        by_line.setdefault(_line_of(starts, s.start), []).append(s)
    out: set[int] = set()
    for ln, items in by_line.items():
        lo = starts[ln]
        hi = starts[ln + 1] - 1 if ln + 1 < len(starts) else len(text)
        # the text between and around the comments is blank (issue 8: checked piece by piece, not by cutting
        # each comment out of the line, which was quadratic on a long line of comments)
        pos = lo
        for s in sorted(items, key=lambda x: x.start):
            if text[pos:s.start].strip():
                break
            pos = max(pos, min(s.end, hi))
        else:
            if not text[pos:hi].strip():
                out.add(ln)
    return out


def trips_hermes(comment: str, parity) -> list[str]:
    """Hermes version profiles (:data:`~hermes_audit.hermes.profiles.VERSIONS`, oldest first, ``latest`` last)
    whose ``html_comment_injection`` pattern matches ``comment``.

    ``parity`` is the :class:`~hermes_audit.patterns.catalog.ParityCatalog`; each profile runs the pattern of
    its scanner (``VersionProfile.scanner``: 0.16 and 0.17 share 0.15's, 0.18 and 0.20 share 0.19's); the
    comment is NFKC-normalised first, as ``scan_for_threats`` does (hermes-agent 0.19.0
    ``tools/threat_patterns.py``). Returns profile names, e.g. ``["0.13", "0.15", "0.16", ..., "0.20"]``.
    """
    rule = parity.by_hermes_id("html_comment_injection")
    if rule is None:
        return []
    norm = unicodedata.normalize("NFKC", comment)
    hits = {v for v, pat in rule.version_compiled.items() if pat.search(norm)}
    return [name for name in reversed(VERSIONS) if PROFILES[name].scanner in hits]


def _names(versions: Sequence[str]) -> str:
    """``Hermes 0.13``, ``Hermes 0.13 and 0.15``, ``Hermes 0.13, 0.15 and latest``."""
    if len(versions) == 1:
        return f"Hermes {versions[0]}"
    return "Hermes " + ", ".join(versions[:-1]) + f" and {versions[-1]}"


# --- the built-in detector named by rules/suppressions.yaml -------------------------------------


def detect(text: str, params: dict) -> Iterator:
    """Detector ``suppression-comments`` (see ``rules/suppressions.yaml``).

    ``params.report``: ``unused`` yields every valid suppression (on its own, a
    document has no other findings, so every suppression is unused; the scan
    pipeline drops the ones that suppressed something, see
    :func:`apply_suppressions`); ``invalid`` yields comments that are not valid
    suppressions, with ``fields.problem`` saying why.
    """
    mode = params.get("report", "unused")
    for s in find_suppressions(text):
        if mode == "invalid" and not s.valid:
            yield DetectorHit(s.start, s.end, {"problem": s.error, "selectors": ", ".join(s.selectors)})
        elif mode == "unused" and s.valid:
            yield DetectorHit(s.start, s.end, {"problem": "", "selectors": ", ".join(s.selectors)})


# --- applying suppressions to one document's findings ------------------------------------------


@dataclass(eq=False)
class SuppressionOutcome:
    """What :func:`apply_suppressions` did: how many findings it suppressed, and the comments."""

    suppressed: int = 0
    suppressions: list[Suppression] = field(default_factory=list)


def _selector_matches(sel: str, finding) -> bool:
    return sel == finding.rule_id.upper() or sel == finding.rule_name


def apply_suppressions(
    doc,
    findings: list,
    rules_by_key: dict,
    rules_run: set[str],
    parity,
    honour: bool = True,
) -> SuppressionOutcome:
    """Apply the hermes-audit comments of ``doc`` to its ``findings`` (in place).

    * a finding covered by a valid suppression gets ``suppressed`` set to the
      comment's reason (prefixed ``inline:``), unless its family cannot be
      suppressed inline;
    * HA902 (unused) findings from the engine are kept only for suppressions
      with a selector that suppressed nothing although its rule ran on this
      document, and their message names those selectors;
    * HA903 findings are added for selectors that name no rule or a rule that
      cannot be suppressed inline; HA901 findings are kept only when Hermes'
      own pattern (either profile) matches the comment, and say which versions.

    ``rules_by_key`` maps codes and names to catalog rules; ``rules_run`` holds
    the codes of the rules run on this document. With ``honour=False`` (the
    auditor's mode, ``--no-suppressions``) nothing is suppressed and no HA902
    finding is kept. Returns a :class:`SuppressionOutcome`.
    """
    out = SuppressionOutcome()
    text = doc.text or ""
    sups = find_suppressions(text)
    out.suppressions = sups
    by_span = {(s.start, s.end): s for s in sups}
    extra: list = []
    invalid_rule = rules_by_key.get(INVALID)
    for s in sups:
        if not s.valid:
            continue
        bad = []
        for sel in s.selectors:
            r = rules_by_key.get(sel)
            if r is None:
                bad.append(f"{sel} names no rule")
            elif r.family in NOT_SUPPRESSIBLE_FAMILIES:
                bad.append(f"{sel} ({r.family}) cannot be suppressed inline")
        if bad and invalid_rule is not None and INVALID in rules_run:
            msg = "suppression comment problem: " + "; ".join(bad)
            extra.append(make_finding(doc, invalid_rule, s.start, s.end, msg))
    if honour:
        for f in findings:
            if f.family in NOT_SUPPRESSIBLE_FAMILIES:
                continue
            for s in sups:
                if not s.applies_to_line(f.start.line):
                    continue
                hit = [sel for sel in s.selectors if _selector_matches(sel, f)]
                if hit:
                    s.used.update(hit)
                    if f.suppressed is None:
                        f.suppressed = f"inline: {s.reason}"
                        out.suppressed += 1
    def unused_selectors(s: Suppression) -> list[str]:
        unused = []
        for sel in s.selectors:
            r = rules_by_key.get(sel)
            if r is None or r.family in NOT_SUPPRESSIBLE_FAMILIES or r.code not in rules_run:
                continue  # reported by HA903, or the rule did not run: cannot judge
            if sel not in s.used:
                unused.append(sel)
        return unused

    def unused_message(s: Suppression, unused: list[str]) -> str:
        return (f"unused suppression: {', '.join(unused)} reported nothing {s.scope_text()}; "
                f"remove {'it' if len(unused) == 1 else 'them'} from the comment")

    kept: list = []
    judged: set[tuple[int, int]] = set()  # spans of the suppressions the engine reported as HA902 candidates
    listed: list = []  # the HA902 findings kept
    for f in findings:
        if f.rule_id == UNUSED:
            s = by_span.get((f.span.start, f.span.end))
            if not honour or s is None:
                continue
            judged.add((s.start, s.end))
            unused = unused_selectors(s)
            if not unused:
                continue
            f.message = unused_message(s, unused)  # also drops the engine's cap note: counted again below
            listed.append(f)
        elif f.rule_id == TRIPS_HERMES:
            versions = trips_hermes(text[f.span.start:f.span.end], parity)
            if not versions:
                continue
            names = _names(versions)
            f.message = (
                f"this hermes-audit comment makes {names} block the whole file (html_comment_injection: an HTML "
                f"comment with {'/'.join(HERMES_TRIGGER_WORDS)}); write <!-- hermes-audit: allow CODE -- reason --> "
                "and keep those words out of it"
            )
        kept.append(f)
    unused_rule = rules_by_key.get(UNUSED)
    if honour and unused_rule is not None and UNUSED in rules_run:
        # The engine keeps at most MAX_FINDINGS_PER_RULE candidates per file, used ones included; the comments
        # past that cap are judged here, listed up to the same cap, and the rest counted in the engine's words.

        more = 0
        for s in sups:
            if not s.valid or (s.start, s.end) in judged:
                continue
            unused = unused_selectors(s)
            if not unused:
                continue
            if len(listed) >= engine_module.MAX_FINDINGS_PER_RULE:
                more += 1
                continue
            f = make_finding(doc, unused_rule, s.start, s.end, unused_message(s, unused))
            listed.append(f)
            kept.append(f)
        if more:
            last = max(listed, key=lambda f: f.span.start)
            last.message += (f" ({more:,} more unused suppressions in this file are not listed: "
                             f"at most {engine_module.MAX_FINDINGS_PER_RULE:,} per rule and file)")
    kept.extend(extra)
    findings[:] = kept
    return out


def rules_index(rules: Sequence) -> dict:
    """Catalog rules keyed by upper-case code and by name."""
    idx: dict = {}
    for r in rules:
        idx[r.code.upper()] = r
        idx[r.name] = r
    return idx
