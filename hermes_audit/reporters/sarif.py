"""SARIF 2.1.0 report (``--format sarif``) for GitHub code scanning and other SARIF consumers.

Built with the ``sarif-om`` object model and serialised to JSON. What GitHub
needs (docs "SARIF support for code scanning"; see docs/github.md):

* one run; ``tool.driver`` declaring the rules that results (or notifications) reference, and only those
  (an empty report stays a few kilobytes; GitHub needs no descriptor for a rule without an alert): ``id``,
  ``name``, ``shortDescription``, ``fullDescription``, ``help.text`` and
  ``help.markdown``, ``helpUri`` (docs/rules.md#<code>), ``defaultConfiguration.level``,
  and properties ``tags`` (``security``, the family, CWE/OWASP ids),
  ``security-severity`` (a 0.1-10.0 score from the severity: GitHub shows
  critical above 9.0, high 7.0-8.9, medium 4.0-6.9, low below) and
  ``precision`` (from the confidence);
* ``results: []`` on a clean run (so fixed alerts close), each result with
  ``ruleId``, ``ruleIndex``, ``level``, ``message``, one location whose URI is
  relative to the repository root (percent-encoded, never raw) with
  ``uriBaseId`` ``%SRCROOT%``, a full region (start and end line and column;
  columns count Unicode code points, declared by ``run.columnKind``) and
  ``partialFingerprints`` carrying the content fingerprint;
* files Hermes would block are results of the Hermes-parity rules, even when
  ``--select`` left those rules out; files that could not be read, engine errors
  and stale baseline entries are ``toolExecutionNotifications``;
* a finding on a file outside the repository root (``scan --prompt`` reports
  SOUL.md, memory stores and config.yaml of ``HERMES_HOME``) is a
  ``toolExecutionNotification`` too, not a result: GitHub ignores ``uriBaseId``
  and takes a result's URI as a path in the repository (an absolute one is cut
  against the checkout), so such a result would point at a file that is not
  there. The notification names the rule (``associatedRule``), carries the
  severity as its level, and locates the file relative to the ``HERMES_HOME``
  base (declared in ``originalUriBaseIds``) or, elsewhere, by an absolute
  ``file://`` URI;
* ``automationDetails.id`` carries a category (default ``hermes-audit/<version>/``);
* suppressed findings are left out unless ``include_suppressed`` (GitHub ignores
  SARIF ``suppressions`` and would show them as open alerts); when included
  they carry ``suppressions`` (``inSource`` for inline comments, ``external``
  for a baseline) with the reason as justification.
"""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any, Optional

import attr
import sarif_om as om

from hermes_audit import PROJECT_URL, __version__
from hermes_audit.documents.paths import _is_within, repo_relative  # repo_relative: also this module's API
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Confidence, Finding, Severity
from hermes_audit.audits.scan import parity_findings
from hermes_audit.documents.reader import ReadStatus
from hermes_audit.findings import assign_fingerprints
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.patterns.catalog import load_catalog
from hermes_audit.reporters.workflow import json_text

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Rule help links point into the project's docs/rules.md (``hermes_audit.PROJECT_URL``).
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"
#: Key of our content fingerprint in ``partialFingerprints``.
FINGERPRINT_KEY = "hermesAuditContent/v1"
SRCROOT = "%SRCROOT%"

#: Severity -> SARIF level.
LEVELS = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "note",
    Severity.INFO: "note",
}
#: Severity -> GitHub ``security-severity`` score (string, as GitHub expects).
SECURITY_SEVERITY = {
    Severity.CRITICAL: "9.5",
    Severity.HIGH: "8.0",
    Severity.MEDIUM: "5.5",
    Severity.LOW: "3.0",
    Severity.INFO: "1.0",
}
#: Confidence -> SARIF ``precision``.
PRECISION = {Confidence.HIGH: "high", Confidence.MEDIUM: "medium", Confidence.LOW: "low"}
#: Fields serialised even when equal to the sarif-om default.
_ALWAYS = {"level"}
_MAX_DESCRIPTION = 1024


# --- serialisation of sarif-om objects ----------------------------------------------------------


def _extra(bag: om.PropertyBag) -> dict:
    return getattr(bag, "_hermes_extra", {})


def _props(tags: Optional[list[str]] = None, **extra: Any) -> om.PropertyBag:
    """A property bag with ``tags`` and further keys (``security-severity`` etc.)."""
    bag = om.PropertyBag(tags=tags)
    bag._hermes_extra = {k.replace("_", "-") if k in ("security_severity",) else k: v for k, v in extra.items() if v is not None}
    return bag


