"""Configuration: ``[tool.hermes-audit]`` in ``pyproject.toml`` or a ``.hermes-audit.toml``.

Looked up at the repository root (the git root of the first scanned path, or
the current directory). ``.hermes-audit.toml`` wins over ``pyproject.toml``.
Command-line flags override the file. Keys (all optional)::

    hermes-version = "latest"          # or "0.19" (quoted: an unquoted 0.19 is a number, a configuration error)
    select = ["HA1", "unicode"]        # codes, code prefixes, names or families
    ignore = ["HA206"]
    min-severity = "info"
    fail-on = "high"
    fail-on-blocked = true
    exclude = ["docs/attacks/**"]      # path globs never scanned in tree walks (unless that directory is named)
    max-file-size = 16777216           # bytes; larger files are read as head + tail
    prompt-max-share = 0.25            # scan --prompt / prompt: HA801 above this share of the window
    trusted-hosts = ["pypi.corp.example.com"]  # HA501/HA761 do not report code fetched only from these hosts
    [tool.hermes-audit.per-path-ignores]
    "docs/**" = ["HA101"]

``exclude`` and ``per-path-ignores`` patterns are relative to the directory of the file that sets them
(``Config.source``; the scan anchors them there, ``ScanOptions.config_dir``), as in ruff.

A hostile repository can ship a configuration that hides its own findings;
``--no-config`` (and ``--no-suppressions``) ignore it.
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from hermes_audit.hermes.profiles import profile_name_for
from hermes_audit.audits.trusted_hosts import MAX_TRUSTED_HOSTS, host_problem, normalise
from hermes_audit.findings import Severity

#: Largest configuration file read (bytes).
MAX_CONFIG_BYTES = 1024 * 1024


class ConfigError(Exception):
    """The configuration file is unreadable or invalid; the message is one line naming the file."""


# eq=False on this module's records (issue 8: start-up): they are never compared by value, so no __eq__ is built at import
@dataclass(eq=False)
class Config:
    hermes_version: Optional[str] = None
    select: Optional[list[str]] = None
    ignore: list[str] = field(default_factory=list)
    min_severity: Optional[Severity] = None
    fail_on: Optional[Severity] = None
    fail_on_blocked: Optional[bool] = None
    #: ``fail-on = "never"``: report only, exit 0 whatever is found
    fail_on_never: bool = False
    exclude: list[str] = field(default_factory=list)
    per_path_ignores: dict[str, list[str]] = field(default_factory=dict)
    max_file_size: Optional[int] = None
    prompt_max_share: Optional[float] = None
    #: ``trusted-hosts``: hosts HA501 and HA761 do not report (hermes_audit.audits.trusted_hosts), normalised
    trusted_hosts: list[str] = field(default_factory=list)
    source: Optional[Path] = None


_KEYS = {
    "hermes-version", "select", "ignore", "min-severity", "fail-on", "fail-on-blocked", "exclude",
    "per-path-ignores", "max-file-size", "prompt-max-share", "trusted-hosts",
}


def _str_list(path: Path, key: str, v: Any) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{path}: '{key}' must be a list of strings")
    return list(v)


def _globs(path: Path, key: str, patterns: list[str]) -> list[str]:
    """``patterns`` when each is a valid glob (:func:`hermes_audit.pathglobs.glob_problem`), else
    :class:`ConfigError` naming the first bad one."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.pathglobs import glob_problem

    for pat in patterns:
        why = glob_problem(pat)
        if why is not None:
            raise ConfigError(f"{path}: '{key}' has an invalid glob {pat!r}: {why}")
    return patterns


