"""Literal-keyword prefilters: skip a regular expression when its required words are absent.

A regular expression such as ``ignore\\s+(?:\\w+\\s+){0,8}(previous|all|above|prior)\\s+...instructions``
can only match a text that contains ``ignore``, one of ``previous``/``all``/``above``/``prior``,
and ``instructions``. :func:`required_literals` derives that requirement from the
pattern itself (no hand-written keyword lists), as a conjunction of clauses, each
clause a set of strings of which at least one must occur. Checking a few
substrings with ``in`` runs at memory speed; the regular expression then runs
only on the texts that pass, so the result is exactly that of running it
everywhere.

Soundness (why a prefilter never drops a match):

* **Folding.** Literals and texts are compared after :func:`fold`: ``U+0130``
  and ``U+0131`` become ``i``, then :meth:`str.casefold`. Both are per-character
  maps, so ``fold(a + b) == fold(a) + fold(b)``. A case-insensitive engine matches
  a pattern character ``l`` against text characters ``c`` whose fold equals
  ``fold(l)`` (``K`` U+212A and ``k``, ``ſ`` U+017F and ``s``, Greek sigma forms,
  ...): ``tests/test_performance_equivalence.py`` checks this for every
  character of every derived literal, against every code point, for both ``re``
  and ``regex``. A case-sensitive match is a fortiori covered.
* **Normal forms.** The prefilter is applied to the very string the regular
  expression searches (for Hermes' scanner: the NFKC text), never to the raw
  file, so NFKC changes nothing here.
* **Structure.** Only constructs whose meaning is the same in ``re`` and in the
  ``regex`` module's version-0 syntax are analysed (literals, small character
  sets, groups, alternation, counted repetition, zero-width assertions). A
  pattern with anything else (``regex``-only syntax, fuzzy matching, POSIX
  classes, verbose or full-case mode, back-references used for content) gets no
  prefilter and always runs.

Sizes are in characters (code points).
"""

from __future__ import annotations

import functools
import re
import sys
import time
from bisect import bisect_left
from itertools import groupby, islice
from operator import itemgetter, methodcaller
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from hermes_audit.patterns import keywords as _keywords
from hermes_audit.patterns import regex_code
from hermes_audit.patterns.lazy import materialize

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]

#: Largest set of alternative strings tracked for one sub-expression.
MAX_EXACT = 64
#: Largest set of leading keywords an alternation at a pattern's start may give (its branches' leads together).
MAX_LEAD = 256
#: Largest character set expanded into alternatives (``[_-]`` is expanded, ``[A-Za-z]`` is not).
MAX_CLASS_CHARS = 8
#: Characters that case-insensitive ``re``/``regex`` match to another character but that casefold to something
#: else: the dotted and dotless i, and U+1DF95, which ``regex`` 2026.11's newer Unicode tables match to ``ß``
#: (Python 3.11's ``str.casefold`` does not know it; tests/test_performance_equivalence.py checks every code point).
_FOLD_FIRST = {"\u0130": "i", "\u0131": "i", "\U0001df95": "\u00df"}
_FOLD_FIRST_RE = re.compile("[\u0130\u0131\U0001df95]")


def fold(text: str) -> str:
    """The text prefilters compare: the characters of :data:`_FOLD_FIRST` mapped (``U+0130``/``U+0131`` to ``i``), then :meth:`str.casefold`.

    For ASCII text this is :meth:`str.lower`. The result may be longer than
    ``text`` (``ß`` folds to ``ss``); it is only used for ``in`` tests.
    """
    if text.isascii():
        return text.lower()
    if _FOLD_FIRST_RE.search(text):
        text = _FOLD_FIRST_RE.sub(lambda m: _FOLD_FIRST[m.group(0)], text)
    return text.casefold()


@dataclass(frozen=True)
class Prefilter:
    """A conjunction of clauses; a text passes when every clause has a member in it.

    ``clauses`` hold folded strings (see :func:`fold`). An empty conjunction
    passes every text (no usable literal).
    """

    clauses: tuple[frozenset[str], ...]

    @property
    def literals(self) -> frozenset[str]:
        """Every string any clause mentions."""
        return frozenset(s for c in self.clauses for s in c)

    def passes(self, folded: str) -> bool:
        """True when ``folded`` (a :func:`fold`-ed text) may contain a match."""
        for clause in self.clauses:
            for s in clause:
                if s in folded:
                    break
            else:
                return False
        return True

    def passes_with(self, present: dict) -> bool:
        """Like :meth:`passes`, with ``present[literal] -> bool`` already computed (shared literals)."""
        return all(any(present[s] for s in clause) for clause in self.clauses)


class _Info:
    __slots__ = ("exact", "clauses")

    def __init__(self, exact: Optional[frozenset], clauses: list):
        self.exact = exact  # every string the node can match, or None when unknown/too many
        self.clauses = clauses  # list of frozensets: at least one member of each occurs in any match


_EMPTY = frozenset({""})
_ANY = _Info(None, [])


class _Unsupported(Exception):
    pass


_QUANT = re.compile(r"\{\d*(?:,\d*)?\}")
#: ``[:alpha:]`` (a POSIX class inside a set for ``regex``, plain members for ``re``).
_POSIX_CLASS = re.compile(r"\[:\^?[A-Za-z]+:\]")


def _regex_only_syntax(pattern: str) -> bool:
    """True when ``re`` could read ``pattern`` differently from the ``regex`` module.

    That is an unescaped ``[:name:]`` (a POSIX class in ``regex``) or an unescaped
    ``{`` outside a character set that does not open a counted repeat (fuzzy
    constraints such as ``{e<=1}`` in ``regex``, a literal brace in ``re``).
    """
    i, n, in_class = 0, len(pattern), False
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            if _POSIX_CLASS.match(pattern, i):
                return True
            if not in_class:
                in_class = True
                # a ']' right after '[' or '[^' is a literal member
                j = i + 1
                if j < n and pattern[j] == "^":
                    j += 1
                if j < n and pattern[j] == "]":
                    i = j + 1
                    continue
        elif ch == "]" and in_class:
            in_class = False
        elif ch == "{" and not in_class and not _QUANT.match(pattern, i):
            return True
        i += 1
    return False


def _clause(strings: Iterable[str]) -> Optional[frozenset]:
    s = frozenset(strings)
    if not s or "" in s:
        return None
    return s


def _concat(infos: list[_Info]) -> _Info:
    clauses: list = []
    cur: Optional[set] = {""}
    all_exact = True
    for info in infos:
        clauses.extend(info.clauses)
        if info.exact is not None:
            if cur is not None and len(cur) * len(info.exact) <= MAX_EXACT:
                cur = {a + b for a in cur for b in info.exact}
            else:
                all_exact = False
                if cur is not None:
                    c = _clause(cur)
                    if c:
                        clauses.append(c)
                cur = set(info.exact)
        else:
            all_exact = False
            if cur is not None:
                c = _clause(cur)
                if c:
                    clauses.append(c)
            cur = {""}
    if all_exact and cur is not None:
        return _Info(frozenset(cur), clauses)
    if cur is not None:
        c = _clause(cur)
        if c:
            clauses.append(c)
    return _Info(None, clauses)


def _best_clause(info: _Info) -> Optional[frozenset]:
    """The most selective single clause of a branch (longest shortest member)."""
    cands = list(info.clauses)
    if info.exact is not None:
        c = _clause(info.exact)
        if c:
            cands.append(c)
    if not cands:
        return None
    return max(cands, key=lambda c: (min(len(s) for s in c), -len(c)))


def _branch(infos: list[_Info]) -> _Info:
    if all(i.exact is not None for i in infos):
        union = frozenset().union(*(i.exact for i in infos))
        if len(union) <= MAX_EXACT:
            return _Info(union, [])
    merged: set = set()
    for info in infos:
        c = _best_clause(info)
        if c is None:
            return _ANY
        merged |= c
    return _Info(None, [frozenset(merged)])


def _class_chars(items) -> Optional[set]:
    chars: set = set()
    for op, av in items:
        if op is _c.LITERAL:
            chars.add(chr(av))
        elif op is _c.RANGE:
            lo, hi = av
            if hi - lo + 1 > MAX_CLASS_CHARS:
                return None
            chars.update(chr(x) for x in range(lo, hi + 1))
        else:  # NEGATE, CATEGORY, charset internals
            return None
        if len(chars) > MAX_CLASS_CHARS:
            return None
    return chars


def _seq(sub) -> _Info:
    return _concat([_node(op, av) for op, av in sub])


def _node(op, av) -> _Info:
    if op is _c.LITERAL:
        return _Info(frozenset({fold(chr(av))}), [])
    if op is _c.IN:
        chars = _class_chars(av)
        if chars is None:
            return _ANY
        return _Info(frozenset(fold(ch) for ch in chars), [])
    if op in (_c.ANY, _c.NOT_LITERAL):
        return _ANY
    if op is _c.AT:
        return _Info(_EMPTY, [])
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return _Info(_EMPTY, [])  # zero-width: consumes nothing, requires nothing we rely on
    if op is _c.SUBPATTERN:
        _group, add_flags, del_flags, p = av
        if (add_flags | del_flags) & (_c.SRE_FLAG_VERBOSE):
            raise _Unsupported("verbose group")
        return _seq(p)
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _seq(av)
    if op is _c.BRANCH:
        _, branches = av
        return _branch([_seq(b) for b in branches])
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op is getattr(_c, "POSSESSIVE_REPEAT", None):
        lo, hi, p = av
        inner = _seq(p)
        if lo == 0:
            if hi == 1 and inner.exact is not None and len(inner.exact) < MAX_EXACT:
                return _Info(inner.exact | _EMPTY, [])
            return _Info(None, [])
        if lo == hi == 1:
            return inner
        clauses = list(inner.clauses)
        c = _clause(inner.exact) if inner.exact is not None else None
        if c:
            clauses.append(c)
        if lo == hi and inner.exact is not None and len(inner.exact) ** lo <= MAX_EXACT and lo <= 8:
            return _concat([inner] * lo)
        return _Info(None, clauses)
    if op is _c.GROUPREF_EXISTS:
        return _ANY
    if op is _c.GROUPREF:
        return _ANY
    raise _Unsupported(f"construct {op}")


def required_literals(pattern: str, flags: int = 0) -> Optional[Prefilter]:
    """The prefilter of ``pattern`` (``re`` or ``regex`` version-0 syntax), or ``None``.

    ``flags`` are ``re``/``regex`` flag bits; verbose mode gives ``None``. The
    result is ``None`` when the pattern uses a construct outside the analysed
    subset or requires no literal (it must then always run). Never raises.
    """
    if flags & re.VERBOSE or _regex_only_syntax(pattern):
        return None
    try:
        parsed = _parse(pattern, flags)
        if parsed.state.flags & re.VERBOSE:
            return None
        info = _seq(parsed)
    except (_Unsupported, re.error, RecursionError, OverflowError, ValueError, TypeError, AttributeError):
        return None
    clauses = list(info.clauses)
    if info.exact is not None:
        c = _clause(info.exact)
        if c:
            clauses.append(c)
    # deduplicate; drop clauses implied by a stronger one (a clause whose members all contain
    # some member of another clause is implied by it... keep it simple: exact duplicates only)
    uniq: list[frozenset] = []
    for cl in clauses:
        cl = _reduce_clause(cl)
        if cl not in uniq:
            uniq.append(cl)
    if not uniq:
        return None
    # cheapest and most selective clause first: a text without it is rejected after one search
    uniq.sort(key=_clause_cost)
    return Prefilter(tuple(uniq))


#: Words so common in instruction files that a clause made of them rarely rejects a text.
_COMMON = frozenset(
    "a an and any all are as at add be been by can cat change check do edit for have if in include into is it "
    "name never new not now of on one only or output print prompt report rules run share system that the this "
    "to update use user with write you your".split()
)


def _presence(s: str) -> float:
    """A rough prior that ``s`` occurs in an instruction file (only orders clauses; never decides)."""
    if s in _COMMON:
        return 1.0
    p = 0.7 ** max(len(s) - 2, 0)
    if not s.isalpha():
        p *= 0.4
    return min(p, 1.0)


def _clause_cost(cl: frozenset) -> tuple:
    """Sort key: the clause most likely to be absent first (it rejects the text after one search)."""
    absent = 1.0
    for s in cl:
        absent *= 1.0 - _presence(s)
    return (1.0 - absent, len(cl))


def _reduce_clause(cl: frozenset) -> frozenset:
    """An equivalent or weaker clause with fewer members (fewer searches per text).

    A member containing another member is redundant (``{key, keys}`` is ``{key}``).
    Then members sharing a substring of four characters or more are replaced by it
    (``{http://, https://}`` becomes ``{http}``): weaker, so still sound.
    """
    members = sorted(cl, key=len)
    kept: list[str] = []
    for s in members:
        if not any(k in s for k in kept):
            kept.append(s)
    if len(kept) > 1:
        common = _common_substring(kept)
        if len(common) >= 4:
            return frozenset({common})
    return frozenset(kept)


def _common_substring(strings: list[str]) -> str:
    """Longest string contained in every member (members are short literals)."""
    shortest = min(strings, key=len)
    for size in range(len(shortest), 0, -1):
        for i in range(len(shortest) - size + 1):
            cand = shortest[i:i + size]
            if all(cand in s for s in strings):
                return cand
    return ""


def _parse(pattern: str, flags: int):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _sre_parse.parse(pattern, flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.UNICODE))


#: The repeat op-codes (greedy, lazy, possessive where the parser has it).
_REPEATS = tuple(op for op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)) if op is not None)


def _lead_seq(items) -> Optional[set]:
    """Strings one of which every match of the node sequence ``items`` starts with (``None``: unknown)."""
    items = list(items)
    i = 0
    while i < len(items) and items[i][0] in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        i += 1
    if i == len(items):
        return None
    run: set = {""}
    for op, av in items[i:]:
        info = _node(op, av)
        if info.exact is None or "" in info.exact or len(run) * len(info.exact) > MAX_EXACT:
            if run == {""}:
                got = _lead_node(op, av)
                if got is None and op in _REPEATS and av[0] == 0:
                    got = _optional_lead(av[1], av[2], items[i + 1:])
                return got
            break
        run = {a + b for a in run for b in info.exact}
    return None if "" in run else run


