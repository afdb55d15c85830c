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

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.session_oracle import (compare_context_cases, compare_context_render, compare_memory_homes,
                                  compare_profile_install, compare_prompt)
from tests.test_context_render_oracle import trees
from tests.test_hints_oracle import CASES_PER_RUN, calls, compare_batch
from tests.test_hints_oracle import trees as hint_trees

pytestmark = [pytest.mark.oracle, pytest.mark.hermes_0_18_2]

RELEASE = "0.18.2"


@pytest.fixture(scope="module")
def hermes18(oracle_for):
    return oracle_for(RELEASE)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(trees(), min_size=20, max_size=20))
def test_context_render_equals_hermes_0_18_2(hermes18, catalog, batch):
    compare_context_render(hermes18, catalog, batch, "0.18")


BOM_CASES = {
    "bom-agents-blocked": {"AGENTS.md": b"\xef\xbb\xbfplain rules"},
    "bom-only-agents": {"AGENTS.md": b"\xef\xbb\xbf", "CLAUDE.md": b"claude"},
    "bom-frontmatter-kept": {".hermes.md": b"\xef\xbb\xbf---\nmodel: x\n---\nrules"},
    "frontmatter-stripped": {".hermes.md": b"---\nmodel: x\n---\nrules"},
}


def test_bom_cases_equal_hermes_0_18_2(hermes18, catalog, tmp_path):
    got = compare_context_cases(hermes18, catalog, tmp_path, BOM_CASES, "0.18", soul=b"\xef\xbb\xbfI am calm.")
    first = got[0]["block"]
    assert "[BLOCKED: AGENTS.md" in first and "invisible_unicode_U+FEFF" in first  # what 0.19.0 changed
    assert got[0]["soul"] is not None and "[BLOCKED" in got[0]["soul"]


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(hint_trees().flatmap(lambda t: st.tuples(st.just(t), calls(t["dirs"]))), min_size=CASES_PER_RUN,
                max_size=CASES_PER_RUN))
def test_hints_equal_hermes_0_18_2_call_by_call(hermes18, batch):
    compare_batch(hermes18, batch, "0.18")


def test_profile_install_equals_hermes_0_18_2(hermes18, tmp_path):
    compare_profile_install(hermes18, tmp_path, "0.18")


@pytest.mark.parametrize("extra_env", [{}, {"HERMES_DESKTOP": "1"}, {"HERMES_DESKTOP_TERMINAL": "yes"}],
                         ids=["plain", "desktop", "desktop-terminal"])
def test_prompt_equals_hermes_0_18_2_byte_for_byte(hermes18, catalog, tmp_path, extra_env):
    theirs = compare_prompt(hermes18, catalog, tmp_path, "0.18", RELEASE, extra_env)
    telegram = theirs[1]["prompt"]
    assert "Keep replies short." in telegram  # the config append; 0.18.2 has no rich-messages extension
    if extra_env:
        assert "Runtime surface: you're running inside the Hermes desktop GUI app." in theirs[0]["prompt"]


def test_memory_render_equals_hermes_0_18_2(hermes18, tmp_path):
    theirs = compare_memory_homes(hermes18, tmp_path, "0.18")
    assert "[BLOCKED" in theirs["poisoned"]["memory_block"] and "memory(action=read)" not in \
        theirs["poisoned"]["memory_block"]