def to_json(obj: Any) -> Any:
    """JSON-ready data for a sarif-om object: property names from the schema, ``None`` and
    defaults left out (``level`` always kept), extra property-bag keys merged."""
    if attr.has(type(obj)):
        out: dict = {}
        for a in attr.fields(type(obj)):
            v = getattr(obj, a.name)
            if v is None:
                continue
            default = a.default
            if isinstance(default, attr.Factory):  # type: ignore[arg-type]
                default = default.factory()
            if default is not attr.NOTHING and v == default and a.name not in _ALWAYS:
                continue
            out[a.metadata.get("schema_property_name", a.name)] = to_json(v)
        if isinstance(obj, om.PropertyBag):
            out.update({k: to_json(v) for k, v in _extra(obj).items()})
        return out
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): to_json(v) for k, v in obj.items()}
    return obj


# --- paths ---------------------------------------------------------------------------------------


def uri_for(path: str) -> str:
    """A relative URI reference for a ``/``-separated path: every byte outside the
    unreserved set percent-encoded (control, bidi and undecodable characters included)."""
    try:
        data = path.encode("utf-8", "surrogateescape")  # undecodable bytes of a file name, back to bytes
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    return urllib.parse.quote(data, safe="/-._~")


HERMES_HOME_BASE = "HERMES_HOME"


def outside_repository(display: str, abs_path: Optional[Path], root: Optional[Path]) -> bool:
    """True when a finding's file is not inside the repository root (its location cannot be a
    repository-relative path)."""
    rel, relative = repo_relative(display, abs_path, root)
    return not relative or rel == ".." or rel.startswith("../")


def hermes_home_of(result) -> Optional[Path]:
    """The ``HERMES_HOME`` a scan with ``--prompt`` read (``--hermes-home``, else ``$HERMES_HOME``, else
    ``~/.hermes``), absolute; ``None`` for a scan without the prompt dry run."""
    opts = getattr(result, "options", None)
    home = getattr(opts, "hermes_home", None)
    if home is None and not getattr(opts, "prompt", False):
        return None
    home = home or os.environ.get("HERMES_HOME") or Path.home() / ".hermes"
    return Path(os.path.abspath(Path(home).expanduser()))


def _outside_artifact(display: str, abs_path: Optional[Path], home: Optional[Path]) -> om.ArtifactLocation:
    p = Path(os.path.abspath(abs_path or display))
    if home is not None:
        rel = _is_within(p, home)
        if rel is not None and rel != ".":
            return om.ArtifactLocation(uri=uri_for(rel), uri_base_id=HERMES_HOME_BASE)
    return om.ArtifactLocation(uri="file://" + uri_for(p.as_posix()))


def _outside_notification(f: Finding, index: int, abs_path: Optional[Path], home: Optional[Path]) -> om.Notification:
    """A finding on a file outside the repository, as a run-level notification (see the module docstring)."""
    msg = f"{f.rule_id} {f.rule_name} [{f.severity.label}] on a file outside the repository: " + printable(f.message, 2000)
    if f.fix:
        msg = msg.rstrip(".") + ". Fix: " + printable(f.fix, 500)
    return om.Notification(
        level=LEVELS[f.severity],
        message=om.Message(text=message_text(msg)),
        descriptor=om.ReportingDescriptorReference(id="finding-outside-repository"),
        associated_rule=om.ReportingDescriptorReference(id=f.rule_id, index=index),
        locations=[om.Location(physical_location=om.PhysicalLocation(
            artifact_location=_outside_artifact(f.path, abs_path, home), region=_region(f)))],
        properties=_props(severity=f.severity.label, confidence=f.confidence.label, family=f.family,
                          fingerprint=f.fingerprint),
    )


def _artifact(display: str, abs_path: Optional[Path], root: Optional[Path]) -> om.ArtifactLocation:
    rel, relative = repo_relative(display, abs_path, root)
    if relative:
        return om.ArtifactLocation(uri=uri_for(rel), uri_base_id=SRCROOT)
    return om.ArtifactLocation(uri="file://" + uri_for(rel))


# --- rules ---------------------------------------------------------------------------------------


_BRACKETS = None


