"""``hermes-audit profile``: audit a profile distribution before ``hermes profile install`` copies it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Optional

import click

from hermes_audit.hermes.profiles import get_profile, require_session_model
from hermes_audit.cli.common import HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, CliError, color_enabled, plural, write_output
from hermes_audit import __version__

SEVERITIES = ["info", "low", "medium", "high", "critical"]
#: Seconds a whole ``profile`` run may take by default (--timeout).
DEFAULT_TIMEOUT = 600.0


def resolve_source(source: str, hermes_home: Optional[str], environ: Optional[dict] = None) -> tuple[str, Optional[Path]]:
    """How to read SOURCE: (``git``, None), (``directory``, path) or (``installed``, profile path).

    Follows Hermes' own test for git URLs (``*.git``, ``git@``, ``ssh://``,
    ``git://``, ``http(s)://``, ``github.com/u/r``) plus ``file://``; then a
    local directory; then an installed profile name under
    ``<home>/profiles/<name>`` (home: ``--hermes-home``, ``$HERMES_HOME`` or
    ``~/.hermes``). Raises :class:`CliError`.
    """
    # start-up time: a command (and a report format) imports only what it runs; hermes.distribution imports PyYAML,
    # which a scan of Markdown files does not need
    from hermes_audit.audits.gitsource import redact_url
    from hermes_audit.hermes import distribution as dist

    env = os.environ if environ is None else environ
    s = source.strip()
    if not s:
        raise CliError("empty source")
    if s.startswith("-"):
        raise CliError(f"refusing {redact_url(s)!r}: a source starting with '-' would be read by git as an option")
    if dist.looks_like_git_url(s) or s.lower().startswith("file://"):
        return "git", None
    p = Path(s).expanduser()
    if p.is_dir():
        return "directory", p
    base = Path(hermes_home or env.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()
    if dist.PROFILE_ID_RE.match(s.lower()):
        cand = base / "profiles" / s.lower()
        if cand.is_dir():
            return "installed", cand
    if p.exists() or p.is_symlink():
        raise CliError(f"{s}: not a directory (a distribution is a directory with distribution.yaml at its root)")
    raise CliError(f"cannot resolve {redact_url(s)!r}: not a git URL, a local directory or a profile "
                   f"installed under {base / 'profiles'}")


def check_keep_tree(dest: Path) -> None:
    """Refuse a ``--keep-tree`` destination that exists or whose parent is not a directory (before cloning).

    Raises :class:`CliError`."""
    if os.path.lexists(dest):
        raise CliError(f"--keep-tree {dest}: already exists (give a new directory)")
    if not dest.parent.is_dir():
        raise CliError(f"--keep-tree {dest}: {dest.parent} is not a directory")


def keep_audited_tree(root: Path, dest: Path) -> None:
    """Move the audited checkout ``root`` to ``dest`` (a rename, or a copy that keeps symlinks as links
    when ``dest`` is on another file system). Raises :class:`CliError`; a partial copy is removed."""
    import shutil

    try:
        os.rename(root, dest)
        return
    except OSError:
        pass
    try:
        shutil.copytree(root, dest, symlinks=True)
    except (OSError, shutil.Error) as exc:
        shutil.rmtree(dest, ignore_errors=True)
        raise CliError(f"--keep-tree {dest}: cannot keep the audited tree: {' '.join(str(exc).split())[:200]}") from None


#: Why each ``--skills-trust`` level is what Hermes' skills hub would assign (tools/skills_guard.py, 0.19.0).
TRUST_WHY = {
    "community": "what Hermes gives a skill from any repository outside its trusted list",
    "trusted": "what Hermes gives a skill from openai/skills, anthropics/skills, huggingface/skills or NVIDIA/skills",
    "builtin": "what Hermes gives its own bundled skills",
}


def render_text(report, color: bool) -> str:
    """The human-readable profile report."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.engine.unicode_chars import printable
    from hermes_audit.engine.unicode_chars import safe_path
    from hermes_audit.reporters.excerpt import ExcerptLines, source_excerpt
    from hermes_audit.hermes.skills_guard import GUARD_FAMILY

    def style(s: str, fg: Optional[str] = None, bold: bool = False) -> str:
        return click.style(s, fg=fg, bold=bold) if color else s

    def p(s: str, n: int = 400) -> str:
        return printable(s, n)

    out: list[str] = []
    out.append(style(f"Profile distribution: {p(report.source)} ({report.source_kind})", bold=True))
    out.append(f"Hermes version profile: {report.hermes_version} ({report.hermes_label})")
    read = report.manifest
    m = read.manifest
    if m is not None:
        line = f"Manifest: {p(m.name, 80)} {p(m.version, 40)}"
        if m.author:
            line += f" by {p(m.author, 80)}"
        if m.license:
            line += f" ({p(m.license, 40)})"
        out.append(line)
        if m.description:
            out.append(f"  {p(m.description, 200)}")
        if m.hermes_requires:
            out.append(f"  hermes_requires: {p(m.hermes_requires, 60)}")
        if m.distribution_owned:
            how = ("Hermes 0.19.0 ignores this list and copies every top-level entry" if report.hermes_version == "0.19"
                   else "only these paths are copied")
            out.append("  distribution_owned: " + ", ".join(p(x, 80) for x in m.distribution_owned) + f" ({how})")
        if m.env_requires:
            out.append("  asks for: " + ", ".join(
                f"{p(e.name, 60)} ({'required' if e.required else 'optional'})" for e in m.env_requires))
    elif read.error:
        out.append(style(f"Manifest: {p(' '.join(read.error.split()), 400)}", "red"))
    if report.refusal:
        out.append(style(f"{report.hermes_label} refuses to install it: {p(' '.join(report.refusal.split()))}", "red",
                         bold=True))
    if report.not_evaluated:  # the Manifest line above says why hermes-audit did not evaluate it
        effect = read.hermes_effect or "what Hermes does with it is not predicted"
        out.append(style(f"What {report.hermes_label} would do: {p(effect, 600)}", "red", bold=True))
    if report.version_refusal:
        out.append(style(f"{report.hermes_label} would refuse it for its version: {p(report.version_refusal)}", "yellow"))
    out.append("")
    plan = report.plan
    if plan is not None:
        out.append(style(f"What `hermes profile install` copies (fresh install into {p(plan.target)}):", bold=True))
        for c in plan.copies:
            n = sum(1 for f in plan.installed_from if f == c.source or f.startswith(c.source + "/"))
            what = f"{c.source}/ ({n} file{'s' if n != 1 else ''})" if c.type == "dir" else c.source
            dest = f"{c.dest}/" if c.type == "dir" else c.dest
            out.append(f"  copy      {safe_path(what):<40} -> {safe_path(dest)}")
        for g in plan.generated:
            why = "from env_requires" if g == ".env.EXAMPLE" else "rewritten with the name, source and install time"
            out.append(f"  generate  {g:<40}    ({why})")
        out.append("  mkdir     " + " ".join(f"{d}/" for d in plan.bootstrap_dirs))
        for path, why in plan.skipped:
            out.append(f"  skip      {safe_path(path):<40}    ({p(why, 120)})")
        for prob in plan.problems:
            out.append(style(f"  problem   {p(prob, 300)}", "red"))
        out.append("")
    out.append(style("What Hermes does with it:", bold=True))
    if report.soul is not None:
        st = report.soul.status
        txt = "loaded as the agent's identity" if st == "loaded" else (
            f"BLOCKED ({', '.join(report.soul.pattern_ids)}): the identity becomes {report.soul.message}"
            if st == "blocked" else f"{st}: {report.soul.message}")
        out.append(f"  SOUL.md: {p(txt, 500)}")
    if report.skills:
        out.append("  skills and scripts: copied and active at once; Hermes runs no skills guard on them, at install "
                   "or when a skill is used")
        trust = report.options.skills_trust
        why = TRUST_WHY.get(trust, "")
        for s in report.skills:
            col = {"safe": "green", "caution": "yellow", "dangerous": "red"}.get(s.verdict)
            line = (f"    {safe_path(s.path)}: Hermes' skills guard, for comparison: " + style(s.verdict, col)
                    + f" ({plural(len(s.findings), 'finding')})")
            if s.decision != "allow":
                verb = "ask before installing" if s.decision == "ask" else s.decision
                line += f"; `hermes skills install` from a hub would {verb} it"
            out.append(line)
        if any(s.decision != "allow" for s in report.skills):
            out.append(f"    (trust level assumed: {trust}, {why}; --skills-trust to change. The verdict below "
                       "rests on hermes-audit's own rules: read the HS lines under Findings and decide whether they "
                       "do what the skill says it does)")
    for cr in report.cron:
        live = " (the profile's live job store)" if cr.file.live else " (not read by the scheduler)"
        out.append(f"  cron {safe_path(cr.file.path)}: {plural(len(cr.file.jobs), 'job')}{live}")
        for job in cr.file.jobs:
            state = "enabled" if job.enabled else "disabled"
            msg = cr.blocked.get(job.index)
            out.append(f"    - {p(job.name, 80)} [{state}, {p(job.schedule or 'no schedule', 40)}]"
                       + (style(f" BLOCKED: {p(msg, 200)}", "red") if msg else "")
                       + (f" script: {p(job.script, 80)}" if job.script else ""))
    for mrep in report.memories:
        out.append(f"  memories/{mrep.filename}: {mrep.status}"
                   + (f", {plural(len(mrep.entries), 'entry', 'entries')}" if mrep.entries else "")
                   + ("" if report.installed else " (Hermes never copies a distribution's memories/)"))
    out.append("")
    texts = {path: (d.text or "") for path, d in report.documents.items()}
    if report.findings:
        out.append(style("Findings:", bold=True))
    excerpt_lines = ExcerptLines()  # each text split and each line redacted once (issue 8)
    # hermes-audit's own findings first; Hermes' skills guard (HS, for comparison, never counted) after them,
    # its severity shown as the guard's, not as one of this audit's (issue 22 QA: "HS015 [high/high]" on an
    # honest script read as a high finding of a profile judged safe)
    ordered = sorted(report.findings, key=lambda f: f.family == GUARD_FAMILY)
    for f in ordered:
        if f.family == GUARD_FAMILY:
            out.append(f"{safe_path(f.path)}:{f.start.line}:{f.start.column}: {f.rule_id} "
                       f"[skills guard: {f.severity.label}, not counted] {p(f.message)}")
        else:
            sev = style(f.severity.label, {"critical": "magenta", "high": "red", "medium": "yellow"}.get(f.severity.label),
                        bold=True)
            out.append(f"{safe_path(f.path)}:{f.start.line}:{f.start.column}: {f.rule_id} [{sev}/{f.confidence.label}] "
                       f"{p(f.message)}")
        if f.path in texts and texts[f.path] and not f.path.startswith("<"):
            out.extend(source_excerpt(texts[f.path], f, excerpt_lines))
        if f.fix:
            out.append(f"  = fix: {p(f.fix, 300)}")
        out.append("")
    for n in report.notes:
        out.append(f"note: {p(n, 400)}")
    for e in report.errors:
        out.append(style(f"error: {safe_path(e.path)}: {p(e.message, 300)}", "red"))
    if report.notes or report.errors:
        out.append("")
    if report.reasons:
        out.append(style("Verdict: NOT SAFE TO INSTALL", "red", bold=True))
        for r in report.reasons:
            out.append(f"  - {p(r, 500)}")
    elif report.incomplete:
        out.append(style("Verdict: UNDECIDED — the audit is incomplete (see the errors above)", "yellow", bold=True))
    else:
        line = "Verdict: safe to install (no problem at or above " + report.options.fail_on.label + ")"
        if any(s.findings for s in report.skills):
            line += "; the HS lines (Hermes' skills guard, for comparison) are not counted"
        if report.version_refusal:  # content is safe, but this Hermes will not install it (exit stays 0)
            line += (f"; but {report.hermes_label} refuses to install it for its version (hermes_requires): it needs "
                     "another Hermes release (audit with --hermes-version set to the one you will install it with)")
        out.append(style(line, "yellow" if report.version_refusal else "green", bold=True))
    return "\n".join(out) + "\n"


