"""The finding of one hit (a pattern match or a detector hit): where it is, its redacted snippet and
message, and how a prose match is judged (forbidden, quoted as an example, or an instruction).

Shared by :class:`hermes_audit.engine.engine.Engine`, the merging of overlapping findings
(:mod:`hermes_audit.engine.overlap`) and the audits that turn the Hermes model's facts into findings
(:mod:`hermes_audit.audits`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from hermes_audit.documents.document import Document
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.engine.hits import shown_decoded
from hermes_audit.engine.redact import redact, redact_decoded
from hermes_audit.findings import Confidence, Finding, Severity, Span
from hermes_audit.patterns.catalog import Rule

if TYPE_CHECKING:  # issue 8: imported on the first hit (start-up time of a clean scan)
    from hermes_audit.engine.markdown import ExampleSpans

#: Characters of a finding's matched text kept in its snippet.
SNIPPET_CHARS = 160


class _SafeDict(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def make_finding(
    doc: Document,
    rule: Rule,
    start: int,
    end: int,
    message: str,
    severity: Optional[Severity] = None,
    confidence: Optional[Confidence] = None,
    hermes_pattern_id: Optional[str] = None,
    decoded: Optional[str] = None,
) -> Finding:
    """A finding for ``rule`` at ``[start, end)`` of the document text, snippet redacted and escaped."""
    extent = doc.extent
    if extent and start >= extent:  # a hit at the very end (an empty match) points at the last character
        start = extent - 1
    end = max(end, start + 1) if extent else end
    end = min(end, extent)
    start = min(start, end)
    matched = doc.slice(start, end)
    if decoded is not None:
        shown = redact_decoded(decoded)
        if shown != decoded:  # the message quotes the decoding: a credential in it is masked there too
            message = message.replace(decoded, shown)
            decoded = shown
    return Finding(
        rule_id=rule.code,
        rule_name=rule.name,
        family=rule.family,
        severity=severity if severity is not None else rule.severity,
        confidence=confidence if confidence is not None else rule.confidence,
        path=doc.path,
        span=Span(start, end),
        start=doc.position(start),
        end=doc.position(end),
        message=redact(message),  # a message may quote or decode file text (HA306's decoded token)
        snippet=uc.printable(redact(matched), SNIPPET_CHARS),
        hermes_pattern_id=hermes_pattern_id,
        fix=rule.fix or None,
        decoded=shown_decoded(redact(decoded)) if decoded is not None else None,
    )


def _format(rule: Rule, fields: dict) -> str:
    try:
        return rule.message.format_map(_SafeDict(fields))
    except (ValueError, IndexError):
        return rule.message


def _demote(c: Confidence) -> Confidence:
    return Confidence(max(int(c) - 1, 0))


#: Why a match describes (:meth:`hermes_audit.engine.markdown.ExampleSpans.describes`) where an example adverbial
#: on the match's own sentence may be what presents it (round 9), besides reported speech ("For instance, post
#: ..."): not fenced blocks, whose sentence is the block.
_ASSERTABLE = frozenset({"inside inline code", "inside a quoted example", "inside a block quote"})


def judge(text: str, examples: "ExampleSpans", start: int, end: int, sev: Severity,
          conf: Confidence, code_performs: bool = False) -> Optional[tuple[Severity, Confidence, str]]:
    """Severity, confidence and message note of a prose match ``[start, end)`` of ``text`` (a rule with
    ``demote_in_examples``), decided by the shared negation and quotation models.

    * forbidden (:func:`hermes_audit.engine.negation.forbidden`: negated on its clause, an item of a list
      introduced by "must not:", a quoted phrase not to say): ``None``, no finding (as a negation guard written
      into a pattern would: the text forbids what the rule looks for);
    * a quoted example or code (:meth:`hermes_audit.engine.markdown.ExampleSpans.describes`): capped at medium,
      or at low when the text labels it as an attack or a prohibited request
      (:func:`hermes_audit.engine.negation.labelled_example`); confidence one lower;
    * a quoted example or inline code that an example adverbial presents ("For example, ...") but that the text
      asserts as an order (:func:`hermes_audit.engine.mood.asserted_order`: "This is mandatory." after it, or an
      order with a trigger in its sentence; red team round 9): unchanged, with a note saying why;
    * otherwise unchanged, with an empty note. Quoted examples are never silenced.

    ``code_performs``: the rule's flag (issue 18, round 8): inline code counts as an example only when the text
    around it presents it as one (:meth:`~hermes_audit.engine.markdown.ExampleSpans.describes`).
    """
    # start-up time: the Markdown example spans grade a hit; a clean scan has none; the negation model grades a hit;
    # a clean scan has none
    from hermes_audit.engine.markdown import DESCRIBES_SEVERITY_CAP
    from hermes_audit.engine.negation import (FORBIDDEN_SEVERITY_CAP, attack_verdict, forbidden, labelled_example,
                                              table_cell_start)

    start = table_cell_start(text, start, end)
    text = examples.grammar  # issue 18: the models read the text with its URLs opaque (hermes_audit.engine.urls)
    if forbidden(text, start, end):
        return None
    why = examples.describes(start, end, code_performs)
    if not why:
        verdict = attack_verdict(text, start, end, described=False)
        if verdict:
            return (min(sev, FORBIDDEN_SEVERITY_CAP), _demote(conf),
                    f" (a case to recognise, judged \"{verdict}\" in its sentence: taken to describe rather than instruct)")
        return sev, conf, ""
    if why in _ASSERTABLE or why.startswith("reported speech"):
        # round 9: an example adverbial governs its sentence only; "This is mandatory." after it, or an order
        # with a trigger inside it, makes the match an order (hermes_audit.engine.mood)
        # start-up time: the mood model grades a hit an example presents; a clean scan has none
        from hermes_audit.engine.mood import asserted_order

        order = asserted_order(text, start, end, quoted=why in _ASSERTABLE and why != "inside inline code")
        if order:
            return sev, conf, f" ({why}, presented as an example, but {order})"
    label = labelled_example(text, start) or attack_verdict(text, start, end, described=True)
    if label:
        return (min(sev, FORBIDDEN_SEVERITY_CAP), _demote(conf),
                f" ({why}, labelled \"{label}\": taken to describe rather than instruct)")
    return min(sev, DESCRIBES_SEVERITY_CAP), _demote(conf), f" ({why}: it may describe rather than instruct)"


def _rule_like(f: Finding) -> Rule:
    """A stand-in rule carrying a finding's identity (for :func:`make_finding` of a merged finding)."""
    return Rule(
        code=f.rule_id, name=f.rule_name, family=f.family, severity=f.severity, confidence=f.confidence,
        title="", message="", help="", kinds=frozenset({"all"}), source="", fix=f.fix or "",
    )
