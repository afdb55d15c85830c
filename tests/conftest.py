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
