"""Document kinds: which Hermes surface a file belongs to, decided by its name.

The names come from Hermes Agent's loaders (``agent/prompt_builder.py``,
``agent/subdirectory_hints.py``, ``tools/memory_tool.py``,
``hermes_cli/profile_distribution.py``; 0.19.0 and the newest public source).
"""

from __future__ import annotations

import enum
from pathlib import PurePosixPath
from typing import Optional


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
    return "\\" in name and may_classify(name.replace("\\", "/"))  # classify reads "\\" as "/"


def classify(path: str) -> Optional[DocumentKind]:
    """Kind of a file from its path (``/``-separated, any prefix), or ``None``.

    ``memories/MEMORY.md`` and ``memories/USER.md`` are memory stores; a bare
    ``MEMORY.md`` elsewhere is one too (Hermes only reads it from
    ``memories/``, but a stray copy is still worth auditing). ``USER.md`` counts
    only inside a ``memories`` directory, the name being too common elsewhere.
    """
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