def _optional_lead(hi: int, sub, rest) -> Optional[set]:
    """Leading strings of ``X{0,hi} R`` (``sub`` is ``X``, ``rest`` the nodes of ``R``): a match repeats ``X`` at
    least once, so starts with a leading string of ``X`` (of ``X R`` when ``hi`` is 1), or not at all, so starts
    with one of ``R`` (issue 21: ``(?:~/|\\$HOME/)?\\.(?:bashrc|profile)`` opens with ``~/.bashrc``,
    ``$home/.bashrc``, ``.bashrc``, ...)."""
    first = _lead_seq(list(sub) + list(rest) if hi == 1 else sub)
    if first is None:
        return None
    after = _lead_seq(rest)
    if after is None:
        return None
    out = first | after
    return out if len(out) <= MAX_LEAD else None


def _lead_node(op, av) -> Optional[set]:
    if op is _c.SUBPATTERN:
        return _lead_seq(av[3])
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return _lead_seq(av)
    if op is _c.BRANCH:
        out: set = set()
        for b in av[1]:
            sub = _lead_seq(b)
            if sub is None:
                return None
            out |= sub
        return out if len(out) <= MAX_LEAD else None
    if op in _REPEATS:
        lo, _hi, sub = av
        return _lead_seq(sub) if lo >= 1 else None
    info = _node(op, av)
    if info.exact is None or "" in info.exact:
        return None
    return set(info.exact)


def leading_literals(pattern: str, flags: int = 0) -> Optional[frozenset[str]]:
    """Folded strings one of which every match of ``pattern`` starts with, or ``None``.

    Zero-width assertions at the start (``\\b``, look-arounds) are skipped. A
    match found by ``search`` then starts where ``fold(text)`` has one of these
    strings, provided folding kept the text's length (every character folded to
    one character), so positions agree. Never raises.
    """
    if flags & re.VERBOSE or _regex_only_syntax(pattern):
        return None
    try:
        parsed = _parse(pattern, flags)
        if parsed.state.flags & re.VERBOSE:
            return None
        lead = _lead_seq(list(parsed))
    except (_Unsupported, re.error, RecursionError, OverflowError, ValueError, TypeError, AttributeError):
        return None
    if not lead or "" in lead:
        return None
    return frozenset(lead)


#: Largest distance (characters) between a match's start and the keyword used to anchor it.
MAX_ANCHOR_OFFSET = 64


def bounded_anchor(pattern: str, flags: int = 0) -> Optional[tuple[frozenset[str], int, int]]:
    """``(keywords, lo, hi)``: every match contains one of ``keywords`` starting ``lo`` to ``hi`` characters
    after the match's start (the part before it has a bounded width), or ``None``.

    For a pattern without a leading keyword, such as ``["']?[\\w.-]{0,40}?(?:password|token)...``,
    a match can then only start within ``hi`` characters before a keyword occurrence. Never raises.
    """
    if flags & re.VERBOSE or _regex_only_syntax(pattern):
        return None
    try:
        parsed = _parse(pattern, flags)
        if parsed.state.flags & re.VERBOSE:
            return None
        items = list(parsed)
        for k, (op, av) in enumerate(items):
            info = _node(op, av)
            if info.exact is None or "" in info.exact:
                continue
            run = set(info.exact)
            for op2, av2 in items[k + 1:]:
                nxt = _node(op2, av2)
                if nxt.exact is None or "" in nxt.exact or len(run) * len(nxt.exact) > MAX_EXACT:
                    break
                run = {a + b for a in run for b in nxt.exact}
            lo, hi = _sre_parse.SubPattern(parsed.state, items[:k]).getwidth()
            if hi > MAX_ANCHOR_OFFSET:
                return None
            return frozenset(run), int(lo), int(hi)
    except (_Unsupported, re.error, RecursionError, OverflowError, ValueError, TypeError, AttributeError):
        return None
    return None


# --- many literals against one text ---------------------------------------------------------------

#: Texts shorter than this (characters) are searched directly; longer ones get a word index.
DIRECT_SEARCH_CHARS = 1_024  # issue 8: measured on the 5 MB tree, the index pays for itself above ~1,000
#: Whitespace-separated tokens longer than this are kept whole instead of indexed by 4-grams.
MAX_INDEXED_TOKEN = 64
_LITERAL_INFO: dict[str, tuple[bool, bool, tuple[str, ...], Optional[tuple[int, ...]]]] = {}


def _literal_info(s: str) -> tuple[bool, bool, tuple[str, ...], Optional[tuple[int, ...]]]:
    """``(is ASCII, contains whitespace, distinct 4-grams, the same as :func:`_int_grams` numbers or None
    when ``s`` is not ASCII)`` of a literal (cached)."""
    info = _LITERAL_INFO.get(s)
    if info is None:
        grams = tuple(dict.fromkeys(s[i:i + 4] for i in range(len(s) - 3)))
        numbers = tuple(int.from_bytes(g.encode("ascii"), sys.byteorder) for g in grams) if s.isascii() else None
        info = _LITERAL_INFO[s] = (s.isascii(), any(c.isspace() for c in s), grams, numbers)
    return info


#: 32-bit ``I`` items (every mainstream platform): ASCII blobs' 4-grams are kept as numbers.
_INT_GRAMS = memoryview(bytes(4)).cast("I").itemsize == 4


def _int_grams(blob: str) -> set:
    """The 4-character pieces of an ASCII ``blob``, each as the native-order 32-bit number of its four bytes.

    Four views of the bytes as 32-bit items, starting at offsets 0 to 3, hold every piece once per
    position (issue 8: a third cheaper than a set of 4-character strings)."""
    data = memoryview(blob.encode("ascii"))
    out: set = set()
    n = len(data)
    for k in range(4):
        m = (n - k) // 4
        if m > 0:
            out.update(data[k:k + 4 * m].cast("I"))
    return out


_NO_OCCURRENCES: list = []
#: :meth:`LiteralIndex.locate`: texts of at least this many characters, at least this many keywords present
#: and not yet located, and at most one occurrence per this many characters (else each is searched alone),
#: judged first on the text's opening ``LOCATE_SAMPLE_CHARS`` characters.
LOCATE_MIN_CHARS = 32_768
LOCATE_MIN_KEYWORDS = 32
LOCATE_CHARS_PER_HIT = 32
LOCATE_SAMPLE_CHARS = 65_536
#: sorted keyword tuple -> an Aho-Corasick automaton reporting each where it ends (:meth:`LiteralIndex.locate`).
_SECOND = itemgetter(1)
#: Keywords asked of a long text that the accelerator's keyword set lacked (added at its next build).
_MISSED_KEYWORDS: set = set()
MAX_MISSED_KEYWORDS = 4_096


def _catalog_keywords() -> set:
    """Every keyword of the analysed patterns (required and leading literals), plus :data:`_MISSED_KEYWORDS`."""
    out = set(_MISSED_KEYWORDS)
    for pf, lead, _density, _window in list(_ANALYSIS.values()):
        if pf is not None:
            for clause in pf.clauses:
                out.update(clause)
        if lead:
            out.update(lead)
    return out


def _keyword_search():
    """The optional accelerator's :class:`~hermes_audit.patterns.keywords.KeywordSearch` over
    :func:`_catalog_keywords` (rebuilt when more patterns were analysed or keywords missed), or None."""
    if not _keywords.ENABLED:
        return None
    return _keywords.searcher((len(_ANALYSIS), len(_MISSED_KEYWORDS)), _catalog_keywords)


def shared_keyword_search():
    """The keyword search of the audit rules' keyword indexes (:func:`_keyword_search`), or None; Hermes'
    scanner shares its answers in a full scan (issue 8: ``ThreatScanner.share_keywords``)."""
    return _keyword_search()


#: Folded texts of at least this many characters list a keyword's occurrences with one ``re`` scan
#: (:meth:`LiteralIndex.occurrences`) rather than a ``find`` call each.
SCAN_LIST_MIN_CHARS = 32_768
#: keyword -> its ``re`` literal scan (see :meth:`LiteralIndex.occurrences`).
_LITERAL_SCANS: dict = {}
_MATCH_START = re.Match.start
#: The start of a ``re`` or ``regex`` match.
_MATCH_START_ANY = methodcaller("start")


