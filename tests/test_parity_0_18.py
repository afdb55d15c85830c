"""Differential tests of profile 0.18's session simulation against hermes-agent 0.18.2 itself (issue 20).

0.18.2's ``agent/subdirectory_hints.py`` and ``hermes_cli/profile_distribution.py`` are 0.19.0's files, and its
context loaders differ from 0.19.0 only in what a leading BOM does (``_scan_context_content`` scans it, and
U+FEFF is an invisible character it blocks; ``_strip_yaml_frontmatter`` keeps it). In 0.18.2's own cached
environment: the ``# Project Context`` block on the generated trees of tests/test_context_render_oracle.py,
the subdirectory hints call by call on the generated traces of tests/test_hints_oracle.py, ``hermes profile
install`` on the distributions of tests/test_profile.py, and the whole system prompt byte for byte on the
sessions of tests/test_prompt_oracle.py plus the desktop and tui surfaces (0.18.2 has a desktop line in its
environment hints, no Telegram rich-messages extension and no tui pane clarifier). Run alone:
``pytest -m hermes_0_18_2``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_audit.hermes import prompt as P
from hermes_audit.hermes.hermes_source import open_source
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.tokens import get_counter
from hermes_audit.audits.profile import ProfileOptions, audit_distribution
from tests.test_context_render_oracle import _materialise, _norm, trees
from tests.test_hints_oracle import CASES_PER_RUN, calls, compare_batch
from tests.test_hints_oracle import trees as hint_trees
from tests.test_parity_0_20 import _ours_context
from tests.test_profile import HOSTILE_MANIFESTS, PLAN_TREES, write_tree
from tests.test_prompt_oracle import _cases as prompt_cases

pytestmark = [pytest.mark.oracle, pytest.mark.hermes_0_18_2]

RELEASE = "0.18.2"


@pytest.fixture(scope="module")
def hermes18(oracle_for):
    return oracle_for(RELEASE)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(trees(), min_size=20, max_size=20))
def test_context_render_equals_hermes_0_18_2(hermes18, catalog, batch):
    base = Path(tempfile.mkdtemp(prefix="h18ctx-")).resolve()
    try:
        cases, ours = [], []
        for i, t in enumerate(batch):
            cwd, home, ctx = _materialise(base, i, t)
            for skip in (True, False):
                cases.append({"cwd": str(cwd), "hermes_home": str(home), "context_length": ctx, "skip_soul": skip})
                ours.append(_ours_context(cwd, home, ctx, not skip, catalog, "0.18"))
        got = hermes18.run("context_render", {"cases": cases})
        for case, theirs, (block, soul, rep) in zip(cases, got, ours):
            assert theirs["error"] is None, theirs["error"]
            assert rep.render_problem is None, (case, rep.render_problem)
            assert _norm(block) == _norm(theirs["block"]), (case, rep.to_dict())
            assert _norm(soul) == _norm(theirs["soul"]), case
    finally:
        shutil.rmtree(base, ignore_errors=True)


BOM_CASES = {
    "bom-agents-blocked": {"AGENTS.md": b"\xef\xbb\xbfplain rules"},
    "bom-only-agents": {"AGENTS.md": b"\xef\xbb\xbf", "CLAUDE.md": b"claude"},
    "bom-frontmatter-kept": {".hermes.md": b"\xef\xbb\xbf---\nmodel: x\n---\nrules"},
    "frontmatter-stripped": {".hermes.md": b"---\nmodel: x\n---\nrules"},
}


def test_bom_cases_equal_hermes_0_18_2(hermes18, catalog, tmp_path):
    cases, ours = [], []
    for name, files in BOM_CASES.items():
        root, home = tmp_path / name / "repo", tmp_path / name / "home"
        for rel, data in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        home.mkdir(parents=True)
        (home / "SOUL.md").write_bytes(b"\xef\xbb\xbfI am calm.")
        for skip in (True, False):
            cases.append({"cwd": str(root), "hermes_home": str(home), "context_length": None, "skip_soul": skip})
            ours.append(_ours_context(root, home, None, not skip, catalog, "0.18"))
    got = hermes18.run("context_render", {"cases": cases})
    for case, (block, soul, _rep), theirs in zip(cases, ours, got):
        assert _norm(block) == _norm(theirs["block"]), case
        assert _norm(soul) == _norm(theirs["soul"]), case
    first = got[0]["block"]
    assert "[BLOCKED: AGENTS.md" in first and "invisible_unicode_U+FEFF" in first  # what 0.19.0 changed
    assert got[0]["soul"] is not None and "[BLOCKED" in got[0]["soul"]


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hint_trees().flatmap(lambda t: st.tuples(st.just(t), calls(t["dirs"]))), min_size=CASES_PER_RUN,
                max_size=CASES_PER_RUN))
def test_hints_equal_hermes_0_18_2_call_by_call(hermes18, batch):
    compare_batch(hermes18, batch, "0.18")


def test_profile_install_equals_hermes_0_18_2(hermes18, tmp_path):
    roots = {}
    for key, body in HOSTILE_MANIFESTS.items():
        if key.startswith("requires-"):
            continue  # 0.18 stands for three releases: which one checks hermes_requires is not known
        roots[key] = write_tree(tmp_path / key, {"distribution.yaml": body, "SOUL.md": "You are helpful.\n"})
    for key, tree in PLAN_TREES.items():
        roots[f"plan-{key}"] = write_tree(tmp_path / f"plan-{key}", tree)
    theirs = hermes18.run("profile_install", {"cases": [{"source": str(r), "install": True} for r in roots.values()]})
    for (key, root), t in zip(roots.items(), theirs):
        rep = audit_distribution(root, ProfileOptions(hermes_version="0.18"))
        ours = rep.refusal or rep.version_refusal
        if key in ("syntax", "python-tag"):
            assert (ours or "").split(": ", 1)[0] == (t["error"] or "").split(": ", 1)[0], key
            continue
        assert ours == t["error"], key
        if t["error"] is None:
            assert rep.plan.name == t["name"] and rep.plan.installed_set() == set(t["files"]), key


def _ours_prompt(case: dict, source, catalog, extra_env: dict) -> "P.PromptReport":
    import os
    from datetime import datetime

    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    env.update(extra_env)
    settings = P.PromptSettings(
        cwd=Path(case["cwd"]), home=Path(case["hermes_home"]), platform=case["platform"], model=case["model"],
        provider=case["provider"], tools=frozenset(case["tools"]), context_length=case["context_length"],
        now=datetime.fromisoformat(case["now"]), system_message=case["system_message"], session_id=case["session_id"],
        environ=env)
    return P.assemble(settings, get_profile("0.18"), scanner_for(catalog.parity, "0.19"), source,
                      counter=get_counter("chars"))


@pytest.mark.parametrize("extra_env", [{}, {"HERMES_DESKTOP": "1"}, {"HERMES_DESKTOP_TERMINAL": "yes"}],
                         ids=["plain", "desktop", "desktop-terminal"])
def test_prompt_equals_hermes_0_18_2_byte_for_byte(hermes18, catalog, tmp_path, extra_env):
    import os

    venv = Path(hermes18.python).parent.parent
    site = sorted(venv.glob("lib/python3*/site-packages"))[0]
    source = open_source(site)
    assert source.version == RELEASE
    cases = prompt_cases(tmp_path)
    tui = dict(cases[3], platform="tui", cwd=cases[3]["cwd"], hermes_home=cases[3]["hermes_home"])
    cases.append(tui)
    ours = [_ours_prompt(c, source, catalog, extra_env) for c in cases]  # ours first: Hermes seeds files
    clean = {k: "" for k in os.environ if k.startswith("HERMES_")}
    theirs = hermes18.run("prompt_build", {"cases": cases}, env={**clean, **extra_env})
    for i, (mine, hermes) in enumerate(zip(ours, theirs), 1):
        assert hermes["error"] is None, hermes["error"]
        assert mine.exact, (i, [(ly.id, ly.status) for ly in mine.included()])
        for tier in ("stable", "context", "volatile"):
            assert mine.tier_texts()[tier] == hermes["parts"][tier], (i, tier)
        assert mine.prompt == hermes["prompt"], i
    telegram = theirs[1]["prompt"]
    assert "Keep replies short." in telegram  # the config append; 0.18.2 has no rich-messages extension
    if extra_env:
        assert "Runtime surface: you're running inside the Hermes desktop GUI app." in theirs[0]["prompt"]
