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

import functools
import json
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Iterator, NamedTuple, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import DEFAULT_MAX_BYTES
from hermes_audit.patterns.catalog import Catalog, Rule, load_catalog
from hermes_audit.engine.engine import Engine, EngineError, make_finding
from hermes_audit.engine.unicode_chars import printable
from hermes_audit.findings import Confidence, Finding, Severity, Span, assign_fingerprints
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
from hermes_audit.hermes.verdict import BLOCKED, HermesVerdict, verdict_for

#: Path shown for the synthetic install-plan document.
PLAN_PATH = "<install plan>"
PLAN_HEADER = "# hermes-audit install plan"
#: Families run on a cron prompt or a config.yaml prompt string (text that reaches the model; a cron prompt
#: is an instruction the agent carries out unattended, so "curl ... | sh" in it is HA501 like anywhere else).
PROMPT_FAMILIES = ("injection", "exfiltration", "execution", "hidden-content", "unicode")
#: Largest structured file (mcp.json, config.yaml, cron jobs) the detectors parse.
MAX_STRUCTURED_CHARS = 4 * 1024 * 1024
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


def _select(catalog: Catalog, families: Optional[tuple[str, ...]] = None, exclude: tuple[str, ...] = ()) -> list[Rule]:
    return [r for r in catalog.rules if (families is None or r.family in families) and r.family not in exclude]


def _doc(root: Path, rel: str, kind: DocumentKind, max_bytes: int) -> Document:
    return Document.from_path(root / rel, rel, kind, root.resolve(), max_bytes)


def _run(engine: Engine, doc: Document, report: ProfileReport, extra: Optional[list[Finding]] = None) -> None:
    res = engine.run(doc)
    found = [*(extra or []), *res.findings]
    text = doc.text or ""
    assign_fingerprints(found, [text[f.span.start:f.span.end] for f in found])
    report.findings.extend(found)
    report.errors.extend(res.errors)
    report.documents.setdefault(doc.path, doc)


