"""Hermes' threat scanner, reproduced: ``scan_for_threats`` for a version profile.

Mirrors ``tools/threat_patterns.py`` (hermes-agent 0.19.0; newest public
source for ``latest``):

1. empty content gives no findings;
2. only ``content[:max_scan_chars]`` (65,536) is scanned;
3. invisible characters are checked on that raw window and reported as
   ``invisible_unicode_U+XXXX``; Hermes lists them in ``set`` order, which
   changes between runs, so they are listed here by code point (compare them
   as a set);
4. the window is NFKC-normalised and every pattern of the scope is searched
   with Python's ``re`` and ``re.IGNORECASE``, in catalog order; each id at
   most once.

Scopes are cumulative: ``all`` patterns are in every scope, ``context``
patterns in ``context`` and ``strict``, ``strict`` ones only in ``strict``.

Speed (issue 8). The result is the same as running every pattern, which
:meth:`ThreatScanner.scan_reference` still does (the equivalence tests compare
the two). The fast path differs only in what it skips:

* the invisible-character check is one compiled character-set search; the set
  of characters present is computed only when one is there;
* an ASCII window is already in NFKC, so ``unicodedata.normalize`` is skipped;
* every pattern has a literal-keyword prefilter derived from its own text
  (:mod:`hermes_audit.patterns.prefilter`), checked on the folded NFKC text; the
  keywords of all patterns of a scope form one table, each keyword looked up
  at most once per text, in the text's distinct whitespace-separated tokens
  (a keyword without whitespace can only occur inside one token), or, with
  the optional accelerator, from one Aho-Corasick pass over the text (shared
  with the audit rules in a full scan); a pattern runs only when all its
  keyword clauses are present;
* only the patterns that match are located (mapped back through NFKC);
* a few patterns whose plain search is slow on dense keywords are first decided by an exactly
  equivalent set of cheaper patterns (:func:`boolean_split`); Hermes' own pattern then runs only
  when the text matches, to locate the match.

Deadline (issue 18). Hermes' patterns backtrack for hours on some texts (``translate\\s+[^\\n]{0,512}
\\s+into\\s+[^\\n]{0,512}...`` on a 1.8 KB line of spaces); Hermes' session then hangs at load. Each
pattern's search of one text runs under :func:`hermes_audit.patterns.deadline.call_with_deadline`
(:func:`~hermes_audit.patterns.deadline.hermes_deadline` seconds, the unchanged ``re`` search interrupted
by a timer signal). A search that passes it counts as no match, and is recorded in
:attr:`ThreatScanner.stalls` (one :class:`Stall` per pattern and text: a second scan of the same text
skips the pattern at once); the pipeline turns each into a finding and an error (run incomplete, exit 3).
Every search that finishes gives exactly Hermes' answer.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from dataclasses import dataclass
from typing import Optional

from hermes_audit.patterns.catalog import SCOPES, ParityCatalog, Rule, materialize
from hermes_audit.patterns.deadline import PatternDeadline, call_with_deadline, hermes_deadline
from hermes_audit.patterns.normalize import nfkc
from hermes_audit.patterns.prefilter import DIRECT_SEARCH_CHARS, Prefilter, analyse, fold
from hermes_audit.patterns.regex_code import known_tail
from hermes_audit.patterns.tails import tail_pattern
from hermes_audit.patterns import keywords
from hermes_audit.patterns.prefilter import shared_keyword_search

#: Above this many occurrences of a pattern's leading strings, one ``search`` beats trying each.
_MAX_ANCHORS = 64
#: Fewer candidate starts than this are tried directly: the tail check (:func:`tail_pattern`) searches the
#: rest of the window, which pays off only when many starts would each scan a long gap (issue 8).
_TAIL_MIN_ANCHORS = 48
_TAILS: dict = {}

#: Boolean splits of Hermes patterns (issue 8): ``(Hermes' pattern verbatim, flags) -> parts``, where
#: ``re.search(pattern, text, flags)`` finds a match iff one of the parts (compiled with ``re`` and the same
#: flags) does. A part opens with the ``\s`` that must follow the opening keyword, with the keyword checked
#: by a fixed-width look-behind: ``re`` then skips to whitespace (no alternation tried at every position),
#: which on 1 MB of keywords without spaces costs a few ms instead of 46 to 61. ``\s+`` is that ``\s``
#: then ``\s*``; an alternative with a variable width (``add\s+to``) keeps its own part. The split is
#: keyed by the exact pattern text, so a changed catalog pattern is searched as written.
#: tests/test_performance_equivalence.py checks every part against ``re.search`` with the original.
_HERMES_SPLIT_SOURCES: dict[str, tuple[str, ...]] = {
    # c2_explicit (tools/threat_patterns.py, hermes-agent 0.19.0 and latest)
    r"\bc2\s+(?:server|channel|infrastructure|beacon)\b": (
        r"\s(?<=\bc2\s)\s*(?:server|channel|infrastructure|beacon)\b",
    ),
    # context_exfil
    r"(include|output|print|share)\s+(?:\w+\s+){0,8}(conversation|chat\s+history|previous\s+messages|full\s+context"
    r"|entire\s+context)": (
        r"\s(?:(?<=include\s)|(?<=output\s)|(?<=print\s)|(?<=share\s))\s*(?:\w+\s+){0,8}"
        r"(?:conversation|chat\s+history|previous\s+messages|full\s+context|entire\s+context)",
    ),
    # agent_config_mod
    r"(update|modify|edit|write|change|append|add\s+to)\s+[^\n]{0,2048}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules"
    r"|\.clinerules)": (
        r"\s(?:(?<=update\s)|(?<=modify\s)|(?<=change\s)|(?<=append\s)|(?<=write\s)|(?<=edit\s))\s*[^\n]{0,2048}"
        r"(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)",
        r"add\s+to\s+[^\n]{0,2048}(?:AGENTS\.md|CLAUDE\.md|\.cursorrules|\.clinerules)",
    ),
    # exfil_curl / exfil_wget, hermes-agent 0.19.0 and latest
    r"curl\s+[^\n]{0,2048}\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)": (
        r"\s(?<=curl\s)\s*[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)",
    ),
    r"curl\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b": (
        r"\s(?<=curl\s)\s*[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b",
    ),
    r"wget\s+[^\n]{0,2048}\$\{?\w*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)": (
        r"\s(?<=wget\s)\s*[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)",
    ),
    r"wget\s+[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b": (
        r"\s(?<=wget\s)\s*[^\n]{0,2048}\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)S?\b",
    ),
}
_SPLITS: dict = {}


def boolean_split(pat):
    """The compiled parts of :data:`_HERMES_SPLIT_SOURCES` for a compiled ``re`` pattern, or ``None`` (cached)."""
    key = (type(pat), pat.pattern, pat.flags)
    try:
        return _SPLITS[key]
    except KeyError:
        src = _HERMES_SPLIT_SOURCES.get(pat.pattern) if isinstance(pat, re.Pattern) else None
        got = _SPLITS[key] = tuple(re.compile(p, pat.flags) for p in src) if src else None
        return got


def _tail_for(pat):
    """Cached :func:`tail_pattern` of a compiled pattern."""
    key = (type(pat), pat.pattern, pat.flags)
    try:
        return _TAILS[key]
    except KeyError:
        usable = isinstance(pat, re.Pattern) and isinstance(pat.pattern, str)  # the tail is compiled with ``re``
        known, t = known_tail(pat.pattern, pat.flags) if usable else (True, None)  # kept in the catalog cache
        if not known:
            t = tail_pattern(pat.pattern, pat.flags)
        _TAILS[key] = t
        return t


#: From this many characters on, keyword lookups search the distinct tokens instead of the text, unless the
#: optional keyword search (hermes-audit[fast]) answers from one pass over the text itself.
_DEDUP_MIN_CHARS = 4_096
#: That one pass gives up, and the distinct tokens are searched, past one keyword occurrence per this many
#: characters: each occurrence costs about as much as twenty characters of the pass (issue 8).
_MAX_OCCURRENCE_DENSITY = 24

_IN_SCOPE = {
    "all": ("all",),
    "context": ("all", "context"),
    "strict": ("all", "context", "strict"),
}


@dataclass(frozen=True)
class ParityHit:
    """One Hermes pattern id that matches, with where it first matches.

    ``start``/``end`` are offsets in the scanned content (not in the NFKC text).
    ``rule`` is the parity rule; ``codepoint`` is set for invisible characters.
    """

    pattern_id: str
    rule: Rule
    start: int
    end: int
    codepoint: Optional[str] = None


@dataclass(frozen=True)
class Stall:
    """A Hermes pattern whose search of one text passed the deadline (issue 18).

    ``pattern_id`` and ``rule`` name the pattern; ``seconds`` is the deadline it passed; ``chars`` the
    length of the text searched (Hermes' scan window after NFKC); ``lead`` the first keyword a match
    would start with (folded), when the pattern has one, else ``""``. Hermes' own search of that text
    takes at least ``seconds`` and possibly hours: the session that loads it hangs.
    """

    pattern_id: str
    rule: Rule
    seconds: float
    chars: int
    lead: str = ""


class ThreatScanner:
    """``scan_for_threats`` of one Hermes version profile."""

    def __init__(self, parity: ParityCatalog, version: str) -> None:
        if version not in parity.versions:
            raise ValueError(f"unknown Hermes version profile {version!r}")
        self.version = version
        self.parity = parity
        cfg = parity.versions[version]
        #: characters of the content scanned (no window before hermes-agent 0.18.0: the whole text)
        self.max_scan_chars = cfg.max_scan_chars if cfg.max_scan_chars is not None else sys.maxsize
        #: whether the window is NFKC-normalised before the patterns run (hermes-agent 0.18.0 and later)
        self.nfkc = cfg.nfkc
        self.invisible = cfg.invisible_chars
        self._no_ascii_invisible = not any(c.isascii() for c in self.invisible)
        self._invisible_re = re.compile("[" + "".join(re.escape(c) for c in sorted(self.invisible)) + "]")
        self._by_scope = {
            scope: [(r, r.version_compiled[version]) for r in parity.rules if r.scope in _IN_SCOPE[scope]]
            for scope in SCOPES
        }
        prefilters: dict[str, Optional[Prefilter]] = {}
        leads: dict[str, Optional[tuple[str, ...]]] = {}
        for r in parity.rules:
            pf, lead, _density, window = analyse(r.pattern_for(version), re.IGNORECASE)
            prefilters[r.code] = pf
            leads[r.code] = lead if window == (0, 0) else None  # only keywords a match starts with
        #: prefilter literals that contain whitespace (searched in the whole folded text)
        self._spaced = frozenset(s for pf in prefilters.values() if pf for s in pf.literals
                                 if any(c.isspace() for c in s))
        #: the other prefilter literals, for the optional one-pass keyword search (built on first use)
        self._unspaced = frozenset(s for pf in prefilters.values() if pf for s in pf.literals) - self._spaced
        self._keyword_search = None
        #: issue 8: True when the audit rules will also search the same texts for their keywords (a full scan,
        #: set by :func:`hermes_audit.audits.scan.run_scan`): the keywords are then looked up with the audit's shared
        #: keyword search (:func:`hermes_audit.patterns.prefilter.shared_keyword_search`), which keeps its answer
        #: for the audit's raw view of the same text, instead of a pass of this scanner's own. Speed only.
        self.share_keywords = False
        self._shared: tuple = (None, False)  # (shared keyword search, whether it holds all of this scanner's keys)
        #: issue 18: (rule code, searched text) -> :class:`Stall`, in the order they happened (never cleared;
        #: callers note ``len(stalls)`` before a scan and read what was added)
        self.stalls: dict[tuple[str, str], Stall] = {}
        #: per scope: (rule, compiled pattern, prefilter or None, leading strings or None), in Hermes' order
        self._plan = {
            scope: [(r, pat, prefilters[r.code], leads[r.code]) for r, pat in entries]
            for scope, entries in self._by_scope.items()
        }

    def prefilter(self, rule: Rule) -> Optional[Prefilter]:
        """The keyword prefilter of a parity rule for this version (``None``: the pattern always runs)."""
        return analyse(rule.pattern_for(self.version), re.IGNORECASE)[0]

    def _patterns(self, scope: str):
        try:
            return self._by_scope[scope]
        except KeyError:
            raise ValueError(f"scan_for_threats: unknown scope {scope!r}") from None

    def _search(self):
        """The optional C-level keyword search over the unspaced prefilter literals
        (:mod:`hermes_audit.patterns.keywords`), or ``None`` when it is not installed or switched off."""
        if not keywords.available():
            return None
        if self._keyword_search is None:
            self._keyword_search = keywords.KeywordSearch(self._unspaced)
        return self._keyword_search

    def _candidates(self, normalised: str, scope: str, folded: Optional[str] = None, share: bool = False):
        """``(rule, pattern, leading strings)`` whose prefilter passes on ``normalised``, in Hermes' order.
        ``share``: ask the audit's shared keyword search (see :attr:`share_keywords`)."""
        try:
            plan = self._plan[scope]
        except KeyError:
            raise ValueError(f"scan_for_threats: unknown scope {scope!r}") from None
        if folded is None:
            folded = fold(normalised)
        spaced = self._spaced
        present: dict[str, bool] = {}
        hay = folded
        share = share and self.share_keywords and len(folded) > DIRECT_SEARCH_CHARS  # (shorter: searched directly)
        search = self._search() if len(folded) >= _DEDUP_MIN_CHARS or share else None
        found = None
        if search is not None and share:
            found = self._shared_present(folded, search)
        if search is not None and found is None and len(folded) >= _DEDUP_MIN_CHARS:
            # issue 8: one Aho-Corasick pass over the text itself answers every literal the automaton holds
            # (hermes-audit[fast]); it costs per character and per keyword occurrence, less than splitting
            # the text into its distinct tokens unless the keywords are dense (then None, and see below)
            found = search.present_bounded(folded, len(folded) // _MAX_OCCURRENCE_DENSITY)
        if found is None and len(folded) >= _DEDUP_MIN_CHARS:
            # A literal without whitespace occurs in the text iff it occurs in one of its distinct
            # whitespace-separated tokens: search those (joined by "\n"), usually far shorter.
            hay = "\n".join(set(folded.split()))
            if search is not None and len(hay) >= _DEDUP_MIN_CHARS:
                found = search.present(hay, tokens=True)  # hay: the distinct tokens already
        if found is not None:
            present = {s: s in found for s in search.keys}  # type: ignore[union-attr]
        out = []
        for rule, pat, pf, lead in plan:
            if pf is not None:
                ok = True
                for clause in pf.clauses:
                    for s in clause:
                        hit = present.get(s)
                        if hit is None:
                            hit = present[s] = s in (folded if s in spaced else hay)
                        if hit:
                            break
                    else:
                        ok = False
                        break
                if not ok:
                    continue
            out.append((rule, pat, lead))
        return out

    def _shared_present(self, folded: str, own) -> Optional[set]:
        """The members of ``own.keys`` in ``folded`` from the audit's shared keyword search, or ``None`` when
        that search is off or does not hold all of them (see :attr:`share_keywords`)."""
        shared = shared_keyword_search()
        if shared is None:
            return None
        if self._shared[0] is not shared:
            self._shared = (shared, own.keys <= shared.keys)
        if not self._shared[1]:
            return None
        return shared.present_unspaced(folded)

    @staticmethod
    def _first_match(pat, lead, normalised: str, folded: str):
        """``pat.search(normalised)``, trying only where a leading string starts when that is cheaper.

        Exact: a text the :func:`boolean_split` parts do not match has no match;
        every match starts with one of ``lead`` (folded), and ``folded``
        has the same length as ``normalised`` (checked), so positions agree; the
        leftmost position where ``pat.match`` succeeds is where ``search`` finds
        its match, with the same result (look-behinds see the text before ``pos``).
        """
        pat = materialize(pat)
        tail = _tail_for(pat)
        split = boolean_split(pat)
        next_tail = -1  # a position at or after which the tail matches (-1: not searched yet)
        if lead is None or len(folded) != len(normalised):
            if split is not None and not any(p.search(normalised) for p in split):
                return None  # the pattern does not match (see boolean_split); else find its match
            if tail is not None and tail.search(normalised) is None:
                return None  # no match can end the way the pattern ends (see tail_pattern)
            return pat.search(normalised)
        # issue 8: one pass of ``find`` per keyword, stopping past _MAX_ANCHORS occurrences (a ``count`` first
        # searched the whole text once more)
        positions: list = []
        find = folded.find
        for s in lead:
            i = find(s)
            while i >= 0:
                positions.append(i)
                if len(positions) > _MAX_ANCHORS:
                    first = min((i for i in (find(x) for x in lead) if i >= 0), default=0)
                    if split is not None and not any(p.search(normalised) for p in split):
                        return None
                    if tail is not None and tail.search(normalised, first) is None:
                        return None
                    return pat.search(normalised, first)
                i = find(s, i + 1)
        if not positions:
            return None
        if len(lead) > 1:
            positions.sort()
        if len(positions) < _TAIL_MIN_ANCHORS:
            tail = None  # a few failing match attempts cost less than one search for the tail
        match = pat.match
        for i in positions:
            if tail is not None and (next_tail < 0 or i > next_tail):
                t = tail.search(normalised, i)
                if t is None:
                    return None  # no later position can start a match either
                next_tail = t.start()
            m = match(normalised, i)
            if m is not None:
                return m
        return None

    def _guarded_match(self, rule: Rule, pat, lead, normalised: str, folded: str):
        """:meth:`_first_match` under the deadline; ``None`` (and a :class:`Stall` recorded) when it passes.
        A text that already stalled this pattern is not searched again."""
        key = (rule.code, normalised)
        if key in self.stalls:
            return None
        seconds = hermes_deadline()
        try:
            return call_with_deadline(seconds, self._first_match, pat, lead, normalised, folded)
        except PatternDeadline:
            first = [s for s in (lead or ()) if s in folded]
            shown = min(first, key=folded.find) if first else ""
            self.stalls[key] = Stall(rule.hermes_id or "", rule, seconds, len(normalised), shown)
            return None

    def _normalised(self, window: str) -> str:
        """The text the patterns run on: ``window`` itself, or its NFKC form (``window`` is returned
        unchanged, the same object, when NFKC is off or cannot change it)."""
        if not self.nfkc or window.isascii():
            return window
        return unicodedata.normalize("NFKC", window)

    def _window(self, content: str) -> tuple[str, list[str]]:
        window = content[: self.max_scan_chars]
        if (self._no_ascii_invisible and window.isascii()) or self._invisible_re.search(window) is None:
            return window, []
        return window, sorted(set(window) & self.invisible)

    def scan(self, content: Optional[str], scope: str = "context") -> list[str]:
        """Pattern ids Hermes reports for ``content`` (invisible ids sorted by code point).

        A pattern whose search passes the deadline is left out and recorded in :attr:`stalls` (issue 18).
        Raises ``ValueError`` for an unknown scope (as Hermes does).
        """
        if scope not in self._plan:
            self._patterns(scope)
        if not content:
            return []
        window, present = self._window(content)
        out = [f"invisible_unicode_U+{ord(c):04X}" for c in present]
        normalised = self._normalised(window)
        folded = fold(normalised)
        # the audit's raw view holds the same folded text when the window is all of it and NFKC changes nothing
        share = normalised is window and len(window) == len(content)
        for rule, pat, lead in self._candidates(normalised, scope, folded, share):
            if self._guarded_match(rule, pat, lead, normalised, folded) is not None:
                out.append(rule.hermes_id or "")
        return out

    def scan_reference(self, content: Optional[str], scope: str = "context") -> list[str]:
        """:meth:`scan` without any shortcut: every pattern searched, as Hermes does (for tests)."""
        patterns = self._patterns(scope)
        if not content:
            return []
        window = content[: self.max_scan_chars]
        out = [f"invisible_unicode_U+{ord(c):04X}" for c in sorted(set(window) & self.invisible)]
        normalised = unicodedata.normalize("NFKC", window) if self.nfkc else window
        for rule, pat in patterns:
            if pat.search(normalised):
                out.append(rule.hermes_id or "")
        return out

    def locate(self, content: Optional[str], scope: str = "context") -> list[ParityHit]:
        """Like :meth:`scan`, with the first match of each id located in ``content`` (a pattern stopped at
        the deadline is left out and recorded in :attr:`stalls`)."""
        if scope not in self._plan:
            self._patterns(scope)
        if not content:
            return []
        window, present = self._window(content)
        hits: list[ParityHit] = []
        for ch in present:
            i = window.index(ch)
            hits.append(ParityHit(f"invisible_unicode_U+{ord(ch):04X}", self.parity.invisible_rule, i, i + 1, f"U+{ord(ch):04X}"))
        mapped = None
        normalised = self._normalised(window)
        folded = fold(normalised)
        # the audit's raw view holds the same folded text when the window is all of it and NFKC changes nothing
        share = normalised is window and len(window) == len(content)
        for rule, pat, lead in self._candidates(normalised, scope, folded, share):
            m = self._guarded_match(rule, pat, lead, normalised, folded)
            if m is None:
                continue
            if normalised is window:
                s, e = m.start(), max(m.end(), m.start() + 1)
            else:
                if mapped is None:
                    mapped = nfkc(window)
                s, e = mapped.to_raw(m.start(), max(m.end(), m.start() + 1))
            hits.append(ParityHit(rule.hermes_id or "", rule, s, e))
        return hits

    def first_threat_message(self, content: Optional[str], scope: str = "strict") -> Optional[str]:
        """Hermes' ``first_threat_message``: the refusal text for the first finding, or ``None``."""
        findings = self.scan(content, scope)
        if not findings:
            return None
        pid = findings[0]
        if pid.startswith("invisible_unicode_"):
            return f"Blocked: content contains invisible unicode character {pid[len('invisible_unicode_'):]} (possible injection)."
        return (
            f"Blocked: content matches threat pattern '{pid}'. Content is injected into the system prompt "
            "and must not contain injection or exfiltration payloads."
        )


_SCANNERS: dict[tuple[int, str], ThreatScanner] = {}


def scanner_for(parity: ParityCatalog, version: str) -> ThreatScanner:
    """Cached :class:`ThreatScanner` for a catalog and version."""
    key = (id(parity), version)
    s = _SCANNERS.get(key)
    if s is None:
        s = _SCANNERS[key] = ThreatScanner(parity, version)
    return s
