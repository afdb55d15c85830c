"""The system prompt a Hermes session starts with, layer by layer (a dry run of the prompt assembly).

Mirrors ``build_system_prompt_parts`` / ``build_system_prompt`` of
``agent/system_prompt.py`` in hermes-agent 0.19.0 (profile ``0.19``) and the
order the reference gives for the newest source (profile ``latest``,
``../shared/reference/hermes-behaviour.md`` section 7.3):

* every part is ``strip()``-ped and empty parts are dropped; the parts of a tier
  are joined with ``"\\n\\n"``, and the tiers ``stable``, ``context``,
  ``volatile`` (those that are not empty) again with ``"\\n\\n"``;
* 0.19 order: *stable*: identity (SOUL.md, else Hermes' default identity),
  help guidance, task-completion and parallel-tool-call guidance (with tools),
  tool guidance (memory, session_search, skill_manage, kanban, joined with a
  space), the steering note (with tools), computer-use guidance, the Nous
  subscription block, tool-use enforcement (+ Google / OpenAI guidance), the
  skills index, the Alibaba model line, environment hints, the coding posture
  (brief, workspace snapshot, operator instructions), the Python toolchain
  probe line, the active-profile line, the platform hint; *context*: the
  caller's ``system_message``, the ``# Project Context`` block; *volatile*: the
  MEMORY block, the USER PROFILE block, an external memory provider's block,
  the session line ``Conversation started: <date>`` (+ ``Model:``/``Provider:``);
* latest order: as 0.19, but the skills index is the first *volatile* layer,
  execution guidance has its own gate, the session line carries the time zone
  and a ``Platform:`` line, and the coding workspace snapshot (when there is
  one) moves to the *context* tier together with everything after it up to the
  platform hint;
* older releases (profiles ``0.13`` to ``0.18``) follow 0.19's order with the layers their release lacks
  absent and a few rules changed, each a profile switch (``prompt_*``, ``skills_*``; docs/prompt.md "Older
  releases"): 0.13.0-0.14.0 assemble it in ``AIAgent._build_system_prompt_parts`` of ``run_agent.py``
  (no active-profile line, the time of day in the session line), 0.15.0-0.16.0 in ``agent/system_prompt.py``
  without the steering note, parallel-tool-call guidance, coding posture or ``platform_hints`` overrides;
* ``agent.system_prompt`` from config.yaml (or ``HERMES_EPHEMERAL_SYSTEM_PROMPT``)
  is Hermes' *ephemeral* system prompt: not part of the cached prompt, appended
  after it with ``"\\n\\n"`` at every API call (tier ``api-call`` here).

The file-based layers come from the colleagues' simulations, unchanged:
:mod:`hermes_audit.hermes.context` (SOUL.md and the ``# Project Context``
block), :mod:`hermes_audit.hermes.memory` (the memory snapshot blocks). The
skills index is built here from ``HERMES_HOME/skills`` and
``skills.external_dirs`` as ``build_skills_system_prompt`` and
``agent/skill_utils.py`` of 0.19.0 do (always the cold path: the
``.skills_prompt_snapshot.json`` cache is not read). Hermes' own fixed texts
come from :mod:`hermes_audit.hermes.hermes_source` (an installed hermes-agent or
``--hermes-source DIR``); without one, each is a clearly marked placeholder
sized from hermes-agent 0.19.0. Things hermes-audit never does: run git in the
scanned repository (the git lines of the coding workspace snapshot stay a
placeholder), run the Python toolchain probe, check a Nous Portal account,
load plugins or a memory provider.

All reading is bounded and hostile-tree safe (see
:mod:`hermes_audit.documents.reader`); nothing is written. Sizes are Python
code points; token counts come from :mod:`hermes_audit.hermes.tokens`.
"""

from __future__ import annotations