def plan_listing(tree: dist.Tree, plan: Optional[dist.InstallPlan]) -> str:
    """The install-plan document the ``install-plan`` detector reads: tab-separated lines
    (``copy``/``skip``/``generate``/``mkdir``/``symlink``/``special``); paths escaped."""
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
    from hermes_audit.hermes.skills_guard import SkillsGuardError, guard_rules

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
    ``root`` is written. Raises :class:`~hermes_audit.patterns.catalog.CatalogError`
    or ``ValueError`` (unknown version) only; everything about the
    distribution itself is reported.
    """
    from hermes_audit.scan import parity_findings

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
    current = options.hermes_current or dist.PROFILE_HERMES_VERSION.get(profile.name)

    # --- Hermes' refusal, and the plan -------------------------------------------------
    if read.error_kind == "missing":
        if source_kind == "git":
            report.refusal = (f"No {dist.MANIFEST_FILENAME} at the root of {report.source!r}."
                              + ("" if profile.lineage == "latest" else " This repository is not a Hermes profile distribution."))
        else:
            report.refusal = (f"No {dist.MANIFEST_FILENAME} in {source or root}. A local-directory source must contain a "
                              f"{dist.MANIFEST_FILENAME} at its root.")
    elif not installed:
        # Hermes' order (plan_install): hermes_requires before the profile name, so a version mismatch
        # is the message Hermes gives even when the name is bad too; it is kept apart from refusals that
        # say the distribution itself is broken
        report.refusal = dist.refusal(tree, read, profile.name, options.override_name, current)
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
        report.plan = dist.plan_install(tree, manifest, profile.name, name, target)
        installed_files = set(report.plan.installed_from)

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
            _run(Engine([r for r in audit_rules if r.applies_to(DocumentKind.DISTRIBUTION)]), mdoc, report)

    # --- the install plan ---------------------------------------------------------------
    plan_doc = Document.from_text(plan_listing(tree, report.plan), PLAN_PATH)
    _run(Engine([r for r in audit_rules if r.detector == "install-plan"]), plan_doc, report)

    # --- SOUL.md ------------------------------------------------------------------------
    if "SOUL.md" in installed_files or (installed and (root / "SOUL.md").is_file()):
        sdoc = _doc(root, "SOUL.md", DocumentKind.SOUL_MD, options.max_bytes)
        owned = manifest.distribution_owned if read.manifest is not None else []
        soul_state = {"distribution_owned": owned} if read.error is None else {"error": read.error}
        verdict = verdict_for(sdoc, scanner, profile, soul_state)
        report.soul = verdict
        _run(Engine([r for r in audit_rules if r.applies_to(DocumentKind.SOUL_MD)]), sdoc, report,
             parity_findings(sdoc, verdict, profile))

    # --- skills and code directories ----------------------------------------------------
    guard = load_guard_catalog()
    skill_rules = [r for r in audit_rules if r.applies_to(DocumentKind.SKILL)]
    covered: set[str] = set()
    for d in _skill_dirs(tree, installed_files):
        res = scan_skill(root / d, d, options.skills_trust, guard)
        report.skills.append(res)
        _guard_findings(res, d, root, report, options.max_bytes)
        for err in res.errors:
            report.errors.append(EngineError("skills-guard", d, err))
        sdoc = _doc(root, f"{d}/SKILL.md", DocumentKind.SKILL, options.max_bytes)
        _run(Engine(skill_rules), sdoc, report)
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
    from hermes_audit.hermes.skills_guard import determine_verdict, install_decision, is_scannable, scan_text

    code_rules = _select(catalog, CODE_FAMILIES)
    for rel in sorted(installed_files):
        top = rel.split("/", 1)[0]
        if (top in ("skills", *CODE_DIRS) and PurePosixPath(rel).name != "SKILL.md"
                and is_scannable(guard, PurePosixPath(rel).name)):
            _run(Engine(code_rules), _doc(root, rel, DocumentKind.GENERIC, options.max_bytes), report)
    if loose:

        lres = GuardResult("(files under skills/ outside any skill)", "skills", options.skills_trust, "safe")
        for rel in loose:
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
    prompt_rules = _select(catalog, PROMPT_FAMILIES)
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
            if job.prompt:
                v = scan_cron_prompt(job.prompt, cron_cat)
                if v.blocked:
                    cr.blocked[job.index] = v.message
                pdoc = Document.from_text(job.prompt, f"{e.rel} [job '{job.name}' prompt]")
                res = Engine(prompt_rules).run(pdoc)
                assign_fingerprints(res.findings, [job.prompt[f.span.start:f.span.end] for f in res.findings])
                _place_in_jobs_file(res.findings, cdoc, job.prompt, job.name)
                report.findings.extend(res.findings)
                report.errors.extend(res.errors)
        report.cron.append(cr)
        _run(Engine(cron_rules), cdoc, report)
        if cf.error:
            report.notes.append(f"{e.rel}: {cf.error}")

    # --- mcp.json, config.yaml, .env.EXAMPLE --------------------------------------------
    struct_rules = [r for r in audit_rules if r.detector in ("mcp-servers", "hermes-config")
                    or r.name == "hardcoded-secret"]
    for rel in ("mcp.json", "config.yaml"):
        if rel in installed_files:
            cdoc = _doc(root, rel, DocumentKind.GENERIC, MAX_STRUCTURED_CHARS)
            _run(Engine(struct_rules), cdoc, report)
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
                    _run(Engine(prompt_rules), Document.from_text(text, f"config.yaml [{key}]"), report)
    for rel, dest in sorted((report.plan.installed_from if report.plan else {}).items()):
        if dest == dist.ENV_EXAMPLE_FILENAME:
            _run(Engine([r for r in audit_rules if r.name == "hardcoded-secret"]),
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
        mv = verdict_for(mdoc, scanner, profile)
        _run(Engine(rules), mdoc, report, parity_findings(mdoc, mv, profile))

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


def _load_structured(text: str) -> Any:
    """JSON or YAML (bounded) data of a config file, or ``None`` when it is neither or too large."""
    if len(text) > MAX_STRUCTURED_CHARS:
        return None
    t = text[1:] if text.startswith("\ufeff") else text
    s = t.lstrip()
    if s.startswith(("{", "[")):
        try:
            return json.loads(t)
        except (ValueError, RecursionError):
            pass
    try:
        return dist.load_yaml_bounded(t)
    except Exception:  # invalid YAML or over the limits: nothing to check
        return None


#: Hermes' front-matter fence (``parse_frontmatter``, hermes-agent 0.19.0 ``agent/skill_utils.py``): the
#: YAML runs from after the leading ``---`` to the next line that is ``---`` (trailing spaces allowed).
_FRONTMATTER_END = re.compile(r"\n---\s*\n")


#: How :func:`skill_frontmatter_problem` opens its message for front matter that is a YAML alias bomb.
FRONTMATTER_BOMB = "front matter is a YAML alias bomb, not evaluated"


class FrontMatterProblem(NamedTuple):
    """Why a ``SKILL.md``'s front matter could not be read: ``bomb`` (a YAML alias bomb, finding HA760) or
    not (a note of the profile audit), and the one-line ``message``."""

    bomb: bool
    message: str


def detect_skill_frontmatter(text: str, params: dict) -> Iterator:
    """Detector ``skill-frontmatter`` (HA760): one hit on the opening ``---`` of a ``SKILL.md`` whose front
    matter is over the YAML limits (:func:`skill_frontmatter_problem`), message saying why and what Hermes
    0.19.0 does with it; nothing for front matter that parses or is merely invalid (Hermes then reads its
    ``key: value`` lines, a note of the profile audit)."""
    why = skill_frontmatter_problem(text)
    if why is not None and why.bomb:
        start = 1 if text.startswith("\ufeff") else 0
        yield _hit((start, start + 3), {"message": why.message})


@functools.lru_cache(maxsize=4)
def skill_frontmatter_problem(text: str) -> Optional[FrontMatterProblem]:
    """Why the YAML front matter of a ``SKILL.md`` (``text``) could not be read; ``None`` when there is none
    or it parses. Cached for the last few texts: the HA760 detector and the profile audit's note both ask
    about the same ``SKILL.md``, which is parsed once.

    The front matter is found as Hermes finds it (``parse_frontmatter``, hermes-agent 0.19.0
    ``agent/skill_utils.py``: one leading U+FEFF dropped, ``---`` at the start, the YAML up to the next
    ``\n---`` line) and parsed with :func:`hermes_audit.hermes.distribution.load_yaml_bounded`. An alias
    bomb (``bomb`` true): :data:`FRONTMATTER_BOMB` ``: <why>; ...`` (HA760); nested too deeply: ``front matter not read:
    ...``; a self-reference or too many nodes: ``front matter not evaluated: <why>; ...``; invalid YAML: ``front matter not read: invalid YAML: <PyYAML's message with (line L,
    column C) in the file's lines>; ...``, each saying what Hermes does with it. Never raises.
    """
    import yaml

    content = text[1:] if text.startswith("\ufeff") else text
    if not content.startswith("---"):
        return None
    end = _FRONTMATTER_END.search(content, 3)
    if end is None:
        return None
    block = content[3:end.start()]
    scanned = "the skill's text was still scanned line by line (skills guard and audit rules)"
    try:
        dist.load_yaml_bounded(block)
    except dist.YamlLimitError as exc:
        if exc.kind == "bomb":
            return FrontMatterProblem(True, (
                f"{FRONTMATTER_BOMB}: {exc}; Hermes parses it with yaml.safe_load (quickly: an alias is a shared "
                "reference) each time it builds the skills index, where turning a bombed value into text (str() "
                f"of the description, say) exhausts time and memory; {scanned}"))
        if exc.kind == "depth":  # parse_frontmatter catches every exception of yaml_load
            return FrontMatterProblem(False, (
                f"front matter not read: {exc}; Hermes' yaml.safe_load fails on it too (RecursionError) and "
                f"Hermes falls back to reading its 'key: value' lines one by one; {scanned}"))
        return FrontMatterProblem(False, (
            f"front matter not evaluated: {exc}; Hermes loads it (a self-reference prints as [...], nodes are "
            f"only many); {scanned}"))
    except yaml.YAMLError as exc:
        for mark in (getattr(exc, "context_mark", None), getattr(exc, "problem_mark", None)):
            if mark is not None and mark.line == 0:
                mark.column += 3  # the block starts after the opening '---' on the file's first line
        return FrontMatterProblem(False, (
            f"front matter not read: invalid YAML: {dist.yaml_error_text(exc)}; Hermes falls back to reading "
            f"its 'key: value' lines one by one (name, description); {scanned}"))
    except (ValueError, RecursionError) as exc:
        return FrontMatterProblem(False, f"front matter not read: {' '.join(str(exc).split())[:200]}; {scanned}")
    return None


def _unparsed(text: str) -> str:
    """Why :func:`_load_structured` gave nothing for ``text``, one line."""
    if len(text) > MAX_STRUCTURED_CHARS:
        return f"not evaluated: more than {MAX_STRUCTURED_CHARS:,} characters"
    try:
        dist.load_yaml_bounded(text[1:] if text.startswith("\ufeff") else text)
    except Exception as exc:  # the same call that failed: its message (YAML bomb, syntax error with position)
        return f"not evaluated: {' '.join(str(exc).split())[:200]}"
    return "not evaluated: neither JSON nor YAML"


def _locate(text: str, *needles: str) -> tuple[int, int]:
    """Span of the first needle found (as a JSON/YAML key first), else ``(0, 0)``."""
    for n in needles:
        if not n:
            continue
        for pat in (r'["\']' + re.escape(n) + r'["\']\s*:', r"(?m)^[ \t-]*" + re.escape(n) + r"\s*:"):
            m = re.search(pat, text)
            if m:
                i = text.find(n, m.start())
                return i, i + len(n)
        i = text.find(n)
        if i >= 0:
            return i, i + len(n)
        j = text.find(json.dumps(n)[1:-1])
        if j >= 0:
            return j, j + len(json.dumps(n)) - 2
    return 0, 0


def _prompt_line_starts(text: str, prompt: str, origin: int) -> list[Optional[int]]:
    """Offset in the jobs file ``text`` where each line of ``prompt`` starts, searching forward from
    ``origin`` (where the prompt's value is); ``None`` for a line that is not in the file as it is (an
    escape inside it) or that is blank."""
    starts: list[Optional[int]] = []
    pos = origin
    for line in prompt.split("\n"):
        probe = line.strip()
        i = text.find(probe, pos) if probe else -1
        if i < 0:
            starts.append(None)
            continue
        starts.append(max(i - (len(line) - len(line.lstrip())), 0))
        pos = i + len(probe)
    return starts


def _place_in_jobs_file(found: list[Finding], cdoc: Document, prompt: str, job: str) -> None:
    """Move findings made on a cron job's ``prompt`` into the jobs file ``cdoc``: its path, and the line and
    column of the matched text there (a YAML block scalar's lines, a JSON string's ``\\n``-joined line);
    where the file escapes the text, the start of the prompt's value. The message names the job."""
    text = cdoc.text or ""
    origin = _locate(text, prompt[:60], json.dumps(prompt)[1:61], job)[0]
    starts = _prompt_line_starts(text, prompt, origin)
    line_of = [0] + [i + 1 for i, ch in enumerate(prompt) if ch == "\n"]  # where each prompt line starts

    def where(offset: int) -> int:
        from bisect import bisect_right

        k = bisect_right(line_of, offset) - 1
        base = starts[k] if 0 <= k < len(starts) else None
        return origin if base is None else min(base + offset - line_of[k], len(text))

    for f in found:
        a = where(f.span.start)
        b = max(where(f.span.end) if f.span.end > f.span.start else a, a)
        f.path, f.span, f.start, f.end = cdoc.path, Span(a, b), cdoc.position(a), cdoc.position(b)
        f.message = f"cron job '{job}' prompt: {f.message}"


