"""What a Hermes session loads at start: project context discovery, the AGENTS.md chain, SOUL.md.

This module simulates ``build_context_files_prompt`` and ``load_soul_md`` of
``agent/prompt_builder.py`` for a version profile (hermes-agent 0.19.0 for
``0.19``; the reference's V-latest, ``f44718bf``, for ``latest``; see
``../shared/reference/hermes-behaviour.md`` sections 2 and 3):

* only one project-context type loads, the first that yields a non-empty
  section, in the order ``.hermes.md``/``HERMES.md`` (nearest, walking up to the
  git root, and only in the session directory when there is no git root; up to
  the filesystem root with ``profile.hermes_md_parent_walk``, 0.13.0-0.17.0),
  ``AGENTS.md``, ``CLAUDE.md``/``claude.md``, ``.cursorrules`` plus
  ``.cursor/rules/*.mdc``; a *blocked* file is non-empty and still wins;
* ``AGENTS.md`` is ``AGENTS.md`` then ``agents.md`` in the session directory in
  0.19; in ``latest`` it is the git-root-to-cwd chain, per directory the first
  non-empty of ``AGENTS.override.md``, ``AGENTS.md``, ``agents.md``, labelled
  relative to cwd (``../../AGENTS.md``), equal contents de-duplicated, and the
  merged chain capped a second time as ``AGENTS.md (directory chain)``;
* each file is read as text (universal newlines; ``utf-8`` in 0.19, ``utf-8-sig``
  in latest), ``strip()``-ed, treated as absent when empty; ``.hermes.md`` loses
  its YAML front matter; one leading U+FEFF is dropped before the threat scan;
  a hit replaces the content by ``[BLOCKED: ...]``; the section
  ``"## " + label + "\\n\\n" + content`` is then cut to the cap;
* the block is ``"# Project Context\\n\\nThe following project context files have
  been loaded and should be followed:\\n\\n" + "\\n".join(sections)``.

Quirks of 0.19 reproduced on purpose: a non-UTF-8 or unreadable ``AGENTS.md``
makes Hermes try ``agents.md``; a FIFO (or character device) named like a
context file that Hermes reaches blocks the session start forever (0.19 opens it
with a plain ``read_text``); a UTF-8 BOM followed only by whitespace loads as an
empty section that still shadows lower types.

Files are read through :mod:`hermes_audit.documents.reader`: a FIFO is never
opened, memory stays bounded, and a symlink that leaves the tree (the git root,
else the session directory) is reported, not followed. When the outcome depends
on such a file the report says so and the rendered block is unavailable.

Sizes are Python code points.
"""

from __future__ import annotations