class LiteralIndex:
    """Answers "does ``fold(text)`` contain ``s``?" for many literals ``s`` at low cost per literal.

    Exact (no false answer either way). For a long text it keeps the distinct
    whitespace-separated tokens: a literal without whitespace can only occur
    inside one token, so it is searched in the tokens joined by ``\\n`` (usually
    much shorter than the text), and only when every 4-character piece of it is
    among the 4-character pieces of the tokens. Literals with characters the text
    lacks are answered from the character set. Memory: the distinct tokens and
    their 4-grams, bounded by the text size. With the optional accelerator
    (:mod:`hermes_audit.patterns.keywords`, ``pyahocorasick``), a long text instead
    gets the set of catalog keywords present, from one pass (issue 8); same answers.
    """

    __slots__ = ("folded", "_memo", "_ascii", "_chars", "_grams", "_blob", "_long", "_tokens", "_occ", "_starts",
                 "_numbers", "_accel", "_present", "_leads")

    def __init__(self, text: str, folded: Optional[str] = None) -> None:
        self.folded = fold(text) if folded is None else folded
        self._memo: dict[str, bool] = {}
        self._ascii = self.folded.isascii()
        self._chars: Optional[frozenset] = None
        self._grams: Optional[set] = None
        self._blob = ""
        self._long = ""
        self._tokens: frozenset = frozenset()
        self._occ: dict[str, list] = {}
        self._starts: dict[str, list] = {}
        self._numbers = False  # _grams holds _int_grams numbers (an ASCII blob) rather than strings
        self._accel = None  # the KeywordSearch of hermes_audit.patterns.keywords that made _present; False: none
        self._present: set = set()
        self._leads: dict = {}  # keyword tuple -> its members present (present_of)

    def _build(self) -> None:
        tokens = set(self.folded.split())
        if tokens and max(map(len, tokens)) > MAX_INDEXED_TOKEN:
            longs = [t for t in tokens if len(t) > MAX_INDEXED_TOKEN]
            tokens.difference_update(longs)
            self._long = "\n".join(longs)
        blob = self._blob = "\n".join(tokens)
        # 4-grams of the joined tokens: those spanning a "\n" hold whitespace, which no looked-up 4-gram does
        # (``zip`` of four shifted copies builds the same set as slicing at every position, 20% faster: issue 8)
        if _INT_GRAMS and blob.isascii():
            self._grams = _int_grams(blob)
            self._numbers = True
        else:
            self._grams = set(map("".join, zip(blob, blob[1:], blob[2:], blob[3:])))
        self._tokens = tokens  # type: ignore[assignment]

    def prepare(self) -> None:
        """Build now the parts shared by every look-up (character set, tokens, 4-grams), which
        :meth:`has` otherwise builds on first need; the benchmark suite times them apart from the rules.
        With the optional accelerator (:mod:`hermes_audit.patterns.keywords`), the keyword pass instead."""
        if len(self.folded) > DIRECT_SEARCH_CHARS and (self._accel if self._accel is not None else self._scan()):
            return
        if not self._ascii and self._chars is None:
            self._chars = frozenset(self.folded)
        if len(self.folded) > DIRECT_SEARCH_CHARS and self._grams is None:
            self._build()

    def has(self, s: str) -> bool:
        """True when ``s`` (already folded) occurs in the folded text."""
        v = self._memo.get(s)
        if v is None:
            v = self._memo[s] = self._compute(s)
        return v

    def _scan(self) -> bool:
        """One pass of the optional keyword accelerator over the folded text; False when it is off."""
        search = _keyword_search()
        self._accel = search if search is not None else False
        if search is not None:
            self._present = search.present(self.folded)
        return search is not None

    def _compute(self, s: str) -> bool:
        f = self.folded
        accel = self._accel
        if accel is None and len(f) > DIRECT_SEARCH_CHARS:
            accel = self._accel if self._scan() else False
        if accel:
            # issue 8: every catalog keyword present, from one C-level pass; others (one-character and very
            # frequent keywords, found at once) are searched directly, and new ones join the set at its next build
            if s in accel.keys:
                return s in self._present
            if len(_MISSED_KEYWORDS) < MAX_MISSED_KEYWORDS and _keywords.kept(s):
                _MISSED_KEYWORDS.add(s)
            return s in f
        is_ascii, has_space, grams, numbers = _LITERAL_INFO.get(s) or _literal_info(s)
        if not is_ascii:
            if self._ascii:
                return False
            if self._chars is None:
                self._chars = frozenset(f)
            if not self._chars.issuperset(s):
                return False
        if has_space or len(f) <= DIRECT_SEARCH_CHARS:
            return s in f
        if self._grams is None:
            self._build()
        if s in self._tokens or (self._long and s in self._long):
            return True
        n = len(s)
        if n < 4:
            # issue 8: s has no whitespace, so it occurs iff it occurs inside a token (indexed or long, the latter
            # checked above); one search of the joined tokens is cheaper than a set of character pairs built for it
            return s in self._blob
        if self._numbers:
            if numbers is None or not self._grams.issuperset(numbers):  # type: ignore[union-attr]
                return False  # (a non-ASCII literal is not in an ASCII blob)
        elif not self._grams.issuperset(grams):  # type: ignore[union-attr]
            return False
        return s in self._blob

    def occurrences(self, s: str, most: int) -> list:
        """Ascending start positions of ``s`` (already folded) in the folded text, overlapping ones included:
        all of them, or the first ones when there are more than ``most`` (then more than ``most`` are listed).
        Cached and extended on demand, so the patterns that share a keyword search the text for it once
        (issue 8). The caller must not change the list."""
        entry = self._occ.get(s)
        if entry is None:
            if not self.has(s):
                return _NO_OCCURRENCES
            entry = self._occ[s] = [[], False]
        occ, complete = entry
        if complete or len(occ) > most:
            return occ
        if len(self.folded) >= SCAN_LIST_MIN_CHARS and s and not any(s[:j] == s[-j:] for j in range(1, len(s))):
            # issue 8: one ``re`` scan lists them at about half the cost of a ``find`` call each; ``s`` cannot
            # overlap itself (no border), so the scan's non-overlapping matches are all of them
            pat = _LITERAL_SCANS.get(s)
            if pat is None:
                if len(_LITERAL_SCANS) >= 4_096:
                    _LITERAL_SCANS.clear()
                pat = _LITERAL_SCANS[s] = re.compile(re.escape(s))
            need = most + 1 - len(occ)
            got = list(map(_MATCH_START, islice(pat.finditer(self.folded, occ[-1] + 1 if occ else 0), need)))
            occ += got
            if len(got) < need:
                entry[1] = True
            return occ
        find = self.folded.find
        i = find(s, occ[-1] + 1 if occ else 0)
        while i >= 0:
            occ.append(i)
            if len(occ) > most:
                break
            i = find(s, i + 1)
        else:
            entry[1] = True
        return occ

    def locate(self, words: Iterable[str]) -> None:
        """Find every occurrence of the members of ``words`` (already folded) not yet listed by
        :meth:`occurrences` in one pass over the folded text, when the optional accelerator is available and
        at least :data:`LOCATE_MIN_KEYWORDS` of them are present (issue 8: a rule of many patterns, each
        opening with its own keywords, on a long text otherwise searches the whole text once per keyword).
        The lists are those :meth:`occurrences` makes (ascending, overlapping ones included); when the
        keywords occur more than once per :data:`LOCATE_CHARS_PER_HIT` characters the pass stops, and each list
        holds the occurrences ending before that point, which :meth:`occurrences` extends from its last one
        when asked for more. Speed only: the answers are the same."""
        if len(self.folded) < LOCATE_MIN_CHARS or not _keywords.available():
            return
        occ = self._occ
        todo = tuple(sorted({w for w in words if w not in occ and len(w) >= 2 and self.has(w)}))
        if len(todo) < LOCATE_MIN_KEYWORDS:
            return
        automaton = _keywords.locator(todo, self.folded)
        # the text's opening first: when the keywords are dense there (more than ``most`` occurrences end in
        # its first LOCATE_SAMPLE_CHARS characters), the pass would stop early (below) and the keywords be
        # searched one by one anyway, so it is not made; otherwise the same pass goes on (the opening is not
        # read twice)
        sample = min(len(self.folded), LOCATE_SAMPLE_CHARS)
        most = sample // LOCATE_CHARS_PER_HIT
        found = automaton.iter(self.folded)
        hits = list(islice(found, most + 1))  # (end, keyword), by end
        if len(hits) > most and hits[-1][0] < sample:
            return
        cap = len(self.folded) // LOCATE_CHARS_PER_HIT + 16  # (more than most)
        hits += islice(found, cap + 1 - len(hits))
        # dense keywords: the pass stops early; every occurrence ending by then is listed, so each list holds
        # the first occurrences, which occurrences() extends from its last one when a pattern needs more
        complete = len(hits) <= cap
        if not complete:
            hits.pop()  # (one ending at the same place as another could be missing)
            last_end = hits[-1][0] if hits else -1
            while hits and hits[-1][0] == last_end:
                hits.pop()
        if _keywords.PLACEHOLDER_END in self.folded:  # a placeholder's report (value None): not a keyword
            hits = [h for h in hits if h[1] is not None]
        hits.sort(key=_SECOND)  # stable: each keyword's ends stay ascending
        for w, group in groupby(hits, key=_SECOND):
            if w not in occ:
                k = len(w) - 1
                occ[w] = [[e - k for e, _w in group], complete]
        if complete:
            for w in todo:
                if w not in occ:
                    occ[w] = [[], True]

    def word_starts(self, s: str, text: str, most: int) -> list:
        """:meth:`occurrences` of ``s`` without those just after an ASCII word character of ``text`` (the text
        this index was made from), where a match that opens with ``\\b`` and a word character cannot start:
        all of them, or, when ``s`` occurs more than ``most`` times and they were not filtered yet, the first
        unfiltered :meth:`occurrences` (more than ``most``). Cached (issue 8: patterns such as ``\\bnc\\b``
        share the filtered list). The caller must not change the list."""
        got = self._starts.get(s)
        if got is None:
            occ = self.occurrences(s, most)
            if len(occ) > most:
                got = _ascii_word_starts(self.folded, s, text, most)  # many: filtered in one scan if exact
                if got is None:
                    return occ
                self._starts[s] = got
                return got
            got = self._starts[s] = [i for i in occ if not i or text[i - 1] not in _ASCII_WORD]
        return got

    def present_of(self, words: tuple) -> tuple:
        """The members of ``words`` (already folded) that occur in the folded text, in their order; cached per
        tuple (issue 8: the leading keywords of a pattern, most of them absent from a small file, are looked
        up once per text rather than at each step of :func:`iter_matches`)."""
        got = self._leads.get(words)
        if got is None:
            has = self.has
            got = self._leads[words] = tuple(w for w in words if has(w))
        return got

    def present_keywords(self) -> Optional[tuple]:
        """``(search, present)`` when the optional accelerator answers for this text: its
        :class:`~hermes_audit.patterns.keywords.KeywordSearch` and the members of ``search.keys`` that occur in
        the folded text (exact for those keys; the caller must not change the set). ``None`` otherwise (a text
        of at most :data:`DIRECT_SEARCH_CHARS` characters, or the accelerator off): then use :meth:`passes`.
        Runs the keyword pass on first need, as :meth:`passes` would (issue 8: the engine goes from the
        keywords present to the patterns that could match)."""
        accel = self._accel
        if accel is None and len(self.folded) > DIRECT_SEARCH_CHARS:
            accel = self._accel if self._scan() else False
        if not accel:
            return None
        return accel, self._present

    def passes(self, pf: Optional[Prefilter]) -> bool:
        """True when the text may contain a match of the pattern ``pf`` belongs to (``None``: always)."""
        if pf is None:
            return True
        accel = self._accel
        if accel is None and len(self.folded) > DIRECT_SEARCH_CHARS:
            accel = self._accel if self._scan() else False
        memo = self._memo
        for clause in pf.clauses:
            if accel and clause <= accel.keys:
                # issue 8: the accelerator's keyword set answers the whole clause at C level
                if self._present.isdisjoint(clause):
                    return False
                continue
            for s in clause:
                v = memo.get(s)
                if v is None:
                    v = memo[s] = self._compute(s)
                if v:
                    break
            else:
                return False
        return True


#: Characters per leading-keyword occurrence below which trying each occurrence is slower than one
#: ``finditer``: for a pattern that opens with a look-around (which the engine evaluates at every
#: position, the slow case), and for any other pattern.
ANCHOR_DENSITY_LOOKAROUND = 8
ANCHOR_DENSITY_PLAIN = 400
#: Characters per keyword occurrence below which :func:`iter_matches` stops examining occurrences and runs
#: one ``finditer`` (each occurrence costs a few microseconds even when its candidate starts are ruled out).
ANCHOR_OCCURRENCE_CHARS = 64
#: Characters per occurrence of the keywords a pattern opens with (literally: see
#: :func:`_literal_opening`) below which :func:`iter_matches` runs one ``finditer``: the ``regex`` engine then
#: finds the keyword itself at C speed, cheaper than trying each occurrence from Python (issue 8: a rule of
#: several such patterns on a text dense with their keywords).
LITERAL_SCAN_CHARS = 4000
#: Characters the leading keywords of a pattern must share at its opening for :func:`_literal_opening`.
LITERAL_PREFIX_MIN = 2
#: Flag bits that matter to the analysis (same values in ``re`` and ``regex``).
_RELEVANT_FLAGS = int(re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE)
#: ``regex`` flag bits whose matching modes are not analysed (FULLCASE, VERSION1, BESTMATCH,
#: ENHANCEMATCH, REVERSE, WORD, POSIX); a pattern with any of them always runs.
_UNANALYSED_FLAGS = 0x4000 | 0x100 | 0x1000 | 0x8000 | 0x400 | 0x800 | 0x10000
_UNANALYSED = 1 << 30

#: (pattern, normalised flags) -> (prefilter, anchor keywords, anchor density, (lo, hi) offset of the keywords)
_ANALYSIS: dict[tuple[str, int], tuple[Optional[Prefilter], Optional[tuple[str, ...]], int, tuple[int, int]]] = {}


def _flags_key(flags: int) -> int:
    flags = int(flags)
    return (flags & _RELEVANT_FLAGS) | (_UNANALYSED if flags & _UNANALYSED_FLAGS else 0)


def analyse(pattern: str, flags: int = 0) -> tuple[Optional[Prefilter], Optional[tuple[str, ...]], int, tuple[int, int]]:
    """Cached ``(prefilter, anchor keywords, anchor density, (lo, hi))`` of a pattern and its flags.

    ``None`` prefilter: the pattern always runs; ``None`` keywords: it is searched
    the ordinary way. A match starts ``lo`` to ``hi`` characters before one of the
    keywords (``(0, 0)``: it starts with one). See :func:`required_literals`,
    :func:`leading_literals`, :func:`bounded_anchor`.
    """
    key = (pattern, _flags_key(flags))
    got = _ANALYSIS.get(key)
    if got is not None:
        return got
    pf: Optional[Prefilter] = None
    lead: Optional[tuple[str, ...]] = None
    density = ANCHOR_DENSITY_PLAIN
    window = (0, 0)
    if not key[1] & _UNANALYSED:
        pf = required_literals(pattern, key[1])
        if pf is not None:
            got_lead = leading_literals(pattern, key[1])
            lead = tuple(sorted(got_lead)) if got_lead else None
            if lead is None:
                anchor = bounded_anchor(pattern, key[1])
                if anchor is not None:
                    lead, window = tuple(sorted(anchor[0])), (anchor[1], anchor[2])
            try:
                first = list(_parse(pattern, key[1]))[:1]
                if first and first[0][0] in (_c.ASSERT, _c.ASSERT_NOT):
                    density = ANCHOR_DENSITY_LOOKAROUND
            except Exception:  # parsed once already; defensive
                pass
    got = _ANALYSIS[key] = (pf, lead, density, window)
    return got


def prefilter_for(compiled) -> Optional[Prefilter]:
    """The prefilter of a compiled pattern (or :class:`~hermes_audit.patterns.catalog.LazyPattern`); ``None``: always run."""
    return analyse(compiled.pattern, compiled.flags)[0]


def leads_for(compiled) -> tuple[Optional[tuple[str, ...]], int]:
    """``(leading keywords or None, characters per occurrence worth anchoring)`` of a compiled pattern."""
    _pf, lead, density, _window = analyse(compiled.pattern, compiled.flags)
    return lead, density


def export_analysis(patterns: Iterable[tuple[str, int]]) -> dict:
    """JSON-ready analysis of ``(pattern, flags)`` pairs (for the catalog cache)."""
    out = {}
    for pattern, flags in patterns:
        pf, lead, density, window = analyse(pattern, flags)
        out[f"{_flags_key(flags)}\x00{pattern}"] = {
            "clauses": [sorted(c) for c in pf.clauses] if pf is not None else None,
            "lead": list(lead) if lead is not None else None,
            "density": density,
            "window": list(window),
        }
    return out


def preload_analysis(table: dict) -> None:
    """Seed the analysis cache from :func:`export_analysis` output. Malformed entries are ignored."""
    for k, v in table.items():
        try:
            fl, pattern = k.split("\x00", 1)
            clauses = v["clauses"]
            pf = None if clauses is None else Prefilter(tuple(frozenset(c) for c in clauses))
            lead = None if v["lead"] is None else tuple(v["lead"])
            lo, hi = v["window"]
            _ANALYSIS[(pattern, int(fl))] = (pf, lead, int(v["density"]), (int(lo), int(hi)))
        except (AttributeError, KeyError, TypeError, ValueError):
            continue


#: ``(pattern, flags)`` -> the pattern's every match starts at a word boundary (``\b`` first; see below).
_BOUNDARY_FIRST: dict[tuple[str, int], bool] = {}
#: Characters that are word characters for ``\b`` in every mode this module analyses (Unicode ``re``/``regex``).
_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
#: Flag bits under which ``\b`` is not the Unicode word boundary: ``re``/``regex`` ASCII, LOCALE, ``regex`` WORD.
_OTHER_BOUNDARY_FLAGS = 0x100 | 0x80 | 0x4 | 0x800
#: Anchor positions above which the word-boundary test is worth parsing the pattern for.
BOUNDARY_MIN_POSITIONS = 16


def _first_is_boundary(items) -> bool:
    if not items:
        return False
    op, av = items[0]
    if op in (_c.ASSERT, _c.ASSERT_NOT):  # a look-around consumes nothing: the next item is at the start too
        return _first_is_boundary(items[1:])
    if op is _c.AT:
        return av is _c.AT_BOUNDARY
    if op is _c.SUBPATTERN:
        if av[1] or av[2]:  # inline flags ((?a:...)) may change what \b means
            return False
        return _first_is_boundary(list(av[-1]))
    if op is _c.BRANCH:
        return all(_first_is_boundary(list(b)) for b in av[1])
    return False


def starts_at_boundary(pattern: str, flags: int = 0) -> bool:
    """True when every match of ``pattern`` starts with ``\b`` (also inside groups and every alternative)
    and ``\b`` is the Unicode word boundary (no ASCII, LOCALE or WORD flag). Cached; never raises."""
    key = (pattern, int(flags))
    got = _BOUNDARY_FIRST.get(key)
    if got is None:
        got = False
        if not (int(flags) & (_OTHER_BOUNDARY_FLAGS | _UNANALYSED_FLAGS | re.VERBOSE)) and not _regex_only_syntax(pattern):
            try:
                parsed = _parse(pattern, int(flags))
                got = not parsed.state.flags & (re.VERBOSE | re.ASCII | re.LOCALE) and _first_is_boundary(list(parsed))
            except Exception:  # unreadable for sre: no shortcut
                got = False
        _BOUNDARY_FIRST[key] = got
    return got


