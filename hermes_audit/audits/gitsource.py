"""Cloning a profile distribution from git, safely, into a temporary directory that is always removed.

``hermes profile install`` runs ``git clone --depth 1 <url>`` with the
user's configuration. hermes-audit clones the same repository (running the
``git`` binary directly, its messages and the tree listing read as they
stream) with these limits:

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
  the tree's total size and file count are checked (``git ls-tree``, read as
  it streams and stopped at the first limit, so a tree bomb holds no memory)
  before anything is written out, and the download itself is stopped when the
  repository directory grows past the size limit;
* a wall-clock time limit for the whole clone;
* a memory limit (:data:`DEFAULT_MAX_MEMORY`, 1 GiB): the resident set of git and every helper it started
  (its session, read from ``/proc`` every 0.2 s) is summed, and the whole group is killed above the limit.
  A hostile server that streams an endless ref advertisement made git's RSS reach 1.7 GB in 23 s (round 8,
  issue 18); refs, packs and the listing all count. Where ``/proc`` cannot be read (not Linux) only the
  time and size limits apply;
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
from hermes_audit.engine.redact import redact

#: Default limits.
DEFAULT_TIMEOUT = 120.0
DEFAULT_MAX_BYTES = 100 * 1024 * 1024
DEFAULT_MAX_FILES = 20_000
#: Bytes of resident memory git and its helpers may hold together (1 GiB).
DEFAULT_MAX_MEMORY = 1024 ** 3
_SCP_RE = re.compile(r"^(?P<user>[A-Za-z0-9._~-]+@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>(?!//)[^\s]+)$")
#: ``scheme://userinfo@``: the userinfo runs to the *last* ``@`` of the authority (RFC 3986 section 3.2:
#: the authority ends at the first ``/``, ``?`` or ``#``), so ``https://user:p@ss@host`` hides ``user:p@ss``.
_CRED_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*:///?|\b(?i:https?|ssh|git|git\+ssh|ftps?|file|ext):(?!//)/{0,3})"
                      r"(?P<cred>[^/]{0,512}?)@(?=[^@/]*(?:[/:]|$|[\s'\"]))")
#: a userinfo that holds a ``/`` (``https://user:pa/ss@host``): git takes ``user:pa/ss`` as the credentials
#: when a ``user:`` opens the authority and an ``@`` follows before the end of the URL
_SLASHED_CRED_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<cred>[^/:@\s'\"]{0,128}:[^\s'\"]{0,512})@"
                              r"(?=[A-Za-z0-9.\[\]-]+(?::\d+)?(?:[/\s'\"]|$))")
#: a query parameter that carries a secret (``?private_token=...``, ``&access_key=...``, ``sig=``): its value
_QUERY_SECRET_RE = re.compile(r"(?P<name>[?&#;][^=&#;\s]*(?:token|key|secret|pass|pwd|auth|sig|cred)[^=&#;\s]*=)"
                              r"[^&#\s'\"]+", re.IGNORECASE)
#: scp-like ``user:secret@host:path`` (no scheme): a userinfo holding a ``:`` is a password or token. A bare
#: ``git@host:path`` is a user name only and stays as it is.
_SCP_CRED_RE = re.compile(r"(?P<pre>^|[\s'\"(<=,;])(?P<cred>[^\s'\"()<>=,;/@:]+:[^\s'\"()<>/]*)@(?=[^\s@/:]+:)")


class GitSourceError(Exception):
    """The source cannot be cloned safely; the message is one line with credentials redacted."""


def redact_url(text: str) -> str:
    """``text`` (any message) with the credentials of every git URL in it replaced by ``***@``.

    * ``scheme://userinfo@host...``: the whole userinfo, up to the last ``@``
      before the path (``https://user:p@ss@host/r`` -> ``https://***@host/r``);
    * scp-like ``user:secret@host:path`` -> ``***@host:path`` (``git@host:path``,
      which names a user only, is left alone);
    * a userinfo with a ``/`` in it after its ``user:`` (``https://user:pa/ss@host``), or with blanks or
      control characters in it (``https://u:S1 @host``), and a URL scheme
      without ``//`` (``https:u:TOKEN@host``), the same way;
    * the value of a query parameter whose name says it holds a secret (``?private_token=...``,
      ``&access_key=``, ``sig=``) -> ``***``;
    * any other token by its shape (:func:`hermes_audit.engine.redact.redact`: ``/npm_...``, ``#ghp_...``).

    This is the one redaction function of hermes-audit's git handling: every
    message that can hold a source URL passes through it. Pure; never raises.
    """
    text = _SLASHED_CRED_RE.sub(lambda m: m.group("scheme") + "***@", text)
    text = _CRED_RE.sub(lambda m: m.group("scheme") + "***@", text)
    text = _QUERY_SECRET_RE.sub(lambda m: m.group("name") + "***", text)
    text = _SCP_CRED_RE.sub(lambda m: m.group("pre") + "***@", text)
    # a token anywhere else in the URL (a path segment, a fragment: sixth red team) by its shape
    return redact(text)


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


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def group_rss(session: int) -> Optional[int]:
    """Bytes of resident memory of every process in session ``session`` (git, started with
    ``start_new_session``, is its leader: ids of a session and its first process group are the leader's pid).
    Read from ``/proc/<pid>/stat`` (fields 5-6, pgrp and session, and 24, rss in pages); ``None`` when
    ``/proc`` cannot be listed (not Linux)."""
    try:
        pids = [n for n in os.listdir("/proc") if n.isdigit()]
    except OSError:
        return None
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                raw = fh.read(4096)
        except OSError:
            continue  # gone, or not ours to read
        fields = raw[raw.rfind(b")") + 2:].split()
        try:
            if int(fields[2]) == session or int(fields[3]) == session:
                total += int(fields[21]) * _PAGE
        except (IndexError, ValueError):
            continue
    return total


class _MemoryWatch:
    """Kill a git process group whose resident memory passes ``limit`` bytes (read at most every ``every``
    seconds, :func:`group_rss`)."""

    def __init__(self, limit: Optional[int], display_url: str, every: float = 0.2):
        self.limit = limit
        self.display_url = display_url
        self.every = every
        self._next = 0.0

    def check(self, popen: subprocess.Popen) -> None:
        """Raise :class:`GitSourceError` (after killing the group) when git's group holds more than the limit."""
        if not self.limit or os.name != "posix":
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + self.every
        rss = group_rss(popen.pid)
        if rss is not None and rss > self.limit:
            _kill(popen)
            raise GitSourceError(
                f"git used more than {self.limit:,} bytes of memory for {self.display_url} (limit "
                f"{self.limit:,}; a server streaming endless refs or objects?); clone stopped")


#: Bytes of git's messages (stderr: its own and the server's ``remote:`` lines) read before git is stopped; the
#: first :data:`_KEPT_MESSAGES` are kept for the error message.
MAX_GIT_MESSAGES = 1024 * 1024
_KEPT_MESSAGES = 64 * 1024


def _run(cmd: list[str], cwd: Optional[Path], deadline: float, watch: Optional[Path], max_bytes: int,
         display_url: str, memory: Optional[_MemoryWatch] = None) -> None:
    """Run git with a deadline, a size watch, a memory watch and a bound on its messages.

    git's stdout is discarded (``clone`` and ``checkout -q`` print nothing there); its stderr is read through a
    pipe as it comes and only the first :data:`_KEPT_MESSAGES` bytes are kept: past :data:`MAX_GIT_MESSAGES`
    (a server can send ``remote:`` lines without end, which git relays) git is stopped. Raises
    :class:`GitSourceError` (one line, redacted)."""
    import selectors

    if shutil.which("git") is None:
        raise GitSourceError("git is not installed (it is needed to clone a distribution)")
    if deadline - time.monotonic() <= 0:
        raise GitSourceError(f"git timed out cloning {display_url}")
    # git runs helpers (git-remote-https, ssh, index-pack) as its children; in a session of their own
    # they can all be killed at the deadline (killing git alone left a stalled helper holding the
    # output pipes open until its own five-minute timeout). LC_ALL=C: git's messages are parsed in English.
    env = {**_git_env(), "LC_ALL": "C", "LANGUAGE": "C"}
    popen = subprocess.Popen(cmd, cwd=str(cwd) if cwd else None, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                             start_new_session=os.name == "posix")
    assert popen.stderr is not None
    kept = bytearray()
    total = 0
    try:
        with selectors.DefaultSelector() as sel:
            can_wait = os.name == "posix"  # Windows cannot select() on a pipe: blocking reads there
            if can_wait:
                sel.register(popen.stderr, selectors.EVENT_READ)
            open_pipe = True
            while True:
                if time.monotonic() > deadline:
                    raise GitSourceError(f"git timed out cloning {display_url}")
                if watch is not None and _dir_size(watch, max_bytes) > max_bytes:
                    raise GitSourceError(f"{display_url} is larger than the size limit ({max_bytes:,} bytes); "
                                         "clone stopped")
                if memory is not None:
                    memory.check(popen)
                if not open_pipe:
                    if popen.poll() is not None:
                        break
                    time.sleep(0.05)
                    continue
                if can_wait and not sel.select(timeout=0.2):
                    continue
                chunk = os.read(popen.stderr.fileno(), 64 * 1024)
                if not chunk:
                    open_pipe = False
                    continue
                total += len(chunk)
                if len(kept) < _KEPT_MESSAGES:
                    kept += chunk[:_KEPT_MESSAGES - len(kept)]
                if total > MAX_GIT_MESSAGES:
                    raise GitSourceError(f"git printed more than {MAX_GIT_MESSAGES:,} bytes of messages for "
                                         f"{display_url} (a server sending endless remote: lines?); clone stopped")
    finally:
        if popen.poll() is None:
            _kill(popen)
        popen.stderr.close()
    if popen.returncode != 0:
        lines = [ln.strip() for ln in bytes(kept).decode("utf-8", "replace").splitlines() if ln.strip()]
        raise GitSourceError(f"git failed for {display_url}: {redact_url(_git_error_detail(lines, popen.returncode))}")


#: Bytes read from ``git ls-tree`` at a time; one record is at most a path (4 KiB on Linux) plus 60 bytes.
_LISTING_CHUNK = 64 * 1024
#: Longest ``git ls-tree`` record kept while its end has not arrived (a longer one is not a git path).
_MAX_RECORD = 64 * 1024


def _check_tree(cmd: list[str], cwd: Path, deadline: float, max_bytes: int, max_files: int,
                display_url: str, memory: Optional[_MemoryWatch] = None) -> tuple[int, int]:
    """Stream ``git ls-tree -r -l -z`` and enforce the file-count and byte limits as it runs.

    Returns ``(files, bytes)`` of the tree. The listing is read in chunks of
    ``_LISTING_CHUNK`` bytes and only counted, never kept: git is killed (with
    its process group) as soon as the count passes ``max_files`` or the sizes
    pass ``max_bytes``, so a tree bomb (trees that point many times at the level
    below: a few hundred KB of objects that list as 10**9 files) costs a bounded
    amount of memory and time. Raises :class:`GitSourceError` (one line) for a
    limit, the deadline, or git's failure.
    """
    import selectors

    if shutil.which("git") is None:
        raise GitSourceError("git is not installed (it is needed to clone a distribution)")
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise GitSourceError(f"git timed out cloning {display_url}")
    with tempfile.TemporaryFile() as errf:
        popen = subprocess.Popen(cmd, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=errf,
                                 env=_git_env(), start_new_session=os.name == "posix")
        assert popen.stdout is not None
        files = total = 0
        pending = b""
        try:
            with selectors.DefaultSelector() as sel:
                can_wait = os.name == "posix"  # Windows cannot select() on a pipe: blocking reads there
                if can_wait:
                    sel.register(popen.stdout, selectors.EVENT_READ)
                while True:
                    if time.monotonic() > deadline:
                        raise GitSourceError(f"git timed out cloning {display_url}")
                    if memory is not None:
                        memory.check(popen)
                    if can_wait and not sel.select(timeout=0.2):
                        continue
                    chunk = os.read(popen.stdout.fileno(), _LISTING_CHUNK)
                    if not chunk:
                        break
                    *records, pending = (pending + chunk).split(b"\0")
                    if len(pending) > _MAX_RECORD:
                        raise GitSourceError(f"{display_url}: git listed a path longer than {_MAX_RECORD:,} bytes")
                    for rec in records:
                        meta = rec.split(b"\t", 1)[0].split()
                        files += 1
                        if len(meta) >= 4 and meta[3].isdigit():
                            total += int(meta[3])
                    if files > max_files:
                        raise GitSourceError(
                            f"{display_url} has more than {max_files:,} files (limit {max_files:,}); not checked out")
                    if total > max_bytes:
                        raise GitSourceError(
                            f"{display_url} holds more than {max_bytes:,} bytes of files (limit {max_bytes:,}); "
                            "not checked out")
            while popen.poll() is None:
                if time.monotonic() > deadline:
                    raise GitSourceError(f"git timed out cloning {display_url}")
                time.sleep(0.05)
        finally:
            if popen.poll() is None:
                _kill(popen)
            popen.stdout.close()
        if popen.returncode != 0:
            errf.seek(0)
            err = errf.read(64 * 1024).decode("utf-8", "replace")
            lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
            raise GitSourceError(f"git failed for {display_url}: {redact_url(_git_error_detail(lines, popen.returncode))}")
    return files, total


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
    max_memory: Optional[int] = DEFAULT_MAX_MEMORY,
) -> Iterator[Path]:
    """Clone ``source`` shallowly and yield the work tree (``.git`` removed, as Hermes does).

    ``timeout`` is in seconds for the whole clone; ``max_bytes`` bounds the download and the tree, ``max_files``
    the tree, ``max_memory`` the resident bytes of git's process group (``None``: unbounded). The temporary
    directory is removed when the block exits, whatever happens. Raises :class:`GitSourceError`.
    """
    url = parse_git_url(source, allow_local=allow_local)
    tmp = Path(tempfile.mkdtemp(prefix="hermes-audit-clone-"))
    try:
        template = tmp / "template"
        template.mkdir()
        dest = tmp / "clone"
        deadline = time.monotonic() + timeout
        opts = _safe_options(url.transport)
        memory = _MemoryWatch(max_memory, url.display)
        _run(["git", *opts, "clone", "--depth", "1", "--single-branch", "--no-tags", "--no-checkout",
              "--no-recurse-submodules", f"--template={template}", "--", url.url, str(dest)],
             tmp, deadline, tmp, max_bytes, url.display, memory)
        _check_tree(["git", *opts, "ls-tree", "-r", "-l", "-z", "HEAD"], dest, deadline, max_bytes, max_files,
                    url.display, memory)
        _run(["git", *opts, "checkout", "-q", "HEAD", "--", "."], dest, deadline, None, max_bytes, url.display,
             memory)
        _rmtree(dest / ".git")
        yield dest
    finally:
        _rmtree(tmp)
