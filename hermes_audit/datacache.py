"""A small on-disk cache of derived data, for start-up time (issue 8).

Some data hermes-audit needs is expensive to derive but depends only on files
that ship with it: the validated rule catalog, the keyword prefilters of its
patterns, the compiled form of its ``regex`` patterns, the UTS #39 confusables
table. Each is stored once under :func:`cache_dir` and found again by a
SHA-256 digest of everything it was derived from (the input files' bytes, the
code that derives it, the versions of Python and of the libraries involved),
so a stale entry is never used: a changed input gives a different digest.

* The rule catalog and the confusables table are also found by a cheap key (``catalogkey`` and
  ``confusableskey`` entries, :func:`stat_key`): a digest of the input and code files' size, modification
  time, change time and inode, mapping to the content digest of the entry
  (``hermes_audit.patterns.catalog._stat_key``, ``hermes_audit.engine.deobfuscate.confusable_prototypes``),
  so unchanged files are not read or hashed. Any change to a file changes its change time: the cheap key
  misses and the content is hashed in full.
* Never anything from the scanned repository: the cache holds only data
  derived from hermes-audit's own files, in the user's cache directory.
* Entries are written with :mod:`marshal` (format version
  :data:`MARSHAL_VERSION`): plain data only (``None``, ``bool``, ``int``,
  ``float``, ``str``, ``bytes``, ``list``, ``tuple``, ``dict``, ``set``,
  ``frozenset``); never pickle, and loading an entry runs no code. Reading one
  is about three times faster than parsing the same data as JSON (issue 8:
  the catalog entry is about 1 MB). The Python version is part of every
  digest, so an entry is only read by the interpreter version that wrote it.
  An entry that does not load (truncated, corrupt, another format), is not
  a mapping, or whose embedded digest differs, is ignored: a miss.
* Writes are atomic (temporary file + ``os.replace``); any failure to read or
  write is silent and only costs time. At most :data:`KEEP_PER_KIND` entries
  of one kind are kept.
* ``HERMES_AUDIT_NO_CACHE=1`` disables it; ``HERMES_AUDIT_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Optional
from hermes_audit.findings import sha256

#: Entries of one kind kept on disk (older ones are removed when a new one is written).
KEEP_PER_KIND = 4
#: Largest entry read (bytes).
MAX_ENTRY_BYTES = 64 * 1024 * 1024
#: :mod:`marshal` format written (4: Python 3.4+).
MARSHAL_VERSION = 4
#: File name suffix of an entry (``<kind>-<digest prefix>.marshal``).
SUFFIX = ".marshal"
#: Suffixes of entries older versions wrote; removed when a new entry of their kind is written.
_OLD_SUFFIXES = (".json",)


def cache_dir() -> Optional[Path]:
    """``$HERMES_AUDIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/hermes-audit``, else ``~/.cache/hermes-audit``;
    ``None`` when ``$HERMES_AUDIT_NO_CACHE`` is set to anything but ``0`` or empty."""
    if os.environ.get("HERMES_AUDIT_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("HERMES_AUDIT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "hermes-audit"


def digest(parts: Iterable[Any]) -> str:
    """SHA-256 over ``parts`` (bytes as they are, anything else as its ``str``) plus the Python version."""
    h = sha256(sys.version.encode() + b"\0")
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8", "surrogatepass")
        h.update(str(len(b)).encode() + b"\0" + b)
    return h.hexdigest()


def file_signature(path: Any) -> str:
    """``size:mtime_ns:ctime_ns:inode:device`` of ``path``, or ``?`` when it cannot be stat'ed. Writing a file
    changes its change time (ctime), which no user-space call sets back, so an unchanged signature means
    unchanged bytes (issue 8: cheap keys, see :func:`stat_key`)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "?"
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{st.st_dev}"


def stat_key(parts: Iterable[Any], paths: Iterable[Any]) -> Optional[str]:
    """A cheap key (issue 8: start-up time): :func:`digest` of ``parts`` (versions and the like) and of each of
    ``paths`` with its :func:`file_signature`, reading none of the files. It is meant to name, in a
    ``<kind>key`` entry (:func:`read_by_stat_key`), the content digest of an entry derived from those files:
    when any file is rewritten its signature changes, the cheap key misses, and the caller hashes the content
    in full). ``None`` when a file cannot be stat'ed: no cheap key, the caller reads and hashes as before."""
    out: list = ["stat", *parts]
    for p in paths:
        sig = file_signature(p)
        if sig == "?":
            return None
        out += [str(p), sig]
    return digest(out)


def read_stat_key(kind: str, quick: Optional[str]) -> Optional[str]:
    """The content digest the ``<kind>key`` entry of cheap key ``quick`` (:func:`stat_key`) names, or ``None``."""
    content = None if quick is None else read(kind + "key", quick)
    return content if isinstance(content, str) else None


def read_by_stat_key(kind: str, quick: Optional[str]) -> Optional[Any]:
    """The data of the ``kind`` entry whose content digest the cheap key ``quick`` names
    (:func:`read_stat_key`, :func:`write_stat_key`), or ``None``."""
    content = read_stat_key(kind, quick)
    return None if content is None else read(kind, content)


def write_stat_key(kind: str, quick: Optional[str], content: str) -> bool:
    """Record that the cheap key ``quick`` names the ``kind`` entry of content digest ``content`` (False when
    ``quick`` is ``None`` or the entry could not be written)."""
    return False if quick is None else write(kind + "key", quick, content)


def _path(kind: str, key: str) -> Optional[Path]:
    d = cache_dir()
    return None if d is None else d / f"{kind}-{key[:32]}{SUFFIX}"


def read(kind: str, key: str) -> Optional[Any]:
    """The data stored for ``(kind, key)``, or ``None`` (absent, unreadable, or another key)."""
    path = _path(kind, key)
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_ENTRY_BYTES + 1)
        if len(raw) > MAX_ENTRY_BYTES:
            return None
        entry = marshal.loads(raw)
    except Exception:  # OSError, or any error marshal raises on a damaged entry: a miss
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry.get("data")


def write(kind: str, key: str, data: Any) -> bool:
    """Store ``data`` (plain data :mod:`marshal` can write, see above) for ``(kind, key)`` atomically.
    False when it could not (e.g. ``data`` holds another type)."""
    path = _path(kind, key)
    if path is None:
        return False
    try:
        body = marshal.dumps({"key": key, "data": data}, MARSHAL_VERSION)
        # start-up time: atomic writes, when the cache is written (a miss) only
        from hermes_audit.atomic import atomic_write_bytes

        atomic_write_bytes(path, body, mode=0o600, create_parents=True)
        _prune(path.parent, kind, keep=path)
        return True
    except (OSError, ValueError, TypeError, RecursionError):
        return False


def _prune(d: Path, kind: str, keep: Path) -> None:
    try:
        for suffix in _OLD_SUFFIXES:
            for old in d.glob(f"{kind}-*{suffix}"):
                with contextlib.suppress(OSError):
                    old.unlink()
        entries = sorted((p for p in d.glob(f"{kind}-*{SUFFIX}") if p != keep),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP_PER_KIND - 1:]:
            with contextlib.suppress(OSError):
                old.unlink()
    except OSError:
        return