def to_json(report) -> dict:
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.engine.unicode_chars import safe_path

    m = report.manifest.manifest
    return {
        "schema_version": 1,
        "tool": {"name": "hermes-audit", "version": __version__},
        "hermes_version": report.hermes_version,
        "source": report.source,
        "source_kind": report.source_kind,
        "manifest": m.to_dict() if m is not None else None,
        "manifest_error": report.manifest.error,
        "refusal": report.refusal,
        "version_refusal": report.version_refusal,
        "not_evaluated": report.not_evaluated,
        "plan": report.plan.to_dict() if report.plan is not None else None,
        "soul": report.soul.to_dict() if report.soul is not None else None,
        # the guard's verdict and the decision `hermes skills install` would reach; not run by profile install
        "skills": [{**s.to_dict(), "run_by_profile_install": False} for s in report.skills],
        "cron": [{"path": c.file.path, "live": c.file.live, "error": c.file.error or None,
                  "jobs": [{"name": j.name, "enabled": j.enabled, "schedule": j.schedule, "script": j.script or None,
                            "no_agent": j.no_agent, "blocked": c.blocked.get(j.index)} for j in c.file.jobs]}
                 for c in report.cron],
        "memories": [s.to_dict() for s in report.memories],
        "findings": [{**f.to_dict(), "path": safe_path(f.path)} for f in report.findings],
        "notes": list(report.notes),
        "errors": [{"rule_id": e.rule_id, "path": safe_path(e.path), "message": e.message} for e in report.errors],
        "verdict": {"safe_to_install": report.safe and not report.incomplete, "reasons": list(report.reasons),
                    "incomplete": report.incomplete, "exit_code": report.exit_code()},
    }


