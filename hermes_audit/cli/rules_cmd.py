"""``hermes-audit rules`` and ``hermes-audit explain``."""

from __future__ import annotations

import json

import click

from hermes_audit.cli.common import CliError


def _catalog():
    from hermes_audit.engine.catalog import CatalogError, load_catalog

    try:
        return load_catalog()
    except CatalogError as exc:
        raise CliError(str(exc)) from None


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def rules(fmt: str) -> None:
    """List the rules of the catalog."""
    cat = _catalog()
    rows = cat.all_rules()
    if fmt == "json":
        click.echo(json.dumps([
            {"code": r.code, "name": r.name, "family": r.family, "severity": r.severity.label,
             "confidence": r.confidence.label, "title": r.title, "hermes_id": r.hermes_id, "scope": r.scope}
            for r in rows
        ], indent=2))
        return
    if fmt == "markdown":
        click.echo(rules_markdown(rows), nl=False)
        return
    for r in rows:
        extra = f"  (Hermes {r.hermes_id}, scope {r.scope})" if r.hermes_id else ""
        click.echo(f"{r.code}  {r.name:<34} {r.family:<15} {r.severity.label:<8} {r.title}{extra}")


def rules_markdown(rows) -> str:
    """The rule table used in README.md (generated, never edited by hand)."""
    lines = ["| Code | Name | Family | Severity | Confidence | What it finds |", "|---|---|---|---|---|---|"]
    for r in rows:
        title = r.title + (f" (Hermes `{r.hermes_id}`, scope `{r.scope}`)" if r.hermes_id else "")
        lines.append(f"| {r.code} | `{r.name}` | {r.family} | {r.severity.label} | {r.confidence.label} | {title} |")
    return "\n".join(lines) + "\n"


@click.command()
@click.argument("code")
@click.option("--hermes-version", type=click.Choice(["latest", "0.19"]), default="latest", show_default=True)
def explain(code: str, hermes_version: str) -> None:
    """Print a rule's documentation: what it finds, why it matters, an example, the fix."""
    cat = _catalog()
    r = cat.find(code)
    if r is None:
        raise CliError(f"no rule {code!r} (see `hermes-audit rules`)")
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
    if r.references:
        click.echo("\nReferences: " + ", ".join(r.references))
