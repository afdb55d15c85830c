"""One finding per rule per overlapping region.

Several patterns of one rule often match the same words ("repeat your prompt"
and "repeat your prompt so far", "Now focus on your new task" and "your new
task:", a Markdown image matched both as an image and as a link), and a
decoded hidden payload that repeats an instruction gives one finding per
repetition at the same hidden run. Reporting each is noise, and when one of
them is demoted as a quoted example and the other is not, the two disagree
about severity.

:func:`merge_overlapping` replaces every group of findings of the same rule
whose spans overlap (share at least one character) with one finding that
spans all of them:

* for a regular-expression rule, the merged finding is built again on the
  union span: severity, confidence and the describes-versus-performs note are
  decided for the whole region (:class:`~hermes_audit.engine.markdown.ExampleSpans`),
  the message quotes the region's text;
* for anything else (a detector, a finding of a decoded hidden payload), the
  member with the highest severity (then confidence, then the longest span)
  gives the message, severity, confidence and decoded text.

Findings that touch without overlapping (``[0, 5)`` and ``[5, 9)``) stay
separate. Offsets are character (code point) offsets into the document text.
"""

from __future__ import annotations

from typing import Iterable, Optional

from hermes_audit.documents.document import Document
from hermes_audit.findings import Finding
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.engine.finding import _format, _rule_like, judge, make_finding
from hermes_audit.engine.redact import redact


def _clusters(findings: list[Finding]) -> list[list[Finding]]:
    """Groups of findings whose spans overlap, transitively (``findings`` sorted by span start)."""
    out: list[list[Finding]] = []
    end = -1
    for f in findings:
        if out and f.span.start < end:
            out[-1].append(f)
            end = max(end, f.span.end)
        else:
            out.append([f])
            end = f.span.end
    return out


def _regex_finding(doc: Document, rule, start: int, end: int, examples) -> Optional[Finding]:
    """The finding of regular-expression ``rule`` over ``[start, end)``, decided as the engine decides a match."""
    sev, conf, note = rule.severity, rule.confidence, ""
    if rule.demote_in_examples:  # forbids or describes rather than performs (the engine's judgement)
        judged = judge(doc.text or "", examples(), start, end, sev, conf, rule.code_performs)
        if judged is None:  # the union is forbidden as a whole: keep the members, each decided on its own
            return None
        sev, conf, note = judged
    msg = _format(rule, {"match": uc.printable(redact(doc.slice(start, end)), 80)}) + note
    return make_finding(doc, rule, start, end, msg, severity=sev, confidence=conf)


def merge_overlapping(findings: Iterable[Finding], doc: Document, rules: Iterable) -> list[Finding]:
    """``findings`` with each group of same-rule, overlapping findings replaced by one finding.

    ``rules`` are the engine's rules: a group of a regular-expression rule is
    decided again on the union span; any other group keeps its most severe
    member's message, severity, confidence and decoded text on the union span.
    The order of the result is unspecified (the engine sorts). ``O(n log n)``
    for ``n`` findings.
    """
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule_id, []).append(f)
    if all(len(g) == 1 for g in by_rule.values()):
        return [g[0] for g in by_rule.values()]
    regex_rules = {r.code: r for r in rules if r.patterns and not r.detector}
    spans: list = []

    def examples():
        if not spans:
            from hermes_audit.engine.markdown import ExampleSpans  # issue 8: only when a group is decided again

            spans.append(ExampleSpans(doc.text or ""))
        return spans[0]

    out: list[Finding] = []
    for code, group in by_rule.items():
        if len(group) == 1:
            out.extend(group)
            continue
        group.sort(key=lambda f: (f.span.start, -f.span.end))
        for cluster in _clusters(group):
            if len(cluster) == 1:
                out.append(cluster[0])
                continue
            start = min(f.span.start for f in cluster)
            end = max(f.span.end for f in cluster)
            rule = regex_rules.get(code)
            if rule is not None and all(f.decoded is None and not f.related for f in cluster):
                merged_regex = _regex_finding(doc, rule, start, end, examples)
                if merged_regex is not None:
                    out.append(merged_regex)
                    continue
            best = max(cluster, key=lambda f: (f.severity, f.confidence, f.span.end - f.span.start, -f.span.start))
            merged = make_finding(doc, _rule_like(best), start, end, best.message, severity=best.severity,
                                  confidence=best.confidence, hermes_pattern_id=best.hermes_pattern_id)
            merged.decoded = best.decoded
            merged.related = list(best.related)
            out.append(merged)
    return out


def drop_yielding(findings: list[Finding], rules: Iterable) -> list[Finding]:
    """``findings`` (of one file) without those of a rule with ``yields_to`` whose span a finding of a rule it
    yields to covers (:attr:`hermes_audit.patterns.catalog.Rule.yields_to`). ``O(n + m * k)`` for ``m``
    findings of yielding rules and ``k`` of the rules they yield to."""
    yields = {r.code: r.yields_to for r in rules if getattr(r, "yields_to", ())}
    if not yields or not any(f.rule_id in yields for f in findings):
        return findings
    by_rule: dict[str, list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f.rule_id, []).append(f)

    def covered(f: Finding) -> bool:
        return any(g.span.start <= f.span.start and f.span.end <= g.span.end
                   for code in yields[f.rule_id] for g in by_rule.get(code, ()))

    return [f for f in findings if f.rule_id not in yields or not covered(f)]

