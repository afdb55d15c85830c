"""Hermes version profiles: the loading behaviour that differs between versions.

Two profiles are supported:

* ``0.19``: the PyPI release hermes-agent 0.19.0 (``agent/prompt_builder.py``,
  ``agent/subdirectory_hints.py``, ``tools/memory_tool.py``,
  ``tools/threat_patterns.py``, ``hermes_cli/profile_distribution.py``).
* ``latest``: the newest public source as described in
  ``../shared/reference/hermes-behaviour.md`` (``V-latest``: prompt_builder @
  f44718bf, threat_patterns @ 00fd54f0, subdirectory_hints @ 0081f93d,
  memory_tool @ 029cfb25).

The threat patterns themselves are data in ``rules/hermes-parity.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_audit.engine.catalog import DEFAULT_VERSION, VERSIONS


@dataclass(frozen=True)
class VersionProfile:
    """Constants and switches of one Hermes version. Sizes are in characters (code points)."""

    name: str
    #: encoding used to read context files and SOUL.md ("utf-8" keeps a BOM as U+FEFF)
    context_encoding: str
    #: SOUL.md owned by the user (no distribution manifest owning it) loads with a warning on a hit
    soul_warn_mode: bool
    #: AGENTS.md is read along the git-root -> cwd chain (else: cwd only)
    agents_chain: bool
    #: AGENTS.override.md is a candidate name
    agents_override: bool
    #: truncation marker lists the Markdown headings of the omitted middle
    marker_lists_headings: bool
    #: per-file cap for subdirectory hints
    hint_max_chars: int
    #: hints are truncated head+tail with the context marker (else: silent head cut)
    hint_head_tail: bool
    #: memory entries longer than the scan window are blocked as too large
    memory_block_oversized_entries: bool
    #: memory render cap and OVER BUDGET suffix
    memory_render_cap: bool

    @property
    def label(self) -> str:
        return "Hermes " + ("0.19.0" if self.name == "0.19" else "latest")


PROFILES: dict[str, VersionProfile] = {
    "0.19": VersionProfile(
        name="0.19",
        context_encoding="utf-8",
        soul_warn_mode=False,
        agents_chain=False,
        agents_override=False,
        marker_lists_headings=False,
        hint_max_chars=8_000,
        hint_head_tail=False,
        memory_block_oversized_entries=False,
        memory_render_cap=False,
    ),
    "latest": VersionProfile(
        name="latest",
        context_encoding="utf-8-sig",
        soul_warn_mode=True,
        agents_chain=True,
        agents_override=True,
        marker_lists_headings=True,
        hint_max_chars=32_000,
        hint_head_tail=True,
        memory_block_oversized_entries=True,
        memory_render_cap=True,
    ),
}

assert set(PROFILES) == set(VERSIONS)


def get_profile(name: str = DEFAULT_VERSION) -> VersionProfile:
    """Profile by name (``latest`` or ``0.19``; ``0.19.0`` is accepted). Raises ``ValueError``."""
    key = name.strip()
    if key == "0.19.0":
        key = "0.19"
    try:
        return PROFILES[key]
    except KeyError:
        raise ValueError(f"unknown Hermes version {name!r} (supported: {', '.join(VERSIONS)})") from None


# Shared constants (identical in both profiles).
#: default context-file cap (prompt_builder.CONTEXT_FILE_MAX_CHARS)
CONTEXT_FILE_MAX_CHARS = 20_000
CONTEXT_TRUNCATE_HEAD_RATIO = 0.7
CONTEXT_TRUNCATE_TAIL_RATIO = 0.2
CONTEXT_FILE_CHARS_PER_TOKEN = 4
CONTEXT_FILE_WINDOW_FRACTION = 0.06
CONTEXT_FILE_DYNAMIC_CEILING = 500_000
#: memory store limits (tools/memory_tool.py defaults)
MEMORY_CHAR_LIMIT = 2_200
USER_CHAR_LIMIT = 1_375
MEMORY_ENTRY_DELIMITER = "\n\u00a7\n"