def _hit(span: tuple[int, int], fields: dict, severity: Optional[Severity] = None):
    from hermes_audit.engine.detectors import DetectorHit

    s, e = span
    return DetectorHit(s, e, fields, severity=severity)


# ---------------------------------------------------------------------------
# Detector: mcp-servers
# ---------------------------------------------------------------------------

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "ksh", "mksh", "csh", "tcsh", "ash", "yash", "nu",
                    "cmd", "powershell", "pwsh"})
#: ``hermes_cli/mcp_security.py`` (0.19.0): the shells its guard recognises, by the command's own basename.
HERMES_GUARD_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "cmd", "cmd.exe", "powershell",
                                 "powershell.exe", "pwsh", "pwsh.exe"})
HERMES_GUARD_EGRESS = re.compile(
    r"(?<![\w.-])(?:curl|wget|nc|ncat|socat)(?![\w.-])|/dev/tcp/|\bInvoke-WebRequest\b|\bInvoke-RestMethod\b"
    r"|\bSystem\.Net\.WebClient\b", re.IGNORECASE)
HERMES_GUARD_PERSISTENCE = re.compile(
    r"authorized_keys|\.ssh/|/etc/ssh\b|/etc/pam\.d\b|pam_[\w-]+\.so|/etc/sudoers|/etc/cron|crontab\b"
    r"|/etc/rc\.local|/etc/systemd|\.bashrc\b|\.bash_profile\b|\.profile\b|\.zshrc\b", re.IGNORECASE)
