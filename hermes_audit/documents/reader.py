"""Reading files from a hostile tree: bounded, never blocking, never following links out.

Rules this module keeps:

* a symlink whose target lies outside the scan root is not followed, nor one among the directories on the
  file's way; the file is opened from the root down through directory descriptors with ``O_NOFOLLOW``
  (:mod:`hermes_audit.documents.beneath`), so a directory swapped for a link during the scan is never
  followed either;
* only regular files are opened (a FIFO, socket or device is never opened for
  reading; the open itself uses ``O_NONBLOCK`` and the type is checked again on
  the descriptor, so a file swapped for a FIFO cannot block us either);
* memory stays bounded: a file larger than ``max_bytes`` is streamed, its
  UTF-8 validity checked to the end, and only a head and a tail are kept (a sparse file's holes are
  counted as the NUL characters they hold, never read);
* nothing is ever written.
"""

from __future__ import annotations

import codecs
import enum
import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from hermes_audit.documents.beneath import (DIR_FD, Changed, LeadsOut, open_directory, open_file, open_in,
                                            resolve_below)

#: Files larger than this many bytes are "oversized": read as head + tail only.
DEFAULT_MAX_BYTES = 16 * 1024 * 1024
#: Characters kept from the start of an oversized file (covers Hermes' 65,536-character
#: scan window and a 500,000-character context cap).
OVERSIZE_HEAD_CHARS = 1_000_000
#: Characters kept from the end of an oversized file (covers the 20 % tail Hermes keeps).
OVERSIZE_TAIL_CHARS = 200_000
#: Files larger than this many bytes are streamed only when their data (holes of a sparse file left out, see
#: :data:`MAX_EXTENTS`) fits this many bytes; others are not read in full: only their first and last bytes
#: are read (the middle is skipped with a seek). Their UTF-8 validity is then checked in the parts read only,
#: ``total_chars`` is an estimate and the tail's place is unknown (the scan calls the run incomplete).
MAX_STREAM_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 20
#: A line start (the start of a dropped piece counts as one) followed by whitespace and ``#``, a backtick
#: or ``~``: a possible Markdown heading or fence (``str.splitlines`` line breaks; ``\s`` is ``str.isspace``).
#: (issue 19: the indentation is whitespace other than a line break, so each try stops at the next line: with
#: ``\s*`` a dropped middle of millions of blank lines took quadratic time; a match that ran over a line break
#: also starts at that later break, so the same texts match)
_MARKUP_LINE = re.compile(r"(?:\A|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029])[^\S\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]*[#`~]")


class ReadStatus(str, enum.Enum):
    OK = "ok"
    NOT_UTF8 = "not-utf8"
    OVERSIZED = "oversized"
    UNREADABLE = "unreadable"      # permission denied or another OS error
    NOT_REGULAR = "not-regular"    # directory, FIFO, socket, device
    SYMLINK_ESCAPE = "symlink-escape"
    SYMLINK_LOOP = "symlink-loop"
    MISSING = "missing"


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class ReadResult:
    """Outcome of reading one file.

    ``text`` is the strict UTF-8 decoding with a BOM kept as U+FEFF (Hermes
    0.19.0 reads with ``encoding="utf-8"``); for an oversized file it is the
    first ``OVERSIZE_HEAD_CHARS`` characters and ``tail`` holds the last
    ``OVERSIZE_TAIL_CHARS``. ``total_chars`` counts the whole file.
    ``detail`` is a one-line human explanation when status is not OK.
    """

    status: ReadStatus
    text: Optional[str] = None
    tail: Optional[str] = None
    size_bytes: int = 0
    total_chars: int = 0
    detail: str = ""
    file_type: str = "file"
    decode_error_offset: Optional[int] = None
    bom: Optional[str] = None  # "utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"
    #: For a file that is not UTF-8: up to 4 bytes from the first invalid one (to name the encoding).
    bad_bytes: Optional[bytes] = None
    #: For a file that is not UTF-8 and is not text at all: what its first bytes say it is (see
    #: :func:`binary_clue`), e.g. ``"binary data: an ELF executable"``; ``None`` when nothing says so.
    binary: Optional[str] = None
    #: Oversized files: where ``tail`` starts in the whole file, as a character offset and a
    #: 1-based line and column (``None`` when the middle was skipped unread and they are unknown).
    tail_start: Optional[int] = None
    tail_line: Optional[int] = None
    tail_column: Optional[int] = None
    #: Oversized files read to the end: True when no line starting in the dropped middle (between
    #: ``text`` and ``tail``) begins, after whitespace, with ``#``, a backtick or ``~`` (so it holds no
    #: Markdown heading or fence); ``None`` when unknown (the middle was skipped unread).
    middle_plain: Optional[bool] = None

    @property
    def readable(self) -> bool:
        return self.status in (ReadStatus.OK, ReadStatus.OVERSIZED)

    def whole_text(self) -> Optional[str]:
        """The file's whole text (BOM kept, newlines untranslated): ``text`` itself when the file was not
        oversized; for an oversized file read to the end whose head and tail overlap or meet, the two
        joined; ``None`` when characters between them were not kept (or nothing was read)."""
        if self.text is None:
            return None
        if self.status is not ReadStatus.OVERSIZED:
            return self.text
        if self.tail is None:
            return None
        missing = self.total_chars - len(self.text)
        if missing <= 0:
            return self.text
        if missing > len(self.tail):
            return None
        return self.text + self.tail[len(self.tail) - missing:]



