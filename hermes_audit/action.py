"""The scan step of the GitHub Action (``action.yml``): ``python -m hermes_audit.action``.

The composite action passes its inputs in environment variables (never
interpolated into a shell script, so an input cannot inject commands):

==================  ====================  =========================================
variable            action input          accepted values (default)
==================  ====================  =========================================
``HA_PATHS``        ``paths``             paths separated by spaces or newlines (``.``)
``HA_HERMES_VERSION`` ``hermes-version``  ``latest`` or ``0.19`` (``latest``)
``HA_FAIL_ON``      ``fail-on``           ``info|low|medium|high|critical|never`` (``high``)
``HA_FORMAT``       ``format``            log format: ``github|text|json|sarif`` (``github``)
``HA_SARIF_FILE``   ``sarif-file``        where the SARIF report goes (``hermes-audit.sarif``)
``HA_CATEGORY``     ``category``          SARIF category (``hermes-audit/<hermes-version>``)
``HA_UPLOAD``       ``upload``            ``true`` or ``false`` (``false``)
==================  ====================  =========================================

It always writes the SARIF file (so the upload step can run even when the scan
fails the job), prints the report in ``format`` (with ``github``: annotations
and a job summary), and writes step outputs to ``$GITHUB_OUTPUT``:
``sarif-file``, ``category``, ``exit-code`` (hermes-audit's own), ``gate`` (the
exit code the last step of the action ends with: ``fail-on: never`` turns 1
into 0; 2 and 3 always fail) and ``findings`` (results in the SARIF file).

Exit status of this step: 0 after a scan, whatever it found (the action's
last step applies ``gate`` after the upload); 2 for invalid inputs, with an
``::error`` annotation naming the input.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Mapping, Optional

SEVERITIES = ("info", "low", "medium", "high", "critical")
FORMATS = ("github", "text", "json", "sarif")
VERSIONS = ("latest", "0.19")


class InputError(ValueError):
    """An action input is invalid; the message names the input and the accepted values."""


@dataclass
class Plan:
    """What the scan step will run."""

    paths: list[str]
    hermes_version: str
    fail_on: str
    fmt: str
    sarif_file: str
    category: str
    upload: bool
    scan_args: list[str] = field(default_factory=list)

    def sarif_argv(self, python: str) -> list[str]:
        return [python, "-m", "hermes_audit", "scan", "--format", "sarif", "-o", self.sarif_file,
                "--sarif-category", self.category, *self.scan_args, "--", *self.paths]

    def log_argv(self, python: str) -> Optional[list[str]]:
        if self.fmt == "sarif":
            return None
        return [python, "-m", "hermes_audit", "scan", "--format", self.fmt, "--color", "never",
                *self.scan_args, "--", *self.paths]


def _choice(env: Mapping[str, str], var: str, name: str, allowed: tuple[str, ...], default: str) -> str:
    v = (env.get(var) or "").strip() or default
    if v not in allowed:
        raise InputError(f"input {name}: {v!r} is not one of {', '.join(allowed)}")
    return v


def plan_from_env(env: Mapping[str, str]) -> Plan:
    """Validate the inputs in ``env`` and build the :class:`Plan`. Raises :class:`InputError`."""
    raw_paths = env.get("HA_PATHS") or "."
    paths = raw_paths.split()
    if not paths:
        paths = ["."]
    for p in paths:
        if "\x00" in p:
            raise InputError("input paths: a path contains a NUL character")
    version = _choice(env, "HA_HERMES_VERSION", "hermes-version", VERSIONS, "latest")
    fail_on = _choice(env, "HA_FAIL_ON", "fail-on", (*SEVERITIES, "never"), "high")
    fmt = _choice(env, "HA_FORMAT", "format", FORMATS, "github")
    upload = _choice(env, "HA_UPLOAD", "upload", ("true", "false"), "false") == "true"
    sarif_file = (env.get("HA_SARIF_FILE") or "").strip() or "hermes-audit.sarif"
    if "\n" in sarif_file or "\x00" in sarif_file:
        raise InputError("input sarif-file: must be one path")
    category = (env.get("HA_CATEGORY") or "").strip() or f"hermes-audit/{version}"
    if any(c in category for c in "\r\n\x00"):
        raise InputError("input category: must be one line")
    args = ["--hermes-version", version]
    if fail_on == "never":
        args += ["--fail-on", "critical", "--no-fail-on-blocked"]
    else:
        args += ["--fail-on", fail_on]
    return Plan(paths, version, fail_on, fmt, sarif_file, category, upload, args)


def gate(exit_code: int, fail_on: str) -> int:
    """The exit code the action ends with: hermes-audit's, except that ``fail-on: never``
    does not fail on findings (1); usage errors (2) and incomplete scans (3) always fail."""
    if fail_on == "never" and exit_code == 1:
        return 0
    return exit_code


def _escape(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _write_outputs(path: Optional[str], outputs: dict[str, str]) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        for k, v in outputs.items():
            delim = "HERMES_AUDIT_EOF"
            while delim in v:
                delim += "_"
            fh.write(f"{k}<<{delim}\n{v}\n{delim}\n")


def _count_results(sarif_file: str) -> int:
    try:
        with open(sarif_file, encoding="utf-8") as fh:
            data = json.load(fh)
        return sum(len(r.get("results") or []) for r in data.get("runs", []))
    except (OSError, ValueError, AttributeError):
        return 0


def main(env: Optional[Mapping[str, str]] = None, python: Optional[str] = None) -> int:
    """Run the scan step. Returns the step's exit status (see the module docstring)."""
    env = os.environ if env is None else env
    python = python or sys.executable
    try:
        plan = plan_from_env(env)
    except InputError as exc:
        print(f"::error title=hermes-audit action::{_escape(str(exc))}", flush=True)
        return 2
    print(f"hermes-audit: {shlex.join(plan.sarif_argv('hermes-audit')[3:])}", flush=True)
    sarif_dir = os.path.dirname(plan.sarif_file)
    if sarif_dir:
        os.makedirs(sarif_dir, exist_ok=True)  # the workflow asked for this path; scan -o does not create folders
    proc = subprocess.run(plan.sarif_argv(python), env=dict(env), stdin=subprocess.DEVNULL)
    code = proc.returncode
    log = plan.log_argv(python)
    if log is not None:
        subprocess.run(log, env=dict(env), stdin=subprocess.DEVNULL)
    outputs = {
        "sarif-file": plan.sarif_file if os.path.isfile(plan.sarif_file) else "",
        "category": plan.category,
        "exit-code": str(code),
        "gate": str(gate(code, plan.fail_on)),
        "findings": str(_count_results(plan.sarif_file)),
    }
    try:
        _write_outputs(env.get("GITHUB_OUTPUT"), outputs)
    except OSError as exc:
        print(f"::error title=hermes-audit action::{_escape(f'cannot write step outputs: {exc}')}", flush=True)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess in tests
    sys.exit(main())
