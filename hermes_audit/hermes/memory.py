"""Memory stores (``memories/MEMORY.md`` and ``memories/USER.md``) as Hermes reads them.

Everything here mirrors ``tools/memory_tool.py`` (``MemoryStore``) of
hermes-agent 0.19.0, and for the ``latest`` profile the newest public source
(``NousResearch/hermes-agent`` @ 029cfb25, see
``../shared/reference/hermes-behaviour.md`` section 5):

* reading: ``Path.read_text(encoding="utf-8")``: strict UTF-8, a BOM kept as
  U+FEFF (0.20.1 reads ``utf-8-sig``, dropping one BOM, and treats a store that
  is not UTF-8 as empty instead of failing the whole load), and *universal newlines* (``\\r\\n`` and a lone ``\\r`` become
  ``\\n`` before anything else happens);
* parsing: a whitespace-only file has no entries; otherwise the text is split
  on ``"\\n§\\n"``, every piece is ``strip()``-ped, empty pieces are dropped and
  duplicates removed keeping the first (``dict.fromkeys``);
* capacity: ``len("\\n§\\n".join(entries))`` characters (code points) against
  the store limit (2,200 for MEMORY.md, 1,375 for USER.md, or
  ``memory.memory_char_limit`` / ``memory.user_char_limit`` in config.yaml);
  the percentage shown is ``min(100, int(current / limit * 100))``;
* load-time scan: each entry not starting with ``[BLOCKED:`` is scanned at the
  ``strict`` scope; an entry with findings is replaced in the frozen snapshot
  by a ``[BLOCKED: ...]`` placeholder (latest also blocks entries longer than
  the 65,536-character scan window);
* rendering: ``═``×46, the header, ``═``×46, then the entries joined by the
  delimiter (latest: a head+tail cut above ``max(2 * limit, 4000)`` characters
  and `` ⚠ OVER BUDGET`` in the header above the limit);
* drift guard (``_detect_external_drift``): ``replace``/``remove`` are refused
  when the file does not round-trip (``raw.strip() != "\\n§\\n".join(parsed)``)
  or one entry is longer than the store limit.

Offsets returned by this module are offsets in the document's own text (the
raw decoded text, before newline translation), so findings point at the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

from hermes_audit.documents.reader import ReadStatus
from hermes_audit.hermes.profiles import (
    MEMORY_CHAR_LIMIT,
    MEMORY_ENTRY_DELIMITER,
    USER_CHAR_LIMIT,
    VersionProfile,
)
from hermes_audit.documents.reader import read_file
from hermes_audit.findings import DetectorHit
from hermes_audit.hermes.outcomes import BLOCKED, EntryVerdict, LOADED, LocatedHit, unreadable_consequence

if TYPE_CHECKING:  # pragma: no cover
    from hermes_audit.documents.document import Document
    from hermes_audit.hermes.threats import ThreatScanner
    from hermes_audit.hermes.outcomes import EntryVerdict, LocatedHit

#: The two stores: target name -> file name (``MemoryStore._path_for``).
STORE_FILES = {"memory": "MEMORY.md", "user": "USER.md"}
#: Header text of each block (``MEMORY_BLOCK_HEADERS`` in 0.19.0).
BLOCK_HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
#: Default limits in characters (``MemoryStore.__init__`` and config defaults).
DEFAULT_LIMITS = {"memory": MEMORY_CHAR_LIMIT, "user": USER_CHAR_LIMIT}
#: The block separator: U+2550 BOX DRAWINGS DOUBLE HORIZONTAL, 46 times.
SEPARATOR = "\u2550" * 46
#: Share of the limit above which hermes-audit reports a store as nearly full.
NEAR_LIMIT_RATIO = 0.8
#: Largest config.yaml read for the memory limits (bytes).
MAX_CONFIG_BYTES = 1024 * 1024

Number = Union[int, float]


from hermes_audit.hermes.newlines import NewlineMap  # noqa: E402  (re-exported)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------


@dataclass
class Piece:
    """One piece of ``text.split("\\n§\\n")``: raw offset of its first kept character, and texts."""

    offset: int
    raw: str
    stripped: str


def split_pieces(text: str) -> list[Piece]:
    """Every piece of the delimiter split (after newline translation), empty ones included.

    ``offset`` is where the stripped text starts in ``text`` (the raw text);
    for an empty piece it is where the piece starts.
    """
    nm = NewlineMap(text)
    t = nm.text
    out: list[Piece] = []
    pos = 0
    for piece in t.split(MEMORY_ENTRY_DELIMITER):
        stripped = piece.strip()
        lead = len(piece) - len(piece.lstrip()) if stripped else 0
        out.append(Piece(nm.to_raw(pos + lead), piece, stripped))
        pos += len(piece) + len(MEMORY_ENTRY_DELIMITER)
    return out


def memory_entries(text: str) -> list[tuple[int, str]]:
    """Entries of a memory store with their raw offsets (``MemoryStore._read_file`` + ``load_from_disk``).

    Universal newlines, split on ``"\\n§\\n"``, ``strip()``, empty pieces
    dropped, duplicates dropped keeping the first. A whitespace-only text has
    no entries. The entry strings are what Hermes scans and renders; the
    offsets are in ``text``.
    """
    if not text.strip():
        return []
    out: list[tuple[int, str]] = []
    seen: set[str] = set()
    for p in split_pieces(text):
        if p.stripped and p.stripped not in seen:
            seen.add(p.stripped)
            out.append((p.offset, p.stripped))
    return out


def raw_span(text: str, entry_offset: int, start: int, end: int, nm: Optional[NewlineMap] = None) -> tuple[int, int]:
    """Raw ``[start, end)`` of ``[start, end)`` inside the entry that starts at raw ``entry_offset``.

    Entry strings are newline-translated; this maps back when the file has
    carriage returns. ``nm`` is the text's :class:`NewlineMap` when already built.
    """
    if "\r" not in text:
        return entry_offset + start, entry_offset + end
    nm = nm or NewlineMap(text)
    t0 = _raw_to_translated(nm, entry_offset)
    return nm.to_raw(t0 + start), nm.to_raw(t0 + end)


def _raw_to_translated(nm: NewlineMap, raw_offset: int) -> int:
    lo, hi = 0, len(nm.text)
    while lo < hi:  # smallest t with to_raw(t) >= raw_offset
        mid = (lo + hi) // 2
        if nm.to_raw(mid) < raw_offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------
# Markers, capacity, rendering
# ---------------------------------------------------------------------------


def memory_blocked_marker(filename: str, ids: list[str], hint: str = "use memory(action=remove) to delete the original.") -> str:
    """The snapshot placeholder for an entry with findings (``_sanitize_entries_for_snapshot``); ``hint`` is
    the profile's :attr:`~hermes_audit.hermes.profiles.VersionProfile.memory_blocked_hint`."""
    return (
        f"[BLOCKED: {filename} entry contained threat pattern(s): {', '.join(ids)}. Removed from system prompt; "
        f"{hint}]"
    )


