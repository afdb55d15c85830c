"""Document kinds: which Hermes surface a file belongs to, decided by its name.

The names come from Hermes Agent's loaders (``agent/prompt_builder.py``,
``agent/subdirectory_hints.py``, ``tools/memory_tool.py``,
``hermes_cli/profile_distribution.py``; 0.19.0 and the newest public source).
"""

from __future__ import annotations

import enum
import unicodedata
from pathlib import PurePosixPath
from typing import Iterable, Optional


class DocumentKind(str, enum.Enum):
    """What a file is to Hermes. The value is the name used on the command line (``--kind``)."""

    HERMES_MD = "hermes-md"            # .hermes.md / HERMES.md
    AGENTS_MD = "agents-md"            # AGENTS.md / agents.md / AGENTS.override.md
    CLAUDE_MD = "claude-md"            # CLAUDE.md / claude.md
    CURSORRULES = "cursorrules"        # .cursorrules
    CURSOR_RULE = "cursor-rule"        # .cursor/rules/*.mdc
    SOUL_MD = "soul-md"                # SOUL.md (HERMES_HOME identity)
    MEMORY = "memory"                  # memories/MEMORY.md
    USER_PROFILE = "user-profile"      # memories/USER.md
    DISTRIBUTION = "distribution"      # distribution.yaml (profile distribution manifest)
    SKILL = "skill"                    # SKILL.md of a skill
    GENERIC = "generic"                # any other text, scanned like a context file

    @property
    def is_context(self) -> bool:
        """True for files Hermes scans as a whole at the ``context`` scope."""
        return self in _CONTEXT_KINDS

    @property
    def is_memory_store(self) -> bool:
        """True for ``MEMORY.md``/``USER.md``: scanned per entry at the ``strict`` scope."""
        return self in (DocumentKind.MEMORY, DocumentKind.USER_PROFILE)

    @property
    def group(self) -> str:
        """Coarse group used by rule ``kinds:`` lists: context, soul, memory, skill, distribution."""
        if self.is_memory_store:
            return "memory"
        if self is DocumentKind.SOUL_MD:
            return "soul"
        if self is DocumentKind.SKILL:
            return "skill"
        if self is DocumentKind.DISTRIBUTION:
            return "distribution"
        return "context"


_CONTEXT_KINDS = frozenset(
    {
        DocumentKind.HERMES_MD,
        DocumentKind.AGENTS_MD,
        DocumentKind.CLAUDE_MD,
        DocumentKind.CURSORRULES,
        DocumentKind.CURSOR_RULE,
        DocumentKind.SOUL_MD,
        DocumentKind.GENERIC,
    }
)

#: Exact file names and their kinds.
NAME_KINDS: dict[str, DocumentKind] = {
    ".hermes.md": DocumentKind.HERMES_MD,
    "HERMES.md": DocumentKind.HERMES_MD,
    "AGENTS.md": DocumentKind.AGENTS_MD,
    "agents.md": DocumentKind.AGENTS_MD,
    "AGENTS.override.md": DocumentKind.AGENTS_MD,
    "CLAUDE.md": DocumentKind.CLAUDE_MD,
    "claude.md": DocumentKind.CLAUDE_MD,
    ".cursorrules": DocumentKind.CURSORRULES,
    "SOUL.md": DocumentKind.SOUL_MD,
    "distribution.yaml": DocumentKind.DISTRIBUTION,
    "SKILL.md": DocumentKind.SKILL,
}

ALL_KIND_NAMES = [k.value for k in DocumentKind]

#: Base names :func:`classify` may accept besides ``*.mdc`` (used by :func:`may_classify`).
CANDIDATE_NAMES = frozenset({*NAME_KINDS, "MEMORY.md", "USER.md"})
#: The case-insensitive file systems Hermes users run, each with the place it stands for in messages
#: (round 9 of issue 18; see :func:`fold_apfs` and :func:`fold_ntfs`).
FOLD_PLACES = (("apfs", "macOS"), ("ntfs", "Windows"))


def fold_apfs(name: str) -> str:
    """``name`` as a case-insensitive APFS volume (macOS as installed) compares it: Unicode case folding, and
    insensitive to normalization (Apple's APFS guide: "normalization-preserving, but not normalization-sensitive").
    Modelled as NFD, full case folding (``str.casefold``: ``ſ`` U+017F and ``K`` U+212A KELVIN fold to ``s`` and
    ``k``, the ligature ``ﬆ`` to ``st``), then NFD again. Approximate: APFS folds with the Unicode tables of its
    macOS release, not Python's, and whether it applies the full (length-changing) foldings rather than only the
    simple ones is not documented; a name this folding equates is claimed to open on macOS."""
    if name.isascii():
        return name.lower()
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", name).casefold())


