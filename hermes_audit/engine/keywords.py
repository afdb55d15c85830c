"""Optional C-level keyword search: every catalog keyword present in a text, in one pass (issue 8).

When the ``pyahocorasick`` package is importable (the ``hermes-audit[fast]`` extra), the keyword index of
a long text (:class:`hermes_audit.engine.prefilter.LiteralIndex`, texts over
:data:`~hermes_audit.engine.prefilter.DIRECT_SEARCH_CHARS` characters) answers "does the text contain
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

    __slots__ = ("keys", "_unspaced", "_spaced")

    def __init__(self, keys: Iterable[str]) -> None:
        if not available():
            raise RuntimeError("the keyword accelerator (pyahocorasick) is not available")
        # issue 8 (start-up time): ``kept`` inlined, and the whitespace test as ``str.split`` (the same
        # ``str.isspace`` whitespace: a key without any splits into itself alone), about 2x faster on ~2,100 keys
        self.keys = frozenset([k for k in keys if len(k) >= MIN_KEYWORD and k not in FREQUENT])
        spaced = {k for k in self.keys if [k] != k.split()}  # has_space, inlined (keys are not empty)
        self._unspaced = _automaton(self.keys - spaced)
        self._spaced = _automaton(spaced)

    def present(self, text: str, tokens: bool = False) -> set:
        """The members of :attr:`keys` that occur in ``text``.

        A keyword without whitespace occurs in ``text`` if and only if it occurs in one of the text's
        whitespace-separated tokens (``str.split``'s whitespace, the same ``str.isspace`` test that sorted
        the keywords): on a long text those are searched in its distinct tokens joined by ``"\n"``, usually
        a small part of it (the automaton reports every occurrence, so the pass costs per occurrence). The
        few keywords with whitespace are searched in the whole text. With ``tokens``, ``text`` is already such
        a joining of distinct tokens (for the keywords without whitespace) and is searched as it is.
        """
        found: set = set()
        if self._spaced is not None:
            found.update(k for _end, k in self._spaced.iter(text))
        if self._unspaced is not None:
            hay = text if tokens or len(text) < DEDUP_MIN_CHARS else "\n".join(set(text.split()))
            found.update(k for _end, k in self._unspaced.iter(hay))
        return found


#: Texts of at least this many characters are searched in their distinct tokens (:meth:`KeywordSearch.present`).
DEDUP_MIN_CHARS = 4_096


def _automaton(keys: set):
    """An automaton reporting each of ``keys`` (as its value) where it ends; ``None`` for no keys."""
    if not keys:
        return None
    automaton = _module.Automaton()
    for k in keys:
        automaton.add_word(k, k)
    automaton.make_automaton()
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