#: Packed texts (:class:`PackedReadResult`) kept in memory before further ones go to the spill file, in bytes.
SPILL_AFTER_BYTES = 64 * 1024 * 1024


class _Spill:
    """Where packed texts go once :data:`SPILL_AFTER_BYTES` are held: an unnamed temporary file
    (``tempfile.TemporaryFile``: no name on disk on Linux, removed when the process ends), written at the end and
    read with ``pread``. A process made by ``fork`` starts its own. When the file cannot be made or written, texts
    stay in memory."""

    def __init__(self) -> None:
        import _thread

        self.lock = _thread.allocate_lock()  # a scan's results come back on threads (audits/parallel.py)
        self.pid = -1
        self.held = 0  # packed bytes kept in memory
        self.fh = None
        self.end = 0
        self.broken = False

    def put(self, data: bytes):
        """``data`` itself, or a ``(file, offset, length)`` reference to it (a forked process still reads the
        file its parent wrote, through the descriptor it inherited)."""
        with self.lock:
            return self._put(data)

    def _put(self, data: bytes):
        if self.pid != os.getpid():  # first use, or a forked copy: the parent's file is not ours to write
            # (no pwrite/pread, as on Windows: texts stay in memory)
            self.pid, self.held, self.fh, self.end = os.getpid(), 0, None, 0
            self.broken = not (hasattr(os, "pwrite") and hasattr(os, "pread"))
        if self.held + len(data) <= SPILL_AFTER_BYTES or self.broken:
            self.held += len(data)
            return data
        try:
            if self.fh is None:
                import tempfile

                self.fh = tempfile.TemporaryFile(prefix="hermes-audit-")
            os.pwrite(self.fh.fileno(), data, self.end)
        except (OSError, ValueError):
            self.broken = True
            self.held += len(data)
            return data
        ref = (self.fh, self.end, len(data))
        self.end += len(data)
        return ref

    @staticmethod
    def get(ref) -> bytes:
        if isinstance(ref, bytes):
            return ref
        fh, offset, length = ref
        data = os.pread(fh.fileno(), length, offset)
        if len(data) != length:
            raise OSError(f"spilled text cut short ({len(data)} of {length} bytes)")
        return data


_SPILL = _Spill()


def start_packing() -> None:
    """Start a new run of packed texts (``run_scan`` calls it first): the memory allowance
    (:data:`SPILL_AFTER_BYTES`) counts from zero and further spilled texts go to a new file. Texts packed
    before stay readable; the old file goes when the last of them does (a long-lived scan server does not
    grow a file across scans)."""
    with _SPILL.lock:
        _SPILL.pid = -1


def _pack(text: Optional[str]):
    if text is None:
        return None
    import zlib  # issue 8: start-up (a scan of one file never packs)

    # surrogatepass: any str round-trips, also one made from text (Document.from_text) with lone surrogates
    return _SPILL.put(zlib.compress(text.encode("utf-8", "surrogatepass"), 1))


def _unpack(data) -> Optional[str]:
    if data is None:
        return None
    import zlib

    return zlib.decompress(_SPILL.get(data)).decode("utf-8", "surrogatepass")


class PackedReadResult(ReadResult):
    """A :class:`ReadResult` that keeps ``text`` and ``tail`` zlib-compressed (issue 21: memory).

    A tree scan keeps every scanned file's result for the checks across files and the report; packed, a
    file's text costs its compressed UTF-8 size (zlib level 1: about 45 % of its bytes for real context files)
    instead of one to four bytes per character, and once :data:`SPILL_AFTER_BYTES` of packed texts are held,
    it costs no memory: further ones are written to an unnamed temporary file (see :class:`_Spill`). Reading ``text`` or ``tail`` decompresses a new string each time (nothing cached, so
    nothing grows): code that reads it often should hold the string. Equal to the original in every field.
    Made by :func:`pack_read`; pickles like any object (worker processes send it back).
    """

    @property  # type: ignore[override]
    def text(self) -> Optional[str]:  # type: ignore[override]
        return _unpack(self.__dict__["_packed_text"])

    @text.setter
    def text(self, value: Optional[str]) -> None:
        self.__dict__["_packed_text"] = _pack(value)

    @property  # type: ignore[override]
    def tail(self) -> Optional[str]:  # type: ignore[override]
        return _unpack(self.__dict__["_packed_tail"])

    @tail.setter
    def tail(self, value: Optional[str]) -> None:
        self.__dict__["_packed_tail"] = _pack(value)

    def __getstate__(self) -> dict:  # sent to another process: the texts themselves, not places in our file
        state = dict(self.__dict__)
        for k in ("_packed_text", "_packed_tail"):
            if state[k] is not None:
                state[k] = _SPILL.get(state[k])
        return state

    def __setstate__(self, state: dict) -> None:
        for k in ("_packed_text", "_packed_tail"):
            if state.get(k) is not None:
                state[k] = _SPILL.put(state[k])
        self.__dict__.update(state)


