"""``hermes-audit init``: adds the pre-commit hook and the workflow; idempotent; never clobbers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from hermes_audit.cli.init_cmd import (PRE_COMMIT_FILE, WORKFLOW_FILE, add_hook_text, default_branch, hook_entry,
                                       workflow_text)
from hermes_audit.cli.main import cli
from hermes_audit.reporters.sarif import PROJECT_URL


def _init(repo: Path, *args: str):
    return CliRunner().invoke(cli, ["init", "--path", str(repo), *args])


def _repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir(parents=True)
    return tmp_path


def _hook_repos(path: Path) -> list[dict]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [r for r in data["repos"] if r.get("repo") == PROJECT_URL]


def test_fresh_repository(tmp_path):
    repo = _repo(tmp_path)
    r = _init(repo)
    assert r.exit_code == 0, r.output
    assert f"created {PRE_COMMIT_FILE}" in r.output and f"created {WORKFLOW_FILE}" in r.output
    assert [h["id"] for h in _hook_repos(repo / PRE_COMMIT_FILE)[0]["hooks"]] == ["hermes-audit"]
    assert (repo / WORKFLOW_FILE).read_text(encoding="utf-8") == workflow_text()


def test_idempotent(tmp_path):
    repo = _repo(tmp_path)
    assert _init(repo).exit_code == 0
    before = {p: p.read_bytes() for p in (repo / PRE_COMMIT_FILE, repo / WORKFLOW_FILE)}
    r = _init(repo)
    assert r.exit_code == 0
    assert "unchanged .pre-commit-config.yaml" in r.output and "unchanged .github/workflows/hermes-audit.yml" in r.output
    assert {p: p.read_bytes() for p in before} == before


EXISTING = """\
# Our hooks. Keep this comment.
default_stages: [pre-commit]
repos:
    # formatting first
    -   repo: https://github.com/psf/black
        rev: 24.1.0
        hooks:
          - id: black   # pinned


# settings below the list
fail_fast: false
"""


def test_existing_config_keeps_comments_and_layout(tmp_path):
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text(EXISTING, encoding="utf-8")
    os.chmod(repo / PRE_COMMIT_FILE, 0o640)
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 0, r.output
    assert "updated .pre-commit-config.yaml" in r.output
    text = (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8")
    assert text.startswith(EXISTING.split("\n\n\n")[0])  # everything up to the last item is untouched
    assert "# settings below the list\nfail_fast: false\n" in text and "# pinned" in text
    data = yaml.safe_load(text)
    assert data["fail_fast"] is False and data["default_stages"] == ["pre-commit"]
    assert [r["repo"] for r in data["repos"]] == ["https://github.com/psf/black", PROJECT_URL]
    assert oct(os.stat(repo / PRE_COMMIT_FILE).st_mode & 0o777) == "0o640"
    assert not (repo / ".github").exists()


@pytest.mark.parametrize("text", [
    "repos:\n- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: x\n    language: system\n",
    "repos:\n",
    "",
    "minimum_pre_commit_version: '3.0'\n",
])
def test_other_layouts(tmp_path, text):
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 0, r.output
    assert len(_hook_repos(repo / PRE_COMMIT_FILE)) == 1


def test_flow_style_is_not_rewritten(tmp_path):
    repo = _repo(tmp_path)
    text = "repos: [{repo: local, hooks: [{id: x, name: x, entry: x, language: system}]}]\n"
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 2
    assert "not changed" in r.output and "- repo: " + PROJECT_URL in r.output
    assert (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8") == text


@pytest.mark.parametrize("text,needle", [
    ("repos: [\n", "invalid YAML"),
    ("- just\n- a list\n", "not a mapping"),
    ("repos: !!python/object/apply:os.system ['true']\n", "invalid YAML"),
])
def test_broken_config_is_left_alone(tmp_path, text, needle):
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo)
    assert r.exit_code == 2 and needle in r.output and "Traceback" not in r.output
    assert (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8") == text


def test_existing_hook_is_recognised(tmp_path):
    repo = _repo(tmp_path)
    text = "repos:\n- repo: https://example.org/fork/hermes-audit\n  rev: v9\n  hooks:\n  - id: hermes-audit\n"
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 0 and "already has the hermes-audit hook" in r.output
    assert (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8") == text


def test_symlinked_config_is_not_written_through(tmp_path):
    repo = _repo(tmp_path / "repo")
    target = tmp_path / "elsewhere.yaml"
    target.write_text("repos: []\n", encoding="utf-8")
    (repo / PRE_COMMIT_FILE).symlink_to(target)
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 2 and "symbolic link" in r.output
    assert target.read_text(encoding="utf-8") == "repos: []\n"


def test_workflow_is_never_clobbered(tmp_path):
    repo = _repo(tmp_path)
    wf = repo / WORKFLOW_FILE
    wf.parent.mkdir(parents=True)
    wf.write_text("name: mine\n", encoding="utf-8")
    r = _init(repo, "--no-pre-commit")
    assert r.exit_code == 0 and "left .github/workflows/hermes-audit.yml alone" in r.output
    assert wf.read_text(encoding="utf-8") == "name: mine\n"


def test_dry_run_changes_nothing(tmp_path):
    repo = _repo(tmp_path)
    r = _init(repo, "--dry-run")
    assert r.exit_code == 0 and "would create .pre-commit-config.yaml" in r.output
    assert "would create .github/workflows/hermes-audit.yml" in r.output and "would have" not in r.output
    assert sorted(p.name for p in repo.iterdir()) == [".git"]
    (repo / PRE_COMMIT_FILE).write_text("repos:\n- repo: local\n  hooks: []\n", encoding="utf-8")
    r = _init(repo, "--dry-run", "--no-workflow")
    assert r.exit_code == 0 and "would update .pre-commit-config.yaml: add the hermes-audit hook" in r.output
    assert (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8") == "repos:\n- repo: local\n  hooks: []\n"


def test_snippet_for_a_flow_style_list_is_pasteable_yaml(tmp_path):
    """QA round 1: the snippet came out on one line with literal \\n; now real lines on stdout, one-line error on stderr."""
    repo = _repo(tmp_path)
    text = "repos: [{repo: local, hooks: []}]\n"
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 2
    assert "\\n" not in r.stdout and "\\n" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("hermes-audit: error: ")
    snippet = yaml.safe_load(r.stdout)
    assert snippet["repos"][0]["repo"] == PROJECT_URL and snippet["repos"][0]["hooks"] == [{"id": "hermes-audit"}]
    assert (repo / PRE_COMMIT_FILE).read_text(encoding="utf-8") == text


def test_add_hook_text_uses_the_list_indent():
    out = add_hook_text("repos:\n    -   repo: local\n        hooks: []\n")
    assert out is not None and out.endswith(hook_entry(4))


def test_result_passes_pre_commit_validation(tmp_path):
    exe = shutil.which("pre-commit", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if exe is None:
        pytest.skip("pre-commit is not installed (pip install -e .[test])")
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text(EXISTING, encoding="utf-8")
    assert _init(repo, "--no-workflow").exit_code == 0
    proc = subprocess.run([exe, "validate-config", str(repo / PRE_COMMIT_FILE)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _git(*args: str) -> None:
    subprocess.run(["git", *args], check=True, capture_output=True)


def test_workflow_names_the_repositorys_default_branch(tmp_path):
    """Issue 22: the workflow scans pushes to the repository's own default branch, not always ``main``."""
    repo = tmp_path / "r"
    _git("init", "-q", "-b", "trunk", str(repo))
    r = _init(repo, "--no-pre-commit")
    assert r.exit_code == 0, r.output
    text = (repo / WORKFLOW_FILE).read_text(encoding="utf-8")
    assert "    branches: [trunk]\n" in text and "[main]" not in text
    assert "pushes to trunk" in r.output
    assert yaml.safe_load(text)[True]["push"]["branches"] == ["trunk"]  # YAML 1.1 reads `on` as true


