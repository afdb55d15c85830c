"""Reading ``../shared/corpus/manifest.tsv`` and deciding each file's document kind."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from hermes_audit.documents.kinds import DocumentKind, classify


@dataclass
class CorpusRow:
    path: Path
    rel: str
    label: str
    expected_kinds: list[str]
    notes: str

    @property
    def hermes_note(self) -> str:
        """The ``hermes@00fd54f0(context): ...`` part of the notes (what the newest Hermes reports)."""
        i = self.notes.rfind("hermes@00fd54f0(context):")
        return self.notes[i + len("hermes@00fd54f0(context):"):].strip().strip('"') if i >= 0 else ""


def original_name(rel: str) -> str:
    """The file's name in its repository: after the last ``__`` (``owner__repo__path``) or, for
    ``issues/NNN.NAME``, the part after the number."""
    name = rel.rsplit("/", 1)[-1]
    if "__" in name:
        return name.rsplit("__", 1)[-1]
    head, _, rest = name.partition(".")
    if head.isdigit() or head.startswith("lexus"):
        return ("." + rest) if rest in ("hermes.md", "cursorrules") else rest
    return name


def corpus_kind(rel: str) -> DocumentKind:
    name = original_name(rel)
    full = rel.rsplit("/", 1)[-1].replace("__", "/")
    return classify(full) or classify(name) or (
        DocumentKind.CURSOR_RULE if name.endswith(".mdc") else
        DocumentKind.USER_PROFILE if name == "USER.md" else DocumentKind.GENERIC
    )


def load_manifest(corpus: Path) -> list[CorpusRow]:
    rows = []
    with open(corpus / "manifest.tsv", encoding="utf-8", newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            kinds = [k for k in r["expected_kinds"].split(",") if k and k != "none"]
            rows.append(CorpusRow(corpus / r["path"], r["path"], r["label"], kinds, r.get("notes", "")))
    return rows