import bisect
import errno
import fnmatch
import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import (
    DEFAULT_MAX_BYTES,
    FILE_TYPE_WORDS,
    ReadResult,
    pack_read,
    ReadStatus,
    DANGLING_OUT_DETAIL,
    decode_bytes,
    dangling_target,
    file_type,
    read_file,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ParityHit, ThreatScanner
from hermes_audit.hermes.truncation import (
    CapResolution,
    LongText,
    Text,
    Truncation,
    UnknownText,
    concat,
    drop_prefix,
    known_text,
    lstrip_chars,
    markdown_headings,
    resolve_cap,
    slice_text,
    startswith,
    strip_text,
    truncate_content,
)
from hermes_audit.hermes.newlines import NewlineMap
from hermes_audit.hermes.outcomes import blocked_marker, manifest_state_from_text
from hermes_audit.findings import Severity
from hermes_audit.hermes.outcomes import soul_is_user_authored, unreadable_consequence
from hermes_audit.hermes.truncation import (
    CONTEXT_TRUNCATE_HEAD_RATIO, CONTEXT_TRUNCATE_TAIL_RATIO, MISSING as _MISSING, marker_heading_list, py_tail,
    truncation_marker, truncation_warning,
)

#: First line of the ``# Project Context`` block (``build_context_files_prompt``).
PROJECT_CONTEXT_HEADER = (
    "# Project Context\n\nThe following project context files have been loaded and should be followed:\n\n"
)
#: The warn-name of the merged AGENTS.md chain (latest).
CHAIN_WARN_NAME = "AGENTS.md (directory chain)"
#: Highest cap Hermes derives from a model window (``_CONTEXT_FILE_DYNAMIC_CEILING``).
CEILING_CAP = 500_000

TYPE_HERMES = "hermes_md"
TYPE_AGENTS = "agents_md"
TYPE_CLAUDE = "claude_md"
TYPE_CURSOR = "cursorrules"
TYPE_SOUL = "soul"
PROJECT_TYPES = (TYPE_HERMES, TYPE_AGENTS, TYPE_CLAUDE, TYPE_CURSOR)
TYPE_TITLES = {
    TYPE_HERMES: ".hermes.md / HERMES.md",
    TYPE_AGENTS: "AGENTS.md",
    TYPE_CLAUDE: "CLAUDE.md",
    TYPE_CURSOR: ".cursorrules + .cursor/rules/*.mdc",
    TYPE_SOUL: "SOUL.md",
}

# File statuses
LOADED = "loaded"
TRUNCATED = "truncated"
BLOCKED = "blocked"
WARNED = "warned"
EMPTY = "empty"
SKIPPED = "skipped"
SHADOWED = "shadowed"
DUPLICATE = "duplicate"
IGNORED = "ignored"
HANG = "hang"
UNPREDICTABLE = "unpredictable"
NOT_REACHED = "not-reached"
MISSING = "missing"
SEEDED = "seeded"

_IGNORED_ERRNOS = {errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP}


# ---------------------------------------------------------------------------
# File systems: the real one (through reader.py) and an in-memory one
# ---------------------------------------------------------------------------


class RealFS:
    """The real file system. Reads go through :func:`hermes_audit.documents.reader.read_file`."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, packed: bool = False) -> None:
        """``packed`` (issue 21: memory): the reads it remembers (one per path and root, so that every
        reader sees the same text) keep their text compressed
        (:class:`~hermes_audit.documents.reader.PackedReadResult`), for a walk of a whole tree."""
        self.max_bytes = max_bytes
        self.packed = packed
        self._reads: dict[tuple[str, Optional[str]], ReadResult] = {}

    def remember(self, path: str, root: Optional[str], read: ReadResult) -> None:
        """Take ``read`` as what :meth:`read` of ``(path, root)`` gives: it must be ``read_file(Path(path),
        Path(root) if root else None, self.max_bytes)``, read earlier (issue 21: the scan's own reads, so a
        tree is neither read twice nor held twice)."""
        self._reads.setdefault((path, root), pack_read(read) if self.packed else read)

    def stat_type(self, path: str) -> Optional[str]:
        """Type after following symlinks, ``None`` when absent (missing, dangling, loop: what
        ``Path.exists()`` calls absent). Raises ``OSError`` for other errors, as ``Path.exists()`` does."""
        try:
            return file_type(os.stat(path).st_mode)
        except OSError as exc:
            if exc.errno in _IGNORED_ERRNOS:
                return None
            raise
        except ValueError:  # embedded NUL
            return None

    def is_symlink(self, path: str) -> bool:
        try:
            return stat.S_ISLNK(os.lstat(path).st_mode)
        except (OSError, ValueError):
            return False

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    def dangling_target(self, path: str) -> Optional[str]:
        """Where the symbolic link ``path`` leads when its target does not exist (not for a loop), else ``None``
        (:func:`hermes_audit.documents.reader.dangling_target`)."""
        return dangling_target(path)

    def read(self, path: str, root: Optional[str]) -> ReadResult:
        key = (path, root)
        r = self._reads.get(key)
        if r is None:
            r = read_file(Path(path), Path(root) if root else None, self.max_bytes)
            r = self._reads[key] = pack_read(r) if self.packed else r
        return r

    def listdir(self, path: str) -> list[str]:
        try:
            return os.listdir(path)
        except (OSError, ValueError):
            return []

    def scandir_types(self, path: str) -> list[tuple[str, bool]]:
        """Entries of a directory as ``(name, is_dir)`` without following symlinks."""
        out: list[tuple[str, bool]] = []
        try:
            with os.scandir(path) as it:
                for e in it:
                    try:
                        out.append((e.name, e.is_dir(follow_symlinks=False)))
                    except OSError:
                        continue
        except (OSError, ValueError):
            return []
        return out


class MemoryFS:
    """An in-memory POSIX tree (files, directories, FIFOs, symlinks) for scenarios and tests."""

    def __init__(self) -> None:
        self.nodes: dict[str, tuple[str, Any]] = {"/": ("dir", None)}

    # construction
    def _ensure_parent(self, path: str) -> None:
        parent = posixpath.dirname(path)
        if parent and parent not in self.nodes:
            self._ensure_parent(parent)
            self.nodes[parent] = ("dir", None)

    def add_file(self, path: str, data: bytes) -> None:
        self._ensure_parent(path)
        self.nodes[path] = ("file", data)

    def add_dir(self, path: str) -> None:
        self._ensure_parent(path)
        self.nodes.setdefault(path, ("dir", None))

    def add_fifo(self, path: str) -> None:
        self._ensure_parent(path)
        self.nodes[path] = ("fifo", None)

    def add_link(self, path: str, target: str) -> None:
        self._ensure_parent(path)
        self.nodes[path] = ("link", target)

    # resolution
    def _resolve(self, path: str, strict: bool) -> Optional[str]:
        """Resolve symlinks; ``None`` on a loop (or a missing component when ``strict``)."""
        parts = [p for p in path.split("/") if p and p != "."]
        cur = "/"
        hops = 0
        todo = list(parts)
        while todo:
            part = todo.pop(0)
            if part == "..":
                cur = posixpath.dirname(cur) or "/"
                continue
            nxt = posixpath.join(cur, part)
            node = self.nodes.get(nxt)
            if node is None:
                if strict:
                    return None
                cur = posixpath.join(nxt, *todo) if todo else nxt
                return posixpath.normpath(cur)
            if node[0] == "link":
                hops += 1
                if hops > 40:
                    return None
                target = node[1]
                todo = [p for p in target.split("/") if p and p != "."] + todo
                if target.startswith("/"):
                    cur = "/"
                continue
            cur = nxt
        return cur

    def stat_type(self, path: str) -> Optional[str]:
        res = self._resolve(path, strict=True)
        if res is None:
            return None
        kind = self.nodes[res][0]
        return kind

    def is_symlink(self, path: str) -> bool:
        node = self.nodes.get(posixpath.normpath(path))
        return node is not None and node[0] == "link"

    def realpath(self, path: str) -> str:
        res = self._resolve(path, strict=False)
        return res if res is not None else posixpath.normpath(path)

    def dangling_target(self, path: str) -> Optional[str]:
        """As :meth:`RealFS.dangling_target`."""
        if not self.is_symlink(path) or self._resolve(path, strict=True) is not None:
            return None
        return self._resolve(path, strict=False)  # None for a loop

    def read(self, path: str, root: Optional[str]) -> ReadResult:
        p = posixpath.normpath(path)
        node = self.nodes.get(p)
        if node is None and self._resolve(p, strict=True) is None:
            return ReadResult(ReadStatus.MISSING, detail="no such file")
        if node is not None and node[0] == "link":
            target = self._resolve(p, strict=True)
            if target is None:
                loop = self._resolve(p, strict=False) is None
                if not loop and root is not None and _leads_out(self._resolve(p, strict=False), root):
                    return ReadResult(ReadStatus.SYMLINK_ESCAPE, detail=DANGLING_OUT_DETAIL, file_type="symlink")
                return ReadResult(ReadStatus.SYMLINK_LOOP if loop else ReadStatus.MISSING,
                                  detail="symlink loop; not followed" if loop else "dangling symlink; not followed",
                                  file_type="symlink")
            if root is not None and not (target == root or target.startswith(root.rstrip("/") + "/")):
                return ReadResult(ReadStatus.SYMLINK_ESCAPE, detail="symlink points outside the scanned tree; not followed",
                                  file_type="symlink")
            node = self.nodes[target]
        elif node is None:
            node = self.nodes[self._resolve(p, strict=True)]  # type: ignore[index]
        kind, data = node
        if kind != "file":
            label = FILE_TYPE_WORDS.get(kind, kind)
            return ReadResult(ReadStatus.NOT_REGULAR, detail=f"is a {label}; never opened", file_type=label)
        return decode_bytes(data)

    def listdir(self, path: str) -> list[str]:
        base = self.realpath(path).rstrip("/") + "/"
        if base == "//":
            base = "/"
        return sorted({k[len(base):].split("/")[0] for k in self.nodes if k.startswith(base) and k != base})

    def scandir_types(self, path: str) -> list[tuple[str, bool]]:
        base = self.realpath(path).rstrip("/")
        out = []
        for name in self.listdir(path):
            node = self.nodes.get(f"{base}/{name}")
            out.append((name, node is not None and node[0] == "dir"))
        return out


# ---------------------------------------------------------------------------
# pathlib (Python 3.11) semantics Hermes relies on
# ---------------------------------------------------------------------------


def _leads_out(target: Optional[str], root: str) -> bool:
    """True when the resolved ``target`` lies outside ``root`` or in a ``.git`` directory below it."""
    if target is None:
        return False
    if not is_relative_to(target, root):
        return True
    return ".git" in posixpath.relpath(target, root).split("/")


def dangling_out(fs, path: str, root: Optional[str]) -> Optional[str]:
    """The target of ``path`` when it is a symbolic link that names no file here and leads out of ``root`` (or
    into its ``.git`` metadata), else ``None`` (round 8 of issue 18): where its target exists (a user's
    machine: ``~/.ssh/id_rsa``, ``/var/run/secrets/...``) Hermes follows it like any link (``Path.is_file()``
    and ``read_text()`` follow links, hermes-agent 0.19.0 ``agent/prompt_builder.py``), so it is modelled as
    a link out to a regular file, never read."""
    if root is None or not fs.is_symlink(path):
        return None
    target = fs.dangling_target(path)
    return target if _leads_out(target, root) else None


def present_type(fs, path: str, root: Optional[str]) -> Optional[str]:
    """:func:`safe_type`, except that a dangling link out of ``root`` (:func:`dangling_out`) is a ``"file"``:
    what ``Path.is_file()`` says on a machine where the target exists."""
    t = safe_type(fs, path)
    if t is None and dangling_out(fs, path, root) is not None:
        return "file"
    return t


def path_exists(fs, path: str) -> bool:
    """``Path.exists()``: raises ``OSError`` for errors other than missing/loop/not-a-directory."""
    return fs.stat_type(path) is not None


def path_is_file(fs, path: str) -> bool:
    """``Path.is_file()`` (follows symlinks; a FIFO is not a file)."""
    return fs.stat_type(path) == "file"


def path_is_dir(fs, path: str) -> bool:
    return fs.stat_type(path) == "dir"


def safe_type(fs, path: str) -> Optional[str]:
    """Like ``stat_type`` but an error other than "absent" is reported as ``"error"``."""
    try:
        return fs.stat_type(path)
    except OSError:
        return "error"


def is_relative_to(path: str, base: str) -> bool:
    """``PurePosixPath.is_relative_to`` on absolute normalised paths (component-wise, case-sensitive)."""
    if base == "/":
        return path.startswith("/")
    return path == base or path.startswith(base.rstrip("/") + "/")


def path_suffix(path: str) -> str:
    """``PurePath.suffix``."""
    name = posixpath.basename(path.rstrip("/")) if path != "/" else ""
    i = name.rfind(".")
    if 0 < i < len(name) - 1:
        return name[i:]
    return ""


def parents_of(path: str) -> list[str]:
    """``[path, *Path(path).parents]`` for an absolute normalised path."""
    out = [path]
    while path != "/":
        path = posixpath.dirname(path) or "/"
        out.append(path)
    return out


def find_git_root(fs, start: str) -> Optional[str]:
    """Hermes' ``_find_git_root``: nearest ancestor-or-self holding ``.git`` (``Path.exists()``)."""
    for d in parents_of(start):
        t = safe_type(fs, posixpath.join(d, ".git"))
        if t is not None and t != "error":
            return d
    return None


# ---------------------------------------------------------------------------
# A file as Hermes reads it
# ---------------------------------------------------------------------------


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class HermesText:
    """A file's text as Hermes' text-mode read returns it, with a map back to the reader's text.

    Hermes opens files in text mode, so ``\\r\\n`` and a lone ``\\r`` become
    ``\\n`` (universal newlines); ``utf-8-sig`` (latest) also drops one leading
    BOM. ``raw_offset(i)`` is the offset in ``Document.text`` of character ``i``.
    """

    text: Text
    base: int = 0
    removed: list[int] = field(default_factory=list)

    def raw_offset(self, i: int) -> int:
        return self.base + i + bisect.bisect_right(self.removed, i)


def _universal_newlines(s: str) -> tuple[str, list[int]]:
    """Translated text and the translated offsets of ``\\n`` characters that were ``\\r\\n``."""
    nm = NewlineMap(s)
    return nm.text, list(nm.crlf_positions)


def hermes_text(read: ReadResult, encoding: str) -> Optional[HermesText]:
    """The text Hermes would get from ``read_text(encoding=...)``, or ``None`` when the reader has no text."""
    if not read.readable or read.text is None:
        return None
    base = 0
    whole = read.whole_text()
    if read.status is ReadStatus.OVERSIZED and whole is None:
        head = read.text
        tail = read.tail or ""
        gap = read.total_chars - len(head) - len(tail)
        if gap < 0:
            tail = tail[-(read.total_chars - len(head)):] if read.total_chars > len(head) else ""
            gap = 0
        if encoding == "utf-8-sig" and head.startswith("\ufeff"):
            head = head[1:]
            base = 1
        h, removed = _universal_newlines(head)
        t, _ = _universal_newlines(tail)
        exact = "\r" not in head and "\r" not in tail
        return HermesText(LongText([h, gap, t], exact=exact, plain_gaps=bool(read.middle_plain) and gap > 0),
                          base, removed)
    text = whole if whole is not None else read.text
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]
        base = 1
    t, removed = _universal_newlines(text)
    return HermesText(t, base, removed)


def strip_yaml_frontmatter_text(content: Text, drop_bom: bool = True) -> tuple[Text, int]:
    """``_strip_yaml_frontmatter`` (0.19.0 and latest) and how many leading characters it removed.
    ``drop_bom`` false: up to 0.18.2 leading U+FEFF characters are kept (``content.startswith("---")``)."""
    body, removed = lstrip_chars(content, "\ufeff") if drop_bom else (content, 0)
    if startswith(body, "---"):
        if isinstance(body, str):
            end = body.find("\n---", 3)
        else:
            head = body.parts[0] if isinstance(body.parts[0], str) else ""
            end = head.find("\n---", 3)
            if end == -1:
                raise UnknownText("front matter reaches the unread middle of the file")
        if end != -1:
            rest = drop_prefix(body, end + 4)
            rest2, n = lstrip_chars(rest, "\n")
            if len(rest2):
                return rest2, removed + end + 4 + n
            return content, 0
    return body, removed


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Piece:
    """``[start, start + length)`` of a rendered string is ``entry.content[offset:offset + length]``."""

    start: int
    length: int
    entry: "FileEntry"
    offset: int


