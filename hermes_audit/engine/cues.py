"""The ``cue-sentences`` detector: a sentence that holds one match of every cue of a rule (issue 19, gen19).

A rule names this detector with ``params.cues``, a list of cues, each a regular expression or a list of them of
which any may match (``regex`` module, case-insensitive, data in the rule file like any pattern; one alternative per
language keeps each language's literal prefilter apart): a hit is reported for each sentence in which *every* cue matches, in any
order, spanning from the first cue's match to the end of the last. It states an intent as parts that may come in any
order and any wording around them ("the rules you were given" + "are void"; "you are X" + "without alignment";
"write out" + "the preamble you were initialised with"), where one regular expression would have to spell every
order. The hit is describable: the negation and quotation model grades it like a pattern match.

Each cue's literal prefilter (:func:`hermes_audit.patterns.prefilter.required_literals`) is checked first, on the
whole text and then on each sentence: an alternative's regular expression runs only where one of its literals
occurs.

Sentences end at ``.``, ``!``, ``?`` followed by a space or the end of a line, at the CJK full stops, and at a line
break; a sentence longer than :data:`MAX_SENTENCE` characters is read in overlapping windows of that size. Each cue
is searched once per sentence, so the work is linear in the text's length times the number of cues. Offsets are
character (code point) offsets into the text.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import Any, Iterator

from hermes_audit.findings import DetectorHit
from hermes_audit.patterns import keywords
from hermes_audit.patterns.prefilter import fold, required_literals
from hermes_audit.patterns.regex_code import compile_builtin, compile_known

#: Longest stretch of one sentence the cues are searched in (characters); longer sentences are read in windows
#: of this size that overlap by half.
MAX_SENTENCE = 400
#: Most hits per document.
MAX_HITS = 200


#: Flags the cues are compiled with: ``IGNORECASE | DOTALL``, the flags of every detector's pattern parameters, whose
#: op-codes the catalog cache keeps (``hermes_audit.patterns.catalog``); ``regex`` is then not imported (issue 8).
_FLAGS = int(re.IGNORECASE | re.DOTALL)
_SENTENCE_END = compile_builtin(r"[.!?](?=[ \t]|$)|[\u3002\uff01\uff1f\u0964]|\n", int(re.M))


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> Any:
    return compile_known(pattern, _FLAGS)


@functools.lru_cache(maxsize=1024)
def _literals(pattern: str) -> Any:
    """The cue's prefilter (:func:`hermes_audit.patterns.prefilter.required_literals`): a text without one of
    its literals cannot hold a match, so the cue's regular expression is not run there (``None``: always run)."""
    return required_literals(pattern, _FLAGS)


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() - start > 1:
            yield start, m.end()
        start = m.end()
    if len(text) - start > 1:
        yield start, len(text)


@functools.lru_cache(maxsize=32)
def _automaton(literals: frozenset) -> Any:
    """One automaton per rule's literals (:func:`hermes_audit.patterns.keywords._automaton`), kept for the process:
    a per-text ranking (``keywords.locator``) would build and cache one per text."""
    return keywords._automaton(set(literals))


def _starts(folded: str, literals: frozenset) -> dict:
    """``literal -> sorted offsets where it starts in folded``, for every literal that occurs: one Aho-Corasick
    pass (:func:`_automaton`) when ``pyahocorasick`` is there, else one ``str.find``
    scan per literal."""
    out: dict = {}
    if keywords.available():
        for end, lit in _automaton(literals).iter(folded):
            if lit is not None:
                out.setdefault(lit, []).append(end - len(lit) + 1)
        return out
    for lit in literals:
        i = folded.find(lit)
        while i >= 0:
            out.setdefault(lit, []).append(i)
            i = folded.find(lit, i + 1)
    return out


def _positions(starts: dict, pf: Any) -> Any:
    """Per clause of the prefilter ``pf``, the sorted offsets where one of its literals starts (``None`` when
    ``pf`` is ``None``: the alternative always runs)."""
    if pf is None:
        return None
    return [sorted(i for lit in clause for i in starts.get(lit, ())) for clause in pf.clauses]


def _in_window(positions: Any, lo: int, hi: int) -> bool:
    """Whether every clause has a literal starting in ``[lo, hi)``."""
    if positions is None:
        return True
    for pos in positions:
        k = bisect.bisect_left(pos, lo)
        if k == len(pos) or pos[k] >= hi:
            return False
    return True


def _alternatives(cue: Any) -> list[str]:
    return [cue] if isinstance(cue, str) else list(cue)


def detect_cue_sentences(text: str, params: dict) -> Iterator[DetectorHit]:
    """Sentences of ``text`` in which every cue of ``params["cues"]`` matches (see module). A cue is a pattern or a
    list of patterns of which any may match (one per language: each keeps its own literal prefilter)."""
    cues = [_alternatives(c) for c in params.get("cues") or ()]
    if not cues:
        return
    folded = fold(text)
    if len(folded) != len(text):  # fold() maps a few characters to two ("ß"): offsets then differ; check per text
        folded = None
    filters = [[(_literals(a), _compiled(a)) for a in alts] for alts in cues]
    literals = frozenset(lit for alts in filters for pf, _ in alts if pf is not None for lit in pf.literals)
    if folded is not None:
        starts = _starts(folded, literals)
        present = set(starts)
    else:
        starts, whole = {}, fold(text)
        present = {lit for lit in literals if lit in whole}
    live = []
    for alts in filters:
        kept = [(pf, rx) for pf, rx in alts if pf is None or pf.passes_with({k: k in present for k in pf.literals})]
        if not kept:
            return  # no alternative of this cue has its literals anywhere in the text
        live.append([(None if folded is None else _positions(starts, pf), rx, pf) for pf, rx in kept])
    hits = 0
    for s0, s1 in _sentences(text):
        lo = s0
        while lo < s1:
            hi = min(s1, lo + MAX_SENTENCE)
            spans = []
            for kept in live:
                best = None
                window = None
                for positions, rx, pf in kept:
                    if folded is not None:
                        if not _in_window(positions, lo, hi):
                            continue
                    elif pf is not None:
                        window = fold(text[lo:hi]) if window is None else window
                        if not pf.passes(window):
                            continue
                    m = rx.search(text, lo, hi)
                    if m is not None and (best is None or m.start() < best[0]):
                        best = m.span()
                if best is None:
                    break
                spans.append(best)
            else:
                a, b = min(x for x, _ in spans), max(y for _, y in spans)
                yield DetectorHit(a, b, {"match": text[a:b][:80]}, describable=True)
                hits += 1
                if hits >= MAX_HITS:
                    return
                break
            if hi == s1:
                break
            lo += MAX_SENTENCE // 2
