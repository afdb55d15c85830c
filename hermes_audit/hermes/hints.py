"""Subdirectory hints: what Hermes appends to tool results as the agent moves through a tree.

Simulates ``SubdirectoryHintTracker`` (``agent/subdirectory_hints.py``):
hermes-agent 0.19.0 for profile ``0.19`` (0.18.2 has the same file, but its
context scan keeps a leading BOM); 0.20.1 for ``0.20`` (0.19.0 plus the
content digests and ``_EXCLUDED_DIR_NAMES``); @ 0081f93d for ``latest``
(reference ``hermes-behaviour.md`` section 4). Every difference below is a
``hint_*`` switch of the version profile (``hint_nav_targets``,
``hint_digest_dedup``...), never a test of the profile's name. After every tool call Hermes
looks at the call's arguments, finds directories the agent has not visited yet,
loads one hint file per directory and appends
``"\\n\\n" + "\\n\\n".join(blocks)`` to the tool result, where a block is
``"[Subdirectory context discovered: <path>]\\n" + content``.

Path extraction (both versions): the ``path``, ``file_path`` and ``workdir``
arguments (non-blank strings); for the ``terminal`` tool, the ``command``
split with ``shlex.split`` (``str.split`` when that fails), keeping tokens that
do not start with ``-``, ``http://``, ``https://`` or ``git@`` and contain a
``/`` or a ``.``. ``latest`` also takes the operand of a ``cd``/``pushd`` that
starts a shell segment. Each path is expanded (``~``), made absolute against
the working directory and resolved; a file path climbs to its directory (0.19:
any path with a suffix or naming an existing file; latest: not when it names an
existing directory); then up to 5 directories are walked upwards, stopping at
one already visited. A directory counts when it exists, is inside the working
directory and was not visited (latest: and no part below the working directory
is a pruned name such as ``node_modules`` or ``vendor``).

Loading a directory (marked visited first): the first of ``AGENTS.md``,
``agents.md``, ``CLAUDE.md``, ``claude.md``, ``.cursorrules`` (latest:
``AGENTS.override.md`` first) that is a regular file with non-empty stripped
text; it is scanned like a context file (``[BLOCKED: <name> contained ...]``)
and capped: 0.19 keeps the first 8,000 characters and appends
``[...truncated NAME: N chars total]`` silently; latest keeps head and tail of a
32,000-character cap with the context-file marker. Latest also refuses a hint
file whose symlink target leaves the working directory or is a ``.env``-like
file, skips content already injected (SHA-256, seeded with the working
directory's own hint file), and does nothing at all when the working directory
is home-like (``~``, ``/home``, ``/root``, ``/workspace``, their children, or a
path with a ``.home``/``host-home``/``host_home`` part).

Within one call Hermes visits the new directories in ``set`` order, which
varies between runs; this simulation visits them sorted by path, so the text of
a call that discovers several directories may list the same blocks in another
order than a given Hermes run (compare them as a set).

Files are read through the file-system objects of
:mod:`hermes_audit.hermes.context` (the real one reads with
:mod:`hermes_audit.documents.reader`: no FIFO opened, bounded memory, no
symlink followed out of the working directory). Sizes are Python code points.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import ReadResult, ReadStatus
from hermes_audit.findings import sha256
from hermes_audit.hermes.context import (
    R_ESCAPE,
    R_HINT_CUT,
    FileEntry,
    LoadingIssue,
    MemoryFS,
    RealFS,
    hermes_text,
    is_relative_to,
    path_suffix,
    dangling_out,
    present_type,
    safe_type,
    unscanned_issues,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ThreatScanner
from hermes_audit.hermes.truncation import (
    Truncation,
    UnknownText,
    drop_prefix,
    markdown_headings,
    slice_text,
    startswith,
    strip_text,
    truncate_content,
)
from hermes_audit.hermes.outcomes import HINT_FILENAMES_019, HINT_FILENAMES_LATEST, blocked_marker
from hermes_audit.documents.reader import read_file

#: ``_PATH_ARG_KEYS`` and ``_COMMAND_TOOLS``.
PATH_ARG_KEYS = ("path", "file_path", "workdir")
COMMAND_TOOLS = frozenset({"terminal"})
#: ``_MAX_ANCESTOR_WALK``: directories walked upwards per path.
MAX_ANCESTOR_WALK = 5
#: latest ``SEARCH_PRUNE_DIR_NAMES`` (``agent/search_policy.py`` @ e03d7158).
PRUNED_DIR_NAMES = frozenset({
    ".git", ".hg", ".svn", "node_modules", "venv", ".venv", "site-packages", "dist-packages", "vendor",
    "third_party", "build", "dist", "target", "out", "coverage", ".next", ".turbo", ".parcel-cache", ".nuxt",
    ".svelte-kit", ".archive", "__pycache__", ".cache", ".Trash", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".npm", ".yarn", ".pnpm-store", ".gradle", ".m2", ".nuget", "backups", "backup", ".backups",
})
#: 0.20.1 ``_EXCLUDED_DIR_NAMES`` (``agent/subdirectory_hints.py``): no hint loads below these.
EXCLUDED_DIR_NAMES_0_20 = frozenset({
    "node_modules", "venv", ".venv", "__pycache__", ".git", ".hg", ".svn", ".Trash", ".cache", ".tox", ".mypy_cache",
    ".pytest_cache", "site-packages", "dist-packages", "backups", "backup", ".backups", "vendor", "third_party",
})
#: ``hint_excluded_dirs`` switch value -> the directory names below which no hint loads.
EXCLUDED_DIRS = {"none": frozenset(), "search-policy": PRUNED_DIR_NAMES, "hints-0.20": EXCLUDED_DIR_NAMES_0_20}
#: latest home-like working directories (``_CONTAINER_HOMES``) and path parts (#76902).
CONTAINER_HOMES = ("/home", "/root", "/workspace")
HOME_MOUNT_PARTS = frozenset({".home", "host-home", "host_home"})
#: Project environment files the read deny-list refuses (``agent/file_safety.get_read_block_error``).
DENIED_ENV_NAMES = frozenset({".env", ".env.local", ".env.development", ".env.production", ".env.test",
                              ".env.staging", ".envrc"})
_NAV_COMMANDS = frozenset({"cd", "pushd"})
_SHELL_OPERATORS = frozenset({"&&", "||", "|", ";", "&", ";;", "|&", "(", ")"})
#: Directories visited at most by ``--all`` (a hostile tree cannot make it run forever).
MAX_ALL_DIRECTORIES = 100_000

# Statuses of a directory's hint.
LOADED = "loaded"          # appended whole
TRUNCATED = "truncated"    # appended, cut to the per-file cap
BLOCKED = "blocked"        # appended as [BLOCKED: ...]
DUPLICATE = "duplicate"    # latest: same content already injected; nothing appended
UNPREDICTABLE = "unpredictable"  # 0.19 follows a symlink out of the tree (or reads a device): unknown text


class TraceError(ValueError):
    """A trace file line that is not ``{"tool": NAME, "args": {...}}``; the message names the line."""


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class HintCandidate:
    """A file name tried in a directory and why it was passed over (or taken)."""

    name: str
    outcome: str
    detail: str = ""

    def to_dict(self) -> dict:
        out = {"name": self.name, "outcome": self.outcome}
        if self.detail:
            out["detail"] = self.detail
        return out


@dataclass(eq=False)
class Hint:
    """One directory's hint: the file, what Hermes appends, and its cost.

    ``display`` is the path Hermes prints (relative to the working directory);
    ``text`` the exact block appended (``None`` for a duplicate or an
    unpredictable file); ``content_chars`` the stripped file text; ``injected``
    the characters of the block. ``kept_ranges`` and ``omitted_ranges`` are
    offsets in the file's text as :mod:`hermes_audit.documents.reader` decodes
    it; ``unscanned_injected`` the kept characters beyond Hermes' 65,536-character
    scan window.
    """

    directory: str
    path: str
    display: str
    name: str
    status: str
    detail: str = ""
    text: Optional[str] = None
    content_chars: int = 0
    injected: int = 0
    pattern_ids: list[str] = field(default_factory=list)
    truncation: Optional[Truncation] = None
    tried: list[HintCandidate] = field(default_factory=list)
    kept_ranges: list[tuple[int, int]] = field(default_factory=list)
    omitted_ranges: list[tuple[int, int]] = field(default_factory=list)
    unscanned_injected: list[tuple[int, int]] = field(default_factory=list)
    lost_headings: list[tuple[int, str]] = field(default_factory=list)
    document: Optional[Document] = None
    entry: Optional[FileEntry] = None
    kept_content: list[tuple[int, int]] = field(default_factory=list)
    #: For a hint file Hermes follows out of the working directory (a symlink, or one in a symlinked
    #: directory; 0.19 only): the resolved path it reads instead. Empty otherwise.
    escapes_to: str = ""

    def to_dict(self, with_text: bool = True) -> dict:
        out: dict = {
            "directory": self.directory, "path": self.display, "file": self.name, "status": self.status,
            "characters": self.content_chars, "injected": self.injected,
        }
        if self.detail:
            out["detail"] = self.detail
        if self.pattern_ids:
            out["pattern_ids"] = list(self.pattern_ids)
        if self.truncation is not None and self.truncation.truncated:
            out["truncation"] = self.truncation.to_dict()
            out["lost_headings"] = [t for _, t in self.lost_headings]
        if self.tried:
            out["tried"] = [c.to_dict() for c in self.tried]
        if with_text:
            out["text"] = self.text
        return out


@dataclass(eq=False)
class HintCall:
    """One tool call: the paths Hermes extracts, the new directories, and the appended text."""

    index: int
    tool: str
    args: dict
    paths: list[str] = field(default_factory=list)
    directories: list[str] = field(default_factory=list)
    hints: list[Hint] = field(default_factory=list)
    text: Optional[str] = None
    exact: bool = True
    #: ``check_tool_call`` raised instead of answering (``profile.hint_runtime_errors_escape``: the
    #: ``RuntimeError`` of ``~unknown_user`` or a symlink loop): why, else ``None``
    error: Optional[str] = None

    @property
    def injected(self) -> int:
        return len(self.text) if self.text else 0

    def to_dict(self) -> dict:
        return {
            "index": self.index, "tool": self.tool, "args": self.args, "paths": self.paths,
            "directories": self.directories, "hints": [h.to_dict(with_text=False) for h in self.hints],
            "text": self.text, "injected": self.injected, "exact": self.exact, "error": self.error,
        }


@dataclass(eq=False)
class HintReport:
    """A whole trace (or ``--all``): every call, and the hint budget."""

    working_dir: str
    profile: VersionProfile
    calls: list[HintCall] = field(default_factory=list)
    disabled: Optional[str] = None
    mode: str = "trace"
    notes: list[str] = field(default_factory=list)
    #: Absolute paths of hint-named FIFOs and character devices the tracker saw and skipped
    #: (``is_file()`` is False); a session started in their directory may still read them.
    special_files: list[str] = field(default_factory=list)
    #: Absolute paths of hint files ``latest`` refused because their symlink target leaves the working
    #: directory or is denied (``_resolved_hint_target``); a session started in their directory may still
    #: follow them (its context-file loader does).
    refused_links: list[str] = field(default_factory=list)
    #: Directories the worst case (``all_dirs``) visited, parents first.
    visited: list[str] = field(default_factory=list)

    @property
    def hints(self) -> list[Hint]:
        return [h for c in self.calls for h in c.hints]

    @property
    def total_injected(self) -> int:
        return sum(c.injected for c in self.calls)

    @property
    def exact(self) -> bool:
        return all(c.exact for c in self.calls)

    def budget(self) -> dict:
        """Characters per hint and in total, the costliest directories, what was cut or blocked."""
        appended = [h for h in self.hints if h.text is not None]
        ranked = sorted(appended, key=lambda h: (-h.injected, h.display))
        return {
            "calls": len(self.calls),
            "calls_with_hints": sum(1 for c in self.calls if c.text),
            "hints": len(appended),
            "total_injected": self.total_injected,
            "estimated_tokens": (self.total_injected + 3) // 4,
            "largest": [{"path": h.display, "injected": h.injected, "status": h.status} for h in ranked[:10]],
            "truncated": [{"path": h.display, "characters": h.content_chars, "injected": h.injected,
                           "lost_headings": [t for _, t in h.lost_headings]}
                          for h in appended if h.status == TRUNCATED],
            "blocked": [{"path": h.display, "pattern_ids": h.pattern_ids} for h in self.hints if h.status == BLOCKED],
            "duplicates": [h.display for h in self.hints if h.status == DUPLICATE],
            "unpredictable": [h.display for h in self.hints if h.status == UNPREDICTABLE],
        }

    def to_dict(self) -> dict:
        return {
            "hermes_version": self.profile.name,
            "working_dir": self.working_dir,
            "mode": self.mode,
            "disabled": self.disabled,
            "calls": [c.to_dict() for c in self.calls],
            "budget": self.budget(),
            "exact": self.exact,
            "notes": list(self.notes),
        }


# ---------------------------------------------------------------------------------------------------
# pathlib behaviour the tracker relies on


class _Skip(Exception):
    """What makes Hermes drop one raw path (``OSError``, ``ValueError``, ``RuntimeError`` in its try)."""


#: The :class:`_Skip` reasons that are a ``RuntimeError`` in Python 3.11's pathlib (``expanduser()`` of an
#: unknown user, ``resolve()`` on a symlink loop): up to 0.17.0 they escape ``check_tool_call``.
_RUNTIME_ERRORS = frozenset({"unknown user", "symlink loop"})


class _CallFails(Exception):
    """``check_tool_call`` raises (``profile.hint_runtime_errors_escape``); the message says why."""


def _expanduser(raw: str, home: str) -> str:
    """``Path(raw).expanduser()`` as a string (``RuntimeError`` for an unknown ``~user`` -> :class:`_Skip`)."""
    if not raw.startswith("~"):
        return raw
    first, sep, rest = raw.partition("/")
    if first == "~":
        base = home
    else:
        try:
            import pwd

            base = pwd.getpwnam(first[1:]).pw_dir
        except (KeyError, ImportError, ValueError):
            raise _Skip("unknown user") from None
    return base + ("/" + rest if sep else "")


def _normalise(path: str) -> str:
    """``PurePosixPath`` normalisation: collapse ``//`` and ``.`` (but not ``..``)."""
    if "\0" in path:
        raise _Skip("NUL in path")
    lead = "/" if path.startswith("/") else ""
    parts = [p for p in path.split("/") if p and p != "."]
    return lead + "/".join(parts) if parts or lead else "."


