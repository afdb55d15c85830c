"""The ``precommit-git`` section of the benchmark suite (issue 21): the hook as a user feels it.

Real ``git commit`` runs through the real pre-commit framework (PyPI ``pre-commit``, installed with the peer hooks
into a virtual environment cached under ``~/.cache/hermes-audit/bench-hooks-*``; set ``HERMES_AUDIT_BENCH_HOOK_VENV``
to use another directory). One repository per hook, each holding one real context file (an ASCII ``AGENTS.md``
of the benign corpus, else a written one) and a ``.pre-commit-config.yaml`` with one local hook (``repo: local``,
``language: system``, the entry an executable of that environment, so no network is needed):

- ``no-op``: ``true`` (what pre-commit and git cost on their own);
- ``hermes-audit``: ``hermes-audit scan --only-loaded --``, as ``.pre-commit-hooks.yaml`` runs it, in process;
- ``hermes-audit + server``: the same with ``HERMES_AUDIT_SERVER=1`` (docs/server.md: the first commit starts the
  scan server, the next ones are handed to it);
- the peers, Python security hooks a user would put beside it, all offline-installable from PyPI:
  ``detect-secrets-hook`` (detect-secrets), ``detect-private-key`` (pre-commit-hooks) and ``python -m
  trojan_linter`` (trojan-linter: bidi controls, homoglyphs, invisible characters).

Each round appends one line to the context file of every repository, stages it and times ``git commit``
(interleaved: one commit per hook per round); the first round is a warm-up and not counted. A hook's added latency
is its median commit time minus the no-op's. Target: hermes-audit's added latency at most that of the fastest peer.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

#: Installed into the hook environment (pre-commit itself, then the peers).
PACKAGES = ("pre-commit", "detect-secrets", "pre-commit-hooks", "trojan-linter")
COMMITS = {"full": 10, "quick": 5}

FALLBACK_AGENTS_MD = """# AGENTS.md

## Build and test

- Install the dependencies with `make install`.
- Run the unit tests with `make test` before every commit.
- Format the code with `make fmt`; the CI rejects unformatted code.

## Conventions

