"""Audit of a whole profile distribution, before ``hermes profile install`` copies it.

``hermes profile install`` runs no threat scan, no skills guard and no
approval on what it copies (hermes-agent 0.19.0
``hermes_cli/profile_distribution.py``; ``../shared/reference/hermes-behaviour.md``
section 6.3). This module looks at every file the install would copy, the way
Hermes will use it afterwards:

* ``distribution.yaml``: Hermes' schema checks and wording, the secrets
  ``env_requires`` asks for, ``distribution_owned`` paths that leave the profile;
* the install plan (:mod:`hermes_audit.hermes.distribution`): symlinks (Hermes
  refuses), special files, plugins, a copied ``.git``;
* ``SOUL.md``: Hermes' context-scope verdict (a distribution's SOUL.md is
  *blocked* on any hit, in 0.19 and in latest) plus the audit rules;
* skills (``SKILL.md`` and every file of the skill) and ``scripts/`` /
  ``plugins/``: the audit rules (they count), and, for comparison only, Hermes'
  skills guard with the verdict and decision ``hermes skills install`` would
  reach at a trust level (``community`` by default). Hermes never runs that guard
  on a profile's skills, at install or later, so it is no reason in the verdict;
* cron job files: Hermes' cron prompt scanner, the audit rules on each prompt,
  and jobs that run scripts;
* ``mcp.json`` and ``config.yaml``: MCP servers, hooks, quick commands,
  plugins and weakened safety settings (rules/profile.yaml), secrets, and the
  prompt text config.yaml adds (``platform_hints``, ``personalities``);
* shipped memory stores (``memories/``): analysed like ``hermes-audit memory``,
  even though Hermes never copies a top-level ``memories/``.

The result ends with a verdict: safe to install or not, with reasons. Rules
stay data (``rules/*.yaml``); the detectors at the end of this module parse the
files those rules name.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from hermes_audit.audits.detectors import AuditEngine
from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES
from hermes_audit.patterns.catalog import Catalog, Rule, load_catalog
from hermes_audit.engine.engine import Engine, EngineError, make_finding
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Confidence, Finding, Severity, assign_fingerprints
from hermes_audit.hermes import distribution as dist
from hermes_audit.hermes import memory as mem
from hermes_audit.hermes.cron_guard import CronFile, load_cron_catalog, parse_job_text, scan_cron_prompt
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.skills_guard import (  # GUARD_FAMILY: counted through the guard's decision
    GUARD_FAMILY,
    GuardResult,
    load_guard_catalog,
    scan_skill,
)
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.outcomes import BLOCKED, HermesVerdict
from hermes_audit.hermes.verdict import verdict_for
from hermes_audit.audits.profile_checks import (
    MAX_STRUCTURED_CHARS, PLAN_HEADER, _load_structured, _place_in_jobs_file, _servers, _unparsed,
    skill_frontmatter_problem,
)
from hermes_audit.audits.scan import parity_findings, stall_report
from hermes_audit.hermes.skills_guard import (
    SkillsGuardError, determine_verdict, guard_rules, install_decision, is_scannable, scan_text,
)

#: Path shown for the synthetic install-plan document.
PLAN_PATH = "<install plan>"
#: Families run on a cron prompt or a config.yaml prompt string (text that reaches the model; a cron prompt
#: is an instruction the agent carries out unattended, so "curl ... | sh" in it is HA501 like anywhere else).
PROMPT_FAMILIES = ("injection", "exfiltration", "execution", "hidden-content", "unicode")
#: Top-level directories whose files are code run by Hermes, scanned with the skills guard.
CODE_DIRS = ("scripts", "plugins", "hooks")
#: Families run on skill scripts and other code files.
CODE_FAMILIES = ("exfiltration", "execution", "unicode")


@dataclass
class ProfileOptions:
    """How to audit. ``hermes_version`` is the profile (``latest``/``0.19``); ``hermes_current`` the
    Hermes version to check ``hermes_requires`` against (default: 0.19.0 for ``0.19``, unchecked for
    ``latest``); ``skills_trust`` the skills-guard trust level; ``fail_on`` the lowest severity of an
    audit finding that makes the distribution unsafe."""

    hermes_version: str = "latest"
    override_name: Optional[str] = None
    hermes_current: Optional[str] = None
    skills_trust: str = "community"
    fail_on: Severity = Severity.HIGH
    max_bytes: int = DEFAULT_MAX_BYTES
    target_root: str = "~/.hermes"
    rules_dir: Optional[Path] = None
    #: ``time.monotonic()`` value after which the audit stops, incomplete (``None``: no limit); ``timeout`` is the
    #: budget in seconds it stands for, for the message.
    deadline: Optional[float] = None
    timeout: float = 0.0


@dataclass
class CronReport:
    """One cron file: its jobs and Hermes' cron-scanner answer for each prompt."""

    file: CronFile
    blocked: dict[int, str] = field(default_factory=dict)