@dataclass(eq=False)
class FileEntry:
    """One candidate file and what Hermes does with it.

    ``path`` is absolute (as Hermes builds it, from the resolved session
    directory); ``display`` is relative to the session directory; ``label`` the
    name Hermes prints (heading, ``[BLOCKED: ...]``). ``content`` is Hermes'
    stripped text (front matter removed for ``.hermes.md``) and ``content_start``
    its offset in :attr:`hermes`' text. ``status`` is one of the module's status
    constants and ``reason`` one sentence saying why. ``reached`` is True when
    Hermes actually reads the file during session start.
    """

    type: str
    name: str
    path: str
    display: str
    label: str
    kind: DocumentKind
    fs_type: Optional[str] = None
    read: Optional[ReadResult] = None
    hermes: Optional[HermesText] = None
    content: Optional[Text] = None
    content_start: int = 0
    scan_skip: int = 0
    status: str = ""
    reason: str = ""
    reached: bool = False
    pattern_ids: list[str] = field(default_factory=list)
    hits: list[ParityHit] = field(default_factory=list)
    shadowed_by: Optional[str] = None
    injected_chars: int = 0
    bom_only: bool = False
    symlink: bool = False
    realpath: str = ""
    document: Optional[Document] = None
    #: a symbolic link out of the tree whose target does not exist here (modelled as a file: Hermes loads it
    #: wherever the target exists; round 8 of issue 18)
    dangling: bool = False
    #: for the glob ``.cursor/rules/*.mdc`` through a directory link out of the tree that dangles here (round 9):
    #: the link's path relative to the session directory (``.cursor`` or ``.cursor/rules``)
    link_dir: str = ""

    @property
    def chars(self) -> int:
        return len(self.content) if self.content is not None else 0

    def raw_offset(self, content_offset: int) -> int:
        """Offset in ``Document.text`` of ``content[content_offset]``."""
        if self.hermes is None:
            return 0
        return self.hermes.raw_offset(self.content_start + content_offset)

    def to_dict(self) -> dict:
        out: dict = {
            "type": self.type, "path": self.display, "label": self.label, "status": self.status,
            "reason": self.reason, "reached": self.reached, "characters": self.chars,
            "injected_characters": self.injected_chars,
        }
        if self.pattern_ids:
            out["pattern_ids"] = list(self.pattern_ids)
        if self.shadowed_by:
            out["shadowed_by"] = self.shadowed_by
        if self.read is not None and self.read.status is not ReadStatus.OK:
            out["read"] = {"status": self.read.status.value, "detail": self.read.detail}
        if self.fs_type and self.fs_type != "file":
            out["file_type"] = self.fs_type
        return out


@dataclass(eq=False)
class Section:
    """One ``## label`` section (or the cursor concatenation, or the merged AGENTS.md chain).

    ``text`` is the string before truncation, ``truncation`` Hermes' cut of it,
    ``pieces`` which runs of ``text`` come from which file, ``members`` the files.
    """

    label: str
    warn_name: str
    read_path: str
    text: Text
    truncation: Truncation
    members: list[FileEntry]
    pieces: list[Piece]
    blocked: bool = False
    merged: bool = False

    @property
    def rendered(self) -> Text:
        return self.truncation.text

    def kept_pieces(self) -> list[Piece]:
        """Pieces of the rendered (truncated) string."""
        return pieces_after(self.pieces, self.truncation)

    def to_dict(self) -> dict:
        out = {
            "label": self.label, "warn_name": self.warn_name, "read_path": self.read_path,
            "files": [m.display for m in self.members], "blocked": self.blocked,
            "status": BLOCKED if self.blocked else (TRUNCATED if self.truncation.truncated else LOADED),
        }
        out.update(self.truncation.to_dict())
        if self.truncation.truncated:
            h, t = self.truncation.head_chars, self.truncation.tail_chars
            try:
                out["kept_head_text"] = slice_text(self.text, 0, h)
                out["kept_tail_text"] = slice_text(self.text, len(self.text) - t, len(self.text)) if t else ""
            except UnknownText:
                pass
        return out


def pieces_after(pieces: list[Piece], tr: Truncation) -> list[Piece]:
    """Map pieces of a string through its truncation (head kept in place, tail moved after the marker)."""
    if not tr.truncated:
        return list(pieces)
    out: list[Piece] = []
    h = tr.head_chars
    total = tr.original_chars
    tail_start = total - tr.tail_chars if tr.tail_chars else 0
    shift = h + len(tr.marker)
    for p in pieces:
        s, e = p.start, p.start + p.length
        lo, hi = s, min(e, h)
        if lo < hi:
            out.append(Piece(lo, hi - lo, p.entry, p.offset))
        lo, hi = max(s, tail_start), e
        if lo < hi:
            out.append(Piece(shift + lo - tail_start, hi - lo, p.entry, p.offset + (lo - s)))
    return out


@dataclass(eq=False)
class SoulReport:
    """SOUL.md from HERMES_HOME: the identity slot (``load_soul_md``)."""

    path: str
    status: str
    reason: str
    entry: Optional[FileEntry] = None
    truncation: Optional[Truncation] = None
    user_authored: Optional[bool] = None

    @property
    def identity(self) -> Optional[Text]:
        return self.truncation.text if self.truncation is not None and self.status in (LOADED, TRUNCATED, BLOCKED, WARNED) else None

    def to_dict(self) -> dict:
        out: dict = {"path": self.path, "status": self.status, "reason": self.reason}
        if self.entry is not None:
            out["characters"] = self.entry.chars
            if self.entry.pattern_ids:
                out["pattern_ids"] = list(self.entry.pattern_ids)
        if self.truncation is not None:
            out.update(self.truncation.to_dict())
        if self.user_authored is not None:
            out["user_authored"] = self.user_authored
        return out


@dataclass(eq=False)
class ContextReport:
    """Everything a session started in ``cwd`` loads, per :func:`simulate_context`."""

    cwd: str
    profile: VersionProfile
    cap: CapResolution
    git_root: Optional[str]
    root: str
    entries: list[FileEntry] = field(default_factory=list)
    winner: Optional[str] = None
    winner_reason: str = ""
    sections: list[Section] = field(default_factory=list)
    merged: Optional[Section] = None
    soul: Optional[SoulReport] = None
    hang: Optional[FileEntry] = None
    unpredictable: Optional[FileEntry] = None
    unknown: Optional[str] = None
    notes: list[str] = field(default_factory=list)

    # -- results -----------------------------------------------------------
    @property
    def project_section(self) -> Optional[Section]:
        """The section that carries the project context (the merged chain when there is one)."""
        if self.merged is not None:
            return self.merged
        return self.sections[0] if self.sections else None

    @property
    def project_text(self) -> Text:
        s = self.project_section
        return s.rendered if s is not None else ""

    def project_pieces(self) -> list[Piece]:
        if self.merged is not None:
            return self.merged.kept_pieces()
        return self.sections[0].kept_pieces() if self.sections else []

    @property
    def render_problem(self) -> Optional[str]:
        """Why the block cannot be rendered exactly, or ``None``."""
        if self.hang is not None:
            return (f"{self.profile.label} would block forever reading {self.hang.display} "
                    f"({self.hang.fs_type}); the session never starts, so no prompt is built")
        if self.unpredictable is not None:
            return (f"{self.unpredictable.display} is a symlink to a file outside {self.root}; Hermes follows it, "
                    "hermes-audit does not, so what loads from here on is not known")
        if self.unknown is not None:
            return f"part of an oversized file that hermes-audit did not read would be injected ({self.unknown})"
        return None

    def render(self, include_soul: bool = False) -> str:
        """The exact ``# Project Context`` block (``""`` when nothing loads).

        ``include_soul`` reproduces ``build_context_files_prompt(skip_soul=False)``;
        a real session passes ``skip_soul=True`` whenever SOUL.md gave the
        identity. Raises :class:`UnknownText` when the block cannot be known
        (see :attr:`render_problem`).
        """
        problem = self.render_problem
        if problem:
            raise UnknownText(problem)
        parts: list[str] = []
        pt = self.project_text
        if len(pt):
            parts.append(known_text(pt))
        if include_soul and self.soul is not None:
            if self.soul.status == SEEDED:
                raise UnknownText("SOUL.md is missing: Hermes would seed its own default SOUL.md and include that")
            if self.soul.status == HANG:
                raise UnknownText(self.soul.reason)
            ident = self.soul.identity
            if ident is not None and len(ident):
                parts.append(known_text(ident))
        if not parts:
            return ""
        return PROJECT_CONTEXT_HEADER + "\n".join(parts)

    def to_dict(self) -> dict:
        out: dict = {
            "hermes_version": self.profile.name,
            "hermes": self.profile.label,
            "cwd": self.cwd,
            "git_root": self.git_root,
            "cap": self.cap.to_dict(),
            "winner": self.winner,
            "winner_reason": self.winner_reason,
            "files": [e.to_dict() for e in self.entries],
            "sections": [s.to_dict() for s in self.sections],
        }
        if self.merged is not None:
            out["chain"] = self.merged.to_dict()
        out["soul"] = self.soul.to_dict() if self.soul is not None else None
        out["render_problem"] = self.render_problem
        out["notes"] = list(self.notes)
        return out


# ---------------------------------------------------------------------------
# The simulation
# ---------------------------------------------------------------------------

_KIND_OF_TYPE = {
    TYPE_HERMES: DocumentKind.HERMES_MD,
    TYPE_AGENTS: DocumentKind.AGENTS_MD,
    TYPE_CLAUDE: DocumentKind.CLAUDE_MD,
    TYPE_CURSOR: DocumentKind.CURSORRULES,
    TYPE_SOUL: DocumentKind.SOUL_MD,
}


