"""The rule engine: runs catalog rules over a document and returns findings.

Inputs: a :class:`~hermes_audit.documents.document.Document`, the rules to
run, and (for parity findings) the Hermes verdict. Every finding carries a
span in the document's own text; matches found in a normalised view are
mapped back through :mod:`hermes_audit.patterns.normalize`.

A rule that fails (a regular expression that times out, a detector that
raises) does not stop the scan: it is recorded in :attr:`EngineResult.errors`
and the run is reported as incomplete.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Optional

from hermes_audit.documents.document import Document
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.patterns.catalog import Rule
from hermes_audit.engine.detectors import DETECTORS
from hermes_audit.engine.finding import _format, _rule_like, judge, make_finding
from hermes_audit.findings import DetectorHit
from hermes_audit.patterns.normalize import MappedText, nfkc
from hermes_audit.engine.overlap import drop_yielding, merge_overlapping
from hermes_audit.engine.redact import redact
from hermes_audit.findings import Finding, Severity
from hermes_audit.patterns.prefilter import (
    LiteralIndex, Prefilter, analyse, depth0_units, iter_matches, prefilter_for,
)

if TYPE_CHECKING:  # issue 8: imported on the first hit (start-up time of a clean scan)
    from hermes_audit.engine.markdown import ExampleSpans

#: Seconds one regular expression may run on one document before it is abandoned.
REGEX_TIMEOUT = 5.0
#: Findings kept per rule and document; further matches are counted and the last kept finding says how
#: many (issue 8: a hostile file with millions of matches must not exhaust memory or time).
MAX_FINDINGS_PER_RULE = 1_000
#: Largest decoded payload scanned again (characters).
MAX_DECODED_CHARS = 100_000
#: Shortest decoded payload (non-blank characters) worth scanning again: shorter ones hold no instruction.
MIN_DECODED_SCAN_CHARS = 4
#: Go from the keywords present in a view to the patterns that could match (issue 8; see :meth:`Engine.run`).
#: False (tests) checks every pattern's prefilter instead; the findings are the same either way.
KEYWORD_DISPATCH = True
#: ``(pattern text, flags)`` -> ``(prefilter, key, slot, clauses)``, shared by every engine (issue 8): see
#: :func:`_pattern_info`.
_PATTERNS: dict = {}
#: Check a group of a rule's patterns that open alike with one search first (issue 8: see :func:`rule_gates`).
#: False (tests) runs every pattern; the findings are the same either way.
RULE_GATES = True
#: Gates are used on views of at least this many characters (code points): on a shorter text each member's own
#: keyword-led scan is cheap, and building a rule's gates (compiled from text with ``regex``) would cost more
#: than it saves; a pre-commit run of a few small files then never imports the ``regex`` package (issue 8).
GATE_MIN_CHARS = 32_768
#: rule code -> :func:`rule_gates` of it.
_GATES: dict = {}
#: rule code -> :func:`rule_leads` of it.
_LEADS: dict = {}
_NO_GATES: tuple = ()
#: A pattern that a gate cannot hold: back-references, named groups and calls (numbering), global inline flags;
#: look-arounds ``(?=``, ``(?!``, ``(?<=``, ``(?<!`` are held.
_UNGATEABLE = None


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
            # start-up time: compiled from the catalog cache's op-codes when imported, so imported after the catalog
            # is loaded
            from hermes_audit.engine.deobfuscate import deobfuscate

            v = deobfuscate(self.raw_text, self._cache.get("nfkc"))
        else:
            raise ValueError(f"unknown view {name!r}")
        self._cache[name] = v
        return v

    def index(self, name: str):
        """The keyword index (:class:`~hermes_audit.patterns.prefilter.LiteralIndex`) of view ``name``'s text;
        views with the same text share one."""
        idx = self._index_by_name.get(name)  # issue 8: one dict look-up per rule once built
        if idx is None:
            text = self.get(name).text
            idx = self._indexes.get(text)
            if idx is None:
                idx = self._indexes[text] = LiteralIndex(text)
            self._index_by_name[name] = idx
        return idx

    def may_match(self, name: str, prefilter) -> bool:
        """False when view ``name`` lacks a keyword every match of a pattern with ``prefilter`` needs (issue 8:
        the rule is skipped before any per-pattern work); ``None`` prefilter: True."""
        return prefilter is None or self.index(name).passes(prefilter)

    def matches(self, name: str, pattern, timeout: Optional[float] = None):
        """``pattern.finditer`` over view ``name``, skipped when a required keyword is absent and tried only
        where a leading keyword starts (issue 8, :func:`hermes_audit.patterns.prefilter.iter_matches`: the same
        matches). Views with the same text share one keyword index."""
        return iter_matches(pattern, self.get(name).text, self.index(name), timeout)


def rule_gates(rule: Rule) -> tuple:
    """Per pattern of ``rule`` (in order): ``None``, or ``(group, gate)`` when the pattern is one of two or
    more of the rule's patterns (same flags) whose text opens with the same head, up to and including its
    first quantified character set, e.g. ``!\\[[^\\]\\n]{0,300}?``. ``gate`` is that head followed by the
    alternation of the members' rests: it matches somewhere iff some member does (at any position,
    ``head(?:r1|r2)`` matches iff ``head r1`` or ``head r2`` does; the alternation is not atomic and the head
    is shared), so a text where the gate finds nothing is spared every member (issue 8: a near-miss costs one
    scan of the head rather than one per member). Patterns with back-references, named groups, a top-level
    ``|`` or global inline flags are left alone. Cached per rule code; empty tuple when no group."""
    got = _GATES.get(rule.code)
    if got is not None:
        return got
    import re

    import regex

    global _UNGATEABLE
    if _UNGATEABLE is None:
        _UNGATEABLE = re.compile(r"\\[1-9g]|\(\?P?<(?![=!])|\(\?P[=>]|^\(\?[a-zA-Z]+\)")
    heads: dict = {}
    for i, p in enumerate(rule.compiled):
        src, flags = p.pattern, int(p.flags)
        if flags & regex.VERBOSE or _UNGATEABLE.search(src):
            continue
        try:
            units = list(depth0_units(src))
        except ValueError:
            continue
        if any(kind == "|" for _a, _b, kind, _c in units):
            continue
        end = next((b for _a, b, kind, atom_end in units if kind == "char" and atom_end < b), None)
        if end is None or end == len(src):
            continue
        heads.setdefault((flags, src[:end]), []).append(i)
    out: list = [None] * len(rule.compiled)
    for (flags, head), members in heads.items():
        if len(members) < 2:
            continue
        gate_src = head + "(?:" + "|".join(rule.compiled[i].pattern[len(head):] for i in members) + ")"
        try:
            gate = regex.compile(gate_src, flags)
        except Exception:  # (an odd pattern: its members simply run one by one)
            continue
        for i in members:
            out[i] = (head, gate)
    got = _GATES[rule.code] = tuple(out) if any(out) else _NO_GATES
    return got


def rule_leads(rule: Rule) -> tuple:
    """The leading keywords (folded) of every pattern of ``rule``, as
    :func:`hermes_audit.patterns.prefilter.analyse` finds them; cached per rule code. The engine has the keyword
    index locate them in one pass on a long text (issue 8: see ``LiteralIndex.locate``)."""
    got = _LEADS.get(rule.code)
    if got is None:
        words: dict = {}
        for p in rule.compiled:
            lead = analyse(p.pattern, int(p.flags))[1]
            words.update(dict.fromkeys(lead or ()))
        got = _LEADS[rule.code] = tuple(words)
    return got


class _Gating:
    """The gates of one rule's pattern groups on one view (:func:`rule_gates`), each checked at most once."""

    __slots__ = ("views", "view", "gates", "timeout", "decided", "patterns")

    def __init__(self, views: Views, view: str, gates: tuple, timeout: Optional[float], patterns: tuple = ()) -> None:
        self.views, self.view, self.gates, self.timeout = views, view, gates, timeout
        self.patterns = patterns  # the rule's compiled patterns, in order (empty: the gates are always run)
        self.decided: dict = {}  # gate head -> whether its gate finds a match

    def open(self, i: int) -> bool:
        """False when pattern ``i`` is in a group whose gate finds no match in the view (it cannot match).
        The gate is run only when two or more members of the group pass their keyword prefilters in the view:
        with one, that member's own keyword-led scan is cheaper than the gate (issue 8: a text dense with one
        member's keywords paid for the whole group's gate)."""
        g = self.gates[i]
        if g is None:
            return True
        ok = self.decided.get(g[0])
        if ok is None:
            ok = True
            if self._live_members(g[0]) >= 2:
                ok = False
                for _m in self.views.matches(self.view, g[1], self.timeout):
                    ok = True
                    break
            self.decided[g[0]] = ok
        return ok

    def _live_members(self, head) -> int:
        """How many members of the group ``head`` may match by their keyword prefilters (at most 2 counted)."""
        if not self.patterns:
            return 2

        index, live = self.views.index(self.view), 0
        for j, g in enumerate(self.gates):
            if g is not None and g[0] == head and index.passes(prefilter_for(self.patterns[j])):
                live += 1
                if live >= 2:
                    break
        return live


