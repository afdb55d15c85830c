"""README.md stays in sync with the catalog and documents every exit code."""

from tests.readme_table import README, current, generated


def test_rule_table_is_generated_from_rules():
    assert current() == generated(), "run `python -m tests.readme_table` to regenerate the README rule table"


def test_readme_documents_exit_codes_and_commands():
    text = README.read_text(encoding="utf-8")
    for needle in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "pip install -e '.[test]'", "hermes-audit scan examples/demo-repo",
                   "id: hermes-audit", '"schema_version": 1'):
        assert needle in text