def memory_too_large_marker(filename: str, length: int) -> str:
    """Latest only: the placeholder for an entry longer than the 65,536-character scan window."""
    return (
        f"[BLOCKED: {filename} entry too large to scan ({length:,} chars). Removed from system prompt; "
        "use memory(action=remove) to delete the original.]"
    )


def char_count(entries: list[str]) -> int:
    """Characters a store uses: ``len("\\n§\\n".join(entries))`` (0 for no entries)."""
    return len(MEMORY_ENTRY_DELIMITER.join(entries)) if entries else 0


def share_of_limit(current: int, limit: Number) -> str:
    """``current`` as a share of ``limit``, rounded to a whole percent and not capped (``"101%"`` for 2,212 of
    2,200), for hermes-audit's own messages; ``"-"`` when ``limit <= 0``. Hermes' own header shows
    :func:`usage_percent` (at most 100)."""
    return f"{current / limit:.0%}" if limit > 0 else "-"


def usage_percent(current: int, limit: Number) -> int:
    """The percentage Hermes shows: ``min(100, int(current / limit * 100))``, 0 when ``limit <= 0``."""
    return min(100, int((current / limit) * 100)) if limit > 0 else 0


def is_number(value: Any) -> bool:
    """True for the limit values Hermes can compute with (int, float, bool)."""
    return isinstance(value, (int, float))