def _long_text_gating(views: Views, rule: Rule, timeout: Optional[float]) -> Optional[_Gating]:
    """On a view of at least :data:`GATE_MIN_CHARS` characters: the rule's leading keywords located in one pass
    (``LiteralIndex.locate``) and its gates (:class:`_Gating`, ``None`` when it has none); ``None`` on a shorter
    view (issue 8: both pay only on long texts)."""
    if len(views.get(rule.view).text) < GATE_MIN_CHARS:
        return None
    views.index(rule.view).locate(rule_leads(rule))
    gates = rule_gates(rule) if RULE_GATES else _NO_GATES
    return _Gating(views, rule.view, gates, timeout, tuple(rule.compiled)) if gates else None


def rule_matches(views: Views, rule: Rule, timeout: Optional[float] = None):
    """The matches of every pattern of pattern rule ``rule`` in its view of ``views``, pattern by pattern (each
    as :meth:`Views.matches`), a group of patterns skipped when its gate finds nothing (:func:`rule_gates`):
    what :meth:`Engine.run` finds for the rule before keyword dispatch, which only skips patterns that cannot
    match (issue 8; the worst-case benchmark measures a rule with it). Gates only on views of at least
    :data:`GATE_MIN_CHARS` characters, as in :meth:`Engine.run`."""
    gating = _long_text_gating(views, rule, timeout)
    for i, pat in enumerate(rule.compiled):
        # as in Engine.run: a pattern whose keywords are absent is skipped before its group's gate is consulted
        if gating is None or (views.may_match(rule.view, prefilter_for(pat)) and gating.open(i)):
            yield from views.matches(rule.view, pat, timeout)