class _Sim:
    def __init__(self, fs, profile: VersionProfile, scanner: ThreatScanner, cap: int, cwd: str,
                 git_root: Optional[str], root: str, report: ContextReport) -> None:
        self.fs = fs
        self.p = profile
        self.scanner = scanner
        self.cap = cap
        self.cwd = cwd
        self.git_root = git_root
        self.root = root
        self.r = report
        self.halted = False

    # -- reading ------------------------------------------------------------
    def entry(self, type_: str, directory: str, name: str, label: Optional[str] = None) -> FileEntry:
        path = posixpath.join(directory, name)
        display = os.path.relpath(path, self.cwd) if path != self.cwd else "."
        kind = DocumentKind.CURSOR_RULE if type_ == TYPE_CURSOR and name != ".cursorrules" else _KIND_OF_TYPE[type_]
        e = FileEntry(type_, posixpath.basename(name), path, display, label or posixpath.basename(name), kind)
        e.fs_type = safe_type(self.fs, path)
        e.symlink = self.fs.is_symlink(path)
        if e.fs_type is None and e.symlink and dangling_out(self.fs, path, self.root) is not None:
            e.fs_type, e.dangling = "file", True  # a file where the target exists (round 8, issue 18)
        self.r.entries.append(e)
        return e

    def load(self, e: FileEntry, root: Any = "tree") -> None:
        """Read ``e`` and set content, or a skip status, without deciding anything else.

        ``root`` bounds symlinks (default: the tree); ``None`` follows them anywhere."""
        root = self.root if root == "tree" else root
        if e.fs_type is None:
            e.status, e.reason = MISSING, "absent"
            return
        if e.fs_type == "error":
            e.status, e.reason = SKIPPED, "cannot stat the file; Hermes treats it as absent"
            return
        e.realpath = self.fs.realpath(e.path)
        escapes = root is not None and not is_relative_to(e.realpath, root)
        if escapes and e.fs_type != "file":
            # Hermes' read of a directory or special file fails (or hangs) wherever it lies: judged like one in
            # the tree, from its type alone (it is never opened)
            word = FILE_TYPE_WORDS.get(e.fs_type, e.fs_type)
            e.read = ReadResult(ReadStatus.NOT_REGULAR, detail=f"resolves outside {root} to a {word}; never opened",
                                file_type=word)
        elif escapes and e.dangling:
            e.status, e.reason = UNPREDICTABLE, (f"a symlink to {e.realpath}, outside {root}, dangling here; Hermes loads "
                                                 "the target wherever it exists, hermes-audit does not read it")
            return
        elif escapes:
            e.status, e.reason = UNPREDICTABLE, (f"resolves outside {root} (through a symlink); Hermes would follow it and "
                                                 "load the target, hermes-audit does not read it")
            return
        else:
            e.read = self.fs.read(e.path, root)
        rd = e.read
        if rd.status is ReadStatus.SYMLINK_ESCAPE and e.dangling:
            e.status, e.reason = UNPREDICTABLE, ("a symlink into the repository's .git metadata, dangling here; Hermes loads "
                                                 "the target wherever it exists, hermes-audit does not read it")
            return
        if rd.status is ReadStatus.SYMLINK_ESCAPE:
            e.status, e.reason = UNPREDICTABLE, "symlink to a file outside the tree; Hermes would follow it and load the target, hermes-audit does not read it"
            return
        if rd.status in (ReadStatus.MISSING, ReadStatus.SYMLINK_LOOP):
            e.status, e.reason = MISSING, f"{rd.detail}; Hermes treats it as absent"
            return
        if rd.status is ReadStatus.NOT_REGULAR:
            e.status, e.reason = SKIPPED, f"{rd.detail}; {unreadable_consequence(e.kind, rd, self.p, e.path)}"
            return
        if rd.status is ReadStatus.NOT_UTF8:
            e.status, e.reason = SKIPPED, f"{rd.detail}; {self.p.label} fails to decode it and treats it as absent"
            return
        if not rd.readable:
            e.status, e.reason = SKIPPED, f"{rd.detail}; Hermes treats it as absent"
            return
        e.hermes = hermes_text(rd, self.p.context_encoding)
        try:
            content, start = strip_text(e.hermes.text)  # type: ignore[union-attr]
        except UnknownText as exc:
            e.status, e.reason = UNPREDICTABLE, f"oversized file: {exc}"
            return
        if not len(content):
            e.status, e.reason = EMPTY, "empty after strip(); Hermes treats it as absent"
            e.content = ""
            return
        if e.type == TYPE_HERMES:
            try:
                body, n = strip_yaml_frontmatter_text(content, self.p.strip_bom_before_scan)
            except UnknownText as exc:
                e.status, e.reason = UNPREDICTABLE, f"oversized file: {exc}"
                return
            content, start = body, start + n
        e.content = content
        e.content_start = start
        e.status = LOADED

    def dangling_dir_out(self, path: str) -> str:
        """The display path of the symbolic link through which the directory ``path`` (below the session
        directory: ``.cursor/rules``) leads out of the tree while naming nothing here, else ``""`` (round 9 of
        issue 18). ``.cursor -> /tmp/evil-cursor`` or ``.cursor/rules -> /home/runner/x`` dangles on CI, but where
        the target exists (the user's machine) hermes-agent 0.19.0's ``_load_cursorrules`` globs
        ``.cursor/rules/*.mdc`` through it (``Path.glob`` follows directory links), so the link is reported like a
        dangling file link out (HA609). Only ``lstat``/``readlink``-level calls: the target is never opened."""
        if self.root is None or not _leads_out(self.fs.realpath(path), self.root):
            return ""
        rel = posixpath.relpath(path, self.cwd).split("/")
        for i in range(1, len(rel) + 1):
            step = posixpath.join(self.cwd, *rel[:i])
            if self.fs.is_symlink(step):
                return "/".join(rel[:i])
            if safe_type(self.fs, step) != "dir":
                return ""
        return ""

    def hangs(self, e: FileEntry) -> bool:
        """True when reading ``e`` blocks the 0.19 session start (a FIFO or character device opened with read_text)."""
        return not self.p.context_nonblocking_reads and e.fs_type in ("fifo", "chardev")

    def halt_on_hang(self, e: FileEntry) -> bool:
        """When reading ``e`` :meth:`hangs`, mark it ``HANG``, record it and halt discovery; True then."""
        if not self.hangs(e):
            return False
        e.status = HANG
        e.reason = f"is a {e.fs_type}: {self.p.label} opens it with a plain read_text() and blocks forever"
        self.r.hang = e
        self.halted = True
        return True

    # -- scanning and sections -------------------------------------------------
    def scan(self, e: FileEntry, label: str, user_authored: bool = False) -> tuple[Text, bool]:
        """``_scan_context_content``: (text that goes into the prompt, blocked?)."""
        content = e.content
        assert content is not None
        # one leading U+FEFF is dropped before the scan from 0.19.0; up to 0.18.2 it is scanned (and blocks)
        skip = 1 if self.p.strip_bom_before_scan and startswith(content, "\ufeff") else 0
        e.scan_skip = skip
        body = drop_prefix(content, skip)
        window = slice_text(body, 0, self.scanner.max_scan_chars)
        hits = self.scanner.locate(window, "context")
        e.hits = hits
        e.pattern_ids = [h.pattern_id for h in hits]
        if not len(body) and e.bom_only is False and skip:
            e.bom_only = True
        if hits and not user_authored:
            return blocked_marker(label, e.pattern_ids), True
        return body, False

    def section(self, members: list[tuple[FileEntry, str]], warn_name: str, read_path: str,
                cursor: bool = False) -> Section:
        pieces: list[Piece] = []
        chunks: list[Text] = []
        pos = 0
        blocked_all = True
        for e, label in members:
            head = f"## {label}\n\n"
            body, blocked = self.scan(e, label)
            chunks.append(head)
            pos += len(head)
            if blocked:
                e.status, e.reason = BLOCKED, f"blocked: {', '.join(e.pattern_ids)} (the section holds only the [BLOCKED: ...] marker)"
            else:
                blocked_all = False
                if len(body):
                    pieces.append(Piece(pos, len(body), e, e.scan_skip))
            chunks.append(body)
            pos += len(body)
            if cursor:
                chunks.append("\n\n")
                pos += 2
        text = concat(*chunks)
        tr = self.truncate(text, warn_name, read_path)
        label = members[0][1] if len(members) == 1 else warn_name
        sec = Section(label, warn_name, read_path, text, tr, [m[0] for m in members], pieces, blocked=blocked_all)
        return sec

    def truncate(self, text: Text, warn_name: str, read_path: str) -> Truncation:
        try:
            return truncate_content(text, warn_name, self.cap, self.p, read_path=read_path)
        except UnknownText as exc:
            self.r.unknown = self.r.unknown or f"{warn_name}: {exc}"
            return _partial_truncation(text, warn_name, self.cap, self.p, read_path)

    # -- types -------------------------------------------------------------
    def hermes_md(self, reached: bool) -> Optional[list[Section]]:
        dirs = parents_of(self.cwd) if self.git_root or self.p.hermes_md_parent_walk else [self.cwd]
        found: Optional[FileEntry] = None
        for d in dirs:
            for name in (".hermes.md", "HERMES.md"):
                t = present_type(self.fs, posixpath.join(d, name), self.root)
                if t is None:
                    continue
                e = self.entry(TYPE_HERMES, d, name)
                if t != "file":
                    e.status, e.reason = IGNORED, f"is a {t}; Hermes looks only for a regular file (is_file()) and ignores it"
                    continue
                if found is None:
                    found = e
                else:
                    e.status = SHADOWED
                    e.shadowed_by = found.display
                    e.reason = f"{found.display} is nearer to the session directory (only the nearest .hermes.md/HERMES.md is read)"
            if self.git_root and d == self.git_root:
                break
        if found is None:
            return None
        # a .hermes.md above the tree (0.13.0-0.17.0 walk every parent without a git root) is read where it is,
        # its symlinks bounded by its own directory
        above = not is_relative_to(found.path, self.root)
        self.load(found, posixpath.dirname(found.path) if above else "tree")
        found.reached = reached
        if found.status == UNPREDICTABLE:
            if reached:
                self.r.unpredictable = found
                self.halted = True
            return None
        if found.status != LOADED:
            if found.status == EMPTY:
                found.reason = "empty after strip(); Hermes treats it as absent and does not try HERMES.md in the same directory"
            return None
        if not reached:
            return []
        label = found.name  # relative_to(cwd) is the bare name in cwd; a parent's file shows its bare name too
        sec = self.section([(found, label)], ".hermes.md", found.path)
        return [sec]

    def single_type(self, type_: str, names: tuple[str, ...], warn_name: str, reached: bool) -> Optional[list[Section]]:
        chosen: Optional[FileEntry] = None
        for name in names:
            t = present_type(self.fs, posixpath.join(self.cwd, name), self.root)
            if t is None:
                continue
            e = self.entry(type_, self.cwd, name)
            if chosen is not None:
                self.load(e)
                if e.status == LOADED:
                    e.status = SHADOWED
                    e.shadowed_by = chosen.display
                    e.reason = f"{chosen.display} in the same directory is read first"
                continue
            e.reached = reached and not self.halted
            if e.reached and self.halt_on_hang(e):
                return None
            self.load(e)
            if e.status == UNPREDICTABLE:
                if e.reached:
                    self.r.unpredictable = e
                    self.halted = True
                    return None
                continue
            if e.status == LOADED:
                chosen = e
            elif e.status in (SKIPPED, EMPTY) and name == names[0] and len(names) > 1:
                e.reason += f"; {self.p.label} then tries {names[1]}"
        if chosen is None:
            return None
        if not reached:
            return []
        return [self.section([(chosen, chosen.name)], warn_name, chosen.path)]

    def agents_chain(self, reached: bool) -> Optional[list[Section]]:
        cwd = self.cwd
        root = self.git_root
        if root is None or root == cwd or not is_relative_to(cwd, root):
            dirs = [cwd]
        else:
            rel = os.path.relpath(cwd, root).split("/")
            dirs = [root] + [posixpath.join(root, *rel[: i + 1]) for i in range(len(rel))]
        chosen: list[FileEntry] = []
        names = ("AGENTS.override.md", "AGENTS.md", "agents.md") if self.p.agents_override else ("AGENTS.md", "agents.md")
        first = ", ".join(names)
        for d in dirs:
            winner: Optional[FileEntry] = None
            for name in names:
                t = present_type(self.fs, posixpath.join(d, name), self.root)
                if t is None:
                    continue
                label = name if d == cwd else os.path.relpath(posixpath.join(d, name), cwd)
                e = self.entry(TYPE_AGENTS, d, name, label)
                self.load(e)
                if winner is not None:
                    if e.status == LOADED:
                        e.status = SHADOWED
                        e.shadowed_by = winner.display
                        e.reason = f"{winner.name} in the same directory wins (first non-empty of {first})"
                    continue
                e.reached = reached
                if e.status == UNPREDICTABLE and reached:
                    self.r.unpredictable = e
                    self.halted = True
                    return None
                if e.status == LOADED:
                    winner = e
            if winner is not None:
                chosen.append(winner)
        if not chosen:
            return None
        if not reached:
            return []
        seen: dict[Any, FileEntry] = {}
        sections: list[Section] = []
        for e in chosen:
            key = _content_key(e.content)
            if key in seen:
                e.status = DUPLICATE
                e.shadowed_by = seen[key].display
                e.reason = f"same content as {seen[key].display} higher in the chain; skipped (it still uses up its directory)"
                continue
            seen[key] = e
            sections.append(self.section([(e, e.label)], e.label, e.path))
        self.r.sections = sections
        if len(sections) >= 2:
            merged_text_parts: list[Text] = []
            pieces: list[Piece] = []
            pos = 0
            for i, s in enumerate(sections):
                if i:
                    merged_text_parts.append("\n\n")
                    pos += 2
                for pc in s.kept_pieces():
                    pieces.append(Piece(pos + pc.start, pc.length, pc.entry, pc.offset))
                merged_text_parts.append(s.rendered)
                pos += len(s.rendered)
            text = concat(*merged_text_parts)
            read_path = posixpath.join(cwd, "AGENTS.md")
            tr = self.truncate(text, CHAIN_WARN_NAME, read_path)
            self.r.merged = Section(CHAIN_WARN_NAME, CHAIN_WARN_NAME, read_path, text, tr,
                                    [m for s in sections for m in s.members], pieces,
                                    blocked=all(s.blocked for s in sections), merged=True)
        return sections

    def cursor(self, reached: bool) -> Optional[list[Section]]:
        members: list[FileEntry] = []
        names: list[tuple[str, str]] = [(self.cwd, ".cursorrules")]
        rules_dir = posixpath.join(self.cwd, ".cursor", "rules")
        rules_type = safe_type(self.fs, rules_dir)
        if rules_type == "dir":
            mdc = sorted(n for n in self.fs.listdir(rules_dir) if fnmatch.fnmatchcase(n, "*.mdc"))
            names += [(rules_dir, n) for n in mdc]
        elif rules_type is None and self.dangling_dir_out(rules_dir):
            names.append((rules_dir, "*.mdc"))  # the glob through a link out that dangles here (round 9)
        for d, name in names:
            if name == "*.mdc":
                e = self.entry(TYPE_CURSOR, d, name, ".cursor/rules/*.mdc")
                e.fs_type, e.dangling, e.symlink = "file", True, True
                e.link_dir = self.dangling_dir_out(rules_dir)
                e.realpath = self.fs.realpath(posixpath.join(self.cwd, e.link_dir))  # where the link leads
                e.status, e.reason = UNPREDICTABLE, (
                    f"{e.link_dir} is a symlink to a directory outside {self.root} ({e.realpath}), dangling here; Hermes "
                    "loads every .cursor/rules/*.mdc from it wherever it exists, hermes-audit does not read it")
                e.reached = reached and not self.halted
                if e.reached:
                    self.r.unpredictable = e
                    self.halted = True
                    return None
                continue
            t = present_type(self.fs, posixpath.join(d, name), self.root)
            if t is None:
                continue
            label = ".cursorrules" if name == ".cursorrules" and d == self.cwd else f".cursor/rules/{name}"
            e = self.entry(TYPE_CURSOR, d, name, label)
            e.reached = reached and not self.halted
            if e.reached and self.halt_on_hang(e):
                return None
            self.load(e)
            if e.status == UNPREDICTABLE and e.reached:
                self.r.unpredictable = e
                self.halted = True
                return None
            if e.status == LOADED:
                members.append(e)
        if not members:
            return None
        if not reached:
            return []
        sec = self.section([(e, e.label) for e in members], ".cursorrules", posixpath.join(self.cwd, ".cursorrules"), cursor=True)
        sec.label = ".cursorrules" if len(members) == 1 and members[0].name == ".cursorrules" else ".cursorrules + .cursor/rules"
        return [sec]

    def parent_agents_019(self) -> None:
        """0.19 reads AGENTS.md only in cwd; list parent ones up to the git root as ignored (latest merges them)."""
        if self.git_root is None or self.git_root == self.cwd:
            return
        for d in parents_of(self.cwd)[1:]:
            for name in ("AGENTS.override.md", "AGENTS.md", "agents.md"):
                t = present_type(self.fs, posixpath.join(d, name), self.root)
                if t is None:
                    continue
                e = self.entry(TYPE_AGENTS, d, name, os.path.relpath(posixpath.join(d, name), self.cwd))
                self.load(e)
                if e.status == LOADED:
                    e.status = IGNORED
                    e.reason = f"{self.p.label} reads AGENTS.md from the session directory only (a newer Hermes merges the git-root chain)"
            if d == self.git_root:
                break

    def override_ignored(self) -> None:
        """A profile without ``agents_override`` never reads AGENTS.override.md: list the ones where it looks for
        AGENTS.md (the session directory, or every directory of the chain) as ignored."""
        dirs = [self.cwd]
        if self.p.agents_chain and self.git_root is not None and self.git_root != self.cwd \
                and is_relative_to(self.cwd, self.git_root):
            rel = os.path.relpath(self.cwd, self.git_root).split("/")
            dirs = [self.git_root] + [posixpath.join(self.git_root, *rel[: i + 1]) for i in range(len(rel))]
        for d in dirs:
            name = "AGENTS.override.md"
            if present_type(self.fs, posixpath.join(d, name), self.root) is not None:
                label = name if d == self.cwd else os.path.relpath(posixpath.join(d, name), self.cwd)
                e = self.entry(TYPE_AGENTS, d, name, label)
                self.load(e)
                if e.status == LOADED:
                    e.status = IGNORED
                    e.reason = f"{self.p.label} does not know AGENTS.override.md (a newer Hermes prefers it to AGENTS.md)"

    # -- the project decision ------------------------------------------------
    def project(self) -> None:
        finders: list[tuple[str, Callable[[bool], Optional[list[Section]]]]] = [
            (TYPE_HERMES, self.hermes_md),
            (TYPE_AGENTS, self.agents_chain if self.p.agents_chain else
             (lambda reached: self.single_type(TYPE_AGENTS, ("AGENTS.md", "agents.md"), "AGENTS.md", reached))),
            (TYPE_CLAUDE, lambda reached: self.single_type(TYPE_CLAUDE, ("CLAUDE.md", "claude.md"), "CLAUDE.md", reached)),
            (TYPE_CURSOR, self.cursor),
        ]
        winner: Optional[str] = None
        winner_sections: list[Section] = []
        tried: list[str] = []
        for type_, finder in finders:
            reached = winner is None and not self.halted
            start = len(self.r.entries)
            result = finder(reached)
            mine = self.r.entries[start:]
            if reached and result:
                winner = type_
                winner_sections = result
                if type_ != TYPE_AGENTS or self.r.merged is None:
                    self.r.sections = result
            elif reached and result is None:
                tried.append(type_)
            elif not reached:
                for e in mine:
                    if e.status == LOADED and winner is not None:
                        e.status = SHADOWED
                        e.shadowed_by = _winner_name(winner_sections)
                        blocked = all(s.blocked for s in winner_sections)
                        e.reason = (f"a higher-priority type loaded ({TYPE_TITLES[winner]})"
                                    + (" although it is blocked: the model gets only a [BLOCKED: ...] marker" if blocked else ""))
                    elif e.status == LOADED and self.halted:
                        e.status = NOT_REACHED
                        e.reason = "session start never gets this far (see above)"
                    elif e.status in (UNPREDICTABLE,) and not e.reached:
                        e.reason += " (not reached)"
            if type_ == TYPE_AGENTS and not self.p.agents_chain:
                self.parent_agents_019()
            if type_ == TYPE_AGENTS and not self.p.agents_override:
                self.override_ignored()
        self.r.winner = winner
        # statuses of the sections' members
        for pc in self.r.project_pieces():
            pc.entry.injected_chars += pc.length
        # truncated = loaded, but some of the file's characters do not reach the prompt (a member of a cut
        # cursor concatenation or merged chain that sits wholly in the kept head or tail is not truncated)
        for s in self.r.sections + ([self.r.merged] if self.r.merged is not None else []):
            for m in s.members:
                if m.status == LOADED and m.content is not None and m.injected_chars < len(m.content) - m.scan_skip:
                    m.status = TRUNCATED
        # members whose own section was cut (else only the merged chain's second cut reached them)
        own_cut = {id(m) for s in self.r.sections if s.truncation.truncated for m in s.members}
        for e in self.r.entries:
            if e.status in (LOADED, TRUNCATED) and not e.reason:
                if e.status == TRUNCATED and self.r.merged is not None and id(e) not in own_cut:
                    e.reason = (f"loaded whole into its section; the joined AGENTS.md chain is cut to the cap "
                                f"({e.injected_chars:,} of {e.chars:,} characters reach the prompt)")
                elif e.status == TRUNCATED:
                    e.reason = f"loaded, cut to the cap ({e.injected_chars:,} of {e.chars:,} characters reach the prompt)"
                else:
                    e.reason = "loaded whole"
            if e.bom_only and e.status in (LOADED, TRUNCATED):
                e.reason = ("only a UTF-8 byte-order mark: Hermes 0.19 keeps it through strip(), drops it before the scan "
                            "and loads an empty section that still shadows every lower type")
        if winner is not None:
            names = ", ".join(m.display for s in winner_sections for m in s.members)
            skipped = "; ".join(f"{TYPE_TITLES[t]}: nothing non-empty" for t in tried)
            self.r.winner_reason = (f"{TYPE_TITLES[winner]} is the first type with a non-empty file ({names})"
                                    + (f" ({skipped})" if skipped else ""))
        elif self.r.hang is not None:
            self.r.winner_reason = "undetermined: session start blocks forever"
        elif self.r.unpredictable is not None:
            u = self.r.unpredictable
            why = ("a symlink leaves the tree" if u.read is not None and u.read.status is ReadStatus.SYMLINK_ESCAPE
                   else f"{u.display}: {u.reason}" if u.reason else f"{u.display} cannot be predicted")
            self.r.winner_reason = f"undetermined: {why}"
        else:
            ignored = [e for e in self.r.entries if e.status == IGNORED and "session directory only" in (e.reason or "")]
            self.r.winner_reason = (
                "no project context file that this Hermes reads from the session directory has any content "
                f"({len(ignored)} in parent directories not read); the block holds no project section" if ignored else
                "no project context file has any content; the block holds no project section")

    # -- SOUL.md -----------------------------------------------------------
    def soul(self, home: str, manifest: Optional[dict], read_root: Optional[str]) -> SoulReport:
        path = posixpath.join(home, "SOUL.md")
        t = safe_type(self.fs, path)
        if t is None:
            if posixpath.basename(posixpath.dirname(home)) == "profiles" and safe_type(self.fs, home) is None:
                return SoulReport(path, MISSING, "named profile home does not exist: Hermes loads no SOUL.md and uses its default identity")
            return SoulReport(path, SEEDED, "missing: on start Hermes writes its own default SOUL.md here (ensure_hermes_home) and uses it as the identity")
        e = FileEntry(TYPE_SOUL, "SOUL.md", path, path, "SOUL.md", DocumentKind.SOUL_MD, fs_type=t, reached=True)
        e.symlink = self.fs.is_symlink(path)
        if t in ("fifo", "chardev"):
            if not self.p.context_nonblocking_reads:
                e.status = HANG
                return SoulReport(path, HANG, f"SOUL.md is a {t}: {self.p.label} reads it with a plain read_text() and blocks forever", e)
            return SoulReport(path, SKIPPED, f"SOUL.md is a {t}: the read times out after 5 s (context_file_read_timeout) and Hermes skips it", e)
        self.load(e, root=read_root)
        e.display = path
        if e.status == UNPREDICTABLE:
            return SoulReport(path, UNPREDICTABLE, e.reason, e)
        if e.status in (SKIPPED, MISSING):
            return SoulReport(path, SKIPPED, e.reason + "; Hermes falls back to its default identity", e)
        content = e.content
        if e.status == EMPTY or content is None:
            return SoulReport(path, EMPTY, "empty after strip(): Hermes uses its default identity", e)
        if isinstance(content, str) and _looks_like_legacy_template(content):
            self.r.notes.append("SOUL.md looks like an old installer template (a heading and one HTML comment): "
                                "Hermes replaces such templates with its default SOUL.md on start")
        if self.p.soul_strip_legacy_protocol and isinstance(content, str) and _PROTOCOL_HEADING in content:
            new = _strip_legacy_protocol(content).strip()
            if not new:
                return SoulReport(path, EMPTY, "only a legacy '## Messaging other agents' section, which Hermes removes: default identity", e)
            e.content = content = new
        user_authored = True
        if self.p.soul_warn_mode:
            user_authored = soul_is_user_authored(manifest)
        else:
            user_authored = False
        body, blocked = self.scan(e, "SOUL.md", user_authored=user_authored)
        tr = self.truncate(body, "SOUL.md", path)
        if blocked:
            status, reason = BLOCKED, f"blocked ({', '.join(e.pattern_ids)}): the identity slot holds only the [BLOCKED: ...] marker"
            if self.p.soul_warn_mode:
                reason += "; SOUL.md is owned by a profile distribution (distribution.yaml), so the hit blocks"
        elif e.pattern_ids:
            status, reason = WARNED, (f"matches {', '.join(e.pattern_ids)} but loads anyway (a SOUL.md you wrote yourself "
                                      "only gets a warning in the log)")
        elif tr.truncated:
            status, reason = TRUNCATED, f"loaded as the identity, cut to the cap ({len(tr.text):,} of {tr.original_chars:,} characters)"
        else:
            status, reason = LOADED, "loaded as the identity (the first block of the system prompt)"
        e.status = status
        e.reason = reason
        e.injected_chars = len(tr.text)
        return SoulReport(path, status, reason, e, tr, user_authored if self.p.soul_warn_mode else None)


