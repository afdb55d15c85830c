"""Hermes' cron prompt scanner and cron job files, reproduced.

``_scan_cron_prompt`` of ``tools/cronjob_tools.py`` (hermes-agent 0.19.0);
the regexes and messages are data in ``rules/hermes-cron.yaml``:

1. the GitHub ``Authorization: token $VAR`` header sent to
   ``https://api.github.com`` is replaced by ``curl https://api.github.com/user``;
2. invisible characters (``threat_patterns.INVISIBLE_CHARS``) block, except a
   zero-width joiner between two emoji (U+FE0F skipped on both sides);
3. the threat patterns, then the exfiltration patterns, are searched with
   ``re.IGNORECASE``; the first hit blocks the job.

Hermes applies it to a job's own prompt when the job is created or updated
and again each time it runs. A job's ``script`` runs *before* the prompt is
built (and is the whole job with ``no_agent``), so a script is never scanned.

Job files: the scheduler reads ``<HERMES_HOME>/cron/jobs.json`` (``{"jobs":
[...]}`` or a bare list; ``utf-8-sig``), so a distribution that ships
``cron/jobs.json`` ships the profile's live job store. Jobs without
``enabled: false`` and with a ``cron``/``interval`` schedule are picked up
when the profile's scheduler runs (``cron/jobs.py`` recomputes a missing
``next_run_at``).

Patterns run with the ``regex`` module and a time limit (Hermes' unbounded
``(?:\\w+\\s+)*`` fillers would otherwise let a hostile prompt stall us).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import regex
import yaml
from hermes_audit.hermes.distribution import YamlLimitError, load_yaml_bounded, yaml_error_text
from hermes_audit.patterns.catalog import default_rules_dir, load_catalog

#: Seconds one pattern may run on one prompt.
PATTERN_TIMEOUT = 2.0
#: Largest cron job file parsed (bytes).
MAX_JOB_FILE_BYTES = 4 * 1024 * 1024
#: The file the scheduler reads (relative to the profile).
LIVE_JOBS_FILE = "cron/jobs.json"


class CronGuardError(Exception):
    """``rules/hermes-cron.yaml`` is missing or invalid."""


@dataclass
class CronCatalog:
    threat_patterns: list[tuple[str, Any]]
    exfil_patterns: list[tuple[str, Any]]
    github_exemption: Any
    github_replacement: str
    emoji_ranges: list[tuple[int, int]]
    emoji_skip: frozenset[str]
    invisible: frozenset[str]
    invisible_message: str
    pattern_message: str


_CACHE: dict[str, CronCatalog] = {}


def load_cron_catalog(path: Optional[Path] = None) -> CronCatalog:
    """Load ``rules/hermes-cron.yaml``; the invisible set is the parity catalog's (0.19). Raises :class:`CronGuardError`."""
    p = (path or default_rules_dir() / "hermes-cron.yaml").resolve()
    if str(p) in _CACHE:
        return _CACHE[str(p)]
    try:
        with open(p, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
        sv = data["secret_var"]
        flags = regex.IGNORECASE | regex.VERSION0

        def comp(r: str) -> Any:
            return regex.compile(r.replace("{secret_var}", sv), flags)

        cat = CronCatalog(
            threat_patterns=[(x["id"], comp(x["regex"])) for x in data["threat_patterns"]],
            exfil_patterns=[(x["id"], comp(x["regex"])) for x in data["exfil_patterns"]],
            github_exemption=comp(data["github_auth_exemption"]),
            github_replacement=data["github_auth_replacement"],
            emoji_ranges=[(int(lo), int(hi)) for lo, hi in data["emoji_neighbour_ranges"]],
            emoji_skip=frozenset(chr(int(c[2:], 16)) for c in data["emoji_skip"]),
            invisible=load_catalog().parity.versions["0.19"].invisible_chars,
            invisible_message=data["invisible_message"],
            pattern_message=data["pattern_message"],
        )
    except (OSError, UnicodeDecodeError, yaml.YAMLError, KeyError, TypeError, ValueError, regex.error) as exc:
        raise CronGuardError(f"cannot load {p.name}: {type(exc).__name__}: {exc}") from None
    _CACHE[str(p)] = cat
    return cat


@dataclass
class CronVerdict:
    """Hermes' answer for one prompt: ``blocked`` with the pattern id and message, or not."""

    blocked: bool
    pattern_id: str = ""
    message: str = ""
    incomplete: bool = False


def _is_emoji(cat: CronCatalog, ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in cat.emoji_ranges)


def _zwj_in_emoji(cat: CronCatalog, text: str, i: int) -> bool:
    left = i - 1
    while left >= 0 and text[left] in cat.emoji_skip:
        left -= 1
    right = i + 1
    while right < len(text) and text[right] in cat.emoji_skip:
        right += 1
    return left >= 0 and right < len(text) and _is_emoji(cat, text[left]) and _is_emoji(cat, text[right])


def scan_cron_prompt(prompt: str, cat: Optional[CronCatalog] = None) -> CronVerdict:
    """``_scan_cron_prompt``: the first reason Hermes blocks ``prompt``, or ``blocked=False``.

    Among several invisible characters, Hermes reports whichever its set
    yields first; here it is the lowest code point.
    """
    cat = cat or load_cron_catalog()
    text = prompt
    try:
        m = cat.github_exemption.search(text, timeout=PATTERN_TIMEOUT)
    except TimeoutError:
        m = None
    if m:
        text = text.replace(m.group(0), cat.github_replacement)
    if "\u200d" in text:
        check = "".join(ch for i, ch in enumerate(text) if not (ch == "\u200d" and _zwj_in_emoji(cat, text, i)))
    else:
        check = text
    present = sorted(set(check) & cat.invisible)
    if present:
        cp = f"U+{ord(present[0]):04X}"
        return CronVerdict(True, f"invisible_unicode_{cp}", cat.invisible_message.format(codepoint=cp))
    incomplete = False
    for pid, pat in [*cat.threat_patterns, *cat.exfil_patterns]:
        try:
            if pat.search(text, timeout=PATTERN_TIMEOUT):
                return CronVerdict(True, pid, cat.pattern_message.format(id=pid))
        except TimeoutError:
            incomplete = True
    return CronVerdict(False, incomplete=incomplete)


@dataclass
class CronJob:
    """One job found in a cron file: its index, fields hermes-audit looks at, and where it sits."""

    index: int
    name: str
    prompt: str
    script: str
    no_agent: bool
    enabled: bool
    schedule: str
    raw: dict = field(default_factory=dict)


@dataclass
class CronFile:
    """A parsed cron job file. ``live`` is true for ``cron/jobs.json`` (the scheduler's store)."""

    path: str
    live: bool
    jobs: list[CronJob] = field(default_factory=list)
    error: str = ""


def _schedule_text(s: Any) -> str:
    if isinstance(s, dict):
        kind = s.get("kind", "?")
        expr = s.get("expr") or s.get("display") or s.get("minutes") or s.get("run_at") or ""
        return f"{kind} {expr}".strip()
    return "" if s is None else str(s)[:80]


def _parse_error_text(exc: BaseException) -> str:
    """Why a cron file did not parse, on one line, with the position as ``line L, column C`` (1-based,
    columns in code points; a leading byte-order mark is not counted, as PyYAML does not count it) as
    HA753 gives it for distribution.yaml: PyYAML's context and problem
    (:func:`hermes_audit.hermes.distribution.yaml_error_text`), or the JSON decoder's message."""
    if isinstance(exc, yaml.YAMLError):
        return yaml_error_text(exc)
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def parse_job_text(text: str, path: str) -> CronFile:
    """Jobs in a cron file's text (JSON, or YAML for ``.yaml``/``.yml``): ``{"jobs": [...]}``, a list, or one job.

    A file that does not parse gets ``error`` = ``not valid YAML: <message with (line L, column C)>`` (or
    JSON); one over the YAML limits ``not evaluated: <why>``. Never raises."""
    cf = CronFile(path, path == LIVE_JOBS_FILE)
    is_yaml = path.endswith((".yaml", ".yml"))
    if text.startswith("\ufeff"):
        text = text[1:]  # the scheduler reads utf-8-sig
    try:
        if is_yaml:
            try:
                data = load_yaml_bounded(text)
            except YamlLimitError as exc:
                cf.error = f"not evaluated: {exc}"
                return cf
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                data = json.loads(text, strict=False)  # the scheduler retries with strict=False
    except (ValueError, yaml.YAMLError, RecursionError) as exc:
        cf.error = f"not valid {'YAML' if is_yaml else 'JSON'}: {_parse_error_text(exc)}"
        return cf
    if isinstance(data, dict) and isinstance(data.get("jobs"), list):
        items = data["jobs"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict) and ("prompt" in data or "script" in data):
        items = [data]
    else:
        cf.error = "no jobs (expected {\"jobs\": [...]} or a list of jobs)"
        return cf
    for i, job in enumerate(items):
        if not isinstance(job, dict):
            continue
        cf.jobs.append(CronJob(
            index=i,
            name=str(job.get("name") or job.get("id") or f"job {i + 1}")[:120],
            prompt=str(job.get("prompt") or ""),
            script=str(job.get("script") or ""),
            no_agent=bool(job.get("no_agent")),
            enabled=bool(job.get("enabled", True)),
            schedule=_schedule_text(job.get("schedule")),
            raw=job,
        ))
    return cf