def test_default_branch_prefers_the_remote_head(tmp_path):
    upstream, clone = tmp_path / "up", tmp_path / "clone"
    _git("init", "-q", "-b", "master", str(upstream))
    _git("-C", str(upstream), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
    _git("clone", "-q", str(upstream), str(clone))
    _git("-C", str(clone), "checkout", "-q", "-b", "feature")
    assert default_branch(clone) == "master"


def test_default_branch_is_main_outside_git_and_never_reads_a_parent_repository(tmp_path):
    outer = tmp_path / "outer"
    _git("init", "-q", "-b", "develop", str(outer))
    inner = outer / "inner"
    inner.mkdir()
    assert default_branch(inner) == "main"
    assert default_branch(tmp_path) == "main"


@pytest.mark.parametrize("text,needle", [
    ("default_stages: [manual]\nrepos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n",
     "'default_stages' (manual) leaves the hook out of git commit"),
    ("exclude: '.*'\nrepos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n",
     "the top-level 'exclude' keeps the hook from AGENTS.md"),
    ("files: '\\.py$'\nrepos:\n  - repo: https://github.com/psf/black\n    rev: 24.1.0\n    hooks:\n      - id: black\n",
     "the top-level 'files' keeps the hook from AGENTS.md"),
    ("repos:\n  - repo: local\n    hooks:\n      - id: hermes-audit\n        name: x\n        entry: 'true'\n        language: system\n",
     "a hook with the id 'hermes-audit' comes from repo 'local'"),
])
def test_a_configuration_that_keeps_the_hook_from_running_is_named(tmp_path, text, needle):
    """Eighth red team (issue 18): init said "added" or "already has the hook" where pre-commit would never run
    it on the files Hermes loads."""
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text(text, encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 0, r.output
    assert f"warning: {PRE_COMMIT_FILE}: {needle}" in r.output, r.output


def test_an_ordinary_configuration_gets_no_warning(tmp_path):
    repo = _repo(tmp_path)
    (repo / PRE_COMMIT_FILE).write_text("exclude: '^vendor/'\nrepos:\n  - repo: https://github.com/psf/black\n"
                                        "    rev: 24.1.0\n    hooks:\n      - id: black\n", encoding="utf-8")
    r = _init(repo, "--no-workflow")
    assert r.exit_code == 0 and "warning" not in r.output, r.output
    r = _init(repo, "--no-workflow")
    assert "unchanged" in r.output and "warning" not in r.output, r.output