@dataclass
class Capacity:
    """Characters used against a store limit, as Hermes counts them.

    ``current`` counts the live entries (duplicates removed, not the
    snapshot placeholders); ``percent`` is the figure in the block header;
    ``over_limit`` means Hermes refuses every ``add``; ``near_limit`` means
    more than 80 % used.
    """

    current: int
    limit: Number
    percent: int
    over_limit: bool
    near_limit: bool

    def to_dict(self) -> dict:
        return {"characters": self.current, "limit": self.limit, "percent": self.percent,
                "over_limit": self.over_limit, "near_limit": self.near_limit}


def capacity(entries: list[str], limit: Number) -> Capacity:
    """:class:`Capacity` of ``entries`` against ``limit`` (a number)."""
    cur = char_count(entries)
    return Capacity(cur, limit, usage_percent(cur, limit), cur > limit, cur > limit * NEAR_LIMIT_RATIO)


def render_block(target: str, entries: list[str], limit: Number, profile: VersionProfile) -> str:
    """``MemoryStore._render_block``: the snapshot block for ``entries`` (already sanitised).

    ``target`` is ``memory`` or ``user``. Returns ``""`` for no entries.
    Raises ``TypeError`` when ``limit`` is not a number, as Hermes does
    (Hermes then loads no memory at all).
    """
    if not entries:
        return ""
    content = MEMORY_ENTRY_DELIMITER.join(entries)
    current = len(content)
    pct = usage_percent(current, limit)
    over = ""
    if profile.memory_render_cap:
        cap = max(limit * 2, 4000)
        if current > cap:
            head = int(cap * 0.7)
            tail = int(cap * 0.2)
            omitted = current - head - tail
            content = (
                content[:head]
                + f"\n\n[... {omitted:,} chars truncated \u2014 memory over budget ({current:,}/{limit:,}); "
                "consolidate via memory(action=remove/replace) ...]\n\n"
                + content[-tail:]
            )
        if current > limit:
            over = " \u26a0 OVER BUDGET"
    header = f"{BLOCK_HEADERS[target]} [{pct}% \u2014 {current:,}/{limit:,} chars{over}]"
    return f"{SEPARATOR}\n{header}\n{SEPARATOR}\n{content}"


def join_prompt_parts(blocks: list[str]) -> str:
    """How the blocks sit in the system prompt: stripped, empties dropped, joined by a blank line
    (``build_system_prompt_parts``, volatile tier)."""
    return "\n\n".join(b.strip() for b in blocks if b and b.strip())


# ---------------------------------------------------------------------------
# Load-time scan
# ---------------------------------------------------------------------------