def _partial_truncation(text: Text, warn_name: str, cap: int, profile: VersionProfile, read_path: str) -> Truncation:
    """The cut of a text whose unread middle decides the marker (latest lists its headings): sizes, kept
    head and tail and omitted range are exact; the marker lists only the headings that were read, and
    ``lost_headings`` is ``None`` (unknown). The report keeps the render unavailable (``unknown``)."""
    total = len(text)
    if total <= cap:
        return Truncation(text, total, cap)
    head_chars = int(cap * CONTEXT_TRUNCATE_HEAD_RATIO)
    tail_chars = int(cap * CONTEXT_TRUNCATE_TAIL_RATIO)
    known = text.parts[0] if isinstance(text, LongText) and isinstance(text.parts[0], str) else ""
    listed = marker_heading_list(markdown_headings(known, head_chars, min(len(known), total - tail_chars)))
    marker = truncation_marker(profile, warn_name, head_chars, tail_chars, total, read_path, listed)
    try:
        kept: Text = concat(slice_text(text, 0, head_chars), marker, py_tail(text, tail_chars))
    except UnknownText:
        kept = text
    return Truncation(kept, total, cap, truncated=True, head_chars=head_chars, tail_chars=tail_chars, marker=marker,
                      omitted=(head_chars, total - tail_chars) if tail_chars else (head_chars, head_chars),
                      lost_headings=None,
                      warning=truncation_warning(warn_name, total, cap, True, read_path) if profile.truncation_warning else "")


