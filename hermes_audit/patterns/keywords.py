"""Optional C-level keyword search: every catalog keyword present in a text, in one pass (issue 8).

When the ``pyahocorasick`` package is importable (the ``hermes-audit[fast]`` extra), the keyword index of
a long text (:class:`hermes_audit.patterns.prefilter.LiteralIndex`, texts over
:data:`~hermes_audit.patterns.prefilter.DIRECT_SEARCH_CHARS` characters) answers "does the text contain
this keyword?" from one Aho-Corasick pass over the text with every keyword of the loaded rules, instead
of building its word and 4-gram index and searching it per keyword. Without the package, with the
environment variable ``HERMES_AUDIT_PURE_PYTHON`` set to anything but ``""``/``"0"``, or with
:data:`ENABLED` set to False (tests do), the pure-Python index answers. Both are exact, so findings are
identical either way.

The automaton is built in the process that uses it, on the first long text (about 2 ms for the
catalog's ~2,100 keywords: about 1 ms adding the words and making the automaton, the rest sorting them),
never stored on disk nor unpickled (issue 8: unpickling it would save about 0.5 ms, not worth loading a
format that can run code).
"""

from __future__ import annotations

import os
from itertools import islice
from operator import itemgetter
from typing import Callable, Iterable, Optional

#: Switch: False turns the accelerator off (the environment variable, or tests). It is also set to False
#: when ``pyahocorasick`` turns out not to be importable.
ENABLED = os.environ.get("HERMES_AUDIT_PURE_PYTHON", "") in ("", "0")
#: Keywords shorter than this (characters) are left out: one-character keywords occur at almost every
#: position, and ``str.__contains__`` finds one at once (a ``memchr``).
MIN_KEYWORD = 2
#: Keywords so frequent in English prose that a direct search finds them within the first few hundred
#: characters of a long text: left out of the automaton, whose output their occurrences would dominate
#: (issue 8: a tenth of the keyword pass on the 5 MB benchmark tree). Any keyword left out is searched
#: directly, so the choice only affects speed.
FREQUENT = frozenset("a an and are as at be by for if in is it of on or the to you".split())

_module = None  # the imported ``ahocorasick`` module, once needed
_KEYWORD = itemgetter(1)  # the keyword of an automaton's ``(end, keyword)`` output


def available() -> bool:
    """True when the accelerator is on and ``pyahocorasick`` is importable (imported on the first call)."""
    global _module, ENABLED
    if ENABLED and _module is None:
        try:
            import ahocorasick
        except ImportError:
            ENABLED = False
        else:
            _module = ahocorasick
    return ENABLED


def kept(keyword: str) -> bool:
    """Whether :class:`KeywordSearch` takes ``keyword``: at least :data:`MIN_KEYWORD` characters and not
    in :data:`FREQUENT`."""
    return len(keyword) >= MIN_KEYWORD and keyword not in FREQUENT


def has_space(keyword: str) -> bool:
    """True when ``keyword`` holds a character for which ``str.isspace`` is true (the whitespace
    ``str.split()`` splits on)."""
    return [keyword] != keyword.split() if keyword else False