HERMES_GUARD_IOCS = ("AAAAC3NzaC1lZDI1NTE5AAAAICBoh1oDC4DnsO1m5mJ4yfEKrQebaFh", "hermes-0day", "60.165.167.",
                     "118.182.244.156", "61.178.123.196")
_NETWORK = re.compile(
    r"(?<![\w.-])(?:curl|wget|nc|ncat|netcat|socat|telnet|ftp|tftp|scp|rsync|ssh)(?![\w.-])|/dev/(?:tcp|udp)/"
    r"|\bInvoke-(?:WebRequest|RestMethod)\b|\b(?:iwr|irm)\b|Net\.WebClient|\burllib\b|\burlopen\b"
    r"|\brequests\.(?:get|post|put)\b|\bhttp\.client\b|\bhttpx\b|\bfetch\s*\(|XMLHttpRequest|\bnet\.connect\b"
    r"|\bsocket\.(?:socket|create_connection)\b|https?://", re.IGNORECASE)
_PERSISTENCE = re.compile(
    HERMES_GUARD_PERSISTENCE.pattern
    + r"|LaunchAgents|LaunchDaemons|\.config/autostart|CurrentVersion\\+Run|\bschtasks\b"
    r"|systemctl\s+(?:--user\s+)?enable|\.hermes/(?:config\.yaml|SOUL\.md|\.env|plugins)|\.zprofile\b",
    re.IGNORECASE)
_WRAPPERS = frozenset({"env", "timeout", "nice", "nohup", "stdbuf", "sudo", "doas", "exec", "command", "setsid",
                       "ionice", "chrt", "taskset", "time", "unbuffer", "xargs", "caffeinate", "flock", "runuser",
                       "busybox", "firejail", "script", "strace", "ltrace", "watch"})
_WRAPPER_OPTS = {"nice": {"-n"}, "timeout": {"-s", "-k", "--signal", "--kill-after"}, "stdbuf": {"-i", "-o", "-e"},
                 "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "doas": {"-u", "-C"},
                 "ionice": {"-c", "-n", "-p"}, "taskset": {"-c"}, "flock": {"-w", "-E"}, "runuser": {"-u", "-g"},
                 "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"}, "env": {"-u", "-C", "-S"},
                 "watch": {"-n", "-d"}, "strace": {"-o", "-e", "-p", "-s"}}
_INTERPRETERS = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|node|nodejs|perl|ruby|php|deno|bun|osascript|lua|rscript|"
                           r"tclsh|wish|awk|gawk|jshell|groovy)$")
_INLINE_FLAGS = frozenset({"-c", "-e", "-E", "--eval", "-r", "--command", "eval", "-p", "--print", "-Command",
                           "-command", "-EncodedCommand", "-encodedcommand", "-enc", "/c", "/k", "/C", "/K"})
_RUNNERS = {"npx": "npm", "bunx": "npm", "pnpx": "npm", "uvx": "pypi", "docker": "docker", "podman": "docker"}
_SECRET_NAME = re.compile(r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL|AUTH|COOKIE|BEARER|PAT|SESSION)")
_TOKEN_SHAPE = re.compile(r"(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|"
                          r"glpat-[A-Za-z0-9_\-]{20,}|xox[abpr]-[A-Za-z0-9\-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35})")
_PLACEHOLDER = re.compile(r"(?i)^(?:<[^>]*>|your[\w\- ]*|x{3,}|\*{3,}|\.{3}|changeme|change[-_]me|todo|tbd|none|null|"
                          r"example[\w\-]*|placeholder|replace[\w\- ]*|dummy|test|secret|token|password)$")
_ENV_REF = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _base(tok: str) -> str:
    b = os.path.basename(str(tok).replace("\\", "/")).lower()
    return b[:-4] if b.endswith(".exe") else b


def _argv(cfg: dict) -> list[str]:
    cmd = cfg.get("command")
    out: list[str] = []
    if isinstance(cmd, list):
        out.extend(str(x) for x in cmd)
    elif cmd is not None:
        try:
            out.extend(shlex.split(str(cmd)))
        except ValueError:
            out.extend(str(cmd).split())
    args = cfg.get("args")
    if isinstance(args, list):
        out.extend(str(x) for x in args)
    elif isinstance(args, str):
        try:
            out.extend(shlex.split(args))
        except ValueError:
            out.extend(args.split())
    return out


