"""URLs are opaque to the sentence grammar (issue 18, red team leftovers).

The negation, quotation and mood models (:mod:`hermes_audit.engine.negation`, :mod:`hermes_audit.engine.markdown`,
:mod:`hermes_audit.engine.mood`) read words around a match: "example", "attack", "like", "reports", "forum",
"note:" label it, present it or name its speaker. A word inside a URL is none of these: ``https://x.example/...``
is not "example", ``https://wiki.test/attack-surface`` not "attack", ``?label=for-example`` not "for example",
``https://host/note:`` not the label "Note:", and the dots of ``x.example`` end no sentence. The models read
:func:`opaque_urls` of the document: the same text with every URL's characters replaced by :data:`MASK`, so
offsets are unchanged and a URL stays one token that is neither a word nor punctuation. The match itself is found
on the real text; only its grading reads the masked one.

A URL here: a scheme (``http``, ``https``, ``ws``, ``wss``, ``ftp``, ``ftps``) and ``://``, then characters up to
whitespace, a quotation mark, a bracket, a backtick, a pipe, a backslash or ``$`` (a shell substitution or a
variable in a URL, ``?k=${API_KEY}``, stays visible: it is part of a command, not a word of the URL), less the
punctuation that ends a sentence or a label after it (``.``, ``,``, ``;``, ``:``, ``!``, ``?``, ``*``, ``_``).
Linear: one regular-expression pass.
"""

from __future__ import annotations

import re

from hermes_audit.patterns.regex_code import re_compile_builtin as _compile

#: What a URL's characters become: neither a word character, nor white space, nor punctuation any model reads.
MASK = "\u00b7"
_URL = _compile(r"\b(?:https?|wss?|ftps?)://[^\s\"'<>`()\[\]{}|\\$]+", re.I)
_TRAILING = ".,;:!?*_"


def _mask(m: "re.Match[str]") -> str:
    url = m.group(0)
    core = url.rstrip(_TRAILING)
    return MASK * len(core) + url[len(core):]


def opaque_urls(text: str) -> str:
    """``text`` with the characters of every URL replaced by :data:`MASK` (same length; ``text`` itself when it
    holds no URL)."""
    if "://" not in text:
        return text
    return _URL.sub(_mask, text)
