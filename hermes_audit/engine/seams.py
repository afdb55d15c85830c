"""Cross-file seams: instructions split across files that Hermes concatenates into one block.

Hermes does not scan files one by one only in isolation from each other: it
*renders* several of them into one section of the system prompt, so an
instruction can start at the end of one file and finish at the start of the
next while each file scans clean on its own. Two concatenations exist:

* **Cursor rules** (every version): ``.cursorrules`` first, then
  ``sorted(.cursor/rules/*.mdc)``, each non-empty file rendered as
  ``"## " + label + "\\n\\n" + content + "\\n\\n"`` and the pieces joined with
  no separator (hermes-agent 0.19.0 ``agent/prompt_builder.py``
  ``_load_cursorrules``; labels ``.cursorrules`` and ``.cursor/rules/<name>``).
* **The AGENTS.md chain** (profile ``latest`` only): from the git root down to
  the working directory, the first non-empty of ``AGENTS.override.md``,
  ``AGENTS.md``, ``agents.md`` in each directory, a file whose stripped content
  equals an earlier one skipped, each rendered as ``"## " + label + "\\n\\n" +
  content`` (label: the name in the working directory, else the path relative
  to it such as ``../AGENTS.md``) and joined with ``"\\n\\n"``
  (``../shared/reference/hermes-behaviour.md`` section 2.3). Every deepest
  directory holding a scanned AGENTS file is tried as a working directory (a
  chain ending there contains the seams of every chain ending above it), at
  most :data:`MAX_CHAINS` of them.

``content`` is what Hermes puts there: the file's scanned text (see
:func:`hermes_audit.hermes.verdict.context_scan_unit`) or, for a file Hermes
blocks, its ``[BLOCKED: ...]`` marker. The later size cap (head and tail kept)
is not applied: a seam is reported whether or not truncation would cut it.

The audit rules run twice over each concatenation: over the exact text Hermes
builds, and over a *joined* view in which each seam (the heading Hermes adds
and any YAML front matter at the top of the next file) is collapsed to one
space, the way a reader, or a model, reads one sentence running on. A match
is reported only when it covers text of two or more files; the finding sits
in the first file and lists the others as related locations.

Only files that were scanned take part (files outside the scanned paths are
not read here). Offsets are character (code point) offsets.
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.findings import Finding, RelatedLocation
from hermes_audit.documents.gitroot import find_git_root
from hermes_audit.engine.finding import make_finding
from hermes_audit.hermes.outcomes import BLOCKED, blocked_marker, context_scan_unit

#: Most AGENTS.md chains built per scan (one per deepest directory holding an AGENTS file).
MAX_CHAINS = 500
#: YAML front matter at the top of a rule file: dropped at seams in the joined view.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:.{0,2000}\n){0,60}?---[ \t]*(?:\n|\Z)")


@dataclass
class Piece:
    """One file's part of an assembly.

    ``start``/``end`` delimit the piece's content in :attr:`Assembly.text`;
    ``doc_map`` gives, for each character of that content, its offset in
    ``document.text`` (Hermes reads in text mode, so a ``\r\n`` of the file is
    one ``\n`` here), or is ``None`` when the content is Hermes'
    ``[BLOCKED: ...]`` marker instead.
    """

    document: Document
    label: str
    start: int
    end: int
    doc_map: Optional[list[int]]

    def doc_offset(self, offset: int) -> int:
        """Offset in ``document.text`` of assembly offset ``offset`` (inside this piece's content)."""
        assert self.doc_map is not None
        return self.doc_map[offset - self.start]


@dataclass
class Assembly:
    """A block of the system prompt built from several files, exactly as Hermes builds it."""

    kind: str  # "cursor-rules" or "agents-chain"
    cwd: str
    text: str
    pieces: list[Piece] = field(default_factory=list)

    def piece_at(self, offset: int) -> Optional[Piece]:
        """The piece whose content holds ``offset`` of :attr:`text`, or ``None`` (a heading or separator)."""
        starts = [p.start for p in self.pieces]
        i = bisect.bisect_right(starts, offset) - 1
        if i >= 0 and self.pieces[i].start <= offset < self.pieces[i].end:
            return self.pieces[i]
        return None

    def joined(self) -> tuple[str, list[int]]:
        """The joined view: piece contents (front matter after a seam dropped) separated by one space.

        Returns the text and, per character, its offset in :attr:`text`
        (``-1`` for the inserted spaces).
        """
        out: list[str] = []
        index: list[int] = []
        for n, p in enumerate(self.pieces):
            s = p.start
            body = self.text[p.start:p.end]
            if n > 0:
                m = _FRONT_MATTER.match(body)
                if m:
                    s += m.end()
                while s < p.end and self.text[s] in " \t\r\n":
                    s += 1
                out.append(" ")
                index.append(-1)
            out.append(self.text[s:p.end])
            index.extend(range(s, p.end))
        return "".join(out), index


def _content(doc: Document, verdict, label: str, profile) -> Optional[tuple[str, Optional[list[int]]]]:
    """What Hermes renders for ``doc`` under ``label``: ``(text, offsets in doc.text)``, or ``None`` when empty.

    Hermes reads context files with ``Path.read_text`` (text mode), so line
    endings arrive as ``\n`` (:func:`hermes_audit.hermes.verdict.context_scan_unit`
    models it); the offsets map each character back to the file's text.
    """
    if doc.text is None or not doc.readable:
        return None
    unit = context_scan_unit(doc.text, doc.kind, label, profile)
    if unit is None:
        return None
    if verdict is not None and verdict.status == BLOCKED:
        return blocked_marker(label, list(verdict.pattern_ids)), None
    # unit.text is already newline-translated; unit.to_raw maps its offsets back to the file's text
    to_raw = getattr(unit, "to_raw", None)
    if to_raw is None:  # no newline translation: offsets are a plain range (issue 8: no per-character list)
        return unit.text, range(unit.offset, unit.offset + len(unit.text))  # type: ignore[return-value]
    return unit.text, [to_raw(unit.offset + i) for i in range(len(unit.text))]


def _build(kind: str, cwd: str, parts: list[tuple[Document, str, str, Optional[list[int]]]], trailer: str,
           sep: str) -> Assembly:
    asm = Assembly(kind, cwd, "")
    chunks: list[str] = []
    pos = 0
    for n, (doc, label, content, off) in enumerate(parts):
        head = ("" if n == 0 else sep) + f"## {label}\n\n"
        chunks.append(head)
        pos += len(head)
        chunks.append(content)
        asm.pieces.append(Piece(doc, label, pos, pos + len(content), off))
        pos += len(content)
        chunks.append(trailer)
        pos += len(trailer)
    asm.text = "".join(chunks)
    return asm


def cursor_assemblies(items: Iterable[tuple[Document, object]], profile) -> list[Assembly]:
    """The ``.cursorrules`` + ``.cursor/rules/*.mdc`` block of every directory that has two or more pieces."""
    groups: dict[str, dict[str, tuple[Document, object]]] = {}
    for doc, verdict in items:
        if doc.abs_path is None:
            continue
        p = Path(os.path.abspath(doc.abs_path))
        if doc.kind is DocumentKind.CURSORRULES and p.name == ".cursorrules":
            groups.setdefault(str(p.parent), {})[".cursorrules"] = (doc, verdict)
        elif doc.kind is DocumentKind.CURSOR_RULE and p.parent.name == "rules" and p.parent.parent.name == ".cursor":
            groups.setdefault(str(p.parent.parent.parent), {})[p.name] = (doc, verdict)
    out: list[Assembly] = []
    for cwd, files in sorted(groups.items()):
        names = ([".cursorrules"] if ".cursorrules" in files else []) + sorted(n for n in files if n != ".cursorrules")
        parts = []
        for name in names:
            doc, verdict = files[name]
            label = ".cursorrules" if name == ".cursorrules" else f".cursor/rules/{name}"
            got = _content(doc, verdict, label, profile)
            if got is not None:
                parts.append((doc, label, got[0], got[1]))
        if len(parts) >= 2:
            out.append(_build("cursor-rules", cwd, parts, "\n\n", ""))
    return out


def _git_root(start: Path) -> Optional[Path]:
    return find_git_root(start)


def leaf_directories(dirs: list[str]) -> list[str]:
    """The members of ``dirs`` (absolute, normalised paths, in order) with no other member below them, a
    filesystem root excepted.

    Linear in the number of directories times their depth: each member marks its ancestors (issue 8: the
    pairwise check took a third of a 500 MB scan's time).
    """
    above: set[str] = set()
    for d in dirs:
        child, parent = d, os.path.dirname(d)
        while parent != child and parent not in above:  # stops at the root, or where a sibling marked the rest
            above.add(parent)
            child, parent = parent, os.path.dirname(parent)
    # a filesystem root is left out, as the prefix check did ("/" is below "/"): no chain ends there
    return [d for d in dirs if d not in above and os.path.dirname(d) != d]


def agents_chain_assemblies(items: Iterable[tuple[Document, object]], profile) -> list[Assembly]:
    """The AGENTS.md git-root -> cwd chains (``latest`` only) that have two or more sections."""
    if not getattr(profile, "agents_chain", False):
        return []
    names = ["AGENTS.override.md", "AGENTS.md", "agents.md"] if profile.agents_override else ["AGENTS.md", "agents.md"]
    by_path: dict[str, tuple[Document, object]] = {}
    for doc, verdict in items:
        if doc.abs_path is not None and doc.kind is DocumentKind.AGENTS_MD:
            by_path[os.path.abspath(doc.abs_path)] = (doc, verdict)
    dirs = sorted({os.path.dirname(p) for p in by_path})
    # a chain ending deeper holds every seam of the chains ending above it: the deepest directories suffice
    leaves = leaf_directories(dirs)
    out: list[Assembly] = []
    seen_texts: set[str] = set()
    for cwd in leaves[:MAX_CHAINS]:
        root = _git_root(Path(cwd))
        if root is None:
            continue
        root_s = os.path.abspath(root)
        if root_s == cwd or not cwd.startswith(root_s.rstrip(os.sep) + os.sep):
            continue
        rel = os.path.relpath(cwd, root_s).split(os.sep)
        chain = [root_s] + [os.path.join(root_s, *rel[:i]) for i in range(1, len(rel) + 1)]
        parts = []
        taken: list[str] = []
        for d in chain:
            for name in names:
                cand = os.path.join(d, name)
                if cand not in by_path:
                    continue
                doc, verdict = by_path[cand]
                label = name if d == cwd else os.path.relpath(cand, cwd).replace(os.sep, "/")
                got = _content(doc, verdict, label, profile)
                if got is None:
                    continue  # empty: the next name is tried
                stripped = (doc.text or "").strip()
                if stripped not in taken:
                    taken.append(stripped)
                    parts.append((doc, label, got[0], got[1]))
                break
        if len(parts) >= 2:
            asm = _build("agents-chain", cwd, parts, "", "\n\n")
            if asm.text not in seen_texts:
                seen_texts.add(asm.text)
                out.append(asm)
    return out


def _locate(asm: Assembly, positions: list[int]) -> list[tuple[Piece, int, int]]:
    """Group assembled offsets by piece: ``[(piece, first, last + 1)]`` in assembly order."""
    spans: dict[int, list[int]] = {}
    for a in positions:
        if a < 0:
            continue
        p = asm.piece_at(a)
        if p is None or p.doc_map is None:
            continue
        spans.setdefault(asm.pieces.index(p), []).append(a)
    out = []
    for i in sorted(spans):
        p = asm.pieces[i]
        out.append((p, min(spans[i]), max(spans[i]) + 1))
    return out


def seam_findings(items: list[tuple[Document, object]], engine, profile) -> tuple[list[Finding], list[str], list]:
    """Findings whose match spans two or more concatenated files.

    ``items`` are ``(document, Hermes verdict)`` pairs of the scan; ``engine``
    is the :class:`~hermes_audit.engine.engine.Engine` with the selected rules.
    Returns ``(findings, matched texts for fingerprints, engine errors)``.
    """
    assemblies = cursor_assemblies(items, profile) + agents_chain_assemblies(items, profile)
    findings: list[Finding] = []
    texts: list[str] = []
    errors: list = []
    seen: set = set()
    rules = {r.code: r for r in engine.rules}
    for asm in assemblies:
        joined, index = asm.joined()
        views = [(asm.text, range(len(asm.text))), (joined, index)]  # issue 21: no list of every offset
        kind = asm.pieces[0].document.kind
        for text, amap in views:
            res = engine.run(Document.from_text(text, f"<{asm.kind}>", kind))
            errors.extend(res.errors)
            for f in res.findings:
                located = _locate(asm, amap[f.span.start:f.span.end])
                if len(located) < 2 or f.rule_id not in rules:
                    continue
                key = (f.rule_id, tuple((p.document.path, s, e) for p, s, e in located))
                if key in seen:
                    continue
                seen.add(key)
                first, s0, e0 = located[0]
                doc = first.document
                ds, de = first.doc_offset(s0), first.doc_offset(e0 - 1) + 1
                others = " and ".join(p.label for p, _, _ in located[1:])
                msg = (f"across the seam between {first.label} and {others} (Hermes concatenates them into one "
                       f"block): {f.message}")
                out = make_finding(doc, rules[f.rule_id], ds, de, msg, severity=f.severity, confidence=f.confidence)
                for p, s, e in located[1:]:
                    pd = p.document
                    rs, re_ = p.doc_offset(s), p.doc_offset(e - 1) + 1
                    out.related.append(RelatedLocation(
                        pd.path, pd.lines.position(rs), pd.lines.position(re_),
                        f"the instruction continues here ({p.label})",
                    ))
                findings.append(out)
                texts.append(text[f.span.start:f.span.end])
    return findings, texts, errors