@dataclass
class ProfileReport:
    """Everything ``hermes-audit profile`` reports. See :func:`audit_distribution`."""

    source: str
    source_kind: str
    root: Path
    hermes_version: str
    hermes_label: str
    manifest: dist.ManifestRead
    tree: dist.Tree
    refusal: Optional[str] = None
    version_refusal: Optional[str] = None
    #: distribution.yaml that hermes-audit did not evaluate (too large, an alias bomb Hermes would expand...):
    #: why, and what Hermes would do with it. Not a Hermes refusal; it makes the distribution not safe.
    not_evaluated: Optional[str] = None
    plan: Optional[dist.InstallPlan] = None
    installed: bool = False
    findings: list[Finding] = field(default_factory=list)
    documents: dict[str, Document] = field(default_factory=dict)
    soul: Optional[HermesVerdict] = None
    skills: list[GuardResult] = field(default_factory=list)
    cron: list[CronReport] = field(default_factory=list)
    memories: list[mem.StoreReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[EngineError] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    options: ProfileOptions = field(default_factory=ProfileOptions)

    @property
    def safe(self) -> bool:
        return not self.reasons

    @property
    def incomplete(self) -> bool:
        return bool(self.errors) or self.tree.truncated

    def exit_code(self) -> int:
        """0 safe to install, 1 not safe (or refused), 3 incomplete audit with nothing found."""
        if self.reasons:
            return 1
        if self.incomplete:
            return 3
        return 0

    def counted_findings(self) -> list[Finding]:
        return [f for f in self.findings if f.suppressed is None and f.family != GUARD_FAMILY]


# ---------------------------------------------------------------------------
# The audit
# ---------------------------------------------------------------------------


def _note_stalls(doc: Document, scanner, before: int, profile, verdict: HermesVerdict, report: ProfileReport) -> None:
    """Hermes patterns that stopped at the deadline on ``doc`` since the scanner held ``before`` stalls: a
    finding each and an error that makes the audit incomplete (exit 3, "undecided"): Hermes' session would hang
    loading that file, and its verdict is unknown (sixth red team, issue 18: a SOUL.md that stalls 0.19's
    scanner was called safe to install)."""
    found, errors = stall_report(doc, list(scanner.stalls.values())[before:], profile, verdict)
    report.findings.extend(found)
    report.errors.extend(errors)


def _select(catalog: Catalog, families: Optional[tuple[str, ...]] = None, exclude: tuple[str, ...] = ()) -> list[Rule]:
    return [r for r in catalog.rules if (families is None or r.family in families) and r.family not in exclude]


def _doc(root: Path, rel: str, kind: DocumentKind, max_bytes: int) -> Document:
    return Document.from_path(root / rel, rel, kind, root.resolve(), max_bytes)


class _OutOfTime(Exception):
    """The audit's time budget (:attr:`ProfileOptions.deadline`) ran out."""


def _tick(options: ProfileOptions) -> None:
    """Raise :class:`_OutOfTime` once ``options.deadline`` (a ``time.monotonic()`` value) has passed."""
    if options.deadline is not None and time.monotonic() > options.deadline:
        raise _OutOfTime


def _run(engine: Engine, doc: Document, report: ProfileReport, extra: Optional[list[Finding]] = None) -> None:
    _tick(report.options)
    res = engine.run(doc)
    found = [*(extra or []), *res.findings]
    text = doc.text or ""
    assign_fingerprints(found, [text[f.span.start:f.span.end] for f in found])
    report.findings.extend(found)
    report.errors.extend(res.errors)
    report.documents.setdefault(doc.path, doc)


#: What a gateway hook's ``handler.py`` does that is worth naming (its top level runs when the gateway starts).
_HOOK_CALLS = (
    ("runs commands", re.compile(r"\bsubprocess\b|\bos\.(?:system|popen|exec\w*|spawn\w*)\b|\bpty\.spawn\b")),
    ("evaluates code", re.compile(r"(?<![\w.])(?:eval|exec|compile)\s*\(|\b__import__\s*\(|\bmarshal\.loads\b|"
                                  r"\bpickle\.loads?\b|\bbase64\.b64decode\b")),
    ("reaches the network", re.compile(r"\b(?:requests|httpx|aiohttp|urllib|socket|http\.client)\b|https?://")),
    ("reads secrets", re.compile(r"\.env\b|os\.environ|getenv\s*\(|auth\.json|\.ssh/|_API_KEY|TOKEN")),
)


def gateway_hooks(root: Path, installed: set[str], max_bytes: int = DEFAULT_MAX_BYTES) -> list[tuple[str, str]]:
    """``(hooks/<name>, what its handler does)`` for each gateway hook the install copies: a directory of
    ``hooks/`` holding both ``HOOK.yaml`` and ``handler.py``. hermes-agent 0.19.0 ``gateway/hooks.py``
    (``HookRegistry.discover_and_load``, run by ``gateway/run.py`` at start) imports every such ``handler.py``
    under ``$HERMES_HOME/hooks/`` (the profile's directory for ``hermes -p NAME gateway``) with
    ``exec_module`` when its HOOK.yaml declares events, without asking: its top level runs at once and its
    ``handle`` on each event. The second item lists :data:`_HOOK_CALLS` found in the handler (``""`` none)."""
    out: list[tuple[str, str]] = []
    for rel in sorted(installed):
        parts = rel.split("/")
        if len(parts) == 3 and parts[0] == "hooks" and parts[2] == "handler.py" and \
                f"hooks/{parts[1]}/HOOK.yaml" in installed:
            doc = _doc(root, rel, DocumentKind.GENERIC, max_bytes)
            text = doc.text or ""
            what = [label for label, rx in _HOOK_CALLS if rx.search(text)]
            out.append((f"hooks/{parts[1]}", ", ".join(what)))
    return out


def plan_listing(tree: dist.Tree, plan: Optional[dist.InstallPlan],
                 hooks: Optional[list[tuple[str, str]]] = None) -> str:
    """The install-plan document the ``install-plan`` detector reads: tab-separated lines
    (``copy``/``skip``/``generate``/``mkdir``/``symlink``/``special``/``hook``); paths escaped. ``hooks``:
    :func:`gateway_hooks`."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")

    lines = [PLAN_HEADER]
    for e in tree.entries:
        if e.type == "symlink":
            lines.append(f"symlink\t{esc(e.rel)}\t{esc(e.target)}")
        elif e.type not in ("file", "dir"):
            lines.append(f"special\t{esc(e.rel)}\t{e.type}")
    if plan is not None:
        for c in plan.copies:
            lines.append(f"copy\t{esc(c.source)}\t{esc(c.dest)}\t{c.type}")
        for p, why in plan.skipped:
            lines.append(f"skip\t{esc(p)}\t{esc(why)}")
        for g in plan.generated:
            lines.append(f"generate\t{esc(g)}")
        for d in plan.bootstrap_dirs:
            lines.append(f"mkdir\t{esc(d)}/")
    for path, calls in hooks or ():
        lines.append(f"hook\t{esc(path)}\t{esc(calls)}")
    return "\n".join(lines) + "\n"


def _skill_dirs(tree: dist.Tree, installed: set[str]) -> list[str]:
    """Directories under ``skills/`` holding a ``SKILL.md`` that the install copies (outermost first)."""
    out: list[str] = []
    for e in tree.entries:
        if e.type == "file" and e.rel.startswith("skills/") and PurePosixPath(e.rel).name == "SKILL.md":
            d = str(PurePosixPath(e.rel).parent)
            if d != "skills" and e.rel in installed and not any(d.startswith(o + "/") for o in out):
                out.append(d)
    return out


def _guard_rule(code: str, pid: str, severity: str, category: str) -> Rule:
    """The rule of a skills-guard finding: the one ``rules --all`` and ``explain`` show
    (:func:`hermes_audit.hermes.skills_guard.guard_rules`), else a bare one."""
    try:
        known = next((r for r in guard_rules() if r.code == code), None)
    except SkillsGuardError:
        known = None
    if known is not None:
        return known
    return Rule(
        code=code, name=f"skills-guard-{pid.replace('_', '-')}", family=GUARD_FAMILY,
        severity=Severity.parse(severity), confidence=Confidence.HIGH,
        title=f"Hermes skills guard: {pid} ({category})", message="", help="", kinds=frozenset({"all"}),
        source="skills-guard.yaml", hermes_id=None,
    )


def _guard_findings(result: GuardResult, base: str, root: Path, report: ProfileReport, max_bytes: int) -> None:
    by_file: dict[str, list[Finding]] = {}
    for g in result.findings:
        path = f"{base}/{g.file}" if g.file not in ("(directory)",) else base
        doc = report.documents.get(path)
        if doc is None:
            if g.line > 0:
                doc = _doc(root, path, DocumentKind.SKILL if path.endswith("SKILL.md") else DocumentKind.GENERIC,
                           max_bytes)
            else:
                doc = Document.from_text("", path)
            report.documents[path] = doc
        s = e = 0
        if g.line > 0 and doc.text:
            try:
                s, e = doc.lines.line_bounds(g.line)
            except IndexError:
                s = e = 0
        rule = _guard_rule(g.code, g.pattern_id, g.severity, g.category)
        msg = (f"Hermes' skills guard (hub installs only, not run on a profile's skills): {g.pattern_id} "
               f"({g.category}, {g.severity}) matches"
               + (f": \"{g.match[:100]}\"" if g.line > 0 else f" ({g.match})"))
        f = make_finding(doc, rule, s, max(e, s), msg, hermes_pattern_id=g.pattern_id)
        by_file.setdefault(path, []).append(f)
    for path, found in by_file.items():
        doc = report.documents[path]
        text = doc.text or ""
        assign_fingerprints(found, [text[f.span.start:f.span.end] for f in found])
        report.findings.extend(found)


def _structured_prompt_strings(data: Any) -> list[tuple[str, str]]:
    """(key path, text) of config.yaml values that Hermes adds to the system prompt."""
    out: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        return out
    hints = data.get("platform_hints")
    if isinstance(hints, dict):
        for k, v in hints.items():
            if isinstance(v, str):
                out.append((f"platform_hints.{k}", v))
            elif isinstance(v, dict):
                for sub in ("append", "replace"):
                    if isinstance(v.get(sub), str):
                        out.append((f"platform_hints.{k}.{sub}", v[sub]))
    pers = data.get("personalities")
    if isinstance(pers, dict):
        for k, v in pers.items():
            if isinstance(v, str):
                out.append((f"personalities.{k}", v))
            elif isinstance(v, dict) and isinstance(v.get("system_prompt"), str):
                out.append((f"personalities.{k}.system_prompt", v["system_prompt"]))
    return out


def audit_distribution(
    root: Path,
    options: Optional[ProfileOptions] = None,
    source: Optional[str] = None,
    source_kind: str = "directory",
    catalog: Optional[Catalog] = None,
    installed: bool = False,
) -> ProfileReport:
    """Audit the distribution (or installed profile) in directory ``root``.

    ``source`` is what the user gave (shown, already redacted);
    ``source_kind`` is ``directory``, ``git`` or ``installed``. Nothing in
    ``root`` is written. Past ``options.deadline`` the audit stops before the next document: the report is
    incomplete (an error ``profile-timeout``; exit 3 unless a reason already makes it not safe). Raises :class:`~hermes_audit.patterns.catalog.CatalogError`
    or ``ValueError`` (unknown version) only; everything about the
    distribution itself is reported.
    """
    options = options or ProfileOptions()
    catalog = catalog or load_catalog(options.rules_dir)
    profile = get_profile(options.hermes_version)
    scanner = scanner_for(catalog.parity, profile.scanner)
    root = root.absolute()
    tree = dist.walk_tree(root)
    shown_manifest = str(root.resolve() / dist.MANIFEST_FILENAME)
    read = dist.read_manifest(root, shown_manifest)
    report = ProfileReport(source or str(root), source_kind, root, profile.name, profile.label, read, tree,
                           installed=installed, options=options)
    if tree.truncated:
        report.notes.append(f"the tree has more than {dist.MAX_TREE_ENTRIES:,} entries or is nested deeper than "
                            f"{dist.MAX_TREE_DEPTH}; only part of it was listed")
    current = options.hermes_current or profile.hermes_release

    # --- Hermes' refusal, and the plan -------------------------------------------------
    if read.error_kind == "missing":
        if source_kind == "git":
            report.refusal = f"No {dist.MANIFEST_FILENAME} at the root of {report.source!r}." + \
                profile.distribution_git_missing_suffix
        else:
            report.refusal = (f"No {dist.MANIFEST_FILENAME} in {source or root}. A local-directory source must contain a "
                              f"{dist.MANIFEST_FILENAME} at its root.")
    elif not installed:
        # Hermes' order (plan_install): hermes_requires before the profile name, so a version mismatch
        # is the message Hermes gives even when the name is bad too; it is kept apart from refusals that
        # say the distribution itself is broken
        report.refusal = dist.refusal(tree, read, profile, options.override_name, current)
        if read.error_kind == "limit" and report.refusal == read.error:  # hermes-audit's limit, not Hermes' refusal
            report.refusal = None
            report.not_evaluated = f"{read.error}; {read.hermes_effect or 'what Hermes does with it is not predicted'}"
        if report.refusal is not None and report.refusal.startswith(dist.VERSION_MISMATCH_PREFIX):
            report.version_refusal, report.refusal = report.refusal, None
    manifest = read.manifest or dist.Manifest(name="unnamed")
    if read.manifest is not None:
        report.notes.extend(f"distribution.yaml: {n}" for n in read.manifest.notes)
        if read.manifest.unknown_keys:
            report.notes.append("distribution.yaml: Hermes ignores (and drops on install) the key(s) "
                                + ", ".join(read.manifest.unknown_keys))
    if installed:
        report.notes.append("installed profile: every file is audited where it is; there is no install plan")
        installed_files = {e.rel for e in tree.files()}
    else:
        try:
            name = dist.install_name(manifest, options.override_name)
        except (dist.DistributionError, ValueError):
            name = (options.override_name or manifest.name).strip().lower() or "unnamed"
        target = f"{options.target_root.rstrip('/')}/profiles/{name}/"
        report.plan = dist.plan_install(tree, manifest, profile, name, target)
        installed_files = set(report.plan.installed_from)

    try:
        # --- distribution.yaml --------------------------------------------------------------
        audit_rules = _select(catalog, exclude=("hermes-parity",))
        if read.error_kind == "limit":
            # not evaluated (too large, a YAML bomb, unreadable): reported as it is, never parsed again
            msg = (read.error or "") + (f"; {read.hermes_effect}" if read.hermes_effect else "")
            f = make_finding(Document.from_text("", dist.MANIFEST_FILENAME, DocumentKind.DISTRIBUTION),
                             catalog.find("distribution-manifest-invalid"), 0, 0, msg, severity=Severity.HIGH)
            assign_fingerprints([f], [read.error or ""])
            report.findings.append(f)
        elif os.path.lexists(root / dist.MANIFEST_FILENAME):
            mdoc = _doc(root, dist.MANIFEST_FILENAME, DocumentKind.DISTRIBUTION, dist.MAX_MANIFEST_BYTES)
            if mdoc.readable:
                _run(AuditEngine([r for r in audit_rules if r.applies_to(DocumentKind.DISTRIBUTION)]), mdoc, report)

        # --- the install plan ---------------------------------------------------------------
        plan_doc = Document.from_text(plan_listing(tree, report.plan, gateway_hooks(root, installed_files, options.max_bytes)),
                                      PLAN_PATH)
        _run(AuditEngine([r for r in audit_rules if r.detector == "install-plan"]), plan_doc, report)

        # --- SOUL.md ------------------------------------------------------------------------
        if "SOUL.md" in installed_files or (installed and (root / "SOUL.md").is_file()):
            sdoc = _doc(root, "SOUL.md", DocumentKind.SOUL_MD, options.max_bytes)
            owned = manifest.distribution_owned if read.manifest is not None else []
            soul_state = {"distribution_owned": owned} if read.error is None else {"error": read.error}
            stalled = len(scanner.stalls)
            verdict = verdict_for(sdoc, scanner, profile, soul_state)
            report.soul = verdict
            _run(AuditEngine([r for r in audit_rules if r.applies_to(DocumentKind.SOUL_MD)]), sdoc, report,
                 parity_findings(sdoc, verdict, profile))
            _note_stalls(sdoc, scanner, stalled, profile, verdict, report)

        # --- skills and code directories ----------------------------------------------------
        guard = load_guard_catalog()
        skill_rules = [r for r in audit_rules if r.applies_to(DocumentKind.SKILL)]
        # one engine per rule set, built once: an engine keeps its per-rule plans and keyword triggers, and building
        # one per cron job or file was most of `profile`'s time on many small texts (round 8, issue 18.4)
        skill_engine = AuditEngine(skill_rules)
        covered: set[str] = set()
        for d in _skill_dirs(tree, installed_files):
            _tick(options)
            res = scan_skill(root / d, d, options.skills_trust, guard)
            report.skills.append(res)
            _guard_findings(res, d, root, report, options.max_bytes)
            for err in res.errors:
                report.errors.append(EngineError("skills-guard", d, err))
            sdoc = _doc(root, f"{d}/SKILL.md", DocumentKind.SKILL, options.max_bytes)
            _run(skill_engine, sdoc, report)
            why = skill_frontmatter_problem(sdoc.text) if sdoc.text is not None else None
            if why is not None and not why.bomb:
                # invalid YAML (Hermes falls back to key: value lines): said, never silent; the text itself was
                # scanned above, so the audit stays complete. A bomb is a finding (HA760, detector below).
                report.notes.append(f"{d}/SKILL.md: {why.message}")
            covered.add(d)
        loose = [e.rel for e in tree.files() if e.rel.startswith("skills/") and e.rel in installed_files
                 and not any(e.rel.startswith(c + "/") for c in covered)]
        for top in CODE_DIRS:
            entry = tree.get(top)
            if entry is not None and entry.type == "dir" and any(r.startswith(top + "/") for r in installed_files):
                res = scan_skill(root / top, top, options.skills_trust, guard)
                report.skills.append(res)
                _guard_findings(res, top, root, report, options.max_bytes)
        # audit rules for commands that run (exfiltration, execution, hidden characters) on every other text file

        code_engine = AuditEngine(_select(catalog, CODE_FAMILIES))
        for rel in sorted(installed_files):
            top = rel.split("/", 1)[0]
            if (top in ("skills", *CODE_DIRS) and PurePosixPath(rel).name != "SKILL.md"
                    and is_scannable(guard, PurePosixPath(rel).name)):
                _run(code_engine, _doc(root, rel, DocumentKind.GENERIC, options.max_bytes), report)
        if loose:

            lres = GuardResult("(files under skills/ outside any skill)", "skills", options.skills_trust, "safe")
            for rel in loose:
                _tick(options)
                if is_scannable(guard, PurePosixPath(rel).name):
                    ddoc = _doc(root, rel, DocumentKind.GENERIC, options.max_bytes)
                    if ddoc.text is not None:
                        t = ddoc.text.replace("\r\n", "\n").replace("\r", "\n")
                        for g in scan_text(guard, t, rel[len("skills/"):], lres.errors):
                            lres.findings.append(g)
            lres.verdict = determine_verdict(lres.findings)
            lres.decision, lres.reason = install_decision(guard, options.skills_trust, lres.verdict, len(lres.findings))
            if lres.findings:
                report.skills.append(lres)
                _guard_findings(lres, "skills", root, report, options.max_bytes)

        # --- cron ---------------------------------------------------------------------------
        cron_cat = load_cron_catalog()
        prompt_engine = AuditEngine(_select(catalog, PROMPT_FAMILIES))
        cron_rules = [r for r in audit_rules if r.detector == "cron-jobs"]
        for e in tree.files():
            if not e.rel.startswith("cron/") or not e.rel.endswith((".json", ".yaml", ".yml")):
                continue
            if e.rel not in installed_files:
                continue
            cdoc = _doc(root, e.rel, DocumentKind.GENERIC, mem.MAX_CONFIG_BYTES * 4)
            if cdoc.text is None:
                report.notes.append(f"{e.rel}: {cdoc.read.detail}")
                continue
            cf = parse_job_text(cdoc.text, e.rel)
            cr = CronReport(cf)
            for job in cf.jobs:
                _tick(options)
                if job.prompt:
                    v = scan_cron_prompt(job.prompt, cron_cat)
                    if v.blocked:
                        cr.blocked[job.index] = v.message
                    pdoc = Document.from_text(job.prompt, f"{e.rel} [job '{job.name}' prompt]")
                    res = prompt_engine.run(pdoc)
                    assign_fingerprints(res.findings, [job.prompt[f.span.start:f.span.end] for f in res.findings])
                    _place_in_jobs_file(res.findings, cdoc, job.prompt, job.name)
                    report.findings.extend(res.findings)
                    report.errors.extend(res.errors)
            report.cron.append(cr)
            _run(AuditEngine(cron_rules), cdoc, report)
            if cf.error:
                report.notes.append(f"{e.rel}: {cf.error}")

        # --- mcp.json, config.yaml, .env.EXAMPLE --------------------------------------------
        struct_rules = [r for r in audit_rules if r.detector in ("mcp-servers", "hermes-config")
                        or r.name == "hardcoded-secret"]
        for rel in ("mcp.json", "config.yaml"):
            if rel in installed_files:
                cdoc = _doc(root, rel, DocumentKind.GENERIC, MAX_STRUCTURED_CHARS)
                _run(AuditEngine(struct_rules), cdoc, report)
                if cdoc.text and cdoc.text.strip() and _load_structured(cdoc.text) is None:
                    # its MCP servers, hooks and settings could not be checked: the audit is incomplete (exit 3,
                    # verdict undecided), never "safe to install" by silence
                    report.errors.append(EngineError("profile-structured", rel, _unparsed(cdoc.text)))
                if rel == "mcp.json" and cdoc.text and any(True for _ in _servers(_load_structured(cdoc.text))):
                    report.notes.append("mcp.json: Hermes 0.19.0 starts the MCP servers listed in config.yaml "
                                        "(mcp_servers), not mcp.json; mcp.json is copied for other clients and editors, "
                                        "and its servers run wherever it is loaded")
                if rel == "config.yaml" and cdoc.text:
                    data = _load_structured(cdoc.text)
                    for key, text in _structured_prompt_strings(data):
                        _run(prompt_engine, Document.from_text(text, f"config.yaml [{key}]"), report)
        for rel, dest in sorted((report.plan.installed_from if report.plan else {}).items()):
            if dest == dist.ENV_EXAMPLE_FILENAME:
                _run(AuditEngine([r for r in audit_rules if r.name == "hardcoded-secret"]),
                     _doc(root, rel, DocumentKind.GENERIC, options.max_bytes), report)

        # --- memories -----------------------------------------------------------------------
        mcfg = mem.read_memory_config(root if (root / "config.yaml").is_file() else None)
        for target, fname in mem.STORE_FILES.items():
            rel = f"memories/{fname}"
            if not os.path.lexists(root / rel):
                continue
            kind = DocumentKind.USER_PROFILE if target == "user" else DocumentKind.MEMORY
            mdoc = _doc(root, rel, kind, options.max_bytes)
            rep = mem.analyse_store(mdoc, target, mcfg, scanner, profile)
            report.memories.append(rep)
            rules = [_with_limits(r, mcfg) for r in audit_rules if r.applies_to(kind)]
            stalled = len(scanner.stalls)
            mv = verdict_for(mdoc, scanner, profile)
            _run(AuditEngine(rules), mdoc, report, parity_findings(mdoc, mv, profile))
            _note_stalls(mdoc, scanner, stalled, profile, mv, report)
    except _OutOfTime:
        # the audit stops where the budget ran out: incomplete (exit 3, "undecided"), never "safe" by silence;
        # what was found so far still counts
        report.errors.append(EngineError("profile-timeout", "<profile>",
                                         f"the audit's time budget (--timeout {options.timeout:g} s) ran out; "
                                         "the rest of the distribution was not audited"))
    report.findings.sort(key=lambda f: (f.path, f.start.line, f.start.column, f.rule_id))
    _decide(report)
    return report


def _with_limits(rule: Rule, cfg: mem.MemoryConfig) -> Rule:
    if rule.detector != "memory-store":
        return rule
    from dataclasses import replace

    return replace(rule, params={**rule.params, "limits": dict(cfg.limits)})


def _decide(report: ProfileReport) -> None:
    """Fill ``report.reasons``: why the distribution is not safe to install (empty: safe)."""
    r = report.reasons
    label = report.hermes_label
    if report.refusal:
        r.append(f"{label} refuses to install it: {report.refusal}")
    if report.not_evaluated:
        r.append(report.not_evaluated)
    if report.soul is not None and report.soul.status == BLOCKED:
        r.append(f"SOUL.md: {label} blocks the distribution's identity file ({', '.join(report.soul.pattern_ids)}); "
                 "the agent would start with a [BLOCKED: ...] marker instead of its persona")
    # Hermes' skills guard is not a reason: `hermes profile install` never runs it, nor does Hermes when the skill
    # is used (hermes-agent 0.19.0 runs tools/skills_guard.py for `hermes skills install/audit/publish`, the
    # dashboard's hub scan, and skills the agent writes when skills.guard_agent_created is on). Its findings are
    # shown for comparison; the audit rules, run on the same files, decide (issue 22.6).
    for cr in report.cron:
        for job in cr.file.jobs:
            if job.index in cr.blocked:
                r.append(f"{cr.file.path}: cron job '{job.name}' — {cr.blocked[job.index]}")
    for m in report.memories:
        blocked = [e for e in m.entries if e.status == BLOCKED]
        if blocked:
            r.append(f"memories/{m.filename}: ships {len(blocked)} memory entr{'y' if len(blocked) == 1 else 'ies'} "
                     f"that Hermes would block ({', '.join(sorted({p for e in blocked for p in e.pattern_ids}))})")
    by_path: dict[str, list[Finding]] = {}
    for f in report.counted_findings():
        if f.rule_name == "cron-job-blocked":
            continue  # already a reason above, with Hermes' message
        if f.severity >= report.options.fail_on:
            by_path.setdefault(f.path, []).append(f)
    for path, fs in by_path.items():
        worst = max(fs, key=lambda f: f.severity)
        more = f" (+{len(fs) - 1} more)" if len(fs) > 1 else ""
        # shortened on a character boundary with a visible "…" (the finding itself keeps the whole message)
        r.append(f"{path}: {worst.rule_id} [{worst.severity.label}] {printable(worst.message, 160)}{more}")


# ---------------------------------------------------------------------------
# Structured-file parsing shared by the detectors
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Detector: mcp-servers
# ---------------------------------------------------------------------------



# ---------------------------------------------------------------------------
# Detector: hermes-config
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Detector: distribution-manifest
# ---------------------------------------------------------------------------



# ---------------------------------------------------------------------------
# Detector: install-plan
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Detector: cron-jobs
# ---------------------------------------------------------------------------