def message_text(text: str) -> str:
    """``text`` for a SARIF ``message.text``: ``[`` and ``]`` escaped with a backslash (SARIF 2.1.0
    section 3.11.6), so text quoted from a scanned file (``[Fix now](https://...)``) is never an embedded
    link; backslashes right before a bracket are doubled, so the bracket stays escaped."""
    global _BRACKETS
    if "[" not in text and "]" not in text:
        return text
    if _BRACKETS is None:
        import re

        _BRACKETS = re.compile(r"(\\*)([\[\]])")
    return _BRACKETS.sub(lambda m: m.group(1) * 2 + "\\" + m.group(2), text)


def _plain(markdown: str) -> str:
    return markdown.replace("**", "").replace("`", "").strip()


def _first_paragraph(text: str) -> str:
    para = text.strip().split("\n\n", 1)[0]
    para = " ".join(para.split())
    return para[: _MAX_DESCRIPTION - 1] + "…" if len(para) > _MAX_DESCRIPTION else para


def _tags(rule) -> list[str]:
    tags = ["security", rule.family]
    for ref in rule.references:
        low = ref.lower()
        if low.startswith("cwe-"):
            tags.append(f"external/cwe/{low}")
        elif low:
            tags.append(f"external/{low}")
    seen: list[str] = []
    for t in tags:
        if t and t not in seen:
            seen.append(t)
    return seen[:20]


def rule_help_text(rule, hermes_version: str = "latest") -> str:
    """The rule's ``help`` Markdown; Hermes-parity help is a template filled in for the version
    (as ``hermes-audit explain`` does)."""
    text = rule.help
    if getattr(rule, "hermes_id", None):
        try:
            text = text.format(
                title=rule.title, hermes_id=rule.hermes_id, scope=rule.scope, version=hermes_version,
                pattern=rule.pattern_for(hermes_version), example=(rule.examples_match or [""])[0],
            )
        except (KeyError, IndexError, ValueError):
            pass
    return text.strip()


def rule_help_markdown(rule, hermes_version: str = "latest") -> str:
    """The rule's help as Markdown (its ``help`` text, the fix, references)."""
    parts = [rule_help_text(rule, hermes_version)]
    if rule.fix:
        parts.append(f"**Fix**: {rule.fix}" if "**Fix**" not in rule.help else "")
    if rule.references:
        parts.append("References: " + ", ".join(rule.references))
    return "\n\n".join(p for p in parts if p)


def descriptor(rule, severity: Optional[Severity] = None, hermes_version: str = "latest") -> om.ReportingDescriptor:
    """The SARIF ``reportingDescriptor`` of a catalog rule. ``severity`` (default: the rule's)
    sets the default level and ``security-severity``."""
    sev = severity if severity is not None else rule.severity
    md = rule_help_markdown(rule, hermes_version)
    full = _first_paragraph(_plain(md)) or rule.title
    return om.ReportingDescriptor(
        id=rule.code,
        name=rule.name,
        short_description=om.MultiformatMessageString(text=rule.title[:_MAX_DESCRIPTION]),
        full_description=om.MultiformatMessageString(text=full),
        help=om.MultiformatMessageString(text=_plain(md), markdown=md),
        help_uri=f"{RULES_DOC_URL}#{rule.code.lower()}",
        default_configuration=om.ReportingConfiguration(level=LEVELS[sev]),
        properties=_props(
            tags=_tags(rule),
            security_severity=SECURITY_SEVERITY[sev],
            precision=PRECISION[rule.confidence],
            family=rule.family,
            **({"hermesPatternId": rule.hermes_id} if getattr(rule, "hermes_id", None) else {}),
        ),
    )


# --- results -------------------------------------------------------------------------------------


def _region(f: Finding) -> om.Region:
    end_line, end_col = f.end.line, f.end.column
    if (end_line, end_col) <= (f.start.line, f.start.column):
        end_line, end_col = f.start.line, f.start.column + 1
    return om.Region(start_line=f.start.line, start_column=f.start.column, end_line=end_line, end_column=end_col)


def _suppressions(f: Finding) -> Optional[list]:
    if f.suppressed is None:
        return None
    kind = "external" if f.suppressed.startswith("baseline") else "inSource"
    return [om.Suppression(kind=kind, justification=printable(f.suppressed, 1000))]


