"""The path globs of the configuration: ``exclude`` and ``per-path-ignores`` patterns.

Both take gitignore-style globs (the same dialect as ruff's ``exclude``), matched against ``/``
paths relative to the directory the patterns are anchored at: the configuration file's
directory when there is one (as ruff does), else the base directory of the scan. This module is
plain string work: it reads no file and follows no link.

- :func:`glob_regex`: one pattern as a compiled regular expression.
- :func:`glob_problem`: why a pattern is not a valid glob (the configuration refuses it).
- :func:`path_matches`: whether a path, or one of its parent directories, matches any pattern.
- :func:`patterns_for_named_directory`: the patterns that apply to a walk of a directory named
  on the command line (naming a directory asks for it).
- :func:`anchored_path`: a path relative to the scan's base as a path relative to the anchor.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Optional, Sequence


@functools.lru_cache(maxsize=256)
def glob_regex(pattern: str) -> tuple["re.Pattern[str]", bool]:
    """``(regex, directories only)`` of one pattern, gitignore-style.

    A pattern without a ``/`` (other than a trailing one) matches a name at any depth: ``*.md``, ``vendor``.
    One with a ``/`` is anchored (a leading ``/`` or ``./`` is dropped): ``docs/*.md`` matches ``docs/x.md``
    only. ``*`` and ``?`` stop at ``/``; ``**`` as a whole component matches any number of directories
    (``**/x``, ``a/**``, ``a/**/b``, ``**``); ``[...]`` is a character class (``[!...]`` negated). A trailing
    ``/`` matches directories only. The regex matches a whole ``/`` path (``rx.match(path)``).
    """
    pat = pattern.strip()
    dir_only = pat.endswith("/")
    pat = pat.rstrip("/")
    while pat.startswith("./"):
        pat = pat[2:]
    anchored = pat.startswith("/") or "/" in pat
    pat = pat.lstrip("/")
    out: list[str] = []
    parts = pat.split("/")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            out.append(".*" if last else "(?:[^/]*/)*")
            continue
        out.append(_component_regex(part))
        if not last:
            out.append("/")
    rx = "".join(out)
    return re.compile(("" if anchored else "(?:.*/)?") + rx + r"\Z", re.DOTALL), dir_only


def _class_end(part: str, j: int) -> int:
    """Where the character class opened by the ``[`` at ``part[j]`` ends: the first ``]`` after its first
    character (and a leading ``!``), so ``[]]`` and ``[!]]`` hold a ``]``; -1 when it is never closed."""
    return part.find("]", j + 1 + (part[j + 1:j + 2] == "!") + 1)


def _component_regex(part: str) -> str:
    """The regex of one path component of a pattern (no ``/`` in it, not ``**``)."""
    out: list[str] = []
    j = 0
    while j < len(part):
        ch = part[j]
        if ch == "*":
            while j + 1 < len(part) and part[j + 1] == "*":
                j += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and _class_end(part, j) > 0:
            end = _class_end(part, j)
            body = part[j + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("(?!/)[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            j = end
        else:
            out.append(re.escape(ch))
        j += 1
    return "".join(out)


def glob_problem(pattern: str) -> Optional[str]:
    """Why ``pattern`` is not a valid glob, one line; ``None`` when it is. Refused: an empty pattern (or only
    ``/``), which matches nothing, and a ``[`` that opens a character class never closed within its path
    component (``[abc``), which :func:`glob_regex` would otherwise take as a literal ``[`` (``[[]`` is one).
    Positions are 1-based characters of ``pattern``."""
    if not pattern.strip().strip("/"):
        return "an empty pattern"
    start = 0
    for part in pattern.split("/"):
        j = 0
        while j < len(part):
            if part[j] == "[":
                end = _class_end(part, j)
                if end < 0:
                    return (f"the '[' at character {start + j + 1} opens a character class that is never closed "
                            "([[] is a literal '[')")
                j = end
            j += 1
        start += len(part) + 1
    return None


def path_matches(path: str, patterns: Sequence[str]) -> bool:
    """Whether ``path`` (a ``/`` path relative to the anchor) or one of its parent directories matches one of
    ``patterns`` (:func:`glob_regex`; a directories-only pattern is tried on the parents only)."""
    if not patterns:
        return False
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    for pat in patterns:
        rx, dir_only = glob_regex(pat)
        if any(rx.match(pre) for pre in (prefixes[:-1] if dir_only else prefixes)):
            return True
    return False


#: A name no real pattern but one matching every name (``*``, ``**``) matches: "everything below" in
#: :func:`patterns_for_named_directory`.
_ANY_NAME = "\x00hermes-audit-any-name\x00"


def patterns_for_named_directory(named: str, patterns: Sequence[str]) -> list[str]:
    """The ``exclude`` patterns for a walk of the directory ``named`` on the command line (anchored path).

    A pattern that covers that directory (matches it or a parent, or everything below it, such as
    ``named/**``) is dropped, since naming it asks for it (as ruff does for paths given explicitly); it
    still keeps the directory out of walks of its parents. The base directory itself (``.``, or no path
    argument) is never "named": every pattern applies to its walk, so ``exclude = ["**"]`` excludes all.
    """
    if named in ("", "."):
        return list(patterns)
    return [pat for pat in patterns if not path_matches(f"{named.rstrip('/')}/{_ANY_NAME}", [pat])]


def anchored_path(display: str, base: Optional[Path], anchor: Optional[Path]) -> Optional[str]:
    """``display`` (a ``/`` path relative to ``base``, default the current directory, or absolute) as a ``/``
    path relative to ``anchor``, the directory the patterns are anchored at; ``display`` itself when there is
    no anchor; ``None`` for a path outside the anchor (no pattern applies there). Links in ``base`` and
    ``anchor`` are resolved (string work on the resolved directories; nothing in the scanned tree is read)."""
    if anchor is None:
        return display
    root = os.path.realpath(base or Path.cwd())
    full = os.path.normpath(os.path.join(root, display))
    rel = os.path.relpath(full, os.path.realpath(anchor)).replace(os.sep, "/")
    if rel == ".." or rel.startswith("../"):
        return None
    return rel