@click.command()
@click.argument("source")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
@click.option("--name", "override_name", default=None, metavar="NAME",
              help="The --name you will give `hermes profile install`.")
@click.option("--hermes-current", default=None, metavar="VERSION",
              help="Check hermes_requires against this Hermes version [default: 0.19.0 for --hermes-version 0.19].")
@click.option("--skills-trust", type=click.Choice(["community", "trusted", "builtin"]), default="community",
              show_default=True, help="Trust level at which Hermes' skills guard is shown for comparison (the "
              "decision `hermes skills install` would reach; `hermes profile install` runs no skills guard).")
@click.option("--allow-local", is_flag=True,
              help="Allow cloning file:// URLs and local paths that look like git URLs (*.git). A local directory "
                   "is read in place and needs no flag.")
@click.option("--keep-tree", type=click.Path(path_type=Path, file_okay=False), default=None, metavar="DIR",
              help="Git sources: leave the audited checkout (without .git) in DIR, a new directory, so that "
                   "`hermes profile install DIR` installs exactly what was audited. Nothing is written for a local "
                   "directory or an installed profile.")
@click.option("--hermes-home", default=None, metavar="DIR",
              help="Hermes home for installed profile names [default: $HERMES_HOME, else ~/.hermes].")
@click.option("--clone-timeout", type=click.FloatRange(min=1), default=120.0, show_default=True,
              help="Seconds a git clone may take.")
