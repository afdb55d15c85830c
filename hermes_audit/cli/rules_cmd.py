"""``hermes-audit rules`` and ``hermes-audit explain``."""

from __future__ import annotations

import json

import click

from hermes_audit.cli.common import HERMES_VERSION, HERMES_VERSION_HELP, default_hermes_version, CliError


def _catalog():
    from hermes_audit.engine.catalog import CatalogError, load_catalog

    try:
        return load_catalog()
    except CatalogError as exc:
        raise CliError(str(exc)) from None


def hermes_guard_rules() -> list:
    """Hermes' own scanners that ``hermes-audit profile`` reports but the catalog does not run: the
    skills guard (codes HS001-HS208, :func:`hermes_audit.hermes.skills_guard.guard_rules`, from
    rules/skills-guard.yaml). Raises :class:`CliError` when the data file is broken."""
    from hermes_audit.hermes.skills_guard import SkillsGuardError, guard_rules

    try:
        return guard_rules()
    except SkillsGuardError as exc:
        raise CliError(str(exc)) from None


def cron_scanner_patterns() -> list[tuple[str, str, str]]:
    """(pattern id, list, regex) of Hermes' cron prompt scanner (rules/hermes-cron.yaml, hermes-agent
    0.19.0 ``tools/cronjob_tools.py``), in Hermes' order; ``profile`` reports a hit as HA751
    ``cron-job-blocked`` with Hermes' message. Raises :class:`CliError` when the data file is broken."""
    from hermes_audit.hermes.cron_guard import CronGuardError, load_cron_catalog

    try:
        cat = load_cron_catalog()
    except CronGuardError as exc:
        raise CliError(str(exc)) from None
    return ([(pid, "threat", pat.pattern) for pid, pat in cat.threat_patterns]
            + [(pid, "exfiltration", pat.pattern) for pid, pat in cat.exfil_patterns])


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
@click.option("--all", "show_all", is_flag=True,
              help="Also list Hermes' own skills guard (HS codes) and cron prompt scanner, which `profile` reports.")
def rules(fmt: str, show_all: bool) -> None:
    """List the rules of the catalog (with --all, also Hermes' skills guard and cron scanner)."""
    cat = _catalog()
    rows = cat.all_rules()
    guard = hermes_guard_rules()
    cron = cron_scanner_patterns() if show_all else []
    if show_all:
        rows = rows + guard
    if fmt == "json":
        out = [
            {"code": r.code, "name": r.name, "family": r.family, "severity": r.severity.label,
             "confidence": r.confidence.label, "title": r.title, "hermes_id": r.hermes_id, "scope": r.scope}
            for r in rows
        ]
        out += [{"code": None, "name": f"cron-scanner-{pid.replace('_', '-')}", "family": "hermes-cron",
                 "severity": None, "confidence": None, "title": f"Hermes cron prompt scanner: {pid} ({kind})",
                 "hermes_id": pid, "scope": "cron", "reported_as": "HA751"} for pid, kind, _ in cron]
        click.echo(json.dumps(out, indent=2))
        return
    if fmt == "markdown":
        text = rules_markdown(rows)
        if cron:
            text += ("\nHermes' cron prompt scanner (`tools/cronjob_tools.py`): the first match blocks the job; "
                     "`profile` reports it as HA751 `cron-job-blocked`.\n\n| Hermes id | List | Regex |\n|---|---|---|\n")
            text += "".join(f"| `{pid}` | {kind} | `{rx.replace('|', chr(92) + '|')}` |\n" for pid, kind, rx in cron)
        click.echo(text, nl=False)
        return
    for r in rows:
        extra = f"  (Hermes {r.hermes_id}, scope {r.scope})" if r.hermes_id else ""
        click.echo(f"{r.code}  {r.name:<34} {r.family:<19} {r.severity.label:<8} {r.title}{extra}")
    if cron:
        click.echo("\nHermes' cron prompt scanner (the first match blocks the job; `profile` reports it as HA751):")
        for pid, kind, _ in cron:
            click.echo(f"  {pid:<28} {kind}")
    if not show_all:
        click.echo(f"\n(and {len(guard)} codes of Hermes' skills guard, HS{guard[0].code[2:]}-HS{guard[-1].code[2:]}, "
                   "plus its cron prompt scanner, which `hermes-audit profile` reports: `hermes-audit rules --all`)")


def rules_markdown(rows) -> str:
    """The rule table used in README.md (generated, never edited by hand)."""
    lines = ["| Code | Name | Family | Severity | Confidence | What it finds |", "|---|---|---|---|---|---|"]
    for r in rows:
        title = r.title + (f" (Hermes `{r.hermes_id}`, scope `{r.scope}`)" if r.hermes_id else "")
        lines.append(f"| {r.code} | `{r.name}` | {r.family} | {r.severity.label} | {r.confidence.label} | {title} |")
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("code")
@click.option("--hermes-version", type=HERMES_VERSION, default=None, help=HERMES_VERSION_HELP)
def explain(code: str, hermes_version: str) -> None:
    """Print a rule's documentation: what it finds, why it matters, an example, the fix."""
    hermes_version = default_hermes_version(hermes_version)
    cat = _catalog()
    r = cat.find(code)
    if r is None:  # Hermes' skills guard (HS codes), reported by `profile`
        k = code.strip().lower()
        r = next((g for g in hermes_guard_rules() if g.code.lower() == k or g.name == k), None)
    if r is None:
        raise CliError(f"no rule {code!r} (see `hermes-audit rules --all`)")
    click.echo(f"# {r.code} {r.name}: {r.title}\n")
    click.echo(f"Family: {r.family}    Severity: {r.severity.label}    Confidence: {r.confidence.label}")
    if r.hermes_id:
        click.echo(f"Hermes pattern id: {r.hermes_id}    scope: {r.scope}")
    click.echo("")
    help_text = r.help
    if r.hermes_id:
        help_text = help_text.format(
            title=r.title, hermes_id=r.hermes_id, scope=r.scope, version=hermes_version,
            pattern=r.pattern_for(hermes_version), example=(r.examples_match or [""])[0],
        )
    click.echo(help_text.rstrip())
    if r.fix and "**Fix**" not in help_text:
        click.echo(f"\nFix: {r.fix}")
    if r.references:
        click.echo("\nReferences: " + ", ".join(r.references))