def _winner_name(sections: list[Section]) -> str:
    return ", ".join(m.display for s in sections for m in s.members)


def _content_key(t: Optional[Text]) -> Any:
    if t is None or isinstance(t, str):
        return t
    return ("long", len(t), tuple(p if isinstance(p, str) else ("gap", p) for p in t.parts))


_PROTOCOL_HEADING = "## Messaging other agents"


def _strip_legacy_protocol(text: str) -> str:
    """latest ``tools/bot_mode_probe.strip_legacy_protocol``: drop the plugin-era section (regex from the reference, section 3)."""
    import re

    pat = re.compile(r"\n*" + re.escape(_PROTOCOL_HEADING) + r"[ \t]*\n.*?(?=\n## |\Z)", re.S)
    return pat.sub("\n", text).strip() + "\n" if _PROTOCOL_HEADING in text else text


def _looks_like_legacy_template(text: str) -> bool:
    t = text.replace("\r\n", "\n").lstrip("\ufeff").strip()
    if not t.startswith("# Hermes Agent Persona\n"):
        return False
    rest = t[len("# Hermes Agent Persona\n"):].strip()
    return rest.startswith("<!--") and rest.endswith("-->") and rest.count("<!--") == 1


def default_hermes_home() -> str:
    """``$HERMES_HOME`` or ``~/.hermes`` (Hermes' ``get_hermes_home`` on POSIX, without profiles)."""
    env = os.environ.get("HERMES_HOME", "").strip()
    return env if env else os.path.join(os.path.expanduser("~"), ".hermes")


def read_hermes_config(path: Path, max_bytes: int = 1024 * 1024) -> tuple[dict, Optional[str]]:
    """Hermes' ``config.yaml`` as a mapping (``{}`` when absent), and a problem description or ``None``.

    Read with the bounded reader and ``yaml.safe_load``. Like Hermes, a file that
    does not parse or is not a mapping counts as no configuration (:func:`config_mapping`).
    """
    if not os.path.lexists(path):
        return {}, None
    res = read_file(path, None, max_bytes=max_bytes)
    if res.status is ReadStatus.OVERSIZED:
        return {}, f"{path}: larger than {max_bytes:,} bytes; not read"
    if res.status is not ReadStatus.OK or res.text is None:
        return {}, f"{path}: {res.detail or res.status.value}"
    return config_mapping(res.text, str(path))


def config_mapping(text: str, label: str) -> tuple[dict, Optional[str]]:
    """A Hermes YAML configuration text as a mapping, and a problem (prefixed with ``label``) or ``None``.

    Parsed with :func:`hermes_audit.hermes.distribution.load_yaml_bounded`; like Hermes, text that does not
    parse or is not a mapping counts as no configuration (``{}``); past the bounds, Hermes' defaults are
    assumed. Never raises for bad YAML.
    """
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
    import yaml

    from hermes_audit.hermes.distribution import YamlLimitError, load_yaml_bounded

    try:
        data = load_yaml_bounded(text)
    except YamlLimitError as exc:
        return {}, f"{label}: not evaluated: {exc}; hermes-audit assumes Hermes' defaults"
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:  # a hostile file never raises out
        return {}, f"{label}: invalid YAML ({type(exc).__name__}); Hermes falls back to its defaults"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"{label}: not a mapping; Hermes ignores it"
    return data, None


def model_context_length(config: Any) -> Optional[int]:
    """config.yaml's ``model.context_length`` (tokens) when it is a positive integer, else ``None`` (unknown):
    the window Hermes derives the context-file cap from when ``context_file_max_chars`` is not set
    (latest and 0.19.0 agent/prompt_builder.py; the ``prompt`` command reads it the same way)."""
    m = config.get("model") if isinstance(config, dict) else None
    cl = m.get("context_length") if isinstance(m, dict) else None
    return cl if isinstance(cl, int) and not isinstance(cl, bool) and cl > 0 else None