class KeywordSearch:
    """Aho-Corasick automata over a fixed set of keywords: the members of ``keys`` that :func:`kept`
    takes, kept as :attr:`keys`. :meth:`present` is exact for every member of :attr:`keys`.

    Raises ``RuntimeError`` when the accelerator is not :func:`available`.
    """

    __slots__ = ("keys", "_unspaced", "_spaced", "_recent")

    def __init__(self, keys: Iterable[str]) -> None:
        if not available():
            raise RuntimeError("the keyword accelerator (pyahocorasick) is not available")
        # issue 8 (start-up time): ``kept`` inlined, and the whitespace test as ``str.split`` (the same
        # ``str.isspace`` whitespace: a key without any splits into itself alone), about 2x faster on ~2,100 keys
        self.keys = frozenset([k for k in keys if len(k) >= MIN_KEYWORD and k not in FREQUENT])
        spaced = {k for k in self.keys if [k] != k.split()}  # has_space, inlined (keys are not empty)
        self._unspaced = _automaton(self.keys - spaced)
        self._spaced = _automaton(spaced)
        self._recent: list = []  # the last RECENT answers of present() (see _entry)

    def present(self, text: str, tokens: bool = False) -> set:
        """The members of :attr:`keys` that occur in ``text``.

        A keyword without whitespace occurs in ``text`` if and only if it occurs in one of the text's
        whitespace-separated tokens (``str.split``'s whitespace, the same ``str.isspace`` test that sorted
        the keywords): on a long text those are searched in its distinct tokens joined by ``"\n"``, usually
        a small part of it (the pass costs per character and per occurrence). The
        few keywords with whitespace are searched in the whole text. With ``tokens``, ``text`` is already such
        a joining of distinct tokens (for the keywords without whitespace) and is searched as it is.

        The answers for the last :data:`RECENT` texts (without ``tokens``) are kept and given again for an equal
        text (issue 8: Hermes' scan of a context file and the audit rules ask about the same folded text, see
        :attr:`hermes_audit.hermes.threats.ThreatScanner.share_keywords`); the caller must not change the set.
        """
        if tokens:
            found = self._spaced_in(text)
            if self._unspaced is not None:
                found.update(map(_KEYWORD, self._unspaced.iter(text)))
            found.discard(None)  # (a placeholder, see _automaton)
            return found
        entry = self._entry(text)
        if entry[2] is None:
            spaced = self._spaced_in(text)
            entry[2] = entry[1] if not spaced else spaced.union(entry[1])
        return entry[2]

    def present_unspaced(self, text: str) -> set:
        """The members of :attr:`keys` without whitespace that occur in ``text`` (see :meth:`present`, which
        gives them again for this text, or for a text that ``str.strip`` makes this one, without a new pass:
        a keyword without whitespace occurs in a text if and only if it occurs in the text stripped). The
        caller must not change the set."""
        return self._entry(text)[1]

    def _entry(self, text: str) -> list:
        """``[text, keywords without whitespace present, all keywords present or None]``, remembered."""
        recent = self._recent
        for entry in recent:
            seen = entry[0]
            if seen is text or (len(seen) == len(text) and seen == text):
                return entry
        got = None
        if any(len(e[0]) < len(text) for e in recent):
            stripped = text.strip()
            for e in recent:
                if e[0] == stripped:
                    got = e[1]
                    break
        if got is None:
            got = set()
            if self._unspaced is not None:
                hay = text if len(text) < DEDUP_MIN_CHARS else "\n".join(set(text.split()))
                got.update(map(_KEYWORD, self._unspaced.iter(hay)))
                got.discard(None)  # (a placeholder, see _automaton)
        entry = [text, got, None]
        if len(recent) >= RECENT:
            del recent[0]
        recent.append(entry)
        return entry

    def _spaced_in(self, text: str) -> set:
        found = set(map(_KEYWORD, self._spaced.iter(text))) if self._spaced is not None else set()
        found.discard(None)  # (a placeholder, see _automaton)
        return found

    def present_bounded(self, text: str, most: int) -> Optional[set]:
        """:meth:`present` from one pass over ``text`` itself (no token split), or ``None`` when the keywords
        occur more than ``most`` times in it (the pass stops there: each occurrence costs some work)."""
        found: set = set()
        for automaton in (self._spaced, self._unspaced):
            if automaton is not None:
                hits = list(islice(automaton.iter(text), most + 1))
                if len(hits) > most:
                    return None
                most -= len(hits)
                found.update(map(_KEYWORD, hits))
        found.discard(None)  # (a placeholder, see _automaton)
        return found


#: Texts of at least this many characters are searched in their distinct tokens (:meth:`KeywordSearch.present`).
DEDUP_MIN_CHARS = 4_096
#: Answers :meth:`KeywordSearch.present` keeps (the last ones: a text and its views).
RECENT = 2


#: Characters roughly from most to least frequent in context files (prose, Markdown, code), for
#: :func:`_automaton`; the others follow by code point.
_COMMON = " etaoinsrhldcumfpgwybv.,k\nx-_/:()`*#'\"jqz0123456789=[]{}<>!?|;@$%&+~^\\\t"
#: ``str.translate`` table making a key's characters sort in :data:`_COMMON` order (the other ASCII characters
#: after every :data:`_COMMON` one and the other non-ASCII characters below U+0100)
_RANK = {**{i: 0x100 + i for i in range(128)}, **{ord(c): 1 + i for i, c in enumerate(_COMMON)}}
#: Second character of the placeholder keys of :func:`_automaton`: no text a keyword pass is run on holds it
#: after a :data:`_COMMON` character in practice, and when one does the placeholder's report is dropped.
PLACEHOLDER_END = "\x00"