def _result(f: Finding, index: int, doc_paths: dict, root: Optional[Path]) -> om.Result:
    abs_path = doc_paths.get(f.path)
    msg = printable(f.message, 2000)
    if f.fix:
        msg = msg.rstrip(".") + ". Fix: " + printable(f.fix, 500)
    props = _props(
        severity=f.severity.label, confidence=f.confidence.label, family=f.family,
        hermesPatternId=f.hermes_pattern_id, decoded=f.decoded,
    )
    related = None
    if f.related:
        related = [
            om.Location(
                id=i + 1,
                message=om.Message(text=message_text(printable(r.message, 500))),
                physical_location=om.PhysicalLocation(
                    artifact_location=_artifact(r.path, doc_paths.get(r.path), root),
                    region=om.Region(start_line=r.start.line, start_column=r.start.column,
                                     end_line=r.end.line, end_column=max(r.end.column, 1)),
                ),
            )
            for i, r in enumerate(f.related)
        ]
    return om.Result(
        rule_id=f.rule_id,
        rule_index=index,
        level=LEVELS[f.severity],
        message=om.Message(text=message_text(msg)),
        locations=[om.Location(physical_location=om.PhysicalLocation(
            artifact_location=_artifact(f.path, abs_path, root), region=_region(f)))],
        related_locations=related,
        partial_fingerprints={FINGERPRINT_KEY: f.fingerprint} if f.fingerprint else None,
        suppressions=_suppressions(f),
        properties=props,
    )


def _blocked_without_result(result) -> list[Finding]:
    """Parity findings for blocked files that have none in the result (``--select`` left the
    Hermes-parity rules out), so every file Hermes would block appears as a result."""
    have = {f.path for f in result.findings if f.hermes_pattern_id}
    out: list[Finding] = []
    profile = get_profile(result.hermes_version)
    for fr in result.blocked_files():
        if fr.document.path in have:
            continue
        found = parity_findings(fr.document, fr.verdict, profile)
        text = fr.document.text or ""
        assign_fingerprints(found, [text[f.span.start:f.span.end] for f in found])
        out.extend(found)
    return out


def _notifications(result, doc_paths: dict, root: Optional[Path]) -> list:
    notes: list = []
    for fr in result.files:
        d = fr.document
        st = d.read.status
        if st is ReadStatus.OK:
            continue
        level = "note" if st is ReadStatus.OVERSIZED else "warning"
        what = "read as head and tail only" if st is ReadStatus.OVERSIZED else "could not be read"
        detail = printable(d.read.detail or st.value, 500)
        notes.append(om.Notification(
            level=level,
            message=om.Message(text=message_text(f"{what}: {detail}")),
            descriptor=om.ReportingDescriptorReference(id=f"file-{st.value}"),
            locations=[om.Location(physical_location=om.PhysicalLocation(
                artifact_location=_artifact(d.path, d.abs_path, root)))],
        ))
    for e in result.errors:
        notes.append(om.Notification(
            level="error",
            message=om.Message(text=message_text(printable(e.message, 1000))),
            descriptor=om.ReportingDescriptorReference(id="rule-error"),
            locations=[om.Location(physical_location=om.PhysicalLocation(
                artifact_location=_artifact(e.path, doc_paths.get(e.path), root)))],
        ))
    for s in getattr(result, "baseline_stale", []) or []:
        notes.append(om.Notification(
            level="note",
            message=om.Message(text=message_text(printable(s.message(), 1000))),
            descriptor=om.ReportingDescriptorReference(id="stale-baseline-entry"),
        ))
    return notes


def category_id(category: Optional[str], hermes_version: str) -> str:
    """``runAutomationDetails.id``: GitHub takes everything before the last ``/`` as the
    category, so a category given without a trailing ``/`` gets one."""
    cat = (category or f"hermes-audit/{hermes_version}").strip()
    return cat if cat.endswith("/") else cat + "/"