def scan_entries(
    text: str,
    filename: str,
    scanner: "ThreatScanner",
    profile: VersionProfile,
) -> tuple[list["EntryVerdict"], list["LocatedHit"]]:
    """Hermes' load-time verdict for each entry of the store text ``text``.

    Entries are scanned at the ``strict`` scope (``tools/memory_tool.py`` ``_sanitize_entries_for_snapshot``,
    hermes-agent 0.15.0 and later); with ``profile.memory_scan_on_load`` false (0.13.0-0.14.0's
    ``load_from_disk``) every entry loads as it is.

    Returns one :class:`~hermes_audit.hermes.verdict.EntryVerdict` per live
    entry (``offset``/``length`` in ``text``; ``rendered`` is what the
    snapshot holds) and the located parity hits with offsets in ``text``.
    ``filename`` is ``MEMORY.md`` or ``USER.md``.
    """
    text, skip = store_text(text, profile)
    nm = NewlineMap(text)
    verdicts: list[EntryVerdict] = []
    hits: list[LocatedHit] = []
    for i, (off, entry) in enumerate(memory_entries(text)):
        s0, e0 = raw_span(text, off, 0, len(entry), nm)
        if entry.startswith("[BLOCKED:") or not profile.memory_scan_on_load:
            # 0.13.0-0.14.0 (memory_scan_on_load false): load_from_disk renders every entry unscanned
            verdicts.append(EntryVerdict(i, off + skip, e0 - s0, LOADED, [], entry))
            continue
        if profile.memory_block_oversized_entries and len(entry) > scanner.max_scan_chars:
            verdicts.append(EntryVerdict(i, off + skip, e0 - s0, BLOCKED, [],
                                         memory_too_large_marker(filename, len(entry))))
            continue
        located = scanner.locate(entry, "strict")
        ids = [h.pattern_id for h in located]
        for h in located:
            s, e = raw_span(text, off, h.start, h.end, nm)
            hits.append(LocatedHit(h, s + skip, e + skip, f"{filename} entry {i + 1}"))
        rendered = memory_blocked_marker(filename, ids, profile.memory_blocked_hint) if ids else entry
        verdicts.append(EntryVerdict(i, off + skip, e0 - s0, BLOCKED if ids else LOADED, ids, rendered))
    return verdicts, hits


def store_text(text: str, profile: VersionProfile) -> tuple[str, int]:
    """The store text Hermes parses, and how many leading characters of ``text`` it drops (0 or 1).

    ``text`` is the file decoded as UTF-8 with a BOM kept as U+FEFF. A profile that reads the
    stores as ``utf-8-sig`` (0.20.1 ``tools/memory_tool.py`` ``MemoryStore._read_raw_checked``)
    drops one leading U+FEFF; with plain ``utf-8`` (0.19.0 ``_read_file``) it stays glued to the
    first entry, where it is an invisible character the scan blocks.
    """
    if profile.memory_encoding == "utf-8-sig" and text.startswith("\ufeff"):
        return text[1:], 1
    return text, 0


# ---------------------------------------------------------------------------
# Format drift
# ---------------------------------------------------------------------------


@dataclass
class DriftIssue:
    """One reason the file would not round-trip, at a raw ``[start, end)``."""

    start: int
    end: int
    reason: str


@dataclass
class DriftReport:
    """``_detect_external_drift`` for one store, with the reasons spelled out.

    ``refused`` is Hermes' answer: ``replace``/``remove`` refuse to write (and
    leave a ``.bak.<time>`` copy) when the text does not round-trip or an
    entry is longer than the limit. ``issues`` locate why (empty when not
    refused). ``duplicates`` are entries Hermes drops silently at load and on
    the next write; they are not drift.
    """

    refused: bool
    roundtrips: bool
    longest_entry: int
    issues: list[DriftIssue] = field(default_factory=list)
    duplicates: list[DriftIssue] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "refused": self.refused, "roundtrips": self.roundtrips, "longest_entry": self.longest_entry,
            "issues": [i.reason for i in self.issues], "duplicates": len(self.duplicates),
        }


def _numeric_limit(limit: Any) -> Optional[Number]:
    return limit if is_number(limit) else None


