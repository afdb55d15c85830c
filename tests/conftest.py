"""Shared fixtures: the rule catalog, the corpus location and the hermes-agent 0.19.0 oracle."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("HERMES_AUDIT_CORPUS", ROOT.parent / "shared" / "corpus"))


@pytest.fixture(scope="session")
def catalog():
    from hermes_audit.engine.catalog import load_catalog

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


#: Releases with a differential test of their own (tests/test_parity_versions.py), each behind a marker
#: ``hermes_<release>`` so one can run alone: ``pytest -m hermes_0_17_0``.
ORACLE_RELEASES = ("0.15.0", "0.17.0", "0.18.2", "0.19.0")


def pytest_configure(config):
    for rel in ORACLE_RELEASES:
        config.addinivalue_line("markers", f"hermes_{rel.replace('.', '_')}: differential tests against hermes-agent {rel}")


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