#: ASCII characters (the only ones :func:`_may_be_boundary` judges).
_ASCII_CHARS = frozenset(map(chr, range(128)))


def _may_be_boundary(text: str, p: int) -> bool:
    """False only when ``\\b`` (Unicode ``re``/``regex``) surely fails at position ``p`` of ``text``: both
    neighbours are ASCII and both are word characters or both are not. ``p`` is ``0 <= p < len(text)``."""
    if p == 0:
        return True
    a, b = text[p - 1], text[p]
    if a not in _ASCII_CHARS or b not in _ASCII_CHARS:
        return True
    return (a in _ASCII_WORD) != (b in _ASCII_WORD)


# --- narrowing candidate starts (issue 8) ----------------------------------------------------------

#: Largest match width (characters) for which candidates are checked for the pattern's other keywords.
MAX_CLAUSE_CHECK_WIDTH = 1_024
#: Clauses checked per pattern (the most selective first, as the prefilter orders them).
CLAUSE_CHECK_MAX_CLAUSES = 2
#: A clause whose members occur more often than once per this many characters is not checked.
CLAUSE_CHECK_CHARS_PER_OCCURRENCE = 200

_CATEGORY_SOURCE = {
    _c.CATEGORY_DIGIT: r"\d", _c.CATEGORY_NOT_DIGIT: r"\D", _c.CATEGORY_SPACE: r"\s",
    _c.CATEGORY_NOT_SPACE: r"\S", _c.CATEGORY_WORD: r"\w", _c.CATEGORY_NOT_WORD: r"\W",
}


def _char_escape(code: int) -> str:
    return "\\x{:02x}".format(code) if code < 0x100 else ("\\u{:04x}".format(code) if code < 0x10000
                                                          else "\\U{:08x}".format(code))


def _class_source(op, av) -> Optional[str]:
    """Source of a one-character node (literal, ``[^x]``, or a set of literals, ranges and ``\\w``-like
    categories) as a bracketed set, or ``None`` for anything else."""
    if op is _c.LITERAL:
        return "[" + _char_escape(av) + "]"
    if op is _c.NOT_LITERAL:
        return "[^" + _char_escape(av) + "]"
    if op is not _c.IN:
        return None
    parts = []
    for k, (iop, iav) in enumerate(av):
        if iop is _c.NEGATE and k == 0:
            parts.append("^")
        elif iop is _c.LITERAL:
            parts.append(_char_escape(iav))
        elif iop is _c.RANGE:
            parts.append(_char_escape(iav[0]) + "-" + _char_escape(iav[1]))
        elif iop is _c.CATEGORY and iav in _CATEGORY_SOURCE:
            parts.append(_CATEGORY_SOURCE[iav])
        else:
            return None
    if not parts or parts == ["^"]:
        return None
    return "[" + "".join(parts) + "]"


class _Narrowing:
    """What a pattern lets :func:`iter_matches` rule out before calling ``match`` (see :func:`narrowing`)."""

    __slots__ = ("width", "clauses", "run", "inner", "behind", "run_rev", "notc", "stop_start", "stop_none")

    def __init__(self) -> None:
        self.width: Optional[int] = None  # largest match width, when at most MAX_CLAUSE_CHECK_WIDTH
        self.clauses: tuple = ()  # prefilter clauses: one member lies inside every match
        self.run = None  # pattern: the maximal run of prefix characters ending at endpos (search from the window start)
        self.inner = None  # pattern: a prefix character the look-behind class does not hold
        self.behind = None  # pattern: one character of the opening negative look-behind's class
        self.run_rev = None  # ``regex`` only: ``run`` matched backwards from endpos (no retry at every start)
        self.notc = None  # pattern: one character outside the look-behind's class (see :func:`_behind_starts`)
        # ASCII characters outside the prefix characters: just before a keyword, the run is empty and the keyword's
        # position is the only start (``stop_start``: the look-behind, if any, holds after it) or none (``stop_none``)
        self.stop_start: frozenset = frozenset()
        self.stop_none: frozenset = frozenset()


#: ``(pattern, flags, engine)`` -> :class:`_Narrowing`.
_NARROWING: dict = {}
#: ``"<flags>\0<pattern>"`` -> a record as :func:`export_narrowing` writes it (from the catalog cache:
#: :func:`preload_narrowing`), decoded when its pattern is first used.
_NARROWING_RECORDS: dict = {}


def narrowing(compiled) -> _Narrowing:
    """Facts about a (materialised) compiled pattern that rule out candidate starts, cached. Never raises.

    * ``width``: every match is at most this many characters long (``sre_parse`` width, look-arounds
      consume nothing), so each prefilter clause has a member inside ``[start, start + width)``.
    * ``run``/``inner``/``behind``: when everything before the anchor keyword (:func:`bounded_anchor`) is
      zero-width assertions and one-character nodes, possibly repeated (``["']?[\\w.-]{0,40}?``), every
      character between the start and the keyword is one of those nodes' characters (union ``U``), so the
      start lies in the maximal ``U``-run ending at the keyword. When the pattern opens with a negative
      look-behind of one character class ``C`` (``(?<![\\w.:/-])``), the character before the start is not
      in ``C``: inside the run, only just after a character of ``U`` not in ``C``. The helper patterns are
      compiled by the pattern's own engine with its flags, so character classes mean the same.

    What is derived from the pattern's text (:func:`narrowing_record`) comes from the catalog cache when the
    catalog loaded from it (issue 8: no pattern parsing at run time); only the small helper patterns are
    compiled here.
    """
    key = (compiled.pattern, int(compiled.flags), type(compiled))
    got = _NARROWING.get(key)
    if got is not None:
        return got
    got = _NARROWING[key] = _Narrowing()
    flags = int(compiled.flags)
    rec = _decode_narrowing(_NARROWING_RECORDS.get(f"{flags}\x00{compiled.pattern}"))
    if rec is None:
        rec = narrowing_record(compiled.pattern, flags)
    got.width, got.clauses, run, behind, inner = rec
    if run is None:
        return got
    try:
        is_re = isinstance(compiled, re.Pattern)  # _engine_of(compiled) is re, without importing regex (issue 8)
        for name, (src, fl) in narrowing_helpers(rec, flags, not is_re).items():
            setattr(got, name, _compile_helper(is_re, src, fl))  # run_rev: the greedy run, from endpos back
        outside = [ch for ch in map(chr, range(128)) if got.run.match(ch) is None]
        got.stop_start = frozenset(ch for ch in outside if got.behind is None or got.behind.match(ch) is None)
        got.stop_none = frozenset(outside) - got.stop_start
    except Exception:  # any surprise: no narrowing (the plain window)
        got.run = got.inner = got.behind = got.run_rev = got.notc = None
        got.stop_start = got.stop_none = frozenset()
    return got


def narrowing_record(pattern: str, flags: int) -> tuple:
    """What :func:`narrowing` derives from a pattern's text alone, as plain data (a pure function of
    ``pattern`` and ``flags``, the compiled pattern's flags): ``(width, clauses, run, behind, inner)`` with
    ``width`` an ``int`` or ``None``, ``clauses`` a tuple of frozensets of keywords, and the three helper
    patterns as source text (``None``: no run narrowing; ``behind``/``inner`` ``None``: no look-behind
    narrowing). Never raises: a pattern it cannot analyse gets ``(None, (), None, None, None)``."""
    width, clauses = None, ()
    try:
        pf, lead, _density, (lo, hi) = analyse(pattern, flags)
        if pf is None:
            return width, clauses, None, None, None
        parsed = _parse(pattern, _flags_key(flags))
        if parsed.state.flags & re.VERBOSE:
            return width, clauses, None, None, None
        _wlo, whi = parsed.getwidth()
        if whi <= MAX_CLAUSE_CHECK_WIDTH and len(pf.clauses) > 1:
            width = int(whi)
            clauses = tuple(pf.clauses)
        if lead is None or hi == lo:
            return width, clauses, None, None, None
        items = list(parsed)
        prefix = []
        for op, av in items:
            info = _node(op, av)
            if info.exact is not None and "" not in info.exact:
                break
            prefix.append((op, av))
        else:
            return width, clauses, None, None, None
        if _sre_parse.SubPattern(parsed.state, prefix).getwidth() != (lo, hi):
            return width, clauses, None, None, None  # not the prefix bounded_anchor measured
        behind = None
        sources = []
        for n, (op, av) in enumerate(prefix):
            if op in (_c.ASSERT, _c.ASSERT_NOT):
                if n == 0 and op is _c.ASSERT_NOT and av[0] == -1 and len(av[1]) == 1:
                    behind = _class_source(*list(av[1])[0])
                continue
            if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op is getattr(_c, "POSSESSIVE_REPEAT", None):
                sub = list(av[2])
                if len(sub) != 1:
                    return width, clauses, None, None, None
                op, av = sub[0]
            src = _class_source(op, av)
            if src is None:
                return width, clauses, None, None, None
            sources.append(src)
        if not sources:
            return width, clauses, None, None, None
        union = "(?:" + "|".join(dict.fromkeys(sources)) + ")"
        run = "(?>" + union + "*)\\Z"
        if behind is None:
            return width, clauses, run, None, None
        return width, clauses, run, behind, "(?!" + behind + ")" + union
    except Exception:  # any surprise: no narrowing (the plain window)
        return width, clauses, None, None, None


def narrowing_helpers(record: tuple, flags: int, regex_engine: bool) -> dict:
    """The helper patterns :func:`narrowing` compiles for a :func:`narrowing_record` (``flags``: the compiled
    pattern's; ``regex_engine``: it is a ``regex`` pattern), as :class:`_Narrowing` attribute ->
    ``(source, flags)``: ``run``, ``run_rev`` (``regex`` only: ``run`` matched backwards), and with a
    look-behind ``behind``, ``inner`` and ``notc``; empty when there is no run narrowing. The catalog cache
    keeps their op-codes (issue 8: start-up time)."""
    _width, _clauses, run, behind, inner = record
    if run is None:
        return {}
    cflags = int(flags) & ~int(re.VERBOSE)
    out = {"run": (run, cflags)}
    if regex_engine and run.startswith("(?>") and run.endswith(")\\Z"):
        out["run_rev"] = (run[3:-3], cflags | _REGEX_REVERSE)
    if behind is not None:
        out.update(behind=(behind, cflags), inner=(inner, cflags), notc=(_negated_class(behind), cflags))
    return out


#: ``regex.REVERSE`` as an int, so the narrowing of a cached pattern does not import ``regex`` (issue 8; checked
#: by tests/test_startup_imports.py).
_REGEX_REVERSE = 0x400


def _compile_helper(is_re: bool, source: str, flags: int):
    """A helper pattern of :func:`narrowing`, built from the catalog cache's op-codes when it has them."""
    return (regex_code.re_compile_known if is_re else regex_code.compile_known)(source, flags)


def export_boundary(patterns: Iterable[tuple[str, int]]) -> dict:
    """:func:`starts_at_boundary` of ``(pattern, flags)`` pairs as plain data (for the catalog cache)."""
    return {f"{int(flags)}\x00{pattern}": starts_at_boundary(pattern, flags) for pattern, flags in patterns}


def preload_boundary(table: dict) -> None:
    """Seed :func:`starts_at_boundary`'s cache from :func:`export_boundary` output (issue 8: no pattern parsed
    at run time). Malformed entries are ignored."""
    for k, v in table.items():
        if isinstance(k, str) and isinstance(v, bool):
            fl, _, pattern = k.partition("\x00")
            try:
                _BOUNDARY_FIRST[(pattern, int(fl))] = v
            except ValueError:
                continue


def export_narrowing(patterns: Iterable[tuple[str, int]]) -> dict:
    """:func:`narrowing_record` of ``(pattern, compiled flags)`` pairs as plain data (for the catalog cache)."""
    out = {}
    for pattern, flags in patterns:
        width, clauses, run, behind, inner = narrowing_record(pattern, flags)
        out[f"{int(flags)}\x00{pattern}"] = (width, [sorted(c) for c in clauses], run, behind, inner)
    return out


def preload_narrowing(table: dict) -> None:
    """Make :func:`export_narrowing` output (``"<flags>\\0<pattern>"`` -> record) available to :func:`narrowing`;
    each record is checked and decoded when its pattern is first used (a malformed one is derived again)."""
    _NARROWING_RECORDS.update(table)


def _decode_narrowing(v) -> Optional[tuple]:
    """The :func:`narrowing_record` tuple of an :func:`export_narrowing` record, or ``None`` (absent or malformed)."""
    if v is None:
        return None
    try:
        width, clauses, run, behind, inner = v
        clauses = tuple(frozenset(c) for c in clauses)
    except (TypeError, ValueError):
        return None
    if not (width is None or type(width) is int) or not all(x is None or type(x) is str for x in (run, behind, inner)):
        return None
    if not all(type(w) is str for c in clauses for w in c) or (behind is None) != (inner is None):
        return None
    return width, clauses, run, behind, inner


def _engine_of(compiled):
    if isinstance(compiled, re.Pattern):
        return re
    import regex

    return regex


def _window_starts(nar: _Narrowing, text: str, i: int, lo: int, hi: int) -> list:
    """Candidate starts for the keyword occurrence at ``i``: inside ``[i - hi, i - lo]``, in the maximal run of
    prefix characters ending at ``i``, and where the opening look-behind can hold (see :func:`narrowing`)."""
    a, b = max(i - hi, 0), i - lo
    if b < a:
        return []
    if i:
        c = text[i - 1]
        if c in nar.stop_start:
            return [i] if lo == 0 else []
        if c in nar.stop_none:
            return []
    m = nar.run.search(text, a, i) if nar.run_rev is None else nar.run_rev.search(text, a, i)
    if m is None:  # defensive: the empty run always matches at i
        return list(range(a, b + 1))
    r = m.start()
    if r > b:
        return []
    if nar.behind is None:
        return list(range(r, b + 1))
    out = []
    if r == 0 or nar.behind.match(text, r - 1) is None:
        out.append(r)
    out.extend(q.start() + 1 for q in nar.inner.finditer(text, r, b))
    return out