def _unwrap(argv: list[str]) -> list[str]:
    """Drop wrapper commands (``env``, ``timeout 5``, ``nice -n 10``, ``busybox``...) in front of the real command."""
    i = 0
    n = len(argv)
    while i < n and _base(argv[i]) in _WRAPPERS:
        w = _base(argv[i])
        i += 1
        positional_used = False
        while i < n:
            t = argv[i]
            if t == "--":
                i += 1
                break
            if t.startswith("-") and len(t) > 1:
                i += 2 if t in _WRAPPER_OPTS.get(w, ()) else 1
                continue
            if w == "env" and "=" in t and not t.startswith("="):
                i += 1
                continue
            if w in ("timeout", "nice", "chrt", "taskset", "flock", "watch") and not positional_used and \
                    (w != "timeout" or re.fullmatch(r"[\d.]+[smhd]?", t)) and \
                    (w not in ("nice", "chrt") or re.fullmatch(r"[+-]?\d+", t)):
                positional_used = True
                i += 1
                continue
            break
    return argv[i:]


@dataclass
class _ServerView:
    name: str
    cfg: dict
    argv: list[str]
    core: list[str]

    @property
    def command_text(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv)[:200]


def _servers(data: Any) -> Iterator[_ServerView]:
    if not isinstance(data, dict):
        return
    for key in ("mcpServers", "mcp_servers", "servers"):
        block = data.get(key)
        if isinstance(block, dict):
            for name, cfg in block.items():
                if isinstance(cfg, dict) and any(k in cfg for k in ("command", "url", "args")):
                    argv = _argv(cfg)
                    yield _ServerView(str(name), cfg, argv, _unwrap(argv))
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):
        yield from _servers({"servers": mcp["servers"]})


def hermes_guard_issues(name: str, cfg: dict) -> list[str]:
    """``validate_mcp_server_entry`` of hermes-agent 0.19.0 (``hermes_cli/mcp_security.py``): why Hermes
    would skip this server (empty: Hermes starts it)."""
    flat = " ".join([str(cfg.get("command") or ""), _inline(cfg.get("args"))]
                    + ([str(v) for v in cfg["env"].values()] if isinstance(cfg.get("env"), dict) else []))
    for ioc in HERMES_GUARD_IOCS:
        if ioc in flat:
            return [f"known hermes-0day indicator ('{ioc}')"]
    cmd = str(cfg.get("command") or "").strip()
    if not cmd:
        return []
    try:
        parts = shlex.split(cmd)
    except ValueError:
        parts = cmd.split()
    base = os.path.basename(parts[0] if parts else cmd).lower()
    if base not in HERMES_GUARD_SHELLS:
        return []
    script = _inline(cfg.get("args"))
    out = []
    if script and HERMES_GUARD_EGRESS.search(script):
        out.append("shell with network egress in args")
    if script and HERMES_GUARD_PERSISTENCE.search(script):
        out.append("shell writing to an OS persistence surface")
    return out


def _inline(args: Any) -> str:
    if args is None:
        return ""
    if isinstance(args, (list, tuple)):
        return " ".join(str(a) for a in args)
    return str(args)


def _hermes_note(sv: _ServerView) -> str:
    issues = hermes_guard_issues(sv.name, sv.cfg)
    if issues:
        return f" (Hermes 0.19.0's MCP guard skips it: {issues[0]})"
    return " (Hermes 0.19.0's MCP guard lets it start)"


def _is_pinned(runner: str, spec: str) -> bool:
    if spec.startswith((".", "/", "~")) or "://" in spec or spec.startswith(("git+", "file:")):
        return True
    if runner == "npm":
        body = spec[1:] if spec.startswith("@") else spec
        if "@" not in body:
            return False
        ver = body.rsplit("@", 1)[1]
        return bool(ver) and ver not in ("latest", "next", "*", "x")
    if runner == "pypi":
        return "==" in spec or ("@" in spec and not spec.endswith("@latest"))
    if runner == "docker":
        if "@sha256:" in spec:
            return True
        last = spec.rsplit("/", 1)[-1]
        return ":" in last and not last.endswith(":latest")
    return True


def _package(core: list[str]) -> Optional[tuple[str, str, str]]:
    """(runner shown, registry kind, package spec) for npx/uvx/pipx/dlx/docker run command lines."""
    if not core:
        return None
    b = _base(core[0])
    rest = core[1:]
    kind = _RUNNERS.get(b)
    shown = b
    if b in ("pnpm", "yarn") and rest[:1] == ["dlx"]:
        kind, shown, rest = "npm", f"{b} dlx", rest[1:]
    elif b == "npm" and rest[:1] and rest[0] in ("exec", "x"):
        kind, shown, rest = "npm", f"npm {rest[0]}", rest[1:]
    elif b == "pipx" and rest[:1] == ["run"]:
        kind, shown, rest = "pypi", "pipx run", rest[1:]
    elif kind == "docker":
        if rest[:1] != ["run"]:
            return None
        rest = rest[1:]
        with_value = {"-e", "--env", "-v", "--volume", "--name", "-p", "--publish", "--network", "--mount", "-w",
                      "--workdir", "-u", "--user", "--entrypoint", "--env-file", "-l", "--label", "--platform"}
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 2 if rest[i] in with_value else 1
        return (shown, "docker", rest[i]) if i < len(rest) else None
    if kind is None:
        return None
    i = 0
    while i < len(rest):
        t = rest[i]
        if t in ("--from", "-p", "--package", "--with", "--spec"):
            if i + 1 < len(rest):
                return shown, kind, rest[i + 1]
            return None
        if t.startswith("--package=") or t.startswith("--from="):
            return shown, kind, t.split("=", 1)[1]
        if t.startswith("-"):
            i += 1
            continue
        return shown, kind, t
    return None