- Keep functions short and name them after what they return.
- Every public function has a docstring that says what it returns and what it raises.
- Log with the standard `logging` module, never with print statements.
"""


def hook_venv(py: str) -> tuple[Optional[Path], str]:
    """The virtual environment holding pre-commit and the peer hooks (created, or reused from the cache):
    its directory, or ``None`` and why it could not be made."""
    key = hashlib.sha256((sys.version + "|" + ",".join(PACKAGES)).encode()).hexdigest()[:12]
    where = os.environ.get("HERMES_AUDIT_BENCH_HOOK_VENV")
    venv = Path(where) if where else Path.home() / ".cache" / "hermes-audit" / f"bench-hooks-{key}"
    ok = venv / ".complete"
    if ok.exists():
        return venv, ""
    shutil.rmtree(venv, ignore_errors=True)
    made = subprocess.run([py, "-m", "venv", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        return None, f"python -m venv failed: {made.stderr.strip()[-300:]}"
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *PACKAGES],
                         capture_output=True, text=True)
    if pip.returncode != 0:
        return None, f"pip install {' '.join(PACKAGES)} failed: {pip.stderr.strip()[-300:]}"
    ok.write_text("")
    return venv, ""


def _versions(venv: Path) -> dict:
    got = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                         capture_output=True, text=True)
    try:
        listed = {p["name"].lower().replace("_", "-"): p["version"] for p in json.loads(got.stdout)}
    except ValueError:
        return {}
    return {name: listed.get(name, "?") for name in PACKAGES}


def _context_file() -> tuple[str, str]:
    """A real ``AGENTS.md`` from the benign corpora that is ASCII and 1-8 KB (the first in name order), or the
    fallback: ``(text, where it came from)``."""
    found = []
    for var, default in (("HERMES_AUDIT_CORPUS", "/work/shared/corpus"),
                         ("HERMES_AUDIT_EXTERNAL_CORPUS", "/work/shared/corpus-external")):
        corpus = Path(os.environ.get(var, default)) / "benign"
        found += sorted(corpus.glob("*AGENTS.md")) if corpus.is_dir() else []
    for p in found:
        try:
            data = p.read_bytes()
        except OSError:
            continue
        if 1000 <= len(data) <= 8000 and data.isascii():
            return data.decode("ascii"), f"{p.parent.parent.name}/benign/{p.name}"
    return FALLBACK_AGENTS_MD, "written (no ASCII AGENTS.md of 1-8 KB in the corpus)"


def _hermes_audit_install(env: Any, work: Path) -> Path:
    """hermes-audit as ``pip install hermes-audit`` leaves it: an environment of its own (``python -m venv
    --without-pip``, its ``site-packages`` pointing, by a ``.pth`` file, at the benchmark's compiled copy of the
    package and at the benchmark interpreter's dependencies) and a console script like pip's. A scan server that
    the script starts in the background (``HERMES_AUDIT_SERVER=1``: ``python -I -m hermes_audit``) is of the same
    installation. Returns the script."""
    venv = work / "hermes-audit-venv"
    subprocess.run([env.py, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    deps = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site / "hermes_audit_bench.pth").write_text("\n".join([str(env.install), *deps]) + "\n", encoding="utf-8")
    exe = venv / "bin" / "hermes-audit"
    exe.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nfrom hermes_audit.server.client import main\n"
                   "sys.exit(main())\n", encoding="utf-8")
    exe.chmod(0o755)
    return exe


def _hook(hook_id: str, entry: str, **extra: Any) -> str:
    lines = ["repos:", "- repo: local", "  hooks:", f"  - id: {hook_id}", f"    name: {hook_id}",
             f"    entry: {entry}", "    language: system"]
    for k, v in extra.items():
        lines.append(f"    {k}: {v}")
    return "\n".join(lines) + "\n"


def _git(repo: Path, *args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)


def bench_precommit_git(env: Any, mode: str, run: Any) -> dict:
    """The section's result (see the module docstring). ``run`` is :mod:`benchmarks.run`."""
    venv, why = hook_venv(env.py)
    if venv is None:
        return {"error": why}
    bin_ = venv / "bin"
    work = env.work / "precommit-git"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    exe = _hermes_audit_install(env, work)
    ha_entry = f"{exe} scan --only-loaded --"
    ha_extra = {"pass_filenames": "true", "types_or": "[file, symlink, directory]", "require_serial": "true"}
    hooks = {
        "no-op": (_hook("noop", "true"), {}),
        "hermes-audit": (_hook("hermes-audit", ha_entry, **ha_extra), {}),
        "hermes-audit + server": (_hook("hermes-audit", ha_entry, **ha_extra), {"HERMES_AUDIT_SERVER": "1"}),
        "detect-secrets": (_hook("detect-secrets", f"{bin_ / 'detect-secrets-hook'}"), {}),
        "detect-private-key": (_hook("detect-private-key", f"{bin_ / 'detect-private-key'}"), {}),
        "trojan-linter": (_hook("trojan-linter", f"{bin_ / 'python'} -m trojan_linter"), {}),
    }
    text, source = _context_file()
    sock = work / "server-sock"
    sock.mkdir(mode=0o700)
    base_env = {**{k: v for k, v in env.env().items() if k != "PYTHONPATH"}, "PRE_COMMIT_HOME": str(work / "pre-commit-home"), "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": str(work / "home")}
    (work / "home").mkdir()
    repos: dict[str, tuple[Path, dict]] = {}
    for i, (name, (config, extra_env)) in enumerate(hooks.items()):
        repo = work / f"repo{i}"
        repo.mkdir()
        e = {**base_env, **extra_env}
        if "HERMES_AUDIT_SERVER" in extra_env:
            e["HERMES_AUDIT_SERVER_DIR"] = str(sock)
        _git(repo, "init", "-q", "-b", "main", env=e)
        _git(repo, "config", "user.email", "bench@example.invalid", env=e)
        _git(repo, "config", "user.name", "bench", env=e)
        (repo / "AGENTS.md").write_text(text, encoding="utf-8")
        (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
        _git(repo, "add", "-A", env=e)
        _git(repo, "commit", "-q", "-m", "initial", env=e)
        inst = subprocess.run([str(bin_ / "pre-commit"), "install"], cwd=repo, capture_output=True, text=True, env=e)
        if inst.returncode != 0:
            return {"error": f"pre-commit install failed: {inst.stderr.strip()[-300:]}"}
        repos[name] = (repo, e)
    n = COMMITS[mode]
    times: dict[str, list[float]] = {name: [] for name in hooks}
    failed: dict[str, str] = {}
    try:
        for rnd in range(n + 1):  # round 0: warm-up (pre-commit's first run, the server's start)
            for name, (repo, e) in repos.items():
                with open(repo / "AGENTS.md", "a", encoding="utf-8") as fh:
                    fh.write(f"- Keep the change log entry {rnd} short and factual.\n")
                _git(repo, "add", "AGENTS.md", env=e)
                p = run.run_proc(["git", "commit", "-q", "-m", f"round {rnd}"], e, repo)
                if p.code != 0 and name not in failed:
                    failed[name] = (p.out + p.err).decode("utf-8", "replace").strip()[-300:]
                if rnd:
                    times[name].append(p.wall)
        status = subprocess.run([str(exe), "server", "status"], capture_output=True, text=True,
                                env=repos["hermes-audit + server"][1]).stdout
    finally:
        subprocess.run([str(exe), "server", "stop"], capture_output=True, text=True,
                       env=repos["hermes-audit + server"][1])
    served = next((int(line.split(":")[1].split(",")[0]) for line in status.splitlines()
                   if line.startswith("scans served:")), 0)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    noop = med["no-op"]
    rows = {name: {"median_commit_s": m, "added_s": m - noop, "commits": len(times[name]),
                   "all_commits_passed": name not in failed, **({"failure": failed[name]} if name in failed else {})}
            for name, m in med.items()}
    peers = [k for k in hooks if k not in ("no-op", "hermes-audit", "hermes-audit + server")]
    fastest = min(peers, key=lambda k: rows[k]["added_s"])
    limit = rows[fastest]["added_s"]
    for k in ("hermes-audit", "hermes-audit + server"):
        rows[k]["vs_fastest_peer"] = rows[k]["added_s"] / limit if limit > 0 else None
        rows[k]["met"] = rows[k]["added_s"] <= limit and k not in failed
    rows["hermes-audit + server"]["served"] = served
    return {"commits": n, "context_file": source, "context_file_bytes": len(text.encode()), "hooks": rows,
            "fastest_peer": fastest, "peers": peers, "versions": _versions(venv), "hook_venv": str(venv),
            "target": "hermes-audit's added latency at most the fastest peer's"}
