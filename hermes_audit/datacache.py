"""A small on-disk cache of derived data, for start-up time (issue 8).

Some data hermes-audit needs is expensive to derive but depends only on files
that ship with it: the validated rule catalog, the keyword prefilters of its
patterns, the compiled form of its ``regex`` patterns, the UTS #39 confusables
table. Each is stored once as JSON under :func:`cache_dir` and found again by
a digest of everything it was derived from (the input files' bytes, the code
that derives it, the versions of Python and of the libraries involved), so a
stale entry is never used: a changed input gives a different digest.

* Never anything from the scanned repository: the cache holds only data
  derived from hermes-audit's own files, in the user's cache directory.
* JSON only (no pickle, no code); an entry that does not parse, or whose
  embedded digest differs, is ignored.
* Writes are atomic (temporary file + ``os.replace``); any failure to read or
  write is silent and only costs time. At most :data:`KEEP_PER_KIND` entries
  of one kind are kept.
* ``HERMES_AUDIT_NO_CACHE=1`` disables it; ``HERMES_AUDIT_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Iterable, Optional

#: Entries of one kind kept on disk (older ones are removed when a new one is written).
KEEP_PER_KIND = 4
#: Largest entry read (bytes).
MAX_ENTRY_BYTES = 64 * 1024 * 1024


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
    h = hashlib.sha256(sys.version.encode() + b"\0")
    for p in parts:
        b = p if isinstance(p, bytes) else str(p).encode("utf-8", "surrogatepass")
        h.update(str(len(b)).encode() + b"\0" + b)
    return h.hexdigest()


def _path(kind: str, key: str) -> Optional[Path]:
    d = cache_dir()
    return None if d is None else d / f"{kind}-{key[:32]}.json"


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
        entry = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or entry.get("key") != key:
        return None
    return entry.get("data")


def write(kind: str, key: str, data: Any) -> bool:
    """Store ``data`` (JSON-serialisable) for ``(kind, key)`` atomically. False when it could not."""
    path = _path(kind, key)
    if path is None:
        return False
    try:
        body = json.dumps({"key": key, "data": data}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        from hermes_audit.atomic import atomic_write_bytes

        atomic_write_bytes(path, body, mode=0o600, create_parents=True)
        _prune(path.parent, kind, keep=path)
        return True
    except (OSError, ValueError, TypeError, RecursionError):
        return False


def _prune(d: Path, kind: str, keep: Path) -> None:
    try:
        entries = sorted((p for p in d.glob(f"{kind}-*.json") if p != keep),
                         key=lambda p: p.stat().st_mtime, reverse=True)
        for old in entries[KEEP_PER_KIND - 1:]:
            with contextlib.suppress(OSError):
                old.unlink()
    except OSError:
        return