def _negated_class(source: str) -> str:
    """The bracketed set matching one character outside ``source`` (a :func:`_class_source` set)."""
    return "[" + source[2:] if source.startswith("[^") else "[^" + source[1:]


#: keyword -> ``re`` pattern finding it where no ASCII word character precedes it (:func:`_ascii_word_starts`).
_WORD_START_RE: dict = {}


def _ascii_word_starts(folded: str, s: str, text: str, most: int) -> Optional[list]:
    """Ascending positions of ``s`` (folded, opening with an ASCII word character) in ``folded`` where no ASCII
    word character of ``text`` precedes it, from one ``re`` scan (a literal search, then a fixed-width
    look-behind), or ``None`` when that is not exact: ``text`` not ASCII (then ``folded`` is ``text.lower()``,
    which keeps every character's kind), or ``s`` overlapping itself (a scan does not report overlapping
    occurrences; without a border of ``s`` there are none); ``None`` too past ``most`` positions. Issue 8: on
    1 MB of keywords glued together this is a few milliseconds where a search per occurrence costs tens."""
    if not s or s[0] not in _ASCII_WORD or not text.isascii() or len(folded) != len(text):
        return None
    if any(s[:k] == s[-k:] for k in range(1, len(s))):
        return None
    pat = _WORD_START_RE.get(s)
    if pat is None:
        e = re.escape(s)
        pat = _WORD_START_RE[s] = re.compile(e + "(?<![0-9a-z_]" + e + ")")
    out = list(map(_MATCH_START, islice(pat.finditer(folded), most + 1)))  # at C speed (issue 8)
    return None if len(out) > most else out


def _many_occurrences(index: "LiteralIndex", text: str, lead, boundary: Optional[bool], most: int) -> bool:
    """True when :func:`iter_matches`' loop would meet more than ``most`` keyword occurrences (and so give up on
    them for one ``finditer``): the lists it walks (cached in ``index``, so the loop reuses them) hold more."""
    seen = 0
    for s in lead:
        seen += len(index.word_starts(s, text, most) if boundary else index.occurrences(s, most))
        if seen > most:
            return True
    return False


def _behind_starts(nar: _Narrowing, text: str, most: int) -> Optional[list]:
    """Candidate starts found from the opening look-behind alone, for keywords too dense to examine one by one:
    ``0`` and every position just after a character outside the look-behind's class ``C`` (a match starting at
    ``p > 0`` needs ``text[p - 1]`` outside ``C``), ascending. ``None`` when the pattern has no such look-behind
    or there are more than ``most`` starts (then one ``finditer`` is cheaper).

    For a pattern like ``(?<![\\w.:/-])["']?[\\w.-]{0,40}?password...`` on a long run of identifiers
    (``access-key:access-key:...``) this is one character-class scan, where each of the many keyword
    occurrences would cost a few microseconds (issue 8)."""
    if nar.notc is None:
        return None
    out = [0]
    for m in nar.notc.finditer(text):
        out.append(m.end())
        if len(out) > most:
            return None
    if out[-1] >= len(text):
        out.pop()
    return out


def _clause_checks(nar: _Narrowing, index: "LiteralIndex", lead) -> list:
    """``[(sorted occurrences, reach)]`` for up to :data:`CLAUSE_CHECK_MAX_CLAUSES` selective prefilter clauses
    other than the leading keywords': a match starting at ``p`` holds a member of each clause, so one of the
    clause's occurrences lies in ``[p, p + reach]`` (``reach``: largest match width minus the shortest member).
    Clauses of short or common words, or with many occurrences, are not used (they would rarely rule out a start)."""
    folded = index.folded
    cap = len(folded) // CLAUSE_CHECK_CHARS_PER_OCCURRENCE + 16
    lead_set = set(lead)
    out = []
    for clause in nar.clauses:
        if clause <= lead_set or any(len(s) < 3 or s in _COMMON for s in clause):
            continue
        occ: list = []
        for s in clause:
            occ += index.occurrences(s, cap - len(occ))  # cached per index (issue 8)
            if len(occ) > cap:
                break
        if len(occ) > cap:
            continue
        occ.sort()
        out.append((occ, nar.width - min(map(len, clause))))
        if len(out) == CLAUSE_CHECK_MAX_CLAUSES:
            break
    return out


def _near(checks: list, a: int, b: int) -> bool:
    """True when every check has an occurrence in ``[a, b + reach]`` (starts ``a..b`` may then match)."""
    for occ, reach in checks:
        k = bisect_left(occ, a)
        if k == len(occ) or occ[k] > b + reach:
            return False
    return True


#: Texts shorter than this (characters) never take the tail-first step: one ``finditer`` costs them little, and
#: the step's helper patterns (compiled on first use) would cost more (pre-commit latency, issue 8).
TAIL_MIN_CHARS = 32_768
#: Smallest upper bound (characters) of a gap ``[^\n]{0,N}`` at which :func:`_tail_split` splits a pattern.
TAIL_GAP_MIN = 32
#: Characters per tail-keyword occurrence below which :func:`_tail_positions` finds the tail with one
#: look-ahead scan instead of a ``match`` per occurrence.
TAIL_OCCURRENCE_CHARS = 128
#: Characters per candidate start below which :func:`_tail_starts` gives up (one ``finditer`` is cheaper).
TAIL_CANDIDATE_CHARS = 64
#: Tail keyword occurrences probed to tell whether the probe matches at many of them (see :func:`_tail_starts`).
TAIL_SAMPLE = 32
#: Largest share of a branch's starts that may stay candidates (more: too few ruled out, one ``finditer``).
TAIL_MAX_KEPT = 0.25
#: Characters a pattern's head and gaps span from a start below which that start fails quickly; when most
#: sampled starts do, :func:`_tail_starts` leaves the text to one ``finditer``.
TAIL_MIN_REACH = 8
#: Constructs that make a part of a pattern mean something else on its own: back-references, conditionals,
#: recursion, ``\G``/``\K``, branch reset, and inline flags that apply to the whole pattern.
_TAIL_REFUSE = re.compile(r"\\[1-9gGK]|\(\?(?:P[=>]|\(|R\)|[0-9&+|]|-?[0-9]|[a-zA-Z]*-?[a-zA-Z]*\))")


def _parts_unanalysable(src, flags: int) -> bool:
    """True when a pattern's parts would mean something else alone (back-references, conditionals, whole-pattern
    inline flags, verbose mode, syntax only ``regex`` reads), so :func:`tail_branches` and :func:`follow_checks`
    leave it alone."""
    return (not isinstance(src, str) or bool(flags & (re.VERBOSE | _UNANALYSED_FLAGS)) or bool(_TAIL_REFUSE.search(src))
            or _regex_only_syntax(src))


def _per_pattern(cache: dict) -> Callable:
    """Decorator for an analysis ``f(compiled, src, flags)`` of a compiled pattern: it becomes ``f(compiled)``,
    answered from ``cache`` per ``(pattern, flags, engine)``, ``None`` without calling ``f`` when the pattern's
    parts are unanalysable (:func:`_parts_unanalysable`), and ``None`` when ``f`` raises (any surprise: the
    engine's plain search is used). Never raises."""
    def wrap(analysis: Callable) -> Callable:
        @functools.wraps(analysis)
        def run(compiled):
            key = (compiled.pattern, int(compiled.flags), type(compiled))
            if key in cache:
                return cache[key]
            cache[key] = None
            src, flags = compiled.pattern, int(compiled.flags)
            if _parts_unanalysable(src, flags):
                return None
            try:
                got = analysis(compiled, src, flags)
            except Exception:
                return None
            cache[key] = got
            return got
        return run
    return wrap


_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d*(?:,\d*)?\})[?+]?")


def class_end(src: str, i: int) -> int:
    """The index just past the character class that opens at ``src[i]`` (a ``[``), or -1 when it is not
    closed. A ``]`` first (after an optional ``^``) is a member, and escapes are skipped."""
    n = len(src)
    j = i + 1
    if j < n and src[j] == "^":
        j += 1
    if j < n and src[j] == "]":
        j += 1
    while j < n and src[j] != "]":
        j += 2 if src[j] == "\\" else 1
    return j + 1 if j < n else -1


def depth0_units(src: str):
    """``(start, end, kind, atom end)`` of each depth-0 unit of a pattern's text, in order: an atom with its
    quantifier, if any (from atom end to end). ``kind`` is ``"|"`` (a top-level alternation bar), ``"char"`` (a character set, ``.`` or a
    ``\\s``-like class escape, quantified or not: one character each time), ``"group"`` or ``"other"`` (a
    literal, an anchor, another escape). Raises ``ValueError`` on unbalanced text."""
    i, n = 0, len(src)
    while i < n:
        ch, a = src[i], i
        if ch == "\\":
            kind = "char" if src[i + 1:i + 2] in ("s", "S", "w", "W", "d", "D") else "other"
            i += 2
        elif ch == "[":
            j = class_end(src, i)
            if j < 0:
                raise ValueError("unterminated set")
            kind, i = "char", j
        elif ch == "(":
            depth, j = 1, i + 1
            while depth:
                if j >= n:
                    raise ValueError("unbalanced")
                c = src[j]
                if c == "\\":
                    j += 2
                    continue
                if c == "[":  # skip a set: its parentheses are members
                    j = class_end(src, j)
                    if j < 0:
                        raise ValueError("unterminated set")
                    continue
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                j += 1
            kind, i = "group", j
        elif ch == ")":
            raise ValueError("unbalanced")
        elif ch == "|":
            yield i, i + 1, "|", i + 1
            i += 1
            continue
        else:
            kind, i = ("char" if ch == "." else "other"), i + 1
        q = _QUANTIFIER.match(src, i)
        yield a, (i if q is None else q.end()), kind, i
        if q is not None:
            i = q.end()


def _tail_split(src: str, flags: int) -> Optional[tuple[str, str, str, int, int]]:
    """``(head, gaps, tail, near, far)`` of one branch's text: ``head`` is the depth-0 units before the first
    unit that can span :data:`TAIL_GAP_MIN` characters or more (a gap), ``gaps`` that gap and any gap right
    after it (made greedy: ``{0,160}?`` becomes ``{0,160}``), ``tail`` what follows, and ``tail`` starts
    ``near`` to ``far`` characters after the branch's start (``far``: ``sys.maxsize`` when unbounded).
    ``None`` when there is no such gap or nothing after it. Raises on a pattern it cannot read (the caller
    gives up)."""
    units = list(depth0_units(src))
    if any(u[2] == "|" for u in units):
        raise ValueError("alternation")
    fk = _flags_key(flags)
    k = 0
    while k < len(units) and not _is_gap(src, units[k], fk):
        k += 1
    if k == 0 or k == len(units):
        return None
    head = src[:units[k][0]]
    gaps = []
    while k < len(units) and _is_gap(src, units[k], fk):
        a, b, _kind, e = units[k]
        gaps.append(src[a:b - 1] if b - e > 1 and src[b - 1] == "?" else src[a:b])
        k += 1
    if k == len(units):
        return None
    cut = units[k][0]
    lo, hi = _parse(src[:cut], fk).getwidth()
    return head, "".join(gaps), src[cut:], int(lo), (sys.maxsize if hi >= _MAXWIDTH else int(hi))


_MAXWIDTH = int(getattr(_sre_parse, "MAXREPEAT", 1 << 32)) - 1


_LOOKAROUND = re.compile(r"\(\?<?[=!]")
_GROUP_OPEN = re.compile(r"\((?:\?(?:[aiLmsux]*(?:-[imsx]+)?:|>))?")


def _is_gap(src: str, unit: tuple, fk: int) -> bool:
    """True when a depth-0 unit is a gap: a repetition (of one character, or of a group) that can span
    :data:`TAIL_GAP_MIN` characters or more, or a plain group holding just one such unit."""
    a, b, kind, e = unit
    if kind == "|" or kind == "other":
        return False
    if e == b:  # not quantified
        if kind != "group":
            return False
        m = _GROUP_OPEN.match(src, a)
        if m is None or m.end() == a + 1 and src[a + 1:a + 2] == "?":
            return False
        inner = src[m.end():e - 1]
        units = list(depth0_units(inner))
        return len(units) == 1 and _is_gap(inner, units[0], fk)
    return _parse(src[a:b], fk).getwidth()[1] >= TAIL_GAP_MIN


def _without_lookarounds(src: str, flags: int) -> str:
    """``src`` without its depth-0 groups that consume nothing (look-arounds: a pattern that matches wherever
    ``src`` does)."""
    fk = _flags_key(flags)
    return "".join(src[a:b] for a, b, kind, _e in depth0_units(src)
                   if not (kind == "group" and _parse(src[a:b], fk).getwidth() == (0, 0)))


def _probe_of(tail: str) -> str:
    """``tail`` up to its first depth-0 repetition ``{m,n}`` of one character with ``n`` at least
    :data:`TAIL_GAP_MIN` (``[^\\n]{0,300}``: a long scan, not needed to tell whether the tail can match),
    without its depth-0 look-arounds. Whenever ``tail`` matches at a position, so does this prefix of it (an
    assertion left out only admits more)."""
    out = []
    for a, b, kind, _e in depth0_units(tail):
        if kind == "char":
            m = re.search(r"\{\d*,(\d+)\}[?+]?\Z", tail[a:b])
            if m is not None and int(m.group(1)) >= TAIL_GAP_MIN:
                break
        if kind == "group" and _LOOKAROUND.match(tail, a) and a + 1 < len(tail):
            continue  # an assertion left out only weakens the probe (and a look-behind may scan far back)
        out.append(tail[a:b])
    return "".join(out)


