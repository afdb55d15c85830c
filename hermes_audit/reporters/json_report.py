"""JSON report (``--format json``). The schema is documented in README.md and stable.

Top level: ``schema_version`` (1), ``tool {name, version}``, ``hermes_version``,
``files[]``, ``findings[]``, ``errors[]``, ``notes[]``, ``summary``.
"""

from __future__ import annotations

import json

from hermes_audit import __version__
from hermes_audit.engine.unicode_chars import printable

SCHEMA_VERSION = 1


def safe_path(path: str) -> str:
    """A path with control, bidi and undecodable characters escaped (never shown raw)."""
    return printable(path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"), 4096)


def to_dict(result) -> dict:
    files = []
    for fr in result.files:
        d = fr.to_dict()
        d["path"] = safe_path(d["path"])
        files.append(d)
    findings = []
    for f in result.findings:
        d = f.to_dict()
        d["path"] = safe_path(d["path"])
        findings.append(d)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "hermes-audit", "version": __version__},
        "hermes_version": result.hermes_version,
        "files": files,
        "findings": findings,
        "errors": [{"rule_id": e.rule_id, "path": safe_path(e.path), "message": e.message} for e in result.errors],
        "notes": [safe_path(n) for n in result.notes],
        "summary": result.summary(),
    }


def render(result) -> str:
    """The JSON document as a string (ASCII only, so it survives any terminal or pipe)."""
    return json.dumps(to_dict(result), indent=2, ensure_ascii=True) + "\n"