def detect_drift(text: str, limit: Any) -> DriftReport:
    """Would Hermes' drift guard refuse ``replace``/``remove`` on this store? And why.

    ``limit`` is the store limit; a non-numeric limit skips the size signal
    (Hermes fails earlier with such a limit).
    """
    nm = NewlineMap(text)
    t = nm.text
    if not t.strip():
        return DriftReport(False, True, 0)
    pieces = split_pieces(text)
    parsed = [p.stripped for p in pieces if p.stripped]
    roundtrips = t.strip() == MEMORY_ENTRY_DELIMITER.join(parsed)
    longest = max((len(e) for e in parsed), default=0)
    lim = _numeric_limit(limit)
    too_long = lim is not None and longest > lim
    refused = (not roundtrips) or too_long
    issues: list[DriftIssue] = []
    n = len(text)
    last = len(pieces) - 1
    if not roundtrips:
        for k, p in enumerate(pieces):
            if not p.stripped:
                issues.append(DriftIssue(min(p.offset, n), min(p.offset + 1, n),
                                         "empty entry next to a \"\u00a7\" line (dropped when Hermes rewrites the file)"))
                continue
            lead = p.raw[: len(p.raw) - len(p.raw.lstrip())]
            trail = p.raw[len(p.raw.rstrip()):]
            if (lead and k > 0) or (trail and k < last):
                issues.append(DriftIssue(p.offset, min(p.offset + 1, n),
                                         "blank space between this entry and a \"\u00a7\" line "
                                         "(trimmed when Hermes rewrites the file)"))
        if not issues:
            issues.append(DriftIssue(0, min(1, n), "the file does not round-trip through the memory tool"))
    if too_long:
        for p in pieces:
            if p.stripped and len(p.stripped) > lim:
                s, e = raw_span(text, p.offset, 0, len(p.stripped), nm)
                issues.append(DriftIssue(s, e, f"an entry of {len(p.stripped):,} characters is longer than the whole "
                                               f"store limit ({lim:,}): free text outside the \"\\n\u00a7\\n\" format"))
        if "\u00a7" in t and MEMORY_ENTRY_DELIMITER not in t:
            i = text.find("\u00a7")
            issues.append(DriftIssue(i, i + 1, "\"\u00a7\" appears, but never alone on its own line: Hermes splits "
                                               "only on \"\\n\u00a7\\n\", so it does not separate entries here"))
    seen: dict[str, int] = {}
    dups: list[DriftIssue] = []
    for p in pieces:
        if not p.stripped:
            continue
        if p.stripped in seen:
            s, e = raw_span(text, p.offset, 0, len(p.stripped), nm)
            dups.append(DriftIssue(s, e, f"duplicate of entry {seen[p.stripped] + 1}: Hermes drops it at load "
                                         "and on the next write"))
        else:
            seen[p.stripped] = len(seen)
    return DriftReport(refused, roundtrips, longest, issues, dups)


# ---------------------------------------------------------------------------
# Configuration (config.yaml ``memory:`` section)
# ---------------------------------------------------------------------------


@dataclass
class MemoryConfig:
    """The ``memory:`` keys Hermes reads from ``<HERMES_HOME>/config.yaml`` (``agent/agent_init.py``).

    ``limits`` hold the values as Hermes passes them to ``MemoryStore`` (not
    converted: a string there makes Hermes fail and load no memory);
    ``enabled`` says whether each block goes into the prompt
    (``memory_enabled``, ``user_profile_enabled``; both default true).
    ``problems`` are one-line explanations of values Hermes cannot use.
    """

    limits: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_LIMITS))
    enabled: dict[str, bool] = field(default_factory=lambda: {"memory": True, "user": True})
    source: Optional[str] = None
    problems: list[str] = field(default_factory=list)
    loads: bool = True
    #: where each limit that is not Hermes' default comes from: ``{"user": "config.yaml"}``, ``"the command line"``
    limits_set: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"limits": dict(self.limits), "enabled": dict(self.enabled), "source": self.source,
                "problems": list(self.problems), "loads": self.loads}


def read_memory_config(home: Optional[Path], overrides: Optional[dict[str, Any]] = None) -> MemoryConfig:
    """Memory settings for a Hermes home: ``config.yaml`` there (read safely), then ``overrides``.

    ``overrides`` maps ``memory``/``user`` to a limit given on the command
    line. A missing or unreadable config.yaml means the defaults (Hermes falls
    back to them too).
    """
    cfg = MemoryConfig()
    if home is not None:
        path = home / "config.yaml"
        if os.path.lexists(path):
            cfg.source = str(path)
            _apply_config_file(cfg, path, home)
    for target, value in (overrides or {}).items():
        if value is not None:
            cfg.limits[target] = value
            cfg.limits_set[target] = "the command line"
    for target, value in cfg.limits.items():
        if not is_number(value):
            cfg.problems.append(
                f"memory.{'memory' if target == 'memory' else 'user'}_char_limit is {value!r}, not a number: "
                f"when {STORE_FILES[target]} has entries, Hermes fails while rendering its block and loads no "
                "memory at all")
    return cfg


