"""The scan step of the GitHub Action (``action.yml``): ``python -m hermes_audit.action``.

The composite action passes its inputs in environment variables (never
interpolated into a shell script, so an input cannot inject commands):

==================  ====================  =========================================
variable            action input          accepted values (default)
==================  ====================  =========================================
``HA_PATHS``        ``paths``             paths separated by spaces or newlines (``.``)
``HA_HERMES_VERSION`` ``hermes-version``  a release, a profile or ``auto`` (``latest``)
``HA_FAIL_ON``      ``fail-on``           ``info|low|medium|high|critical|never`` (``high``)
``HA_FORMAT``       ``format``            log format: ``github|text|json|sarif`` (``github``)
``HA_SARIF_FILE``   ``sarif-file``        where the SARIF report goes (``hermes-audit.sarif``)
``HA_CATEGORY``     ``category``          SARIF category (``hermes-audit/<hermes-version>``)
``HA_UPLOAD``       ``upload``            ``true`` or ``false`` (``false``)
``HA_AUDITOR``      ``auditor``           ``auto``, ``true`` or ``false`` (``auto``)
``HA_EVENT_NAME``   (``github.event_name``)  ``auto`` is ``true`` for every event but ``push``,
                                          ``schedule``, ``workflow_dispatch``, ``release``
``HA_BASE_SHA``     (the pull request's   whose configuration auditor mode uses
                    ``base.sha``)
==================  ====================  =========================================

Auditor mode (docs/github.md): ``scan --no-suppressions`` (no configuration, inline suppression or
baseline from the checked-out tree), with the configuration of the base commit when the clone has it
(read with ``git cat-file``, copied under ``$RUNNER_TEMP``, passed as ``--config FILE --config-root
<repository root>``). In either mode, when configuration, suppressions or a baseline removed findings or
files (a second pair of JSON scans, with and without them, tells), a ``::notice`` and a job-summary
section say how many.

``sarif-file`` must lie in the workspace and no directory on its way may be a symbolic link (the pull
request's tree could point one out of it); exit 2 otherwise. A file already at ``sarif-file`` (say, one
the pull request committed) is removed before the scan (a
directory there is refused, exit 2), so the ``sarif-file`` output names only a report this run wrote.

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
from typing import Mapping, Optional, Sequence

from hermes_audit.reporters.github import md_escape
from hermes_audit.reporters.workflow import neutralise

SEVERITIES = ("info", "low", "medium", "high", "critical")
FORMATS = ("github", "text", "json", "sarif")


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
    auditor: bool = False
    base_sha: str = ""

    def sarif_argv(self, python: str) -> list[str]:
        return [python, "-I", "-m", "hermes_audit", "scan", "--format", "sarif", "-o", self.sarif_file,
                "--sarif-category", self.category, *self.scan_args, "--", *self.paths]

    def log_argv(self, python: str) -> Optional[list[str]]:
        if self.fmt == "sarif":
            return None
        return [python, "-I", "-m", "hermes_audit", "scan", "--format", self.fmt, "--color", "never",
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
    version = (env.get("HA_HERMES_VERSION") or "").strip() or "latest"
    if version.lower() != "auto":  # a release (0.17.0), a profile (0.19) or auto: docs/versions.md
        # start-up time: a command (and a report format) imports only what it runs
        from hermes_audit.hermes.profiles import profile_name_for

        try:
            version = profile_name_for(version)
        except ValueError as exc:
            raise InputError(f"input hermes-version: {exc}") from None
    fail_on = _choice(env, "HA_FAIL_ON", "fail-on", (*SEVERITIES, "never"), "high")
    fmt = _choice(env, "HA_FORMAT", "format", FORMATS, "github")
    upload = _choice(env, "HA_UPLOAD", "upload", ("true", "false"), "false") == "true"
    sarif_file = (env.get("HA_SARIF_FILE") or "").strip() or "hermes-audit.sarif"
    if "\n" in sarif_file or "\x00" in sarif_file:
        raise InputError("input sarif-file: must be one path")
    category = (env.get("HA_CATEGORY") or "").strip() or f"hermes-audit/{version}"
    if any(c in category for c in "\r\n\x00"):
        raise InputError("input category: must be one line")
    auditor_in = _choice(env, "HA_AUDITOR", "auditor", ("auto", "true", "false"), "auto")
    event = (env.get("HA_EVENT_NAME") or "").strip()
    auditor = auditor_in == "true" or (auditor_in == "auto" and bool(event) and event not in TRUSTED_EVENTS)
    base_sha = (env.get("HA_BASE_SHA") or "").strip()
    if base_sha and not all(c in "0123456789abcdefABCDEF" for c in base_sha):
        base_sha = ""  # not a commit id: never handed to git
    args = ["--hermes-version", version]
    if fail_on == "never":
        args += ["--fail-on", "critical", "--no-fail-on-blocked"]
    else:
        args += ["--fail-on", fail_on]
    if auditor:
        args.append("--no-suppressions")
    return Plan(paths, version, fail_on, fmt, sarif_file, category, upload, args, auditor, base_sha)


#: Events whose checkout is the repository's own history, written by people with write access: the only ones
#: ``auto`` trusts the tree's configuration on. Every other event is audited (``pull_request``,
#: ``pull_request_target``, ``merge_group``, whose tree a pull request wrote; and ``workflow_run``,
#: ``pull_request_review``, ``issue_comment`` and the rest, which a workflow may run on a pull request's head:
#: eighth red team, issue 18), as is an event this list does not know.
TRUSTED_EVENTS = ("push", "schedule", "workflow_dispatch", "release")
#: The configuration files hermes-audit reads at a repository root, in order (hermes_audit.cli.config).
CONFIG_NAMES = (".hermes-audit.toml", "pyproject.toml")


def _git(args: list[str], cwd: Optional[str] = None) -> Optional[bytes]:
    """Output of a read-only git command run with the scan's safe options (no fsmonitor, no hooks, no
    system configuration); ``None`` when it fails."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.discovery import SAFE_GIT_OPTIONS

    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0")
    try:
        proc = subprocess.run(["git", *SAFE_GIT_OPTIONS, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def base_config(plan: Plan, temp_dir: str) -> tuple[list[str], str]:
    """Auditor mode's configuration: ``(scan arguments, what the notice says)``. The first of
    :data:`CONFIG_NAMES` at ``plan.base_sha`` (read with ``git cat-file``, never checked out), copied to
    ``temp_dir``, as ``--config FILE --config-root ROOT``; no arguments when there is no base commit, the
    clone lacks it (a depth-1 checkout of the merge commit), or it has no configuration file."""
    if not plan.base_sha:
        return [], "no configuration (no base commit)"
    top = _git(["rev-parse", "--show-toplevel"])
    if top is None:
        return [], "no configuration (the working directory is not a git checkout)"
    root = top.decode("utf-8", "surrogateescape").strip()
    short = plan.base_sha[:12]
    if _git(["cat-file", "-e", f"{plan.base_sha}^{{commit}}"], cwd=root) is None:
        return [], (f"no configuration: the base commit {short} is not in the clone "
                    "(actions/checkout with fetch-depth: 2 fetches it)")
    for name in CONFIG_NAMES:
        data = _git(["cat-file", "blob", f"{plan.base_sha}:{name}"], cwd=root)
        if data is None:
            continue
        folder = os.path.join(temp_dir, "hermes-audit-base-config")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, name)
        with open(path, "wb") as fh:
            fh.write(data)
        return ["--config", path, "--config-root", root], f"the configuration of the base commit {short} ({name})"
    return [], f"no configuration (the base commit {short} has none)"


def check_sarif_path(path: str, workspace: str) -> None:
    """Refuse a ``sarif-file`` that leaves the workspace or passes through a symbolic link: the checked-out
    tree is the pull request's, and a directory it commits as a link (``reports -> /elsewhere``) would make
    the action remove and write a file outside it. Raises :class:`InputError`."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.beneath import is_below

    root = os.path.realpath(workspace)
    full = os.path.abspath(os.path.join(workspace, path))
    if not is_below(full, os.path.abspath(workspace)) and not is_below(full, root):
        raise InputError(f"input sarif-file: {path} lies outside the workspace")
    rel = os.path.relpath(os.path.dirname(full), os.path.abspath(workspace))
    cur = os.path.abspath(workspace)
    for part in ([] if rel == "." else rel.split(os.sep)):
        cur = os.path.join(cur, part)
        if os.path.islink(cur):
            raise InputError(f"input sarif-file: {os.path.relpath(cur, workspace)} is a symbolic link "
                             "(the checked-out tree may not choose where the report goes)")


def clear_sarif(path: str) -> Optional[str]:
    """Remove a file (or symbolic link) already at ``path`` before the scan writes it, so the report the
    action hands on is this run's. Returns what to say about it (``None``: nothing was there). Raises
    :class:`InputError` for a directory there or a file that cannot be removed."""
    if not os.path.lexists(path):
        return None
    if os.path.isdir(path) and not os.path.islink(path):
        raise InputError(f"input sarif-file: {path} is a directory")
    try:
        os.unlink(path)
    except OSError as exc:
        raise InputError(f"input sarif-file: cannot remove the existing {path}: {exc.strerror or exc}") from None
    return f"removed {path}, which was there before the scan (a committed report is never uploaded)"


def gate(exit_code: int, fail_on: str) -> int:
    """The exit code the action ends with: hermes-audit's, except that ``fail-on: never``
    does not fail on findings (1); usage errors (2) and incomplete scans (3) always fail."""
    if fail_on == "never" and exit_code == 1:
        return 0
    return exit_code


def _escape(value: str) -> str:
    """The message of a workflow command this action prints: ``%``, CR and LF escaped as the runner reads
    them, controls shown as escapes, and no legacy ``##[``/``##vso[`` marker left in it (a file name listed in
    a notice can carry one; eighth red team, issue 18)."""
    value = "".join(c if c >= " " or c in "\r\n" else f"\\x{ord(c):02x}" for c in value)
    return neutralise(value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"), keep_commands=True)


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


def _json_summary(python: str, args: list[str], paths: list[str], out: str, env: dict) -> Optional[dict]:
    """``summary`` of a JSON scan with ``args`` (output discarded); ``None`` when it wrote no report."""
    subprocess.run([python, "-I", "-m", "hermes_audit", "scan", "--format", "json", "-o", out, *args, "--", *paths],
                   env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        summary = report.get("summary") or {}
        got = {k: int(summary.get(k) or 0) for k in ("files", "findings", "suppressed")}
        got["paths"] = sorted({str(f.get("path")) for f in report.get("files") or [] if isinstance(f, dict)})
        return got
    except (OSError, ValueError, AttributeError, TypeError):
        return None


def removed_counts(plan: Plan, config_args: list[str], python: str, env: dict, temp_dir: str) -> Optional[dict]:
    """What configuration, inline suppressions or a baseline removed from the report: the JSON summaries of
    the scan as run and of the same scan with ``--no-suppressions --no-config``, compared. ``None`` when
    nothing can have been removed (auditor mode without a base configuration) or a scan wrote no report;
    else ``{"findings", "files", "suppressed", "raw_findings", "raw_files"}``."""
    if plan.auditor and not config_args:
        return None
    run_args = plan.scan_args + config_args
    raw_args = [a for a in plan.scan_args if a != "--no-suppressions"] + ["--no-suppressions", "--no-config"]
    got = _json_summary(python, run_args, plan.paths, os.path.join(temp_dir, "hermes-audit-configured.json"), env)
    raw = _json_summary(python, raw_args, plan.paths, os.path.join(temp_dir, "hermes-audit-raw.json"), env)
    if got is None or raw is None:
        return None
    return {"findings": max(0, raw["findings"] - got["findings"]), "files": max(0, raw["files"] - got["files"]),
            "suppressed": got["suppressed"], "raw_findings": raw["findings"], "raw_files": raw["files"],
            "removed_paths": sorted(set(raw["paths"]) - set(got["paths"]))}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def removal_message(counts: Optional[dict]) -> Optional[str]:
    """The notice for :func:`removed_counts`; ``None`` when nothing was removed."""
    if not counts or not (counts["findings"] or counts["files"] or counts["suppressed"]):
        return None
    text = (f"configuration, inline suppressions or a baseline removed {_plural(counts['findings'], 'finding')} "
            f"and {_plural(counts['files'], 'file')} from this report (without them: "
            f"{_plural(counts['raw_findings'], 'finding')} in {_plural(counts['raw_files'], 'file')})")
    gone = counts.get("removed_paths") or []
    if gone:  # issue 22 QA: name what was left out, so a reviewer sees a PR that excludes its own payload
        text += ("; files left out: " + ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
                 + " (exclude or per-path-ignores in the configuration)")
    if counts["suppressed"]:
        text += f"; {counts['suppressed']} suppressed, listed with their reasons in the JSON report"
    return text


def _append_summary(path: Optional[str], lines: list[str]) -> None:
    if not path or not lines:
        return
    try:
        with open(path, "a", encoding="utf-8") as fh:
            # md_escape: the lines name files of the scanned tree, whose names the pull request chose
            fh.write("\n".join(["### hermes-audit: what this report leaves out", "",
                                *[f"- {md_escape(ln, 4000)}" for ln in lines], ""])
                     + "\n")
    except OSError as exc:
        print(f"::warning title=hermes-audit action::{_escape(f'cannot write the job summary: {exc}')}", flush=True)


def main(env: Optional[Mapping[str, str]] = None, python: Optional[str] = None) -> int:
    """Run the scan step. Returns the step's exit status (see the module docstring)."""
    env = os.environ if env is None else env
    python = python or sys.executable
    try:
        plan = plan_from_env(env)
        check_sarif_path(plan.sarif_file, env.get("GITHUB_WORKSPACE") or os.getcwd())
        cleared = clear_sarif(plan.sarif_file)
    except InputError as exc:
        print(f"::error title=hermes-audit action::{_escape(str(exc))}", flush=True)
        return 2
    if cleared:
        print(f"::notice title=hermes-audit action::{_escape(cleared)}", flush=True)
    import tempfile

    temp_dir = tempfile.mkdtemp(prefix="hermes-audit-", dir=env.get("RUNNER_TEMP") or None)
    config_args: list[str] = []
    said: list[str] = []
    if plan.auditor:
        config_args, where = base_config(plan, temp_dir)
        said.append("auditor mode: no configuration, inline suppression or baseline from the checked-out tree; "
                    + where)
        print(f"::notice title=hermes-audit: auditor mode::{_escape(said[-1])}", flush=True)
    plan.scan_args += config_args
    print(f"hermes-audit: {shlex.join(plan.sarif_argv('hermes-audit')[3:])}", flush=True)
    sarif_dir = os.path.dirname(plan.sarif_file)
    if sarif_dir:
        os.makedirs(sarif_dir, exist_ok=True)  # the workflow asked for this path; scan -o does not create folders
    proc = subprocess.run(plan.sarif_argv(python), env=dict(env), stdin=subprocess.DEVNULL)
    code = proc.returncode
    log = plan.log_argv(python)
    if log is not None:
        subprocess.run(log, env=dict(env), stdin=subprocess.DEVNULL)
    plan.scan_args = plan.scan_args[:len(plan.scan_args) - len(config_args)]
    removed = removal_message(removed_counts(plan, config_args, python, dict(env), temp_dir))
    if removed:
        said.append(removed)
        print(f"::notice title=hermes-audit: findings removed::{_escape(removed)}", flush=True)
    _append_summary(env.get("GITHUB_STEP_SUMMARY"), said)
    written = os.path.isfile(plan.sarif_file) and not os.path.islink(plan.sarif_file)  # cleared before the scan
    outputs = {
        "sarif-file": plan.sarif_file if written else "",
        "category": plan.category,
        "exit-code": str(code),
        "gate": str(gate(code, plan.fail_on)),
        "findings": str(_count_results(plan.sarif_file) if written else 0),
    }
    import shutil

    shutil.rmtree(temp_dir, ignore_errors=True)
    try:
        _write_outputs(env.get("GITHUB_OUTPUT"), outputs)
    except OSError as exc:
        print(f"::error title=hermes-audit action::{_escape(f'cannot write step outputs: {exc}')}", flush=True)
        return 2
    return 0


def cli(argv: Sequence[str]) -> int:
    """``python -m hermes_audit.action [--help]``: the Action's step takes no arguments (its inputs come in
    environment variables); ``--help``/``-h`` prints this module's documentation and exits 0, any other
    argument is a usage error (exit 2) that runs nothing and writes nothing (issue 22 QA: ``--help`` ran a
    scan and wrote ``hermes-audit.sarif`` into the current directory)."""
    if not argv:
        return main()
    if list(argv) in (["--help"], ["-h"]):
        try:
            print(__doc__.strip(), flush=True)
        except BrokenPipeError:  # `| head`: the reader has what it wanted
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    print(f"hermes-audit action: takes no arguments (got {' '.join(argv)!r}); its inputs are the HA_* environment "
          "variables (python -m hermes_audit.action --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover - exercised through subprocess in tests
    sys.exit(cli(sys.argv[1:]))