class Engine:
    """Runs audit rules over documents. One engine can serve many documents.

    A rule that names a detector runs only when :attr:`detectors` has it: this engine's are the text-only
    ones (:data:`~hermes_audit.engine.detectors.DETECTORS`); the audits' engine
    (:class:`hermes_audit.audits.detectors.AuditEngine`) adds the detectors that read the Hermes model."""

    #: detector name -> detector (``text, params -> DetectorHit...``); looked up when a rule runs
    detectors: Mapping[str, Callable] = DETECTORS

    def __init__(self, rules: Iterable[Rule], regex_timeout: float = REGEX_TIMEOUT) -> None:
        self.rules = [r for r in rules if not r.is_parity and (r.detector is None or r.detector in self.detectors)]
        self.regex_timeout = regex_timeout
        self._decoded_rules = [r for r in self.rules if r.patterns and r.view in ("deobfuscated", "nfkc", "raw")]
        self._plans: dict[str, tuple] = {}  # rule code -> _rule_plan (issue 8)
        self._by_kind: dict = {}  # document kind -> _applicable
        self._triggers: dict = {}  # document kind -> the trigger map (_TRIGGERS[1]) that lists its patterns

    def _rule_plan(self, rule: Rule) -> tuple:
        """``(pattern, prefilter, key, slot, clauses)`` of each pattern of ``rule`` (see :func:`_pattern_info`)."""
        got = self._plans.get(rule.code)
        if got is None:
            info = _PATTERNS.get
            entries = []
            for p in rule.compiled:
                e = info((p.pattern, p.flags))
                entries.append((p,) + (e if e is not None else _pattern_info(p)))
            got = self._plans[rule.code] = tuple(entries)
        return got

    def _applicable(self, kind) -> tuple:
        """``(rules that apply to kind, per rule: None for a detector, else :meth:`_rule_plan`)``. Decided once
        per document kind."""
        got = self._by_kind.get(kind)
        if got is None:
            # issue 8: Rule.applies_to depends on the rule's kinds only, and a few kind sets serve every rule
            decided: dict = {}
            rules = []
            for r in self.rules:
                kinds = r.kinds
                if type(kinds) is frozenset:
                    ok = decided.get(kinds)
                    if ok is None:
                        ok = decided[kinds] = r.applies_to(kind)
                else:  # (a hand-made rule may hold a plain set)
                    ok = r.applies_to(kind)
                if ok:
                    rules.append(r)
            got = self._by_kind[kind] = (rules, [None if r.detector else self._rule_plan(r) for r in rules])
        return got

    def _live_slots(self, kind, index) -> Optional[set]:
        """The slots of the patterns worth checking on the text of ``index`` (a
        :class:`~hermes_audit.patterns.prefilter.LiteralIndex`): those listed under a keyword present
        (:func:`_register_triggers`), and those always tried; ``None`` when the accelerator does not answer for
        that text (then every pattern's prefilter is checked)."""
        got = index.present_keywords()
        if got is None:
            return None
        search, present = got
        if _TRIGGERS[0] is not search or self._triggers.get(kind) is not _TRIGGERS[1]:
            _register_triggers(search, [plan for plan in self._applicable(kind)[1] if plan is not None])
            self._triggers[kind] = _TRIGGERS[1]  # this map (a new one for another search) lists them
        by_keyword, always = _TRIGGERS[1], _TRIGGERS[2]
        live = set(always)
        find = by_keyword.get
        for k in present:
            slots = find(k)
            if slots is not None:
                live.update(slots)
        return live

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
        applicable, plans = self._applicable(doc.kind)  # issue 8: decided once per document kind
        lives: dict = {}  # view name -> slots of the patterns worth checking (None: all), see _live_slots
        live_by_index: dict = {}  # the same per keyword index (views with the same text share one)
        for rule, plan in zip(applicable, plans):
            try:
                if rule.detector:
                    # detectors also get the document kind (memory-store checks depend on it)
                    hits = self.detectors[rule.detector](text, {**rule.params, "document_kind": doc.kind.value})
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
                                # start-up time: the Markdown example spans grade a hit; a clean scan has none
                                from hermes_audit.engine.markdown import ExampleSpans

                                examples = ExampleSpans(text)  # issue 8: markdown is imported on the first hit
                            judged = judge(text, examples, h.start, h.end,
                                           sev if sev is not None else rule.severity, rule.confidence,
                                           rule.code_performs)
                            if judged is None:
                                continue  # the text forbids it
                            sev, conf, note = judged
                            if not note:
                                conf = None
                        f = make_finding(doc, rule, h.start, h.end, _format(rule, h.fields) + note, severity=sev,
                                         confidence=conf, decoded=h.decoded)
                        result.findings.append(f)
                        if h.decoded:
                            self._scan_decoded(doc, rule, h, result)
                    continue
                view = views.get(rule.view)
                ascii_text = view.text.isascii()
                if rule.view in lives:
                    live = lives[rule.view]
                elif KEYWORD_DISPATCH:
                    index = views.index(rule.view)
                    key = id(index)  # the index lives as long as views
                    live = live_by_index.get(key, False)
                    if live is False:
                        live = live_by_index[key] = self._live_slots(doc.kind, index)
                    lives[rule.view] = live
                else:
                    live = lives[rule.view] = None
                gating = _long_text_gating(views, rule, self.regex_timeout)
                for j, (pat, pf, key, slot, _clauses) in enumerate(plan):
                    if live is not None and slot not in live:
                        continue  # issue 8: no keyword of one of its prefilter clauses occurs in the view
                    if pf is not None:
                        pf = (_CHECKS.get(key) or _check_prefilters(key, pf))[ascii_text]
                    if not views.may_match(rule.view, pf):
                        continue
                    if gating is not None and not gating.open(j):
                        continue  # no member of its group matches in this view (issue 8: see rule_gates)
                    for m in views.matches(rule.view, pat, self.regex_timeout):
                        if capped.get(rule.code, 0) >= MAX_FINDINGS_PER_RULE:
                            capped[rule.code] += 1  # counted, not kept (issue 8: bounded memory)
                            continue
                        s, e = view.to_raw(m.start(), max(m.end(), m.start() + 1))
                        shown = m.group(0)
                        e2 = unquoted_end(text, s, e)
                        if e2 != e and shown.endswith(text[e - 1]):
                            e, shown = e2, shown[:-1]
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
                                # start-up time: the Markdown example spans grade a hit; a clean scan has none
                                from hermes_audit.engine.markdown import ExampleSpans

                                examples = ExampleSpans(text)  # issue 8: markdown is imported on the first hit
                            judged = judge(text, examples, s, e, sev, conf, rule.code_performs)
                            if judged is None:
                                continue  # the text forbids it (hermes_audit.engine.negation)
                            sev, conf, note = judged
                        msg = _format(rule, {"match": uc.printable(redact(shown), 80)}) + note
                        result.findings.append(make_finding(doc, rule, s, e, msg, severity=sev, confidence=conf))
            except TimeoutError:
                result.errors.append(EngineError(rule.code, doc.path, f"rule {rule.code} timed out after {self.regex_timeout}s"))
            except Exception as exc:  # a broken rule must not stop the scan
                result.errors.append(EngineError(rule.code, doc.path, f"rule {rule.code} failed: {type(exc).__name__}: {exc}"))
        # one finding per rule per overlapping region (QA: duplicate findings), before the per-rule cap note
        result.findings = merge_overlapping(result.findings, doc, self.rules)
        result.findings = drop_yielding(result.findings, self.rules)
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
            inner = type(self)(self._decoded_rules, self.regex_timeout).run(sub)
            cache[key] = inner
            result.errors.extend(inner.errors)
        for f in inner.findings:
            rule_sev = max(f.severity, Severity.HIGH)
            msg = f"hidden text decoded from {source_rule.name}: {f.message}"
            outer = make_finding(doc, _rule_like(f), hit.start, hit.end, msg, severity=rule_sev, confidence=f.confidence)
            outer.decoded = f.snippet
            result.findings.append(outer)