def _apply_config_file(cfg: MemoryConfig, path: Path, home: Path) -> None:
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
    from hermes_audit.hermes.distribution import YamlLimitError, load_yaml_bounded

    res = read_file(path, home.resolve(), max_bytes=MAX_CONFIG_BYTES)
    if res.status is not ReadStatus.OK or res.text is None:
        cfg.problems.append(f"config.yaml not read ({res.detail or res.status.value}); default limits assumed")
        return
    try:
        data = load_yaml_bounded(res.text)
    except YamlLimitError as exc:
        cfg.problems.append(f"config.yaml not used: {exc}; default limits assumed")
        return
    except Exception as exc:  # yaml.YAMLError and friends: Hermes also falls back to its defaults
        cfg.problems.append(f"config.yaml is not valid YAML ({type(exc).__name__}); default limits assumed")
        return
    if not isinstance(data, dict):
        return
    mem = data.get("memory")
    if mem is None:
        return
    if not isinstance(mem, dict):
        cfg.loads = False
        cfg.problems.append("config.yaml 'memory' is not a mapping: Hermes fails to set up memory and loads none")
        return
    if "memory_char_limit" in mem:
        cfg.limits["memory"] = mem["memory_char_limit"]
        cfg.limits_set["memory"] = "config.yaml"
    if "user_char_limit" in mem:
        cfg.limits["user"] = mem["user_char_limit"]
        cfg.limits_set["user"] = "config.yaml"
    if "memory_enabled" in mem:
        cfg.enabled["memory"] = bool(mem["memory_enabled"])
    if "user_profile_enabled" in mem:
        cfg.enabled["user"] = bool(mem["user_profile_enabled"])


# ---------------------------------------------------------------------------
# A whole store
# ---------------------------------------------------------------------------


@dataclass
class StoreReport:
    """One memory store as Hermes sees it.

    ``status``: ``loaded`` (its block goes into the prompt), ``blocked`` (some
    entries replaced by placeholders), ``empty`` (no entries: no block),
    ``missing``, ``skipped`` (unreadable, not UTF-8, not a regular file),
    ``disabled`` (config.yaml turns the block off). ``live`` are the entries
    Hermes keeps in live state (what the memory tool shows); ``block`` is the
    rendered snapshot block (``""`` when none).
    """

    target: str
    filename: str
    document: Optional["Document"]
    status: str
    entries: list["EntryVerdict"] = field(default_factory=list)
    live: list[str] = field(default_factory=list)
    hits: list["LocatedHit"] = field(default_factory=list)
    capacity: Optional[Capacity] = None
    drift: Optional[DriftReport] = None
    block: str = ""
    note: str = ""

    def to_dict(self) -> dict:
        out: dict = {"target": self.target, "file": self.filename, "status": self.status}
        if self.document is not None:
            out["path"] = self.document.path
        if self.note:
            out["note"] = self.note
        if self.capacity is not None:
            out["capacity"] = self.capacity.to_dict()
        if self.drift is not None:
            out["drift"] = self.drift.to_dict()
        out["entries"] = [
            {"index": e.index + 1, "status": e.status, "pattern_ids": e.pattern_ids, "characters": len(self.live[e.index]),
             "line": self.document.lines.position(e.offset).line if self.document is not None else None}
            for e in self.entries
        ]
        return out


