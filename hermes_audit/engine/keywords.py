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
catalog's ~2,100 keywords), never stored on disk nor unpickled.
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


class KeywordSearch:
    """An Aho-Corasick automaton over a fixed set of keywords: the members of ``keys`` that :func:`kept`
    takes, kept as :attr:`keys`. :meth:`present` is exact for every member of :attr:`keys`.

    Raises ``RuntimeError`` when the accelerator is not :func:`available`.
    """

    __slots__ = ("keys", "_automaton")

    def __init__(self, keys: Iterable[str]) -> None:
        if not available():
            raise RuntimeError("the keyword accelerator (pyahocorasick) is not available")
        self.keys = frozenset(filter(kept, keys))
        automaton = _module.Automaton()
        for k in self.keys:
            automaton.add_word(k, k)
        if self.keys:
            automaton.make_automaton()
        self._automaton = automaton

    def present(self, text: str) -> set:
        """The members of :attr:`keys` that occur in ``text`` (one pass; the automaton reports every
        keyword ending at every position, overlapping ones included)."""
        if not self.keys:
            return set()
        return {k for _end, k in self._automaton.iter(text)}


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