def detect_mcp_servers(text: str, params: dict) -> Iterator:
    """Detector ``mcp-servers``: MCP server entries in mcp.json (``mcpServers``) or config.yaml
    (``mcp_servers``). ``params.check``: shell, network, persistence, remote, credential, unpinned."""
    if not any(k in text for k in ("mcpServers", "mcp_servers", "servers")):
        return
    data = _load_structured(text)
    check = params.get("check")
    for sv in _servers(data):
        span = _locate(text, sv.name)
        core = sv.core
        head = _base(core[0]) if core else ""
        rest = core[1:]
        is_shell = head in SHELLS or (head == "su" and "-c" in rest)
        inline_interp = bool(_INTERPRETERS.match(head)) and any(t in _INLINE_FLAGS for t in rest)
        script = " ".join(rest) if (is_shell or inline_interp) else ""
        if check == "shell" and (is_shell or inline_interp):
            if is_shell:
                has_inline = any(t in _INLINE_FLAGS for t in rest)
                what = "starts a shell with an inline command line" if has_inline else "starts a shell"
                sev = None if has_inline else Severity.HIGH
            else:
                what, sev = f"runs inline {head} code", None
            wrapped = len(sv.argv) - len(core)
            if wrapped:
                what += f" (behind {' '.join(sv.argv[:wrapped])[:40]})"
            yield _hit(span, {"server": sv.name, "what": what, "command": sv.command_text,
                              "hermes": _hermes_note(sv)}, sev)
        elif check == "network" and script:
            m = _NETWORK.search(script)
            if m:
                yield _hit(span, {"server": sv.name, "match": script[max(0, m.start() - 20):m.end() + 60][:120]})
        elif check == "persistence" and script:
            m = _PERSISTENCE.search(script)
            if m:
                yield _hit(span, {"server": sv.name, "match": script[max(0, m.start() - 30):m.end() + 30][:120]})
        elif check == "remote":
            url = sv.cfg.get("url") or sv.cfg.get("serverUrl")
            if isinstance(url, str) and url.strip():
                from urllib.parse import urlsplit

                from hermes_audit.gitsource import redact_url

                try:
                    host = (urlsplit(url.strip()).hostname or "").lower()
                except ValueError:
                    host = ""
                if host in ("localhost", "127.0.0.1", "::1") or host.endswith(".localhost"):
                    continue
                plain = url.strip().lower().startswith(("http://", "ws://"))
                shown = redact_url(url.strip())[:200] + (" (plain http: anyone on the path can read it)" if plain else "")
                yield _hit(_locate(text, url) if url in text else span, {"server": sv.name, "url": shown},
                           Severity.HIGH if plain else None)
        elif check == "credential":
            for section in ("env", "headers"):
                block = sv.cfg.get(section)
                if not isinstance(block, dict):
                    continue
                for k, v in block.items():
                    if not isinstance(v, (str, int)) or isinstance(v, bool):
                        continue
                    v = str(v)
                    refs = [r for r in _ENV_REF.findall(v) if _SECRET_NAME.search(r)]
                    literal = v
                    for r in _ENV_REF.finditer(v):
                        literal = literal.replace(r.group(0), "")
                    lit = literal.strip()
                    for word in ("Bearer", "bearer", "Token", "token", "Basic", "basic"):
                        if lit.startswith(word + " "):
                            lit = lit[len(word) + 1:].strip()
                    where = _locate(text, str(k))
                    if _TOKEN_SHAPE.search(v) or (_SECRET_NAME.search(str(k)) and len(lit) >= 8
                                                  and not _PLACEHOLDER.match(lit) and " " not in lit):
                        yield _hit(where, {"server": sv.name,
                                           "what": f"has a literal credential in {section} {k!s}: anyone with the "
                                                   "distribution has it too"})
                    elif refs:
                        yield _hit(where, {"server": sv.name,
                                           "what": f"receives your ${refs[0]} through {section} {k!s}"}, Severity.INFO)
        elif check == "unpinned":
            pkg = _package(core)
            if pkg and not _is_pinned(pkg[1], pkg[2]):
                yield _hit(span, {"server": sv.name, "package": pkg[2], "runner": pkg[0]})


# ---------------------------------------------------------------------------
# Detector: hermes-config
# ---------------------------------------------------------------------------


def detect_hermes_config(text: str, params: dict) -> Iterator:
    """Detector ``hermes-config``: Hermes config.yaml settings. ``params.check``: hooks, quick-commands,
    safety, plugins."""
    check = params.get("check")
    keys = {"hooks": ("hooks",), "quick-commands": ("quick_commands",), "plugins": ("plugins",),
            "safety": ("approvals", "command_allowlist", "hooks_auto_accept", "security", "delegation", "browser",
                       "terminal")}.get(check, ())
    if not any(k in text for k in keys):
        return
    data = _load_structured(text)
    if not isinstance(data, dict):
        return
    if check == "hooks":
        hooks = data.get("hooks")
        auto = data.get("hooks_auto_accept") is True
        if isinstance(hooks, dict):
            for event, entries in hooks.items():
                items = entries if isinstance(entries, list) else [entries]
                for ent in items:
                    cmd = ent.get("command") if isinstance(ent, dict) else ent
                    if not isinstance(cmd, str) or not cmd.strip():
                        continue
                    yield _hit(_locate(text, cmd.strip(), str(event)),
                               {"event": str(event), "command": cmd.strip()[:160],
                                "auto": " with no confirmation (hooks_auto_accept: true)" if auto
                                else " (Hermes asks once before registering it)"},
                               Severity.CRITICAL if auto else None)
    elif check == "quick-commands":
        qc = data.get("quick_commands")
        if isinstance(qc, dict):
            for name, cfg in qc.items():
                cmd = cfg.get("command") if isinstance(cfg, dict) else cfg
                if not isinstance(cmd, str) or not cmd.strip():
                    continue
                risky = bool(_NETWORK.search(cmd)) or bool(re.search(r"\|\s*(?:ba|z|da)?sh\b", cmd))
                yield _hit(_locate(text, cmd.strip(), str(name)), {"name": str(name), "command": cmd.strip()[:160]},
                           Severity.HIGH if risky else None)
    elif check == "plugins":
        plugins = data.get("plugins")
        enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
        if isinstance(enabled, list) and enabled:
            yield _hit(_locate(text, "enabled", "plugins"), {"plugins": ", ".join(str(p) for p in enabled)[:160]})
    elif check == "safety":
        yield from _safety(text, data)


