"""Regenerate docs/rules.md (the rule table, then the pages SARIF helpUri links point at):
``python -m tests.rules_doc``."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
BEGIN, END = "<!-- rules-table:begin -->", "<!-- rules-table:end -->"

#: Above the table (moved from the README, issue 22).
INTRO = """## All rules

The catalog is data: `rules/*.yaml`, validated when loaded, each rule with examples that must and must not
match (tested automatically). `hermes-audit explain CODE` prints a rule's documentation (HS codes too:
Hermes' own skills guard, from `rules/skills-guard.yaml`, which `profile` reports). The table below is
generated from `rules/` (`hermes-audit rules --format markdown`; a test keeps it in sync), and one section
per rule follows it.
"""


def table() -> str:
    from hermes_audit.cli.rules_cmd import rules_markdown
    from hermes_audit.patterns.catalog import load_catalog

    return rules_markdown(load_catalog().all_rules())


def generated() -> str:
    from hermes_audit.patterns.catalog import load_catalog
    from hermes_audit.reporters.sarif import rules_reference_markdown

    reference = rules_reference_markdown(load_catalog().all_rules())
    head, sep, sections = reference.partition("\n## ")  # the title and its lines, then the first rule
    return head.rstrip("\n") + "\n\n" + INTRO + "\n" + BEGIN + "\n" + table() + END + "\n" + sep + sections


if __name__ == "__main__":
    DOC.write_text(generated(), encoding="utf-8")