def build_log(result, include_suppressed: bool = False, category: Optional[str] = None,
              root: Optional[Path] = None) -> om.SarifLog:
    """The SARIF log (sarif-om objects) of a scan result. ``root`` is the repository root
    that result URIs are relative to (default: ``ScanOptions.identity_root()``, the repository root the scan
    identifies files by)."""
    if root is None:
        root = result.options.identity_root()
    doc_paths = {fr.document.path: fr.document.abs_path for fr in result.files}
    findings = [f for f in result.findings if include_suppressed or f.suppressed is None]
    findings += _blocked_without_result(result)
    findings.sort(key=lambda f: (f.path, f.start.line, f.start.column, f.rule_id))

    rules = list(getattr(result, "rules_run", []) or [])
    known = {r.code for r in rules}
    missing = {f.rule_id for f in findings} - known
    if missing:
        try:
            catalog_rules = load_catalog(result.options.rules_dir).all_rules()
        except Exception:  # the scan already loaded it; never fail the report over this
            catalog_rules = []
        for r in catalog_rules:
            if r.code in missing:
                rules.append(r)
                known.add(r.code)
    used = {f.rule_id for f in findings}
    rules = [r for r in rules if r.code in used]  # issue 22: not the 160 rules of a clean run (351 KB)
    worst: dict[str, Severity] = {}
    for f in findings:
        if f.suppressed is None:
            worst[f.rule_id] = max(worst.get(f.rule_id, f.severity), f.severity)
    descriptors = [descriptor(r, max(r.severity, worst.get(r.code, r.severity)), result.hermes_version) for r in rules]
    index = {r.code: i for i, r in enumerate(rules)}
    for f in findings:  # a finding whose rule is in no catalog (should not happen): declare it
        if f.rule_id not in index:
            index[f.rule_id] = len(descriptors)
            descriptors.append(om.ReportingDescriptor(
                id=f.rule_id, name=f.rule_name,
                short_description=om.MultiformatMessageString(text=f.rule_name),
                full_description=om.MultiformatMessageString(text=f.rule_name),
                help=om.MultiformatMessageString(text=f.rule_name, markdown=f.rule_name),
                help_uri=f"{RULES_DOC_URL}#{f.rule_id.lower()}",
                default_configuration=om.ReportingConfiguration(level=LEVELS[f.severity]),
                properties=_props(tags=["security", f.family], security_severity=SECURITY_SEVERITY[f.severity],
                                  precision=PRECISION[f.confidence]),
            ))

    home = hermes_home_of(result)
    outside = [f for f in findings if outside_repository(f.path, doc_paths.get(f.path), root)]
    results = [_result(f, index[f.rule_id], doc_paths, root) for f in findings if f not in outside]
    notes = _notifications(result, doc_paths, root)
    notes += [_outside_notification(f, index[f.rule_id], doc_paths.get(f.path), home) for f in outside]
    invocation = om.Invocation(
        execution_successful=not result.incomplete,
        exit_code=result.exit_code(),
        tool_execution_notifications=notes or None,
    )
    base_ids = {SRCROOT: om.ArtifactLocation(uri=Path(os.path.abspath(root)).as_uri().rstrip("/") + "/")}
    if home is not None and any(_outside_artifact(f.path, doc_paths.get(f.path), home).uri_base_id for f in outside):
        base_ids[HERMES_HOME_BASE] = om.ArtifactLocation(uri=home.as_uri().rstrip("/") + "/")
    driver = om.ToolComponent(
        name="hermes-audit",
        version=__version__,
        semantic_version=__version__,
        information_uri=PROJECT_URL,
        rules=descriptors,
    )
    run = om.Run(
        tool=om.Tool(driver=driver),
        results=results,
        invocations=[invocation],
        automation_details=om.RunAutomationDetails(id=category_id(category, result.hermes_version)),
        column_kind="unicodeCodePoints",
        original_uri_base_ids=base_ids,
        properties=_props(hermesVersion=result.hermes_version),
    )
    return om.SarifLog(version=SARIF_VERSION, schema_uri=SARIF_SCHEMA_URI, runs=[run])


def to_dict(result, include_suppressed: bool = False, category: Optional[str] = None,
            root: Optional[Path] = None) -> dict:
    """The SARIF log as JSON-ready data."""
    return to_json(build_log(result, include_suppressed, category, root))


def render(result, include_suppressed: bool = False, category: Optional[str] = None,
           root: Optional[Path] = None, **_: Any) -> str:
    """The SARIF document as a string (ASCII-only JSON, so it survives any pipe)."""
    return json_text(to_dict(result, include_suppressed, category, root)) + "\n"


def rules_reference_markdown(rules, hermes_version: str = "latest") -> str:
    """docs/rules.md: one section per rule, headed by its code (the ``helpUri`` anchors).
    Generated from the catalog (``python -m tests.rules_doc``), never edited by hand."""
    out = [
        "# hermes-audit rules",
        "",
        "Generated from `rules/*.yaml` by `python -m tests.rules_doc`; do not edit by hand.",
        "SARIF `helpUri` links point at the sections below (`#<code>`).",
        "",
    ]
    for r in rules:
        hermes = f" Hermes pattern `{r.hermes_id}`, scope `{r.scope}`." if getattr(r, "hermes_id", None) else ""
        out += [
            f"## {r.code}",
            "",
            f"**`{r.name}`**: {r.title}. Family `{r.family}`, severity {r.severity.label}, "
            f"confidence {r.confidence.label}.{hermes}",
            "",
            rule_help_markdown(r, hermes_version),
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"