def _safety(text: str, data: dict) -> Iterator:
    def get(*path: str) -> Any:
        cur: Any = data
        for p in path:
            if not isinstance(cur, dict) or p not in cur:
                return _MISSING
            cur = cur[p]
        return cur

    ap_mode = get("approvals", "mode")
    if ap_mode is not _MISSING and (ap_mode is False or (isinstance(ap_mode, str) and ap_mode.strip().lower() == "off")):
        yield _hit(_locate(text, "mode", "approvals"),
                   {"what": "sets approvals.mode: off: dangerous commands run without asking"})
    cron_mode = get("approvals", "cron_mode")
    if cron_mode is not _MISSING and str(cron_mode).lower().strip() in {"approve", "off", "allow", "yes"}:
        yield _hit(_locate(text, "cron_mode"),
                   {"what": f"sets approvals.cron_mode: {cron_mode}: cron jobs run dangerous commands unapproved"})
    allow = data.get("command_allowlist")
    if isinstance(allow, list) and allow:
        yield _hit(_locate(text, "command_allowlist"),
                   {"what": "pre-approves dangerous commands (command_allowlist: "
                            + ", ".join(str(a) for a in allow)[:120] + ")"})
    if data.get("hooks_auto_accept") is True:
        yield _hit(_locate(text, "hooks_auto_accept"),
                   {"what": "sets hooks_auto_accept: true: shell hooks are registered without asking"})
    if get("delegation", "subagent_auto_approve") is True:
        yield _hit(_locate(text, "subagent_auto_approve"),
                   {"what": "sets delegation.subagent_auto_approve: true: subagents' actions are approved automatically"})
    if get("security", "redact_secrets") is False:
        yield _hit(_locate(text, "redact_secrets"),
                   {"what": "sets security.redact_secrets: false: secrets in tool output reach the model"},
                   Severity.MEDIUM)
    if get("security", "tirith_enabled") is False:
        yield _hit(_locate(text, "tirith_enabled"),
                   {"what": "sets security.tirith_enabled: false: commands are not pre-scanned"}, Severity.MEDIUM)
    for section in ("security", "browser"):
        if get(section, "allow_private_urls") is True:
            yield _hit(_locate(text, "allow_private_urls"),
                       {"what": f"sets {section}.allow_private_urls: true: the agent may reach internal addresses"},
                       Severity.MEDIUM)
    passthrough = get("terminal", "env_passthrough")
    if isinstance(passthrough, list):
        secrets = [str(v) for v in passthrough if _SECRET_NAME.search(str(v))]
        if secrets:
            yield _hit(_locate(text, "env_passthrough"),
                       {"what": "passes " + ", ".join(secrets)[:120] + " into every terminal command "
                                "(terminal.env_passthrough)"}, Severity.MEDIUM)


_MISSING = object()


# ---------------------------------------------------------------------------
# Detector: distribution-manifest
# ---------------------------------------------------------------------------

_SENSITIVE_SECRETS = re.compile(
    r"(?i)^(?:AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|GOOGLE_APPLICATION_CREDENTIALS|AZURE_CLIENT_SECRET|"
    r"GH_TOKEN|GITHUB_TOKEN|GITHUB_PAT|GITLAB_TOKEN|NPM_TOKEN|PYPI_TOKEN|DOCKER_PASSWORD|KUBECONFIG|"
    r".*(?:PRIVATE_KEY|SSH_KEY|SEED|MNEMONIC|WALLET|ROOT_PASSWORD|ADMIN_PASSWORD|DATABASE_URL).*)$")


#: The manifest key each ``distribution-manifest`` check reads (a check finds nothing without it).
_CHECK_KEYS = {"env-secrets": "env_requires", "owned-path": "distribution_owned"}