class _TailBranch:
    """One top-level branch ``head gap{m,n} tail`` of a pattern: a match of the branch starting at ``p`` starts
    with one of ``lead`` and has ``tail``'s prefix ``probe`` matching at some ``q`` in ``[p + near, p + far]``."""

    __slots__ = ("lead", "near", "far", "probe", "probe_ahead", "probe_lead", "scan", "overlapped", "reach")

    def __init__(self, lead, near, far, probe, probe_ahead, probe_lead, reach):
        self.lead, self.near, self.far, self.reach = lead, near, far, reach  # reach: head and greedy gaps
        self.probe, self.probe_ahead, self.probe_lead = probe, probe_ahead, probe_lead
        # one scan of the text for the probe is fast only when its keywords are ASCII (issue 8: measured with
        # ``regex``, an IGNORECASE alternation of Cyrillic words scans 1 MB in ~70 ms)
        self.scan = all(s.isascii() for s in probe_lead)
        self.overlapped = not isinstance(probe, re.Pattern)  # ``regex`` reports overlapping matches itself


#: ``(pattern, flags, engine)`` -> tuple of :class:`_TailBranch`, or ``None`` (no tail-first search).
_TAIL: dict = {}


@_per_pattern(_TAIL)
def tail_branches(compiled, src: str, flags: int) -> Optional[tuple]:
    """The :class:`_TailBranch` of every top-level branch of a (materialised) compiled pattern, or ``None``
    when some branch has no leading keywords or no bounded gap before a part that can be probed alone (then
    :func:`_tail_starts` cannot rule starts out), unless that branch has keywords of its own: it is then its
    :class:`Prefilter` (a text without them holds no match of that branch). Cached; never raises (called as ``tail_branches(compiled)``, see :func:`_per_pattern`).

    Exactness: a branch ``H G{m,n} T`` matching at ``p`` has ``H`` matching ``p..p + w`` (``w`` within the
    width of ``H``), the gap ``m..n`` characters, then ``T`` matching at ``q``; the whole pattern ends with
    ``T``, so ``T`` alone matches at ``q`` (same text, so look-behinds and ``\\b`` see the same characters), and
    so does every prefix of it cut at depth 0 (``probe``: ``T`` up to its own first gap). ``H``'s leading
    keywords (:func:`leading_literals`) open the match. Patterns whose parts would mean something else alone
    (back-references, conditionals, whole-pattern inline flags, verbose mode) get ``None``."""
    engine = _engine_of(compiled)
    bars = [u[0] for u in depth0_units(src) if u[2] == "|"]
    out = []
    for a, b in zip([-1] + bars, bars + [len(src)]):
        split = _tail_split(src[a + 1:b], flags)
        head, gaps, tail, near, far = split if split is not None else ("", "", "", 0, 0)
        lead = leading_literals(head, flags) if split is not None else None
        probe = _probe_of(tail) if split is not None else None
        probe_lead = leading_literals(probe, flags) if probe else None
        if not lead or not probe_lead:
            # issue 21: a branch without a gap to probe (HA508's ``add [^\n]{0,20}? Bash(*)``) rules out no start,
            # but none of it can match where its own keywords are absent: it is kept as those keywords
            needs = required_literals(src[a + 1:b], flags) if len(bars) else None
            if needs is None:
                return None  # a probe without keywords would be tried everywhere
            out.append(needs)
            continue
        engine.compile(head, flags)  # both halves stand alone (a bad split raises here)
        out.append(_TailBranch(tuple(sorted(lead)), near, far, engine.compile(probe, flags),
                               engine.compile("(?=" + probe + ")", flags), probe_lead,
                               engine.compile(_without_lookarounds(head, flags) + gaps, flags)))
    if all(type(br) is Prefilter for br in out):
        return None  # no branch to find from its tail
    return tuple(out)


def _deadline(deadline: Optional[float], timeout: Optional[float]) -> Optional[float]:
    """``deadline`` when set, else ``timeout`` seconds from now (``None`` without a timeout)."""
    if deadline is not None or timeout is None:
        return deadline
    return time.monotonic() + timeout


def _last_probe(br: "_TailBranch", text: str, folded: str, kw: dict) -> Optional[int]:
    """Where the branch's probe last matches in ``text`` (``-1``: nowhere), trying its keyword occurrences from
    the end; ``None`` when the last :data:`TAIL_SAMPLE` of them do not match (then the caller finds them all)."""
    pos = {s: folded.rfind(s) for s in br.probe_lead}
    match = br.probe.match
    for _ in range(TAIL_SAMPLE):
        s = max(pos, key=pos.__getitem__)
        q = pos[s]
        if q < 0:
            return -1
        if match(text, q, **kw) is not None:
            return q
        pos[s] = folded.rfind(s, 0, q + len(s) - 1)
    return None


#: Characters :func:`_inner_found` looks back from an inner keyword for the probe's opening character; a longer
#: run of the class between them makes it give up (the probe is then scanned as before).
INNER_RUN_MAX = 256


class _InnerProbe:
    """A tail probe ``x y? ... C* W...``: one opening character ``x``, optional single characters ``y``, a run
    of one character class ``C`` holding neither ``x`` nor a ``y`` equal to it, then one of the keywords ``W``
    (see :func:`inner_probe`)."""

    __slots__ = ("opening", "optional", "run", "words", "_fits")

    def __init__(self, opening: str, optional: tuple, run, words: tuple) -> None:
        self.opening, self.optional, self.run, self.words = opening, optional, run, words
        self._fits: dict = {}  # character -> whether it may stand between the opening and a keyword

    def between(self, ch: str) -> bool:
        """True when ``ch`` may stand between the opening character and a keyword (a ``y`` or a ``C``)."""
        got = self._fits.get(ch)
        if got is None:
            got = self._fits[ch] = any(y.fullmatch(ch) for y in self.optional) or self.run.fullmatch(ch) is not None
        return got


#: ``(pattern, flags, engine)`` -> :class:`_InnerProbe` or ``None``.
_INNER: dict = {}


@_per_pattern(_INNER)
def inner_probe(compiled, src: str, flags: int) -> Optional[_InnerProbe]:
    """The :class:`_InnerProbe` of a (materialised) compiled tail probe written as one literal character ``x``,
    then optional single literal characters (``\\{?``), then one quantified character class ``C`` (``[A-Z_]*``),
    then a part whose every match opens with one of a set of keywords (:func:`leading_literals`); ``None``
    otherwise, or when ``C`` or an optional character matches ``x``. Cached; never raises.

    Exactness (issue 8, the ``$`` of ``curl ... $API_KEY``): a match at ``q`` has ``x`` at ``q``, then only
    optional characters and ``C`` characters up to an occurrence ``w`` of a keyword; none of them is ``x``, so
    ``q`` is the last ``x`` before ``w``. Listing the keywords' occurrences and looking back from each finds
    every such ``q``, which ``match`` then confirms; no scan tries every ``x`` of the text."""
    units = list(depth0_units(src))
    if len(units) < 3 or units[0][2] != "other" or any(u[2] == "|" for u in units):
        return None
    engine = _engine_of(compiled)
    opening = _parse(src[units[0][0]:units[0][1]], flags)
    if len(opening) != 1 or opening[0][0] is not _c.LITERAL:
        return None
    x = chr(opening[0][1])
    if flags & re.IGNORECASE and (x.lower() != x or x.upper() != x or fold(x) != x):
        return None  # the opening is looked for as it is written: a character without case only
    optional: list = []
    k = 1
    while k < len(units) and units[k][2] == "other":
        a, b, _kind, atom_end = units[k]
        if src[atom_end:b] != "?":
            return None
        y = engine.compile(src[a:atom_end], flags)
        if y.fullmatch(x) or len(_parse(src[a:atom_end], flags)) != 1:
            return None
        optional.append(y)
        k += 1
    if k >= len(units) - 1 or units[k][2] != "char":
        return None
    a, b, _kind, atom_end = units[k]
    if not re.fullmatch(r"(?:\*|\{0?,\d*\})[?+]?", src[atom_end:b]):
        return None  # the run must be allowed to be empty and to be of any length up to its bound
    run = engine.compile(src[a:atom_end], flags)
    if run.fullmatch(x):
        return None
    words = leading_literals(src[b:], flags)
    if not words or any(len(fold(w)) != len(w) for w in words):
        return None
    # a keyword opening with another one occurs only where that one does: its occurrences add nothing
    words = {w for w in words if not any(v != w and w.startswith(v) for v in words)}
    return _InnerProbe(x, tuple(optional), run, tuple(sorted(words)))


def _inner_found(inner: _InnerProbe, probe, text: str, index: "LiteralIndex", most: int, kw: dict) -> Optional[list]:
    """Ascending positions where ``probe`` (with :func:`inner_probe` ``inner``) matches in ``text``, found from its
    keywords' occurrences; ``None`` when they are more than ``most`` or a run longer than
    :data:`INNER_RUN_MAX` stands before one (then scan the text for the probe)."""
    occ: list = []
    for s in inner.words:
        occ += index.occurrences(s, most)
        if len(occ) > most:
            return None
    x, between, folded = inner.opening, inner.between, index.folded
    match = probe.match
    candidates = set()
    for w in occ:
        if not w or not (text[w - 1] == x or between(text[w - 1])):
            continue  # the keyword is not preceded by the opening or the run: no match reaches it
        lo = max(0, w - INNER_RUN_MAX)
        q = text.rfind(x, lo, w)
        if q < 0:
            if lo and all(between(c) for c in text[lo:w]):
                return None  # a run longer than the look-back: unknown
            continue
        candidates.add(q)
    return sorted(q for q in candidates if match(text, q, **kw) is not None)


