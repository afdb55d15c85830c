"""Path arguments the user cannot read: a file inside a directory that cannot be entered, a directory that
cannot be listed (QA pass: both escaped as ``internal error: PermissionError`` or passed having scanned nothing),
and SARIF locations of symlinks to directories.

Root ignores ``chmod``: as root the CLI is run in a subprocess with the capabilities that bypass file
permissions dropped (``capsh``); where that is impossible (root without capsh) the permission tests skip.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hermes_audit.cli.main import cli

GOOD = "# Project\n\nRun the tests before committing.\n"


def _runner_prefix(cmd: list[str]) -> list[str]:
    """``cmd`` as a process that file permissions apply to (unchanged when not root)."""
    if os.geteuid() != 0:
        return cmd
    capsh = shutil.which("capsh")
    if capsh is None:
        return []
    return [capsh, "--drop=cap_dac_override,cap_dac_read_search", "--", "-c", shlex.join(cmd)]


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    cmd = _runner_prefix([sys.executable, "-m", "hermes_audit", *args])
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HERMES_AUDIT_JOBS": "1", "HERMES_HOME": str(cwd / "nohome")})


@pytest.fixture
def closed_tree(tmp_path):
    """``AGENTS.md`` (readable) and ``closed/AGENTS.md`` inside a directory of mode 000."""
    (tmp_path / "AGENTS.md").write_text(GOOD, encoding="utf-8")
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "AGENTS.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "home" / "memories").mkdir(parents=True)
    (tmp_path / "home" / "memories" / "MEMORY.md").write_text("fact\n", encoding="utf-8")
    os.chmod(tmp_path / "home", 0o000)
    os.chmod(closed, 0o000)
    probe = _runner_prefix([sys.executable, "-c", "open('closed/AGENTS.md')"])
    if not probe or subprocess.run(probe, cwd=tmp_path, capture_output=True).returncode == 0:
        os.chmod(closed, 0o755)
        os.chmod(tmp_path / "home", 0o755)
        pytest.skip("cannot make a file unreadable here (root without capsh)")
    yield tmp_path
    os.chmod(closed, 0o755)
    os.chmod(tmp_path / "home", 0o755)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_file_in_a_closed_directory_is_skipped_and_the_rest_scanned(closed_tree, fmt):
    res = _run(["scan", "--no-git", "--format", fmt, "closed/AGENTS.md", "AGENTS.md"], closed_tree)
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert res.returncode == 0, res.stderr
    if fmt == "json":
        by = {f["path"]: f for f in json.loads(res.stdout)["files"]}
        assert by["closed/AGENTS.md"]["hermes"]["status"] == "skipped"
        assert by["closed/AGENTS.md"]["read"] == {"status": "unreadable", "bytes": 0, "characters": 0,
                                                  "detail": "permission denied"}
        assert by["AGENTS.md"]["hermes"]["status"] == "loaded"
        assert json.loads(res.stdout)["errors"] == []
    else:
        assert "permission denied" in res.stdout and "incomplete" not in res.stdout


def test_file_in_a_closed_directory_named_alone(closed_tree):
    res = _run(["scan", "--no-git", "--format", "json", "closed/AGENTS.md"], closed_tree)
    assert res.returncode == 0, res.stderr
    files = json.loads(res.stdout)["files"]
    assert [(f["path"], f["hermes"]["status"]) for f in files] == [("closed/AGENTS.md", "skipped")]


def test_closed_directory_named_alone_is_an_error(closed_tree):
    res = _run(["scan", "--no-git", "closed"], closed_tree)
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("hermes-audit: error: closed: cannot list directory")
    assert "Permission denied" in lines[0]


@pytest.mark.parametrize("use_git", [False, True])
def test_closed_directory_beside_a_file_is_one_note(closed_tree, use_git):
    args = ["scan", "--format", "json", "closed", "AGENTS.md"] + ([] if use_git else ["--no-git"])
    res = _run(args, closed_tree)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [f["path"] for f in out["files"]] == ["AGENTS.md"]
    assert [n for n in out["notes"] if "closed" in n] == [
        "closed: cannot list directory: Permission denied; nothing in it was scanned"]
    assert not any(n.startswith("no file under") for n in out["notes"])
    assert not [f for f in out["findings"] if f["path"].startswith("closed/")]  # no session simulated in it


@pytest.mark.parametrize("args", [["memory", "home/memories/MEMORY.md"], ["memory", "home"],
                                  ["context", "--cwd", "closed/sub"], ["profile", "closed"]])
def test_other_commands_report_a_closed_path_in_one_line(closed_tree, args):
    res = _run(args, closed_tree)
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert res.returncode == 2
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "permission denied" in lines[0].lower(), res.stderr


def test_unlistable_directory_argument_without_privileges(tmp_path, monkeypatch):
    """The same rule, simulated in-process (runs as root too): every argument unlistable -> exit 2."""
    import hermes_audit.documents.discovery as discovery

    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "AGENTS.md").write_text(GOOD, encoding="utf-8")
    monkeypatch.setattr(discovery, "unlistable", lambda d: "Permission denied" if str(d).endswith("locked") else None)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["scan", "--no-git", "locked"])
    assert res.exit_code == 2
    assert "cannot list directory: Permission denied" in res.output


def test_sarif_locates_a_symlink_to_a_directory_at_the_link(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("# d\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").symlink_to("../docs")
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "AGENTS.md").symlink_to("../loop")  # a link to its own directory
    (tmp_path / "AGENTS.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "real.md").write_text(GOOD, encoding="utf-8")
    (tmp_path / "CLAUDE.md").symlink_to("real.md")  # a link to a file inside: located where the text lies
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["scan", "--no-git", "--format", "sarif", "--select", "HA6", "."])
    assert res.exit_code in (0, 1), res.output
    run = json.loads(res.output)["runs"][0]
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for n in run["invocations"][0].get("toolExecutionNotifications", []) for loc in n.get("locations", [])}
    uris |= {loc["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"] for loc in r["locations"]}
    assert {"sub/AGENTS.md", "loop/AGENTS.md"} <= uris
    assert not uris & {"docs", "loop", "sub"}
    from hermes_audit.reporters.sarif import repo_relative

    assert repo_relative("CLAUDE.md", tmp_path / "CLAUDE.md", tmp_path) == ("real.md", True)


def test_fix_names_fix_hermes_blocking_when_hermes_still_blocks(tmp_path, monkeypatch):
    """QA 4c: --fix keeps an emoji's zero-width joiner; the note says which option removes it."""
    (tmp_path / "AGENTS.md").write_text("# Team \U0001F468\u200d\U0001F4BB rocks\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["scan", "--no-git", "--fix", "--format", "json", "."])
    notes = json.loads(res.stdout)["notes"]
    assert any("AGENTS.md" in n and "--fix-hermes-blocking" in n for n in notes), notes
    res = CliRunner().invoke(cli, ["scan", "--no-git", "--fix", "--fix-hermes-blocking", "--format", "json", "."])
    out = json.loads(res.stdout)
    assert not any("--fix-hermes-blocking" in n for n in out["notes"])
    assert "\u200d" not in (tmp_path / "AGENTS.md").read_text(encoding="utf-8")


def test_git_refusal_note_gives_gits_reason(tmp_path, monkeypatch):
    """QA 4d: a repository git refuses (owned by another user: dubious ownership) is walked, and the note
    says why git refused it."""
    if os.geteuid() != 0 or shutil.which("git") is None:
        pytest.skip("needs root to give the repository to another user")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "AGENTS.md").write_text(GOOD, encoding="utf-8")
    os.chown(tmp_path, 65534, 65534)
    monkeypatch.setenv("HOME", str(tmp_path / "nohome"))  # no global safe.directory
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["scan", "--format", "json", "."])
    notes = [n for n in json.loads(res.stdout)["notes"] if n.startswith("git could not list")]
    assert len(notes) == 1 and "dubious ownership" in notes[0], notes
    assert [f["path"] for f in json.loads(res.stdout)["files"]] == ["AGENTS.md"]