def detect_distribution_manifest(text: str, params: dict) -> Iterator:
    """Detector ``distribution-manifest``: ``distribution.yaml`` checks. ``params.check``: invalid,
    env-secrets, owned-path."""
    check = params.get("check")
    key = _CHECK_KEYS.get(check)
    if key is not None and key not in text and not ('"' in text and "\\" in text):
        # issue 8: these checks read one top-level key; YAML spells a key's text literally except in a
        # double-quoted scalar with escapes, so without both it is not in the data (no parse needed)
        return
    read = dist.parse_manifest_text(text, dist.MANIFEST_FILENAME)
    if check == "invalid":
        if read.error:
            msg = " ".join(read.error.split())
            key = next((k for k in ("env_requires", "distribution_owned", "name") if k in msg), "")
            if read.error_offset is not None and text:
                # a YAML error: point at where PyYAML stopped (its line and column are also in the message)
                at = min(read.error_offset, len(text) - 1)
                span = (at, at + 1)
            elif key:
                span = _locate(text, key)
            else:
                span = (0, min(len(text.split("\n", 1)[0]), 200))
            if read.error_kind == "limit" and read.hermes_effect:
                msg += f"; {read.hermes_effect}"
            yield _hit(span, {"message": (f"Hermes refuses to install it: {msg}" if read.error_kind == "hermes"
                                          else msg)},
                       Severity.HIGH if read.error_kind == "limit" else None)
        elif read.bomb:  # only in keys Hermes ignores: harmless to Hermes, hostile to anything else that reads it
            yield _hit((0, min(len(text.split("\n", 1)[0]), 200)), {"message": f"{read.bomb}; {read.hermes_effect}"},
                       Severity.HIGH)
        return
    if read.error_kind == "limit":
        return
    data = read.data
    if check == "env-secrets" and read.manifest is not None:
        for req in read.manifest.env_requires:
            if not _SECRET_NAME.search(req.name):
                continue
            sensitive = bool(_SENSITIVE_SECRETS.match(req.name))
            why = f" ({'required' if req.required else 'optional'}"
            if req.description:
                why += f": {req.description[:80]}"
            why += ")"
            if sensitive:
                why += "; a credential with wide reach: give it a narrowly scoped one"
            yield _hit(_locate(text, req.name), {"name": req.name, "why": why},
                       Severity.MEDIUM if sensitive else None)
    elif check == "owned-path" and isinstance(data, dict) and isinstance(data.get("distribution_owned"), list):
        for raw in data["distribution_owned"]:
            p = str(raw).strip()
            if not p:
                continue
            parts = PurePosixPath(p.strip("/")).parts
            if ".." in PurePosixPath(p).parts or p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", p):
                why = ("leaves the profile directory (Hermes strips a leading '/', then the newest Hermes skips "
                       "entries with '..'; 0.19 ignores the list and copies the whole tree)")
            elif parts and parts[0] in dist.USER_OWNED_EXCLUDE:
                why = f"names user-owned data ({parts[0]!r}): Hermes never copies it"
            else:
                continue
            yield _hit(_locate(text, p), {"path": p, "why": why})


# ---------------------------------------------------------------------------
# Detector: install-plan
# ---------------------------------------------------------------------------


def _unesc(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def detect_install_plan(text: str, params: dict) -> Iterator:
    """Detector ``install-plan``: lines of the listing made by :func:`plan_listing`. ``params.check``:
    symlink, plugins, special, git-dir."""
    if not text.startswith(PLAN_HEADER):
        return
    check = params.get("check")
    pos = 0
    for line in text.split("\n"):
        start = pos
        pos += len(line) + 1
        parts = line.split("\t")
        if len(parts) == 1 and " " in line and not line.startswith("#"):
            parts = line.replace(" -> ", " ").split(" ")  # tolerate the space-separated example form
        op = parts[0]
        span = (start, start + len(line))
        if check == "symlink" and op == "symlink" and len(parts) >= 3:
            target = _unesc(parts[2])
            escapes = target.startswith(("/", "~")) or ".." in PurePosixPath(target).parts
            yield _hit(span, {"path": _unesc(parts[1]), "target": target},
                       None if escapes else Severity.MEDIUM)
        elif check == "special" and op == "special" and len(parts) >= 3:
            yield _hit(span, {"path": _unesc(parts[1]), "type": parts[2]})
        elif op == "copy" and len(parts) >= 3:
            dest = _unesc(parts[2])
            if check == "plugins" and (dest == "plugins" or dest.startswith("plugins/")):
                yield _hit(span, {"path": dest})
            elif check == "git-dir" and (dest == ".git" or dest.startswith(".git/")):
                yield _hit(span, {"path": dest})


# ---------------------------------------------------------------------------
# Detector: cron-jobs
# ---------------------------------------------------------------------------


#: A cron ``script`` value that reads like a shell command line rather than a file name.
_SHELL_LIKE = re.compile(r"\s|[|;&`<>]|\$\(")


def detect_cron_jobs(text: str, params: dict) -> Iterator:
    """Detector ``cron-jobs``: Hermes cron job files (``{"jobs": [...]}`` JSON or YAML). ``params.check``:
    blocked (Hermes' cron scanner refuses the prompt), script (the job runs a script)."""
    if "prompt" not in text and "script" not in text:
        return
    check = params.get("check")
    t = text.lstrip("\ufeff").lstrip()
    cf = parse_job_text(text, "cron/jobs.json" if t.startswith(("{", "[")) else "cron/jobs.yaml")
    if cf.error:
        return
    for job in cf.jobs:
        if check == "blocked" and job.prompt:
            v = scan_cron_prompt(job.prompt)
            if v.blocked:
                yield _hit(_locate(text, job.prompt[:60], json.dumps(job.prompt)[1:61], job.name),
                           {"job": job.name, "message": v.message})
        elif check == "script" and job.script:
            how = (" with no agent: the script is the whole job, never scanned" if job.no_agent
                   else " before every run and pastes its output into the prompt")
            how += f" (schedule: {job.schedule or 'none'}" + ("" if job.enabled else ", disabled") + ")"
            if _SHELL_LIKE.search(job.script):
                how += ("; Hermes never runs it as a shell command: it is the name of a file in the profile's "
                        "scripts/ directory (run with bash for .sh/.bash, else python), and the job fails with "
                        "'Script not found' unless such a file exists")
            yield _hit(_locate(text, job.script, job.name), {"job": job.name, "script": job.script[:120], "how": how},
                       Severity.HIGH if job.no_agent and job.enabled else None)
