"""HA609 for a subdirectory hint file that resolves out of the working directory: Hermes 0.19 follows it
(agent/subdirectory_hints.py: is_file() then read_text()) when the agent enters that directory; latest refuses."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from hermes_audit.audits.scan import ScanOptions, run_scan


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not the repository's text\n", encoding="utf-8")
    root = tmp_path / "repo"
    (root / "link").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "link" / "AGENTS.md").symlink_to(outside / "secret.txt")
    (root / "plain").mkdir()
    (root / "plain" / "AGENTS.md").write_text("# Plain\nRun make.\n", encoding="utf-8")
    (root / "inner").mkdir()
    (root / "inner" / "AGENTS.md").symlink_to(root / "plain" / "AGENTS.md")  # inside the tree: fine
    return root


def _ha609(root: Path, version: str, cwd=None):
    old = os.getcwd()
    os.chdir(root)
    try:
        res = run_scan([Path(".")], ScanOptions(hermes_version=version, select=["HA609"], session_cwd=cwd))
    finally:
        os.chdir(old)
    return [f for f in res.findings if f.rule_id == "HA609"]


def test_root_scan_reports_the_hint_symlink_for_019(repo):
    found = _ha609(repo, "0.19")
    assert [f.path for f in found] == ["link/AGENTS.md"]
    assert "secret.txt" in found[0].message and "subdirectory hint" in found[0].message


def test_latest_refuses_such_a_hint_but_a_session_started_there_follows_it(repo):
    """QA: latest's _resolved_hint_target refuses the hint, but its context-file loader follows the same link
    for a session started in link/: the root scan reports that once (the in-tree link inner/ gives nothing)."""
    found = _ha609(repo, "latest")
    assert [f.path for f in found] == ["link/AGENTS.md"]
    assert "a session started in link/" in found[0].message and "refused" in found[0].message


@pytest.mark.parametrize("version", ["latest", "0.19"])
def test_file_argument_reports_the_hint_symlink(repo, version):
    """QA: `scan link/AGENTS.md` (pre-commit) reports what the root scan reports."""
    old = os.getcwd()
    os.chdir(repo)
    try:
        res = run_scan([Path("link/AGENTS.md")], ScanOptions(hermes_version=version, select=["HA609"]))
    finally:
        os.chdir(old)
    assert [(f.path, f.rule_id) for f in res.findings] == [("link/AGENTS.md", "HA609")]
    assert res.exit_code() == 1


def test_latest_link_shadowed_in_its_directory_is_not_reported(repo):
    """A session started in link/ loads a regular .hermes.md first (priority): the refused link is never reached."""
    (repo / "link" / ".hermes.md").write_text("# Project\nUse make.\n", encoding="utf-8")
    assert _ha609(repo, "latest") == []


def test_hints_command_names_the_refused_link(repo):
    from hermes_audit.hermes.hints import simulate_hints
    from hermes_audit.hermes.profiles import get_profile
    from hermes_audit.hermes.threats import scanner_for
    from hermes_audit.patterns.catalog import load_catalog

    profile = get_profile("latest")
    hr = simulate_hints(str(repo), [], profile, scanner_for(load_catalog().parity, "latest"), all_dirs=True)
    assert hr.refused_links == [os.path.join(os.path.realpath(repo / "link"), "AGENTS.md")]
    assert any(n.startswith("refused as a hint: link/AGENTS.md") for n in hr.notes), hr.notes


def test_session_in_the_linked_directory_reports_it_once(repo):
    found = _ha609(repo, "0.19", cwd=repo / "link")
    assert [f.path for f in found] == ["link/AGENTS.md"]


@pytest.mark.parametrize("version", ["latest", "0.19"])
def test_context_file_linked_to_an_outside_directory_is_not_said_to_load(tmp_path: Path, version: str):
    """QA: AGENTS.md -> a directory outside the repository. Hermes' read_text() fails on a directory (both
    versions catch the error and load nothing), so this is an unreadable file (HA606), not HA609's
    "follows the link and loads the target"; a link to an outside *file* still gives HA609."""
    (tmp_path / "outside" / "d").mkdir(parents=True)
    (tmp_path / "outside" / "f.md").write_text("outside text\n", encoding="utf-8")
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "AGENTS.md").symlink_to(tmp_path / "outside" / "d")
    old = os.getcwd()
    os.chdir(root)
    try:
        res = run_scan([Path(".")], ScanOptions(hermes_version=version))
        codes = {f.rule_id for f in res.findings if f.path == "AGENTS.md"}
        verdict = next(r.verdict for r in res.files if r.document.path == "AGENTS.md")
        assert "HA609" not in codes and "HA606" in codes, codes
        assert "loads the target" not in (verdict.message or "") and "directory" in (verdict.message or "")
        (root / "AGENTS.md").unlink()
        (root / "AGENTS.md").symlink_to(tmp_path / "outside" / "f.md")
        res = run_scan([Path(".")], ScanOptions(hermes_version=version))
        assert "HA609" in {f.rule_id for f in res.findings if f.path == "AGENTS.md"}
    finally:
        os.chdir(old)


@pytest.mark.parametrize("version", ["latest", "0.19"])
def test_verdict_of_a_linked_subdirectory_hint_says_when_hermes_follows_it(repo: Path, version: str):
    """The per-file verdict says what HA609 says: the link is followed for a session started in that directory;
    as a subdirectory hint latest refuses it and 0.19 follows it. A file in the session directory keeps the
    plain wording."""
    (repo / "AGENTS.md").symlink_to(repo.parent / "outside" / "secret.txt")
    old = os.getcwd()
    os.chdir(repo)
    try:
        res = run_scan([Path(".")], ScanOptions(hermes_version=version))
    finally:
        os.chdir(old)
    msg = {r.document.path: r.verdict.message or "" for r in res.files}
    sub, top = msg["link/AGENTS.md"], msg["AGENTS.md"]
    assert "loads the target for a session started in link/" in sub
    if version == "latest":
        assert "as a subdirectory hint of a session started higher up it is refused" in sub
    else:
        assert "and as a subdirectory hint when the agent enters link/" in sub
    assert "follows the link and loads the target;" in top and "session started" not in top
