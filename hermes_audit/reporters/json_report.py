"""JSON report (``--format json``). The schema is documented in docs/usage.md and stable.

Top level: ``schema_version`` (1), ``tool {name, version}``, ``hermes_version``,
``files[]``, ``findings[]``, ``errors[]``, ``notes[]``, ``summary``.
"""

from __future__ import annotations

from hermes_audit import __version__
from hermes_audit.engine.unicode_chars import safe_path
from hermes_audit.reporters.workflow import json_text

SCHEMA_VERSION = 1

#: Longest message kept in the JSON report (characters).
MESSAGE_CHARS = 4000


def _safe_text(value):
    """A message from a scan made safe to print: control, bidi and invisible characters escaped
    (as :func:`~hermes_audit.engine.unicode_chars.printable` does), so a consumer that prints a
    JSON field never writes a terminal escape sequence or a bidi override (issue 9)."""
    return safe_path(value)[:MESSAGE_CHARS] if isinstance(value, str) else value


def to_dict(result) -> dict:
    files = []
    for fr in result.files:
        d = fr.to_dict()
        d["path"] = safe_path(d["path"])
        d["label"] = safe_path(d.get("label", ""))
        if isinstance(d.get("read"), dict) and "detail" in d["read"]:
            d["read"]["detail"] = _safe_text(d["read"]["detail"])
        hermes = d.get("hermes")
        if isinstance(hermes, dict):
            for key in ("message", "note"):
                if key in hermes:
                    hermes[key] = _safe_text(hermes[key])
        files.append(d)
    findings = []
    for f in result.findings:
        d = f.to_dict()
        d["path"] = safe_path(d["path"])
        for key in ("message", "fix", "suppressed"):
            if key in d:
                d[key] = _safe_text(d[key])
        for r in d.get("related", []):
            r["path"] = safe_path(r["path"])
            r["message"] = _safe_text(r["message"])
        findings.append(d)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "hermes-audit", "version": __version__},
        "hermes_version": result.hermes_version,
        "files": files,
        "findings": findings,
        "errors": [{"rule_id": e.rule_id, "path": safe_path(e.path), "message": _safe_text(e.message)}
                   for e in result.errors],
        "notes": [safe_path(n) for n in result.notes],
        "summary": result.summary(),
    }


def render(result) -> str:
    """The JSON document as a string (ASCII only, so it survives any terminal or pipe)."""
    return json_text(to_dict(result)) + "\n"