class _Resolver:
    """``Path.resolve()`` (non-strict) with Python 3.11's ``RuntimeError`` on a symlink loop."""

    def __init__(self, fs) -> None:
        self.fs = fs

    def resolve(self, path: str) -> str:
        fs = self.fs
        if isinstance(fs, MemoryFS):
            if fs._resolve(path, strict=False) is None:
                raise _Skip("symlink loop")
            return fs.realpath(path)
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            raise _Skip("cannot resolve") from None
        try:
            os.stat(real)
        except OSError as exc:
            import errno

            if exc.errno == errno.ELOOP:
                raise _Skip("symlink loop") from None
        except ValueError:
            raise _Skip("bad path") from None
        return real


def _nav_targets(cmd: str) -> list[str]:
    """latest ``_nav_targets``: operands of ``cd``/``pushd`` that begin a shell segment."""
    import shlex  # issue 8: start-up (only traced commands need it)

    lexer = shlex.shlex(cmd, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return []
    targets: list[str] = []
    segment_start = True
    for idx, token in enumerate(tokens):
        if token in _SHELL_OPERATORS:
            segment_start = True
            continue
        if segment_start and token in _NAV_COMMANDS:
            operand = next((t for t in tokens[idx + 1:] if t in _SHELL_OPERATORS or not t.startswith("-")), None)
            if operand and operand not in _SHELL_OPERATORS:
                targets.append(operand)
        segment_start = False
    return targets


def command_tokens(cmd: str) -> list[str]:
    """``shlex.split(cmd)``, or ``cmd.split()`` when shlex fails (unbalanced quotes)."""
    import shlex  # issue 8: start-up (only traced commands need it)

    try:
        return shlex.split(cmd)
    except ValueError:
        return cmd.split()


def is_home_like(working_dir: str, home: str) -> bool:
    """latest ``_is_home_like_working_dir``."""
    parent = posixpath.dirname(working_dir) or "/"
    if working_dir == home or working_dir in CONTAINER_HOMES or parent in CONTAINER_HOMES:
        return True
    return any(part in HOME_MOUNT_PARTS for part in working_dir.split("/"))


# ---------------------------------------------------------------------------------------------------
# The tracker


class HintTracker:
    """``SubdirectoryHintTracker`` of one Hermes version, on a file system from :mod:`~hermes_audit.hermes.context`.

    ``working_dir`` is resolved like Hermes does; ``home`` is what ``~`` and
    ``Path.home()`` mean (default: this process's). ``enabled=False`` is
    latest's ``skip_context_files`` session. Nothing is written; no FIFO is opened.
    """

    def __init__(
        self,
        working_dir: str | os.PathLike,
        profile: VersionProfile,
        scanner: ThreatScanner,
        fs=None,
        home: Optional[str] = None,
        enabled: bool = True,
    ) -> None:
        self.fs = fs or RealFS()
        self.profile = profile
        self.scanner = scanner
        self.home = home if home is not None else os.path.expanduser("~")
        if isinstance(self.fs, RealFS):
            # Path.home() is absolute for a real user; a relative --home means relative to where we run
            self.home = os.path.abspath(self.home)
        self._resolver = _Resolver(self.fs)
        wd = os.fspath(working_dir)
        wd = os.path.abspath(wd) if isinstance(self.fs, RealFS) else posixpath.normpath(wd)
        self.working_dir = self.fs.realpath(wd)
        self.names = HINT_FILENAMES_LATEST if profile.hint_agents_override else HINT_FILENAMES_019
        self.excluded = EXCLUDED_DIRS[profile.hint_excluded_dirs]
        self.enabled = enabled
        self.loaded: set[str] = {self.working_dir}
        self.digests: set[str] = set()
        #: hint-named FIFOs and character devices seen (skipped: ``is_file()`` is False)
        self.special_files: list[str] = []
        #: hint files refused by ``latest``'s ``_resolved_hint_target`` (see :attr:`HintReport.refused_links`)
        self.refused_links: list[str] = []
        self.home_like = profile.hint_home_guard and is_home_like(self.working_dir, self.home)
        self.calls = 0
        if profile.hint_digest_dedup:
            seed = self._first_hint_content(self.working_dir)
            if seed:
                self.digests.add(_content_digest(seed))

    # -- path extraction --------------------------------------------------------------------------
    def extract_paths(self, tool: str, args: dict) -> list[str]:
        """The raw path strings Hermes considers for a call, in the order it considers them."""
        out: list[str] = []
        for key in PATH_ARG_KEYS:
            val = args.get(key)
            if isinstance(val, str) and val.strip():
                out.append(val)
        cmd = args.get("command", "") if tool in COMMAND_TOOLS else None
        if isinstance(cmd, str):
            if self.profile.hint_nav_targets:
                out.extend(_nav_targets(cmd))
            for token in command_tokens(cmd):
                if token.startswith(("-", "http://", "https://", "git@")):
                    continue
                if "/" not in token and "." not in token:
                    continue
                out.append(token)
        return out

    def _add_candidate(self, raw: str, candidates: set[str]) -> None:
        try:
            # Path(raw) normalises first, then expanduser() looks at the first part
            p = _normalise(_expanduser(_normalise(raw), self.home))
            if not p.startswith("/"):
                p = posixpath.join(self.working_dir, p) if p != "." else self.working_dir
            p = self._resolver.resolve(p)
            if self.profile.hint_exists_first:  # an error other than "absent" drops the path
                t = self._type(p)
                climb = not t == "dir" and (bool(path_suffix(p)) or t == "file")
            else:  # 0.19 checks the suffix first and calls exists() only without one
                climb = bool(path_suffix(p)) or self._type(p) == "file"
            if climb:
                p = posixpath.dirname(p) or "/"
            for _ in range(MAX_ANCESTOR_WALK):
                if p in self.loaded:
                    break
                if self._valid_subdir(p):
                    candidates.add(p)
                parent = posixpath.dirname(p) or "/"
                if parent == p:
                    break
                p = parent
        except _Skip as exc:
            if self.profile.hint_runtime_errors_escape and exc.args and exc.args[0] in _RUNTIME_ERRORS:
                raise _CallFails(f"RuntimeError ({exc.args[0]}) for the path {raw!r}: {self.profile.label} "
                                 "catches only OSError and ValueError, so check_tool_call raises, no hint is "
                                 "appended and the exception reaches the agent's tool executor") from None

    def _type(self, p: str) -> Optional[str]:
        """``stat`` type; an error other than "absent" makes Hermes drop the path (``OSError``)."""
        t = safe_type(self.fs, p)
        if t == "error":
            raise _Skip("stat error")
        return t

    def _valid_subdir(self, p: str) -> bool:
        if safe_type(self.fs, p) != "dir":
            return False
        if p in self.loaded or (not self.profile.hint_outside_working_dir and not is_relative_to(p, self.working_dir)):
            return False
        if self.excluded:
            rel = p[len(self.working_dir):].strip("/")
            if any(part in self.excluded for part in rel.split("/") if part):
                return False
        return True

    def directories_for(self, tool: str, args: dict) -> tuple[list[str], list[str]]:
        """(raw paths, new directories sorted by path) for a call."""
        paths = self.extract_paths(tool, args)
        cands: set[str] = set()
        for raw in paths:
            self._add_candidate(raw, cands)
        return paths, sorted(cands)

    def check_tool_call(self, tool: str, args: dict) -> HintCall:
        """``check_tool_call``: the directories it loads and the text appended (``None`` when nothing)."""
        self.calls += 1
        call = HintCall(self.calls, tool, args)
        if self.profile.hint_home_guard and (not self.enabled or self.home_like):
            call.paths = self.extract_paths(tool, args) if isinstance(args, dict) else []
            return call
        try:
            call.paths, call.directories = self.directories_for(tool, args)
        except _CallFails as exc:
            call.paths, call.error = self.extract_paths(tool, args), str(exc)
            return call
        blocks: list[str] = []
        for d in call.directories:
            h = self.load_directory(d)
            if h is None:
                continue
            call.hints.append(h)
            if h.status == UNPREDICTABLE:
                call.exact = False
                continue
            if h.text is not None:
                blocks.append(h.text)
        if blocks:
            call.text = "\n\n" + "\n\n".join(blocks)
        return call

    # -- loading a directory ----------------------------------------------------------------------
    def _display(self, path: str) -> str:
        if is_relative_to(path, self.working_dir):
            return path[len(self.working_dir):].lstrip("/") if path != self.working_dir else "."
        if is_relative_to(path, self.home):
            return "~/" + path[len(self.home):].lstrip("/")
        return path

    def _target_ok(self, path: str) -> bool:
        """latest ``_resolved_hint_target``: the resolved file stays inside the working directory and is not denied."""
        try:
            real = self._resolver.resolve(path)
        except _Skip:
            return False
        if not is_relative_to(real, self.working_dir):
            return False
        return posixpath.basename(real) not in DENIED_ENV_NAMES

    def _read(self, path: str, outside: bool = False) -> tuple[Optional[Any], Optional[Document], str]:
        """(Hermes text or None, document, why-not). Unknown content -> ``"unpredictable"``. ``outside``: a hint
        of a directory outside the working directory (``profile.hint_outside_working_dir``, 0.13.0-0.14.0), read
        where it is (confined to its own directory: a symlink leaving it is unpredictable)."""
        fs = self.fs
        guard = self.profile.hint_target_guard
        root = None if not guard else self.working_dir
        if outside:
            directory = posixpath.dirname(path)
            if not is_relative_to(fs.realpath(path), directory):
                return None, None, "unpredictable"
            root = directory
        elif not guard:
            real = fs.realpath(path)
            if not is_relative_to(real, self.working_dir):
                return None, None, "unpredictable"
            root = self.working_dir
        rd = fs.read(path, root)
        doc = Document(path=self._display(path), kind=_kind(path), read=rd, abs_path=Path(path))
        if rd.status is ReadStatus.SYMLINK_ESCAPE:
            return None, doc, "unpredictable" if not guard else "outside"
        if not rd.readable:
            if rd.status is ReadStatus.NOT_UTF8:
                return None, doc, "not valid UTF-8: the read raises and Hermes tries the next name"
            return None, doc, f"{rd.detail or rd.status.value}: Hermes tries the next name"
        return hermes_text(rd, self.profile.hint_encoding), doc, ""

    def _first_hint_content(self, directory: str) -> Optional[str]:
        """The stripped text of the first readable hint file (even if empty): latest ``_first_hint_file``,
        0.20.1 ``_seed_working_dir_digest``."""
        for name in self.names:
            p = posixpath.join(directory, name)
            if present_type(self.fs, p, self.working_dir) != "file" or (self.profile.hint_target_guard
                                                                         and not self._target_ok(p)):
                continue
            ht, _doc, why = self._read(p)
            if ht is None:
                continue
            try:
                stripped, _ = strip_text(ht.text)
                return _key_text(stripped)
            except UnknownText:
                return None
        return None

    def load_directory(self, directory: str) -> Optional[Hint]:
        """``_load_hints_for_directory``: the hint of ``directory``, or ``None`` when it has none."""
        self.loaded.add(directory)
        outside = not is_relative_to(directory, self.working_dir)
        if (outside and not self.profile.hint_outside_working_dir) or self.home_like:
            return None
        tried: list[HintCandidate] = []
        for name in self.names:
            p = posixpath.join(directory, name)
            # a dangling link out of the tree is a file where its target exists (round 8, issue 18)
            t = present_type(self.fs, p, self.working_dir)
            if t is None:
                continue
            if t != "file":
                tried.append(HintCandidate(name, "skipped", f"a {t}, not a regular file (is_file() is False)"))
                if t in ("fifo", "chardev"):
                    self.special_files.append(p)
                continue
            if self.profile.hint_target_guard and not self._target_ok(p):
                self.refused_links.append(p)
                tried.append(HintCandidate(name, "skipped", "a symlink to outside the working directory or to a "
                                                            "denied file (.env...); refused"))
                continue
            ht, doc, why = self._read(p, outside)
            if why == "unpredictable":
                real = self.fs.realpath(p)
                here = (" (dangling here: Hermes loads it wherever the target exists)"
                        if dangling_out(self.fs, p, self.working_dir) is not None else "")
                h = Hint(directory, p, self._display(p), name, UNPREDICTABLE, tried=tried, document=doc,
                         detail=f"resolves to {real}, outside the working directory{here}: {self.profile.label} "
                                "follows the link and appends that file; hermes-audit does not read it",
                         escapes_to=real)
                return h
            if ht is None:
                tried.append(HintCandidate(name, "skipped", why))
                continue
            try:
                content, start = strip_text(ht.text)
            except UnknownText as exc:
                return Hint(directory, p, self._display(p), name, UNPREDICTABLE, detail=f"oversized: {exc}",
                            tried=tried, document=doc)
            if not len(content):
                tried.append(HintCandidate(name, "empty", "empty after strip(): Hermes tries the next name"))
                continue
            display = self._display(p)
            if self.profile.hint_digest_dedup:
                dig = _content_digest(_key_text(content))
                if dig in self.digests:
                    return Hint(directory, p, display, name, DUPLICATE, tried=tried, document=doc,
                                content_chars=len(content),
                                detail="same text as a hint already injected (or the working directory's own): "
                                       "Hermes appends nothing for this directory")
                self.digests.add(dig)
            return self._render(directory, p, display, name, ht, content, start, tried, doc)
        return None

    def _render(self, directory: str, path: str, display: str, name: str, ht, content, start: int,
                tried: list[HintCandidate], doc: Document) -> Hint:
        # prompt_builder._scan_context_content: one leading U+FEFF dropped from 0.19.0, scanned up to 0.18.2
        skip = 1 if self.profile.strip_bom_before_scan and startswith(content, "\ufeff") else 0
        body = drop_prefix(content, skip)
        window = slice_text(body, 0, self.scanner.max_scan_chars)
        ids = self.scanner.scan(window, "context")
        h = Hint(directory, path, display, name, LOADED, tried=tried, document=doc, content_chars=len(content),
                 pattern_ids=ids)
        h.entry = FileEntry("hint", name, path, display, name, _kind(path), fs_type="file", read=doc.read, hermes=ht,
                            content=content, content_start=start, scan_skip=skip, status=LOADED, reached=True)
        body_start = start + skip  # offset of body[0] in Hermes' text of the file
        if ids:
            h.status = BLOCKED
            h.detail = f"matches {', '.join(ids)}: the block holds only the [BLOCKED: ...] marker"
            text: Any = blocked_marker(name, ids)
            kept: list[tuple[int, int]] = []
        else:
            text = body
            kept = [(0, len(body))]
        n = len(text)
        tr: Optional[Truncation] = None
        if self.profile.hint_head_tail:
            try:
                tr = truncate_content(text, name, self.profile.hint_max_chars, self.profile, read_path=display,
                                      queue_warning=False)
            except UnknownText as exc:
                h.status, h.detail = UNPREDICTABLE, f"oversized: {exc}"
                return h
        elif n > self.profile.hint_max_chars:
            cap = self.profile.hint_max_chars
            marker = f"\n\n[...truncated {name}: {n:,} chars total]"
            try:
                head = slice_text(text, 0, cap)
            except UnknownText as exc:
                h.status, h.detail = UNPREDICTABLE, f"oversized: {exc}"
                return h
            tr = Truncation(head + marker, n, cap, truncated=True, head_chars=cap, tail_chars=0, marker=marker,
                            omitted=(cap, n), lost_headings=None, silent=True)
        else:
            tr = Truncation(text, n, self.profile.hint_max_chars)
        out_text = tr.text if isinstance(tr.text, str) else None
        if out_text is None:
            h.status, h.detail = UNPREDICTABLE, "part of an oversized file that was not read would be appended"
            return h
        h.truncation = tr
        if kept and tr.truncated:
            if tr.tail_chars:
                kept = [(0, tr.head_chars), (n - tr.tail_chars, n)]
            elif tr.silent:  # 0.19: the head only
                kept = [(0, tr.head_chars)]
            else:  # latest with a cap under 5: Python's text[-0:] keeps everything after the marker
                kept = [(0, n)]
        if ids and tr.truncated:
            h.detail += f"; the marker itself is cut to {self.profile.hint_max_chars:,} characters"
        elif tr.truncated:
            h.status = TRUNCATED
            h.detail = (f"{n:,} characters, over the {self.profile.hint_max_chars:,}-character hint cap: "
                        + ("the first 8,000 are kept and the rest is dropped silently" if not self.profile.hint_head_tail else
                           f"head {tr.head_chars:,} and tail {tr.tail_chars:,} are kept around a marker"))
        h.text = f"[Subdirectory context discovered: {display}]\n{out_text}"
        h.injected = len(h.text)
        if h.entry is not None:
            h.entry.status = h.status
            h.entry.pattern_ids = list(ids)
            h.entry.injected_chars = sum(b - a for a, b in kept)
        if not ids:
            h.kept_content = [(skip + a, skip + b) for a, b in _merge(kept) if b > a]
            raw = ht.raw_offset
            h.kept_ranges = [(raw(body_start + a), raw(body_start + b)) for a, b in _merge(kept) if b > a]
            full = (raw(body_start), raw(body_start + n))
            h.omitted_ranges = _subtract(full, h.kept_ranges)
            scan_end = raw(body_start + min(self.scanner.max_scan_chars, n))
            h.unscanned_injected = [(max(a, scan_end), b) for a, b in h.kept_ranges if b > scan_end]
            if h.omitted_ranges and isinstance(body, str):
                h.lost_headings = [
                    (raw(body_start + hd.offset), hd.text) for hd in markdown_headings(body)
                    if any(a <= raw(body_start + hd.offset) < b for a, b in h.omitted_ranges)
                ]
        return h


def _kind(path: str) -> DocumentKind:
    name = posixpath.basename(path)
    if name == ".cursorrules":
        return DocumentKind.CURSORRULES
    if name.lower().startswith("claude"):
        return DocumentKind.CLAUDE_MD
    return DocumentKind.AGENTS_MD


def _key_text(t: Any) -> Any:
    if isinstance(t, str):
        return t
    return ("long", len(t), tuple(p if isinstance(p, str) else ("gap", p) for p in t.parts))


def _digest(content: str) -> str:
    return sha256(content.encode("utf-8", "surrogatepass")).hexdigest()


def _content_digest(key: Any) -> str:
    """SHA-256 of stripped hint text (latest ``_digest``); for an oversized file only partly read, a key
    built from its length and the parts read (two such files are taken as equal when those agree)."""
    return _digest(key) if isinstance(key, str) else "partial:" + _digest(repr(key))


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def _subtract(whole: tuple[int, int], parts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = whole[0]
    for a, b in _merge(parts):
        if a > pos:
            out.append((pos, min(a, whole[1])))
        pos = max(pos, b)
    if pos < whole[1]:
        out.append((pos, whole[1]))
    return [(a, b) for a, b in out if b > a]


# ---------------------------------------------------------------------------------------------------
# Traces and the worst case


def parse_trace(lines: Iterable[str], source: str = "<trace>") -> list[tuple[str, dict]]:
    """Tool calls from JSON lines ``{"tool": NAME, "args": {...}}`` (blank lines and ``#`` comments skipped).

    Raises :class:`TraceError` naming the line for anything else.
    """
    import json  # issue 8: start-up (only a trace file needs it)

    out: list[tuple[str, dict]] = []
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as exc:
            raise TraceError(f"{source}:{i}: not JSON ({exc.msg})") from None
        except RecursionError:
            raise TraceError(f"{source}:{i}: JSON nested too deeply") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("tool"), str):
            raise TraceError(f'{source}:{i}: expected {{"tool": NAME, "args": {{...}}}}')
        args = obj.get("args", {})
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise TraceError(f"{source}:{i}: 'args' must be an object")
        out.append((obj["tool"], args))
    return out


#: Largest trace file read (bytes).
MAX_TRACE_BYTES = 64 * 1024 * 1024


def read_trace(path: Path) -> list[tuple[str, dict]]:
    """Read and parse a trace file (bounded, never a FIFO). Raises :class:`TraceError` or ``OSError``."""
    res = read_file(path, None, MAX_TRACE_BYTES)
    if res.status is not ReadStatus.OK or res.text is None:
        raise TraceError(f"{path}: {res.detail or res.status.value}")
    return parse_trace(res.text.splitlines(), str(path))


def tree_directories(fs, working_dir: str, profile: VersionProfile, limit: int = MAX_ALL_DIRECTORIES,
                     notes: Optional[list[str]] = None) -> list[str]:
    """Every real directory below ``working_dir`` (symlinks not followed), parents before children.

    ``latest`` never loads hints below a pruned name, so those trees are not
    entered; for 0.19 they are (``node_modules/**/AGENTS.md`` is a hint too).
    """
    out: list[str] = []
    stack = [working_dir]
    while stack:
        d = stack.pop()
        for name, is_dir in sorted(fs.scandir_types(d), reverse=True):
            if not is_dir:
                continue
            if name in EXCLUDED_DIRS[profile.hint_excluded_dirs]:
                continue
            child = posixpath.join(d, name)
            out.append(child)
            if len(out) >= limit:
                if notes is not None:
                    notes.append(f"stopped after {limit:,} directories; the rest of the tree is not simulated")
                return sorted(out, key=lambda p: p.split("/"))
            stack.append(child)
    return sorted(out, key=lambda p: p.split("/"))


def simulate_hints(
    working_dir: str | os.PathLike,
    calls: Sequence[tuple[str, dict]],
    profile: VersionProfile,
    scanner: ThreatScanner,
    *,
    all_dirs: bool = False,
    fs=None,
    home: Optional[str] = None,
    enabled: bool = True,
    max_directories: int = MAX_ALL_DIRECTORIES,
    directories: Optional[Sequence[str]] = None,
    keep_text: bool = True,
) -> HintReport:
    """Run a trace of tool calls through a fresh tracker, or (``all_directories``) the worst case.

    ``calls`` are ``(tool name, args)`` pairs (see :func:`parse_trace`). With
    ``all_dirs`` the calls are ignored and the worst case is simulated: it loads
    every directory below the working directory once, in
    path order (parents first), as if the agent touched each; it is one
    :class:`HintCall` per directory that yields a hint, with tool ``(all)``.
    ``directories`` (absolute, resolved) limits the worst case to those. ``keep_text=False`` (issue 21:
    memory, for :func:`hint_issues` over a whole tree): in the worst case, no hint or call keeps the text
    Hermes appends (``text`` is ``None``, so a call's ``injected`` is 0; a hint's ``injected`` and everything
    else are kept).
    Raises ``ValueError`` when ``working_dir`` is not a directory.
    """
    fs = fs or RealFS()
    wd = os.fspath(working_dir)
    wd_abs = os.path.abspath(wd) if isinstance(fs, RealFS) else posixpath.normpath(wd)
    if safe_type(fs, fs.realpath(wd_abs)) != "dir":
        raise ValueError(f"{working_dir}: not a directory")
    tracker = HintTracker(wd_abs, profile, scanner, fs=fs, home=home, enabled=enabled)
    report = HintReport(tracker.working_dir, profile)
    if profile.hint_home_guard:
        if not enabled:
            report.disabled = "the session skips context files (skip_context_files): hints are off"
        elif tracker.home_like:
            report.disabled = (f"the working directory {tracker.working_dir} is home-like: {profile.label} loads no "
                               "hints until the session adopts a real project directory")
    if all_dirs:
        report.mode = "all"
        if report.disabled is None:
            todo = (sorted(set(directories), key=lambda p: p.split("/")) if directories is not None
                    else tree_directories(fs, tracker.working_dir, profile, max_directories, report.notes))
            for d in todo:
                if d in tracker.loaded or not tracker._valid_subdir(d):
                    continue
                report.visited.append(d)
                h = tracker.load_directory(d)
                if h is None:
                    continue
                tracker.calls += 1
                c = HintCall(tracker.calls, "(all)", {"path": d}, [d], [d], [h])
                if h.status == UNPREDICTABLE:
                    c.exact = False
                elif h.text is not None and keep_text:
                    c.text = "\n\n" + h.text
                if not keep_text:
                    h.text = None
                report.calls.append(c)
        report.special_files = list(tracker.special_files)
        report.refused_links = list(tracker.refused_links)
        report.notes.extend(refused_link_notes(tracker))
        return report
    for tool, args in calls:
        report.calls.append(tracker.check_tool_call(tool, args))
    report.special_files = list(tracker.special_files)
    report.refused_links = list(tracker.refused_links)
    report.notes.extend(refused_link_notes(tracker))
    return report


#: Start of the notes :func:`refused_link_notes` writes (``scan`` reports these links as findings instead).
REFUSED_LINK_NOTE = "refused as a hint: "


def refused_link_notes(tracker: "HintTracker") -> list[str]:
    """One note per hint file ``latest`` refused (``_resolved_hint_target``: symlink target outside the working
    directory or denied), naming the risk that remains: a session started in its directory follows it."""
    out = []
    for p in tracker.refused_links:
        shown = tracker._display(p)
        where = posixpath.dirname(shown) or "."
        out.append(f"{REFUSED_LINK_NOTE}{shown} is a symlink to outside the working directory or to a denied file; "
                   f"a session started in {where}/ still loads its target as a context file (`scan` reports a target "
                   "outside the repository as HA609)")
    return out


def hint_issues(report: HintReport, scanner: ThreatScanner, engine=None) -> list[LoadingIssue]:
    """Loading issues of the hints in ``report`` (rules ``oversized-hint-file``, ``unscanned-injected-*``).

    A hint file that resolves out of the working directory, which Hermes 0.19 follows
    (``agent/subdirectory_hints.py``: ``is_file()`` then ``read_text()``), gives a
    ``context-symlink-escape`` issue. A hint cut by the per-file cap gives one issue at the first character that
    never reaches the model, naming the lost Markdown headings. Kept text past
    Hermes' 65,536-character scan window (possible in ``latest``, whose
    32,000-character cap keeps the file's last 6,400 characters) goes through
    :func:`hermes_audit.hermes.context.unscanned_issues`, with ``engine`` running
    the audit rules over it. Blocked hints are reported by the parity verdict.
    """
    out: list[LoadingIssue] = []
    cap = report.profile.hint_max_chars
    for h in report.hints:
        if h.escapes_to:
            e = FileEntry("hint", h.name, h.path, h.display, h.name, _kind(h.path), fs_type="symlink",
                          read=ReadResult(ReadStatus.SYMLINK_ESCAPE, detail="symlink points outside the scanned tree; "
                                          "not followed", file_type="symlink"),
                          status=UNPREDICTABLE, reason=h.detail, symlink=True, realpath=h.escapes_to)
            here = ("; dangling here, it loads wherever the target exists" if "dangling here" in (h.detail or "")
                    else "")
            out.append(LoadingIssue(
                R_ESCAPE, e, 0, 0,
                f"{h.display} resolves to {h.escapes_to}, outside the working directory{here}; {report.profile.label} "
                f"follows it when the agent enters {posixpath.dirname(h.display) or '.'} and appends that file to "
                "the tool result as a subdirectory hint"))
    for h in report.hints:
        e = h.entry
        if e is None or h.status not in (TRUNCATED,):
            continue
        tr = h.truncation
        assert tr is not None
        first = h.omitted_ranges[0][0] if h.omitted_ranges else 0
        if h.lost_headings:  # point at the first heading the model never sees, not mid-line at the cut (issue 22 QA)
            first = h.lost_headings[0][0]
        heads = [t for _, t in h.lost_headings]
        lost = sum(b - a for a, b in h.omitted_ranges)
        heading_txt = (f"; headings lost: {'; '.join(heads[:20])}" + (" ..." if len(heads) > 20 else "")) if heads else ""
        how = ("keeps the first 8,000 characters and drops the rest without a word in the log" if tr.silent else
               f"keeps {tr.head_chars:,}+{tr.tail_chars:,} characters around a truncation marker")
        out.append(LoadingIssue(
            R_HINT_CUT, e, first, first + 1,
            f"{h.display} is a {h.content_chars:,}-character subdirectory hint; {report.profile.label} caps hints at "
            f"{cap:,} and {how}: {lost:,} characters never reach the model when the agent enters "
            f"{posixpath.dirname(h.display) or '.'}{heading_txt}"))
    for h in report.hints:
        e = h.entry
        if e is None or h.status not in (LOADED, TRUNCATED) or not h.kept_content:
            continue
        out.extend(unscanned_issues(e, h.kept_content, h.kept_content, scanner, cap,
                                    f"{h.display} (subdirectory hint)", engine))
    return out