def _inner_from(br: "_TailBranch", text: str, index: "LiteralIndex", kw: dict) -> Optional[list]:
    """:func:`_inner_found` for a tail branch's probe when it has an :func:`inner_probe`, else ``None``."""
    inner = inner_probe(br.probe) if INNER_PROBES else None
    return (_inner_found(inner, br.probe, text, index, len(text) // INNER_OCCURRENCE_CHARS + 16, kw)
            if inner is not None else None)


#: Characters per inner-keyword occurrence below which :func:`_inner_found` gives up for one scan of the probe
#: (each occurrence costs a look at the character before it, a scan of the text about half a microsecond per
#: opening character).
INNER_OCCURRENCE_CHARS = 32
#: False (tests) never finds a tail probe's matches from its inner keywords; the findings are the same either way.
INNER_PROBES = True


def _tail_starts(compiled, text: str, index: "LiteralIndex", deadline: Optional[float]) -> Optional[list]:
    """Ascending candidate starts of ``compiled`` in ``text`` from its :func:`tail_branches`: occurrences of a
    branch's leading keywords with the branch's tail probe matching within reach after them. ``None`` when the
    pattern has no tail branches or the candidates are too many (then one ``finditer`` is cheaper).

    Issue 8: for ``request-call [^\\n]{0,300} environment-dump`` on 1 MB of request calls without a dump, or
    ``verb [^\\n]{0,160}? to http://`` on dense verbs without a URL, the rare tail is found first (one probe per
    tail keyword) and the dense keywords away from it are never tried."""
    if len(text) < TAIL_MIN_CHARS:
        return None
    branches = tail_branches(compiled)
    if branches is None:
        return None
    kw: dict = {}
    clock = time.monotonic if deadline is not None else None
    most = len(text) // TAIL_CANDIDATE_CHARS + 16
    cap = len(text) // TAIL_OCCURRENCE_CHARS + 16
    out: list = []
    for br in branches:
        if type(br) is Prefilter:  # a branch without a tail: it rules starts out only when it cannot match at all
            if index.passes(br):
                return None
            continue
        starts: list = []
        for s in br.lead:
            starts += index.occurrences(s, most)
            if len(starts) > most:
                break
        if not starts:
            continue
        # not worth it when the matcher's gaps stop early at most starts (each start then fails quickly): sampled
        step = max(len(starts) // TAIL_SAMPLE, 1)
        start_sample = sample = starts[::step][:TAIL_SAMPLE]
        reach = br.reach.match
        quick = 0
        for p in sample:
            m = reach(text, p)
            quick += m is not None and m.end() - p < TAIL_MIN_REACH
        if quick * 2 >= len(sample):
            return None
        before = len(out)
        last = _last_probe(br, text, index.folded, kw) if br.far == sys.maxsize else None
        if last == -1:
            continue  # the probe matches nowhere: no start of this branch
        if last is not None and len(starts) > most and last - br.near >= max(starts):
            return None  # unbounded reach and the last probe match after the many starts: nothing ruled out
        probe_occ: Optional[list] = []
        # a probe that opens with ``\b`` and an ASCII word character cannot match just after an ASCII word
        # character: those keyword occurrences are left out (issue 8: ``\b(?:no|without)`` in a run of letters)
        word = (last is None and all(w[:1] in _ASCII_WORD for w in br.probe_lead)
                and starts_at_boundary(br.probe.pattern, int(compiled.flags)))
        for s in (br.probe_lead if last is None else ()):
            probe_occ += index.word_starts(s, text, cap) if word else index.occurrences(s, cap)  # type: ignore[operator]
            if len(probe_occ) > cap:  # type: ignore[arg-type]
                break
        occ = sorted(set(probe_occ))  # type: ignore[arg-type]
        if occ and last is None:
            # too few would be ruled out when most sampled starts (those whose reach the keyword occurrences
            # listed so far cover) have a probe match within reach
            covered = occ[-1] if len(probe_occ) > cap else sys.maxsize  # type: ignore[arg-type]
            sample = [p for p in start_sample if p + br.far <= covered]
            if len(sample) >= TAIL_SAMPLE // 4:
                match = br.probe.match
                kept = 0
                for p in sample:
                    j = bisect_left(occ, p + br.near)
                    for q in occ[j:j + 4]:
                        if q - p > br.far:
                            break
                        if match(text, q) is not None:
                            kept += 1
                            break
                if kept > TAIL_MAX_KEPT * len(sample):
                    return None
        if len(starts) > most and len(probe_occ) > most:  # type: ignore[arg-type]
            # both dense: when the probe matches at many of its keywords, most starts would stay (and be
            # tried one by one), so one ``finditer`` is cheaper; a sample of them tells
            sample = probe_occ[:TAIL_SAMPLE]  # type: ignore[index]
            if sum(br.probe.match(text, q) is not None for q in sample) * 4 > len(sample):
                return None
        if len(probe_occ) > cap and last is None:  # type: ignore[arg-type]
            if not br.scan:
                return None
            probe_occ = None
        if clock is not None:
            remaining = deadline - clock()  # type: ignore[operator]
            if remaining <= 0:
                raise TimeoutError("regex timed out")
            kw = {"timeout": remaining}
        if last is not None:  # unbounded reach: only the last probe match matters
            found = [last]
        elif probe_occ is None and (got := _inner_from(br, text, index, kw)) is not None:
            found = got  # the probe's inner keywords are fewer: every position where it matches, from them
        elif probe_occ is None:  # one scan reports every position where the probe matches
            if not _probe_scan_cheaper(br, compiled, text, deadline):
                return None
            found = []
            scan = (br.probe.finditer(text, overlapped=True, **kw) if br.overlapped
                    else br.probe_ahead.finditer(text, **kw))
            for m in scan:
                found.append(m.start())
                if len(found) > cap:
                    return None
        else:
            match = br.probe.match
            found = [q for q in occ if match(text, q, **kw) is not None]
        if found and br.far == sys.maxsize:
            found = found[-1:]
        if not found:
            continue
        if len(starts) > most:
            starts = [i for s in br.lead for i in index.occurrences(s, len(text))]
        starts.sort()
        # candidate starts p: an occurrence of a leading keyword with a probe match q, p + near <= q <= p + far
        if len(found) > len(starts):  # walk the shorter list, look up the other
            near, far, nf = br.near, br.far, len(found)
            for p in starts:
                j = bisect_left(found, p + near)
                if j < nf and found[j] - p <= far:
                    out.append(p)
        else:
            k, ns = 0, len(starts)
            for q in found:
                j = bisect_left(starts, q - br.far)
                if j > k:
                    k = j
                while k < ns and starts[k] <= q - br.near:
                    out.append(starts[k])
                    k += 1
        if len(out) > most or len(out) - before > TAIL_MAX_KEPT * len(starts):
            return None  # too many, or too few ruled out: one ``finditer`` is cheaper
    out = sorted(set(out))
    return out


#: (pattern, flags) -> whether it opens with its one leading keyword, literally and caseless (see below).
_LITERAL_OPENING: dict = {}


def _literal_opening(compiled, lead: tuple) -> bool:
    """True when pattern ``compiled`` (leading keywords ``lead``, folded) is written to open, after at most a
    ``\\b``, with plain characters that no case folding changes (or, for one leading keyword, that blanks
    must follow): its one leading keyword, or the opening of at least :data:`LITERAL_PREFIX_MIN` characters that
    its leading keywords share (``पिछल(?:े|ी)\\s``). The ``regex`` engine then searches for that literal itself
    and rejects most occurrences at once, faster than :func:`iter_matches` tries them one by one from Python
    when they are dense (a speed choice only: both give ``finditer``'s matches). Cached per pattern text and
    flags."""
    key = (compiled.pattern, compiled.flags)
    got = _LITERAL_OPENING.get(key)
    if got is None:
        src = compiled.pattern
        k = 2 if src.startswith("\\b") else 0
        if len(lead) == 1:
            w = lead[0]
        else:  # the keywords' common opening, written as it is in the pattern
            w = lead[0][:next((j for j in range(len(lead[0])) if any(x[j:j + 1] != lead[0][j] for x in lead)),
                              len(lead[0]))]
            if len(w) < LITERAL_PREFIX_MIN or w != w.lower() or w != w.upper():
                w = ""
        seg = src[k:k + len(w)]
        nxt = src[k + len(w):k + len(w) + 8]
        # caseless keywords (Hangul, CJK, ...), or a keyword followed by required blanks (``\\bdd[ \\t]{1,4}``):
        # the ``regex`` engine rejects an occurrence there at once (issue 8: a pattern whose body scans on,
        # ``\\bcurl\\b[^\\n]*+...``, is cheaper with the keyword checks of iter_matches)
        got = bool(w) and len(seg) == len(w) and fold(seg) == w and not any(
            c in "\\.^$*+?{}[]|()#" or c.isspace() for c in seg) and (
            w == w.lower() == w.upper() == w.casefold() or nxt.startswith(("[ \\t]{", "\\s{", "[ \\t]+", "\\s+")))
        _LITERAL_OPENING[key] = got
    return got


def _every_start(index: "LiteralIndex", text: str, lead: tuple, lo: int, hi: int, boundary: Optional[bool],
                 checks: Optional[list]) -> Optional[list]:
    """Every candidate start of a pattern whose matches start ``lo`` characters before an occurrence of one of
    ``lead`` (one start per occurrence), filtered as :func:`iter_matches` filters them (a ``\\b`` and a word
    character just before, the clause ``checks``); ``None`` when the keywords occur more than once per
    :data:`ANCHOR_OCCURRENCE_CHARS` characters (then one ``finditer`` is cheaper).

    Issue 8: a pattern that opens with an alternation of keywords (``\\b(?:nslookup|dig|host|...)``) makes the
    ``regex`` engine try the alternation at every position of the text (about 15 ns per character, where one
    literal is searched for at C speed); with its keywords once per 64 to 400 characters, one ``match`` per
    occurrence costs less than that scan. The starts are those the loop of :func:`iter_matches` would try, so
    the matches are the same."""
    most = len(text) // ANCHOR_OCCURRENCE_CHARS + 4
    out: list = []
    for s in lead:
        occ = index.word_starts(s, text, most) if boundary else index.occurrences(s, most)
        if len(occ) > most:
            return None  # not listed completely
        for i in occ:
            if checks and not _near(checks, i - hi, i - lo):
                continue
            if not (boundary and i and text[i - 1] in _ASCII_WORD):
                out.append(i - lo)
        if len(out) > most:
            return None
    return out


#: Texts shorter than this (characters) never try :func:`_every_start` (the timed sample would cost them more
#: than it saves; a pre-commit run keeps one ``finditer``).
SAMPLE_MIN_CHARS = 65_536
#: Share of the text (1 in this many characters, at least :data:`SAMPLE_MIN_CHARS` // 8) that
#: :func:`_starts_cheaper` times both ways.
SAMPLE_FRACTION = 32


def _timeout_kw(deadline: Optional[float]) -> dict:
    """The ``timeout`` keyword of a ``regex`` call that must end by ``deadline`` (``time.monotonic`` seconds;
    ``{}`` for none). Raises ``TimeoutError`` when it has passed."""
    if deadline is None:
        return {}
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("regex timed out")
    return {"timeout": remaining}


#: False (tests) never times :func:`_probe_scan_cheaper` and scans with the probe; True always takes the plain
#: ``finditer`` instead; None (the default) times both. The matches are the same either way.
PROBE_SCAN_CHOICE: Optional[bool] = None
#: :func:`_probe_scan_cheaper` takes the plain ``finditer`` only when it is at least this many times cheaper.
PROBE_SCAN_MARGIN = 2.0


def _probe_scan_cheaper(br: "_TailBranch", compiled, text: str, deadline: Optional[float]) -> bool:
    """False when one ``compiled.finditer`` took less than 1 / :data:`PROBE_SCAN_MARGIN` of the time of the scan
    of ``text`` with tail branch ``br``'s probe (as :func:`_tail_starts` runs it), both timed (``time.monotonic``,
    the clock of ``regex``'s timeout) on the opening :data:`SAMPLE_FRACTION`-th of ``text``; True otherwise. A
    speed choice only, like :func:`_starts_cheaper`: :func:`iter_matches` gives the same matches either way.

    Issue 21: a probe whose opening keyword is dense costs more than the pattern itself (HA501's
    ``\\b(?:curl|wget)\\b[^\\n&|;]{0,400}+(?:&&|;)...``, probe ``(?:&&|;)...``, on 1 MB of ``-- .. ,, ;;``
    filler: 147 ms per MB through the probe, 12 by ``finditer``)."""
    if PROBE_SCAN_CHOICE is not None:
        return not PROBE_SCAN_CHOICE
    w = max(len(text) // SAMPLE_FRACTION, SAMPLE_MIN_CHARS // 8)
    kw = _timeout_kw(deadline)
    clock = time.monotonic  # the clock of ``regex``'s timeout
    t0 = clock()
    for _m in (br.probe.finditer(text, 0, w, overlapped=True, **kw) if br.overlapped
               else br.probe_ahead.finditer(text, 0, w, **kw)):
        pass
    probe_s = clock() - t0
    if isinstance(compiled, re.Pattern):  # no timeout: timed whole
        t1 = clock()
        for _m in compiled.finditer(text, 0, w):
            pass
        return probe_s < PROBE_SCAN_MARGIN * (clock() - t1)
    # the pattern's own scan is stopped once it has taken half as long as the probe's (an expensive pattern is the
    # one a probe serves: timing it whole would cost what the probe saves); only a pattern at least twice as
    # cheap as the probe is chosen, so a hiccup of a busy machine does not turn the choice against the probe
    budget = max(probe_s / PROBE_SCAN_MARGIN, 1e-6)
    if deadline is not None:
        budget = min(budget, deadline - clock())
        if budget <= 0:
            raise TimeoutError("regex timed out")
    try:
        for _m in compiled.finditer(text, 0, w, timeout=budget):
            pass
    except TimeoutError:
        if deadline is not None and clock() >= deadline:
            raise
        return True
    return False


def _starts_cheaper(compiled, text: str, starts: list, deadline: Optional[float]) -> bool:
    """True when trying ``starts`` (ascending) one ``match`` each took less CPU time than one ``finditer`` over
    the opening :data:`SAMPLE_FRACTION`-th of ``text``, timed on that opening. A speed choice only: both give the
    same matches. Issue 8: the cost of a ``match`` call grows with the pattern (the ``regex`` engine sets up
    its state per call), the cost of a scan with the text, and neither can be read from the pattern's text."""
    w = max(len(text) // SAMPLE_FRACTION, SAMPLE_MIN_CHARS // 8)
    kw = _timeout_kw(deadline)
    clock = time.process_time
    t0 = clock()
    for _m in compiled.finditer(text, 0, w, **kw):
        pass
    t1 = clock()
    match, end = compiled.match, 0
    for p in starts[:bisect_left(starts, w)]:
        if p >= end:
            m = match(text, p, w, **kw)
            if m is not None:
                end = m.end()
    return clock() - t1 < t1 - t0


#: Texts shorter than this (characters) never check the character after a leading keyword (see
#: :func:`follow_checks`: the checks are built with the pattern's engine, which a small file need not import).
FOLLOW_MIN_CHARS = 32_768
#: Keyword occurrences sampled by :func:`_follow_starts` before it lists them all; a pattern whose leading
#: keywords occur at most this many times in a text does not check the character after them there.
FOLLOW_SAMPLE = 64
#: False (tests) never checks the character after a leading keyword; the findings are the same either way.
FOLLOW_CHECKS = True
#: ``(pattern, flags, engine)`` -> the :func:`follow_checks` of it.
_FOLLOW: dict = {}
#: ``(set source, flags, engine)`` -> its compiled one-character set, or ``None`` when a letter is in it.
_FOLLOW_SETS: dict = {}
#: A check that lets one of these characters follow a keyword is not used (see :func:`follow_checks`).
_FOLLOW_PROBE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _first_chars(items, out: list) -> Optional[bool]:
    """Adds to ``out`` the one-character sets (source, :func:`_class_source`) that the first character a match
    of node sequence ``items`` consumes belongs to; True when the sequence can match without consuming any
    (then what follows it counts too), ``None`` when unknown (any character, or a construct not analysed).
    Zero-width assertions are passed over (leaving one out only admits more characters)."""
    for op, av in items:
        if op is _c.AT or op is _c.ASSERT or op is _c.ASSERT_NOT:
            continue
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.IN):
            src = _class_source(op, av)
            if src is None:
                return None
            out.append(src)
            return False
        if op is _c.SUBPATTERN:
            if av[1] or av[2]:  # scoped flags ``(?-i:...)``: a set taken out of them would mean something else
                return None
            sub = _first_chars(av[3], out)
        elif op is getattr(_c, "ATOMIC_GROUP", None):
            sub = _first_chars(av, out)
        elif op is _c.BRANCH:
            sub = False
            for b in av[1]:
                got = _first_chars(b, out)
                if got is None:
                    return None
                sub = sub or got
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) or op is getattr(_c, "POSSESSIVE_REPEAT", None):
            lo, hi, body = av
            if hi == 0:
                continue
            sub = _first_chars(body, out)
            if sub is not None and lo == 0:
                sub = True
        else:
            return None
        if sub is None:
            return None
        if not sub:
            return False
    return True


class _Follow:
    """The characters that may follow one leading keyword in a match (see :func:`follow_checks`)."""

    __slots__ = ("ok", "_scan", "overlapped", "bounded", "_fits")

    def __init__(self, ok, scan: tuple, overlapped: bool, bounded: bool = False) -> None:
        self.bounded = bounded  # ``scan`` opens with ``\b`` and the keyword with an ASCII word character
        self.ok = ok  # pattern: one character that may follow the keyword
        self._scan = scan  # (engine, source, flags) of :attr:`scan`, compiled on first use
        self.overlapped = overlapped  # the keyword can overlap itself (``regex`` reports such scans itself)
        self._fits: dict = {}  # character -> whether ``ok`` matches it

    @property
    def scan(self):
        """Pattern: the pattern's opening ``\b``, the keyword as written, a character that may follow ahead."""
        if isinstance(self._scan, tuple):
            engine, src, flags = self._scan
            self._scan = engine.compile(src, flags)
        return self._scan

    def fits(self, text: str, j: int) -> bool:
        """True when ``text[j]`` (``j`` just after an occurrence of the keyword) may follow it in a match."""
        if j >= len(text):
            return False
        ch = text[j]
        got = self._fits.get(ch)
        if got is None:
            got = self._fits[ch] = self.ok.fullmatch(ch) is not None
        return got


@_per_pattern(_FOLLOW)
def follow_checks(compiled, src: str, flags: int) -> Optional[dict]:
    """``{leading keyword (folded): _Follow}`` for a (materialised) compiled pattern that opens with (after
    ``\\b``-like assertions) a set of literal words, one per top-level alternative (``\\b(?:dig|host)\\s+...``),
    after each of which a match must consume a character of a known set; ``None`` otherwise, or when those
    words are not exactly the pattern's leading keywords (:func:`analyse`), or when an ASCII letter may
    follow one of them (such a check rules out too little on keyword-dense text to pay for itself, and would
    take the place of the engine's other ways to rule starts out). Cached; never raises (called as ``follow_checks(compiled)``, see :func:`_per_pattern`).

    Exactness: a match starting at ``p`` with alternative ``w`` has ``w`` at ``p`` (one character per character:
    no full case folding, and ``w`` keeps its length when folded) and then a character of the set of the
    first characters of the rest of the alternative and the pattern (:func:`_first_chars`), in the same
    engine and flags; so a keyword occurrence followed by any other character (or by the end of the text)
    starts no match. ``scan`` finds every such occurrence followed by a character of the set.
    Issue 8: on 1 MB of ``digdeno...`` each occurrence of ``dig`` cost a ``match`` call (about 1 us with the
    timeout), where one look at the next character rules it out."""
    _pf, lead, _width, reach = analyse(src, flags)
    if not lead or reach != (0, 0):
        return None
    parsed = _parse(src, flags)
    if parsed.state.flags & re.VERBOSE or (parsed.state.flags ^ flags) & re.IGNORECASE:
        return None  # global inline flags
    items = list(parsed)
    k = 0
    while k < len(items) and items[k][0] is _c.AT:
        k += 1
    opening = items[:k]
    if k == len(items):
        return None
    if items[k][0] is _c.BRANCH:  # one alternative per keyword
        alts, rest = [list(a) for a in items[k][1][1]], items[k + 1:]
    else:  # one literal word opens the pattern
        alts, rest = [items[k:]], []
    sets: dict = {}  # folded keyword -> (keyword as written, [set sources])
    for alt in alts:
        n = 0
        while n < len(alt) and alt[n][0] is _c.LITERAL:
            n += 1
        word = "".join(chr(c) for _op, c in alt[:n])
        w = fold(word)
        out: list = []
        if not word or len(w) != len(word) or _first_chars(alt[n:] + rest, out) is not False:
            return None
        entry = sets.setdefault(w, (word, []))
        entry[1].extend(out)
    if set(sets) != set(lead):
        return None
    engine = _engine_of(compiled)
    got: dict = {}
    head = "".join("\\b" if av is _c.AT_BOUNDARY else "" for _op, av in opening)
    if len(head) != 2 * len(opening):
        return None  # only ``\\b`` openings are carried into the scan
    for w, (word, srcs) in sets.items():
        one = "(?:" + "|".join(srcs) + ")"
        overlapped = any(w[:j] == w[-j:] for j in range(1, len(w)))
        if overlapped and engine is re:
            return None
        set_key = (one, flags, engine)
        ok = _FOLLOW_SETS.get(set_key, False)
        if ok is False:  # one compiled set per source (issue 8: most keywords of a rule share theirs)
            ok = engine.compile(one, flags)
            _FOLLOW_SETS[set_key] = ok = None if any(ok.fullmatch(c) for c in _FOLLOW_PROBE) else ok
        if ok is None:
            return None  # letters may follow: on keyword-dense text such a check rules out too little
        got[w] = _Follow(ok, (engine, head + "(?:" + engine.escape(word) + ")(?=" + one + ")", flags),
                         overlapped, bool(head) and w[:1] in _ASCII_WORD)
    return got


def _follow_starts(follow: dict, index: "LiteralIndex", text: str, lead: tuple, boundary: Optional[bool],
                   most: int, deadline: Optional[float]) -> Optional[list]:
    """Ascending distinct starts of a pattern with :func:`follow_checks` ``follow``: the occurrences of its
    present leading keywords ``lead`` followed by a character that may follow them (and, with ``boundary``,
    not just after an ASCII word character, as :func:`iter_matches` filters them); ``None`` past ``most``.
    A keyword occurring more than once per :data:`LITERAL_SCAN_CHARS` characters and not listed completely yet
    is found with its ``scan`` (one search at C speed, reporting only the occurrences followed by such a
    character); the others are listed and checked one by one. ``deadline`` (``time.monotonic``, or ``None``) bounds the scans."""
    few = len(text) // LITERAL_SCAN_CHARS
    # the first occurrences first: when most of them may be followed as they are, the starts would be too many
    # and listing them all a waste (a speed choice only)
    seen = passed = 0
    for s in lead:
        fits, k = follow[s].fits, len(s)
        for i in index.occurrences(s, FOLLOW_SAMPLE)[:FOLLOW_SAMPLE]:
            seen += 1
            passed += fits(text, i + k)
    if seen >= FOLLOW_SAMPLE and passed * 2 > seen:
        return None
    out: list = []
    for s in lead:
        f = follow[s]
        k = len(s)
        listed = index._occ.get(s)
        if boundary and s in index._starts:
            occ = index._starts[s]  # every occurrence not just after a word character, listed already
        elif listed is not None and listed[1]:
            occ = listed[0]  # every occurrence listed already (by another step or pattern): checked one by one
        elif len(index.occurrences(s, few)) > few:
            kw = _timeout_kw(deadline)
            found = (f.scan.finditer(text, overlapped=True, **kw) if f.overlapped
                     else f.scan.finditer(text, **kw))
            if f.bounded or not boundary:  # the scan's own ``\b`` rules out what the filter below would
                out += map(_MATCH_START_ANY, islice(found, most + 1 - len(out)))
                if len(out) > most:
                    return None
                continue
            for m in found:
                i = m.start()
                if not (boundary and i and text[i - 1] in _ASCII_WORD):
                    out.append(i)
                    if len(out) > most:
                        return None
            continue
        else:
            occ = index.occurrences(s, few)  # all of them (at most ``few``)
        fits = f.fits
        for i in occ:
            if not (boundary and i and text[i - 1] in _ASCII_WORD) and fits(text, i + k):
                out.append(i)
                if len(out) > most:
                    return None
    return sorted(set(out))


def iter_matches(compiled, text: str, index: Optional[LiteralIndex] = None, timeout: Optional[float] = None):
    """``compiled.finditer(text)``, skipping texts without the pattern's keywords and trying only where a
    match can start: at a leading keyword, or within the bounded distance before an anchor keyword
    (:func:`bounded_anchor`). Same matches, in the same order (issue 8).

    ``index`` is the :class:`LiteralIndex` of ``text`` (made when ``None``). ``timeout`` (seconds, ``regex``
    patterns only) bounds the whole iteration as it bounds one ``finditer``; ``TimeoutError`` as ``regex`` raises.
    Exactness: a match found by ``finditer`` is non-empty and starts with a leading keyword, so it starts at an
    occurrence of one in the folded text (same length as ``text``, so positions agree); ``finditer`` continues
    from the end of the previous match, and ``match(text, pos)`` sees the text before ``pos`` for look-behinds.
    """
    kw = {"timeout": timeout} if timeout is not None else {}
    if index is None:
        index = LiteralIndex(text)
    pf, lead, density, (lo, hi) = analyse(compiled.pattern, compiled.flags)
    if not index.passes(pf):
        return

    compiled = materialize(compiled)
    folded = index.folded
    if lead is None or len(folded) != len(text):
        yield from compiled.finditer(text, **kw)
        return
    all_lead = lead
    lead = index.present_of(lead)  # a keyword absent from the text has no occurrence to try
    if not lead:
        return  # every match starts at (or within reach before) an occurrence of a leading keyword
    if (lo == hi == 0 and _literal_opening(compiled, all_lead)
            and _many_occurrences(index, text, lead, False, len(text) // LITERAL_SCAN_CHARS)):
        yield from compiled.finditer(text, **kw)  # the same matches (issue 8: see LITERAL_SCAN_CHARS)
        return
    limit = len(text) // density + 4
    # keyword occurrences, each costing some work even when the checks below rule it out: past this many,
    # one ``finditer`` is cheaper
    occurrences_left = len(text) // ANCHOR_OCCURRENCE_CHARS + 4
    span = hi - lo + 1  # candidate starts per keyword occurrence
    # None: not decided yet. True: a match starts with \b and a keyword whose first character is a word character
    # (every character that folds to an ASCII word character is one), so a word character just before an
    # occurrence rules it out. Decided (the pattern parsed once) only when occurrences are many.
    boundary: Optional[bool] = None if span == 1 and lo == 0 and all(w[:1] in _ASCII_WORD for w in all_lead) else False
    nar = narrowing(compiled)
    window_runs = span > 1 and nar.run is not None
    checks: Optional[list] = None if nar.width is not None else []
    window_boundary = span > 1 and not window_runs and starts_at_boundary(compiled.pattern, compiled.flags)
    positions: list[int] = []
    dense = None
    deadline: Optional[float] = None
    if boundary is None:
        # decided now when the keywords occur often (the pattern is parsed once): the occurrences just after a
        # word character are then dropped in one cached step, shared by every such pattern (issue 8)
        seen = 0
        for s in lead:
            seen += len(index.occurrences(s, BOUNDARY_MIN_POSITIONS))
            if seen > BOUNDARY_MIN_POSITIONS:
                boundary = starts_at_boundary(compiled.pattern, compiled.flags)
                break
    follow = None
    if FOLLOW_CHECKS and span == 1 and lo == 0 and len(text) >= FOLLOW_MIN_CHARS:
        # only for keywords met more than a few times: reading the checks from the pattern costs about 0.5 ms
        seen = 0
        for s in lead:
            seen += len(index.occurrences(s, FOLLOW_SAMPLE))
            if seen > FOLLOW_SAMPLE:
                follow = follow_checks(compiled)
                break
    if _many_occurrences(index, text, lead, boundary, occurrences_left):
        # the loop below would give up on them: skip it (issue 8), or take the look-behind's starts instead
        dense = _behind_starts(nar, text, occurrences_left) if window_runs else None
        if dense is None:  # or the starts within reach of the pattern's rarer tail
            if timeout is not None:
                deadline = time.monotonic() + timeout
            dense = _tail_starts(compiled, text, index, deadline)
        if dense is None and follow is not None:  # or the occurrences followed by a character that may follow
            deadline = _deadline(deadline, timeout)
            dense = _follow_starts(follow, index, text, lead, boundary, limit, deadline)
        if dense is None:
            yield from compiled.finditer(text, **kw)
            return
        positions = dense  # ascending; the keyword occurrences are not examined
    give_up = exhausted = False
    ruled_out = 0  # occurrences that the character after them ruled out (follow checks)
    for s in (lead if dense is None else ()):
        fits = follow[s].fits if follow is not None else None
        k = len(s)
        # cached per index: shared by every pattern with this keyword (issue 8)
        for i in (index.word_starts(s, text, occurrences_left) if boundary
                  else index.occurrences(s, occurrences_left)):
            occurrences_left -= 1
            if occurrences_left < 0:
                give_up = exhausted = True
                break
            if checks is None:
                checks = _clause_checks(nar, index, all_lead)
            if checks and not _near(checks, i - hi, i - lo):
                continue
            if span == 1:
                if not (boundary and i and text[i - 1] in _ASCII_WORD):
                    if fits is None or fits(text, i + k):
                        positions.append(i - lo)
                    else:  # counted as a start all the same: the choice to give up on them stays as it was
                        ruled_out += 1
            elif window_runs:
                positions.extend(_window_starts(nar, text, i, lo, hi))  # type: ignore[arg-type]
            elif window_boundary:
                # every match starts at a word boundary: skip the window positions where two ASCII characters of
                # the same kind (both word or both not) meet, which cannot be one
                positions.extend(p for p in range(max(i - hi, 0), max(i - lo + 1, 0)) if _may_be_boundary(text, p))
            else:
                positions.extend(range(max(i - hi, 0), max(i - lo + 1, 0)))
            if boundary is None and len(positions) > BOUNDARY_MIN_POSITIONS:
                boundary = starts_at_boundary(compiled.pattern, compiled.flags)
                if boundary:
                    positions = [p for p in positions if p == 0 or text[p - 1] not in _ASCII_WORD]
            if len(positions) + ruled_out > limit:
                give_up = True
                break
        if give_up:
            break
    if give_up:  # too many starts to try one by one: those within reach of the rarer tail, or a plain search
        deadline = _deadline(deadline, timeout)
        dense = _tail_starts(compiled, text, index, deadline)
        if dense is None and follow is not None:
            dense = _follow_starts(follow, index, text, lead, boundary, limit, deadline)
        if dense is None and not exhausted and span == 1 and len(all_lead) > 1 and len(text) >= SAMPLE_MIN_CHARS:
            dense = _every_start(index, text, lead, lo, hi, boundary, checks)
            if dense is not None and not _starts_cheaper(compiled, text, dense, deadline):
                dense = None
        if dense is None:
            yield from compiled.finditer(text, **kw)
            return
        positions = dense
    if not positions:
        return
    if span > 1:
        positions = sorted(set(positions))
    else:
        positions.sort()
    if timeout is not None:
        clock = time.monotonic
        if deadline is None:
            deadline = clock() + timeout
    match = compiled.match
    positional = not isinstance(compiled, re.Pattern)  # ``regex``: match(string, pos, endpos, concurrent, partial, timeout)
    end = 0
    for p in positions:
        if p < end:
            continue
        if deadline is not None:
            remaining = deadline - clock()
            if remaining <= 0:
                raise TimeoutError("regex timed out")
            # positional: a keyword argument costs ``regex`` about a third of a cheap ``match`` (issue 8)
            m = match(text, p, None, None, False, remaining) if positional else match(text, p, timeout=remaining)
        else:
            m = match(text, p)
        if m is not None:
            yield m
            end = m.end()
