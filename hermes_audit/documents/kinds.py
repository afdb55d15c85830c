"""Document kinds: which Hermes surface a file belongs to, decided by its name.

The names come from Hermes Agent's loaders (``agent/prompt_builder.py``,
``agent/subdirectory_hints.py``, ``tools/memory_tool.py``,
``hermes_cli/profile_distribution.py``; 0.19.0 and the newest public source).
"""

from __future__ import annotations

import enum
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
#: :data:`CANDIDATE_NAMES` lower-cased (``str.lower``), each with the name it stands for: a name that differs from
#: one of them only in case (``Agents.md``, ``claude.MD``, ``.HERMES.md``) is the file Hermes opens on a
#: case-insensitive file system (round 8 of issue 18). ``agents.md`` and ``claude.md`` are names of their own
#: (Hermes reads them after ``AGENTS.md``/``CLAUDE.md``), so they map to themselves. ``SKILL.md`` is left out: Hermes
#: finds skills by comparing listed names with ``"SKILL.md"`` (case-sensitive on every system), not by opening it.
FOLDED_NAMES: dict[str, str] = {n.lower(): n for n in sorted(CANDIDATE_NAMES - {"SKILL.md"},
                                                             key=lambda n: (n.lower() == n, n))}


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
    """True when the base ``name`` equals a name Hermes reads, or ends in ``.mdc``, ignoring case (a case
    variant :func:`classify` accepts)."""
    low = name.lower()
    return low in FOLDED_NAMES or low.endswith(".mdc")


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
    return exact_kind(_folded(path))


def case_variant(path: str) -> bool:
    """True when ``path`` has a kind (:func:`classify`) only because case is ignored: ``Agents.md``, ``claude.MD``,
    ``.Cursor/rules/x.mdc``; False for ``AGENTS.md`` and for ``agents.md`` (a name Hermes reads as it is)."""
    return exact_kind(path) is None and classify(path) is not None


def mdc_suffix_only(path: str) -> bool:
    """True for a case variant whose only difference is the ``.mdc`` suffix of a Cursor rule (``x.MDC``):
    Python's ``Path.glob("*.mdc")`` compares names case-sensitively on macOS (posix) and not on Windows, so only
    Windows loads it."""
    if not case_variant(path):
        return False
    p = path.replace("\\", "/")
    head, _, name = p.rpartition("/")
    return not name.endswith(".mdc") and exact_kind(f"{head}/{name[:-4]}.mdc" if head else f"{name[:-4]}.mdc") is not None


def _folded(path: str) -> str:
    """``path`` with each name that equals a Hermes name ignoring case (a file name of :data:`FOLDED_NAMES`,
    ``.cursor``, ``rules``, ``memories``, a ``.mdc`` suffix) spelled as Hermes spells it."""
    parts = path.replace("\\", "/").split("/")
    out = []
    for i, part in enumerate(parts):
        low = part.lower()
        if i == len(parts) - 1:
            if low in FOLDED_NAMES:
                part = FOLDED_NAMES[low]
            elif low.endswith(".mdc"):
                part = part[:-4] + ".mdc"
        elif low in (".cursor", "rules", "memories"):
            part = low
        out.append(part)
    return "/".join(out)


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
    """For each of ``paths`` (``/``-separated, relative to one root) that differs only in case from another of
    them (``AGENTS.md`` and ``Agents.md``, ``.cursor/rules/x.mdc`` and ``.Cursor/rules/x.mdc``), the others,
    sorted; paths in no such group, or in a group none of whose paths :func:`classify` accepts, are left out.

    On a case-insensitive file system (macOS, Windows) such paths name one file: a checkout keeps one of them
    and Hermes, which opens ``AGENTS.md``, reads whichever is left (round 8 of issue 18). Case is compared with
    ``str.lower`` (what APFS and NTFS fold is close to it; a difference beyond it is not claimed).
    """
    groups: dict[str, list[str]] = {}
    for p in paths:
        groups.setdefault(p.lower(), [])
        if p not in groups[p.lower()]:
            groups[p.lower()].append(p)
    out: dict[str, list[str]] = {}
    for members in groups.values():
        if len(members) < 2 or not any(classify(m) is not None for m in members):
            continue
        for m in members:
            out[m] = sorted(x for x in members if x != m)
    return out
