"""Regenerate the rule table in README.md: ``python -m tests.readme_table``."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN, END = "<!-- rules-table:begin -->", "<!-- rules-table:end -->"


def generated() -> str:
    from hermes_audit.cli.rules_cmd import rules_markdown
    from hermes_audit.engine.catalog import load_catalog

    return rules_markdown(load_catalog().all_rules())


def current() -> str:
    text = README.read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n") + "\n"


def update() -> None:
    text = README.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    README.write_text(head + BEGIN + "\n" + generated() + END + tail, encoding="utf-8")


if __name__ == "__main__":
    update()