def pack_read(read: ReadResult) -> ReadResult:
    """``read`` with its text kept compressed (:class:`PackedReadResult`); ``read`` itself when it holds no
    text or is packed already. The fields are copied: ``read`` is left as it was."""
    if isinstance(read, PackedReadResult) or (read.text is None and read.tail is None):
        return read
    packed = object.__new__(PackedReadResult)
    packed.__dict__.update((k, v) for k, v in read.__dict__.items() if k not in ("text", "tail"))
    packed.text = read.text
    packed.tail = read.tail
    return packed

#: The words messages use for the short names :func:`file_type` gives.
FILE_TYPE_WORDS = {"file": "file", "dir": "directory", "symlink": "symlink", "fifo": "FIFO", "socket": "socket",
                   "chardev": "character device", "blockdev": "block device", "other": "special file"}


def file_type(mode: int) -> str:
    """The short name of the file type in ``mode`` (an ``st_mode``): ``file``, ``dir``, ``symlink`` (only
    from ``lstat``), ``fifo``, ``socket``, ``chardev``, ``blockdev`` or ``other``; :data:`FILE_TYPE_WORDS`
    gives the words for messages."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "chardev"
    if stat.S_ISBLK(mode):
        return "blockdev"
    return "other"


def _file_type(mode: int) -> str:
    return FILE_TYPE_WORDS[file_type(mode)]


def is_within(path: Path, root: Path) -> bool:
    """True when ``path`` equals ``root`` or lies below it (both already resolved)."""
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def in_git_metadata(path: Path, root: Path) -> bool:
    """True when ``path`` (resolved, below ``root``) lies in a ``.git`` directory of the tree: repository
    metadata is not part of the scanned content, and ``.git/config`` holds what ``actions/checkout`` keeps
    there (the job's token in an ``extraheader``). A symbolic link into it is treated as one out of the tree
    (red team, issue 18: ``AGENTS.md -> .git/config`` put the decoded token in a report)."""
    try:
        return ".git" in path.relative_to(root).parts
    except ValueError:
        return False


#: The ``detail`` of a dangling symbolic link that leads out of the scanned tree (:func:`dangling_out`).
DANGLING_OUT_DETAIL = ("symlink points outside the scanned tree (dangling here: its target does not exist on this "
                       "machine); not followed")


def dangling_target(path: os.PathLike | str) -> Optional[str]:
    """Where the symbolic link ``path`` leads (``os.path.realpath`` without ``strict``: the whole chain of links
    resolved, then the missing rest appended) when it names no file here; ``None`` when ``path`` is not a link,
    its target exists, it loops (``ELOOP``) or cannot be checked. Never opens anything."""
    try:
        if not stat.S_ISLNK(os.lstat(path).st_mode):
            return None
        os.stat(path)
        return None  # the target exists
    except (FileNotFoundError, NotADirectoryError):
        pass
    except (OSError, ValueError):
        return None  # a loop, permission denied...
    try:
        return os.path.realpath(path)
    except (OSError, ValueError, RuntimeError):
        return None


def dangling_out(path: os.PathLike | str, root: Optional[os.PathLike | str]) -> Optional[str]:
    """The target of ``path`` (see :func:`dangling_target`) when it is a dangling symbolic link that leads out of
    ``root`` (resolved here) or into a ``.git`` directory of it; ``None`` otherwise (also for ``root=None``).

    Round 8 of issue 18 (red team): ``CLAUDE.md -> /home/runner/.ssh/id_rsa`` dangles on the CI machine but not
    on a user's, where Hermes follows it into the system prompt (``Path.is_file()``/``read_text()`` follow
    links, hermes-agent 0.19.0 ``agent/prompt_builder.py``): it is reported like a link out to a file that
    exists (HA609) and never opened. A dangling link that stays in the tree names a file missing everywhere.
    """
    if root is None:
        return None
    target = dangling_target(path)
    if target is None:
        return None
    try:
        root_real = Path(os.path.realpath(root))
    except (OSError, ValueError, RuntimeError):
        return None
    t = Path(target)
    if not is_within(t, root_real) or in_git_metadata(t, root_real):
        return target
    return None


def path_mode(path: Path, follow_symlinks: bool = False) -> Optional[int]:
    """The ``st_mode`` of ``path`` (``lstat`` unless ``follow_symlinks``), ``None`` when it cannot be
    stat'ed for any reason. Unlike ``Path.is_dir()`` on Python 3.11 it never raises: a path inside a
    directory the user cannot enter (``PermissionError``) is simply not known to be a directory."""
    try:
        return os.stat(path, follow_symlinks=follow_symlinks).st_mode
    except (OSError, ValueError):
        return None


def path_present(path: Path) -> bool:
    """False only when ``lstat`` says ``path`` does not exist (``ENOENT``, ``ENOTDIR``, an empty name);
    a path that cannot be stat'ed for another reason (permission denied on its directory, a name too
    long) counts as present, so the reader reports it as unreadable instead of "no such file"."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: an embedded NUL
        return False
    except OSError:
        return True
    return True


