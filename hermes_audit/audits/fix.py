"""``scan --fix``: remove what can be removed without changing what a reader sees.

What is removed (each decided by the same detectors that report it):

* tag-character runs that hide text (``tag-character-smuggling``); emoji tag
  sequences such as the flag of Scotland are kept;
* variation-selector runs used as a byte channel (``variation-selector-smuggling``);
* zero-width binary payloads (``zero-width-encoding``);
* bidi embedding, override and isolate controls (``bidi-control``);
* stray invisible characters (``invisible-character``): zero-width spaces,
  joiners where no script needs them, word joiners, soft hyphens, a BOM after
  the start of the file. Blank letters (U+3164 HANGUL FILLER and the like)
  render as a space and are replaced by one;
* with ``hermes_blocking=True`` (``--fix-hermes-blocking``) also the
  legitimate invisible characters that the chosen Hermes version still blocks
  a file for, such as the zero-width joiner inside an emoji sequence (the
  emoji then shows as its parts) or the Persian zero-width non-joiner, and,
  for a version that scans a leading byte-order mark as text and blocks the
  file for it (0.15.0-0.18.2), that byte-order mark.

Nothing else is touched: line endings, the leading byte-order mark (but see above) and every
other character stay byte-for-byte the same, and the file is written back as
UTF-8 (the only encoding Hermes reads). Writes are atomic (a temporary file in
the same directory, then ``os.replace``) and keep the file's permission bits.
A file is re-read just before writing and left alone if it changed since it
was scanned, if it is a symlink, or if it was not read completely. The check,
the re-read and the write happen relative to one descriptor of the file's
directory, reached from the scanned root without following a symbolic link,
so a fix never writes outside the scanned tree (issue 18, item 7).
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from hermes_audit.atomic import atomic_write_bytes
from hermes_audit.documents.document import Document
from hermes_audit.documents.reader import ReadStatus, read_file
from hermes_audit.engine import detectors as det
from hermes_audit.engine import unicode_chars as uc
from hermes_audit.atomic import OutsideRoot, write_at
from hermes_audit.documents.beneath import Changed, DIR_FD, LeadsOut, open_parent
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES, READ_FLAGS, read_descriptor
from hermes_audit.engine.unicode_chars import safe_path


class FixError(Exception):
    """A fix could not be written; the message names the file and the reason (one line)."""


@dataclass
class Edit:
    """Replace ``text[start:end]`` with ``replacement`` (usually ``""``); ``reason`` names the rule."""

    start: int
    end: int
    replacement: str
    reason: str


@dataclass
class FixPlan:
    """The fix of one file: its text before and after, and the edits between them."""

    path: str
    abs_path: Optional[Path]
    original: str
    fixed: str
    edits: list[Edit] = field(default_factory=list)
    #: The directory the file was read below (``Document.root``); :func:`write_plan` writes below it.
    root: Optional[Path] = None

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    @property
    def removed_chars(self) -> int:
        return sum(e.end - e.start for e in self.edits)


#: Passes of :func:`plan_edits` at most (each pass can only remove characters, so this is never reached
#: in practice; it bounds the work on a hostile file).
MAX_FIX_PASSES = 8


def plan_edits(text: str, hermes_invisible: Optional[Iterable[str]] = None, keep_leading_bom: bool = True) -> list[Edit]:
    """Edits that clean ``text`` (sorted, non-overlapping), in ``text``'s offsets.

    ``hermes_invisible`` is the invisible-character set of the Hermes version
    whose blocking should be avoided; when given, legitimate invisible
    characters in it are removed too, and with ``keep_leading_bom=False`` a
    byte-order mark at the start as well (see :func:`plan_for_document`).

    Removing characters can make a new run: variation selectors separated by
    zero-width spaces become one payload once the spaces go. The plan is
    therefore repeated on its own result until nothing is left to fix, so
    that a second ``--fix`` never changes anything (issue 9).
    """
    invisible = frozenset(hermes_invisible) if hermes_invisible else None
    per_char: dict[int, Edit] = {}
    origin = list(range(len(text)))  # offset in the current text -> offset in ``text``
    current = text
    for _ in range(MAX_FIX_PASSES):
        edits = _plan_once(current, invisible, keep_leading_bom)
        if not edits:
            break
        for e in edits:
            for i in range(e.start, e.end):
                o = origin[i]
                per_char[o] = Edit(o, o + 1, e.replacement, e.reason)
        current = apply_edits(current, edits)
        dropped = {i for e in edits if not e.replacement for i in range(e.start, e.end)}
        origin = [o for i, o in enumerate(origin) if i not in dropped]
    return _merge(per_char)


def _merge(per_char: dict[int, Edit]) -> list[Edit]:
    out: list[Edit] = []
    for i in sorted(per_char):
        e = per_char[i]
        if out and out[-1].end == e.start and out[-1].reason == e.reason and not e.replacement and not out[-1].replacement:
            out[-1].end = e.end
        else:
            out.append(Edit(e.start, e.end, e.replacement, e.reason))
    return out


def _plan_once(text: str, hermes_invisible: Optional[Iterable[str]] = None, keep_leading_bom: bool = True) -> list[Edit]:
    """One pass of :func:`plan_edits`: what the detectors report in ``text`` as it is."""
    edits: dict[int, Edit] = {}

    def drop(s: int, e: int, reason: str) -> None:
        for i in range(s, e):
            if i not in edits:
                ch = text[i]
                rep = " " if ch in uc.BLANK_LETTERS else ""
                edits[i] = Edit(i, i + 1, rep, reason)

    for h in det.detect_tags(text, {}):
        drop(h.start, h.end, "tag-character-smuggling")
    for h in det.detect_variation_selectors(text, {}):
        drop(h.start, h.end, "variation-selector-smuggling")
    for h in det.detect_zero_width_encoding(text, {}):
        drop(h.start, h.end, "zero-width-encoding")
    for h in det.detect_bidi(text, {}):
        drop(h.start, h.end, "bidi-control")
    for h in det.detect_invisible(text, {"mode": "suspicious"}):
        drop(h.start, h.end, "invisible-character")
    if hermes_invisible:
        blocked = set(hermes_invisible)
        for h in det.detect_invisible(text, {"mode": "legitimate"}):
            for i in range(h.start, h.end):
                if text[i] in blocked and not (i == 0 and text[i] == "\ufeff" and keep_leading_bom):
                    drop(i, i + 1, "benign-invisible-character (Hermes blocks it)")
    return _merge(edits)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` (sorted, non-overlapping) applied."""
    parts: list[str] = []
    pos = 0
    for e in edits:
        parts.append(text[pos:e.start])
        parts.append(e.replacement)
        pos = e.end
    parts.append(text[pos:])
    return "".join(parts)


