"""Findings and detectors for what reading a file shows (issue 9): a file that is not UTF-8 (HA951),
NUL characters (HA952) and repeated YAML keys (HA953). The facts come from
:mod:`hermes_audit.documents.inputs` (below the engine); here they become detector hits and findings."""

from __future__ import annotations

from typing import Iterator

from hermes_audit.documents.inputs import NOT_UTF8, duplicate_yaml_keys, not_utf8_message, scenario_bytes
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import BINARY_SNIFF_BYTES, ReadStatus, decode_bytes
from hermes_audit.engine.finding import make_finding
from hermes_audit.findings import DetectorHit
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Severity


def _severity(kind: DocumentKind):
    return Severity.MEDIUM if kind.is_memory_store else Severity.LOW


def input_findings(doc, verdict, profile, rules) -> list:
    """HA951 findings for a document that is not UTF-8 (whatever its kind), when HA951 is among ``rules``.

    The finding sits at line 1, column 1 (the document has no text). Its
    severity is medium for a memory store (all memory is lost), low otherwise.
    """
    if doc.read.status is not ReadStatus.NOT_UTF8:
        return []
    rule = next((r for r in rules if r.code == NOT_UTF8), None)
    if rule is None:
        return []
    msg = not_utf8_message(doc.read, doc.kind, profile.label, bool(getattr(profile, "memory_read_checked", False)))
    return [make_finding(doc, rule, 0, 0, msg, severity=_severity(doc.kind))]


def _nul_hit(text: str, offset_base: int = 0):
    first = text.find("\x00")
    if first == -1:
        return None
    count = text.count("\x00")
    in_sniff = len(text[:first].encode("utf-8", "surrogatepass")) < BINARY_SNIFF_BYTES
    if in_sniff:
        where = ("in the first 8,000 bytes, so git and GitHub treat the file as binary and show no diff of it: "
                 "a reviewer never sees what Hermes loads")
        sev = Severity.MEDIUM
    else:
        where = "after the first 8,000 bytes (git still shows a diff); Hermes passes them to the model as they are"
        sev = Severity.LOW
    end = first
    while end < len(text) and text[end] == "\x00":
        end += 1
    return DetectorHit(offset_base + first, offset_base + end,
                       {"count": f"{count:,}", "where": where}, severity=sev)


def detect_input(text: str, params: dict) -> Iterator:
    """Detector ``input-encoding``. ``params["check"]``:

    * ``not-utf8``: only bytes scenarios yield a hit (real files that are not
      UTF-8 are reported by :func:`input_findings`); spans the first line;
    * ``nul``: one hit at the first run of NUL characters (in a bytes scenario:
      of the decoded bytes, reported at the first line), severity medium when it
      lies in the first 8,000 bytes (git's binary test), else low.
    """
    check = params.get("check")
    data = scenario_bytes(text)
    first_line = max(1, text.find("\n") if "\n" in text else len(text))
    if check == "not-utf8":
        if data is None:
            return
        read = decode_bytes(data)
        if read.status is ReadStatus.NOT_UTF8:
            kind = DocumentKind(params.get("document_kind") or "generic")
            label = "Hermes " + str(params.get("hermes", "latest"))
            yield DetectorHit(0, first_line, {"message": not_utf8_message(read, kind, label)},
                              severity=_severity(kind))
    elif check == "nul":
        if data is not None:
            read = decode_bytes(data)
            if read.text is not None:
                hit = _nul_hit(read.text)
                if hit is not None:
                    yield DetectorHit(0, first_line, hit.fields, severity=hit.severity)
            return
        hit = _nul_hit(text)
        if hit is not None:
            yield hit


def detect_duplicate_keys(text: str, params: dict) -> Iterator:
    """Detector ``yaml-duplicate-keys``: one hit per repeated key (see :func:`duplicate_yaml_keys`)."""
    for key, start, end, first_line in duplicate_yaml_keys(text):
        yield DetectorHit(start, max(end, start + 1), {"key": printable(key, 80), "first_line": str(first_line)})