def cap_from_config(config: dict, context_length: Optional[int], config_label: str,
                    max_chars: Optional[int] = None, profile: Optional[VersionProfile] = None) -> CapResolution:
    """The cap for a session: ``max_chars`` (as if pinned in config.yaml) or config.yaml, then the context length;
    for a ``profile`` without ``context_cap_dynamic`` (0.13.0-0.16.0) always 20,000, both ignored."""
    dynamic = profile.context_cap_dynamic if profile is not None else True
    if max_chars is not None:
        return resolve_cap(max_chars, context_length, "--max-chars", dynamic=dynamic)
    value = config.get("context_file_max_chars", _MISSING) if config else _MISSING
    return resolve_cap(value, context_length, config_label, dynamic=dynamic)


def simulate_context(
    cwd: os.PathLike | str,
    profile: VersionProfile,
    scanner: ThreatScanner,
    cap: Optional[CapResolution] = None,
    hermes_home: Optional[os.PathLike | str] = None,
    fs=None,
    soul_manifest: Any = "auto",
) -> ContextReport:
    """Simulate session start in ``cwd`` for ``profile``.

    ``cap`` defaults to Hermes' default (20,000). ``hermes_home`` (optional)
    adds SOUL.md. ``fs`` is a :class:`RealFS` (default) or :class:`MemoryFS`.
    ``soul_manifest`` describes ``distribution.yaml`` next to SOUL.md (see
    :func:`hermes_audit.hermes.verdict.soul_is_user_authored`); ``"auto"``
    reads it. Raises ``ValueError`` when ``cwd`` is not a directory.
    """
    fs = fs or RealFS()
    cap = cap or resolve_cap()
    cwd_abs = os.path.abspath(os.fspath(cwd)) if isinstance(fs, RealFS) else posixpath.normpath(os.fspath(cwd))
    cwd_res = fs.realpath(cwd_abs)
    if safe_type(fs, cwd_res) != "dir":
        raise ValueError(f"{cwd}: not a directory")
    git_root = find_git_root(fs, cwd_res)
    root = git_root or cwd_res
    report = ContextReport(cwd_res, profile, cap, git_root, root)
    sim = _Sim(fs, profile, scanner, cap.cap, cwd_res, git_root, root, report)
    sim.project()
    if hermes_home is not None:
        home = os.path.abspath(os.fspath(hermes_home)) if isinstance(fs, RealFS) else posixpath.normpath(os.fspath(hermes_home))
        manifest = soul_manifest
        if manifest == "auto":
            manifest = _read_manifest(fs, home) if profile.soul_warn_mode else None
        report.soul = sim.soul(home, manifest, None)
    return report


def _read_manifest(fs, home: str) -> Optional[dict]:
    path = posixpath.join(home, "distribution.yaml")
    if safe_type(fs, path) is None:
        return None
    res = fs.read(path, None)
    if res.status is not ReadStatus.OK or res.text is None:
        return {"error": res.detail or "unreadable"}
    return manifest_state_from_text(res.text)


def iter_project_entries(report: ContextReport) -> Iterator[FileEntry]:
    yield from report.entries


# ---------------------------------------------------------------------------
# Loading findings (rules/loading.yaml)
# ---------------------------------------------------------------------------

#: Rule names of rules/loading.yaml, as the model emits them.
R_UNSCANNED = "unscanned-injected-text"
R_UNSCANNED_THREAT = "unscanned-injected-threat"
R_TRUNCATED = "truncated-context-section"
R_SHADOWED = "shadowed-context-file"
R_SHADOWED_BLOCKED = "shadowed-by-blocked-file"
R_UNREADABLE = "context-file-unreadable"
R_EMPTY = "empty-context-file"
R_HANG = "context-read-hangs"
R_ESCAPE = "context-symlink-escape"
R_CHAIN_DUP = "chain-duplicate"
R_HINT_CUT = "oversized-hint-file"
R_CASE = "case-collision"
LOADING_RULES = (R_UNSCANNED, R_UNSCANNED_THREAT, R_TRUNCATED, R_SHADOWED, R_SHADOWED_BLOCKED, R_UNREADABLE,
                 R_EMPTY, R_HANG, R_ESCAPE, R_CHAIN_DUP, R_HINT_CUT, R_CASE)


@dataclass(eq=False)
class LoadingIssue:
    """A loading problem found by the simulation, before it becomes a :class:`~hermes_audit.findings.Finding`.

    ``rule`` is a rule name of ``rules/loading.yaml``; ``start``/``end`` are
    offsets in the entry's ``Document.text``; ``severity`` (a
    :class:`~hermes_audit.findings.Severity` or ``None`` for the rule's) may raise it.
    """

    rule: str
    entry: FileEntry
    start: int
    end: int
    message: str
    severity: Any = None
    confidence: Any = None
    #: replaces the rule's ``fix`` text when the remedy depends on the cause (HA606)
    fix: Optional[str] = None


def unreadable_fix(e: FileEntry) -> str:
    """The fix of an HA606 (``context-file-unreadable``) finding, by cause: not UTF-8, not a regular file,
    permission denied or another read error."""
    rd = e.read
    if rd is not None and rd.status is ReadStatus.NOT_UTF8:
        return "Save the file as UTF-8 (a UTF-8 byte-order mark is fine)."
    ft = (rd.file_type if rd is not None else "") or (e.fs_type or "")
    if rd is not None and rd.status is ReadStatus.NOT_REGULAR or ft in ("fifo", "chardev", "socket", "dir"):
        if ft in ("directory", "dir"):
            return "Rename the directory or move it away: Hermes expects a regular file with this name."
        return f"Delete the {ft} and, if instructions belong here, put them in a regular file."
    if rd is not None and rd.detail == "permission denied":
        return "Make the file readable by the user who runs Hermes (for example chmod a+r), or delete it."
    return "Make the file readable by the user who runs Hermes, or delete it."


def _file_span(e: FileEntry) -> tuple[int, int]:
    if e.hermes is None or e.content is None or not len(e.content):
        return 0, 0
    s = e.raw_offset(0)
    return s, s + 1


def _first_line_span(e: FileEntry, content_off: int) -> tuple[int, int]:
    s = e.raw_offset(content_off)
    return s, s + 1