def plan_for_document(doc: Document, hermes_invisible: Optional[Iterable[str]] = None,
                      keep_leading_bom: bool = True) -> Optional[FixPlan]:
    """The fix for ``doc``, or ``None`` when it needs none or cannot be fixed (not read completely).

    ``keep_leading_bom=False`` (with ``hermes_invisible``) also removes a byte-order mark at the start of
    the file: for a Hermes version that scans it as text and blocks the file for it (the profile switch
    ``strip_bom_before_scan`` is false: 0.15.0-0.18.2, agent/prompt_builder.py ``_scan_context_content``)."""
    if doc.read.status is not ReadStatus.OK or doc.text is None:
        return None
    edits = plan_edits(doc.text, hermes_invisible, keep_leading_bom)
    if not edits:
        return None
    return FixPlan(doc.path, doc.abs_path, doc.text, apply_edits(doc.text, edits), edits, doc.root)


def _visible(line: str) -> str:
    """A diff line with invisible characters shown as ``<U+XXXX>`` so the change can be seen.

    Control characters are shown the same way (a terminal escape sequence or a lone ``\r`` in
    the file cannot act on the terminal that shows the diff); only the line's own ``\n`` (or
    ``\r\n``) and tabs stay as they are.
    """
    import unicodedata

    out = []
    last = len(line) - 1
    for i, ch in enumerate(line):
        if ch == "\n" and i == last or ch == "\t":
            out.append(ch)
        elif ch == "\r" and i == last - 1 and line.endswith("\r\n"):
            out.append(ch)
        elif (uc.is_invisible(ch) or uc.is_tag(ch) or uc.is_variation_selector(ch) or ch in uc.BIDI_MARKS
              or ch in uc.BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")):
            out.append(f"<U+{ord(ch):04X}>")
        else:
            out.append(ch)
    return "".join(out)


def _lines(text: str) -> list[str]:
    """``text`` split after each ``\n`` only (``str.splitlines`` would also split at form feeds,
    U+2028 and other characters, which are shown escaped instead)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _diff_name(side: str, path: str) -> str:
    return f"{side}{path}" if path.startswith("/") else f"{side}/{path}"


def unified_diff(plan: FixPlan) -> str:
    """A unified diff of the plan, invisible characters written as ``<U+XXXX>``."""
    a = [_visible(x) for x in _lines(plan.original)]
    b = [_visible(x) for x in _lines(plan.fixed)]
    name = safe_path(plan.path)
    lines = list(difflib.unified_diff(a, b, fromfile=_diff_name("a", name), tofile=_diff_name("b", name)))
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)


def _shown(path: str) -> str:
    return safe_path(path)


def write_plan(plan: FixPlan, root: Optional[Path] = None) -> None:
    """Write ``plan.fixed`` over the file, atomically. Raises :class:`FixError` (one line) and leaves
    the file untouched when it is a symlink, changed since the scan, or cannot be written.

    ``root`` (default ``plan.root``, the directory the file was read below): the file's directory is
    opened from it down without following a symbolic link (:mod:`hermes_audit.documents.beneath`), and
    the check, the re-read and the write all happen relative to that one directory descriptor, so a
    directory on the way that is (or becomes, during the fix) a link out of the tree is never written
    through (issue 18, item 7). ``None``: the directory is opened as named.
    """
    if plan.abs_path is None:
        raise FixError(f"{_shown(plan.path)}: no file to write")
    root = root if root is not None else plan.root

    if not DIR_FD:
        _write_plan_by_name(plan, root)
        return

    try:
        dfd, name = open_parent(plan.abs_path, root, resolve_leaf=False)
    except (LeadsOut, Changed) as exc:
        raise FixError(f"{_shown(plan.path)}: {exc}; not fixed") from None
    except OSError as exc:
        raise FixError(f"{_shown(plan.path)}: cannot open its directory: {exc.strerror or exc}") from None
    try:
        st = _fixable_stat(plan, lambda: os.stat(name, dir_fd=dfd, follow_symlinks=False))
        try:
            fd = os.open(name, READ_FLAGS | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=dfd)
        except OSError:
            raise FixError(f"{_shown(plan.path)}: changed since it was scanned; not fixed") from None
        again = read_descriptor(fd, max(DEFAULT_MAX_BYTES, 4 * len(plan.original) + 4))
        if again.status is not ReadStatus.OK or again.text != plan.original:
            raise FixError(f"{_shown(plan.path)}: changed since it was scanned; not fixed")
        try:
            write_at(dfd, name, plan.fixed.encode("utf-8", "surrogatepass"), stat.S_IMODE(st.st_mode))
        except OSError as exc:
            raise FixError(f"{_shown(plan.path)}: cannot write: {exc.strerror or exc}") from None
    finally:
        os.close(dfd)


def _fixable_stat(plan: FixPlan, lstat) -> os.stat_result:
    """``lstat()`` of the file a plan rewrites, which must be a regular file (not a link). Raises :class:`FixError`."""
    try:
        st = lstat()
    except OSError as exc:
        raise FixError(f"{_shown(plan.path)}: cannot stat: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise FixError(f"{_shown(plan.path)}: is a symlink; not fixed")
    if not stat.S_ISREG(st.st_mode):
        raise FixError(f"{_shown(plan.path)}: not a regular file; not fixed")
    return st


def _write_plan_by_name(plan: FixPlan, root: Optional[Path]) -> None:
    """:func:`write_plan` where directory descriptors are not supported (Windows): the path is checked and
    written by name (a link out is refused; a swap between the check and the write is not caught)."""
    path = Path(plan.abs_path)
    st = _fixable_stat(plan, lambda: os.lstat(path))
    again = read_file(path, root)
    if again.status is not ReadStatus.OK or again.text != plan.original:
        raise FixError(f"{_shown(plan.path)}: changed since it was scanned; not fixed")
    data = plan.fixed.encode("utf-8", "surrogatepass")
    try:
        atomic_write_bytes(path, data, mode=stat.S_IMODE(st.st_mode), root=root)
    except OutsideRoot as exc:
        raise FixError(f"{_shown(plan.path)}: {exc.strerror}; not fixed") from None
    except OSError as exc:
        raise FixError(f"{_shown(plan.path)}: cannot write: {exc.strerror or exc}") from None
