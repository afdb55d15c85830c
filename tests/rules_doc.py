"""Regenerate docs/rules.md (the pages SARIF helpUri links point at): ``python -m tests.rules_doc``."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def generated() -> str:
    from hermes_audit.engine.catalog import load_catalog
    from hermes_audit.reporters.sarif import rules_reference_markdown

    return rules_reference_markdown(load_catalog().all_rules())


if __name__ == "__main__":
    DOC.write_text(generated(), encoding="utf-8")
