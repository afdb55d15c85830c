"""Issue 18 leftovers (red team, branch ``mood18``): an order quoted from a named speaker, a label read as a verb,
words inside a URL read as labels, and HA612's paths when the scan runs from outside the repository.

Texts written for these tests. Every attack case fails on ``main`` at 60f4bd0 (checked by running this file
against that tree); the honest look-alikes stay below high.
"""
from __future__ import annotations

import pytest

from hermes_audit.audits.detectors import AuditEngine as Engine
from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.findings import Severity
from tests.test_discovery_round8 import _codes, _git, _repo, _scan


@pytest.fixture(scope="module")
def engine(catalog):
    return Engine(catalog.rules)


def _top(engine, text, kind=DocumentKind.AGENTS_MD):
    found = [f for f in engine.run(Document.from_text(text, kind=kind)).findings if f.rule_id.startswith("HA")]
    return max((f.severity for f in found), default=None), found


# --- 4. HA612's paths ------------------------------------------------------------------------------------------

def _collision_tree(root):
    _repo(root)
    (root / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    (root / "Agents.md").write_text("# Other rules\n", encoding="utf-8")
    _git(root, "add", "-A")


def test_ha612_names_files_as_the_scan_shows_them_from_outside(tmp_path):
    """``hermes-audit scan /abs/repo`` from another directory: the message named ``../../../abs/repo/AGENTS.md``
    while every finding's location (HA612's own too) says ``/abs/repo/AGENTS.md``."""
    root = tmp_path / "x" / "repo"
    _collision_tree(root)
    elsewhere = tmp_path / "elsewhere" / "deep"
    elsewhere.mkdir(parents=True)
    _code, report = _scan(elsewhere, str(root))
    found = [f for f in report["findings"] if f["rule_id"] == "HA612"]
    assert sorted(f["path"] for f in found) == [str(root / "AGENTS.md"), str(root / "Agents.md")]
    for f in found:
        assert ".." not in f["message"], f["message"]
        other = str(root / ("Agents.md" if f["path"].endswith("AGENTS.md") else "AGENTS.md"))
        assert f["message"].startswith(f"{f['path']} and {other} differ only in case"), f["message"]


def test_ha612_names_files_relative_to_the_scan_root_inside_it(tmp_path):
    root = tmp_path / "repo"
    _collision_tree(root)
    _code, report = _scan(tmp_path, "repo")
    msgs = sorted(f["message"] for f in report["findings"] if f["rule_id"] == "HA612")
    assert [m.split(" differ")[0] for m in msgs] == ["repo/AGENTS.md and repo/Agents.md",
                                                     "repo/Agents.md and repo/AGENTS.md"]


def test_ha612_finds_the_sibling_of_one_file_named_from_outside(tmp_path):
    """One file named by its absolute path from elsewhere: its case twin on disk was not looked for."""
    root = tmp_path / "x" / "repo"
    _collision_tree(root)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _code, report = _scan(elsewhere, str(root / "AGENTS.md"))
    msgs = [f["message"] for f in report["findings"] if f["rule_id"] == "HA612"]
    assert len(msgs) == 1 and msgs[0].startswith(f"{root / 'AGENTS.md'} and {root / 'Agents.md'} differ"), msgs
