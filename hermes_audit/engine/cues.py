"""The ``cue-sentences`` detector: a sentence that holds one match of every cue of a rule (issue 19, gen19).

A rule names this detector with ``params.cues``, a list of regular expressions (``regex`` module, case-insensitive,
data in the rule file like any pattern): a hit is reported for each sentence in which *every* cue matches, in any
order, spanning from the first cue's match to the end of the last. It states an intent as parts that may come in any
order and any wording around them ("the rules you were given" + "are void"; "you are X" + "without alignment";
"write out" + "the preamble you were initialised with"), where one regular expression would have to spell every
order. The hit is describable: the negation and quotation model grades it like a pattern match.

Sentences end at ``.``, ``!``, ``?`` followed by a space or the end of a line, at the CJK full stops, and at a line
break; a sentence longer than :data:`MAX_SENTENCE` characters is read in overlapping windows of that size. Each cue
is searched once per sentence, so the work is linear in the text's length times the number of cues. Offsets are
character (code point) offsets into the text.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterator

from hermes_audit.findings import DetectorHit
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


@functools.lru_cache(maxsize=64)
def _compiled(pattern: str) -> Any:
    return compile_known(pattern, _FLAGS)


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() - start > 1:
            yield start, m.end()
        start = m.end()
    if len(text) - start > 1:
        yield start, len(text)


def detect_cue_sentences(text: str, params: dict) -> Iterator[DetectorHit]:
    """Sentences of ``text`` in which every pattern of ``params["cues"]`` matches (see module)."""
    cues = [_compiled(c) for c in params.get("cues") or ()]
    if not cues:
        return
    hits = 0
    for s0, s1 in _sentences(text):
        lo = s0
        while lo < s1:
            hi = min(s1, lo + MAX_SENTENCE)
            spans = []
            for rx in cues:
                m = rx.search(text, lo, hi)
                if m is None:
                    break
                spans.append(m.span())
            else:
                yield DetectorHit(min(a for a, _ in spans), max(b for _, b in spans),
                                  {"match": text[min(a for a, _ in spans):max(b for _, b in spans)][:80]},
                                  describable=True)
                hits += 1
                if hits >= MAX_HITS:
                    return
                break
            if hi == s1:
                break
            lo += MAX_SENTENCE // 2
