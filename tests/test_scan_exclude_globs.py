"""`exclude` (configuration): gitignore-style globs; the base directory's walk is not "naming" an excluded
directory; excluded files get no finding at all, loading findings included (QA from a fresh user)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hermes_audit.pathglobs import glob_problem, path_matches, patterns_for_named_directory
from tests.test_scan_notes import run_proc

FILES = ["AGENTS.md", "CLAUDE.md", ".hermes.md", ".cursorrules", ".cursor/rules/x.mdc", "a/AGENTS.md",
         "b/AGENTS.md", "c/d/CLAUDE.md"]


@pytest.mark.parametrize("path, patterns, want", [
    ("a/AGENTS.md", ["**"], True), ("AGENTS.md", ["*"], True), ("c/d/CLAUDE.md", ["**/*"], True),
    ("c/d/CLAUDE.md", ["*.md"], True), (".cursorrules", ["*.md"], False),
    ("docs/AGENTS.md", ["docs/*.md"], True), ("docs/x/AGENTS.md", ["docs/*.md"], False),
    ("x/demo/AGENTS.md", ["demo/**"], False), ("demo/x/AGENTS.md", ["demo/**"], True),
    ("x/vendor/AGENTS.md", ["vendor"], True), ("x/vendor/AGENTS.md", ["vendor/"], True),
    ("x/vendor", ["vendor/"], False), ("a/b/c/AGENTS.md", ["a/**/c"], True), ("a/c/AGENTS.md", ["a/**/c"], True),
    ("AGENTS.md", ["[A]GENTS.md"], True), ("AGENTS.md", ["[!A]GENTS.md"], False),
    ("AGENTS.md", ["/AGENTS.md"], True), ("x/AGENTS.md", ["/AGENTS.md"], False), ("x/AGENTS.md", ["./x/*"], True),
    ("AGENTS.md", ["AGENTS.m?"], True), ("x/AGENTS.md", ["x?AGENTS.md"], False),
])
def test_glob_semantics(path, patterns, want):
    assert path_matches(path, patterns) is want


@pytest.mark.parametrize("pattern, problem", [
    ("[", "character 1"), ("docs/[a", "character 6"), ("[a/b]", "character 1"), ("", "empty"), (" / ", "empty"),
    ("[]]", None), ("[!]]x", None), ("x/[[]y", None), ("**", None), ("[!a]*.md", None), ("vendor/", None),
])
def test_glob_problem(pattern, problem):
    got = glob_problem(pattern)
    assert (got is None) if problem is None else (got is not None and problem in got), got
    if problem is None and pattern.strip("/ "):
        path_matches("x", [pattern])  # a valid pattern compiles


def test_only_a_named_directory_drops_the_patterns_covering_it():
    assert patterns_for_named_directory(".", ["**"]) == ["**"] and patterns_for_named_directory("", ["*"]) == ["*"]
    assert patterns_for_named_directory("demo", ["demo/**", "*.md", "**", "*"]) == ["*.md"]
    assert patterns_for_named_directory("docs/attack-examples", ["docs/**", "docs", "docs/attack-examples/*.md"]) == [
        "docs/attack-examples/*.md"]


def _repo(tmp_path: Path, exclude: str) -> Path:
    for f in FILES:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("# Notes\nRun the tests before you commit.\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(f"[tool.hermes-audit]\nexclude = [{exclude}]\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("exclude", ['"**"', '"*"', '"**/*"'])
def test_excluding_everything_at_the_root_scans_nothing(tmp_path, exclude):
    root = _repo(tmp_path, exclude)
    for args in ([], ["."]):
        p = run_proc(["scan", "--no-git", *args], root)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "all 8 files Hermes loads under . match the configured `exclude` patterns" in p.stdout
        assert "Found 0 findings in 0 files." in p.stdout
    p = run_proc(["scan", "--no-git", "--format", "json", "a"], root)  # naming a directory still scans it
    assert [f["path"] for f in json.loads(p.stdout)["files"]] == ["a/AGENTS.md"]


def test_star_md_excludes_nested_markdown_only(tmp_path):
    root = _repo(tmp_path, '"*.md"')
    p = run_proc(["scan", "--no-git", "--format", "json"], root)
    assert sorted(f["path"] for f in json.loads(p.stdout)["files"]) == [".cursor/rules/x.mdc", ".cursorrules"]


def test_excluded_files_get_no_loading_findings(tmp_path):
    """QA: HA604 (shadowed context file) was reported on excluded files: "2 findings in 0 files"."""
    for name in ("AGENTS.md", "CLAUDE.md", ".hermes.md"):
        (tmp_path / name).write_text(f"# {name}\nRun make.\n", encoding="utf-8")
    p = run_proc(["scan", "--no-git", "--format", "json"], tmp_path)
    assert {f["rule_id"] for f in json.loads(p.stdout)["findings"]} == {"HA604"}  # the case is real
    (tmp_path / "pyproject.toml").write_text('[tool.hermes-audit]\nexclude = ["*.md"]\n', encoding="utf-8")
    p = run_proc(["scan", "--no-git", "--format", "json"], tmp_path)
    data = json.loads(p.stdout)
    assert p.returncode == 0 and data["findings"] == [] and data["summary"]["files"] == 0
    (tmp_path / "pyproject.toml").write_text('[tool.hermes-audit]\nexclude = ["CLAUDE.md"]\n', encoding="utf-8")
    p = run_proc(["scan", "--no-git", "--format", "json"], tmp_path)  # the simulation still sees CLAUDE.md
    assert [(f["path"], f["rule_id"]) for f in json.loads(p.stdout)["findings"]] == [("AGENTS.md", "HA604")]