def fold_ntfs(name: str) -> str:
    """``name`` as Windows opens it on NTFS: the Win32 layer drops trailing dots and spaces (``AGENTS.md.`` opens
    ``AGENTS.md``), and NTFS compares names through the volume's ``$UpCase`` table, one UTF-16 unit to one:
    modelled as Unicode's simple uppercase mapping (``ſ`` -> ``S``; ``K`` U+212A is already upper case, so the
    Kelvin sign does not match ``K`` here; ligatures and ``ß`` have no one-character upper case and stay).
    Normalization-sensitive: an NFD name and its NFC form are two names. Approximate: the ``$UpCase`` table is
    written when the volume is formatted, from that Windows version's tables. (Git for Windows refuses to check
    out a path with a trailing dot or space while ``core.protectNTFS`` is on, its default; an archive or a copy
    still makes one.)"""
    name = name.rstrip(". ") or name
    if name.isascii():
        return name.upper()
    return "".join(u if len(u := c.upper()) == 1 else c for c in name)


_FOLDS = {"apfs": fold_apfs, "ntfs": fold_ntfs}

#: Per file system of :data:`FOLD_PLACES`: :data:`CANDIDATE_NAMES` folded, each with the name it stands for. A name
#: that folds to one of them (``Agents.md``, ``claude.MD``, ``.HERMES.md``, ``AGENTſ.md``) is the file Hermes opens
#: on that case-insensitive file system (round 8 of issue 18; round 9: Unicode folding rather than ``str.lower``).
#: ``agents.md`` and ``claude.md`` are names of their own (Hermes reads them after ``AGENTS.md``/``CLAUDE.md``), so
#: they map to themselves. ``SKILL.md`` is left out: Hermes finds skills by comparing listed names with
#: ``"SKILL.md"`` (case-sensitive on every system), not by opening it.
FOLDED: dict[str, dict[str, str]] = {
    fs: {fold(n): n for n in sorted(CANDIDATE_NAMES - {"SKILL.md"}, key=lambda n: (n.lower() == n, n))}
    for fs, fold in _FOLDS.items()
}
#: The directory names Hermes opens on the way to a context file, folded per file system.
_FOLDED_DIRS: dict[str, dict[str, str]] = {fs: {fold(n): n for n in (".cursor", "rules", "memories")}
                                           for fs, fold in _FOLDS.items()}
#: The former ``str.lower`` table (ASCII names): kept for the listing's fast path.
FOLDED_NAMES: dict[str, str] = FOLDED["apfs"]


def may_classify(path: str) -> bool:
    """A necessary condition for ``classify(path) is not None``, on the base name string only.

    False means :func:`classify` returns ``None`` for ``path``; True means it may
    not (call :func:`classify` to know). Tree discovery checks this first for
    every listed path, since most are not context files (issue 8: a
    50,000-file repository). Paths whose last component is empty or ``.``
    (which :class:`~pathlib.PurePosixPath` would normalise away) always pass.
    """
    name = path[path.rfind("/") + 1:]
    if name in CANDIDATE_NAMES or name.endswith(".mdc") or name in ("", "."):
        return True
    if "\\" in name:
        return may_classify(name.replace("\\", "/"))  # classify reads "\\" as "/"
    return may_fold(name)


def may_fold(name: str) -> bool:
    """True when the base ``name`` equals a name Hermes reads, or ends in ``.mdc``, once folded as a
    case-insensitive file system does (:func:`fold_apfs`, :func:`fold_ntfs`: a variant :func:`classify` may
    accept)."""
    if name.isascii() and not name.endswith((".", " ")):
        low = name.lower()
        return low in FOLDED_NAMES or low.endswith(".mdc")
    return any(_FOLDS[fs](name) in FOLDED[fs] for fs in _FOLDS) or name.lower().endswith(".mdc")


def classify(path: str) -> Optional[DocumentKind]:
    """Kind of a file from its path (``/``-separated, any prefix), or ``None``.

    ``memories/MEMORY.md`` and ``memories/USER.md`` are memory stores; a bare
    ``MEMORY.md`` elsewhere is one too (Hermes only reads it from
    ``memories/``, but a stray copy is still worth auditing). ``USER.md`` counts
    only inside a ``memories`` directory, the name being too common elsewhere.

    A path whose names match only when case is ignored (``Agents.md``, ``.Cursor/Rules/x.mdc``,
    ``memories/User.md``) gets the kind of the name it stands for: on a case-insensitive file system (macOS,
    Windows) Hermes' ``open("AGENTS.md")`` opens ``Agents.md`` (round 8 of issue 18); :func:`case_variant` tells
    such a path from an exact one.
    """
    kind = exact_kind(path)
    if kind is not None:
        return kind
    name = path[path.rfind("/") + 1:].replace("\\", "/").rsplit("/", 1)[-1]
    if not may_fold(name):
        return None
    for fs in _FOLDS:
        kind = exact_kind(_folded(path, fs))
        if kind is not None:
            return kind
    return None


def fold_places(path: str) -> list[str]:
    """Where a case variant ``path`` (:func:`case_variant`) opens as the Hermes name it stands for: the places of
    :data:`FOLD_PLACES` whose folding makes it that name (``["macOS", "Windows"]`` for ``Agents.md``,
    ``["macOS"]`` for a Kelvin sign ``K`` that only Unicode case folding maps to ``k``, ``["Windows"]`` for a
    trailing dot or a ``.MDC`` suffix: ``Path.glob("*.mdc")`` compares names case-sensitively on macOS); empty
    for an exact name or none at all."""
    if exact_kind(path) is not None:
        return []
    return [place for fs, place in FOLD_PLACES if exact_kind(_folded(path, fs)) is not None]


