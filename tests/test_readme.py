"""README.md stays short, runnable and in sync: its commands are CI's, its workflow is the one `init` writes,
its URLs are the project's constant, and the rule table (now in docs/rules.md) is generated from the catalog."""

import re
import subprocess
import sys
from pathlib import Path

from tests.readme_table import README, current, generated

ROOT = README.parent
DOCS = ROOT / "docs"
#: The README's two commands (issue 22): install and run the demo; install and run every test, as CI does.
DEMO_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install . && "
                ".venv/bin/hermes-audit scan --cwd examples/demo-repo examples/demo-repo")
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -m ''"


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_rule_table_is_generated_from_rules():
    assert current() == generated(), "run `python -m tests.rules_doc` to regenerate docs/rules.md and its rule table"


def test_readme_is_at_most_12_kb():
    """Issue 22: a task-first page, not 42 KB; the rest lives in docs/."""
    assert len(README.read_bytes()) <= 12 * 1024, len(README.read_bytes())


def test_readme_documents_exit_codes_and_commands():
    text = _readme()
    for needle in ("| 0 |", "| 1 |", "| 2 |", "| 3 |", "pip install -e '.[test]'", DEMO_COMMAND, TEST_COMMAND,
                   "id: hermes-audit", "hermes-audit scan --fix --fix-hermes-blocking"):
        assert needle in text, needle
    assert '"schema_version": 1' in (DOCS / "usage.md").read_text(encoding="utf-8")  # the JSON schema moved there


def test_ci_runs_exactly_the_readme_commands():
    """`.ci/run` contains the README's full test command verbatim; the README shows it in a code block."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in ci.splitlines()
    blocks = re.findall(r"```sh\n(.*?)```", _readme(), re.S)
    assert any(TEST_COMMAND in b.splitlines() for b in blocks)
    assert any(DEMO_COMMAND in b.splitlines() for b in blocks)


def test_readme_workflow_is_the_one_init_writes():
    from hermes_audit.cli.init_cmd import workflow_text

    blocks = re.findall(r"```yaml\n(.*?)```", _readme(), re.S)
    assert workflow_text() in blocks
    assert (DOCS / "examples" / "hermes-audit.yml").read_text(encoding="utf-8") == workflow_text()
    # docs/github.md shows the same file whole (issue 22 QA: its copy had lost three inputs)
    assert workflow_text() in re.findall(r"```yaml\n(.*?)```", (DOCS / "github.md").read_text(encoding="utf-8"), re.S)


def _doc_files():
    return [README, *sorted(DOCS.glob("*.md")), *sorted((DOCS / "examples").glob("*")), ROOT / "action.yml",
            ROOT / ".pre-commit-hooks.yaml"]


def test_docs_name_the_project_by_its_one_url():
    """Issue 22 item 9: one constant for the project URL, used by init, the docs and the Action's example; and no
    instruction to install from an index that has no release."""
    from hermes_audit import PROJECT_URL
    from hermes_audit.cli.init_cmd import ACTION_REF

    assert PROJECT_URL.startswith("https://github.com/") and ACTION_REF == PROJECT_URL.split("github.com/", 1)[1]
    project = ACTION_REF.split("/", 1)[1]
    seen = 0
    for path in _doc_files():
        text = path.read_text(encoding="utf-8")
        for url in re.findall(r"https://github\.com/[\w.-]+/" + re.escape(project) + r"\b", text):
            assert url == PROJECT_URL, (path, url)
            seen += 1
        for ref in re.findall(r"uses: ([\w.-]+/" + re.escape(project) + r")@", text):
            assert ref == ACTION_REF, (path, ref)
            seen += 1
        assert not re.search(r"pip install ['\"]?" + re.escape(project) + r"(\[|['\"\s]|$)", text, re.M), path
    assert seen >= 4
    assert f'pip install "git+{PROJECT_URL}"' in _readme()


def test_quick_start_demo_command_runs_as_documented(tmp_path):
    """The README's first command (minus the install): runs, reports the demo's planted problems, exits 1."""
    p = subprocess.run([sys.executable, "-m", "hermes_audit", "scan", "--cwd", "examples/demo-repo", "examples/demo-repo",
                        "--color", "never"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1, p.stderr
    for code in ("HA301", "HA101", "HA501", "HP100", "HA604"):
        assert code in p.stdout, code
    assert "= fix: Run `hermes-audit scan --fix --fix-hermes-blocking`" in p.stdout


def test_readme_links_resolve():
    """Every relative link of the README and of docs/*.md names a file that exists (the moved facts are there)."""
    for path in [README, *(DOCS / n for n in ("usage.md", "configuration.md", "development.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (path.parent / target).exists(), (path.name, target)


def test_fast_default_is_pyprojects_filter_and_ci_clears_it():
    """Issue 22 item 11: a plain `pytest` is the fast default (pyproject addopts); `.ci/run` runs everything."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib
    from tests.conftest import FAST_DEFAULT, SLOW

    opts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert opts["addopts"] == ["-m", FAST_DEFAULT]
    assert TEST_COMMAND.endswith("pytest -m ''")
    for entry in SLOW:  # every entry names a test file that exists (a renamed file would silently run slow tests)
        assert (ROOT / entry.split("::", 1)[0]).is_file(), entry