def is_real_dir(path: Path) -> bool:
    """True for a directory that is not a symbolic link (never raises)."""
    mode = path_mode(path)
    return mode is not None and stat.S_ISDIR(mode)


def is_dir_symlink(path: Path) -> bool:
    """True for a symbolic link whose target is a directory (never raises)."""
    mode = path_mode(path)
    if mode is None or not stat.S_ISLNK(mode):
        return False
    target = path_mode(path, follow_symlinks=True)
    return target is not None and stat.S_ISDIR(target)


def _sniff_bom(head: bytes) -> Optional[str]:
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8"
    if head.startswith(codecs.BOM_UTF32_LE) or head.startswith(codecs.BOM_UTF32_BE):
        return "utf-32-le" if head.startswith(codecs.BOM_UTF32_LE) else "utf-32-be"
    if head.startswith(codecs.BOM_UTF16_LE):
        return "utf-16-le"
    if head.startswith(codecs.BOM_UTF16_BE):
        return "utf-16-be"
    return None


#: Targets of Linux's ``/proc/<pid>/fd/N`` links that name no file: a pipe, a socket, an anonymous inode.
_ANONYMOUS_TARGET = re.compile(r"^(pipe|socket|anon_inode):")


def _anonymous_descriptor(path: Path) -> Optional[ReadResult]:
    """``/dev/stdin``, ``/dev/fd/N``, ``/proc/self/fd/N`` when the descriptor is a pipe or socket.

    Their last link names no file (``pipe:[12345]``), so resolving them fails as for a dangling
    symlink, yet ``stat`` through them works. Reported as what they are (``not-regular``, never
    opened); ``None`` when ``path`` is an ordinary dangling symlink.
    """
    try:
        name = os.path.basename(os.path.realpath(path))
        if not _ANONYMOUS_TARGET.match(name):
            return None
        mode = os.stat(path).st_mode  # stat never opens: safe on a pipe nobody writes to
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    kind = _file_type(mode)
    what = "a pipe" if name.startswith("pipe:") else f"a {kind}"
    return ReadResult(ReadStatus.NOT_REGULAR,
                      detail=f"is {what} ({name}: an open descriptor such as standard input), not a regular "
                             "file; never opened (to scan piped text, save it to a file first)", file_type=kind)


def _parent_escape(path: Path, root: Path):
    """A result when a directory on ``path``'s way is a symbolic link that leads out of ``root`` (the file is then
    never opened; only ``stat`` tells a FIFO or device there, as for a link out named like the file itself);
    else :func:`~hermes_audit.documents.beneath.resolve_below`'s ``(root_real, parts, name)`` (``None`` when
    the path cannot be resolved: the checks after this one report it)."""
    try:
        return resolve_below(path, root, resolve_leaf=False)
    except LeadsOut as exc:
        try:
            target_mode = os.stat(path).st_mode  # stat never opens: safe on a FIFO
        except (OSError, ValueError):
            target_mode = stat.S_IFREG
        if not stat.S_ISREG(target_mode):
            kind = _file_type(target_mode)
            return ReadResult(ReadStatus.NOT_REGULAR, detail=f"{exc}, to a {kind}; never opened", file_type=kind)
        return ReadResult(ReadStatus.SYMLINK_ESCAPE, detail=f"{exc}; not followed", file_type="symlink")
    except (OSError, ValueError):
        return None  # the checks below report it
    return None


def check_path(path: Path, root: Optional[Path]) -> Optional[ReadResult]:
    """Pre-open checks: a directory on the way that is a link out of ``root``, existence, symlink escape,
    file type. ``None`` when the path may be opened."""
    if root is not None:
        escape = _parent_escape(path, root)
        if isinstance(escape, ReadResult):
            return escape
    return _check_leaf(path, root)