@click.option("--max-clone-size", type=click.IntRange(min=1), default=100 * 1024 * 1024, show_default=True,
              help="Bytes a cloned repository may hold.")
@click.option("--max-clone-memory", type=click.IntRange(min=1), default=1024 ** 3, show_default=True,
              help="Bytes of resident memory git and its helpers may hold while cloning (a hostile server can "
                   "stream refs without end); git is stopped above it.")
@click.option("--timeout", "time_budget", type=click.FloatRange(min=1), default=DEFAULT_TIMEOUT, show_default=True,
              help="Seconds the whole audit may take, the clone included; past it the audit stops, incomplete "
                   "(exit 3, verdict undecided), never 'safe'.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default="high", show_default=True,
              help="Lowest severity of an audit finding that makes the distribution unsafe.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
def profile(source, hermes_version, override_name, hermes_current, skills_trust, allow_local, keep_tree, hermes_home,
            clone_timeout, max_clone_size, max_clone_memory, time_budget, fail_on, fmt, output, color) -> None:
    """Audit a profile distribution before installing it.

    SOURCE is a git URL (as `hermes profile install` accepts it), a local
    directory with distribution.yaml, or the name of an installed profile.
    Reports what the install would copy and where, Hermes' own refusals, and
    problems in SOUL.md, skills, cron jobs, mcp.json, config.yaml, env_requires
    and shipped memories; ends with a verdict.

    Exit codes: 0 safe to install (also when only the version is refused: the verdict says so), 1 not safe (or Hermes refuses it), 2 usage
    or input error (with --keep-tree: also when the tree could not be kept),
    3 incomplete audit (also when --timeout ran out).
    """
    deadline = time.monotonic() + time_budget
    hermes_version = default_hermes_version(hermes_version)
    try:
        require_session_model(get_profile(hermes_version), 'hermes-audit profile (the install plan)', 'profile')
    except ValueError as exc:
        raise CliError(str(exc)) from None
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import CatalogError
    from hermes_audit.findings import Severity
    from hermes_audit.audits.gitsource import GitSourceError, cloned, redact_url
    from hermes_audit.hermes.cron_guard import CronGuardError
    from hermes_audit.hermes.skills_guard import SkillsGuardError
    from hermes_audit.audits.profile import ProfileOptions, audit_distribution

    kind, path = resolve_source(source, hermes_home)
    if keep_tree is not None and kind == "git":
        check_keep_tree(keep_tree)
    # a release given to --hermes-version (0.18.2) is the Hermes whose hermes_requires check applies (issue 22 QA:
    # a profile covering several releases checked none)
    hermes_current = hermes_current or getattr(hermes_version, "release", None)
    opts = ProfileOptions(hermes_version=hermes_version, override_name=override_name, hermes_current=hermes_current,
                          skills_trust=skills_trust, fail_on=Severity.parse(fail_on),
                          target_root=hermes_home or os.environ.get("HERMES_HOME") or "~/.hermes",
                          deadline=deadline, timeout=time_budget)
    try:
        if kind == "git":
            # start-up time: a command (and a report format) imports only what it runs
            from hermes_audit.cli.progress import Progress

            with Progress(f"cloning and auditing {redact_url(source.strip())}"), \
                    cloned(source, allow_local=allow_local, timeout=min(clone_timeout, time_budget),
                           max_bytes=max_clone_size,
                           max_memory=max_clone_memory) as root:
                report = audit_distribution(root, opts, source=redact_url(source.strip()), source_kind="git")
                if keep_tree is not None:
                    keep_audited_tree(root, keep_tree)
        else:
            assert path is not None
            report = audit_distribution(path, opts, source=str(path), source_kind=kind, installed=kind == "installed")
    except GitSourceError as exc:
        raise CliError(str(exc)) from None
    except (CatalogError, SkillsGuardError, CronGuardError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if fmt == "json":
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.reporters.workflow import json_text

        write_output(json_text(to_json(report)) + "\n", output)
    else:
        write_output(render_text(report, color_enabled(color) and output is None), output)
    sys.exit(report.exit_code())