def _ranges_for(entry: FileEntry, pieces: list[Piece]) -> list[tuple[int, int]]:
    out = [(p.offset, p.offset + p.length) for p in pieces if p.entry is entry or p.entry.path == entry.path]
    out.sort()
    merged: list[tuple[int, int]] = []
    for s, e in out:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _intersect(ranges: list[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    return [(max(s, lo), min(e, hi)) for s, e in ranges if max(s, lo) < min(e, hi)]


def _union(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in sorted(a + b):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _size(ranges: list[tuple[int, int]]) -> int:
    return sum(e - s for s, e in ranges)


def entry_document(e: FileEntry, display: Optional[str] = None) -> Document:
    """The :class:`Document` a finding about ``e`` points into (created once per entry)."""
    if e.document is None:
        rd = e.read if e.read is not None else ReadResult(ReadStatus.NOT_REGULAR, detail=e.reason, file_type=e.fs_type or "")
        e.document = Document(path=display or e.display, kind=e.kind, read=rd, abs_path=Path(e.path))
    return e.document


def escape_message(e: FileEntry, root: str, label: str, started: str = "", shown: str = "") -> str:
    """The HA609 message for ``e``, a link Hermes ``label`` follows out of ``root``; ``started`` (``"sub/"``) when
    only a session started in that directory loads it. A dangling link (:attr:`FileEntry.dangling`) says that
    its target does not exist here and that Hermes loads it wherever it does. ``shown``: the name to give ``e``
    (default its display path)."""
    shown = shown or e.display
    where = f" for a session started in {started}" if started else ""
    if e.link_dir:
        return (f"{e.link_dir} is a symlink to a directory outside the repository ({e.realpath or 'a directory'}, "
                f"{link_place(e.realpath, root)}); dangling here, {label} globs {shown} through it wherever the target "
                f"exists{where}: it follows the link and puts those files into the system prompt; hermes-audit never "
                "opens it")
    if e.dangling:
        return (f"{shown} is a symlink that points outside the repository ({e.realpath or 'a file'}, "
                f"{link_place(e.realpath, root)}); dangling here, {label} loads it wherever the target exists{where}: "
                "it follows the link and puts that file into the system prompt; hermes-audit never opens it")
    if started:
        return (f"{shown} is a symlink to {e.realpath or 'a file'} {link_place(e.realpath, root)}; a session "
                f"started in {started} makes {label} follow it and put that file into the system prompt")
    return (f"{shown} is a symlink to {e.realpath or 'a file'} {link_place(e.realpath, root)}; {label} follows "
            "it and puts that file into the system prompt")


def link_place(realpath: Optional[str], root: str) -> str:
    """Where a link Hermes would follow leads, for messages: ``outside ROOT``, or into the tree's ``.git``
    metadata (which hermes-audit never reads: it holds checkout credentials)."""
    if realpath and root and ("/.git/" in realpath + "/") and realpath.startswith(root.rstrip("/") + "/"):
        return "in the repository's .git metadata (which may hold credentials)"
    return f"outside {root}"


def unscanned_issues(entry: FileEntry, now: list[tuple[int, int]], ceiling: list[tuple[int, int]],
                     scanner: ThreatScanner, cap: int, where: str, engine=None) -> list[LoadingIssue]:
    """Text of ``entry`` past the scan window that reaches the model (``now``: at the cap in force;
    ``ceiling``: at the 500,000-character ceiling); each threat in it at least high."""
    if entry.content is None:
        return []
    window_end = entry.scan_skip + scanner.max_scan_chars
    total = len(entry.content)
    if total <= window_end:
        return []
    un_now = _intersect(now, window_end, total)
    un_ceiling = _intersect(ceiling, window_end, total)
    both = _union(un_now, un_ceiling)
    if not both:
        return []
    issues: list[LoadingIssue] = []
    first = both[0][0]
    s, e = _first_line_span(entry, first)
    at_cap = (f"{_size(un_now):,} of them reach the model at the cap in force ({cap:,})" if un_now
              else f"none at the cap in force ({cap:,})")
    issues.append(LoadingIssue(
        R_UNSCANNED, entry, s, e,
        f"{where}: {total - window_end:,} characters lie past Hermes' {scanner.max_scan_chars:,}-character scan window; "
        f"{at_cap}, {_size(un_ceiling):,} at the {CEILING_CAP:,} ceiling. Hermes never checks them for injection",
    ))
    # Hermes' own patterns over the unscanned injected text
    seen: set[str] = set()
    for lo, hi in both:
        try:
            seg = slice_text(entry.content, lo, hi)
        except UnknownText:
            continue
        step = scanner.max_scan_chars - 4096
        pos = 0
        while pos < len(seg):
            chunk = seg[pos:pos + scanner.max_scan_chars]
            for h in scanner.locate(chunk, "context"):
                if h.pattern_id in seen:
                    continue
                seen.add(h.pattern_id)
                off = lo + pos + h.start
                rs = entry.raw_offset(off)
                re_ = entry.raw_offset(lo + pos + h.end - 1) + 1
                reach = "at the cap in force" if _intersect(un_now, off, off + 1) else f"at caps up to the {CEILING_CAP:,} ceiling"
                issues.append(LoadingIssue(
                    R_UNSCANNED_THREAT, entry, rs, re_,
                    f"{where}: Hermes' own pattern '{h.pattern_id}' ({h.rule.title}) matches at character {off:,}, past the "
                    f"scan window, in text Hermes injects {reach}; inside the window this file would be blocked",
                    severity=Severity.HIGH))
            if pos + scanner.max_scan_chars >= len(seg):
                break
            pos += step
    if engine is not None and entry.read is not None and entry.read.readable:
        doc = entry_document(entry)
        raw_ranges = [(entry.raw_offset(lo), entry.raw_offset(hi - 1) + 1) for lo, hi in both]
        raw_now = [(entry.raw_offset(lo), entry.raw_offset(hi - 1) + 1) for lo, hi in un_now]
        try:
            found = engine.run(doc).findings
        except Exception:  # the audit engine failing must not hide the loading result
            found = []
        for f in found:
            if not any(lo <= f.span.start < hi for lo, hi in raw_ranges):
                continue
            reach = "at the cap in force" if any(lo <= f.span.start < hi for lo, hi in raw_now) else f"at caps up to the {CEILING_CAP:,} ceiling"
            issues.append(LoadingIssue(
                R_UNSCANNED_THREAT, entry, f.span.start, f.span.end,
                f"{where}: {f.rule_id} {f.rule_name}: {f.message} (past Hermes' scan window, injected {reach}: Hermes never checks it)",
                severity=max(f.severity, Severity.HIGH), confidence=f.confidence))
    return issues


def truncation_issues(sec: Section, cap: CapResolution, profile: VersionProfile, where: str = "") -> list[LoadingIssue]:
    """One issue per file whose text falls in the dropped middle of a truncated section."""
    tr = sec.truncation
    if not tr.truncated:
        return []
    lo, hi = tr.omitted
    out: list[LoadingIssue] = []
    by_entry: dict[str, list[Piece]] = {}
    for p in sec.pieces:
        if max(p.start, lo) < min(p.start + p.length, hi):
            by_entry.setdefault(p.entry.path, []).append(p)
    for plist in by_entry.values():
        e = plist[0].entry
        first = max(plist[0].start, lo)
        content_off = plist[0].offset + (first - plist[0].start)
        lost = _size([(max(p.start, lo), min(p.start + p.length, hi)) for p in plist])
        heads = []
        if tr.lost_headings is not None:
            for h in tr.lost_headings:
                if any(p.start <= h.offset < p.start + p.length for p in plist):
                    heads.append(h.text)
        heading_txt = (f"; headings lost: {'; '.join(heads[:20])}" + (" ..." if len(heads) > 20 else "")) if heads else ""
        if tr.lost_headings is None:
            heading_txt = "; the headings of the unread middle are unknown"
        s, e2 = _first_line_span(e, content_off)
        kind = "the merged AGENTS.md chain" if sec.merged else f"the {sec.warn_name} section"
        listed = " (the marker lists them)" if heads and profile.marker_lists_headings else (" (the marker does not say which)" if heads else "")
        out.append(LoadingIssue(
            R_TRUNCATED, e, s, e2,
            f"{where}{profile.label} cuts {kind}, longer than its cap of {cap.cap:,} characters ({cap.source}): it keeps "
            f"the first {tr.head_chars:,} and the last {tr.tail_chars:,} of the {tr.original_chars:,} Hermes builds it from "
            f"(headers included) around a marker; "
            f"{lost:,} characters of {e.display} from here never reach the model{heading_txt}{listed}"))
    return out


def loading_issues(report: ContextReport, ceiling: Optional[ContextReport] = None, scanner: Optional[ThreatScanner] = None,
                   engine=None) -> list[LoadingIssue]:
    """Every loading issue of a simulated session (see ``rules/loading.yaml``).

    ``ceiling`` is the same session simulated at the 500,000 cap (for text past
    the scan window that a larger model window would inject); ``engine`` runs the
    audit rules over that text.
    """
    p = report.profile
    out: list[LoadingIssue] = []
    winner_blocked = bool(report.sections) and all(s.blocked for s in report.sections)
    winner_entries = {m.path: m for s in report.sections for m in s.members}
    for e in report.entries:
        span = _file_span(e)
        if e.status == HANG:
            out.append(LoadingIssue(R_HANG, e, 0, 0,
                                    f"{e.display} is a {FILE_TYPE_WORDS.get(e.fs_type, e.fs_type)}: {p.label} opens it with a plain read_text() at session "
                                    "start and blocks forever; the agent never starts (a hostile repository can do this)"))
        elif e.status == UNPREDICTABLE and e.reached and "symlink" in e.reason:
            out.append(LoadingIssue(R_ESCAPE, e, 0, 0, escape_message(e, report.root, p.label),
                                    fix=(f"Replace the symlink {e.link_dir} by a directory of the repository's own files"
                                         if e.link_dir else None)))
        elif e.status == SKIPPED and e.reached:
            out.append(LoadingIssue(R_UNREADABLE, e, 0, 0, f"{e.display} is never loaded: {e.reason}",
                                    fix=unreadable_fix(e)))
        elif e.status == EMPTY and e.reached:
            out.append(LoadingIssue(R_EMPTY, e, 0, 0, f"{e.display} is empty: {e.reason}"))
        elif e.bom_only and e.status in (LOADED, TRUNCATED):
            out.append(LoadingIssue(R_EMPTY, e, 0, 1, f"{e.display}: {e.reason}", severity=Severity.LOW))
        elif e.status == DUPLICATE:
            out.append(LoadingIssue(R_CHAIN_DUP, e, *span, f"{e.display}: {e.reason}"))
        elif e.status in (SHADOWED, IGNORED) and e.content is not None and len(e.content):
            if e.status == IGNORED and e.type != TYPE_AGENTS:
                continue
            twin = _same_as_winner(e, winner_entries, report)
            if twin:
                continue
            if e.status == SHADOWED and winner_blocked and e.type != report.winner:
                out.append(LoadingIssue(R_SHADOWED_BLOCKED, e, *span,
                                        f"{e.display} never loads: {e.reason}"))
                continue
            sev = None
            if report.winner == TYPE_HERMES and e.type != TYPE_HERMES:
                w = next((m for s in report.sections for m in s.members), None)
                if w is not None and posixpath.dirname(w.path) != report.cwd:
                    sev = Severity.MEDIUM
                    out.append(LoadingIssue(R_SHADOWED, e, *span,
                                            f"{e.display} never loads: {w.display}, a .hermes.md in a parent directory, "
                                            "wins over every other context file of this directory", severity=sev))
                    continue
            parent_only = e.status == IGNORED and "session directory only" in (e.reason or "")
            out.append(LoadingIssue(
                R_SHADOWED, e, *span, f"{e.display} never loads: {e.reason}",
                # issue 22 QA: nothing loads instead of it, so "merge into the file Hermes loads" pointed nowhere
                fix=("Start the session in the directory that holds this AGENTS.md, or give the session directory "
                     "its own AGENTS.md (this Hermes reads no parent directory's)") if parent_only else None))
    # truncation
    secs = list(report.sections) + ([report.merged] if report.merged is not None else [])
    for sec in secs:
        out.extend(truncation_issues(sec, report.cap, p))
    if report.soul is not None and report.soul.truncation is not None and report.soul.entry is not None:
        e = report.soul.entry
        tr = report.soul.truncation
        if tr.truncated and report.soul.status != BLOCKED:
            body_len = len(e.content) - e.scan_skip if e.content is not None else 0
            sec = Section("SOUL.md", "SOUL.md", e.path, tr.text, tr, [e], [Piece(0, body_len, e, e.scan_skip)])
            out.extend(truncation_issues(sec, report.cap, p))
    # unscanned but injected
    if scanner is not None:
        now_pieces = report.project_pieces()
        ceil_pieces = ceiling.project_pieces() if ceiling is not None else []
        ceil_by_path: dict[str, FileEntry] = {}
        if ceiling is not None:
            for pc in ceil_pieces:
                ceil_by_path.setdefault(pc.entry.path, pc.entry)
        done: set[str] = set()
        for pc in now_pieces + ceil_pieces:
            ent = next((x for x in report.entries if x.path == pc.entry.path), pc.entry)
            if ent.path in done:
                continue
            done.add(ent.path)
            now_r = _ranges_for(ent, now_pieces)
            ceil_r = [(a, b) for a, b in _ranges_for(ceil_by_path.get(ent.path, ent), ceil_pieces)]
            out.extend(unscanned_issues(ent, now_r, ceil_r, scanner, report.cap.cap, ent.display, engine))
    return out


def _same_as_winner(e: FileEntry, winners: dict[str, FileEntry], report: ContextReport) -> bool:
    """A shadowed file identical to (or a link to) a loaded one is no loss."""
    if e.status == IGNORED:
        return False
    for w in winners.values():
        if (e.realpath and e.realpath == w.realpath) or (isinstance(e.content, str) and e.content == w.content):
            return True
    if e.shadowed_by:
        for x in report.entries:
            if x.display == e.shadowed_by and ((e.realpath and e.realpath == x.realpath) or
                                               (isinstance(e.content, str) and e.content == x.content)):
                return True
    return False

