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

from typing import Optional, Sequence

try:  # BLAKE2 without loading OpenSSL (issue 8: start-up time), as hermes_audit.findings does for SHA-256
    from _blake2 import blake2b as _blake2b  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - other interpreters
    from hashlib import blake2b as _blake2b

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind, case_variant, exact_kind, fold_places
from hermes_audit.documents.reader import ReadStatus
from hermes_audit.hermes.outcomes import (
    BLOCKED, LOADED, SKIPPED, WARNED, HermesVerdict, LocatedHit, ScanUnit, blocked_marker, context_scan_unit,
    soul_is_user_authored, unreadable_consequence,
)
from hermes_audit.hermes.profiles import VersionProfile
from hermes_audit.hermes.threats import ParityHit, ThreatScanner


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


def _locate(scanner: ThreatScanner, unit: ScanUnit, scope: str) -> list[LocatedHit]:
    out = []
    for h in scanner.locate(unit.text, scope):
        s, e = unit.offset + h.start, unit.offset + h.end
        if unit.to_raw is not None:
            s, e = unit.to_raw(s), unit.to_raw(max(e - 1, s)) + 1
        out.append(LocatedHit(h, s, e, unit.label))
    return out


def verdict_for(
    doc: Document,
    scanner: ThreatScanner,
    profile: VersionProfile,
    soul_manifest: Optional[dict] = None,
) -> HermesVerdict:
    """Hermes' verdict for ``doc`` read on its own as its kind.

    ``soul_manifest`` describes a ``distribution.yaml`` next to a SOUL.md (see
    :func:`soul_is_user_authored`); it only matters for the ``latest`` profile.

    A file whose name matches a Hermes name only when case is ignored (``Agents.md``, ``.Cursor/rules/x.mdc``:
    :func:`~hermes_audit.documents.kinds.case_variant`) is ``skipped`` (Hermes opens fixed names,
    ``cwd_path / "AGENTS.md"``, hermes-agent 0.19.0 ``agent/prompt_builder.py``, so on Linux it never reads it),
    the message saying what it does on case-insensitive file systems (macOS, Windows), where that open finds
    this file (round 8 of issue 18).
    """
    verdict = _verdict_for(doc, scanner, profile, soul_manifest)
    place = _case_variant_place(doc)
    if place is None:
        return verdict
    if verdict.status == BLOCKED:
        there = f"Hermes' scanner blocks it ({', '.join(verdict.pattern_ids)})"
    elif verdict.status == WARNED:
        there = "it loads with a warning"
    elif verdict.status == SKIPPED:
        there = f"it is skipped ({verdict.message})"
    else:
        there = "it loads"
    return HermesVerdict(SKIPPED, message=(
        f"not loaded on a case-sensitive file system (Linux): Hermes opens fixed names and this one differs "
        f"only in case{'' if doc.path.isascii() and not doc.path.endswith(('.', ' ')) else ' (or in what such a file system folds or drops)'}; "
        f"loaded on case-insensitive file systems ({place}), where the open finds this file: "
        f"there {there}"))


def _case_variant_place(doc: Document) -> Optional[str]:
    """Where a case variant of a name Hermes reads opens as that name (:func:`~hermes_audit.documents.kinds.fold_places`):
    ``"macOS, Windows"``, ``"macOS"`` (a Kelvin sign or a ligature only Unicode case folding maps), ``"Windows"``
    (a ``.mdc`` suffix in other case: ``Path.glob`` compares names case-sensitively on macOS; a trailing dot or
    space); ``None`` when ``doc`` is no case variant."""
    path = doc.path.replace("\\", "/")
    if exact_kind(path) is None and doc.abs_path is not None and not case_variant(path):
        path = doc.abs_path.as_posix()  # a scan of .cursor/rules itself: the kind comes from the full path
    if not case_variant(path):
        return None
    return ", ".join(fold_places(path)) or None


def _verdict_for(
    doc: Document,
    scanner: ThreatScanner,
    profile: VersionProfile,
    soul_manifest: Optional[dict] = None,
) -> HermesVerdict:
    """:func:`verdict_for` by kind alone, as if Hermes opened ``doc`` under its exact name."""
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
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
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
    scope, so a text scanned differently (other cut, other stripping) simply misses. The text itself is not
    kept, only its length and a 128-bit BLAKE2b digest (:func:`memo_key`; issue 21: the memo held a copy of
    every scanned text).
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

    def _key(self, content: str, scope: str) -> tuple:
        return memo_key(content, scope, self.max_scan_chars)

    def seed_key(self, key: tuple, hits: Sequence[ParityHit]) -> None:
        """Remember ``hits`` under a :func:`memo_key` (computed elsewhere, e.g. by :func:`verdict_seed` in a
        worker process)."""
        self._memo[key] = tuple(hits)

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
        got = verdict_seed(doc, verdict, profile, self.max_scan_chars)
        if got is not None:
            self.seed_key(*got)


def memo_key(content: str, scope: str, max_scan_chars: int) -> tuple:
    """The :class:`MemoScanner` key of ``content`` at ``scope``: ``(scope, length, digest)`` of the first
    ``max_scan_chars`` characters (what the scanner looks at), the digest a 16-byte BLAKE2b of their UTF-8
    (lone surrogates passed through)."""
    cut = content[:max_scan_chars]
    return scope, len(cut), _blake2b(cut.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def verdict_seed(doc: Document, verdict: HermesVerdict, profile: VersionProfile,
                 max_scan_chars: int) -> Optional[tuple[tuple, list[ParityHit]]]:
    """``(memo key, hits)`` for :meth:`MemoScanner.seed_key`: the scan behind ``verdict_for(doc, ...)``, or
    ``None`` when it is not one whole-text ``locate`` at the ``context`` scope (only context files and SOUL.md
    that were loaded, blocked or warned are)."""
    if verdict.status == SKIPPED or not doc.readable or verdict.entries:
        return None
    if doc.kind.is_memory_store or doc.kind in (DocumentKind.DISTRIBUTION, DocumentKind.SKILL):
        return None
    text = doc.text
    if text is None:
        return None
    unit = context_scan_unit(text, doc.kind, doc.label, profile)
    if unit is None or not unit.text:
        return None
    return memo_key(unit.text, "context", max_scan_chars), [lh.hit for lh in verdict.hits]