def analyse_store(
    doc: Optional["Document"],
    target: str,
    config: MemoryConfig,
    scanner: "ThreatScanner",
    profile: VersionProfile,
) -> StoreReport:
    """Parse, scan, count and render one store (``doc`` is ``None`` when the file does not exist)."""
    filename = STORE_FILES[target]
    if doc is None:
        return StoreReport(target, filename, None, "missing", note="no such file: Hermes adds no block")
    if not doc.readable or doc.text is None:
        note = doc.read.detail or doc.read.status.value
        if doc.read.status is ReadStatus.NOT_UTF8 and profile.memory_read_checked:
            note += (f"; {profile.label} catches the decode error (MemoryStore._read_entries_checked) and treats "
                     "the store as empty; the other store still loads")
        elif doc.read.status is ReadStatus.NOT_UTF8:
            note += (f"; {profile.label} raises a decode error in MemoryStore.load_from_disk, "
                     "so neither memory block is loaded")
        elif doc.read.status in (ReadStatus.NOT_REGULAR, ReadStatus.SYMLINK_ESCAPE):
            note += f"; {unreadable_consequence(doc.kind, doc.read, profile, doc.path)}"
        else:
            note += f"; {profile.label} treats it as empty"
        return StoreReport(target, filename, doc, "skipped", note=note)
    verdicts, hits = scan_entries(doc.text, filename, scanner, profile)
    text, _skip = store_text(doc.text, profile)
    live = [e for _, e in memory_entries(text)]
    limit = config.limits[target]
    rep = StoreReport(target, filename, doc, "loaded" if verdicts else "empty", verdicts, live, hits)
    if doc.read.status is ReadStatus.OVERSIZED:
        rep.note = (f"only the first {len(text):,} of {doc.read.total_chars:,} characters were analysed "
                    "(the file is oversized)")
    if is_number(limit):
        rep.capacity = capacity(live, limit)
    rep.drift = detect_drift(text, limit)
    if not profile.memory_drift_guard:  # 0.13.0-0.14.0: no drift guard, the next write normalises the store
        rep.drift.refused = False
    if any(v.status == "blocked" for v in verdicts):
        rep.status = "blocked"
    if verdicts and not config.enabled[target]:
        rep.status = "disabled"
        key = "memory_enabled" if target == "memory" else "user_profile_enabled"
        rep.note = (rep.note + "; " if rep.note else "") + f"config.yaml sets memory.{key}: false, so this block is not in the prompt"
    if config.loads and is_number(limit):
        rep.block = render_block(target, [v.rendered for v in verdicts], limit, profile)
    return rep


def load_failure_reason(reports: list[StoreReport], config: MemoryConfig,
                        profile: Optional[VersionProfile] = None) -> Optional[str]:
    """Why Hermes starts the session with no memory block at all, or ``None`` when it loads them.

    Mirrors ``MemoryStore.load_from_disk`` (hermes-agent 0.19.0 ``tools/memory_tool.py``) as
    ``agent/agent_init.py`` calls it, inside a ``try``/``except Exception: pass``: it reads MEMORY.md,
    then USER.md (``read_text(encoding="utf-8")``: a file that is not UTF-8 raises ``UnicodeDecodeError``,
    which ``_read_file`` does not catch), then renders the memory block, then the user block
    (``_render_block`` returns early for a store with no entries, so only a store *with entries* and a
    limit that is not a number raises ``TypeError``). Any exception leaves the snapshot it was created
    with, both blocks empty. ``reports`` are the two stores' :class:`StoreReport` values. With
    ``profile.memory_read_checked`` (0.20.1 ``_read_entries_checked``) a store that is not UTF-8 reads
    as empty and fails nothing; ``profile`` ``None`` is 0.19.0.
    """
    if not config.loads:
        return "; ".join(config.problems) or "Hermes does not set up memory"
    by_target = {r.target: r for r in reports}
    for target in ("memory", "user") if profile is None or not profile.memory_read_checked else ():
        r = by_target.get(target)
        if r is not None and r.document is not None and r.document.read.status is ReadStatus.NOT_UTF8:
            return (f"{r.filename} is not UTF-8: MemoryStore.load_from_disk raises a decode error, "
                    "so neither memory block is loaded")
    for target in ("memory", "user"):
        r = by_target.get(target)
        limit = config.limits[target]
        if r is not None and r.entries and not is_number(limit):
            key = "memory_char_limit" if target == "memory" else "user_char_limit"
            return (f"memory.{key} is {limit!r}, not a number, and {r.filename} has entries: rendering its "
                    "block raises, so neither memory block is loaded")
    return None


