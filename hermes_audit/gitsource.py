"""Cloning a profile distribution from git, safely, into a temporary directory that is always removed.

``hermes profile install`` runs ``git clone --depth 1 <url>`` with the
user's configuration. hermes-audit clones the same repository (gitpython runs
the ``git`` binary) with these limits:

* URLs: ``https://``, ``ssh://``, ``git://``, scp-like ``user@host:path`` and
  the ``github.com/<owner>/<repo>`` shorthand (made ``https://``, as Hermes
  does). ``http://`` is refused (no transport security). ``file://`` URLs and
  local paths only with ``allow_local``. Anything starting with ``-`` (an
  option to git), containing whitespace or control characters, or using
  another transport (``ext::``, ``fd::``) is refused;
* git options: ``protocol.allow=never`` with only the accepted transports
  re-enabled (so no ``ext::`` helper runs even through a redirect or a
  submodule URL), ``core.hooksPath=/dev/null``, an empty template directory,
  no fsmonitor, no submodules, LFS smudging off, no credential prompts;
* shallow (``--depth 1 --single-branch --no-tags``), without checkout first:
  the tree's total size and file count are checked (``git ls-tree``) before
  anything is written out, and the download itself is stopped when the
  repository directory grows past the size limit;
* a wall-clock time limit for the whole clone;
* every message passes through :func:`redact_url`, so a password or token in
  the URL is never printed.

Raises :class:`GitSourceError` (one line, redacted) for every failure.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional
from urllib.parse import urlsplit

from hermes_audit.hermes.distribution import GITHUB_SHORTHAND_RE

#: Default limits.
DEFAULT_TIMEOUT = 120.0
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_FILES = 20_000
_SCP_RE = re.compile(r"^(?P<user>[A-Za-z0-9._~-]+@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>(?!//)[^\s]+)$")
_CRED_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<cred>[^/@\s]+)@")


class GitSourceError(Exception):
    """The source cannot be cloned safely; the message is one line with credentials redacted."""


def redact_url(text: str) -> str:
    """``text`` with the user-info part of every URL (``user:token@``) replaced by ``***@``."""
    return _CRED_RE.sub(lambda m: m.group("scheme") + "***@", text)


@dataclass(frozen=True)
class GitUrl:
    """A validated clone URL: what git gets, what is shown, and its transport."""

    url: str
    display: str
    transport: str  # https, ssh, git, file


def parse_git_url(source: str, allow_local: bool = False) -> GitUrl:
    """Validate ``source`` as a clone URL. Raises :class:`GitSourceError` with the reason.

    Local paths (absolute, ``./``, ``~``) become ``file://`` URLs and, like
    ``file://`` itself, need ``allow_local``.
    """
    s = source.strip()
    shown = redact_url(s)
    if not s:
        raise GitSourceError("empty git URL")
    if s.startswith("-"):
        raise GitSourceError(f"refusing {shown!r}: a source starting with '-' would be read by git as an option")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in s):
        raise GitSourceError(f"refusing {shown!r}: the URL contains whitespace or control characters")
    if GITHUB_SHORTHAND_RE.match(s):
        url = f"https://{s.rstrip('/')}"
        return GitUrl(url, redact_url(url), "https")
    if "::" in s.split("/", 1)[0]:
        raise GitSourceError(f"refusing {shown!r}: git remote-helper transports ('<helper>::') are not allowed")
    if "://" in s:
        parts = urlsplit(s)
        scheme = parts.scheme.lower()
        if scheme in ("https", "ssh", "git"):
            if not parts.hostname:
                raise GitSourceError(f"refusing {shown!r}: no host in the URL")
            if parts.hostname.startswith("-"):
                raise GitSourceError(f"refusing {shown!r}: a host starting with '-' would be read by ssh as an option")
            return GitUrl(s, shown, scheme)
        if scheme == "http":
            raise GitSourceError(f"refusing {shown!r}: plain http:// has no transport security; use https://")
        if scheme == "file":
            if not allow_local:
                raise GitSourceError(f"refusing {shown!r}: file:// sources need --allow-local")
            return GitUrl(s, shown, "file")
        raise GitSourceError(f"refusing {shown!r}: only https://, ssh:// and git:// URLs are cloned")
    m = _SCP_RE.match(s)
    if m and not s.startswith(("/", ".", "~")) and "/" not in m.group("host"):
        if m.group("host").startswith("-"):
            raise GitSourceError(f"refusing {shown!r}: a host starting with '-' would be read by ssh as an option")
        return GitUrl(s, shown, "ssh")
    # a local path
    if not allow_local:
        raise GitSourceError(f"refusing {shown!r}: cloning a local path needs --allow-local")
    p = Path(s).expanduser().resolve()
    return GitUrl(p.as_uri(), str(p), "file")


def _git_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_LFS_SKIP_SMUDGE": "1",
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
        "GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o StrictHostKeyChecking=accept-new",
        "GIT_PROTOCOL_FROM_USER": "0",
    })
    return env


def _safe_options(transport: str) -> list[str]:
    opts = [
        "-c", "protocol.allow=never",
        "-c", "protocol.https.allow=always",
        "-c", "protocol.ssh.allow=always",
        "-c", "protocol.git.allow=always",
        "-c", f"protocol.file.allow={'always' if transport == 'file' else 'never'}",
        "-c", "core.hooksPath=/dev/null",
        "-c", "core.fsmonitor=false",
        "-c", "core.symlinks=true",
        "-c", "submodule.recurse=false",
        "-c", "filter.lfs.smudge=",
        "-c", "filter.lfs.process=",
        "-c", "filter.lfs.required=false",
        "-c", "credential.interactive=never",
        "-c", "http.followRedirects=initial",
        "-c", "transfer.fsckObjects=true",
    ]
    return opts


def _dir_size(path: Path, limit: int) -> int:
    total = 0
    stack = [path]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                for e in it:
                    try:
                        st = e.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(Path(e.path))
                    else:
                        total += st.st_size
                    if total > limit:
                        return total
        except OSError:
            continue
    return total


def _run(cmd: list[str], cwd: Optional[Path], deadline: float, watch: Optional[Path], max_bytes: int,
         display_url: str) -> str:
    """Run git (through gitpython) with a deadline and a size watch; return stdout."""
    import git  # gitpython

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise GitSourceError(f"git timed out cloning {display_url}")
    g = git.Git(str(cwd) if cwd else None)
    # git runs helpers (git-remote-https, ssh, index-pack) as its children; in a session of their own
    # they can all be killed at the deadline (killing git alone left a stalled helper holding the
    # output pipes open until its own five-minute timeout)
    group = {"start_new_session": True} if os.name == "posix" else {}
    try:
        proc = g.execute(cmd, as_process=True, env=_git_env(), **group)
    except git.GitCommandNotFound:
        raise GitSourceError("git is not installed (it is needed to clone a distribution)") from None
    popen = proc.proc
    try:
        while True:
            try:
                out, err = popen.communicate(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() > deadline:
                    _kill(popen)
                    raise GitSourceError(f"git timed out cloning {display_url}") from None
                if watch is not None and _dir_size(watch, max_bytes) > max_bytes:
                    _kill(popen)
                    raise GitSourceError(
                        f"{display_url} is larger than the size limit ({max_bytes:,} bytes); clone stopped") from None
    finally:
        if popen.poll() is None:  # pragma: no cover - defensive
            _kill(popen)
    if popen.returncode != 0:
        lines = [ln.strip() for ln in (err or b"").decode("utf-8", "replace").splitlines() if ln.strip()]
        raise GitSourceError(f"git failed for {display_url}: {redact_url(_git_error_detail(lines, popen.returncode))}")
    return (out or b"").decode("utf-8", "replace")


def _kill(popen: subprocess.Popen) -> None:
    """Kill git and every helper it started (its process group), then reap it. Bounded."""
    try:
        if os.name == "posix":
            os.killpg(popen.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows
            popen.kill()
    except (ProcessLookupError, PermissionError, OSError):
        popen.kill()
    try:
        popen.communicate(timeout=10)
    except (subprocess.TimeoutExpired, ValueError, OSError):  # pragma: no cover - defensive
        pass


def _git_error_detail(lines: list[str], code: int) -> str:
    """The informative part of git's stderr: its first ``fatal:``/``error:`` line, after the line
    that explains it when there is one (``ssh: connect to host ...``), at most 300 characters."""
    noise = ("Cloning into", "hint:", "Please make sure", "and the repository exists")
    useful = [ln for ln in lines if not ln.startswith(noise)]
    fatal = next((i for i, ln in enumerate(useful) if ln.startswith(("fatal:", "error:"))), None)
    if fatal is None:
        detail = useful[-1] if useful else f"exit code {code}"
    elif fatal > 0:
        detail = f"{useful[fatal - 1]}; {useful[fatal]}"
    else:
        detail = useful[fatal]
    return detail[:300]


def _rmtree(path: Path) -> None:
    def onerror(func, p, exc_info):  # make read-only git objects removable
        try:
            os.chmod(p, stat.S_IWRITE | stat.S_IREAD | stat.S_IEXEC)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=onerror)


@contextlib.contextmanager
def cloned(
    source: str,
    allow_local: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_files: int = DEFAULT_MAX_FILES,
) -> Iterator[Path]:
    """Clone ``source`` shallowly and yield the work tree (``.git`` removed, as Hermes does).

    The temporary directory is removed when the block exits, whatever
    happens. Raises :class:`GitSourceError`.
    """
    url = parse_git_url(source, allow_local=allow_local)
    tmp = Path(tempfile.mkdtemp(prefix="hermes-audit-clone-"))
    try:
        template = tmp / "template"
        template.mkdir()
        dest = tmp / "clone"
        deadline = time.monotonic() + timeout
        opts = _safe_options(url.transport)
        _run(["git", *opts, "clone", "--depth", "1", "--single-branch", "--no-tags", "--no-checkout",
              "--no-recurse-submodules", f"--template={template}", "--", url.url, str(dest)],
             tmp, deadline, tmp, max_bytes, url.display)
        listing = _run(["git", *opts, "ls-tree", "-r", "-l", "-z", "HEAD"], dest, deadline, None, max_bytes, url.display)
        total = 0
        count = 0
        for rec in listing.split("\0"):
            if not rec:
                continue
            meta = rec.split("\t", 1)[0].split()
            count += 1
            if len(meta) >= 4 and meta[3].isdigit():
                total += int(meta[3])
            if meta and meta[0] == "160000":
                continue  # submodule: never fetched
        if count > max_files:
            raise GitSourceError(f"{url.display} has {count:,} files (limit {max_files:,}); not checked out")
        if total > max_bytes:
            raise GitSourceError(f"{url.display} holds {total:,} bytes of files (limit {max_bytes:,}); not checked out")
        _run(["git", *opts, "checkout", "-q", "HEAD", "--", "."], dest, deadline, None, max_bytes, url.display)
        _rmtree(dest / ".git")
        yield dest
    finally:
        _rmtree(tmp)
