"""The rule engine: runs catalog rules over a document and returns findings.

Inputs: a :class:`~hermes_audit.documents.document.Document`, the rules to
run, and (for parity findings) the Hermes verdict. Every finding carries a
span in the document's own text; matches found in a normalised view are
mapped back through :mod:`hermes_audit.engine.normalize`.

A rule that fails (a regular expression that times out, a detector that
raises) does not stop the scan: it is recorded in :attr:`EngineResult.errors`
and the run is reported as incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional

from hermes_audit.documents.document import Document
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.engine.catalog import Rule
from hermes_audit.engine.detectors import DETECTORS, DetectorHit, shown_decoded
from hermes_audit.engine.normalize import MappedText, nfkc
from hermes_audit.engine.overlap import merge_overlapping
from hermes_audit.engine.redact import redact
from hermes_audit.findings import Confidence, Finding, Severity, Span

if TYPE_CHECKING:  # issue 8: imported on the first hit (start-up time of a clean scan)
    from hermes_audit.engine.markdown import ExampleSpans

#: Seconds one regular expression may run on one document before it is abandoned.
REGEX_TIMEOUT = 5.0
#: Characters of a finding's matched text kept in its snippet.
SNIPPET_CHARS = 160
#: Findings kept per rule and document; further matches are counted and the last kept finding says how
#: many (issue 8: a hostile file with millions of matches must not exhaust memory or time).
MAX_FINDINGS_PER_RULE = 1_000
#: Largest decoded payload scanned again (characters).
MAX_DECODED_CHARS = 100_000
#: Shortest decoded payload (non-blank characters) worth scanning again: shorter ones hold no instruction.
MIN_DECODED_SCAN_CHARS = 4


class _SafeDict(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass
class EngineError:
    """A rule that could not finish on a document."""

    rule_id: str
    path: str
    message: str


@dataclass
class EngineResult:
    findings: list[Finding] = field(default_factory=list)
    errors: list[EngineError] = field(default_factory=list)


class Views:
    """Lazily built views of one text, each a :class:`MappedText` back to the raw text."""

    def __init__(self, text: str) -> None:
        self.raw_text = text
        self._cache: dict[str, MappedText] = {}
        self._indexes: dict = {}  # view text -> keyword index (issue 8)
        self._index_by_name: dict = {}  # view name -> the same indexes

    def get(self, name: str) -> MappedText:
        v = self._cache.get(name)
        if v is not None:
            return v
        if name == "raw":
            v = MappedText(self.raw_text, self.raw_text)
        elif name == "nfkc":
            v = nfkc(self.raw_text)
        elif name == "deobfuscated":
            from hermes_audit.engine.deobfuscate import deobfuscate

            v = deobfuscate(self.raw_text, self._cache.get("nfkc"))
        else:
            raise ValueError(f"unknown view {name!r}")
        self._cache[name] = v
        return v

    def index(self, name: str):
        """The keyword index (:class:`~hermes_audit.engine.prefilter.LiteralIndex`) of view ``name``'s text;
        views with the same text share one."""
        idx = self._index_by_name.get(name)  # issue 8: one dict look-up per rule once built
        if idx is None:
            text = self.get(name).text
            idx = self._indexes.get(text)
            if idx is None:
                from hermes_audit.engine.prefilter import LiteralIndex

                idx = self._indexes[text] = LiteralIndex(text)
            self._index_by_name[name] = idx
        return idx

    def may_match(self, name: str, prefilter) -> bool:
        """False when view ``name`` lacks a keyword every match of a pattern with ``prefilter`` needs (issue 8:
        the rule is skipped before any per-pattern work); ``None`` prefilter: True."""
        return prefilter is None or self.index(name).passes(prefilter)

    def matches(self, name: str, pattern, timeout: Optional[float] = None):
        """``pattern.finditer`` over view ``name``, skipped when a required keyword is absent and tried only
        where a leading keyword starts (issue 8, :func:`hermes_audit.engine.prefilter.iter_matches`: the same
        matches). Views with the same text share one keyword index."""
        from hermes_audit.engine.prefilter import iter_matches

        return iter_matches(pattern, self.get(name).text, self.index(name), timeout)


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
        message=message,
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


class Engine:
    """Runs audit rules over documents. One engine can serve many documents."""

    def __init__(self, rules: Iterable[Rule], regex_timeout: float = REGEX_TIMEOUT) -> None:
        self.rules = [r for r in rules if not r.is_parity]
        self.regex_timeout = regex_timeout
        self._decoded_rules = [r for r in self.rules if r.patterns and r.view in ("deobfuscated", "nfkc", "raw")]
        self._prefilters: dict[str, list] = {}  # rule code -> prefilter of each pattern (issue 8)
        self._by_kind: dict = {}  # document kind -> the rules that apply to it

    def _rule_prefilters(self, rule: Rule) -> list:
        """``(prefilter, prefilter for an ASCII text)`` of each pattern of ``rule`` (``None``: always run)."""
        got = self._prefilters.get(rule.code)
        if got is None:
            from hermes_audit.engine.prefilter import Prefilter, prefilter_for

            got = []
            for p in rule.compiled:
                pf = ascii_pf = prefilter_for(p)
                if pf is not None:
                    clauses = pf.clauses
                    if any(len(a) > len(b) for a, b in zip(clauses, clauses[1:])):
                        # fewest alternatives first: a missing keyword is found with fewer look-ups
                        pf = ascii_pf = Prefilter(tuple(sorted(clauses, key=len)))
                    if not all(w.isascii() for c in clauses for w in c):
                        # an ASCII text holds no non-ASCII keyword (folding keeps ASCII ASCII): an empty clause
                        # fails at once, so a rule written for another script costs nothing on ASCII text
                        ascii_pf = Prefilter(tuple(sorted((frozenset(w for w in c if w.isascii()) for c in clauses),
                                                          key=len)))
                got.append((pf, ascii_pf))
            self._prefilters[rule.code] = got
        return got

    def run(self, doc: Document) -> EngineResult:
        """All audit findings for ``doc`` (none when it could not be read)."""
        result = EngineResult()
        text = doc.text
        if not text:
            return result
        views = Views(text)
        examples: Optional[ExampleSpans] = None
        seen: set[tuple[str, int, int]] = set()
        capped: dict[str, int] = {}  # rule code -> findings kept, then also those only counted
        applicable = self._by_kind.get(doc.kind)
        if applicable is None:  # issue 8: decided once per document kind
            applicable = self._by_kind[doc.kind] = [r for r in self.rules if r.applies_to(doc.kind)]
        for rule in applicable:
            try:
                if rule.detector:
                    # detectors also get the document kind (memory-store checks depend on it)
                    hits = DETECTORS[rule.detector](text, {**rule.params, "document_kind": doc.kind.value})
                    for h in hits:
                        if capped.get(rule.code, 0) >= MAX_FINDINGS_PER_RULE:
                            capped[rule.code] += 1  # counted, not kept (issue 8: bounded memory)
                            continue
                        key = (rule.code, h.start, h.end)
                        if key in seen:
                            continue
                        seen.add(key)
                        capped[rule.code] = capped.get(rule.code, 0) + 1
                        sev, conf, note = h.severity, None, ""
                        if h.describable and rule.demote_in_examples:
                            if examples is None:
                                from hermes_audit.engine.markdown import DESCRIBES_SEVERITY_CAP, ExampleSpans

                                examples = ExampleSpans(text)  # issue 8: markdown is imported on the first hit
                            why = examples.describes(h.start, h.end)
                            if why:  # describes rather than performs: lower confidence, capped severity
                                conf = _demote(rule.confidence)
                                sev = min(sev if sev is not None else rule.severity, DESCRIBES_SEVERITY_CAP)
                                note = f" ({why}: it may describe rather than instruct)"
                        f = make_finding(doc, rule, h.start, h.end, _format(rule, h.fields) + note, severity=sev,
                                         confidence=conf, decoded=h.decoded)
                        result.findings.append(f)
                        if h.decoded:
                            self._scan_decoded(doc, rule, h, result)
                    continue
                view = views.get(rule.view)
                ascii_text = view.text.isascii()
                for pat, (pf, ascii_pf) in zip(rule.compiled, self._rule_prefilters(rule)):
                    if not views.may_match(rule.view, ascii_pf if ascii_text else pf):
                        continue
                    for m in views.matches(rule.view, pat, self.regex_timeout):
                        if capped.get(rule.code, 0) >= MAX_FINDINGS_PER_RULE:
                            capped[rule.code] += 1  # counted, not kept (issue 8: bounded memory)
                            continue
                        s, e = view.to_raw(m.start(), max(m.end(), m.start() + 1))
                        key = (rule.code, s, e)
                        if key in seen:
                            continue
                        seen.add(key)
                        capped[rule.code] = capped.get(rule.code, 0) + 1
                        conf = rule.confidence
                        sev = rule.severity
                        note = ""
                        if rule.demote_in_examples:
                            if examples is None:
                                from hermes_audit.engine.markdown import DESCRIBES_SEVERITY_CAP, ExampleSpans

                                examples = ExampleSpans(text)  # issue 8: markdown is imported on the first hit
                            why = examples.describes(s, e)
                            if why:  # describes rather than performs: lower confidence, capped severity, never silence
                                conf = _demote(conf)
                                sev = min(sev, DESCRIBES_SEVERITY_CAP)
                                note = f" ({why}: it may describe rather than instruct)"
                        msg = _format(rule, {"match": uc.printable(redact(m.group(0)), 80)}) + note
                        result.findings.append(make_finding(doc, rule, s, e, msg, severity=sev, confidence=conf))
            except TimeoutError:
                result.errors.append(EngineError(rule.code, doc.path, f"rule {rule.code} timed out after {self.regex_timeout}s"))
            except Exception as exc:  # a broken rule must not stop the scan
                result.errors.append(EngineError(rule.code, doc.path, f"rule {rule.code} failed: {type(exc).__name__}: {exc}"))
        # one finding per rule per overlapping region (QA: duplicate findings), before the per-rule cap note
        result.findings = merge_overlapping(result.findings, doc, self.rules)
        for code, n in capped.items():
            if n > MAX_FINDINGS_PER_RULE:
                last = [f for f in result.findings if f.rule_id == code][-1]
                last.message += (f" ({n - MAX_FINDINGS_PER_RULE:,} more matches of this rule in this file are not "
                                 f"listed: at most {MAX_FINDINGS_PER_RULE:,} per rule and file)")
        result.findings.sort(key=lambda f: (f.span.start, f.rule_id))
        return result

    def _scan_decoded(self, doc: Document, source_rule: Rule, hit: DetectorHit, result: EngineResult) -> None:
        """Scan a decoded hidden payload; findings point at the hidden run."""
        payload = (hit.decoded or "")[:MAX_DECODED_CHARS]
        if len(payload.strip()) < MIN_DECODED_SCAN_CHARS:
            return
        # the same payload (thousands of identical runs in a hostile file) is scanned once per engine
        cache: dict = self.__dict__.setdefault("_decoded_cache", {})
        key = (payload, doc.kind)
        inner = cache.get(key)
        if inner is None:
            if len(cache) >= 4096:
                cache.clear()
            sub = Document.from_text(payload, doc.path, doc.kind)
            inner = Engine(self._decoded_rules, self.regex_timeout).run(sub)
            cache[key] = inner
            result.errors.extend(inner.errors)
        for f in inner.findings:
            rule_sev = max(f.severity, Severity.HIGH)
            msg = f"hidden text decoded from {source_rule.name}: {f.message}"
            outer = make_finding(doc, _rule_like(f), hit.start, hit.end, msg, severity=rule_sev, confidence=f.confidence)
            outer.decoded = f.snippet
            result.findings.append(outer)


def _rule_like(f: Finding) -> Rule:
    from hermes_audit.engine.catalog import Rule as R

    return R(
        code=f.rule_id, name=f.rule_name, family=f.family, severity=f.severity, confidence=f.confidence,
        title="", message="", help="", kinds=frozenset({"all"}), source="", fix=f.fix or "",
    )