def parse_table(table: Any, path: Path) -> Config:
    """Validate a ``[tool.hermes-audit]`` table. Raises :class:`ConfigError`."""
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.hermes-audit] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        hints = [f"{k} (did you mean {k.replace('_', '-')}?)" if k.replace("_", "-") in _KEYS else k
                 for k in sorted(unknown)]
        raise ConfigError(f"{path}: unknown key(s) {', '.join(hints)}")
    cfg = Config(source=path)
    try:
        if "hermes-version" in table:
            v = table["hermes-version"]
            if not isinstance(v, str):  # `0.19` unquoted is the float 0.19 (and 0.190 the same): say so, never guess
                raise ConfigError(f"{path}: hermes-version must be a quoted string, e.g. hermes-version = \"0.19\" "
                                  f"(got the {type(v).__name__} {v!r})")
            if v.strip().lower() == "auto":
                cfg.hermes_version = None  # the default: the installed hermes-agent's profile, else latest
            else:
                try:
                    cfg.hermes_version = profile_name_for(v)
                except ValueError as exc:
                    raise ConfigError(f"{path}: hermes-version: {exc}") from None
        if "select" in table:
            cfg.select = _str_list(path, "select", table["select"])
        if "ignore" in table:
            cfg.ignore = _str_list(path, "ignore", table["ignore"])
        if "exclude" in table:
            cfg.exclude = _globs(path, "exclude", _str_list(path, "exclude", table["exclude"]))
        if "min-severity" in table:
            cfg.min_severity = Severity.parse(str(table["min-severity"]))
        if "fail-on" in table:
            if str(table["fail-on"]).strip().lower() == "never":
                cfg.fail_on_never = True
            else:
                try:
                    cfg.fail_on = Severity.parse(str(table["fail-on"]))
                except ValueError:  # 'never' is accepted here too, so the message names it
                    raise ValueError(f"unknown fail-on {str(table['fail-on'])!r} (expected one of: info, low, medium, "
                                     "high, critical, never)") from None
        if "fail-on-blocked" in table:
            if not isinstance(table["fail-on-blocked"], bool):
                raise ConfigError(f"{path}: fail-on-blocked must be true or false")
            cfg.fail_on_blocked = table["fail-on-blocked"]
        if "max-file-size" in table:
            n = table["max-file-size"]
            if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
                raise ConfigError(f"{path}: max-file-size must be a positive integer (bytes)")
            cfg.max_file_size = n
        if "prompt-max-share" in table:
            v = table["prompt-max-share"]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1:
                raise ConfigError(f"{path}: prompt-max-share must be a number above 0 and at most 1")
            cfg.prompt_max_share = float(v)
        if "trusted-hosts" in table:
            hosts = table["trusted-hosts"]
            if not isinstance(hosts, list) or len(hosts) > MAX_TRUSTED_HOSTS:
                raise ConfigError(f"{path}: trusted-hosts must be a list of at most {MAX_TRUSTED_HOSTS} host names")
            for h in hosts:
                problem = host_problem(h)
                if problem:
                    raise ConfigError(f"{path}: trusted-hosts: {problem}")
            cfg.trusted_hosts = [normalise(h) for h in hosts]
        if "per-path-ignores" in table:
            ppi = table["per-path-ignores"]
            if not isinstance(ppi, dict):
                raise ConfigError(f"{path}: per-path-ignores must be a table of glob = [rules]")
            _globs(path, "per-path-ignores", [str(k) for k in ppi])
            cfg.per_path_ignores = {str(k): _str_list(path, f"per-path-ignores.{k}", v) for k, v in ppi.items()}
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return cfg


def _read_toml(path: Path, root: Optional[Path] = None) -> dict:
    """Parse a TOML file, read safely: bounded size, never a FIFO, and (with ``root``) never
    through a symlink that leaves the repository. Raises :class:`ConfigError`."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.reader import ReadStatus, read_file

    res = read_file(path, root.resolve() if root is not None else None, max_bytes=MAX_CONFIG_BYTES)
    if res.status is ReadStatus.OVERSIZED:
        raise ConfigError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes")
    if res.status is not ReadStatus.OK or res.text is None:
        raise ConfigError(f"{path}: cannot read: {res.detail}")
    if sys.version_info >= (3, 11):  # imported here: most runs have no configuration file (issue 8)
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        return tomllib.loads(res.text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


def _refuse_special(path: Path) -> None:
    """Raise :class:`ConfigError` when a configuration file name at the repository root is taken by
    something that is not a regular file or a symlink (a FIFO, a socket, a device, a directory).

    Only ``lstat`` is called, so a FIFO nobody writes to is never opened and cannot block the run;
    a symlink is left to :func:`_read_toml` (the safe reader: never a FIFO, never out of the tree).
    ``.hermes-audit.toml`` and ``pyproject.toml`` are treated alike: the scan would otherwise run with
    or without the repository's configuration depending on a file it cannot read.
    """
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.reader import path_mode

    mode = path_mode(path)
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise ConfigError(f"{path}: not a regular file; not read")


def _tool_table(data: dict, path: Path) -> dict:
    """``data["tool"]`` (``{}`` when absent). Raises :class:`ConfigError` when it is not a table (``tool = 3``):
    the same one-line error, exit 2, as a ``[tool.hermes-audit]`` that is not a table."""
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: [tool] must be a table")
    return tool


def load_config(root: Path, explicit: Optional[Path] = None) -> Config:
    """The configuration for a scan rooted at ``root`` (empty when there is none).

    ``explicit`` names a file to use instead of discovery (``--config``); it may be
    a ``pyproject.toml`` or a ``.hermes-audit.toml``. Raises :class:`ConfigError` (one line naming
    the file; the CLI exits 2) for a file that cannot be read or is invalid, including a
    ``.hermes-audit.toml`` or ``pyproject.toml`` at ``root`` that is not a regular file (a FIFO is
    never opened).
    """
    if explicit is not None:
        if not explicit.is_file():
            what = "not a regular file; not read" if os.path.lexists(explicit) else "configuration file not found"
            raise ConfigError(f"{explicit}: {what}")
        data = _read_toml(explicit)
        if explicit.name == "pyproject.toml":
            table = _tool_table(data, explicit).get("hermes-audit", {})
        else:
            table = _tool_table(data, explicit).get("hermes-audit", data)
        return parse_table(table, explicit)
    dedicated = root / ".hermes-audit.toml"
    _refuse_special(dedicated)
    if dedicated.is_file() or dedicated.is_symlink():
        data = _read_toml(dedicated, root)
        table = _tool_table(data, dedicated).get("hermes-audit", data) if "tool" in data else data
        return parse_table(table, dedicated)
    pyproject = root / "pyproject.toml"
    _refuse_special(pyproject)
    if pyproject.is_file() or pyproject.is_symlink():
        data = _read_toml(pyproject, root)
        tool = _tool_table(data, pyproject)
        if "hermes-audit" in tool:
            return parse_table(tool["hermes-audit"], pyproject)
    return Config()