def unquoted_end(text: str, start: int, end: int) -> int:
    """``end``, less one when the match ``text[start:end]`` ends with the closing quote of a quotation that
    opens just before ``start`` (``Run "curl ... | bash" to install``: a pattern that allows a quoted shell name
    took the sentence's own closing ``"``), so the finding's span and snippet hold the command alone. Offsets are
    code points; what is detected is unchanged."""
    if end - start < 2 or start == 0:
        return end
    q = text[end - 1]
    if q not in "\"'`" or text[start - 1] != q or text.count(q, start, end) % 2 == 0:
        return end
    return end - 1


def _pattern_info(p) -> tuple:
    """``(prefilter, key, slot, clauses)`` of compiled pattern ``p``, cached in :data:`_PATTERNS` by its text and
    flags, the key (issue 8: once per process). Prefilter: the analysed one (``None``: the pattern always runs;
    a text is checked with :func:`_check_prefilters`). The slot is a small number, distinct per pattern, that
    :func:`_register_triggers` lists patterns by; clauses: the prefilter's, most selective first (False without
    one)."""
    pf = prefilter_for(p)
    key = (p.pattern, p.flags)
    got = _PATTERNS[key] = (pf, key, len(_PATTERNS), pf is not None and pf.clauses)
    return got


#: ``(pattern text, flags)`` -> the prefilters a text is checked with (see :func:`_check_prefilters`).
_CHECKS: dict = {}


