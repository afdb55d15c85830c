"""README.md stays in sync with the catalog and documents every exit code."""

from tests.readme_table import README, current, generated


def test_rule_table_is_generated_from_rules():
    assert current() == generated(), "run `python -m tests.readme_table` to regenerate the README rule table"


def test_readme_documents_exit_codes_and_commands():
    text = README.read_text(encoding="utf-8")
    for needle in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "pip install -e '.[test]'", "hermes-audit scan --cwd examples/demo-repo examples/demo-repo",
                   "id: hermes-audit", '"schema_version": 1'):
        assert needle in text


def test_quick_start_demo_command_runs_as_documented(tmp_path):
    """The README's first command (minus the install): runs, reports the demo's planted problems, exits 1."""
    import subprocess
    import sys

    root = README.parent
    p = subprocess.run([sys.executable, "-m", "hermes_audit", "scan", "--cwd", "examples/demo-repo", "examples/demo-repo",
                        "--color", "never"], cwd=root, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    for code in ("HA301", "HA101", "HA501", "HP100", "HA604"):
        assert code in p.stdout, code
