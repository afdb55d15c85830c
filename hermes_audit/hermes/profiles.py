"""Hermes version profiles: the behaviour that differs between Hermes releases, as data.

One YAML file per profile in ``hermes_audit/hermes/versions/`` (``0.15``, ``0.18``, ``0.19``,
``latest``): the releases it stands for, the package it is tested against, the threat-pattern
catalog it uses (``rules/hermes-parity.yaml``), and each switch with the Hermes file and
release it comes from. Adding a release is adding a file (and its oracle test). The files are
read with ``yaml.SafeLoader`` and validated here: an unknown or missing key, a wrong type or a
release claimed twice is a :class:`ProfileError`.

``session_model`` says whether the session simulation (context-file truncation, subdirectory
hints, the prompt dry run, the profile install plan) is modelled for the profile; where it is
not, commands that need it refuse the profile with one line, and ``scan`` gives the per-file
verdicts only. ``lineage`` names the fully modelled profile whose code paths a profile follows
for behaviours not yet split into switches of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Optional


from hermes_audit.patterns.catalog import DEFAULT_VERSION, VERSIONS as SCANNER_CATALOGS
from hermes_audit import datacache


class ProfileError(Exception):
    """A version profile file is invalid (one line naming the file)."""


@dataclass(frozen=True)
class VersionProfile:
    """Constants and switches of one Hermes version. Sizes are in characters (code points)."""

    name: str
    #: what messages call it ("Hermes 0.19.0")
    label: str
    #: the PyPI releases it stands for (empty for ``latest``)
    releases: tuple[str, ...]
    #: the package the differential tests compare it with (``None``: no runnable package)
    oracle: Optional[str]
    #: the fully modelled profile whose code paths it follows where no switch tells them apart
    lineage: str
    #: the session simulation (truncation, hints, prompt, install plan) is modelled
    session_model: bool
    #: threat-pattern catalog of rules/hermes-parity.yaml
    scanner: str
    #: encoding used to read context files and SOUL.md ("utf-8" keeps a BOM as U+FEFF)
    context_encoding: str
    #: one leading U+FEFF is dropped before the context scan (0.19.0 and later); else it is scanned and blocks
    strip_bom_before_scan: bool
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
    #: the end of the ``[BLOCKED: ...]`` placeholder of a memory entry
    memory_blocked_hint: str
    #: switch name -> where its value comes from (release, file, function)
    sources: tuple[tuple[str, str], ...] = ()


#: The switches a profile file must set, with their types.
_SWITCH_TYPES = {f.name: f.type for f in fields(VersionProfile)
                 if f.name not in ("name", "label", "releases", "oracle", "lineage", "session_model", "sources")}
_TOP_KEYS = {"name", "label", "releases", "oracle", "lineage", "session_model", "switches"}
_PY_TYPES = {"str": str, "bool": bool, "int": int}

#: Where the profile files are.
PROFILES_DIR = Path(__file__).with_name("versions")


def _load_one(path: Path) -> VersionProfile:
    import yaml  # only when the data cache misses (start-up time)

    def bad(msg: str) -> ProfileError:
        return ProfileError(f"{path.name}: {msg}")

    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise bad(f"cannot be read ({type(exc).__name__})") from None
    if not isinstance(data, dict) or set(data) != _TOP_KEYS:
        raise bad(f"keys must be exactly {', '.join(sorted(_TOP_KEYS))}")
    if not all(isinstance(data[k], str) for k in ("name", "label", "lineage")):
        raise bad("name, label and lineage must be strings")
    if not isinstance(data["session_model"], bool):
        raise bad("session_model must be true or false")
    if data["oracle"] is not None and not isinstance(data["oracle"], str):
        raise bad("oracle must be a package requirement or null")
    rel = data["releases"]
    if not isinstance(rel, list) or not all(isinstance(r, str) for r in rel):
        raise bad("releases must be a list of version strings (quote them)")
    sw = data["switches"]
    if not isinstance(sw, dict) or set(sw) != set(_SWITCH_TYPES):
        missing = sorted(set(_SWITCH_TYPES) - set(sw or {}))
        extra = sorted(set(sw or {}) - set(_SWITCH_TYPES)) if isinstance(sw, dict) else []
        raise bad(f"switches: missing {missing or 'none'}, unknown {extra or 'none'}")
    values: dict[str, Any] = {}
    sources = []
    for key, entry in sw.items():
        if not isinstance(entry, dict) or set(entry) != {"value", "source"} or not isinstance(entry["source"], str):
            raise bad(f"switch {key}: needs exactly 'value' and 'source' (a string)")
        want = _PY_TYPES[_SWITCH_TYPES[key]] if isinstance(_SWITCH_TYPES[key], str) else _SWITCH_TYPES[key]
        value = entry["value"]
        if type(value) is not want:
            raise bad(f"switch {key}: value must be of type {want.__name__}")
        values[key] = value
        sources.append((key, entry["source"]))
    if values["scanner"] not in SCANNER_CATALOGS:
        raise bad(f"switch scanner: {values['scanner']!r} is not a catalog of rules/hermes-parity.yaml")
    return VersionProfile(name=data["name"], label=data["label"], releases=tuple(rel), oracle=data["oracle"],
                          lineage=data["lineage"], session_model=data["session_model"], sources=tuple(sources),
                          **values)


def _profile_record(p: VersionProfile) -> tuple:
    return tuple(getattr(p, f.name) for f in fields(VersionProfile))


def load_profiles(directory: Path = PROFILES_DIR) -> dict[str, VersionProfile]:
    """Every profile file of ``directory``, by profile name. Raises :class:`ProfileError`.

    The validated profiles are kept in hermes-audit's data cache (:mod:`hermes_audit.datacache`, keyed by
    the files' and this module's signatures), so a start-up with unchanged files does not import PyYAML.
    """
    paths = sorted(directory.glob("*.yaml"))
    quick = datacache.stat_key(["profiles", 1], [Path(__file__), *paths])
    cached = datacache.read("profiles", quick) if quick else None
    if isinstance(cached, dict):
        try:
            return {name: VersionProfile(*rec) for name, rec in cached.items()}
        except TypeError:
            pass  # another shape: validated again below
    out = _load_files(directory, paths)
    if quick:
        datacache.write("profiles", quick, {name: _profile_record(p) for name, p in out.items()})
    return out


def _load_files(directory: Path, paths: list[Path]) -> dict[str, VersionProfile]:
    out: dict[str, VersionProfile] = {}
    claimed: dict[str, str] = {}
    for path in paths:
        prof = _load_one(path)
        if path.stem != prof.name:
            raise ProfileError(f"{path.name}: the file must be named after its profile ({prof.name}.yaml)")
        for r in prof.releases:
            if r in claimed:
                raise ProfileError(f"{path.name}: release {r} is already in profile {claimed[r]}")
            claimed[r] = prof.name
        out[prof.name] = prof
    for prof in out.values():
        if prof.lineage not in out or not out[prof.lineage].session_model:
            raise ProfileError(f"{prof.name}.yaml: lineage {prof.lineage!r} is not a fully modelled profile")
    return out


PROFILES: dict[str, VersionProfile] = load_profiles()
#: Profile names, newest first (``latest``, then releases by version).
VERSIONS: tuple[str, ...] = tuple(sorted(PROFILES, key=lambda n: (n != "latest", [-int(x) for x in n.split(".")]
                                                                  if n != "latest" else [])))
#: Release name -> profile name (0.17.0 -> 0.15).
RELEASES: dict[str, str] = {r: p.name for p in PROFILES.values() for r in p.releases}
#: Releases no profile models yet, with why.
UNMODELLED_RELEASES = {
    "0.13.0": "uses the legacy scanner inside agent/prompt_builder.py and tools/memory_tool.py",
    "0.14.0": "uses the legacy scanner inside agent/prompt_builder.py and tools/memory_tool.py",
}


def profile_name_for(name: str) -> str:
    """The profile a name stands for: a profile name (``0.19``, ``latest``), a release (``0.17.0``,
    ``v0.18.2``) or its minor version (``0.17``, ``0.18``). Raises ``ValueError`` naming what is supported."""
    key = name.strip().lower().lstrip("v") if name.strip().lower() != "latest" else "latest"
    if key in PROFILES:
        return key
    if key in RELEASES:
        return RELEASES[key]
    minor = [p for r, p in RELEASES.items() if r.rsplit(".", 1)[0] == key]
    if minor and len(set(minor)) == 1:
        return minor[0]
    if key in UNMODELLED_RELEASES or key in {r.rsplit(".", 1)[0] for r in UNMODELLED_RELEASES}:
        rel = key if key in UNMODELLED_RELEASES else key + ".0"
        raise ValueError(f"Hermes {rel} {UNMODELLED_RELEASES[rel]}, which hermes-audit does not model yet "
                         f"(supported: {supported_text()})")
    raise ValueError(f"unknown Hermes version {name!r} (supported: {supported_text()})")


def supported_text() -> str:
    """``latest, 0.19 (0.19.0), 0.18 (0.18.0-0.18.2), ...`` for messages."""
    parts = []
    for n in VERSIONS:
        rel = PROFILES[n].releases
        parts.append(n if not rel else f"{n} ({rel[0]}{'-' + rel[-1] if len(rel) > 1 else ''})")
    return ", ".join(parts) + ", auto"


def get_profile(name: str = DEFAULT_VERSION) -> VersionProfile:
    """Profile by name (see :func:`profile_name_for`). Raises ``ValueError``."""
    return PROFILES[profile_name_for(name)]


def require_session_model(profile: VersionProfile, what: str) -> None:
    """Raise ``ValueError`` (one line) when ``what`` needs the session simulation and ``profile`` lacks it."""
    if not profile.session_model:
        full = ", ".join(n for n in VERSIONS if PROFILES[n].session_model)
        raise ValueError(f"{what} is not modelled for {profile.label} yet (its per-file verdicts and memory are); "
                         f"use --hermes-version {full}")


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