def _rank(word: tuple) -> str:
    return word[0].translate(_RANK)


def _automaton(keys: set):
    """An automaton reporting each of ``keys`` (as its value) where it ends; ``None`` for no keys.

    Speed (issue 8): the automaton looks the next character up among a state's transitions in the order they
    were added, which costs most at the start state, where a pass spends much of its time. So the keys are
    added with their characters' frequency order (:data:`_COMMON`), and each :data:`_COMMON` character that
    starts no key (the blank and newline, most often) gets a placeholder key, that character and
    :data:`PLACEHOLDER_END`, added in its place in that order: it is then found among the first
    transitions instead of after all of them (a third less time per pass on the benchmark texts). Exact: the
    automaton still reports every occurrence of every key; a placeholder is no key of ``keys``, and the
    callers drop its reports (value ``None``).
    """
    if not keys:
        return None
    starts = {k[0] for k in keys}
    words = [(k, k) for k in keys]
    words += [(c + PLACEHOLDER_END, None) for c in _COMMON if c not in starts]
    words.sort(key=_rank)
    return _built(words)


def _built(words: list):
    """An automaton of ``(key, value)`` pairs, added in the order given (the order its transitions are
    searched in, see :func:`_automaton`)."""
    automaton = _module.Automaton()  # type: ignore[union-attr]
    for k, v in words:
        automaton.add_word(k, v)
    automaton.make_automaton()
    return automaton


#: Characters of a text sampled (evenly spread) to rank its characters for :func:`locator` (issue 8).
SAMPLE_CHARS = 4_096
#: At most this many of a text's most frequent characters get a place of their own in :func:`locator`'s order.
RANKED_CHARS = 24
_LOCATORS: dict = {}


def locator(keys: tuple, text: str):
    """An automaton reporting each of ``keys`` (as its value; a placeholder's report has value ``None``)
    where it ends in ``text``, with its transitions in the order of ``text``'s own character frequencies
    (sampled from :data:`SAMPLE_CHARS` characters spread over it): the same trick as :func:`_automaton`, fitted to
    the text, since a pass over a long text dense with characters that start no key (punctuation between
    foreign-script keywords, say) otherwise spends most of its time at the start state (issue 8: about half
    the time of ``LiteralIndex.locate`` on the worst-case benchmark's near-misses). Cached per ``keys`` and
    ranking. Requires :func:`available`."""
    step = max(1, len(text) // SAMPLE_CHARS)
    sample = text[::step]
    counts: dict = {}
    for c in sample:
        counts[c] = counts.get(c, 0) + 1
    ranked = "".join(sorted(counts, key=counts.__getitem__, reverse=True)[:RANKED_CHARS])
    key = (keys, ranked)
    automaton = _LOCATORS.get(key)
    if automaton is None:
        if len(_LOCATORS) >= 256:
            _LOCATORS.clear()
        rank = {c: i for i, c in enumerate(ranked)}
        starts = {k[0] for k in keys}
        words = [(k, k) for k in keys] + [(c + PLACEHOLDER_END, None) for c in ranked if c not in starts]
        far = len(rank)
        words.sort(key=lambda kv: [rank.get(ch, far + ord(ch)) for ch in kv[0]])
        automaton = _LOCATORS[key] = _built(words)
    return automaton


_search: Optional[KeywordSearch] = None
_version: object = None


def searcher(version: object, keys: Callable[[], Iterable[str]]) -> Optional[KeywordSearch]:
    """The shared :class:`KeywordSearch` over ``keys()``, rebuilt when ``version`` differs from the one it
    was built for; None when the accelerator is off or not installed. A stale automaton is still exact for
    the keywords it holds (callers check :attr:`KeywordSearch.keys`)."""
    global _search, _version
    if not available():
        return None
    if _search is None or version != _version:
        _search, _version = KeywordSearch(keys()), version
    return _search