def case_variant(path: str) -> bool:
    """True when ``path`` has a kind (:func:`classify`) only because case is ignored: ``Agents.md``, ``claude.MD``,
    ``.Cursor/rules/x.mdc``; False for ``AGENTS.md`` and for ``agents.md`` (a name Hermes reads as it is)."""
    return exact_kind(path) is None and classify(path) is not None


def mdc_suffix_only(path: str) -> bool:
    """True for a case variant that opens only on Windows (:func:`fold_places`): a ``.mdc`` suffix in other case
    (``x.MDC``: Python's ``Path.glob("*.mdc")`` compares names case-sensitively on macOS and through
    ``os.path.normcase``, that is ``str.lower``, on Windows), a trailing dot or space."""
    return fold_places(path) == ["Windows"]


def _folded(path: str, fs: str = "apfs") -> str:
    """``path`` with each name that folds (on file system ``fs`` of :data:`FOLD_PLACES`) to a Hermes name (a file
    name of :data:`FOLDED`, ``.cursor``, ``rules``, ``memories``) spelled as Hermes spells it; a ``.mdc`` suffix
    in other case too on Windows, whose ``Path.glob`` lower-cases names before comparing."""
    fold = _FOLDS[fs]
    parts = path.replace("\\", "/").split("/")
    out = []
    for i, part in enumerate(parts):
        key = fold(part)
        if i == len(parts) - 1:
            if key in FOLDED[fs]:
                part = FOLDED[fs][key]
            elif fs == "ntfs" and part.lower().endswith(".mdc"):
                part = part[:-4] + ".mdc"
        elif key in _FOLDED_DIRS[fs]:
            part = _FOLDED_DIRS[fs][key]
        out.append(part)
    return "/".join(out)


def same_folded(a: str, b: str) -> list[str]:
    """The places of :data:`FOLD_PLACES` where names (or ``/``-separated paths) ``a`` and ``b`` name one file: each
    component equal once folded (:func:`fold_apfs`, :func:`fold_ntfs`). Empty when they differ everywhere (or are
    equal: then they are one name)."""
    if a == b:
        return []
    pa, pb = a.split("/"), b.split("/")
    if len(pa) != len(pb):
        return []
    return [place for fs, place in FOLD_PLACES if all(_FOLDS[fs](x) == _FOLDS[fs](y) for x, y in zip(pa, pb))]


def exact_kind(path: str) -> Optional[DocumentKind]:
    """:func:`classify` with names compared as they are (case-sensitively), as Hermes compares them on Linux."""
    p = PurePosixPath(path.replace("\\", "/"))
    name = p.name
    kind = NAME_KINDS.get(name)
    if kind is not None:
        return kind
    parts = p.parts
    if name == "MEMORY.md":
        return DocumentKind.MEMORY
    if name == "USER.md" and len(parts) >= 2 and parts[-2] == "memories":
        return DocumentKind.USER_PROFILE
    if name.endswith(".mdc") and len(parts) >= 3 and parts[-2] == "rules" and parts[-3] == ".cursor":
        return DocumentKind.CURSOR_RULE
    return None


def hermes_label(path: str, kind: DocumentKind) -> str:
    """The name Hermes prints for a file in headings and ``[BLOCKED: ...]`` markers.

    For a ``.cursor/rules/*.mdc`` file it is ``.cursor/rules/<name>``; for the
    other kinds the bare file name (Hermes 0.19.0 ``agent/prompt_builder.py``).
    """
    p = PurePosixPath(path.replace("\\", "/"))
    if kind is DocumentKind.CURSOR_RULE:
        return f".cursor/rules/{p.name}"
    return p.name


def case_collisions(paths: Iterable[str]) -> dict[str, list[str]]:
    """For each of ``paths`` (``/``-separated, relative to one root) that names one file with another of them on a
    case-insensitive file system (``AGENTS.md`` and ``Agents.md``, ``AGENTS.md`` and ``AGENTſ.md``,
    ``.cursor/rules/x.mdc`` and ``.Cursor/rules/x.mdc``, a directory spelled in NFC and in NFD on macOS), the
    others, sorted; paths in no such group, or in a group none of whose paths :func:`classify` accepts, are left
    out. Names are compared as :func:`same_folded` does, per file system.

    On such a file system the paths name one file: a checkout keeps one of them and Hermes, which opens
    ``AGENTS.md``, reads whichever is left (round 8 of issue 18).
    """
    members_of: dict[str, set[str]] = {}
    for fs, fold in _FOLDS.items():
        groups: dict[str, list[str]] = {}
        for p in paths:
            key = "/".join(fold(x) for x in p.split("/"))
            if p not in groups.setdefault(key, []):
                groups[key].append(p)
        for members in groups.values():
            if len(members) < 2 or not any(classify(m) is not None for m in members):
                continue
            for m in members:
                members_of.setdefault(m, set()).update(x for x in members if x != m)
    return {m: sorted(others) for m, others in members_of.items()}
