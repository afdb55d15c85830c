"""What Hermes does with one file on its own: load, block, warn or skip.

This is the per-file parity verdict that ``hermes-audit scan`` reports. The
loading simulation (``hermes_audit.hermes.context``) adds what depends on the
other files: shadowing, the AGENTS.md chain, truncation.

Sources (0.19 profile: hermes-agent 0.19.0; ``latest``: the reference's V-latest):

* context files and SOUL.md: ``agent/prompt_builder.py`` reads the file
  (``utf-8``; latest ``utf-8-sig``), ``.strip()``s it, treats empty as absent,
  strips YAML front matter from ``.hermes.md`` only, drops one leading U+FEFF
  and scans the rest at the ``context`` scope; any finding replaces the file by
  ``[BLOCKED: <label> contained potential prompt injection (<ids>). Content not loaded.]``.
* ``SOUL.md`` in latest: a user-authored SOUL.md with a finding loads with a
  warning; one owned by a profile distribution is blocked.
* memory stores: ``tools/memory_tool.py`` splits on ``"\\n§\\n"``, strips,
  drops empty and duplicate entries, and replaces each entry with a finding at
  the ``strict`` scope by ``[BLOCKED: <file> entry contained threat pattern(s): <ids>.
  Removed from system prompt; use memory(action=remove) to delete the original.]``.
  An entry that already starts with ``[BLOCKED:`` is not scanned.
* ``distribution.yaml`` (``hermes_cli/profile_distribution.py``): ``loaded`` when ``hermes profile
  install`` accepts it, ``skipped`` when Hermes refuses it or hermes-audit did not evaluate it (an alias
  bomb Hermes would expand, a file read only in part): :func:`manifest_verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import ReadStatus
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ParityHit, ThreatScanner

LOADED = "loaded"
BLOCKED = "blocked"
WARNED = "warned"
SKIPPED = "skipped"


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class ScanUnit:
    """The exact string Hermes scans, and where it starts in the document text.

    Hermes reads files with universal newlines (``\\r\\n`` and ``\\r`` become
    ``\\n``); every later transformation (BOM removal, ``strip()``, front
    matter, entry splitting) keeps a contiguous slice of that text, so
    ``offset`` is an offset in the newline-translated text and ``to_raw`` (when
    the file had carriage returns) maps such an offset back to the document text.
    """

    text: str
    offset: int
    label: str
    scope: str
    to_raw: Optional[Callable[[int], int]] = None


@dataclass(eq=False)
class LocatedHit:
    """A parity hit with its span in the document text."""

    hit: ParityHit
    start: int
    end: int
    unit_label: str


@dataclass(eq=False)
class EntryVerdict:
    """One memory entry: its text span, status and the pattern ids that block it."""

    index: int
    offset: int
    length: int
    status: str
    pattern_ids: list[str]
    rendered: str


@dataclass(eq=False)
class HermesVerdict:
    """Hermes' treatment of one file.

    ``status`` is ``loaded``, ``blocked``, ``warned`` or ``skipped``;
    ``pattern_ids`` the ids Hermes reports (invisible-character ids sorted by
    code point; Hermes' own order for them varies between runs); ``message``
    the exact ``[BLOCKED: ...]`` text Hermes injects, or the warning/skip reason.
    """

    status: str
    pattern_ids: list[str] = field(default_factory=list)
    message: str = ""
    hits: list[LocatedHit] = field(default_factory=list)
    entries: list[EntryVerdict] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict:
        out: dict = {"status": self.status, "pattern_ids": list(self.pattern_ids), "message": self.message}
        if self.note:
            out["note"] = self.note
        if self.entries:
            out["entries"] = [
                {"index": e.index, "status": e.status, "pattern_ids": e.pattern_ids, "characters": e.length}
                for e in self.entries
            ]
        return out


def blocked_marker(label: str, ids: list[str]) -> str:
    """The text Hermes puts in place of a blocked context file (``_scan_context_content``)."""
    return f"[BLOCKED: {label} contained potential prompt injection ({', '.join(ids)}). Content not loaded.]"


def strip_yaml_frontmatter(content: str, drop_bom: bool = True) -> str:
    """Hermes' ``_strip_yaml_frontmatter`` (0.19.0 ``agent/prompt_builder.py``).

    Leading U+FEFF characters are dropped (0.19.0 and later; ``drop_bom`` false for the releases
    before, whose ``_strip_yaml_frontmatter`` keeps them); when the text starts with ``---``
    and a ``\\n---`` follows at index 3 or later, the body after it (leading
    newlines dropped) is returned, unless that body is empty. The result is
    always a suffix of the input.
    """
    if drop_bom:
        content = content.lstrip("\ufeff")
    if content.startswith("---"):
        end = content.find("\n---", 3)
        if end != -1:
            body = content[end + 4 :].lstrip("\n")
            return body if body else content
    return content


def context_scan_unit(text: str, kind: DocumentKind, label: str, profile: VersionProfile) -> Optional[ScanUnit]:
    """The string Hermes scans for a context file or SOUL.md, or ``None`` when it is empty after ``strip()``.

    ``text`` is the decoded file (BOM kept); newlines are translated as
    ``Path.read_text`` does before anything else (0.19.0 ``agent/prompt_builder.py``).
    """
    from hermes_audit.hermes.newlines import NewlineMap

    nm = NewlineMap(text)
    to_raw = nm.to_raw if nm.translated else None
    off = 0
    t = nm.text
    if profile.context_encoding == "utf-8-sig" and t.startswith("\ufeff"):
        t = t[1:]
        off = 1
    stripped = t.strip()
    if not stripped:
        return None
    off += len(t) - len(t.lstrip())
    t = stripped
    if kind is DocumentKind.HERMES_MD:
        body = strip_yaml_frontmatter(t, profile.strip_bom_before_scan)
        off += len(t) - len(body)
        t = body
    if profile.strip_bom_before_scan and t.startswith("\ufeff"):
        t = t[1:]
        off += 1
    return ScanUnit(t, off, label, "context", to_raw)


def _skip_reason(doc: Document, profile: VersionProfile) -> str:
    st = doc.read.status
    if st is ReadStatus.NOT_UTF8:
        detail = doc.read.detail or "not valid UTF-8"
        if not detail.startswith("not valid UTF-8"):
            detail = f"not UTF-8 ({detail})"
        if doc.kind.is_memory_store and profile.memory_read_checked:
            return (f"{detail}; {profile.label} catches the decode error and treats this store as empty "
                    "(the other store still loads)")
        if doc.kind.is_memory_store:
            return (f"{detail}; {profile.label} raises a decode error loading the memory store, "
                    "so no memory is loaded")
        return f"{detail}; {profile.label} ignores the file as if it were absent"
    if st in (ReadStatus.NOT_REGULAR, ReadStatus.SYMLINK_ESCAPE):
        return f"{doc.read.detail}; {unreadable_consequence(doc.kind, doc.read, profile, doc.path)}"
    return f"{doc.read.detail}; Hermes treats it as absent"


#: File types (``ReadResult.file_type``) whose plain ``read_text()`` may never return.
BLOCKING_FILE_TYPES = ("FIFO", "character device")


def read_blocks(kind: DocumentKind, read, profile: VersionProfile, path: str = "") -> bool:
    """True when Hermes (``profile``) reading a file of ``kind`` with this ``read`` result blocks at session start.

    A FIFO or character device is opened with a plain ``Path.read_text()`` (no
    ``is_file()`` check) by: the memory stores in both profiles
    (``tools/memory_tool.py`` ``MemoryStore._read_file``, 0.19.0 and 029cfb25);
    ``SOUL.md``, ``AGENTS.md``/``agents.md``, ``CLAUDE.md``/``claude.md``,
    ``.cursorrules`` and ``.cursor/rules/*.mdc`` in 0.19.0 only
    (``agent/prompt_builder.py``; latest opens context files non-blocking, or
    with a 5-second read deadline). ``.hermes.md`` and subdirectory hints are
    checked with ``is_file()`` first and never block.
    """
    from pathlib import PurePosixPath

    if read is None or read.status is not ReadStatus.NOT_REGULAR or read.file_type not in BLOCKING_FILE_TYPES:
        return False
    if kind.is_memory_store:
        return True
    if profile.context_nonblocking_reads:
        return False
    if kind is DocumentKind.AGENTS_MD and not profile.agents_override and \
            PurePosixPath(path.replace("\\", "/")).name == "AGENTS.override.md":
        return False  # 0.19.0 does not read that name
    return kind in (DocumentKind.SOUL_MD, DocumentKind.AGENTS_MD, DocumentKind.CLAUDE_MD,
                    DocumentKind.CURSORRULES, DocumentKind.CURSOR_RULE)


def unreadable_consequence(kind: DocumentKind, read, profile: VersionProfile, path: str = "") -> str:
    """What Hermes (``profile``) does with a file of ``kind`` that hermes-audit did not read.

    ``read`` is its :class:`~hermes_audit.documents.reader.ReadResult` with
    status ``not-regular`` (a FIFO, device, directory or socket) or
    ``symlink-escape``; ``path`` its display path (for ``AGENTS.override.md``).
    One clause, no trailing period; the ``scan`` verdicts, the ``memory`` store
    notes and the HA608 findings all use it, so they say the same thing.
    Sources: see :func:`read_blocks`; a symlink is followed by every loader
    (``Path.exists()``/``read_text()``).
    """
    from pathlib import PurePosixPath

    label = profile.label
    if read is not None and read.status is ReadStatus.SYMLINK_ESCAPE:
        if kind.is_memory_store:
            return (f"{label} follows the link and loads the target's entries (a target it cannot read counts as "
                    "empty); hermes-audit does not read outside the Hermes home: audit the target file directly")
        where = PurePosixPath(path.replace("\\", "/")).parent.as_posix()
        if where not in ("", ".") and _is_hint_name(path, profile):
            # a subdirectory hint (the HA609 wording): the context loader follows the link for a session started
            # in that directory; as a hint, latest refuses a target outside the working directory
            # (agent/subdirectory_hints.py @ 0081f93d, _resolved_hint_target), 0.19.0 reads it (is_file(), read_text())
            started = f"{label} follows the link and loads the target for a session started in {where}/"
            if not profile.hint_target_guard:
                return f"{started}, and as a subdirectory hint when the agent enters {where}/; hermes-audit does not read it"
            return (f"{started} (as a subdirectory hint of a session started higher up it is refused); "
                    "hermes-audit does not read it")
        return f"{label} follows the link and loads the target; hermes-audit does not read it"
    if read_blocks(kind, read, profile, path):
        if kind.is_memory_store:
            return (f"{label} reads its memory stores (HERMES_HOME/memories/) with a plain read_text() when a "
                    "session starts and blocks forever (the session never starts)")
        if kind is DocumentKind.SOUL_MD:
            return (f"{label} reads HERMES_HOME/SOUL.md with a plain read_text() when a session starts and blocks "
                    "forever (the session never starts)")
        where = "in the directory holding .cursor/" if kind is DocumentKind.CURSOR_RULE else "in its directory"
        hint = "" if kind is DocumentKind.CURSOR_RULE else "; as a subdirectory hint it is skipped (is_file() is False)"
        return (f"{label} blocks forever in a plain read_text() when a session started {where} reaches it "
                f"(the session never starts){hint}")
    ft = read.file_type if read is not None else ""
    if ft in BLOCKING_FILE_TYPES:
        if kind is DocumentKind.SOUL_MD:
            return f"{label} gives up reading it after 5 s (context_file_read_timeout) and uses its default identity"
        if kind is DocumentKind.HERMES_MD:
            return f"{label} checks is_file() first and treats it as absent"
        if kind is DocumentKind.AGENTS_MD and not profile.agents_override and \
                PurePosixPath(path.replace("\\", "/")).name == "AGENTS.override.md":
            return f"{label} does not read this name"
        if kind.is_context and kind is not DocumentKind.GENERIC:
            return f"{label} opens context files non-blocking and skips anything that is not a regular file: it treats it as absent"
    if kind.is_memory_store:
        return f"{label} cannot read it and treats the store as empty"
    return f"{label} cannot read it and treats it as absent"


def _is_hint_name(path: str, profile: VersionProfile) -> bool:
    """True when ``path``'s file name is one ``profile`` loads as a subdirectory hint (``_HINT_FILENAMES``)."""
    from pathlib import PurePosixPath

    from hermes_audit.hermes.hints import HINT_FILENAMES_019, HINT_FILENAMES_LATEST  # (hints imports this module)

    names = HINT_FILENAMES_LATEST if profile.hint_agents_override else HINT_FILENAMES_019
    return PurePosixPath(path.replace("\\", "/")).name in names


def _locate(scanner: ThreatScanner, unit: ScanUnit, scope: str) -> list[LocatedHit]:
    out = []
    for h in scanner.locate(unit.text, scope):
        s, e = unit.offset + h.start, unit.offset + h.end
        if unit.to_raw is not None:
            s, e = unit.to_raw(s), unit.to_raw(max(e - 1, s)) + 1
        out.append(LocatedHit(h, s, e, unit.label))
    return out


def manifest_state_from_text(text: str) -> dict:
    """What a ``distribution.yaml`` next to SOUL.md says about ownership, for :func:`soul_is_user_authored`.

    Parsed with ``yaml.safe_load``; any problem gives ``{"error": ...}`` (Hermes fails
    closed: the SOUL.md is then treated as distribution-owned). Otherwise
    ``{"distribution_owned": [...]}`` normalised as ``DistributionManifest.from_dict`` does
    (entries stripped, surrounding ``/`` removed, blanks dropped).
    """
    from hermes_audit.hermes.distribution import YamlLimitError, hermes_on_alias_bomb, load_yaml_bounded

    try:
        data = load_yaml_bounded(text)  # bounded: an alias bomb in distribution_owned cannot hang str() below
    except YamlLimitError as exc:
        _effect, data, _where = hermes_on_alias_bomb(text)  # a bomb in keys Hermes ignores does not matter
        if data is None:
            return {"error": f"not evaluated: {exc}"}
    except Exception as exc:  # any YAML problem fails closed, as Hermes does
        return {"error": f"invalid YAML: {type(exc).__name__}"}
    if not isinstance(data, dict):
        return {"error": "not a mapping"}
    owned = data.get("distribution_owned") or []
    if not isinstance(owned, list):
        return {"error": "distribution_owned must be a list"}
    return {"distribution_owned": [str(p).strip().strip("/") for p in owned if str(p).strip()]}


def soul_is_user_authored(manifest_state: Optional[dict]) -> bool:
    """Latest's ``user_authored`` test for SOUL.md.

    ``manifest_state`` is ``None`` when no ``distribution.yaml`` sits next to
    SOUL.md, ``{"error": ...}`` when it cannot be read (fail closed: not user
    authored), else ``{"distribution_owned": [...]}``.
    """
    if manifest_state is None:
        return True
    if "error" in manifest_state:
        return False
    owned = manifest_state.get("distribution_owned") or []
    return bool(owned) and "SOUL.md" not in owned


def verdict_for(
    doc: Document,
    scanner: ThreatScanner,
    profile: VersionProfile,
    soul_manifest: Optional[dict] = None,
) -> HermesVerdict:
    """Hermes' verdict for ``doc`` read on its own as its kind.

    ``soul_manifest`` describes a ``distribution.yaml`` next to a SOUL.md (see
    :func:`soul_is_user_authored`); it only matters for the ``latest`` profile.
    """
    if not doc.readable or doc.text is None:
        return HermesVerdict(SKIPPED, message=_skip_reason(doc, profile))
    text = doc.text
    if doc.kind is DocumentKind.DISTRIBUTION:
        partial = doc.read.status is ReadStatus.OVERSIZED and len(text) < doc.read.total_chars
        return manifest_verdict(text, doc.read.detail if partial else None)
    if doc.kind is DocumentKind.SKILL:
        return HermesVerdict(
            LOADED,
            note="Hermes does not scan SKILL.md when loading skills; its skills guard runs only on hub installs",
        )
    whole = doc.read.whole_text()
    if whole is not None:
        text = whole
    elif not text.strip() or len(text.lstrip()) < SCAN_WINDOW_CHARS and not doc.kind.is_memory_store:
        # Hermes strips the whole file before its scan (0.19.0 agent/prompt_builder.py): with this much
        # leading whitespace its scan window starts in, or reaches, characters that were not read
        return HermesVerdict(SKIPPED, message=(
            f"not predictable: the first {len(text):,} characters are mostly whitespace and "
            f"{doc.read.total_chars - len(text) - len(doc.read.tail or ''):,} characters after them were not read, "
            "so the text Hermes scans after strip() is not known (raise --max-file-size to read it all)"))
    if doc.kind.is_memory_store:
        return _memory_verdict(doc, text, scanner, profile)
    if doc.kind is DocumentKind.AGENTS_MD and not profile.agents_override and \
            doc.path.replace("\\", "/").rsplit("/", 1)[-1] == "AGENTS.override.md":
        # 0.19.0 agent/prompt_builder.py reads only AGENTS.md and agents.md
        return HermesVerdict(SKIPPED, message=f"{profile.label} does not read AGENTS.override.md "
                                              "(a newer Hermes prefers it to AGENTS.md)")
    unit = context_scan_unit(text, doc.kind, doc.label, profile)
    if unit is None:
        return HermesVerdict(SKIPPED, message="empty after strip(); Hermes treats it as absent")
    if doc.kind is DocumentKind.SOUL_MD and not unit.text:
        # only a byte-order mark (0.19.0): load_soul_md returns "" and the caller
        # (agent/system_prompt.py) falls back to the default identity
        return HermesVerdict(SKIPPED, message="only a byte-order mark: Hermes' load_soul_md returns an empty "
                                              "string and the default identity is used")
    hits = _locate(scanner, unit, "context")
    if not hits:
        return HermesVerdict(LOADED)
    ids = [h.hit.pattern_id for h in hits]
    if doc.kind is DocumentKind.SOUL_MD and profile.soul_warn_mode and soul_is_user_authored(soul_manifest):
        return HermesVerdict(
            WARNED, ids,
            message=(f"Context file {doc.label} matched injection pattern(s) {ids}; loaded anyway because it is the "
                     "user's own file in HERMES_HOME — review it if you did not write that text"),
            hits=hits,
        )
    return HermesVerdict(BLOCKED, ids, message=blocked_marker(doc.label, ids), hits=hits)


#: Characters Hermes' scanner reads from the stripped text (``tools/threat_patterns.py``, 0.18.0+).
SCAN_WINDOW_CHARS = 65_536


#: The note of every ``distribution.yaml`` verdict.
MANIFEST_NOTE = "profile distribution manifest: read at install time, never put in the prompt"


def manifest_verdict(text: str, partial: Optional[str] = None) -> HermesVerdict:
    """The verdict on a ``distribution.yaml`` whose text is ``text``; ``partial`` is set (the reader's
    detail) when only part of the file was read (over ``--max-file-size``).

    ``loaded`` when ``hermes profile install`` accepts the manifest (also when an alias bomb sits only
    in keys Hermes ignores: the message says so). ``skipped`` when it does not: Hermes refuses it
    (YAML error, schema; the message is Hermes' ``Failed to parse ...`` or schema wording,
    ``hermes_cli/profile_distribution.py`` of 0.19.0), or hermes-audit did not evaluate it (a YAML
    alias bomb Hermes would expand, a self-reference, nesting too deep, a file read only in part; the
    message says what Hermes would do when that is known). A refusal and a bomb also get an HA753
    finding (high for the bomb), so the verdict, the finding and ``hermes-audit profile`` agree; none
    makes the scan incomplete.
    """
    from hermes_audit.hermes.distribution import MANIFEST_FILENAME, ManifestRead, parse_manifest_text

    if partial:
        read = ManifestRead(error=f"hermes-audit did not evaluate {MANIFEST_FILENAME}: only part of it was read "
                                  f"({partial})", error_kind="limit")
    else:
        read = parse_manifest_text(text, MANIFEST_FILENAME)
    if read.error_kind == "limit":
        effect = f"; {read.hermes_effect}" if read.hermes_effect else ""
        return HermesVerdict(SKIPPED, message=f"{read.error}{effect}", note=MANIFEST_NOTE)
    if read.error:
        return HermesVerdict(SKIPPED, message=f"Hermes refuses to install the distribution: {read.error}",
                             note=MANIFEST_NOTE)
    if read.bomb:
        return HermesVerdict(LOADED, message=f"{read.bomb}; {read.hermes_effect}", note=MANIFEST_NOTE)
    return HermesVerdict(LOADED, note=MANIFEST_NOTE)


def _memory_verdict(doc: Document, text: str, scanner: ThreatScanner, profile: VersionProfile) -> HermesVerdict:
    """Per-entry verdicts from :func:`hermes_audit.hermes.memory.scan_entries` (the one implementation)."""
    from hermes_audit.hermes.memory import scan_entries  # issue 8: only when a memory store is scanned

    filename = "USER.md" if doc.kind is DocumentKind.USER_PROFILE else "MEMORY.md"
    entries, hits = scan_entries(text, filename, scanner, profile)
    all_ids: list[str] = []
    for e in entries:
        for pid in e.pattern_ids:
            if pid not in all_ids:
                all_ids.append(pid)
    blocked = [e for e in entries if e.status == BLOCKED]
    if not entries:
        return HermesVerdict(SKIPPED, message="no entries; Hermes adds no block for this store", entries=entries)
    if not blocked:
        return HermesVerdict(LOADED, entries=entries)
    msg = f"{len(blocked)} of {len(entries)} entries blocked: " + " ".join(e.rendered for e in blocked)
    return HermesVerdict(BLOCKED, all_ids, message=msg, hits=hits, entries=entries)


class MemoScanner:
    """A :class:`ThreatScanner` that remembers what it found, per scope and scanned text (issue 8).

    The per-document verdicts and the loading simulation
    (:mod:`hermes_audit.hermes.context`, :mod:`hermes_audit.hermes.hints`) scan
    the same texts: Hermes 0.19.0 scans a context file's stripped text
    (``agent/prompt_builder.py`` ``_scan_context_content``) and a subdirectory hint's
    stripped text (``agent/subdirectory_hints.py``) with the same
    ``scan_for_threats(content, "context")``. The key is the exact string the
    scanner looks at (the first ``max_scan_chars`` characters of the content, as
    :meth:`ThreatScanner.scan` and :meth:`ThreatScanner.locate` cut it) and the
    scope, so a text scanned differently (other cut, other stripping) simply misses.
    :meth:`scan` answers from a remembered :meth:`locate` (same ids, same order).
    Everything else is the wrapped scanner's.
    """

    def __init__(self, scanner: ThreatScanner) -> None:
        self.scanner = scanner
        self.max_scan_chars = scanner.max_scan_chars
        self._memo: dict[tuple[str, str], tuple[ParityHit, ...]] = {}
        self.hits = 0  # answers given from the memo (for tests)

    def __getattr__(self, name: str):
        return getattr(self.scanner, name)

    def _key(self, content: str, scope: str) -> tuple[str, str]:
        return scope, content[: self.max_scan_chars]

    def seed(self, content: str, scope: str, hits: list[ParityHit]) -> None:
        """Remember ``hits``, which must be ``locate(content, scope)`` of the wrapped scanner."""
        if content:
            self._memo[self._key(content, scope)] = tuple(hits)

    def locate(self, content: Optional[str], scope: str = "context") -> list[ParityHit]:
        if not content:
            return self.scanner.locate(content, scope)
        key = self._key(content, scope)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = tuple(self.scanner.locate(content, scope))
        else:
            self.hits += 1
        return list(got)

    def scan(self, content: Optional[str], scope: str = "context") -> list[str]:
        if content:
            got = self._memo.get(self._key(content, scope))
            if got is not None:
                self.hits += 1
                return [h.pattern_id for h in got]
        return self.scanner.scan(content, scope)

    def seed_verdict(self, doc: Document, verdict: HermesVerdict, profile: VersionProfile) -> None:
        """Remember the scan behind ``verdict_for(doc, ...)`` (a verdict computed elsewhere, e.g. in a worker).

        Only context files and SOUL.md whose verdict came from one whole-text
        ``locate`` (loaded, blocked or warned) are remembered.
        """
        if verdict.status == SKIPPED or doc.text is None or not doc.readable or verdict.entries:
            return
        if doc.kind.is_memory_store or doc.kind in (DocumentKind.DISTRIBUTION, DocumentKind.SKILL):
            return
        unit = context_scan_unit(doc.text, doc.kind, doc.label, profile)
        if unit is None or not unit.text:
            return
        self.seed(unit.text, "context", [lh.hit for lh in verdict.hits])