import json
import os
import platform as _platform
import posixpath
import re
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES, ReadStatus
from hermes_audit.hermes import context as ctx
from hermes_audit.hermes import memory as mem
from hermes_audit.hermes.hermes_source import (
    CODING_CONTEXT,
    ENFORCEMENT_MODELS_0_19,
    PROMPT_BUILDER,
    SIZES_0_19,
    SKILL_UTILS,
    SYSTEM_PROMPT,
    HermesSource,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ThreatScanner
from hermes_audit.hermes.tokens import TokenCounter, get_counter
from hermes_audit.hermes.truncation import UnknownText, known_text, markdown_headings
from hermes_audit.findings import DetectorHit, Severity
from hermes_audit.hermes.outcomes import read_blocks, unreadable_consequence
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.scenario import scenario_fill, split_scenario
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.patterns.catalog import load_catalog

# ---------------------------------------------------------------------------------------------------
# Constants (facts about Hermes 0.19.0 needed to decide which layers exist; texts come from the source)

TIERS = ("stable", "context", "volatile", "api-call")
TIER_TITLES = {
    "stable": "stable (same for every session of this Hermes, home and machine)",
    "context": "context (depends on the working directory)",
    "volatile": "volatile (changes between sessions: memory, date)",
    "api-call": "api-call (added after the cached prompt at every API call)",
}

# Layer statuses
LOADED = "loaded"
BLOCKED = "blocked"
TRUNCATED = "truncated"
WARNED = "warned"
PLACEHOLDER = "placeholder"
ABSENT = "absent"
UNKNOWN = "unknown"

#: Tools of a plain CLI session that need no credentials or extra software (hermes-agent 0.19.0,
#: ``_HERMES_CORE_TOOLS`` minus the web, browser, vision, image, speech, Home Assistant, kanban,
#: desktop and computer-use tools, which need keys, binaries or a special environment).
DEFAULT_TOOLS = frozenset({
    "terminal", "process", "read_file", "write_file", "patch", "search_files", "skills_list", "skill_view",
    "skill_manage", "todo", "memory", "session_search", "clarify", "execute_code", "delegate_task", "cronjob",
})
SKILL_TOOLS = ("skills_list", "skill_view", "skill_manage")
#: Terminal backends whose host information Hermes suppresses (``_REMOTE_TERMINAL_BACKENDS``).
REMOTE_BACKENDS = frozenset({"docker", "singularity", "modal", "daytona", "ssh", "managed_modal"})
#: Coding-posture facts of hermes-agent 0.19.0 (``agent/coding_context.py``), used when no source is given.
INTERACTIVE_CODING_PLATFORMS = frozenset({"cli", "tui", "acp", "desktop", ""})
PROJECT_MARKERS = (
    "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "package.json", "tsconfig.json", "deno.json",
    "Cargo.toml", "go.mod", "pom.xml", "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "mix.exs",
    "pubspec.yaml", "CMakeLists.txt", "Makefile", "Dockerfile", "AGENTS.md", "CLAUDE.md", ".cursorrules",
)
CODING_CONTEXT_FILES = ("AGENTS.md", "CLAUDE.md", ".cursorrules")
CODE_EXTENSIONS = frozenset({
    ".py", ".pyi", ".ipynb", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".kt", ".kts",
    ".scala", ".rb", ".php", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".m", ".mm", ".dart", ".ex",
    ".exs", ".lua", ".sh", ".bash", ".zsh", ".sql", ".vue", ".svelte", ".r", ".jl", ".hs", ".clj", ".erl", ".pl",
})
CODE_SCAN_SKIP_DIRS = frozenset({".git", "node_modules", "venv", ".venv", "__pycache__", "dist", "build", "target",
                                 ".next", ".turbo", "vendor"})
CODE_SCAN_MAX_ENTRIES = 500
PY_LOCKFILES = (("uv.lock", "uv"), ("poetry.lock", "poetry"), ("Pipfile.lock", "pipenv"))
JS_LOCKFILES = (("pnpm-lock.yaml", "pnpm"), ("bun.lockb", "bun"), ("bun.lock", "bun"), ("yarn.lock", "yarn"),
                ("package-lock.json", "npm"))
VERIFY_TARGETS = ("test", "tests", "lint", "typecheck", "check", "build", "fmt", "format")
MAX_VERIFY_COMMANDS = 8
MAX_FACT_FILE_BYTES = 256 * 1024
#: Skill-index walk facts (``agent/skill_utils.py`` of 0.19.0).
EXCLUDED_SKILL_DIRS = frozenset({".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules",
                                 "site-packages", "__pycache__", ".tox", ".nox", ".pytest_cache", ".mypy_cache",
                                 ".ruff_cache"})
SKILL_SUPPORT_DIRS = frozenset({"references", "templates", "assets", "scripts"})
SKILL_PLATFORM_MAP = {"macos": "darwin", "linux": "linux", "windows": "win32"}
KNOWN_SKILL_ENVIRONMENTS = frozenset({"kanban", "docker", "s6"})
#: Bounds of the skills walk (a home is the user's own, but stay bounded anyway).
MAX_SKILL_DIRS = 20_000
MAX_SKILL_DEPTH = 24
#: Context window assumed for shares when none is known (tokens).
ASSUMED_CONTEXT_WINDOW = 128_000
#: Default share of the context window the assembled prompt may take before ``HA801`` fires.
DEFAULT_MAX_SHARE = 0.25
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")

#: When each layer changes (shown in the budget table's cache column).
CHANGES_WHEN = {
    "identity": "SOUL.md edited",
    "help-guidance": "Hermes upgraded",
    "task-completion": "Hermes upgraded, config or tools changed",
    "parallel-tool-calls": "Hermes upgraded, config or tools changed",
    "tool-guidance": "tools changed",
    "steer-note": "tools changed",
    "computer-use": "tools changed",
    "nous-subscription": "subscription changed",
    "tool-use-enforcement": "model or config changed",
    "google-guidance": "model changed",
    "openai-execution-guidance": "model changed",
    "execution-guidance": "model or config changed",
    "skills-index": "a skill added, removed or its description edited",
    "alibaba-model": "model changed",
    "environment-hints": "machine, home or working directory changed",
    "coding-brief": "model or config changed",
    "coding-workspace": "git state or project files changed (re-read each session)",
    "coding-instructions": "config changed",
    "environment-probe": "Python toolchain changed",
    "bot-mode": "bot mode changed",
    "active-profile": "profile changed",
    "platform-hint": "platform or config changed",
    "system-message": "caller changed",
    "project-context": "a context file edited or another directory",
    "memory": "a memory saved (next session or after compression)",
    "user-profile": "a user-profile fact saved (next session or after compression)",
    "memory-provider": "every session",
    "plugin-context": "plugin output changed",
    "session": "every day (the date)",
    "ephemeral-system-prompt": "config changed (not cached: sent after the prompt)",
}


class PromptError(Exception):
    """Bad settings for a dry run (a working directory that is not a directory...); one line."""


# ---------------------------------------------------------------------------------------------------
# Settings


@dataclass
class PromptSettings:
    """What a session is started with.

    ``cwd`` is the launch directory (Hermes uses its real path); ``home`` the
    HERMES_HOME (a named profile's home is ``<root>/profiles/<name>``);
    ``platform`` the surface (``cli``, ``telegram``...); ``model``/``provider``
    as Hermes reports them (``None``: from config.yaml); ``tools`` the names of
    the tools the session has (``None``: :data:`DEFAULT_TOOLS`);
    ``context_length`` the model's window in tokens (``None``: config.yaml
    ``model.context_length``, else unknown); ``now`` the session start
    (timezone-aware; ``None``: the current time); ``system_message`` the
    ``system_message`` argument of ``build_system_prompt`` (the CLI and the
    gateway pass none); ``environ`` the environment variables Hermes would see
    (default: this process's).
    """

    cwd: Path
    home: Path
    platform: str = "cli"
    model: Optional[str] = None
    provider: Optional[str] = None
    tools: Optional[frozenset[str]] = None
    context_length: Optional[int] = None
    now: Optional[datetime] = None
    system_message: Optional[str] = None
    session_id: Optional[str] = None
    environ: Optional[dict[str, str]] = None
    max_share: float = DEFAULT_MAX_SHARE
    max_bytes: int = DEFAULT_MAX_BYTES


def parse_now(value: str) -> datetime:
    """``--now``: an ISO 8601 time (``2026-07-15T09:30``, ``2026-07-15T09:30:00+02:00``, a trailing ``Z``).
    A time without an offset is local wall-clock time of the session's time zone. Raises ``ValueError``."""
    v = value.strip()
    if v.endswith(("Z", "z")):
        v = v[:-1] + "+00:00"
    try:
        return datetime.fromisoformat(v)
    except ValueError:
        raise ValueError(f"--now {value!r}: not an ISO 8601 time (e.g. 2026-07-15T09:30:00+00:00)") from None


def parse_tools(value: Optional[str]) -> Optional[frozenset[str]]:
    """``--tools``: ``default``, ``none`` or comma-separated tool names."""
    if value is None or value.strip() == "default":
        return None
    if value.strip() == "none":
        return frozenset()
    return frozenset(t.strip() for t in value.split(",") if t.strip())


# ---------------------------------------------------------------------------------------------------
# The report


@dataclass
class Layer:
    """One part of the system prompt.

    ``text`` is the exact (stripped) text, or ``None`` for a placeholder;
    ``display`` is what the printed prompt shows (the text, or the placeholder
    marker); ``chars`` the characters the layer takes in Hermes' prompt (a
    placeholder's size comes from hermes-agent 0.19.0 when known);
    ``source`` the file or Hermes constant it comes from; ``lost`` the
    instructions (Markdown headings or first lines) that do not reach the
    model because the layer is blocked or cut.
    """

    id: str
    title: str
    tier: str
    status: str
    text: Optional[str] = None
    display: str = ""
    chars: int = 0
    size_known: bool = True
    source: str = ""
    reason: str = ""
    tokens: int = 0
    lost: list[str] = field(default_factory=list)
    pattern_ids: list[str] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    details: dict = field(default_factory=dict)

    @property
    def included(self) -> bool:
        return self.status not in (ABSENT,)

    def to_dict(self) -> dict:
        out: dict = {
            "name": self.id, "title": self.title, "tier": self.tier, "status": self.status,
            "source": self.source or None, "characters": self.chars, "size_known": self.size_known,
            "estimated_tokens": self.tokens, "reason": self.reason,
        }
        if self.lost:
            out["lost"] = list(self.lost)
        if self.pattern_ids:
            out["pattern_ids"] = list(self.pattern_ids)
        if self.details:
            out.update(self.details)
        if self.status != ABSENT:
            out["text"] = self.text
        return out


@dataclass
class PromptReport:
    """The dry run's result: every layer in Hermes' order, the assembled prompt and the budget."""

    profile: VersionProfile
    settings: PromptSettings
    layers: list[Layer]
    counter: TokenCounter
    source: Optional[HermesSource]
    cwd: str
    home: str
    cap: Any
    context_window: Optional[int]
    window_source: str
    model: str
    provider: str
    tools: frozenset[str]
    tools_source: str
    now: datetime
    notes: list[str] = field(default_factory=list)
    problem: Optional[str] = None
    context_report: Optional[ctx.ContextReport] = None
    stores: list = field(default_factory=list)
    memory_config: Optional[mem.MemoryConfig] = None
    #: A memory store whose read blocks the session start (a FIFO or device; both profiles read the stores
    #: with a plain ``read_text()``, ``tools/memory_tool.py``): no prompt is ever built.
    memory_hang: Optional[mem.StoreReport] = None

    # -- assembly --------------------------------------------------------------------------------
    def included(self) -> list[Layer]:
        return [ly for ly in self.layers if ly.included]

    def _tier_text(self, tier: str, shown: bool) -> str:
        parts = [(ly.display if shown else (ly.text or "")) for ly in self.included() if ly.tier == tier]
        return "\n\n".join(p.strip() for p in parts if p and p.strip())

    def tier_texts(self, shown: bool = True) -> dict[str, str]:
        """``{tier: text}`` for the three cached tiers (``shown``: placeholders as markers)."""
        return {t: self._tier_text(t, shown) for t in TIERS[:3]}

    @property
    def exact(self) -> bool:
        """True when every included layer is known byte for byte."""
        return self.problem is None and all(ly.text is not None for ly in self.included())

    @property
    def prompt(self) -> str:
        """The cached system prompt (``build_system_prompt``); placeholders appear as markers."""
        tiers = self.tier_texts(shown=True)
        return "\n\n".join(tiers[t] for t in TIERS[:3] if tiers[t])

    @property
    def api_system_message(self) -> str:
        """What is sent as the system message: the cached prompt plus the ephemeral prompt."""
        eph = "".join(ly.display for ly in self.included() if ly.tier == "api-call")
        base = self.prompt
        return (base + "\n\n" + eph).strip() if eph else base

    @property
    def total_chars(self) -> int:
        inc = [ly for ly in self.included() if ly.tier != "api-call" and ly.chars > 0]
        return sum(ly.chars for ly in inc) + 2 * max(0, len(inc) - 1)

    @property
    def total_tokens(self) -> int:
        if self.exact:
            return self.counter.count(self.prompt)
        return sum(ly.tokens for ly in self.included() if ly.tier != "api-call")

    @property
    def api_call_tokens(self) -> int:
        return sum(ly.tokens for ly in self.included() if ly.tier == "api-call")

    def budget(self) -> list[dict]:
        """One row per included layer: tokens, share of the prompt, tokens re-sent uncached when it changes."""
        rows: list[dict] = []
        inc = [ly for ly in self.included() if ly.tier != "api-call"]
        total = max(1, sum(ly.tokens for ly in inc))
        after = total
        for ly in inc:
            rows.append({
                "name": ly.id, "tier": ly.tier, "status": ly.status, "characters": ly.chars, "tokens": ly.tokens,
                "share": ly.tokens / total, "uncached_tokens_on_change": after,
                "changes_when": CHANGES_WHEN.get(ly.id, ""),
            })
            after -= ly.tokens
        for ly in self.included():
            if ly.tier == "api-call":
                rows.append({"name": ly.id, "tier": ly.tier, "status": ly.status, "characters": ly.chars,
                             "tokens": ly.tokens, "share": 0.0, "uncached_tokens_on_change": ly.tokens,
                             "changes_when": CHANGES_WHEN.get(ly.id, "")})
        return rows

    @property
    def window_share(self) -> Optional[float]:
        w = self.context_window or ASSUMED_CONTEXT_WINDOW
        return (self.total_tokens + self.api_call_tokens) / w if w else None

    def to_dict(self) -> dict:
        w = self.context_window
        return {
            "hermes_version": self.profile.name,
            "hermes": self.profile.label,
            "cwd": self.cwd,
            "hermes_home": self.home,
            "platform": self.settings.platform,
            "model": self.model,
            "provider": self.provider,
            "tools": sorted(self.tools),
            "tools_source": self.tools_source,
            "now": self.now.isoformat(),
            "fixed_texts": self.source.origin if self.source else None,
            "fixed_texts_version": self.source.version if self.source else None,
            "token_method": self.counter.method,
            "token_method_description": self.counter.describe(),
            "context_cap": self.cap.to_dict() if hasattr(self.cap, "to_dict") else None,
            "context_window": w,
            "context_window_source": self.window_source,
            "exact": self.exact,
            "problem": self.problem,
            "layers": [ly.to_dict() for ly in self.layers],
            "tiers": self.tier_texts(shown=True),
            "prompt": self.prompt,
            "api_system_message": self.api_system_message,
            "budget": {
                "rows": self.budget(),
                "total_characters": self.total_chars,
                "total_tokens": self.total_tokens,
                "api_call_tokens": self.api_call_tokens,
                "context_window": w or ASSUMED_CONTEXT_WINDOW,
                "context_window_assumed": w is None,
                "window_share": self.window_share,
                "max_share": self.settings.max_share,
            },
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------------------------------
# Helpers


def placeholder_marker(what: str, size: Optional[int], version_note: str = "hermes-agent 0.19.0") -> str:
    """The marker printed in place of a text hermes-audit does not have."""
    sz = f"about {size:,} characters in {version_note}" if size is not None else "size unknown"
    return (f"[[hermes-audit placeholder: {what} ({sz}); it is Hermes' own text: install hermes-agent or "
            f"give --hermes-source DIR to see it]]")


def _truthy(v: Any) -> bool:
    return str(v).strip().lower() in {"1", "true", "yes", "on"}


def _section(cfg: dict, key: str) -> dict:
    v = cfg.get(key) if isinstance(cfg, dict) else None
    return v if isinstance(v, dict) else {}


def _read_yaml(fs, path: str, root: Optional[str]) -> tuple[dict, Optional[str]]:
    """A YAML mapping read through ``fs`` (``{}`` when absent or unusable) and a problem or ``None``."""
    if ctx.safe_type(fs, path) is None:
        return {}, None
    res = fs.read(path, root)
    if res.status is not ReadStatus.OK or res.text is None:
        return {}, f"{path}: {res.detail or res.status.value}; Hermes' defaults assumed"
    return ctx.config_mapping(res.text, path)


def format_date(d: datetime) -> str:
    """``%A, %B %d, %Y`` in the C locale (what Hermes' ``strftime`` gives)."""
    return f"{_DAYS[d.weekday()]}, {_MONTHS[d.month - 1]} {d.day:02d}, {d.year}"


def _zone(name: str):
    if not name:
        return None
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(name)
    except Exception:
        return None


def session_time(now: Optional[datetime], tz_name: str) -> datetime:
    """The session start as Hermes' ``hermes_time.now()`` sees it: in the configured zone, else local time."""
    tz = _zone(tz_name)
    if now is None:
        now = datetime.now(timezone.utc)
    if now.tzinfo is None:
        return now.replace(tzinfo=tz) if tz is not None else now.astimezone()
    return now.astimezone(tz) if tz is not None else now.astimezone()


def _local_zone_name(environ: dict[str, str]) -> str:
    tz = environ.get("TZ", "").lstrip(":").strip()
    if tz and not tz.startswith("/"):
        return tz
    try:
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            return link.split("zoneinfo/", 1)[1]
    except OSError:
        pass
    return "UTC"


def _utc_offset(d: datetime) -> str:
    off = d.utcoffset() or timedelta(0)
    minutes = int(off.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    minutes = abs(minutes)
    return f"UTC{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def _model_from_config(cfg: dict) -> tuple[str, str, Optional[int]]:
    m = cfg.get("model")
    if isinstance(m, str):
        return m, "", None
    if isinstance(m, dict):
        name = m.get("default") or m.get("name") or m.get("model") or ""
        return str(name or ""), str(m.get("provider") or ""), ctx.model_context_length(cfg)
    return "", "", None


def active_profile_name(home: Path, environ: dict[str, str]) -> tuple[str, str]:
    """``(active profile, root)`` as ``_resolve_active_profile_name`` / ``get_default_hermes_root`` of 0.19.0
    derive them from HERMES_HOME (``<root>/profiles/<name>`` is profile ``name``)."""
    native = Path(environ.get("HOME") or os.path.expanduser("~")) / ".hermes"
    h = Path(home)
    try:
        h.resolve().relative_to(native.resolve())
        root = native
    except (ValueError, OSError):
        root = h.parent.parent if h.parent.name == "profiles" else h
    try:
        rel = h.resolve().relative_to((root.resolve() / "profiles"))
        if rel.parts:
            return rel.parts[0], str(root)
    except (ValueError, OSError):
        pass
    return "default", str(root)


# ---------------------------------------------------------------------------------------------------
# The skills index (build_skills_system_prompt + agent/skill_utils.py, hermes-agent 0.19.0)


def parse_skill_frontmatter(content: str) -> dict:
    """``parse_frontmatter`` of 0.19.0: YAML between a leading ``---`` and the next ``\\n---`` line (one
    leading BOM dropped); malformed YAML falls back to ``key: value`` lines. Read with the bounded safe loader."""
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
    from hermes_audit.hermes.distribution import load_yaml_bounded

    if content.startswith("\ufeff"):
        content = content[1:]
    if not content.startswith("---"):
        return {}
    m = re.search(r"\n---\s*\n", content[3:])
    if not m:
        return {}
    yaml_content = content[3:m.start() + 3]
    try:
        parsed = load_yaml_bounded(yaml_content)
        return parsed if isinstance(parsed, dict) else {}
    except Exception:
        fm: dict = {}
        for line in yaml_content.strip().split("\n"):
            if ":" not in line:
                continue
            k, v = line.split(":", 1)
            fm[k.strip()] = v.strip()
        return fm


def skill_description(fm: dict) -> str:
    """``extract_skill_description``: the description, stripped of spaces and quotes, cut to 57 + ``...``."""
    raw = fm.get("description", "")
    if not raw:
        return ""
    desc = str(raw).strip().strip("'\"")
    return desc[:57] + "..." if len(desc) > 60 else desc


def skill_conditions(fm: dict) -> dict:
    """``extract_skill_conditions``: ``metadata.hermes`` activation lists."""
    md = fm.get("metadata")
    md = md if isinstance(md, dict) else {}
    h = md.get("hermes") or {}
    h = h if isinstance(h, dict) else {}
    return {k: h.get(k, []) for k in ("fallback_for_toolsets", "requires_toolsets", "fallback_for_tools",
                                      "requires_tools")}


def skill_should_show(cond: dict, tools: set, toolsets: set) -> bool:
    """``_skill_should_show`` with both sets known."""
    for ts in cond.get("fallback_for_toolsets") or []:
        if ts in toolsets:
            return False
    for t in cond.get("fallback_for_tools") or []:
        if t in tools:
            return False
    for ts in cond.get("requires_toolsets") or []:
        if ts not in toolsets:
            return False
    for t in cond.get("requires_tools") or []:
        if t not in tools:
            return False
    return True


def _platform_matches(platforms: Any) -> bool:
    if not platforms:
        return True
    if not isinstance(platforms, list):
        platforms = [platforms]
    for p in platforms:
        n = str(p).lower().strip()
        if sys.platform.startswith(SKILL_PLATFORM_MAP.get(n, n)):
            return True
    return False


def _in_container(environ: dict[str, str]) -> bool:
    if os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv") or environ.get("KUBERNETES_SERVICE_HOST"):
        return True
    for p in ("/proc/1/cgroup", "/proc/self/mountinfo"):
        try:
            with open(p, encoding="utf-8", errors="replace") as fh:
                data = fh.read(1 << 20)
        except OSError:
            continue
        if any(m in data for m in ("docker", "podman", "lxc", "kubepods", "containerd", "crio")):
            return True
    return False


def _environment_active(env: str, environ: dict[str, str], config: dict) -> bool:
    if env == "kanban":
        if environ.get("HERMES_KANBAN_TASK") or environ.get("HERMES_KANBAN_BOARD"):
            return True
        ts = config.get("toolsets")
        return isinstance(ts, list) and "kanban" in ts
    if env == "docker":
        return _in_container(environ)
    if env == "s6":
        return os.path.isdir("/run/s6") or os.path.isdir("/package/admin/s6-overlay")
    return True


def _environment_matches(fm: dict, environ: dict[str, str], config: dict) -> bool:
    envs = fm.get("environments")
    if not envs:
        return True
    if not isinstance(envs, list):
        envs = [envs]
    for e in envs:
        n = str(e).lower().strip()
        if not n:
            continue
        if n not in KNOWN_SKILL_ENVIRONMENTS:
            return True
        if _environment_active(n, environ, config):
            return True
    return False


def _str_set(values: Any) -> set[str]:
    if values is None:
        return set()
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, (list, tuple, set)):
        return set()
    return {str(v).strip() for v in values if str(v).strip()}


@dataclass(frozen=True)
class SkillRules:
    """How a release builds the skills index (``agent/skill_utils.py``, ``agent/prompt_builder.py``).

    ``excluded``: directory names never walked (``EXCLUDED_SKILL_DIRS``: 0.13.0-0.14.0 ``.git``, ``.github``,
    ``.hub``, ``.archive`` only); ``prune_support_dirs``: ``references/``, ``templates/``, ``assets/``,
    ``scripts/`` beside a ``SKILL.md`` are not walked (profile switch ``skills_prune_support_dirs``);
    ``environments``: the ``environments:`` front-matter filter (``skills_environments_filter``);
    ``platform_union``: ``skills.platform_disabled`` adds to ``skills.disabled`` (``skills_platform_disabled_union``;
    else it replaces it, for a platform named by ``HERMES_PLATFORM``/``HERMES_SESSION_PLATFORM`` only)."""

    excluded: frozenset[str] = EXCLUDED_SKILL_DIRS
    prune_support_dirs: bool = True
    environments: bool = True
    platform_union: bool = True


def iter_skill_files(fs, skills_dir: str, filename: str, home_real: str, notes: list[str],
                     rules: SkillRules = SkillRules()) -> list[str]:
    """``iter_skill_index_files``: every ``filename`` under ``skills_dir``, sorted by path; excluded and
    (with ``rules.prune_support_dirs``) support directories pruned. Directory symlinks are followed only when
    they stay inside ``home_real`` or ``skills_dir`` (Hermes follows every one), loops are cut, and the walk is
    bounded."""
    base_real = fs.realpath(skills_dir)
    matches: list[str] = []
    stack: list[tuple[str, int]] = [(skills_dir, 0)]
    seen: set[str] = set()
    count = 0
    while stack:
        d, depth = stack.pop()
        real = fs.realpath(d)
        if real in seen or depth > MAX_SKILL_DEPTH:
            continue
        seen.add(real)
        count += 1
        if count > MAX_SKILL_DIRS:
            notes.append(f"skills: more than {MAX_SKILL_DIRS:,} directories under {skills_dir}; the rest was not read")
            break
        entries = fs.scandir_types(d)
        names = {n for n, _ in entries}
        has_skill = "SKILL.md" in names
        subdirs: list[str] = []
        for name, is_dir in entries:
            p = os.path.join(d, name)
            if not is_dir and fs.is_symlink(p) and ctx.safe_type(fs, p) == "dir":
                target = fs.realpath(p)
                if not (ctx.is_relative_to(target, home_real) or ctx.is_relative_to(target, base_real)):
                    notes.append(f"skills: {p} links to {target}, outside HERMES_HOME; Hermes follows it, "
                                 "hermes-audit does not (the index may miss those skills)")
                    continue
                is_dir = True
            if is_dir:
                if name in rules.excluded or (rules.prune_support_dirs and has_skill and name in SKILL_SUPPORT_DIRS):
                    continue
                subdirs.append(p)
        if filename in names:
            matches.append(os.path.join(d, filename))
        stack.extend((s, depth + 1) for s in sorted(subdirs, reverse=True))
    return sorted(matches)


@dataclass
class SkillEntry:
    name: str
    skill_dir: str
    category: str
    description: str
    path: str
    shown: bool
    reason: str = ""


@dataclass
class SkillsIndex:
    """The skills index: its lines (without Hermes' framing), the skills and why some are not shown."""

    lines: list[str]
    skills: list[SkillEntry]
    demoted: bool
    notes: list[str] = field(default_factory=list)


def _category_of(rel_parts: tuple[str, ...]) -> tuple[str, str]:
    if len(rel_parts) >= 2:
        name = rel_parts[-2]
        cat = "/".join(rel_parts[:-2]) if len(rel_parts) > 2 else rel_parts[0]
        return name, cat
    return "", "general"


def build_skills_index(fs, home: str, config: dict, tools: set[str], toolsets: Optional[set[str]],
                       platform_name: str, environ: dict[str, str], compact: frozenset[str] = frozenset(),
                       rules: SkillRules = SkillRules()) -> SkillsIndex:
    """The skill index lines for a session (``build_skills_system_prompt`` of 0.19.0, cold path; ``rules``: what
    differs in other releases, :class:`SkillRules`).

    ``toolsets`` is ``None`` when the tool-to-toolset map is unknown (no Hermes
    source): skills with toolset conditions are then decided as if no toolset
    were available, and a note says so.
    """
    notes: list[str] = []
    sep = "/" if isinstance(fs, ctx.MemoryFS) else os.sep
    join = posixpath.join if sep == "/" else os.path.join
    skills_dir = join(home, "skills")
    home_real = fs.realpath(home)
    skills_cfg = _section(config, "skills")
    # external dirs
    external: list[str] = []
    raw = skills_cfg.get("external_dirs")
    if isinstance(raw, str):
        raw = [raw]
    if isinstance(raw, list):
        local_real = fs.realpath(skills_dir)
        for entry in raw:
            e = str(entry).strip()
            if not e:
                continue
            e = os.path.expanduser(os.path.expandvars(e)) if sep != "/" else e
            p = e if e.startswith("/") or os.path.isabs(e) else join(home, e)
            p = fs.realpath(p)
            if p == local_real or p in external:
                continue
            if ctx.safe_type(fs, p) == "dir":
                external.append(p)
    if ctx.safe_type(fs, skills_dir) != "dir" and not external:
        return SkillsIndex([], [], False, notes)
    sess_platform = environ.get("HERMES_PLATFORM") or environ.get("HERMES_SESSION_PLATFORM") or (
        platform_name if platform_name not in ("cli", "tui", "") and rules.platform_union else "")
    disabled = _str_set(skills_cfg.get("disabled"))
    if sess_platform:
        pd = skills_cfg.get("platform_disabled")
        if isinstance(pd, dict) and pd.get(sess_platform) is not None:
            # 0.13.0-0.16.0 get_disabled_skill_names: the platform's list instead of the global one
            disabled = (disabled if rules.platform_union else set()) | _str_set(pd.get(sess_platform))
    ts = toolsets if toolsets is not None else set()
    if toolsets is None:
        notes.append("skills: the tool-to-toolset map needs the Hermes source; skills that require or replace a "
                     "toolset were decided as if no toolset were available")
    by_cat: dict[str, list[tuple[str, str]]] = {}
    cat_desc: dict[str, str] = {}
    skills: list[SkillEntry] = []
    seen_names: set[str] = set()

    def read_text(path: str, root: str) -> Optional[str]:
        res = fs.read(path, root)
        if res.status in (ReadStatus.OK, ReadStatus.OVERSIZED) and res.text is not None:
            return res.text
        return None

    for idx, base in enumerate([skills_dir] + external):
        if ctx.safe_type(fs, base) != "dir":
            continue
        root = home_real if idx == 0 else fs.realpath(base)
        for path in iter_skill_files(fs, base, "SKILL.md", home_real if idx == 0 else root, notes, rules):
            rel = tuple(p for p in path[len(base):].split(sep) if p)
            skill_name, category = _category_of(rel)
            if not skill_name:
                skill_name = posixpath.basename(posixpath.dirname(path)) if sep == "/" else os.path.basename(os.path.dirname(path))
            text = read_text(path, root)
            fm = parse_skill_frontmatter(text) if text is not None else {}
            fm_name = str(fm.get("name", skill_name))
            compatible = text is None or (_platform_matches(fm.get("platforms")) and
                                          (not rules.environments or _environment_matches(fm, environ, config)))
            desc = skill_description(fm) if (compatible and text is not None) else ""
            entry = SkillEntry(fm_name, skill_name, category, desc, path, False)
            skills.append(entry)
            if not compatible:
                entry.reason = "not for this platform or environment (platforms/environments in its front matter)"
                continue
            if idx > 0 and fm_name in seen_names:
                entry.reason = "a skill of the same name in HERMES_HOME/skills wins"
                continue
            if fm_name in disabled or skill_name in disabled:
                entry.reason = "disabled in config.yaml (skills.disabled)"
                continue
            if not skill_should_show(skill_conditions(fm), tools, ts):
                entry.reason = "its metadata.hermes conditions hide it for this tool set"
                continue
            entry.shown = True
            if idx > 0:
                seen_names.add(fm_name)
            by_cat.setdefault(category, []).append((fm_name, desc))
        if idx == 0:
            seen_names = {n for lst in by_cat.values() for n, _ in lst}
        for dpath in iter_skill_files(fs, base, "DESCRIPTION.md", home_real if idx == 0 else root, notes, rules):
            text = read_text(dpath, root)
            if text is None:
                continue
            fm = parse_skill_frontmatter(text)
            cd = fm.get("description")
            if not cd:
                continue
            rel = tuple(p for p in dpath[len(base):].split(sep) if p)
            cat = "/".join(rel[:-1]) if len(rel) > 1 else "general"
            val = str(cd).strip().strip("'\"")
            if idx == 0:
                cat_desc[cat] = val
            else:
                cat_desc.setdefault(cat, val)
    demoted = frozenset(c for c in by_cat if c.split("/", 1)[0] in compact)
    lines: list[str] = []
    for category in sorted(by_cat):
        if category in demoted:
            names = sorted({n for n, _ in by_cat[category]})
            lines.append(f"  {category} [names only]: {', '.join(names)}")
            continue
        d = cat_desc.get(category, "")
        lines.append(f"  {category}: {d}" if d else f"  {category}:")
        done: set[str] = set()
        for name, desc in sorted(by_cat[category], key=lambda x: x[0]):
            if name in done:
                continue
            done.add(name)
            lines.append(f"    - {name}: {desc}" if desc else f"    - {name}")
    return SkillsIndex(lines, skills, bool(demoted), notes)


# ---------------------------------------------------------------------------------------------------
# The coding posture (agent/coding_context.py of hermes-agent 0.19.0)


def _coding_mode(config: dict) -> str:
    raw = _section(config, "agent").get("coding_context", "auto")
    m = str(raw).strip().lower()
    if m in {"focus", "strict", "lean"}:
        return "focus"
    if m in {"on", "true", "yes", "1", "always"}:
        return "on"
    if m in {"off", "false", "no", "0", "never"}:
        return "off"
    return "auto"


def _git_root(fs, cwd: str) -> Optional[str]:
    for d in [cwd] + ctx.parents_of(cwd):
        if ctx.safe_type(fs, os.path.join(d, ".git") if os.sep != "/" else posixpath.join(d, ".git")) is not None:
            return d
    return None


def _marker_root(fs, cwd: str, home: Optional[str], markers: tuple[str, ...]) -> Optional[str]:
    temp_root = os.path.realpath(tempfile.gettempdir())
    for depth, d in enumerate([cwd] + ctx.parents_of(cwd)):
        if depth > 6:
            break
        if d == home or d == temp_root:
            continue
        for m in markers:
            if ctx.safe_type(fs, posixpath.join(d, m)) is not None:
                return d
    return None


def _has_code_files(fs, root: str, exts: frozenset[str], skip: frozenset[str]) -> bool:
    seen = 0
    stack = [(root, True)]
    while stack:
        d, is_root = stack.pop()
        for name, is_dir in fs.scandir_types(d):
            seen += 1
            if seen > CODE_SCAN_MAX_ENTRIES:
                return False
            p = posixpath.join(d, name)
            t = ctx.safe_type(fs, p)
            if t == "file":
                if os.path.splitext(name)[1].lower() in exts:
                    return True
            elif is_root and t == "dir" and name not in skip and not name.startswith("."):
                stack.append((p, False))
    return False


def _small_text(fs, path: str, root: str) -> str:
    if ctx.safe_type(fs, path) != "file":
        return ""
    res = fs.read(path, root)
    if res.status is not ReadStatus.OK or res.text is None or res.size_bytes > MAX_FACT_FILE_BYTES:
        return ""
    return res.text


def project_fact_lines(fs, root: str, markers: tuple[str, ...], context_files: tuple[str, ...]) -> list[str]:
    """``_project_facts``: manifest, package manager, verify commands and context files of ``root``."""
    isfile = lambda n: ctx.safe_type(fs, posixpath.join(root, n)) == "file"  # noqa: E731
    manifests = [m for m in markers if m not in context_files and isfile(m)]
    pms = list(dict.fromkeys(pm for lock, pm in (*PY_LOCKFILES, *JS_LOCKFILES) if isfile(lock)))
    verify: list[str] = []
    if ctx.safe_type(fs, posixpath.join(root, "scripts", "run_tests.sh")) == "file":
        verify.append("scripts/run_tests.sh")
    if isfile("package.json"):
        try:
            data = json.loads(_small_text(fs, posixpath.join(root, "package.json"), root) or "{}")
            scripts = data.get("scripts") or {} if isinstance(data, dict) else {}
        except (json.JSONDecodeError, AttributeError, RecursionError):
            scripts = {}
        if not isinstance(scripts, dict):
            scripts = {}
        js_pm = next((pm for lock, pm in JS_LOCKFILES if isfile(lock)), "npm")
        verify.extend(f"{js_pm} run {n}" for n in VERIFY_TARGETS if n in scripts)
    if isfile("pytest.ini") or "[tool.pytest" in _small_text(fs, posixpath.join(root, "pyproject.toml"), root):
        verify.append("pytest")
    mk = _small_text(fs, posixpath.join(root, "Makefile"), root)
    if mk:
        verify.extend(f"make {n}" for n in VERIFY_TARGETS if re.search(rf"^{re.escape(n)}\s*:", mk, re.MULTILINE))
    verify = list(dict.fromkeys(verify))[:MAX_VERIFY_COMMANDS]
    ctx_files = [c for c in context_files if isfile(c)]
    out: list[str] = []
    if manifests:
        line = f"- Project: {', '.join(manifests[:6])}"
        if pms:
            line += f" ({'/'.join(pms)})"
        out.append(line)
    if verify:
        out.append(f"- Verify: {'; '.join(verify)}")
    if ctx_files:
        out.append(f"- Context files: {', '.join(ctx_files)}")
    return out


# ---------------------------------------------------------------------------------------------------
# Assembly


class _Builder:
    """Builds the layers of one dry run."""

    def __init__(self, settings: PromptSettings, profile: VersionProfile, scanner: ThreatScanner,
                 source: Optional[HermesSource], fs, counter: TokenCounter) -> None:
        self.s = settings
        self.p = profile
        self.scanner = scanner
        self.src = source
        self.fs = fs
        self.counter = counter
        self.env = dict(os.environ if settings.environ is None else settings.environ)
        self.notes: list[str] = []
        self.layers: list[Layer] = []
        self.src_note = ""
        self.memory_hang: Optional[mem.StoreReport] = None
        want = profile.prompt_fixed_texts_release
        # a release of the profile is the one the user runs: its installed texts are the texts (0.14.0's for 0.13)
        if source is not None and source.version and want and source.version != want \
                and source.version not in profile.releases:
            self.notes.append(f"fixed texts come from hermes-agent {source.version}, not {want}: they may differ")
        elif source is not None and not want and source.version:
            self.notes.append(f"profile {profile.name} with fixed texts from hermes-agent {source.version}: the newest "
                              "Hermes' texts may differ")

    # -- fixed texts ----------------------------------------------------------------------------------
    def fixed(self, key: str) -> Optional[str]:
        if self.src is None:
            return None
        v = self.src.text(key)
        return v

    def fixed_value(self, key: str) -> Any:
        return self.src.constant(key) if self.src is not None else None

    def src_label(self, module: str, name: str) -> str:
        return f"hermes:{module}:{name}"

    def add(self, ly: Layer) -> Layer:
        self.layers.append(ly)
        return ly

    def text_layer(self, id_: str, title: str, tier: str, text: Optional[str], source: str, reason: str,
                   size_key: Optional[str] = None, size: Optional[int] = None, status: str = LOADED,
                   what: Optional[str] = None) -> Layer:
        """A layer whose text is known (``text``) or a placeholder sized by ``size_key``/``size``."""
        if text is not None:
            t = text.strip()
            return self.add(Layer(id_, title, tier, status, t, t, len(t), True, source, reason))
        sz = size if size is not None else (SIZES_0_19.get(size_key) if size_key else None)
        marker = placeholder_marker(what or title, sz)
        return self.add(Layer(id_, title, tier, PLACEHOLDER, None, marker, sz or 0, sz is not None, source,
                              reason + "; text not available (placeholder)"))

    def absent(self, id_: str, title: str, tier: str, reason: str, source: str = "") -> Layer:
        return self.add(Layer(id_, title, tier, ABSENT, None, "", 0, True, source, reason))

    # -- inputs ---------------------------------------------------------------------------------------
    def load_inputs(self) -> None:
        s = self.s
        fs = self.fs
        real = isinstance(fs, ctx.RealFS)
        cwd_abs = os.path.abspath(os.fspath(s.cwd)) if real else posixpath.normpath(os.fspath(s.cwd))
        if ctx.safe_type(fs, fs.realpath(cwd_abs)) != "dir":
            raise PromptError(f"--cwd {s.cwd}: not a directory")
        self.cwd = fs.realpath(cwd_abs)
        self.home = os.path.abspath(os.fspath(s.home)) if real else posixpath.normpath(os.fspath(s.home))
        self.home_real = fs.realpath(self.home)
        self.join = os.path.join if real else posixpath.join
        self.config_path = self.join(self.home, "config.yaml")
        self.config, problem = _read_yaml(fs, self.config_path, self.home_real)
        if problem:
            self.notes.append(problem)
        cfg_model, cfg_provider, cfg_cl = _model_from_config(self.config)
        self.model = s.model if s.model is not None else cfg_model
        prov = s.provider if s.provider is not None else (cfg_provider or self.env.get("HERMES_INFERENCE_PROVIDER", ""))
        self.provider_known = bool(prov) and prov != "auto"
        self.provider = prov if self.provider_known else ""
        # a window of 0 or less given on the command line is what Hermes calls unknown (prompt_builder
        # _dynamic_context_file_max_chars: not a positive int -> the 20,000 default)
        self.context_length = s.context_length if s.context_length is not None else cfg_cl
        self.window_source = ("--context-length" if s.context_length is not None else
                              ("config.yaml model.context_length" if cfg_cl else "unknown"))
        self.tools = set(DEFAULT_TOOLS if s.tools is None else s.tools)
        self.tools_source = "default (core tools that need no setup; pass --tools to match your session)" \
            if s.tools is None else "--tools"
        self.agent = _section(self.config, "agent")
        self.platform = (s.platform or "").lower().strip()
        self.toolset_map = self.src.tool_toolsets() if self.src is not None else None
        tz_name = self.env.get("HERMES_TIMEZONE", "").strip()
        if not tz_name:
            tz = self.config.get("timezone", "")
            tz_name = tz.strip() if isinstance(tz, str) else ""
        if tz_name and _zone(tz_name) is None:
            self.notes.append(f"time zone {tz_name!r} is not valid: Hermes falls back to the machine's local time")
            tz_name = ""
        self.tz_name = tz_name
        self.now = session_time(s.now, tz_name)

    # -- identity and project context ------------------------------------------------------------------
    def simulate_files(self) -> None:
        cap = ctx.cap_from_config(self.config, self.context_length, self.config_path, profile=self.p)
        self.cap = cap
        try:
            self.report = ctx.simulate_context(self.cwd, self.p, self.scanner, cap, hermes_home=self.home, fs=self.fs)
        except ValueError as exc:
            raise PromptError(str(exc)) from None
        self.notes.extend(self.report.notes)

    def identity(self) -> None:
        soul = self.report.soul
        title = "Identity"
        soul_path = soul.path if soul is not None else self.join(self.home, "SOUL.md")
        self.soul_loaded = False
        if soul is not None and soul.status in (ctx.LOADED, ctx.TRUNCATED, ctx.BLOCKED, ctx.WARNED):
            text = known_text(soul.identity)
            self.soul_loaded = True
            ly = self.add(Layer("identity", title + " (SOUL.md)", "stable", soul.status, text.strip(), text.strip(),
                                len(text.strip()), True, soul_path, soul.reason))
            if soul.entry is not None:
                ly.pattern_ids = list(soul.entry.pattern_ids)
                ly.documents.append(ctx.entry_document(soul.entry, soul_path))
                if soul.status == ctx.BLOCKED:
                    ly.lost = _headings_or_lines(soul.entry.content)
                elif soul.status == ctx.TRUNCATED and soul.truncation is not None:
                    ly.lost = [h.text for h in (soul.truncation.lost_headings or [])]
                    ly.details["truncation"] = soul.truncation.to_dict()
            return
        if soul is not None and soul.status == ctx.SEEDED:
            self.soul_loaded = True
            self.text_layer("identity", title + " (SOUL.md seeded by Hermes)", "stable", self.fixed("DEFAULT_SOUL_MD"),
                            self.src_label("hermes_cli/default_soul.py", "DEFAULT_SOUL_MD"),
                            "SOUL.md is missing: on start Hermes writes its default SOUL.md there and uses it",
                            "DEFAULT_SOUL_MD", what="Hermes' default SOUL.md")
            return
        if soul is not None and soul.status in (ctx.HANG, ctx.UNPREDICTABLE):
            self.add(Layer("identity", title + " (SOUL.md)", "stable", UNKNOWN, None,
                           placeholder_marker("SOUL.md, not predictable", None), 0, False, soul_path, soul.reason))
            return
        why = soul.reason if soul is not None else "SOUL.md not checked"
        self.text_layer("identity", title + " (Hermes' default identity)", "stable", self.fixed("DEFAULT_AGENT_IDENTITY"),
                        self.src_label(PROMPT_BUILDER, "DEFAULT_AGENT_IDENTITY"), f"no usable SOUL.md ({why})",
                        "DEFAULT_AGENT_IDENTITY", what="Hermes' default identity")

    def project_context(self) -> None:
        rep = self.report
        sec = rep.project_section
        problem = rep.render_problem
        if problem:
            self.add(Layer("project-context", "# Project Context", "context", UNKNOWN, None,
                           placeholder_marker("the # Project Context block, not predictable", None), 0, False,
                           "", problem))
            return
        try:
            block = rep.render(include_soul=not self.soul_loaded)
        except UnknownText as exc:
            self.add(Layer("project-context", "# Project Context", "context", UNKNOWN, None,
                           placeholder_marker("the # Project Context block, not predictable", None), 0, False, "",
                           str(exc)))
            return
        if not block:
            self.absent("project-context", "# Project Context", "context", rep.winner_reason or "no context file")
            return
        members = [m for s in rep.sections for m in s.members]
        status = LOADED
        lost: list[str] = []
        ids: list[str] = []
        for s in rep.sections:
            if s.blocked or any(m.status == ctx.BLOCKED for m in s.members):
                status = BLOCKED
            for m in s.members:
                if m.status == ctx.BLOCKED:
                    ids.extend(i for i in m.pattern_ids if i not in ids)
                    lost.extend(f"{m.label}: {h}" for h in _headings_or_lines(m.content))
        if status != BLOCKED and sec is not None and sec.truncation.truncated:
            status = TRUNCATED
            lost = [h.text for h in (sec.truncation.lost_headings or [])]
        t = block.strip()
        ly = self.add(Layer("project-context", "# Project Context (" + ctx.TYPE_TITLES.get(rep.winner or "", "?") + ")",
                            "context", status, t, t, len(t), True, ", ".join(m.path for m in members),
                            rep.winner_reason))
        ly.lost = lost
        ly.pattern_ids = ids
        ly.documents = [ctx.entry_document(m, m.path) for m in members]
        ly.details["files"] = [m.path for m in members]
        if sec is not None and sec.truncation.truncated:
            ly.details["truncation"] = sec.truncation.to_dict()

    # -- guidance ------------------------------------------------------------------------------------
    def guidance(self) -> None:
        t = self.tools
        pb = PROMPT_BUILDER
        self.text_layer("help-guidance", "Hermes help guidance", "stable", self.fixed("HERMES_AGENT_HELP_GUIDANCE"),
                        self.src_label(pb, "HERMES_AGENT_HELP_GUIDANCE"), "always", "HERMES_AGENT_HELP_GUIDANCE")
        a = self.agent
        if not self.p.prompt_task_completion:
            self.absent("task-completion", "Task-completion guidance", "stable",
                        f"{self.p.label} has no TASK_COMPLETION_GUIDANCE")
        elif bool(a.get("task_completion_guidance", True)) and t:
            self.text_layer("task-completion", "Task-completion guidance", "stable", self.fixed("TASK_COMPLETION_GUIDANCE"),
                            self.src_label(pb, "TASK_COMPLETION_GUIDANCE"), "the session has tools",
                            "TASK_COMPLETION_GUIDANCE")
        else:
            self.absent("task-completion", "Task-completion guidance", "stable",
                        "no tools" if not t else "config.yaml agent.task_completion_guidance is false")
        if not self.p.prompt_parallel_tool_calls:
            self.absent("parallel-tool-calls", "Parallel-tool-call guidance", "stable",
                        f"{self.p.label} has no PARALLEL_TOOL_CALL_GUIDANCE")
        elif bool(a.get("parallel_tool_call_guidance", True)) and t:
            self.text_layer("parallel-tool-calls", "Parallel-tool-call guidance", "stable",
                            self.fixed("PARALLEL_TOOL_CALL_GUIDANCE"), self.src_label(pb, "PARALLEL_TOOL_CALL_GUIDANCE"),
                            "the session has tools", "PARALLEL_TOOL_CALL_GUIDANCE")
        else:
            self.absent("parallel-tool-calls", "Parallel-tool-call guidance", "stable",
                        "no tools" if not t else "config.yaml agent.parallel_tool_call_guidance is false")
        self.tool_guidance()
        steer_ok = bool(t) and not (self.p.prompt_no_steer_on_cron and self.platform == "cron")
        if not self.p.prompt_steer_note:
            self.absent("steer-note", "Mid-turn steering note", "stable", f"{self.p.label} has no STEER_CHANNEL_NOTE")
        elif steer_ok:
            self.text_layer("steer-note", "Mid-turn steering note", "stable", self.fixed("STEER_CHANNEL_NOTE"),
                            self.src_label(pb, "STEER_CHANNEL_NOTE"), "the session has tools", "STEER_CHANNEL_NOTE")
        else:
            self.absent("steer-note", "Mid-turn steering note", "stable", "no tools" if not t else "cron platform")
        if "computer_use" in t:
            self.text_layer("computer-use", "Computer-use guidance", "stable", None,
                            self.src_label(pb, "computer_use_guidance()"),
                            "the computer_use tool is loaded (text rendered per host OS by a function)",
                            what="computer-use guidance")
        else:
            self.absent("computer-use", "Computer-use guidance", "stable", "no computer_use tool")
        self.absent("nous-subscription", "Nous subscription block", "stable",
                    "only with a Nous Portal account entitled to the tool gateway (an online check hermes-audit "
                    "does not make); assumed absent")
        self.enforcement()

    def tool_guidance(self) -> None:
        t = self.tools
        pb = PROMPT_BUILDER
        parts: list[tuple[str, Optional[str]]] = []
        if self.p.prompt_memory_guidance_by_store:
            cfg = self.memory_cfg
            if "memory" in t and cfg.enabled.get("memory", True):
                parts.append(("MEMORY_GUIDANCE", self.fixed("MEMORY_GUIDANCE")))
            elif "memory" in t and cfg.enabled.get("user", True):
                parts.append(("USER_PROFILE_GUIDANCE", self.fixed("USER_PROFILE_GUIDANCE")))
        else:
            if "memory" in t:
                parts.append(("MEMORY_GUIDANCE", self.fixed("MEMORY_GUIDANCE")))
            if "session_search" in t:
                parts.append(("SESSION_SEARCH_GUIDANCE", self.fixed("SESSION_SEARCH_GUIDANCE")))
            if "skill_manage" in t:
                parts.append(("SKILLS_GUIDANCE", self.fixed("SKILLS_GUIDANCE")))
            if "kanban_show" in t:
                parts.append(("KANBAN_GUIDANCE", self.fixed("KANBAN_GUIDANCE")))
        if not parts:
            self.absent("tool-guidance", "Tool guidance", "stable", "no memory, session_search, skill_manage or kanban tool")
            return
        names = ", ".join(k for k, _ in parts)
        src = self.src_label(pb, "+".join(k for k, _ in parts))
        if all(v is not None for _, v in parts):
            self.text_layer("tool-guidance", f"Tool guidance ({names})", "stable", " ".join(v for _, v in parts), src,
                            "guidance for the tools the session has")
        else:
            size = sum(SIZES_0_19.get(k, 0) for k, _ in parts) + len(parts) - 1
            self.text_layer("tool-guidance", f"Tool guidance ({names})", "stable", None, src,
                            "guidance for the tools the session has", size=size, what=f"tool guidance {names}")

    def enforcement(self) -> None:
        t = self.tools
        pb = PROMPT_BUILDER
        model_l = (self.model or "").lower()
        enf = self.agent.get("tool_use_enforcement", "auto")
        if not t:
            for id_, title in (("tool-use-enforcement", "Tool-use enforcement"), ("google-guidance", "Google model guidance"),
                               (("execution-guidance" if self.p.prompt_execution_guidance_gate else "openai-execution-guidance"),
                                "Execution guidance")):
                self.absent(id_, title, "stable", "no tools")
            return
        models = self.fixed_value("TOOL_USE_ENFORCEMENT_MODELS") or ENFORCEMENT_MODELS_0_19
        if enf is True or (isinstance(enf, str) and enf.lower() in {"true", "always", "yes", "on"}):
            inject, why = True, "config.yaml agent.tool_use_enforcement is on"
        elif enf is False or (isinstance(enf, str) and enf.lower() in {"false", "never", "no", "off"}):
            inject, why = False, "config.yaml agent.tool_use_enforcement is off"
        elif isinstance(enf, list):
            inject = any(str(x).lower() in model_l for x in enf if isinstance(x, str))
            why = "the model matches config.yaml agent.tool_use_enforcement" if inject else \
                "the model matches no name in config.yaml agent.tool_use_enforcement"
        else:
            inject = any(x in model_l for x in models)
            why = (f"model {self.model!r} is one Hermes enforces tool use for" if inject else
                   (f"model {self.model!r} is not in Hermes' enforcement list" if self.model else
                    "no model known (pass --model)"))
        if not inject:
            self.absent("tool-use-enforcement", "Tool-use enforcement", "stable", why)
        else:
            self.text_layer("tool-use-enforcement", "Tool-use enforcement", "stable",
                            self.fixed("TOOL_USE_ENFORCEMENT_GUIDANCE"), self.src_label(pb, "TOOL_USE_ENFORCEMENT_GUIDANCE"),
                            why, "TOOL_USE_ENFORCEMENT_GUIDANCE")
        if inject and ("gemini" in model_l or "gemma" in model_l):
            self.text_layer("google-guidance", "Google model guidance", "stable",
                            self.fixed("GOOGLE_MODEL_OPERATIONAL_GUIDANCE"),
                            self.src_label(pb, "GOOGLE_MODEL_OPERATIONAL_GUIDANCE"), "a Gemini/Gemma model",
                            "GOOGLE_MODEL_OPERATIONAL_GUIDANCE")
        else:
            self.absent("google-guidance", "Google model guidance", "stable", "not a Gemini/Gemma model with enforcement")
        if self.p.prompt_execution_guidance_gate:
            gate = self.agent.get("execution_guidance", True)
            em = self.fixed_value("EXECUTION_GUIDANCE_MODELS") or ("gpt", "codex", "grok")
            if gate not in (False, "false", "off", "never") and any(x in model_l for x in em):
                self.text_layer("execution-guidance", "Execution guidance", "stable",
                                self.fixed("OPENAI_MODEL_EXECUTION_GUIDANCE"),
                                self.src_label(pb, "OPENAI_MODEL_EXECUTION_GUIDANCE"),
                                "model in EXECUTION_GUIDANCE_MODELS (gate agent.execution_guidance)",
                                "OPENAI_MODEL_EXECUTION_GUIDANCE")
            else:
                self.absent("execution-guidance", "Execution guidance", "stable", "model not in the execution-guidance list")
        elif inject and ("gpt" in model_l or "codex" in model_l or
                         ("grok" in model_l and self.p.prompt_grok_execution_guidance)):
            self.text_layer("openai-execution-guidance", "OpenAI/xAI execution guidance", "stable",
                            self.fixed("OPENAI_MODEL_EXECUTION_GUIDANCE"),
                            self.src_label(pb, "OPENAI_MODEL_EXECUTION_GUIDANCE"), "a GPT/Codex/Grok model",
                            "OPENAI_MODEL_EXECUTION_GUIDANCE")
        else:
            self.absent("openai-execution-guidance", "OpenAI/xAI execution guidance", "stable",
                        "not a GPT/Codex" + ("/Grok" if self.p.prompt_grok_execution_guidance else "")
                        + " model with enforcement")

    # -- skills index ------------------------------------------------------------------------------
    def skills(self, tier: str) -> None:
        t = self.tools
        if not any(n in t for n in SKILL_TOOLS):
            self.absent("skills-index", "Skills index", tier, "no skills_list, skill_view or skill_manage tool")
            return
        toolsets = None
        if self.toolset_map is not None:
            toolsets = {self.toolset_map[n] for n in t if n in self.toolset_map}
        compact = frozenset()
        if self.coding and self.coding_mode == "focus":
            cats = self.fixed_value("NON_CODING_SKILL_CATEGORIES")
            if cats:
                compact = frozenset(cats)
            else:
                self.notes.append("skills: focus mode demotes non-coding categories; their list needs the Hermes source")
        excluded = self.src.module_env(SKILL_UTILS).get("EXCLUDED_SKILL_DIRS") if self.src is not None else None
        rules = SkillRules(frozenset(excluded) if isinstance(excluded, frozenset) else EXCLUDED_SKILL_DIRS,
                           self.p.skills_prune_support_dirs, self.p.skills_environments_filter,
                           self.p.skills_platform_disabled_union)
        idx = build_skills_index(self.fs, self.home, self.config, set(t), toolsets, self.platform, self.env, compact,
                                 rules)
        self.notes.extend(idx.notes)
        self.skills_index = idx
        if not idx.lines:
            hidden = [sk for sk in idx.skills if not sk.shown]
            self.absent("skills-index", "Skills index", tier,
                        "no skill in HERMES_HOME/skills" + (f" is shown ({len(hidden)} hidden)" if hidden else ""))
            return
        frame = self.src.skills_frame() if self.src is not None else None
        shown = sum(1 for sk in idx.skills if sk.shown)
        reason = f"{shown} skill(s) in {len({sk.category for sk in idx.skills if sk.shown})} categor(ies)"
        src = self.join(self.home, "skills")
        if frame is not None:
            ly = self.text_layer("skills-index", "Skills index", tier, frame.render(idx.lines, idx.demoted), src, reason)
        else:
            body = "\n".join(idx.lines)
            size = SIZES_0_19["SKILLS_INDEX_FRAME"] + len(body) + 1
            ly = self.text_layer("skills-index", "Skills index", tier, None, src, reason, size=size,
                                 what="the skills index framing (its index lines are in the JSON)")
            ly.display = placeholder_marker("the skills index framing", SIZES_0_19["SKILLS_INDEX_FRAME"]) + "\n" + body
        ly.details["skills"] = [{"name": sk.name, "category": sk.category, "description": sk.description,
                                 "path": sk.path, "shown": sk.shown, **({"reason": sk.reason} if sk.reason else {})}
                                for sk in idx.skills]

    # -- environment, coding, profile, platform ----------------------------------------------------------
    def alibaba(self) -> None:
        if self.provider != "alibaba":
            self.absent("alibaba-model", "Alibaba model line", "stable", "provider is not alibaba")
            return
        m = self.model or ""
        short = m.split("/")[-1] if "/" in m else m
        txt = None
        if self.src is not None:
            txt = self.src.appended_text(SYSTEM_PROMPT, "build_system_prompt_parts", "You are powered by the model named",
                                         {"_model_short": short, "agent": {"model": m}})
        self.text_layer("alibaba-model", "Alibaba model line", "stable", txt, self.src_label(SYSTEM_PROMPT, "alibaba line"),
                        "provider alibaba", size=len(m) + len(short) + 170)

    def environment_hints(self) -> None:
        backend = (self.env.get("TERMINAL_ENV") or "local").strip().lower()
        parts: list[Optional[str]] = []
        wsl = False
        try:
            with open("/proc/version", encoding="utf-8", errors="replace") as fh:
                wsl = "microsoft" in fh.read(4096).lower()
        except OSError:
            wsl = False
        if backend not in REMOTE_BACKENDS:
            lines: list[Optional[str]] = []
            if wsl:
                lines.append("Host: WSL (Windows Subsystem for Linux)")
            elif sys.platform == "win32":
                lines.append(f"Host: Windows ({_platform.release()})")
            elif sys.platform == "darwin":
                lines.append(f"Host: macOS ({_platform.mac_ver()[0] or _platform.release()})")
            else:
                lines.append(f"Host: {_platform.system()} ({_platform.release()})")
            lines.append(f"User home directory: {self.env.get('HOME') or os.path.expanduser('~')}")
            tc = self.env.get("TERMINAL_CWD", "").strip()
            # 0.16.0 on resolve_agent_cwd(): TERMINAL_CWD when it is a directory; up to 0.15.2 os.getcwd()
            agent_cwd = tc if self.p.prompt_env_hint_terminal_cwd and tc and os.path.isdir(os.path.expanduser(tc)) \
                else self.cwd
            lines.append(f"Current working directory: {agent_cwd}")
            if sys.platform == "win32" and not wsl:
                lines.append(self.src.appended_text(PROMPT_BUILDER, "build_environment_hints", "Note: on Windows", {})
                             if self.src else None)
            parts.append(None if any(x is None for x in lines) else "\n".join(lines))
            if sys.platform == "win32" and not wsl:
                parts.append(self.fixed_value("_WINDOWS_BASH_SHELL_HINT"))
        else:
            parts.append(None)
            self.notes.append(f"terminal backend {backend}: Hermes probes the backend for the environment hint; "
                              "hermes-audit does not")
        def desktop(name: str) -> bool:  # 0.18.2: ("1", "true", "yes") after strip().lower()
            return (self.env.get(name) or "").strip().lower() in ("1", "true", "yes")

        desktop_term = desktop("HERMES_DESKTOP_TERMINAL")
        if self.p.prompt_desktop_environment_hint and (desktop("HERMES_DESKTOP") or desktop_term):
            # 0.18.2 build_environment_hints: "_desktop_hint", plus its "+=" text in the embedded terminal pane
            got = self.src.assigned_texts(PROMPT_BUILDER, "build_environment_hints", "_desktop_hint") if self.src else None
            parts.append(None if got is None or (desktop_term and len(got[1]) != 1)
                         else got[0] + (got[1][0] if desktop_term else ""))
        if wsl:
            parts.append(self.fixed("WSL_ENVIRONMENT_HINT"))
        extra = (self.env.get("HERMES_ENVIRONMENT_HINT") or "").strip() if self.p.prompt_environment_hint_extra else ""
        if not extra and self.p.prompt_environment_hint_extra:
            extra = str(self.agent.get("environment_hint", "") or "").strip()
        if extra:
            parts.append(extra)
        if all(p is not None for p in parts):
            self.text_layer("environment-hints", "Environment hints", "stable", "\n\n".join(parts), "computed",
                            "host, home and working directory (local terminal backend)")
        else:
            known = "\n\n".join(p for p in parts if p)
            self.text_layer("environment-hints", "Environment hints", "stable", None, "computed",
                            "host and backend description", size=len(known) + 400,
                            what="environment hints (remote backend probe or a Windows/WSL note)")

    def detect_coding(self) -> None:
        self.coding_mode = _coding_mode(self.config)
        self.coding = False
        self.workspace_root: Optional[str] = None
        self.git_root: Optional[str] = None
        markers = tuple(self._src_or("_PROJECT_MARKERS", PROJECT_MARKERS))
        self.markers = markers
        if self.coding_mode == "off" or not self.tools or not self.p.prompt_coding_posture:
            return
        home = self.env.get("HOME") or os.path.expanduser("~")
        home_real = os.path.realpath(home) if isinstance(self.fs, ctx.RealFS) else home
        marker_root = _marker_root(self.fs, self.cwd, home_real, markers)
        git_root = _git_root(self.fs, self.cwd)
        if self.coding_mode == "on":
            self.coding = True
        elif self.platform not in INTERACTIVE_CODING_PLATFORMS:
            self.coding = False
        elif marker_root is not None:
            self.coding = True
        else:
            g = git_root if git_root != home_real else None
            if not self.p.prompt_code_files_gate:  # 0.17.0: any git repository (but $HOME's) is a code workspace
                self.coding = g is not None
            else:
                exts = frozenset(self._src_or("_CODE_EXTENSIONS", CODE_EXTENSIONS))
                skip = frozenset(self._src_or("_CODE_SCAN_SKIP_DIRS", CODE_SCAN_SKIP_DIRS))
                self.coding = g is not None and _has_code_files(self.fs, g, exts, skip)
        if self.coding:
            self.git_root = git_root
            self.workspace_root = git_root or marker_root

    def _src_or(self, name: str, default: Any) -> Any:
        if self.src is not None:
            v = self.src.module_env(CODING_CONTEXT).get(name)
            if v:
                return v
        return default

    def coding_layers(self, tier_brief: str, tier_workspace: str) -> None:
        if not self.coding:
            why = (f"{self.p.label} has no coding posture (agent/coding_context.py)" if not self.p.prompt_coding_posture
                   else "config.yaml agent.coding_context is off" if self.coding_mode == "off" else
                   "no tools" if not self.tools else
                   f"platform {self.platform} is not an interactive coding surface"
                   if self.platform not in INTERACTIVE_CODING_PLATFORMS else
                   "the working directory is not a code workspace (no git repository with code, no project marker)")
            for id_, title, tier in (("coding-brief", "Coding brief", tier_brief),
                                     ("coding-workspace", "Coding workspace snapshot", tier_workspace),
                                     ("coding-instructions", "Coding operator instructions", tier_workspace)):
                self.absent(id_, title, tier, why)
            return
        brief = self.fixed("CODING_AGENT_GUIDANCE")
        edit = self.fixed_value("EDIT_FORMAT_GUIDANCE")
        model_l = (self.model or "").lower()
        line = ""
        if isinstance(edit, dict) and self.model:
            for _fam, spec in edit.items():
                try:
                    needles, text = spec
                except (TypeError, ValueError):
                    continue
                if any(n in model_l for n in needles):
                    line = text
                    break
        reason = "coding posture: an interactive surface in a code workspace" if self.coding_mode != "on" else \
            "config.yaml agent.coding_context is on"
        full = None if brief is None or (edit is None and self.model) else (brief + ("\n" + line if line else ""))
        self.text_layer("coding-brief", "Coding brief", tier_brief, full,
                        self.src_label(CODING_CONTEXT, "CODING_AGENT_GUIDANCE"), reason, size=SIZES_0_19["CODING_AGENT_GUIDANCE"] + 200,
                        what="the coding brief (with the model's edit-format line)")
        self.workspace(tier_workspace)
        instr = self.agent.get("coding_instructions", "") if self.p.prompt_coding_instructions else ""
        if not self.p.prompt_coding_instructions:
            self.absent("coding-instructions", "Coding operator instructions", tier_workspace,
                        f"{self.p.label} has no agent.coding_instructions")
            return
        if isinstance(instr, (list, tuple)):
            instr = "\n".join(str(i).strip() for i in instr if str(i).strip())
        instr = str(instr or "").strip()
        if instr:
            txt = None
            if self.src is not None:
                # 0.19.0 appends it in system_blocks, 0.20.1 in system_prompt_parts (its trailing blocks)
                for fn in ("system_blocks", "system_prompt_parts"):
                    txt = self.src.appended_text(CODING_CONTEXT, fn, "Operator instructions",
                                                 {"self": {"instructions": instr}})
                    if txt is not None:
                        break
            self.text_layer("coding-instructions", "Coding operator instructions", tier_workspace, txt,
                            "config.yaml agent.coding_instructions", "from config.yaml", size=len(instr) + 37)
        else:
            self.absent("coding-instructions", "Coding operator instructions", tier_workspace,
                        "config.yaml agent.coding_instructions is not set")

    def workspace(self, tier: str) -> None:
        root = self.workspace_root
        if root is None:
            self.absent("coding-workspace", "Coding workspace snapshot", tier, "no workspace root")
            return
        header = self.src.first_list_string(CODING_CONTEXT, "build_coding_workspace_block", "lines") if self.src else None
        ctx_files = tuple(self._src_or("_CONTEXT_FILES", CODING_CONTEXT_FILES))
        facts = project_fact_lines(self.fs, root, self.markers, ctx_files)
        lines = [header or "", f"- Root: {root}"]
        git_marker = None
        if self.git_root is not None:
            git_marker = ("[[hermes-audit placeholder: git branch, status and recent commits of the workspace "
                          "(Hermes runs git here; hermes-audit never runs git in a scanned repository)]]")
        known = header is not None and git_marker is None
        body = "\n".join(lines + ([git_marker] if git_marker else []) + facts)
        reason = "snapshot of the workspace at session start"
        if known:
            self.text_layer("coding-workspace", "Coding workspace snapshot", tier, body, root, reason)
        else:
            size = len(body) - (len(git_marker) if git_marker else 0) + (120 if git_marker else 0) \
                + (0 if header else SIZES_0_19["WORKSPACE_HEADER"])
            ly = self.text_layer("coding-workspace", "Coding workspace snapshot", tier, None, root, reason, size=size,
                                 what="the workspace snapshot header")
            ly.display = body if header else placeholder_marker("the workspace snapshot header",
                                                                SIZES_0_19["WORKSPACE_HEADER"]) + body
            if git_marker:
                ly.reason = reason + "; git lines not probed (placeholder)"

    def probe_layer(self, tier: str) -> None:
        if not self.p.prompt_environment_probe:
            self.absent("environment-probe", "Python toolchain probe", tier,
                        f"{self.p.label} has no environment probe (tools/env_probe.py)")
        elif bool(self.agent.get("environment_probe", True)):
            ly = self.add(Layer("environment-probe", "Python toolchain probe", tier, PLACEHOLDER, None,
                                "[[hermes-audit placeholder: Hermes' Python toolchain probe line (empty on a machine "
                                "where python3 and pip are present and match); not probed]]", 0, False,
                                "tools/env_probe.py",
                                "one line when python3/pip look unusual, else nothing; hermes-audit does not run the "
                                "probe (set agent.environment_probe: false to drop it)"))
            ly.details["assumed_empty"] = True
        else:
            self.absent("environment-probe", "Python toolchain probe", tier,
                        "config.yaml agent.environment_probe is false")

    def active_profile(self, tier: str) -> None:
        if not self.p.prompt_active_profile_line:
            self.absent("active-profile", "Active profile line", tier, f"{self.p.label} has no active-profile line")
            return
        name, root = active_profile_name(Path(self.home), self.env)
        home_s = str(self.home)
        txt = None
        if self.src is not None:
            anchor = "Active Hermes profile: default" if name == "default" else "This session reads"
            # 0.19.0 names get_hermes_home(); 0.20.1 the session's home (_home_str, profile_home, _root_str without
            # an agent home of its own) and get_default_hermes_root() (default_root)
            txt = self.src.appended_text(SYSTEM_PROMPT, "build_system_prompt_parts", anchor,
                                         {"get_hermes_home": lambda: home_s, "active_profile": name,
                                          "_home_str": home_s, "_root_str": home_s, "profile_home": home_s,
                                          "default_root": root, "get_default_hermes_root": lambda: root})
        if name == "default":
            size = SIZES_0_19["ACTIVE_PROFILE_DEFAULT"] + len(home_s)
        else:
            size = SIZES_0_19["ACTIVE_PROFILE_NAMED"] + 5 * len(home_s) + 2 * len(name)
        self.text_layer("active-profile", f"Active profile line ({name})", tier, txt,
                        self.src_label(SYSTEM_PROMPT, "active profile line"),
                        f"HERMES_HOME {home_s} is profile {name!r}", size=size, what="the active-profile line")

    def platform_hint(self, tier: str) -> None:
        key = self.platform
        hints = self.fixed_value("PLATFORM_HINTS")
        known_platform = f"PLATFORM_HINTS:{key}" in SIZES_0_19
        default: Optional[str]
        if isinstance(hints, dict):
            default = hints.get(key, "")
        else:
            default = None if known_platform else ""
        if key == "telegram" and default != "" and self.p.prompt_telegram_rich_messages:
            extra = _section(_section(_section(self.config, "platforms"), "telegram"), "extra")
            if extra.get("rich_messages"):
                rich = self.fixed("TELEGRAM_RICH_MESSAGES_HINT")
                default = None if default is None or rich is None else default.rstrip() + " " + rich
        overrides = self.config.get("platform_hints") if isinstance(self.config.get("platform_hints"), dict) and \
            self.p.prompt_platform_hint_overrides else {}
        spec = overrides.get(key) if key else None
        src = self.src_label(PROMPT_BUILDER, f"PLATFORM_HINTS[{key!r}]")
        eff: Optional[str] = default
        if spec is not None and key:
            if isinstance(spec, str):
                extra = spec.strip()
                eff = None if default is None else (f"{default}\n\n{extra}".strip() if extra else default)
                src += " + config.yaml platform_hints"
            elif isinstance(spec, dict):
                rep = spec.get("replace")
                base = rep.strip() if isinstance(rep, str) and rep.strip() else default
                app = spec.get("append")
                if isinstance(app, str) and app.strip():
                    eff = None if base is None else f"{base}\n\n{app.strip()}".strip()
                else:
                    eff = base
                src += " + config.yaml platform_hints"
        if key == "tui" and eff and self.p.prompt_tui_pane_clarifier and _truthy(self.env.get("HERMES_DESKTOP_TERMINAL", "")):
            clar = self.fixed("TUI_EMBEDDED_PANE_CLARIFIER")
            eff = None if clar is None else (eff if clar in eff else eff + clar)
        if eff == "":
            self.absent("platform-hint", "Platform hint", tier,
                        f"no built-in hint for platform {key!r}" if key else "no platform")
            return
        self.text_layer("platform-hint", f"Platform hint ({key})", tier, eff, src, f"platform {key}",
                        size=SIZES_0_19.get(f"PLATFORM_HINTS:{key}", 0), what=f"the {key} platform hint")

    # -- context tier --------------------------------------------------------------------------------
    def system_message(self) -> None:
        sm = self.s.system_message
        if sm is not None and sm.strip():
            self.add(Layer("system-message", "system_message", "context", LOADED, sm.strip(), sm.strip(),
                           len(sm.strip()), True, "--system-message", "the caller's system_message"))
        else:
            self.absent("system-message", "system_message", "context",
                        "the CLI and the gateway pass none (config.yaml agent.system_prompt is the ephemeral prompt, "
                        "sent after the cached prompt)")

    # -- volatile tier -------------------------------------------------------------------------------
    def load_memory(self) -> None:
        real = isinstance(self.fs, ctx.RealFS)
        if real:
            cfg = mem.read_memory_config(Path(self.home))
        else:
            cfg = mem.MemoryConfig()
            m = self.config.get("memory")
            if isinstance(m, dict):
                for k, tgt in (("memory_char_limit", "memory"), ("user_char_limit", "user")):
                    if k in m:
                        cfg.limits[tgt] = m[k]
                for k, tgt in (("memory_enabled", "memory"), ("user_profile_enabled", "user")):
                    if k in m:
                        cfg.enabled[tgt] = bool(m[k])
        self.memory_cfg = cfg
        self.notes.extend(f"memory: {p}" for p in cfg.problems)
        stores: list[mem.StoreReport] = []
        for target, fname in mem.STORE_FILES.items():
            path = self.join(self.home, "memories", fname)
            kind = DocumentKind.USER_PROFILE if target == "user" else DocumentKind.MEMORY
            if ctx.safe_type(self.fs, path) is None and not self.fs.is_symlink(path):
                stores.append(mem.analyse_store(None, target, cfg, self.scanner, self.p))
                continue
            if real:
                doc = Document.from_path(Path(path), path, kind, Path(self.home_real), self.s.max_bytes,
                                         dangling_out=False)  # the local Hermes home: a dangling link is absent
            else:
                doc = Document(path=path, kind=kind, read=self.fs.read(path, self.home_real), abs_path=Path(path))
            stores.append(mem.analyse_store(doc, target, cfg, self.scanner, self.p))
        self.stores = stores

    def memory_layers(self) -> None:
        cfg = self.memory_cfg
        failure = mem.load_failure_reason(self.stores, cfg, self.p)
        for rep in self.stores:
            id_ = "memory" if rep.target == "memory" else "user-profile"
            title = mem.BLOCK_HEADERS[rep.target]
            path = rep.document.path if rep.document is not None else self.join(self.home, "memories", rep.filename)
            doc = rep.document
            # agent_init reads both stores when either block is on, before any limit is used
            if doc is not None and any(cfg.enabled.values()) and read_blocks(doc.kind, doc.read, self.p, doc.path):
                self.add(Layer(id_, title, "volatile", UNKNOWN, None,
                               placeholder_marker(f"{rep.filename}, not predictable", None), 0, False, path, rep.note))
                self.memory_hang = self.memory_hang or rep
                continue
            if not cfg.enabled[rep.target]:
                key = "memory_enabled" if rep.target == "memory" else "user_profile_enabled"
                self.absent(id_, title, "volatile", f"config.yaml memory.{key} is false", path)
                continue
            if failure is not None:
                self.absent(id_, title, "volatile", failure, path)
                continue
            if not rep.block:
                self.absent(id_, title, "volatile", rep.note or f"{rep.filename} has no entries", path)
                continue
            status = BLOCKED if rep.status == "blocked" else LOADED
            if self.p.memory_render_cap and rep.capacity is not None and rep.capacity.current > max(rep.capacity.limit * 2, 4000):
                status = TRUNCATED if status != BLOCKED else status
            block = rep.block.strip()
            ly = self.add(Layer(id_, title, "volatile", status, block, block, len(block), True, path,
                                f"{len(rep.entries)} entr{'y' if len(rep.entries) == 1 else 'ies'}"
                                + (f", {rep.capacity.percent}% of {rep.capacity.limit:,}" if rep.capacity else "")))
            if rep.document is not None:
                ly.documents.append(rep.document)
            blocked = [e for e in rep.entries if e.status == "blocked"]
            for e in blocked:
                ly.pattern_ids.extend(i for i in e.pattern_ids if i not in ly.pattern_ids)
                first = rep.live[e.index].strip().split("\n", 1)[0]
                ly.lost.append(f"entry {e.index + 1}: {first[:80]}")
            if rep.capacity is not None:
                ly.details["capacity"] = rep.capacity.to_dict()

    def memory_provider(self) -> None:
        m = self.config.get("memory") if isinstance(self.config.get("memory"), dict) else {}
        prov = str(m.get("provider") or "").strip()
        if prov:
            self.add(Layer("memory-provider", f"External memory provider ({prov})", "volatile", PLACEHOLDER, None,
                           f"[[hermes-audit placeholder: the block of memory provider {prov!r} (plugin output, not "
                           "predictable)]]", 0, False, "config.yaml memory.provider",
                           "an external memory provider adds its own block each session"))
        else:
            self.absent("memory-provider", "External memory provider", "volatile", "config.yaml memory.provider is not set")

    def session_line(self) -> None:
        d = self.now
        if self.p.prompt_session_line_details and self.p.prompt_session_zone == "configured":
            # 0.20.1 agent/system_prompt.py: the configured zone's name (none without one), its abbreviation
            # unless the same, the offset
            bits = [self.tz_name] if self.tz_name else []
            if d.tzname() and d.tzname() != self.tz_name:
                bits.append(d.tzname())
            bits.append(_utc_offset(d))
            line = f"Conversation started: {format_date(d)} ({', '.join(bits)})"
        elif self.p.prompt_session_line_details:
            zone = self.tz_name or _local_zone_name(self.env)
            line = f"Conversation started: {format_date(d)} ({zone}, {d.tzname() or ''}, {_utc_offset(d)})"
        else:
            line = f"Conversation started: {format_date(d)}"
            if self.p.prompt_session_time_of_day:  # 0.13.0-0.14.0: strftime('%A, %B %d, %Y %I:%M %p')
                line += f" {(d.hour % 12) or 12:02d}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"
        if self.s.session_id:
            line += f"\nSession ID: {self.s.session_id}"
        if self.model:
            line += f"\nModel: {self.model}"
        known = True
        if self.provider_known:
            line += f"\nProvider: {self.provider}"
        else:
            known = False
        if self.p.prompt_session_line_details and self.platform:
            line += f"\nPlatform: {self.platform}"
        reason = f"session start {d.isoformat()}"
        if known:
            self.add(Layer("session", "Session line", "volatile", LOADED, line, line, len(line), True, "computed", reason))
        else:
            shown = line + "\nProvider: [[hermes-audit placeholder: the provider Hermes resolves at start; "
            shown += "pass --provider]]"
            size = len(line) + len("\nProvider: ") + 10
            self.add(Layer("session", "Session line", "volatile", PLACEHOLDER, None, shown, size, False, "computed",
                           reason + "; the provider is resolved at start (config.yaml model.provider is auto or "
                           "unset): pass --provider"))

    def ephemeral(self) -> None:
        eph = self.env.get("HERMES_EPHEMERAL_SYSTEM_PROMPT", "")
        src = "HERMES_EPHEMERAL_SYSTEM_PROMPT"
        if not eph:
            v = self.agent.get("system_prompt", "")
            eph = v if isinstance(v, str) else ""
            src = self.config_path + " agent.system_prompt"
        if eph and eph.strip():
            self.add(Layer("ephemeral-system-prompt", "Ephemeral system prompt (config.yaml agent.system_prompt)",
                           "api-call", LOADED, eph, eph, len(eph), True, src,
                           "appended after the cached prompt at every API call; not cached"))
        else:
            self.absent("ephemeral-system-prompt", "Ephemeral system prompt", "api-call",
                        "config.yaml agent.system_prompt is empty")

    # -- order ------------------------------------------------------------------------------------------
    def build(self) -> None:
        self.load_inputs()
        self.simulate_files()
        self.load_memory()
        self.detect_coding()
        self.identity()
        self.guidance()
        tiered = self.p.prompt_tiered_layout
        if not tiered:
            self.skills("stable")
        self.alibaba()
        self.environment_hints()
        if tiered:
            snapshot = self.coding and self.workspace_root is not None
            trail = "context" if snapshot else "stable"
            self.coding_layers("stable", trail)
            self.probe_layer(trail)
            self.absent("bot-mode", "Bot-Mode section", trail, "not modelled: only in bot-mode sessions")
            self.active_profile(trail)
            self.platform_hint(trail)
        else:
            self.coding_layers("stable", "stable")
            self.probe_layer("stable")
            self.active_profile("stable")
            self.platform_hint("stable")
        self.system_message()
        self.project_context()
        if tiered:
            self.skills("volatile")
        self.memory_layers()
        self.memory_provider()
        if tiered:
            self.absent("plugin-context", "Plugin sections", "volatile", "not modelled: plugins are not loaded")
        self.session_line()
        self.ephemeral()
        if tiered:
            # the context tier's coding parts come before system_message in the reference's order
            ctx_first = [ly for ly in self.layers if ly.tier == "context" and ly.id not in ("system-message", "project-context")]
            rest = [ly for ly in self.layers if ly not in ctx_first]
            i = next(k for k, ly in enumerate(rest) if ly.id == "system-message")
            self.layers = rest[:i] + ctx_first + rest[i:]
        for ly in self.layers:
            if ly.status == ABSENT:
                continue
            ly.tokens = self.counter.count(ly.text) if ly.text is not None else self.counter.count_chars(ly.chars)


def _headings_or_lines(content: Any, limit: int = 30) -> list[str]:
    """What a blocked text loses: its Markdown headings, else its first non-empty lines."""
    try:
        text = known_text(content) if content is not None else ""
    except UnknownText:
        return []
    heads = [h.text for h in markdown_headings(text)]
    if heads:
        return heads[:limit]
    lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
    return [ln[:80] for ln in lines[:5]]


def assemble(settings: PromptSettings, profile: VersionProfile, scanner: ThreatScanner,
             source: Optional[HermesSource] = None, fs=None, counter: Optional[TokenCounter] = None) -> PromptReport:
    """Dry-run the prompt assembly for ``settings``.

    ``source`` supplies Hermes' fixed texts (``None``: placeholders). ``fs`` is
    a :class:`hermes_audit.hermes.context.RealFS` (default) or ``MemoryFS``.
    Raises :class:`PromptError` for a working directory that is not a directory.
    """
    fs = fs or ctx.RealFS(settings.max_bytes)
    counter = counter or get_counter()
    b = _Builder(settings, profile, scanner, source, fs, counter)
    b.build()
    problem = None
    rp = b.report.render_problem
    if rp:
        problem = rp
    soul = b.report.soul
    if soul is not None and soul.status == ctx.HANG:
        problem = soul.reason
    hang = b.memory_hang
    if hang is not None and problem is None:
        problem = (f"{profile.label} would block forever reading {hang.document.path} "
                   f"({hang.document.read.file_type}); the session never starts, so no prompt is built")
    if source is None:
        b.notes.insert(0, "Hermes' own texts are placeholders: install hermes-agent or give --hermes-source DIR for "
                          "the exact prompt")
    if b.window_source == "unknown":
        b.notes.append(f"the model's context window is unknown: the context-file cap is Hermes' 20,000 default and "
                       f"shares assume {ASSUMED_CONTEXT_WINDOW:,} tokens (pass --context-length)")
    return PromptReport(
        profile=profile, settings=settings, layers=b.layers, counter=counter, source=source, cwd=b.cwd, home=b.home,
        cap=b.cap, context_window=b.context_length, window_source=b.window_source, model=b.model,
        provider=b.provider or "(resolved at start)", tools=frozenset(b.tools), tools_source=b.tools_source,
        now=b.now, notes=b.notes, problem=problem, context_report=b.report, stores=b.stores,
        memory_config=b.memory_cfg, memory_hang=b.memory_hang,
    )


# ---------------------------------------------------------------------------------------------------
# Findings (rules/prompt.yaml, family ``prompt``)

R_OVER_BUDGET = "prompt-over-budget"
R_LAYER_BLOCKED = "prompt-layer-blocked"
R_LAYER_TRUNCATED = "prompt-layer-truncated"
R_MEMORY_CAPACITY = "prompt-memory-capacity"
R_REPEATED = "prompt-repeated-instruction"
PROMPT_RULES = (R_OVER_BUDGET, R_LAYER_BLOCKED, R_LAYER_TRUNCATED, R_MEMORY_CAPACITY, R_REPEATED)
#: rules/loading.yaml's HA608: a HERMES_HOME file (memory store) whose read hangs the session start.
R_SESSION_HANG = "context-read-hangs"
PROMPT_FAMILY = "prompt"
#: Shortest normalised line compared across layers for repetition (characters, words).
REPEAT_MIN_CHARS = 30
REPEAT_MIN_WORDS = 5
#: Repetition findings reported per pair of files (the rest are counted in the last message).
REPEAT_MAX_PER_PAIR = 5


@dataclass
class PromptIssue:
    """One prompt finding before it becomes a :class:`~hermes_audit.findings.Finding`: the rule name, the
    document it points into, the ``[start, end)`` span of that document's text, the message, and an optional
    severity override."""

    rule: str
    document: Document
    start: int
    end: int
    message: str
    severity: Any = None


def _first_line(doc: Document) -> tuple[int, int]:
    t = doc.text or ""
    nl = t.find("\n")
    return 0, (nl if nl > 0 else min(len(t), 1))


def _lost_text(lost: list[str], limit: int = 8) -> str:
    if not lost:
        return ""
    shown = "; ".join(lost[:limit]) + (f"; ... ({len(lost) - limit} more)" if len(lost) > limit else "")
    return f"; lost: {shown}"


_BULLET = re.compile(r"^(?:[#>*+\-]+|\d+[.)])\s+")
_WS = re.compile(r"\s+")


def _norm_line(line: str) -> str:
    s = _BULLET.sub("", line.strip())
    s = _WS.sub(" ", s).strip().strip("*_`").strip().lower()
    return s.rstrip(".;:!")


def _units(text: str) -> dict[str, str]:
    """Normalised instruction lines of ``text`` (long enough to be meaningful) -> the raw line."""
    out: dict[str, str] = {}
    for raw in text.split("\n"):
        n = _norm_line(raw)
        if len(n) >= REPEAT_MIN_CHARS and len(n.split()) >= REPEAT_MIN_WORDS:
            out.setdefault(n, raw.strip())
    return out


def _repetition_sources(report: PromptReport) -> list[tuple[str, Document, str]]:
    """(label, document, text Hermes injects) for each file-based layer part, in prompt order."""
    out: list[tuple[str, Document, str]] = []
    rep = report.context_report
    for ly in report.included():
        if ly.status == BLOCKED and ly.id == "identity":
            continue
        if ly.id == "identity" and rep is not None and rep.soul is not None and rep.soul.entry is not None \
                and ly.documents:
            try:
                out.append(("SOUL.md", ly.documents[0], known_text(rep.soul.entry.content)))
            except (UnknownText, TypeError):
                pass
        elif ly.id == "project-context" and rep is not None:
            for s in rep.sections:
                for m in s.members:
                    if m.status in (ctx.LOADED, ctx.TRUNCATED) and m.content is not None and m.document is not None:
                        try:
                            out.append((m.label, m.document, known_text(m.content)))
                        except UnknownText:
                            pass
        elif ly.id in ("memory", "user-profile"):
            for st in report.stores:
                if st.document is not None and ("memory" if st.target == "memory" else "user-profile") == ly.id:
                    live = [st.live[e.index] for e in st.entries if e.status != "blocked"]
                    out.append((st.filename, st.document, "\n".join(live)))
    return out


def format_share(x: float) -> str:
    """A share (0.25) as a percentage with the digits it needs: ``25%``, ``5.7%``, ``0.1%``, ``0.012%``
    (two significant digits below 10 %, so a 0.001 budget is never shown as ``0%``)."""
    p = x * 100
    if p <= 0 or p >= 10 or p == int(p):
        return f"{p:.0f}%"
    return f"{p:.2g}%"


def prompt_issues(report: PromptReport, max_share: Optional[float] = None) -> list[PromptIssue]:
    """The prompt findings of a dry run (see ``rules/prompt.yaml``)."""
    out: list[PromptIssue] = []
    share_limit = report.settings.max_share if max_share is None else max_share
    label = report.profile.label
    if report.memory_hang is not None and report.memory_hang.document is not None:
        d = report.memory_hang.document
        out.append(PromptIssue(R_SESSION_HANG, d, 0, 0, f"{d.path} is a {d.read.file_type}: "
                               + unreadable_consequence(d.kind, d.read, report.profile, d.path)))
        return out  # no prompt is ever built: nothing else about it is true
    # over budget
    window = report.context_window or ASSUMED_CONTEXT_WINDOW
    total = report.total_tokens + report.api_call_tokens
    if share_limit > 0 and total > share_limit * window:
        docs = sorted((ly for ly in report.included() if ly.documents), key=lambda ly: -ly.tokens)
        if docs:
            doc = docs[0].documents[0]
            top = sorted(report.included(), key=lambda ly: -ly.tokens)[:3]
            assumed = "" if report.context_window else " (window assumed: pass --context-length)"
            out.append(PromptIssue(
                R_OVER_BUDGET, doc, *_first_line(doc),
                f"the system prompt {label} would build is ~{total:,} tokens ({report.counter.method}), "
                f"{format_share(total / window)} of the {window:,}-token context window{assumed}, over the "
                f"{format_share(share_limit)} "
                f"budget; largest layers: " + ", ".join(f"{ly.id} ~{ly.tokens:,}" for ly in top)))
    for ly in report.included():
        if ly.status == BLOCKED and ly.id in ("identity", "project-context"):
            rep = report.context_report
            members = []
            if ly.id == "identity" and rep is not None and rep.soul is not None and rep.soul.entry is not None:
                members = [rep.soul.entry]
            elif rep is not None:
                members = [m for s in rep.sections for m in s.members if m.status == ctx.BLOCKED]
            for m in members:
                if m.document is None and not ly.documents:
                    continue
                doc = ctx.entry_document(m, m.path)
                lost = _headings_or_lines(m.content)
                out.append(PromptIssue(
                    R_LAYER_BLOCKED, doc, *_first_line(doc),
                    f"{m.label}: {label} replaces the whole file with a [BLOCKED: ...] marker "
                    f"({', '.join(m.pattern_ids)}); none of its {m.chars:,} characters of instructions reach the "
                    f"model{_lost_text(lost)}"))
        elif ly.status == BLOCKED and ly.id in ("memory", "user-profile"):
            for st in report.stores:
                if st.document is None or ("memory" if st.target == "memory" else "user-profile") != ly.id:
                    continue
                for e in st.entries:
                    if e.status != "blocked":
                        continue
                    first = st.live[e.index].strip().split("\n", 1)[0][:80]
                    out.append(PromptIssue(
                        R_LAYER_BLOCKED, st.document, e.offset, e.offset + max(1, min(e.length, 200)),
                        f"{st.filename} entry {e.index + 1} is replaced in the system prompt by a [BLOCKED: ...] "
                        f"placeholder ({', '.join(e.pattern_ids) or 'too large to scan'}); the model never sees: "
                        f"{first!r}"))
        elif ly.status == TRUNCATED and ly.documents:
            tr = ly.details.get("truncation") or {}
            doc = ly.documents[0]
            before = tr.get("characters_before") or (ly.details.get("capacity") or {}).get("characters")
            kept = (f"{tr.get('characters_after', ly.chars):,} of {before:,} characters" if before
                    else f"{ly.chars:,} characters")
            out.append(PromptIssue(
                R_LAYER_TRUNCATED, doc, *_first_line(doc),
                f"{ly.title}: {label} cuts this layer to its cap ({kept} kept){_lost_text(ly.lost)}"
                + ("" if ly.lost else "; no Markdown heading falls in the omitted part")))
    # memory capacity
    for st in report.stores:
        if st.document is None or st.capacity is None or not st.entries:
            continue
        cap = st.capacity
        if not (cap.over_limit or cap.near_limit):
            continue
        check = "over-limit" if cap.over_limit else "near-limit"
        params = {"check": check, "limits": dict(report.memory_config.limits) if report.memory_config else {},
                  "document_kind": "user-profile" if st.target == "user" else "memory"}
        hits = list(mem.detect_store(st.document.text or "", params))
        s, e = (hits[0].start, hits[0].end) if hits else _first_line(st.document)
        if cap.over_limit:
            capped = report.profile.memory_render_cap and cap.current > max(cap.limit * 2, 4000)
            into = ("the snapshot is cut to its render cap in every prompt (the middle entries are lost)" if capped
                    else f"the whole snapshot still goes into every prompt (~{report.counter.count_chars(cap.current):,} "
                         "tokens)")
            msg = (f"{st.filename} holds {cap.current:,} of {cap.limit:,} characters ({mem.share_of_limit(cap.current, cap.limit)}): "
                   f"{into} and Hermes refuses every new entry until it is consolidated")
            sev = Severity.MEDIUM
        else:
            msg = (f"{st.filename} is {cap.percent}% full ({cap.current:,}/{cap.limit:,} characters): the agent "
                   "will soon be unable to save anything new to it")
            sev = Severity.INFO
        out.append(PromptIssue(R_MEMORY_CAPACITY, st.document, s, max(e, s + 1), msg, sev))
    # repetition
    sources = _repetition_sources(report)
    seen: dict[str, tuple[str, Document]] = {}
    per_pair: dict[tuple[str, str], int] = {}
    for lbl, doc, text in sources:
        for n, raw in _units(text).items():
            if n in seen:
                first_lbl, first_doc = seen[n]
                if first_doc.path == doc.path:
                    continue
                key = (first_doc.path, doc.path)
                per_pair[key] = per_pair.get(key, 0) + 1
                if per_pair[key] > REPEAT_MAX_PER_PAIR:
                    continue
                t = doc.text or ""
                i = t.find(raw)
                s, e = (i, i + len(raw)) if i >= 0 else _first_line(doc)
                out.append(PromptIssue(
                    R_REPEATED, doc, s, e,
                    f"this instruction is also in {first_lbl} ({first_doc.path}); the model reads it twice "
                    f"(~{report.counter.count(raw):,} tokens each time) and the copies drift apart when one is edited"))
            else:
                seen[n] = (lbl, doc)
    return out


# ---------------------------------------------------------------------------------------------------
# Scenarios (rule examples): a session described as text

PROMPT_SCENARIO_MAGIC = "#hermes-audit-prompt-scenario"
SCENARIO_CWD = "/scenario"
SCENARIO_HOME = "/scenario-home"


def parse_prompt_scenario(text: str) -> tuple[PromptSettings, Any, str, dict[str, tuple[int, int]], tuple[int, int]]:
    """Parse a prompt scenario. First line: ``#hermes-audit-prompt-scenario`` and options
    (``version=0.19|latest``, ``context-length=N``, ``max-share=F``, ``platform=P``, ``model=M``,
    ``provider=P``, ``tools=a,b|none``); then files, each starting with ``=== PATH`` (``~/PATH`` is in
    HERMES_HOME, anything else in the working directory; option ``fill=N`` puts N characters of filler
    first) and running to the next ``===`` line. Returns (settings, MemoryFS, version, file header spans,
    first-line span). Raises ``ValueError``."""
    try:
        opts, files, first = split_scenario(text, PROMPT_SCENARIO_MAGIC)
    except ValueError as exc:
        raise ValueError(str(exc).replace("not a scenario", "not a prompt scenario")) from None
    fs = ctx.MemoryFS()
    fs.add_dir(SCENARIO_CWD)
    fs.add_dir(SCENARIO_HOME)
    headers: dict[str, tuple[int, int]] = {}
    for f in files:
        rel = f.rel
        base = SCENARIO_HOME if rel.startswith("~/") else SCENARIO_CWD
        path = posixpath.normpath(posixpath.join(base, rel[2:] if rel.startswith("~/") else rel))
        if not (path.startswith(SCENARIO_CWD + "/") or path.startswith(SCENARIO_HOME + "/")):
            raise ValueError("scenario path outside the scenario")
        headers[path] = f.header
        fs.add_file(path, scenario_fill(f.options, f.body).encode("utf-8"))
    cl = int(opts["context-length"]) if opts.get("context-length") else None
    settings = PromptSettings(
        cwd=Path(SCENARIO_CWD), home=Path(SCENARIO_HOME), platform=opts.get("platform", "cli"),
        model=opts.get("model", ""), provider=opts.get("provider", "openrouter"),
        tools=parse_tools(opts.get("tools")), context_length=cl,
        now=datetime(2026, 7, 15, 12, 0, tzinfo=timezone.utc),
        max_share=float(opts.get("max-share", DEFAULT_MAX_SHARE)),
        environ={"HOME": "/scenario-user"},
    )
    return settings, fs, opts.get("version", "latest"), headers, first


def scenario_prompt_issues(text: str) -> list[tuple[PromptIssue, tuple[int, int]]]:
    """Run the prompt model on a scenario; each issue with the span of its file's ``===`` line."""
    settings, fs, version, headers, first = parse_prompt_scenario(text)
    catalog = load_catalog()
    profile = get_profile(version)
    scanner = scanner_for(catalog.parity, profile.scanner)
    report = assemble(settings, profile, scanner, None, fs=fs, counter=get_counter("chars"))
    out = []
    for it in prompt_issues(report):
        out.append((it, headers.get(str(it.document.abs_path or it.document.path), first)))
    return out


_SCENARIO_CACHE: dict[str, tuple] = {}


def detect_prompt(text: str, params: dict):
    """Detector ``prompt-model``: findings of rule ``params["rule"]`` for a prompt scenario document.

    Only texts starting with :data:`PROMPT_SCENARIO_MAGIC` yield hits (real
    scans get prompt findings from ``scan --prompt``); a hit spans the
    ``=== PATH`` line of the file the finding is about.
    """
    if not text.startswith(PROMPT_SCENARIO_MAGIC):
        return
    try:
        if text not in _SCENARIO_CACHE:
            if len(_SCENARIO_CACHE) > 32:
                _SCENARIO_CACHE.clear()
            _SCENARIO_CACHE[text] = tuple(scenario_prompt_issues(text))
        results = _SCENARIO_CACHE[text]
    except (ValueError, KeyError, OSError, RecursionError, PromptError):
        return
    for issue, (start, end) in results:
        if issue.rule == params.get("rule"):
            yield DetectorHit(start, max(end, start + 1), {"message": issue.message}, severity=issue.severity)


# ---------------------------------------------------------------------------------------------------
# ``scan --prompt``