def _check_prefilters(key: tuple, pf) -> tuple:
    """``(prefilter for any text, prefilter for an ASCII text)`` of the pattern with ``key`` (its text and flags)
    and analysed prefilter ``pf``, cached (issue 8: made when the pattern is first checked, so a pattern whose
    keywords never occur costs nothing). Clauses with fewest alternatives come first (a missing keyword is found
    with fewer look-ups); the ASCII variant drops non-ASCII keywords (an ASCII text holds none, and folding keeps
    ASCII ASCII), so a clause left empty fails at once and a rule written for another script costs one look-up
    there."""
    clauses = pf.clauses
    if any(len(a) > len(b) for a, b in zip(clauses, clauses[1:])):
        pf = Prefilter(tuple(sorted(clauses, key=len)))
    ascii_pf = pf
    if not "".join(chain.from_iterable(clauses)).isascii():
        ascii_pf = Prefilter(tuple(sorted((frozenset(w for w in c if w.isascii()) for c in clauses), key=len)))
    got = _CHECKS[key] = (pf, ascii_pf)
    return got


#: ``[keyword search, keyword -> slots, slots always tried, slots registered]``: see :func:`_register_triggers`.
_TRIGGERS: list = [None, {}, set(), set()]


def _register_triggers(search, plans) -> None:
    """List the patterns of ``plans`` (see :meth:`Engine._applicable`) in :data:`_TRIGGERS` for the
    accelerator's keyword ``search`` (starting afresh for another search): each under the members of one of its
    prefilter clauses, the first in the analysis' most-selective-first order whose members are all in
    ``search.keys``; a pattern without such a clause (or without a prefilter) is always tried. A pattern none of
    whose listed keywords occurs in a text fails that clause, so it cannot match there and costs nothing for
    that text (issue 8: the per-pattern check is paid only by patterns whose keywords are present). Once per
    process and search for each pattern."""
    if _TRIGGERS[0] is not search:
        _TRIGGERS[:] = [search, {}, set(), set()]
    _search, by_keyword, always, registered = _TRIGGERS
    keys = search.keys
    for plan in plans:
        for _pat, _pf, _key, slot, clauses in plan:
            if slot in registered:
                continue
            registered.add(slot)
            trigger = None
            for clause in clauses or ():
                if clause <= keys:
                    trigger = clause
                    break
            if trigger is None:
                always.add(slot)
                continue
            for k in trigger:
                got = by_keyword.get(k)
                if got is None:
                    by_keyword[k] = [slot]
                else:
                    got.append(slot)

