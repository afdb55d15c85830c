"""The vocabulary of what Hermes does with one text, shared by the model's modules: the statuses
(loaded, blocked, warned, skipped), the text Hermes scans (:class:`ScanUnit`), the hits it finds there,
the per-entry and per-file verdicts, the ``[BLOCKED: ...]`` marker, and the facts about one file that
the loading, hint, memory and prompt models all ask (does reading it block, what Hermes does with a file
it cannot read, does a manifest own SOUL.md).

Split from :mod:`hermes_audit.hermes.verdict` (issue 21) so that the model's modules import it without
importing the per-file verdict, which itself uses the memory-store model. The Hermes sources are named
at each definition and in :mod:`hermes_audit.hermes.verdict`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Callable, Optional

from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import ReadStatus
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ParityHit
from hermes_audit.hermes.newlines import NewlineMap

LOADED = "loaded"
BLOCKED = "blocked"
WARNED = "warned"
SKIPPED = "skipped"

#: Hint file names in priority order, per version (``_HINT_FILENAMES``).
HINT_FILENAMES_019 = ("AGENTS.md", "agents.md", "CLAUDE.md", "claude.md", ".cursorrules")
HINT_FILENAMES_LATEST = ("AGENTS.override.md", *HINT_FILENAMES_019)


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
    names = HINT_FILENAMES_LATEST if profile.hint_agents_override else HINT_FILENAMES_019
    return PurePosixPath(path.replace("\\", "/")).name in names


def manifest_state_from_text(text: str) -> dict:
    """What a ``distribution.yaml`` next to SOUL.md says about ownership, for :func:`soul_is_user_authored`.

    Parsed with ``yaml.safe_load``; any problem gives ``{"error": ...}`` (Hermes fails
    closed: the SOUL.md is then treated as distribution-owned). Otherwise
    ``{"distribution_owned": [...]}`` normalised as ``DistributionManifest.from_dict`` does
    (entries stripped, surrounding ``/`` removed, blanks dropped).
    """
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
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