def _check_leaf(path: Path, root: Optional[Path], dangling: bool = True) -> Optional[ReadResult]:
    """:func:`check_path` without the check of the directories on the way."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return ReadResult(ReadStatus.MISSING, detail="no such file")
    except PermissionError:  # a directory on the way cannot be entered
        return ReadResult(ReadStatus.UNREADABLE, detail="permission denied")
    except OSError as exc:
        return ReadResult(ReadStatus.UNREADABLE, detail=f"cannot stat: {exc.strerror or exc}")
    if stat.S_ISLNK(lst.st_mode):
        try:
            target = Path(os.path.realpath(path, strict=True))
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return ReadResult(ReadStatus.SYMLINK_LOOP, detail="symlink loop; not followed", file_type="symlink")
            anonymous = _anonymous_descriptor(path)
            if anonymous is not None:
                return anonymous
            out = dangling_out(path, root) if dangling else None
            if out is not None:  # the same threat as a link out to a file that exists (round 8, issue 18)
                return ReadResult(ReadStatus.SYMLINK_ESCAPE, detail=DANGLING_OUT_DETAIL, file_type="symlink")
            return ReadResult(ReadStatus.MISSING, detail="dangling symlink; not followed", file_type="symlink")
        except RuntimeError:
            return ReadResult(ReadStatus.SYMLINK_LOOP, detail="symlink loop; not followed", file_type="symlink")
        if root is not None and is_within(target, root) and in_git_metadata(target, root):
            return ReadResult(ReadStatus.SYMLINK_ESCAPE,
                              detail="symlink points into the repository's .git metadata; not followed",
                              file_type="symlink")
        if root is not None and not is_within(target, root):
            try:
                target_mode = os.stat(path).st_mode  # stat never opens: safe on a FIFO
            except OSError:
                target_mode = stat.S_IFREG
            if not stat.S_ISREG(target_mode):  # Hermes' read of it fails (or hangs) wherever it lies
                kind = _file_type(target_mode)
                return ReadResult(ReadStatus.NOT_REGULAR,
                                  detail=f"symlink points outside the scanned tree to a {kind}; never opened",
                                  file_type=kind)
            return ReadResult(
                ReadStatus.SYMLINK_ESCAPE,
                detail="symlink points outside the scanned tree; not followed",
                file_type="symlink",
            )
        try:
            st = os.stat(path)
        except OSError as exc:
            return ReadResult(ReadStatus.UNREADABLE, detail=f"cannot stat: {exc.strerror or exc}")
    else:
        st = lst
    if not stat.S_ISREG(st.st_mode):
        kind = _file_type(st.st_mode)
        return ReadResult(ReadStatus.NOT_REGULAR, detail=f"is a {kind}; never opened", file_type=kind)
    return None


#: Flags of every open for reading: never blocks (a FIFO), never takes a terminal.
READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def read_file(path: Path, root: Optional[Path] = None, max_bytes: int = DEFAULT_MAX_BYTES, *,
              dangling_out: bool = True) -> ReadResult:
    """Read ``path`` safely. Never raises for I/O problems; the status says what happened.

    ``root`` bounds where the file may lie: neither a symbolic link named like the file nor one of the
    directories on its way may lead out of it (``symlink-escape``, never opened), and the file is opened
    from ``root`` down through directory descriptors with ``O_NOFOLLOW``
    (:mod:`hermes_audit.documents.beneath`), so a directory swapped for a link during the scan is
    ``unreadable`` ("changed during the scan"), never followed. ``None`` disables the bound (a path the
    user named outside any scanned tree is read as named).

    A symbolic link out of ``root`` that dangles here is ``symlink-escape`` (:data:`DANGLING_OUT_DETAIL`: a tree
    read here is loaded on other machines, where the target may exist) unless ``dangling_out`` is False (the
    user's own Hermes home, read where Hermes runs: then it is ``missing``, as Hermes finds it).
    """
    resolved = None
    if root is not None:
        resolved = _parent_escape(path, root)
        if isinstance(resolved, ReadResult):
            return resolved
    pre = _check_leaf(path, root, dangling_out)
    if pre is not None:
        return pre
    try:
        if root is None:
            fd = os.open(path, READ_FLAGS)
        elif DIR_FD and resolved is not None and not os.path.islink(path):
            # the directories were resolved above: opened from the root down, the file with O_NOFOLLOW
            root_real, parts, name = resolved
            fd = open_in(open_directory(root_real, parts), name, READ_FLAGS)
        else:  # a symbolic link inside the tree: its target, resolved and opened the same way
            fd = open_file(path, root, READ_FLAGS)
    except LeadsOut as exc:  # the tree changed between the checks and the open
        return ReadResult(ReadStatus.SYMLINK_ESCAPE, detail=f"{exc}; not followed", file_type="symlink")
    except Changed as exc:
        return ReadResult(ReadStatus.UNREADABLE, detail=str(exc))
    except PermissionError:
        return ReadResult(ReadStatus.UNREADABLE, detail="permission denied")
    except OSError as exc:
        return ReadResult(ReadStatus.UNREADABLE, detail=f"cannot open: {exc.strerror or exc}")
    return read_descriptor(fd, max_bytes)


def read_descriptor(fd: int, max_bytes: int = DEFAULT_MAX_BYTES) -> ReadResult:
    """:func:`read_file` of an open descriptor (closed here): a regular file is decoded, anything else is
    ``not-regular`` and not read. Never raises for I/O problems."""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _file_type(st.st_mode)
            return ReadResult(ReadStatus.NOT_REGULAR, detail=f"is a {kind}; not read", file_type=kind)
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            return _decode_stream(fh, st.st_size, max_bytes)
    except OSError as exc:
        return ReadResult(ReadStatus.UNREADABLE, detail=f"read error: {exc.strerror or exc}")
    finally:
        if fd >= 0:
            os.close(fd)


#: Files above :data:`MAX_STREAM_BYTES` are still streamed whole when their data (the bytes outside holes, see
#: :func:`_extents`) fits that many bytes and they have at most :data:`MAX_EXTENTS` data and hole runs: the
#: holes of a sparse file are read as the NUL bytes they hold without reading them (issue 18, item 9).
MAX_EXTENTS = 1024


def _extents(fh, size: int) -> Optional[list[tuple[int, int, bool]]]:
    """The runs of ``fh``'s first ``size`` bytes as ``(offset, length, is_hole)``, from ``SEEK_DATA`` and
    ``SEEK_HOLE`` (Linux, macOS, the BSDs; where the file system does not track holes the whole file is one
    data run). ``None`` when there are more than :data:`MAX_EXTENTS` runs, or no descriptor (an in-memory
    file: one data run then)."""
    try:
        fd = fh.fileno()
    except (AttributeError, OSError, ValueError):
        return [(0, size, False)]
    if not hasattr(os, "SEEK_DATA") or not hasattr(os, "SEEK_HOLE"):
        return [(0, size, False)]
    runs: list[tuple[int, int, bool]] = []
    pos = 0
    try:
        while pos < size:
            if len(runs) > MAX_EXTENTS:
                return None
            try:
                data = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # not supported here: all data
                    return [(0, size, False)]
                data = size  # ENXIO: nothing but a hole up to the end
            data = min(data, size)
            if data > pos:
                runs.append((pos, data - pos, True))
                pos = data
                continue
            hole = min(os.lseek(fd, pos, os.SEEK_HOLE), size)
            if hole <= pos:  # pragma: no cover - a file system answering nonsense: read it all
                return [(0, size, False)]
            runs.append((pos, hole - pos, False))
            pos = hole
    except OSError:
        return [(0, size, False)]
    finally:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
        except OSError:
            pass
    return runs


def _pieces(fh, runs: list[tuple[int, int, bool]]):
    """Bytes chunks of the data runs (the last one read on to the end of the file, which may have grown) and
    ``int`` lengths of the holes, in order."""
    last = len(runs) - 1
    for i, (offset, length, hole) in enumerate(runs):
        if hole:
            yield length
            continue
        fh.seek(offset)
        left = length
        while i == last or left > 0:
            chunk = fh.read(_CHUNK if i == last else min(_CHUNK, left))
            if not chunk:
                break
            left -= len(chunk)
            yield chunk
    if not runs or runs[-1][2]:  # ends in a hole (or is empty): what a growing file added after it
        fh.seek(runs[-1][0] + runs[-1][1] if runs else 0)
        while True:
            chunk = fh.read(_CHUNK)
            if not chunk:
                break
            yield chunk


def _decode_stream(fh, size: int, max_bytes: int) -> ReadResult:
    runs: Optional[list[tuple[int, int, bool]]] = [(0, size, False)]
    if size > MAX_STREAM_BYTES and size > max_bytes:
        runs = _extents(fh, size)
        if runs is None or sum(n for _, n, hole in runs if not hole) > MAX_STREAM_BYTES:
            return _read_head_tail(fh, size)
    if size <= max_bytes:
        data = fh.read(max_bytes + 1)
        if len(data) <= max_bytes:
            return decode_bytes(data)
        # grew while we read: fall through to streaming with what we have
        fh.seek(0)
        runs = [(0, size, False)]
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    head_parts: list[str] = []
    head_len = 0
    tail = ""
    total_chars = 0
    total_bytes = 0
    newlines = 0
    nl_before_tail = -1  # absolute offset of the last "\n" before the kept tail
    middle_plain = True  # no possible heading or fence line in what is dropped between head and tail
    first = True
    bom = None
    head_bytes = b""
    nul_tail = "\0" * OVERSIZE_TAIL_CHARS
    holes = sum(n for _, n, hole in runs if hole)
    for chunk in _split_holes(_pieces(fh, runs), head_parts):
        if isinstance(chunk, int):
            # a long hole: NUL characters, never read. It pushes the whole kept tail into the middle (no
            # line starts in it, no "\n") and becomes the new tail; the first NUL goes through the decoder
            # (a character cut by the hole is an error there)
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(b"\0")
            except UnicodeDecodeError as exc:
                return _not_utf8(max(size, total_bytes), total_bytes - pending + exc.start, bom, b"\0", head_bytes)
            combined_start = total_chars - len(tail)
            j = tail.rfind("\n")
            if j >= 0:
                nl_before_tail = combined_start + j
            if middle_plain and tail is not nul_tail:
                dropped = tail[max(0, OVERSIZE_HEAD_CHARS - combined_start):]
                middle_plain = not (dropped and _MARKUP_LINE.search(dropped))
            tail = nul_tail
            total_chars += chunk
            total_bytes += chunk
            continue
        if first:
            bom = _sniff_bom(chunk[:4])
            head_bytes = chunk[:BINARY_SNIFF_BYTES]
            first = False
        pending = len(decoder.getstate()[0])  # bytes of a character cut by the previous chunk
        try:
            piece = decoder.decode(chunk, final=False)
        except UnicodeDecodeError as exc:
            return _not_utf8(max(size, total_bytes), total_bytes - pending + exc.start, bom,
                             bytes(exc.object[exc.start:exc.start + 4]), head_bytes)
        total_bytes += len(chunk)
        total_chars, tail, head_len, newlines, nl_before_tail, middle_plain = _take(
            piece, total_chars, tail, head_parts, head_len, newlines, nl_before_tail, middle_plain)
    pending = len(decoder.getstate()[0])
    try:
        piece = decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        return _not_utf8(max(size, total_bytes), total_bytes - pending + exc.start, bom,
                         bytes(exc.object[exc.start:exc.start + 4]), head_bytes)
    total_chars, tail, head_len, newlines, nl_before_tail, middle_plain = _take(
        piece, total_chars, tail, head_parts, head_len, newlines, nl_before_tail, middle_plain)
    tail_start = total_chars - len(tail)
    tail_line = newlines - tail.count("\n") + 1
    tail_column = tail_start - nl_before_tail
    return ReadResult(
        ReadStatus.OVERSIZED,
        text="".join(head_parts),
        tail=tail,
        tail_start=tail_start,
        tail_line=tail_line,
        tail_column=tail_column,
        size_bytes=total_bytes,
        total_chars=total_chars,
        detail=_oversized_detail(total_bytes, max_bytes, total_chars) + (
            f"; {holes:,} bytes are holes of a sparse file, counted as the NUL characters they hold without "
            "being read" if holes else ""),
        bom=bom,
        middle_plain=middle_plain,
    )


def _split_holes(pieces, head_parts: list[str]):
    """``pieces`` (:func:`_pieces`) with each hole that the head still needs NULs from, or that is too short
    to replace the whole kept tail, given (in part) as NUL bytes: what is left of a hole as an ``int`` is
    longer than ``OVERSIZE_TAIL_CHARS + 1`` and comes after a full head (``head_parts`` is the head being
    filled)."""
    for piece in pieces:
        if not isinstance(piece, int):
            yield piece
            continue
        n = piece
        need = OVERSIZE_HEAD_CHARS - sum(len(h) for h in head_parts)
        if need > 0:
            k = min(n, need)
            yield b"\0" * k
            n -= k
        if 0 < n <= OVERSIZE_TAIL_CHARS + 1:
            yield b"\0" * n
        elif n > 0:
            yield n


def _take(piece: str, total_chars: int, tail: str, head_parts: list[str], head_len: int, newlines: int,
          nl_before_tail: int, middle_plain: bool) -> tuple[int, str, int, int, int, bool]:
    """One decoded piece of a streamed file: the head filled, the tail kept, the counts updated (returned;
    ``head_parts`` grows in place)."""
    newlines += piece.count("\n")
    combined_start = total_chars - len(tail)
    total_chars += len(piece)
    if head_len < OVERSIZE_HEAD_CHARS:
        take = piece[: OVERSIZE_HEAD_CHARS - head_len]
        head_parts.append(take)
        head_len += len(take)
    combined = tail + piece
    cut = len(combined) - OVERSIZE_TAIL_CHARS
    if cut > 0:
        j = combined.rfind("\n", 0, cut)
        if j >= 0:
            nl_before_tail = combined_start + j
        if middle_plain:
            dropped = combined[max(0, OVERSIZE_HEAD_CHARS - combined_start):cut]
            middle_plain = not (dropped and _MARKUP_LINE.search(dropped))
        combined = combined[cut:]
    return total_chars, combined, head_len, newlines, nl_before_tail, middle_plain


def _oversized_detail(size: int, max_bytes: int, total_chars: int) -> str:
    """What was kept of a streamed file above ``max_bytes`` bytes (``total_chars`` characters in all)."""
    what = f"oversized ({size:,} bytes, over the {max_bytes:,}-byte limit)"
    if total_chars <= OVERSIZE_HEAD_CHARS:
        return f"{what}; read whole (its {total_chars:,} characters fit the {OVERSIZE_HEAD_CHARS:,}-character head)"
    if total_chars <= OVERSIZE_HEAD_CHARS + OVERSIZE_TAIL_CHARS:
        return (f"{what}; read whole (its {total_chars:,} characters are covered by the {OVERSIZE_HEAD_CHARS:,}-"
                f"character head and the {OVERSIZE_TAIL_CHARS:,}-character tail)")
    return (f"{what}; kept a {OVERSIZE_HEAD_CHARS:,}-character head and a {OVERSIZE_TAIL_CHARS:,}-character tail "
            f"of its {total_chars:,} characters")


def _read_head_tail(fh, size: int) -> ReadResult:
    """Read a file above :data:`MAX_STREAM_BYTES`: its first ``4 * OVERSIZE_HEAD_CHARS`` bytes and its
    last ``4 * OVERSIZE_TAIL_CHARS`` bytes (a tail starting inside a character starts at the next one).

    ``total_chars`` counts the characters of both parts plus one per unread byte in between
    (exact for ASCII, an over-estimate otherwise); ``detail`` says so.
    """
    head_bytes = fh.read(4 * OVERSIZE_HEAD_CHARS)
    bom = _sniff_bom(head_bytes[:4])
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    try:
        head = decoder.decode(head_bytes, final=False)
    except UnicodeDecodeError as exc:
        return _not_utf8(size, exc.start, bom, head_bytes[exc.start:exc.start + 4], head_bytes[:BINARY_SNIFF_BYTES])
    pending = len(decoder.getstate()[0])
    head_end = len(head_bytes) - pending
    tail_start = max(head_end, size - 4 * OVERSIZE_TAIL_CHARS)
    fh.seek(tail_start)
    tail_bytes = fh.read(size - tail_start)
    skip = 0
    while skip < min(3, len(tail_bytes)) and 0x80 <= tail_bytes[skip] <= 0xBF:
        skip += 1
    try:
        tail = tail_bytes[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        off = tail_start + skip + exc.start
        return _not_utf8(size, off, bom, tail_bytes[skip + exc.start:skip + exc.start + 4],
                         head_bytes[:BINARY_SNIFF_BYTES])
    middle = max(0, tail_start + skip - head_end)
    total_chars = len(head) + middle + len(tail)
    return ReadResult(
        ReadStatus.OVERSIZED,
        text=head[:OVERSIZE_HEAD_CHARS],
        tail=tail[-OVERSIZE_TAIL_CHARS:],
        size_bytes=size,
        total_chars=total_chars,
        detail=f"oversized ({size:,} bytes); read as a {OVERSIZE_HEAD_CHARS:,}-character head and a "
        f"{OVERSIZE_TAIL_CHARS:,}-character tail; the {middle:,} bytes between them were not read (the "
        "character count assumes one byte per character there)",
        bom=bom,
    )


#: Bytes git inspects to decide that a file is binary (a NUL among them; ``buffer_is_binary`` in git's
#: xdiff-interface.c). hermes-audit uses the same window to call a file that is not UTF-8 binary.
BINARY_SNIFF_BYTES = 8000
#: File signatures (leading bytes) of common binary formats, and the words a message uses for them.
_SIGNATURES = (
    (b"\x7fELF", "an ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
    (b"MZ", "a Windows executable (MZ header)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (or a format built on ZIP: .docx, .jar, .whl...)"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


def binary_clue(head: bytes) -> Optional[str]:
    """What the first bytes of a file that is not UTF-8 say it is, when it is not text.

    ``head`` is the start of the file (at least :data:`BINARY_SNIFF_BYTES` bytes when the file is
    that long). Returns ``"binary data: <format>"`` for a known signature (ELF, Mach-O, PE, PNG,
    GIF, JPEG, PDF, ZIP, gzip, SQLite; ``MZ`` only with a NUL byte, as it is also plain text);
    ``"UTF-16-LE text without a byte-order mark ..."`` (or ``-BE``) when NULs sit at nearly every odd
    (even) position and almost never at the others; ``"binary data: NUL bytes from byte N"`` for any
    other NUL in the first :data:`BINARY_SNIFF_BYTES` bytes (git's binary test); else ``None`` (the
    file is more likely text in a legacy encoding, or UTF-16/UTF-32 text with a byte-order mark,
    which the mark names). Byte offsets are 0-based.
    """
    if _sniff_bom(head[:4]) not in (None, "utf-8"):
        return None  # UTF-16 or UTF-32 text that says so: named from its byte-order mark instead
    sniff = head[:BINARY_SNIFF_BYTES]
    first_nul = sniff.find(b"\x00")
    for magic, what in _SIGNATURES:
        if sniff.startswith(magic) and (magic != b"MZ" or first_nul >= 0):
            return f"binary data: {what}"
    if first_nul < 0:
        return None
    if len(sniff) >= 8:
        even, odd = sniff[0::2], sniff[1::2]
        even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
        if odd_nul >= 0.4 and even_nul <= 0.05:
            return "UTF-16-LE text without a byte-order mark (every other byte is NUL)"
        if even_nul >= 0.4 and odd_nul <= 0.05:
            return "UTF-16-BE text without a byte-order mark (every other byte is NUL)"
    return f"binary data: NUL bytes from byte {first_nul:,}"


def _not_utf8(size: int, offset: int, bom: Optional[str], bad: bytes, head: bytes) -> ReadResult:
    """The result for a file whose strict UTF-8 decoding fails at byte ``offset``; ``head`` is its start."""
    binary = binary_clue(head)
    detail = f"not valid UTF-8 (first bad byte at offset {offset})"
    if bom and bom != "utf-8":
        detail += f"; starts with a {bom.upper()} byte-order mark"
    elif binary:
        detail += f"; {binary}"
    return ReadResult(ReadStatus.NOT_UTF8, size_bytes=size, detail=detail, decode_error_offset=offset, bom=bom,
                      bad_bytes=bad, binary=binary)


def decode_bytes(data: bytes) -> ReadResult:
    """Decode an in-memory file the way Hermes 0.19.0 does (strict UTF-8, BOM kept)."""
    bom = _sniff_bom(data[:4])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _not_utf8(len(data), exc.start, bom, data[exc.start:exc.start + 4], data[:BINARY_SNIFF_BYTES])
    return ReadResult(ReadStatus.OK, text=text, size_bytes=len(data), total_chars=len(text), bom=bom)