def snapshot(reports: list[StoreReport], config: MemoryConfig, profile: Optional[VersionProfile] = None) -> str:
    """The memory part of the system prompt: the MEMORY block, then the USER PROFILE block
    (each only when enabled and non-empty), joined as Hermes joins prompt parts; ``""`` when
    :func:`load_failure_reason` says Hermes (``profile``; ``None``: 0.19.0) loads no memory."""
    if load_failure_reason(reports, config, profile) is not None:
        return ""
    by_target = {r.target: r for r in reports}
    blocks = []
    for target in ("memory", "user"):
        r = by_target.get(target)
        if r is not None and config.enabled[target] and r.block:
            blocks.append(r.block)
    return join_prompt_parts(blocks)


def resolve_home(path: Optional[str], profile_name: Optional[str], environ: Optional[dict] = None) -> Path:
    """The Hermes home to read: ``path``, else ``$HERMES_HOME``, else ``~/.hermes``; with
    ``profile_name`` its ``profiles/<name>`` directory (``default`` is the home itself).

    Raises ``ValueError`` for a profile name Hermes would refuse.
    """
    env = os.environ if environ is None else environ
    base = Path(path) if path else Path(env.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()
    if profile_name is None:
        return base
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
    from hermes_audit.hermes.distribution import canonical_profile_name

    canon = canonical_profile_name(profile_name)
    if canon == "default":
        return base
    return base / "profiles" / canon


# ---------------------------------------------------------------------------
# Built-in detector ``memory-store`` (named by rules/memory.yaml)
# ---------------------------------------------------------------------------


def detect_store(text: str, params: dict):
    """Detector for the memory-store rules: capacity, format drift, duplicates, ``[BLOCKED:`` entries.

    ``params``: ``check`` is one of ``over-limit``, ``near-limit``, ``drift``,
    ``duplicate``, ``blocked-prefix``; ``limits`` maps ``memory``/``user`` to
    the store limits (default 2,200 / 1,375); ``document_kind`` (set by the
    engine) says which store the text is (``user-profile`` is USER.md).
    Yields :class:`~hermes_audit.findings.DetectorHit` values with
    spans in ``text``.
    """
    check = params.get("check")
    target = "user" if params.get("document_kind") == "user-profile" else "memory"
    limits = params.get("limits") or {}
    limit = limits.get(target, DEFAULT_LIMITS[target])
    filename = STORE_FILES[target]
    entries = memory_entries(text)
    if check in ("over-limit", "near-limit"):
        if not is_number(limit) or not entries:
            return
        cap = capacity([e for _, e in entries], limit)
        if check == "over-limit" and not cap.over_limit:
            return
        if check == "near-limit" and (cap.over_limit or not cap.near_limit):
            return
        threshold = limit if check == "over-limit" else limit * NEAR_LIMIT_RATIO
        nm = NewlineMap(text)
        used = 0
        for k, (off, entry) in enumerate(entries):
            used += len(entry) + (len(MEMORY_ENTRY_DELIMITER) if k else 0)
            if used > threshold:
                s, e = raw_span(text, off, 0, len(entry), nm)
                yield DetectorHit(s, e, {"file": filename, "current": f"{cap.current:,}", "limit": f"{limit:,}",
                                         "percent": cap.percent, "share": share_of_limit(cap.current, limit),
                                         "entry": k + 1})
                return
    elif check == "drift":
        rep = detect_drift(text, limit)
        if rep.refused:
            for issue in rep.issues:
                yield DetectorHit(issue.start, max(issue.end, issue.start + 1), {"file": filename, "reason": issue.reason})
    elif check == "duplicate":
        for issue in detect_drift(text, limit).duplicates:
            yield DetectorHit(issue.start, issue.end, {"file": filename, "reason": issue.reason})
    elif check == "blocked-prefix":
        nm = NewlineMap(text)
        for k, (off, entry) in enumerate(entries):
            if entry.startswith("[BLOCKED:"):
                s, e = raw_span(text, off, 0, len(entry), nm)
                yield DetectorHit(s, e, {"file": filename, "entry": k + 1})
