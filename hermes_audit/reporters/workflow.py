"""CI log safety: no line hermes-audit prints can be read as a workflow command (issue 18, item 5).

A CI runner reads a step's standard output and error line by line and obeys some lines as commands:

* GitHub Actions (``actions/runner``, ``src/Runner.Common/ActionCommand.cs``): a line that starts with
  ``::`` after leading white space is trimmed (``::add-mask::``, ``::stop-commands::``, ``::error file=...::``;
  ``TryParseV2``), and, in the legacy form, ``##[name ...]`` *anywhere* in a line (``TryParse``: an
  ``IndexOf("##[")``);
* Azure Pipelines (``TF_BUILD``): ``##vso[...]`` anywhere in a line, and ``##[section]``-style
  formatting commands.

The runner splits lines at LF, CR and CR LF (``StreamReader.ReadLine``) and its ``StartsWith`` and
``IndexOf`` compare with the current culture, which ignores control and format characters (a zero-width
space between the two ``#``) and many others (see :data:`_IGNORABLE`). So :func:`neutralise` treats every
character outside printable ASCII (and hermes-audit's own SGR colour codes) as transparent when it looks for a
marker.

What this module provides:

* :func:`neutralise` (text to a CI log): a line-start ``::`` becomes ``\\x3a:``; the second ``#`` of
  ``##[`` and ``##vso[`` becomes ``\\x23`` (the escape notation of the text reports). Lossy, so the CLI
  applies it only when :func:`ci_log` is true.
* :func:`ci_escape` (exact text for a CI log: ``context --render``, ``prompt``, ``memory --render``):
  control, format and line-separator characters escaped as ``\\xNN`` / ``\\uNNNN`` (LF and TAB kept),
  then :func:`neutralise`.
* :func:`json_text` (every JSON document hermes-audit prints): ``json.dumps`` with ``ensure_ascii``, and
  the second ``#`` of a marker written ``\\u0023``. Lossless (the same JSON value), so always applied.
"""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional

#: Characters a culture-sensitive comparison may skip: controls (but LF and CR, which end a line) and every
#: character outside ASCII, and hermes-audit's own SGR codes. Which characters the collation gives no weight is
#: not a matter of their Unicode category: besides format characters and combining marks (U+034F COMBINING
#: GRAPHEME JOINER), spacing marks such as U+1D165 MUSICAL SYMBOL COMBINING STEM, U+0F3E, U+1CE1 and the letter
#: U+FE73 ARABIC TAIL FRAGMENT are ignorable in the collation tables (eighth red team, issue 18), so none outside
#: ASCII is trusted to separate the characters of a marker. Lines with such characters near a marker are rare in
#: honest text, and breaking their marker only adds an escape.
_IGNORABLE = r"(?:\x1b\[[0-9;]*m|[^\x20-\x7e\n\r])"
#: White space ``TrimStart`` removes (a superset: Python's and .NET's), or an ignorable character.
_LEAD = r"(?:[\p{White_Space}\x1c-\x1f--[\n\r]]|" + _IGNORABLE + ")*"
#: Unicode categories :func:`ci_escape` escapes (besides the C0 controls but LF and TAB, and DEL).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"})
_PATTERNS: dict = {}


def _pattern(name: str):
    """The compiled patterns, made on first use (``regex`` is not imported by a plain scan: start-up)."""
    if not _PATTERNS:
        import regex

        _PATTERNS["colons"] = regex.compile(r"(?m)^(" + _LEAD + r"):(?=" + _IGNORABLE + "*:)", regex.V1)
        _PATTERNS["ignorable"] = regex.compile(_IGNORABLE, regex.V1)
        _PATTERNS["hash"] = regex.compile(r"(?<=#" + _IGNORABLE + "*)#(?=" + _IGNORABLE + r"*(?:\[|(?i:vso)" +
                                          _IGNORABLE + r"*\[))", regex.V1)
    return _PATTERNS[name]


def ci_log(env: Optional[Mapping[str, str]] = None) -> bool:
    """True when output goes to a CI runner's log that obeys workflow commands: ``GITHUB_ACTIONS``
    (GitHub Actions) or ``TF_BUILD`` (Azure Pipelines) is set to anything but ``""``, ``0`` or ``false``."""
    env = os.environ if env is None else env
    return any((env.get(k) or "").strip().lower() not in ("", "0", "false") for k in ("GITHUB_ACTIONS", "TF_BUILD"))


def _line_starts(text: str) -> str:
    """Every line of ``text`` that starts with ``::`` (after white space or ignorable characters) with its
    first ``:`` escaped. Lines end at LF, CR and CR LF, as for the runner; the pattern runs only on lines
    whose first non-space character is ``:`` or not printable (issue 8: a long report stays linear)."""
    import re

    colons = _pattern("colons")
    parts = re.split(r"(\r\n|\r|\n)", text)
    for i in range(0, len(parts), 2):
        head = parts[i].lstrip()[:1]
        if head == ":" or (head and not "\x20" <= head <= "\x7e"):
            parts[i] = colons.sub(r"\1\\x3a", parts[i])
    return "".join(parts)


def neutralise(text: str, keep_commands: bool = False) -> str:
    """``text`` with no line a runner reads as a command (see the module docstring).

    ``keep_commands``: the text is hermes-audit's own annotations (``--format github``, one command per
    line, built by :mod:`hermes_audit.reporters.github`): their leading ``::`` stays, only the legacy
    markers inside a message are broken. Pure; raises nothing."""
    if "#" in text:
        text = _pattern("hash").sub(r"\\x23", text)
    if not keep_commands and ":" in text:
        text = _line_starts(text)
    return text


def ci_escape(text: str) -> str:
    """``text`` (exact content from a file) made safe for a CI log: every control, format and line- or
    paragraph-separator character but LF and TAB as ``\\xNN`` / ``\\uNNNN`` / ``\\UNNNNNNNN``, then
    :func:`neutralise`."""
    import re
    import unicodedata

    def esc(m) -> str:
        ch = m.group()
        if ch > "\x7f" and unicodedata.category(ch) not in _ESCAPED_CATEGORIES:
            return ch
        o = ord(ch)
        return f"\\x{o:02x}" if o < 0x100 else (f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")

    # every character but printable ASCII, LF and TAB is looked at; only those of the categories are escaped
    return neutralise(re.sub(r"[^\x20-\x7e\n\t]", esc, text))


def json_text(data: Any, indent: Optional[int] = 2) -> str:
    """``data`` as ASCII-only JSON text (no raw control, C1, U+2028 or non-ASCII character), with the
    ``#`` that would complete a ``##[`` or ``##vso[`` marker written ``\\u0023``: the same JSON value, and
    no line of it is a workflow command. No trailing newline."""
    import json

    text = json.dumps(data, indent=indent, ensure_ascii=True)
    if "#" in text:  # in ASCII JSON a '#' is always inside a string, where \u0023 means the same
        text = _pattern("hash").sub(r"\\u0023", text)
    return text
