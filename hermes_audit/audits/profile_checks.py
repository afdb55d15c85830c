"""The structural checks of a profile distribution's files, as detectors (named by ``rules/profile.yaml``):
MCP servers, ``config.yaml``, the manifest, the install plan, cron jobs and skill front matter. Each reads one
text and yields :class:`hermes_audit.findings.DetectorHit` values; :mod:`hermes_audit.audits.profile` runs
them over a distribution (split from it, issue 21, so that the engine's model detectors,
:mod:`hermes_audit.audits.detectors`, load them without loading the whole profile audit)."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Iterator, NamedTuple, Optional

from hermes_audit.documents.document import Document
from hermes_audit.findings import Finding, Severity, Span
from hermes_audit.hermes import distribution as dist
from hermes_audit.hermes.cron_guard import parse_job_text, scan_cron_prompt
from hermes_audit.audits.gitsource import redact_url
from hermes_audit.findings import DetectorHit

PLAN_HEADER = "# hermes-audit install plan"


#: Largest structured file (mcp.json, config.yaml, cron jobs) the detectors parse.
MAX_STRUCTURED_CHARS = 4 * 1024 * 1024


def _load_structured(text: str) -> Any:
    """JSON or YAML (bounded) data of a config file, or ``None`` when it is neither or too large."""
    if len(text) > MAX_STRUCTURED_CHARS:
        return None
    t = text[1:] if text.startswith("\ufeff") else text
    s = t.lstrip()
    if s.startswith(("{", "[")):
        try:
            return json.loads(t)
        except (ValueError, RecursionError):
            pass
    try:
        return dist.load_yaml_bounded(t)
    except Exception:  # invalid YAML or over the limits: nothing to check
        return None


#: Hermes' front-matter fence (``parse_frontmatter``, hermes-agent 0.19.0 ``agent/skill_utils.py``): the
#: YAML runs from after the leading ``---`` to the next line that is ``---`` (trailing spaces allowed).
_FRONTMATTER_END = re.compile(r"\n---\s*\n")


#: How :func:`skill_frontmatter_problem` opens its message for front matter that is a YAML alias bomb.
FRONTMATTER_BOMB = "front matter is a YAML alias bomb, not evaluated"


class FrontMatterProblem(NamedTuple):
    """Why a ``SKILL.md``'s front matter could not be read: ``bomb`` (a YAML alias bomb, finding HA760) or
    not (a note of the profile audit), and the one-line ``message``."""

    bomb: bool
    message: str


def detect_skill_frontmatter(text: str, params: dict) -> Iterator:
    """Detector ``skill-frontmatter`` (HA760): one hit on the opening ``---`` of a ``SKILL.md`` whose front
    matter is over the YAML limits (:func:`skill_frontmatter_problem`), message saying why and what Hermes
    0.19.0 does with it; nothing for front matter that parses or is merely invalid (Hermes then reads its
    ``key: value`` lines, a note of the profile audit)."""
    why = skill_frontmatter_problem(text)
    if why is not None and why.bomb:
        start = 1 if text.startswith("\ufeff") else 0
        yield _hit((start, start + 3), {"message": why.message})


@functools.lru_cache(maxsize=4)
def skill_frontmatter_problem(text: str) -> Optional[FrontMatterProblem]:
    """Why the YAML front matter of a ``SKILL.md`` (``text``) could not be read; ``None`` when there is none
    or it parses. Cached for the last few texts: the HA760 detector and the profile audit's note both ask
    about the same ``SKILL.md``, which is parsed once.

    The front matter is found as Hermes finds it (``parse_frontmatter``, hermes-agent 0.19.0
    ``agent/skill_utils.py``: one leading U+FEFF dropped, ``---`` at the start, the YAML up to the next
    ``\n---`` line) and parsed with :func:`hermes_audit.hermes.distribution.load_yaml_bounded`. An alias
    bomb (``bomb`` true): :data:`FRONTMATTER_BOMB` ``: <why>; ...`` (HA760); nested too deeply: ``front matter not read:
    ...``; a self-reference or too many nodes: ``front matter not evaluated: <why>; ...``; invalid YAML: ``front matter not read: invalid YAML: <PyYAML's message with (line L,
    column C) in the file's lines>; ...``, each saying what Hermes does with it. Never raises.
    """
    import yaml

    content = text[1:] if text.startswith("\ufeff") else text
    if not content.startswith("---"):
        return None
    end = _FRONTMATTER_END.search(content, 3)
    if end is None:
        return None
    block = content[3:end.start()]
    scanned = "the skill's text was still scanned line by line (skills guard and audit rules)"
    try:
        dist.load_yaml_bounded(block)
    except dist.YamlLimitError as exc:
        if exc.kind == "bomb":
            return FrontMatterProblem(True, (
                f"{FRONTMATTER_BOMB}: {exc}; Hermes parses it with yaml.safe_load (quickly: an alias is a shared "
                "reference) each time it builds the skills index, where turning a bombed value into text (str() "
                f"of the description, say) exhausts time and memory; {scanned}"))
        if exc.kind == "depth":  # parse_frontmatter catches every exception of yaml_load
            return FrontMatterProblem(False, (
                f"front matter not read: {exc}; Hermes' yaml.safe_load fails on it too (RecursionError) and "
                f"Hermes falls back to reading its 'key: value' lines one by one; {scanned}"))
        return FrontMatterProblem(False, (
            f"front matter not evaluated: {exc}; Hermes loads it (a self-reference prints as [...], nodes are "
            f"only many); {scanned}"))
    except yaml.YAMLError as exc:
        for mark in (getattr(exc, "context_mark", None), getattr(exc, "problem_mark", None)):
            if mark is not None and mark.line == 0:
                mark.column += 3  # the block starts after the opening '---' on the file's first line
        return FrontMatterProblem(False, (
            f"front matter not read: invalid YAML: {dist.yaml_error_text(exc)}; Hermes falls back to reading "
            f"its 'key: value' lines one by one (name, description); {scanned}"))
    except (ValueError, RecursionError) as exc:
        return FrontMatterProblem(False, f"front matter not read: {' '.join(str(exc).split())[:200]}; {scanned}")
    return None


def _unparsed(text: str) -> str:
    """Why :func:`_load_structured` gave nothing for ``text``, one line."""
    if len(text) > MAX_STRUCTURED_CHARS:
        return f"not evaluated: more than {MAX_STRUCTURED_CHARS:,} characters"
    try:
        dist.load_yaml_bounded(text[1:] if text.startswith("\ufeff") else text)
    except Exception as exc:  # the same call that failed: its message (YAML bomb, syntax error with position)
        return f"not evaluated: {dist.yaml_error_text(exc)[:200]}"  # one line, positions kept, no excerpt or caret
    return "not evaluated: neither JSON nor YAML"


_KEY_END = re.compile(r"\s*:")
_QUOTED_KEY_END = re.compile(r"[\"']\s*:")


def _key_at(text: str, n: str) -> int:
    """Offset of ``n`` where it is a key: quoted (``"n":``, ``'n' :``) first, else at the start of a line after
    blanks or ``-`` (``  n:``, ``- n:``); the earliest of each kind; ``-1`` when ``n`` is never a key. One pass
    over the occurrences of ``n`` (``str.find``), each checked where it stands: linear in the text, where a
    regular expression searched from every line start was not (round 8, issue 18.4: a cron file of 2,000 jobs
    searched once per job)."""
    line_key = -1
    i = text.find(n)
    while i >= 0:
        after = i + len(n)
        if i > 0 and text[i - 1] in "\"'" and _QUOTED_KEY_END.match(text, after):
            return i
        if line_key < 0 and _KEY_END.match(text, after):
            j = i - 1
            while j >= 0 and text[j] in " \t-":
                j -= 1
            if j < 0 or text[j] == "\n":
                line_key = i
        i = text.find(n, i + 1)
    return line_key


def _locate(text: str, *needles: str) -> tuple[int, int]:
    """Span of the first needle found (as a JSON/YAML key first), else ``(0, 0)``."""
    for n in needles:
        if not n:
            continue
        i = _key_at(text, n)
        if i >= 0:
            return i, i + len(n)
        i = text.find(n)
        if i >= 0:
            return i, i + len(n)
        j = text.find(json.dumps(n)[1:-1])
        if j >= 0:
            return j, j + len(json.dumps(n)) - 2
    return 0, 0


def _prompt_line_starts(text: str, prompt: str, origin: int) -> list[Optional[int]]:
    """Offset in the jobs file ``text`` where each line of ``prompt`` starts, searching forward from
    ``origin`` (where the prompt's value is); ``None`` for a line that is not in the file as it is (an
    escape inside it) or that is blank."""
    starts: list[Optional[int]] = []
    pos = origin
    for line in prompt.split("\n"):
        probe = line.strip()
        i = text.find(probe, pos) if probe else -1
        if i < 0:
            starts.append(None)
            continue
        starts.append(max(i - (len(line) - len(line.lstrip())), 0))
        pos = i + len(probe)
    return starts


def _place_in_jobs_file(found: list[Finding], cdoc: Document, prompt: str, job: str) -> None:
    """Move findings made on a cron job's ``prompt`` into the jobs file ``cdoc``: its path, and the line and
    column of the matched text there (a YAML block scalar's lines, a JSON string's ``\\n``-joined line);
    where the file escapes the text, the start of the prompt's value. The message names the job."""
    text = cdoc.text or ""
    origin = _locate(text, prompt[:60], json.dumps(prompt)[1:61], job)[0]
    starts = _prompt_line_starts(text, prompt, origin)
    line_of = [0] + [i + 1 for i, ch in enumerate(prompt) if ch == "\n"]  # where each prompt line starts

    def where(offset: int) -> int:
        from bisect import bisect_right

        k = bisect_right(line_of, offset) - 1
        base = starts[k] if 0 <= k < len(starts) else None
        return origin if base is None else min(base + offset - line_of[k], len(text))

    for f in found:
        a = where(f.span.start)
        b = max(where(f.span.end) if f.span.end > f.span.start else a, a)
        f.path, f.span, f.start, f.end = cdoc.path, Span(a, b), cdoc.position(a), cdoc.position(b)
        f.message = f"cron job '{job}' prompt: {f.message}"


def _hit(span: tuple[int, int], fields: dict, severity: Optional[Severity] = None):
    s, e = span
    return DetectorHit(s, e, fields, severity=severity)


SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "ksh", "mksh", "csh", "tcsh", "ash", "yash", "nu",
                    "cmd", "powershell", "pwsh"})


#: ``hermes_cli/mcp_security.py`` (0.19.0): the shells its guard recognises, by the command's own basename.
HERMES_GUARD_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "cmd", "cmd.exe", "powershell",
                                 "powershell.exe", "pwsh", "pwsh.exe"})


HERMES_GUARD_EGRESS = re.compile(
    r"(?<![\w.-])(?:curl|wget|nc|ncat|socat)(?![\w.-])|/dev/tcp/|\bInvoke-WebRequest\b|\bInvoke-RestMethod\b"
    r"|\bSystem\.Net\.WebClient\b", re.IGNORECASE)


HERMES_GUARD_PERSISTENCE = re.compile(
    r"authorized_keys|\.ssh/|/etc/ssh\b|/etc/pam\.d\b|pam_[\w-]+\.so|/etc/sudoers|/etc/cron|crontab\b"
    r"|/etc/rc\.local|/etc/systemd|\.bashrc\b|\.bash_profile\b|\.profile\b|\.zshrc\b", re.IGNORECASE)


HERMES_GUARD_IOCS = ("AAAAC3NzaC1lZDI1NTE5AAAAICBoh1oDC4DnsO1m5mJ4yfEKrQebaFh", "hermes-0day", "60.165.167.",
                     "118.182.244.156", "61.178.123.196")


_NETWORK = re.compile(
    r"(?<![\w.-])(?:curl|wget|nc|ncat|netcat|socat|telnet|ftp|tftp|scp|rsync|ssh)(?![\w.-])|/dev/(?:tcp|udp)/"
    r"|\bInvoke-(?:WebRequest|RestMethod)\b|\b(?:iwr|irm)\b|Net\.WebClient|\burllib\b|\burlopen\b"
    r"|\brequests\.(?:get|post|put)\b|\bhttp\.client\b|\bhttpx\b|\bfetch\s*\(|XMLHttpRequest|\bnet\.connect\b"
    r"|\bsocket\.(?:socket|create_connection)\b|https?://", re.IGNORECASE)


_PERSISTENCE = re.compile(
    HERMES_GUARD_PERSISTENCE.pattern
    + r"|LaunchAgents|LaunchDaemons|\.config/autostart|CurrentVersion\\+Run|\bschtasks\b"
    r"|systemctl\s+(?:--user\s+)?enable|\.hermes/(?:config\.yaml|SOUL\.md|\.env|plugins)|\.zprofile\b",
    re.IGNORECASE)


_WRAPPERS = frozenset({"env", "timeout", "nice", "nohup", "stdbuf", "sudo", "doas", "exec", "command", "setsid",
                       "ionice", "chrt", "taskset", "time", "unbuffer", "xargs", "caffeinate", "flock", "runuser",
                       "busybox", "firejail", "script", "strace", "ltrace", "watch"})


_WRAPPER_OPTS = {"nice": {"-n"}, "timeout": {"-s", "-k", "--signal", "--kill-after"}, "stdbuf": {"-i", "-o", "-e"},
                 "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, "doas": {"-u", "-C"},
                 "ionice": {"-c", "-n", "-p"}, "taskset": {"-c"}, "flock": {"-w", "-E"}, "runuser": {"-u", "-g"},
                 "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a"}, "env": {"-u", "-C", "-S"},
                 "watch": {"-n", "-d"}, "strace": {"-o", "-e", "-p", "-s"}}


_INTERPRETERS = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|node|nodejs|perl|ruby|php|deno|bun|osascript|lua|rscript|"
                           r"tclsh|wish|awk|gawk|jshell|groovy)$")


_INLINE_FLAGS = frozenset({"-c", "-e", "-E", "--eval", "-r", "--command", "eval", "-p", "--print", "-Command",
                           "-command", "-EncodedCommand", "-encodedcommand", "-enc", "/c", "/k", "/C", "/K"})


_RUNNERS = {"npx": "npm", "bunx": "npm", "pnpx": "npm", "uvx": "pypi", "docker": "docker", "podman": "docker"}


_SECRET_NAME = re.compile(r"(?i)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIAL|AUTH|COOKIE|BEARER|PAT|SESSION)")


_TOKEN_SHAPE = re.compile(r"(?:sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}|ghp_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|"
                          r"glpat-[A-Za-z0-9_\-]{20,}|xox[abpr]-[A-Za-z0-9\-]{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{35})")


_PLACEHOLDER = re.compile(r"(?i)^(?:<[^>]*>|your[\w\- ]*|x{3,}|\*{3,}|\.{3}|changeme|change[-_]me|todo|tbd|none|null|"
                          r"example[\w\-]*|placeholder|replace[\w\- ]*|dummy|test|secret|token|password)$")


_ENV_REF = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _base(tok: str) -> str:
    b = os.path.basename(str(tok).replace("\\", "/")).lower()
    return b[:-4] if b.endswith(".exe") else b


def _text(value: Any) -> str:
    """A YAML value as the text a process would get: ``!!binary`` bytes decoded (a POSIX process takes bytes
    as its command and arguments: sixth red team, issue 18, ``command: !!binary YmFzaA==`` is ``bash``)."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "surrogateescape")
    return str(value)


def _argv(cfg: dict) -> list[str]:
    cmd = cfg.get("command")
    out: list[str] = []
    if isinstance(cmd, list):
        out.extend(_text(x) for x in cmd)
    elif cmd is not None:
        try:
            out.extend(shlex.split(_text(cmd)))
        except ValueError:
            out.extend(_text(cmd).split())
    args = cfg.get("args")
    if isinstance(args, (bytes, bytearray)):
        args = _text(args)
    if isinstance(args, list):
        out.extend(_text(x) for x in args)
    elif isinstance(args, str):
        try:
            out.extend(shlex.split(args))
        except ValueError:
            out.extend(args.split())
    return out


def _unwrap(argv: list[str]) -> list[str]:
    """Drop wrapper commands (``env``, ``timeout 5``, ``nice -n 10``, ``busybox``...) in front of the real command."""
    i = 0
    n = len(argv)
    while i < n and _base(argv[i]) in _WRAPPERS:
        w = _base(argv[i])
        i += 1
        positional_used = False
        while i < n:
            t = argv[i]
            if t == "--":
                i += 1
                break
            if t.startswith("-") and len(t) > 1:
                i += 2 if t in _WRAPPER_OPTS.get(w, ()) else 1
                continue
            if w == "env" and "=" in t and not t.startswith("="):
                i += 1
                continue
            if w in ("timeout", "nice", "chrt", "taskset", "flock", "watch") and not positional_used and \
                    (w != "timeout" or re.fullmatch(r"[\d.]+[smhd]?", t)) and \
                    (w not in ("nice", "chrt") or re.fullmatch(r"[+-]?\d+", t)):
                positional_used = True
                i += 1
                continue
            break
    return argv[i:]


@dataclass
class _ServerView:
    name: str
    cfg: dict
    argv: list[str]
    core: list[str]

    @property
    def command_text(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv)[:200]


def _servers(data: Any) -> Iterator[_ServerView]:
    if not isinstance(data, dict):
        return
    for key in ("mcpServers", "mcp_servers", "servers"):
        block = data.get(key)
        if isinstance(block, dict):
            for name, cfg in block.items():
                if isinstance(cfg, dict) and any(k in cfg for k in ("command", "url", "args")):
                    argv = _argv(cfg)
                    yield _ServerView(str(name), cfg, argv, _unwrap(argv))
    mcp = data.get("mcp")
    if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict):
        yield from _servers({"servers": mcp["servers"]})


def hermes_guard_issues(name: str, cfg: dict) -> list[str]:
    """``validate_mcp_server_entry`` of hermes-agent 0.19.0 (``hermes_cli/mcp_security.py``): why Hermes
    would skip this server (empty: Hermes starts it)."""
    flat = " ".join([str(cfg.get("command") or ""), _inline(cfg.get("args"))]
                    + ([str(v) for v in cfg["env"].values()] if isinstance(cfg.get("env"), dict) else []))
    for ioc in HERMES_GUARD_IOCS:
        if ioc in flat:
            return [f"known hermes-0day indicator ('{ioc}')"]
    cmd = str(cfg.get("command") or "").strip()  # as Hermes: bytes become "b'bash'", which its guard lets through
    if not cmd:
        return []
    try:
        parts = shlex.split(cmd)
    except ValueError:
        parts = cmd.split()
    base = os.path.basename(parts[0] if parts else cmd).lower()
    if base not in HERMES_GUARD_SHELLS:
        return []
    script = _inline(cfg.get("args"))
    out = []
    if script and HERMES_GUARD_EGRESS.search(script):
        out.append("shell with network egress in args")
    if script and HERMES_GUARD_PERSISTENCE.search(script):
        out.append("shell writing to an OS persistence surface")
    return out


def _inline(args: Any) -> str:
    if args is None:
        return ""
    if isinstance(args, (list, tuple)):
        return " ".join(str(a) for a in args)
    return str(args)


def _hermes_note(sv: _ServerView) -> str:
    issues = hermes_guard_issues(sv.name, sv.cfg)
    if issues:
        return f" (Hermes 0.19.0's MCP guard skips it: {issues[0]})"
    return " (Hermes 0.19.0's MCP guard lets it start)"


def _is_pinned(runner: str, spec: str) -> bool:
    if spec.startswith((".", "/", "~")) or "://" in spec or spec.startswith(("git+", "file:")):
        return True
    if runner == "npm":
        body = spec[1:] if spec.startswith("@") else spec
        if "@" not in body:
            return False
        ver = body.rsplit("@", 1)[1]
        return bool(ver) and ver not in ("latest", "next", "*", "x")
    if runner == "pypi":
        return "==" in spec or ("@" in spec and not spec.endswith("@latest"))
    if runner == "docker":
        if "@sha256:" in spec:
            return True
        last = spec.rsplit("/", 1)[-1]
        return ":" in last and not last.endswith(":latest")
    return True


def _package(core: list[str]) -> Optional[tuple[str, str, str]]:
    """(runner shown, registry kind, package spec) for npx/uvx/pipx/dlx/docker run command lines."""
    if not core:
        return None
    b = _base(core[0])
    rest = core[1:]
    kind = _RUNNERS.get(b)
    shown = b
    if b in ("pnpm", "yarn") and rest[:1] == ["dlx"]:
        kind, shown, rest = "npm", f"{b} dlx", rest[1:]
    elif b == "npm" and rest[:1] and rest[0] in ("exec", "x"):
        kind, shown, rest = "npm", f"npm {rest[0]}", rest[1:]
    elif b == "pipx" and rest[:1] == ["run"]:
        kind, shown, rest = "pypi", "pipx run", rest[1:]
    elif kind == "docker":
        if rest[:1] != ["run"]:
            return None
        rest = rest[1:]
        with_value = {"-e", "--env", "-v", "--volume", "--name", "-p", "--publish", "--network", "--mount", "-w",
                      "--workdir", "-u", "--user", "--entrypoint", "--env-file", "-l", "--label", "--platform"}
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            i += 2 if rest[i] in with_value else 1
        return (shown, "docker", rest[i]) if i < len(rest) else None
    if kind is None:
        return None
    i = 0
    while i < len(rest):
        t = rest[i]
        if t in ("--from", "-p", "--package", "--with", "--spec"):
            if i + 1 < len(rest):
                return shown, kind, rest[i + 1]
            return None
        if t.startswith("--package=") or t.startswith("--from="):
            return shown, kind, t.split("=", 1)[1]
        if t.startswith("-"):
            i += 1
            continue
        return shown, kind, t
    return None


#: Options that hand a command line to a shell: ``flock FILE -c CMD``, ``script -qc CMD``, ``ssh -o
#: ProxyCommand=CMD``, ``tar --checkpoint-action=exec=CMD``, ``rsync -e CMD``, ``git -c alias.x=!CMD``, ``awk
#: 'BEGIN{system(CMD)}'`` (seventh red team, issue 18: Hermes' guard lets all of them start).
_RUNS_COMMAND = re.compile(r"^(?:-[A-Za-z]*c|--command=?|-e|--rsh=?)$|ProxyCommand=|--checkpoint-action=exec=|"
                           r"^alias\.[^=]+=!|\bsystem\s*\(|\bexec\s*\(")
#: Commands whose ``-c``/``-e`` option runs a command line through a shell.
_COMMAND_RUNNERS = frozenset({"flock", "script", "rsync", "ssh", "watch", "timeout", "xargs", "parallel", "su"})


def _nested_command(argv: list[str]) -> str:
    """The command line that an MCP server's arguments run through a shell (``find . -exec sh -c 'CMD' ;``,
    ``env -S "sh -c 'CMD'"``, ``uv run -- sh -c CMD``, ``flock /tmp/l -c CMD``, ``ssh -o ProxyCommand=CMD``...),
    else ``""``. Each argument holding blanks is split as a shell would (``env -S``)."""
    flat: list[str] = []
    for tok in argv:
        if " " in tok or "\t" in tok:
            try:
                flat.extend(shlex.split(tok))
            except ValueError:
                flat.extend(tok.split())
        else:
            flat.append(tok)
    for i, tok in enumerate(flat[1:], start=1):
        if _base(tok) in SHELLS and any(t in _INLINE_FLAGS for t in flat[i + 1:i + 3]):
            return " ".join(flat[i:])
        if _RUNS_COMMAND.search(tok) and (_base(flat[0]) in _COMMAND_RUNNERS or "=" in tok or "(" in tok
                                          or _base(flat[0]) in ("awk", "gawk", "git", "tar")):
            return " ".join(flat[i:])
    return ""


#: Commands that fetch a package and run or install it (``uv run --with``, ``pip install``, ``deno run``...).
_FETCHERS = frozenset({"npx", "bunx", "pnpx", "uvx", "uv", "pipx", "pip", "pip3", "deno", "bun", "npm", "pnpm",
                       "yarn", "go", "cargo", "gem", "poetry", "pdm", "conda", "mamba", "micromamba", "easy_install"})
#: A package given as a URL or a git repository rather than a registry name: ``git+https://...``,
#: ``https://host/pkg.tgz``, ``pkg @ git+https://...`` (PEP 508), ``--from=git+ssh://...``, ``git@host:o/r``,
#: ``github:owner/repo`` (npm).
_REMOTE_SPEC = re.compile(r"(?:^|[=@]\s*)(?:git\+)?(?:https?|git|ssh|ftp|s3|file)://|^git@[\w.-]+:|"
                          r"^(?:github|gitlab|bitbucket|gist):[\w.-]", re.IGNORECASE)


#: Fetchers that read ``owner/repo`` as a GitHub repository (npm's shorthand: ``npx -y evil/pkg`` runs
#: github.com/evil/pkg; round 9 of issue 18), and that shorthand: one slash, no scope ``@``, no leading ``.`` or
#: ``/``, not a script file.
_NPM_FAMILY = frozenset({"npx", "bunx", "pnpx", "npm", "pnpm", "yarn", "bun"})
_GITHUB_SHORTHAND = re.compile(r"(?![.@/])[A-Za-z0-9][\w.-]{0,100}/[\w.-]{1,100}(?:#[\w./-]{1,100})?"
                               r"(?<!\.js)(?<!\.mjs)(?<!\.cjs)(?<!\.ts)(?<!\.json)")


def _flat_tokens(argv: list[str]) -> list[str]:
    """``argv`` with every argument that holds blanks split as a shell would (``sh -c "pip install ..."``)."""
    flat: list[str] = []
    for tok in argv:
        if any(c in tok for c in " \t\n;&|"):
            try:
                lex = shlex.shlex(tok, posix=True, punctuation_chars=";&|")
                lex.whitespace_split = True
                flat.extend(lex)
            except ValueError:
                flat.extend(tok.split())
        else:
            flat.append(tok)
    return flat


#: Options whose value is a package, a requirements file or an index to fetch packages from.
_PACKAGE_OPTS = frozenset({"--from", "--spec", "--with", "-p", "--package", "--git", "-r", "--requirement", "-e",
                           "--editable", "-i", "--index-url", "--extra-index-url", "--index", "--default-index",
                           "--registry", "--with-requirements", "--with-editable", "--find-links", "-f"})
#: Options whose value is anything else (skipped with their value).
_OTHER_VALUE_OPTS = frozenset({"--python", "--cwd", "--directory", "--config", "--cache-dir", "--import-map", "--lock",
                               "--env-file", "--node-options", "--userconfig", "-w", "--workspace", "--prefix",
                               "--target", "--platform", "--python-version", "--location", "--project"})
#: Package options whose value is an index or registry to fetch packages from (round 9: judged by its host).
_INDEX_OPTS = frozenset({"-i", "--index-url", "--extra-index-url", "--index", "--default-index", "--registry",
                         "--find-links", "-f"})
#: Environment variables that point a package manager at another registry or index (npm reads its
#: ``npm_config_*`` variables case-insensitively, also ``npm_config_@scope:registry``; pip ``PIP_INDEX_URL``,
#: ``PIP_EXTRA_INDEX_URL``, ``PIP_FIND_LINKS``; uv ``UV_INDEX_URL``, ``UV_EXTRA_INDEX_URL``, ``UV_INDEX``,
#: ``UV_DEFAULT_INDEX``, ``UV_FIND_LINKS``; yarn ``YARN_NPM_REGISTRY_SERVER``, ``YARN_REGISTRY``; bun
#: ``BUN_CONFIG_REGISTRY``; PDM ``PDM_PYPI_URL``; Poetry ``POETRY_REPOSITORIES_<NAME>_URL``).
_INDEX_ENV = re.compile(r"(?i)^(?:npm_config_(?:@[\w.-]+:)?registry|yarn_npm_registry_server|yarn_registry|"
                        r"bun_config_registry|pip_(?:extra_)?index_url|pip_find_links|uv_(?:extra_)?index_url|"
                        r"uv_index|uv_default_index|uv_find_links|pdm_pypi_url|poetry_repositories_\w+_url)$")
_RUN_WORDS = frozenset({"run", "exec", "x", "dlx", "tool"})
_INSTALL_WORDS = frozenset({"install", "i", "add", "inject"})
_SEPARATORS = frozenset({";", "&&", "||", "|", "&"})


def _index_urls(value: str) -> list[str]:
    """The URLs of an index option's or variable's value: ``https://i/simple``, uv's ``name=https://i/simple``,
    several separated by blanks or commas (``UV_INDEX``, ``PIP_EXTRA_INDEX_URL``)."""
    out = []
    for part in re.split(r"[\s,]+", value.strip()):
        if "=" in part and "://" in part.split("=", 1)[1]:
            part = part.split("=", 1)[1]
        if part:
            out.append(part)
    return out


def unknown_index(value: str, known: tuple[str, ...] = ()) -> Optional[str]:
    """The first URL of an index or registry value (:func:`_index_urls`) whose host is neither one of ``known``
    (itself or a subdomain) nor on the user's machine or network (:func:`_is_local`); ``None`` when there is none.
    A value without a host (a local directory for ``--find-links``) is ``None`` too."""
    for url in _index_urls(value):
        if "://" not in url:
            continue
        host = _host(url)
        if host is None or _is_local(host) or any(host == k or host.endswith("." + k) for k in known):
            continue
        return url
    return None


def index_from_env(sv_env: Any, argv: list[str], known: tuple[str, ...] = ()) -> Optional[tuple[str, str]]:
    """``(variable, url)`` of the first package-index variable (:data:`_INDEX_ENV`) an MCP server's ``env``
    mapping or its command line (``env NPM_CONFIG_REGISTRY=URL npx ...``, ``sh -c "PIP_INDEX_URL=URL ..."``)
    sets to an unknown host (:func:`unknown_index`), else ``None`` (round 9 of issue 18: every package the server
    or anything it starts installs then comes from that host)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(sv_env, dict):
        pairs += [(str(k), _text(v)) for k, v in sv_env.items() if isinstance(v, (str, bytes, bytearray))]
    for tok in _flat_tokens(argv):
        name, eq, value = tok.partition("=")
        if eq:
            pairs.append((name, value))
    for name, value in pairs:
        if _INDEX_ENV.match(name.strip()):
            url = unknown_index(value, known)
            if url:
                return name.strip(), url
    return None


def remote_package(argv: list[str], known_indexes: tuple[str, ...] = ()) -> Optional[tuple[str, str]]:
    """``(fetcher, spec)`` when the command line fetches code from a URL or a git repository to run or install
    it, else ``None``. A fetcher (:data:`_FETCHERS`, ``python -m pip``; also inside a shell command line) is
    followed, before the next ``;``/``&&``/``|``, by a spec :data:`_REMOTE_SPEC` matches: as the value of a
    package option (:data:`_PACKAGE_OPTS`: ``uvx --from``, ``pipx run --spec``, ``uv run --with``, ``pip install
    -r``, ``--index-url``...), as the package a runner runs (its first positional argument: ``npx -y URL``,
    ``deno run -A URL``; later arguments are the package's own), or as any package of an install (``pip install
    A URL``)."""
    flat = _flat_tokens(argv)
    i, n = 0, len(flat)
    while i < n:
        b = _base(flat[i])
        i += 1
        if re.fullmatch(r"python[\d.]*|py", b) and i + 1 < n and flat[i] == "-m" and _base(flat[i + 1]) in _FETCHERS:
            b, i = _base(flat[i + 1]), i + 2
        elif b not in _FETCHERS:
            continue
        mode = "run" if b in ("npx", "bunx", "pnpx", "uvx") else ""
        while i < n and flat[i] not in _SEPARATORS:
            tok = flat[i].strip()
            i += 1
            if tok.startswith("-") and len(tok) > 1:
                opt, eq, value = tok.partition("=")
                if opt in _PACKAGE_OPTS:
                    if not eq:
                        value = flat[i].strip() if i < n else ""
                        i += 1
                    if opt in _INDEX_OPTS:  # an index or registry: its host decides (round 9)
                        url = unknown_index(value, known_indexes)
                        if url:
                            return b, url
                    elif _REMOTE_SPEC.search(value):
                        return b, value
                elif opt in _OTHER_VALUE_OPTS and not eq:
                    i += 1
                continue
            if not mode:
                if tok in _RUN_WORDS:
                    mode = "run"
                elif tok in _INSTALL_WORDS:
                    mode = "install"
                continue
            if mode == "run" and tok in _RUN_WORDS | _INSTALL_WORDS:  # uv tool run, uv tool install
                mode = "install" if tok in _INSTALL_WORDS else "run"
                continue
            if _REMOTE_SPEC.search(tok) or (b in _NPM_FAMILY and _GITHUB_SHORTHAND.fullmatch(tok)):
                return b, tok
            if mode == "run":  # the package's own arguments follow
                break
    return None


def detect_mcp_servers(text: str, params: dict) -> Iterator:
    """Detector ``mcp-servers``: MCP server entries in mcp.json (``mcpServers``) or config.yaml
    (``mcp_servers``). ``params.check``: shell, network, persistence, remote, credential, unpinned,
    remote-package."""
    if not any(k in text for k in ("mcpServers", "mcp_servers", "servers")):
        return
    data = _load_structured(text)
    check = params.get("check")
    for sv in _servers(data):
        span = _locate(text, sv.name)
        core = sv.core
        head = _base(core[0]) if core else ""
        rest = core[1:]
        is_shell = head in SHELLS or (head == "su" and "-c" in rest)
        inline_interp = bool(_INTERPRETERS.match(head)) and any(t in _INLINE_FLAGS for t in rest)
        script = " ".join(rest) if (is_shell or inline_interp) else ""
        nested = "" if (is_shell or inline_interp) else _nested_command(sv.argv)
        if nested:  # a command line run by one of the arguments (find -exec sh -c, flock -c, ProxyCommand=...)
            script = nested
        if check == "shell" and nested:
            yield _hit(span, {"server": sv.name, "what": "runs a command line through its arguments",
                              "command": sv.command_text, "hermes": _hermes_note(sv)})
        elif check == "shell" and (is_shell or inline_interp):
            if is_shell:
                has_inline = any(t in _INLINE_FLAGS for t in rest)
                what = "starts a shell with an inline command line" if has_inline else "starts a shell"
                sev = None if has_inline else Severity.HIGH
            else:
                what, sev = f"runs inline {head} code", None
            wrapped = len(sv.argv) - len(core)
            if wrapped:
                what += f" (behind {' '.join(sv.argv[:wrapped])[:40]})"
            yield _hit(span, {"server": sv.name, "what": what, "command": sv.command_text,
                              "hermes": _hermes_note(sv)}, sev)
        elif check == "network" and script:
            m = _NETWORK.search(script)
            if m:
                yield _hit(span, {"server": sv.name, "match": script[max(0, m.start() - 20):m.end() + 60][:120]})
        elif check == "persistence" and script:
            m = _PERSISTENCE.search(script)
            if m:
                yield _hit(span, {"server": sv.name, "match": script[max(0, m.start() - 30):m.end() + 30][:120]})
        elif check == "remote":
            url = sv.cfg.get("url") or sv.cfg.get("serverUrl")
            if isinstance(url, str) and url.strip():
                from urllib.parse import urlsplit

                try:
                    host = (urlsplit(url.strip()).hostname or "").lower()
                except ValueError:
                    host = ""
                if host in ("localhost", "127.0.0.1", "::1") or host.endswith(".localhost"):
                    continue
                plain = url.strip().lower().startswith(("http://", "ws://"))
                shown = redact_url(url.strip())[:200] + (" (plain http: anyone on the path can read it)" if plain else "")
                yield _hit(_locate(text, url) if url in text else span, {"server": sv.name, "url": shown},
                           Severity.HIGH if plain else None)
        elif check == "credential":
            for section in ("env", "headers"):
                block = sv.cfg.get(section)
                if not isinstance(block, dict):
                    continue
                for k, v in block.items():
                    if not isinstance(v, (str, int)) or isinstance(v, bool):
                        continue
                    v = str(v)
                    refs = [r for r in _ENV_REF.findall(v) if _SECRET_NAME.search(r)]
                    literal = v
                    for r in _ENV_REF.finditer(v):
                        literal = literal.replace(r.group(0), "")
                    lit = literal.strip()
                    for word in ("Bearer", "bearer", "Token", "token", "Basic", "basic"):
                        if lit.startswith(word + " "):
                            lit = lit[len(word) + 1:].strip()
                    where = _locate(text, str(k))
                    if _TOKEN_SHAPE.search(v) or (_SECRET_NAME.search(str(k)) and len(lit) >= 8
                                                  and not _PLACEHOLDER.match(lit) and " " not in lit):
                        yield _hit(where, {"server": sv.name,
                                           "what": f"has a literal credential in {section} {k!s}: anyone with the "
                                                   "distribution has it too"})
                    elif refs:
                        yield _hit(where, {"server": sv.name,
                                           "what": f"receives your ${refs[0]} through {section} {k!s}"}, Severity.INFO)
        elif check == "unpinned":
            pkg = _package(core)
            if pkg and not _is_pinned(pkg[1], pkg[2]):
                yield _hit(span, {"server": sv.name, "package": pkg[2], "runner": pkg[0]})
        elif check == "remote-package":
            indexes = tuple(str(h).lower() for h in params.get("known_indexes", ()))
            registries = tuple(str(h).lower() for h in params.get("known_registries", ()))
            found = remote_package(sv.argv, indexes)
            what, env = None, None
            if found:
                what = redact_url(found[1])[:200]
            else:  # round 9: an index set in the environment, an image from an unknown registry
                env = index_from_env(sv.cfg.get("env"), sv.argv, indexes)
                pkg = _package(core)
                if env:
                    found = (f"{head or 'its command'} ({env[0]} in its environment)", env[1])
                    what = "packages of the index " + redact_url(env[1])[:200]
                elif pkg and pkg[1] == "docker":
                    registry = _registry(pkg[2])
                    if registry is not None and not _is_local(registry.split(":", 1)[0]) and not any(
                            registry == k or registry.endswith("." + k) for k in registries):
                        found = (pkg[0] + " run", pkg[2])
                        what = f"the image {redact_url(pkg[2])[:200]} of the registry {registry}"
            if found and what:
                if found[1] in text:
                    where = _locate(text, found[1])
                elif what.startswith("packages of") and env is not None and env[0] in text:
                    where = _locate(text, env[0])
                else:
                    where = span
                yield _hit(where, {"server": sv.name, "runner": found[0], "package": what,
                                   "hermes": _hermes_note(sv)})


def detect_hermes_config(text: str, params: dict) -> Iterator:
    """Detector ``hermes-config``: Hermes config.yaml settings. ``params.check``: hooks, quick-commands,
    safety, plugins."""
    check = params.get("check")
    keys = {"hooks": ("hooks",), "quick-commands": ("quick_commands",), "plugins": ("plugins",),
            "safety": ("approvals", "command_allowlist", "hooks_auto_accept", "security", "delegation", "browser",
                       "terminal"), "endpoint": ("base_url", "url", "api"), "sandbox-image": ("image",)}.get(check, ())
    if not any(k in text for k in keys):
        return
    data = _load_structured(text)
    if not isinstance(data, dict):
        return
    if check == "hooks":
        hooks = data.get("hooks")
        auto = data.get("hooks_auto_accept") is True
        if isinstance(hooks, dict):
            for event, entries in hooks.items():
                items = entries if isinstance(entries, list) else [entries]
                for ent in items:
                    cmd = ent.get("command") if isinstance(ent, dict) else ent
                    if not isinstance(cmd, str) or not cmd.strip():
                        continue
                    yield _hit(_locate(text, cmd.strip(), str(event)),
                               {"event": str(event), "command": cmd.strip()[:160],
                                "auto": " with no confirmation (hooks_auto_accept: true)" if auto
                                else " (Hermes asks once before registering it)"},
                               Severity.CRITICAL if auto else None)
    elif check == "quick-commands":
        qc = data.get("quick_commands")
        if isinstance(qc, dict):
            for name, cfg in qc.items():
                cmd = cfg.get("command") if isinstance(cfg, dict) else cfg
                if not isinstance(cmd, str) or not cmd.strip():
                    continue
                risky = bool(_NETWORK.search(cmd)) or bool(re.search(r"\|\s*(?:ba|z|da)?sh\b", cmd))
                yield _hit(_locate(text, cmd.strip(), str(name)), {"name": str(name), "command": cmd.strip()[:160]},
                           Severity.HIGH if risky else None)
    elif check == "plugins":
        plugins = data.get("plugins")
        enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
        if isinstance(enabled, list) and enabled:
            yield _hit(_locate(text, "enabled", "plugins"), {"plugins": ", ".join(str(p) for p in enabled)[:160]})
    elif check == "safety":
        yield from _safety(text, data)
    elif check == "endpoint":
        known = tuple(str(h).lower() for h in params.get("known_hosts", ()))
        for where, url in model_endpoints(data):
            host = _host(url)
            if host is None or _is_local(host) or any(host == k or host.endswith("." + k) for k in known):
                continue
            yield _hit(_locate(text, url, where.rsplit(".", 1)[-1]), {"key": where, "url": redact_url(url)[:200],
                                                                      "host": host})
    elif check == "sandbox-image":
        known = tuple(str(h).lower() for h in params.get("known_registries", ()))
        term = data.get("terminal")
        if not isinstance(term, dict):
            return
        backend = str(term.get("backend") or "").strip().lower()
        key = f"{backend}_image"
        image = term.get(key)
        if backend not in ("docker", "singularity", "modal", "daytona") or not isinstance(image, str):
            return
        registry = _registry(image)
        if registry is not None and not any(registry == k or registry.endswith("." + k) for k in known):
            yield _hit(_locate(text, image.strip(), key), {"key": f"terminal.{key}", "image": image.strip()[:200],
                                                          "registry": registry, "backend": backend})


#: config.yaml keys whose URL receives the conversation (hermes-agent 0.19.0 ``hermes_cli/config.py``
#: DEFAULT_CONFIG and ``hermes_cli/runtime_provider.py``): ``model.base_url`` (the main model: "takes precedence
#: over provider"), ``providers.<name>.{base_url,url,api}``, ``custom_providers[].{base_url,url,api}``,
#: ``auxiliary.<task>.base_url`` (compression, vision, web_extract... get the conversation or tool output),
#: ``delegation.base_url`` (subagents).
def model_endpoints(data: dict) -> list[tuple[str, str]]:
    """(key path, URL) of every model endpoint config.yaml sets."""
    out: list[tuple[str, str]] = []

    def add(where: str, block: Any, keys: tuple[str, ...] = ("base_url",)) -> None:
        if isinstance(block, dict):
            for k in keys:
                v = block.get(k)
                if isinstance(v, str) and v.strip():
                    out.append((f"{where}.{k}", v.strip()))

    add("model", data.get("model"))
    add("delegation", data.get("delegation"))
    aux = data.get("auxiliary")
    if isinstance(aux, dict):
        for task, block in aux.items():
            add(f"auxiliary.{task}", block)
    provs = data.get("providers")
    if isinstance(provs, dict):
        for name, block in provs.items():
            add(f"providers.{name}", block, ("base_url", "url", "api"))
    custom = data.get("custom_providers")
    if isinstance(custom, list):
        for i, block in enumerate(custom):
            add(f"custom_providers[{i}]", block, ("base_url", "url", "api"))
    return out


def _host(url: str) -> Optional[str]:
    from urllib.parse import urlsplit

    try:
        u = urlsplit(url if "://" in url else "https://" + url)
        return (u.hostname or "").lower().rstrip(".") or None
    except ValueError:
        return None


def _is_local(host: str) -> bool:
    """Loopback, private (:data:`_PRIVATE_NETS`) or ``localhost``/``.local``/``.internal`` names: an endpoint on the
    user's own machine or network."""
    import ipaddress

    if host == "localhost" or host.endswith((".localhost", ".local", ".internal", ".lan", ".home.arpa")):
        return True
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if ip.is_loopback:
        return True  # (not link-local: 169.254.169.254 is a cloud's metadata service, no model endpoint; round 9)
    return any(ip in ipaddress.ip_network(net) for net in _PRIVATE_NETS if ip.version == ipaddress.ip_network(net).version)


#: Private networks (RFC 1918, unique local IPv6 RFC 4193). Python's ``is_private`` also counts documentation
#: ranges (203.0.113.0/24...), which are no one's own network. Not the shared address space 100.64.0.0/10
#: (RFC 6598, round 9 of issue 18): behind an ISP's carrier-grade NAT those addresses are other customers'
#: machines, reachable from the user's but not the user's own (a Tailscale node has one too: name it yourself).
_PRIVATE_NETS = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")


def _registry(image: str) -> Optional[str]:
    """The registry host of an image reference (``docker://`` dropped), ``docker.io`` for a Docker Hub name;
    ``None`` for an empty one."""
    ref = image.strip()
    for prefix in ("docker://", "oci://", "docker-daemon:"):
        if ref.lower().startswith(prefix):
            ref = ref[len(prefix):]
    if not ref:
        return None
    first = ref.split("/", 1)[0]
    if "/" in ref and ("." in first or ":" in first or first == "localhost"):
        return first.lower()
    return "docker.io"


def _safety(text: str, data: dict) -> Iterator:
    def get(*path: str) -> Any:
        cur: Any = data
        for p in path:
            if not isinstance(cur, dict) or p not in cur:
                return _MISSING
            cur = cur[p]
        return cur

    ap_mode = get("approvals", "mode")
    if ap_mode is not _MISSING and (ap_mode is False or (isinstance(ap_mode, str) and ap_mode.strip().lower() == "off")):
        yield _hit(_locate(text, "mode", "approvals"),
                   {"what": "sets approvals.mode: off: dangerous commands run without asking"})
    cron_mode = get("approvals", "cron_mode")
    if cron_mode is not _MISSING and str(cron_mode).lower().strip() in {"approve", "off", "allow", "yes"}:
        yield _hit(_locate(text, "cron_mode"),
                   {"what": f"sets approvals.cron_mode: {cron_mode}: cron jobs run dangerous commands unapproved"})
    allow = data.get("command_allowlist")
    if isinstance(allow, list) and allow:
        yield _hit(_locate(text, "command_allowlist"),
                   {"what": "pre-approves dangerous commands (command_allowlist: "
                            + ", ".join(str(a) for a in allow)[:120] + ")"})
    if data.get("hooks_auto_accept") is True:
        yield _hit(_locate(text, "hooks_auto_accept"),
                   {"what": "sets hooks_auto_accept: true: shell hooks are registered without asking"})
    if get("delegation", "subagent_auto_approve") is True:
        yield _hit(_locate(text, "subagent_auto_approve"),
                   {"what": "sets delegation.subagent_auto_approve: true: subagents' actions are approved automatically"})
    if get("security", "redact_secrets") is False:
        yield _hit(_locate(text, "redact_secrets"),
                   {"what": "sets security.redact_secrets: false: secrets in tool output reach the model"},
                   Severity.MEDIUM)
    if get("security", "tirith_enabled") is False:
        yield _hit(_locate(text, "tirith_enabled"),
                   {"what": "sets security.tirith_enabled: false: commands are not pre-scanned"}, Severity.MEDIUM)
    for section in ("security", "browser"):
        if get(section, "allow_private_urls") is True:
            yield _hit(_locate(text, "allow_private_urls"),
                       {"what": f"sets {section}.allow_private_urls: true: the agent may reach internal addresses"},
                       Severity.MEDIUM)
    passthrough = get("terminal", "env_passthrough")
    if isinstance(passthrough, list):
        secrets = [str(v) for v in passthrough if _SECRET_NAME.search(str(v))]
        if secrets:
            yield _hit(_locate(text, "env_passthrough"),
                       {"what": "passes " + ", ".join(secrets)[:120] + " into every terminal command "
                                "(terminal.env_passthrough)"}, Severity.MEDIUM)


_MISSING = object()


_SENSITIVE_SECRETS = re.compile(
    r"(?i)^(?:AWS_SECRET_ACCESS_KEY|AWS_SESSION_TOKEN|GOOGLE_APPLICATION_CREDENTIALS|AZURE_CLIENT_SECRET|"
    r"GH_TOKEN|GITHUB_TOKEN|GITHUB_PAT|GITLAB_TOKEN|NPM_TOKEN|PYPI_TOKEN|DOCKER_PASSWORD|KUBECONFIG|"
    r".*(?:PRIVATE_KEY|SSH_KEY|SEED|MNEMONIC|WALLET|ROOT_PASSWORD|ADMIN_PASSWORD|DATABASE_URL).*)$")


#: The manifest key each ``distribution-manifest`` check reads (a check finds nothing without it).
_CHECK_KEYS = {"env-secrets": "env_requires", "owned-path": "distribution_owned"}


def detect_distribution_manifest(text: str, params: dict) -> Iterator:
    """Detector ``distribution-manifest``: ``distribution.yaml`` checks. ``params.check``: invalid,
    env-secrets, owned-path."""
    check = params.get("check")
    key = _CHECK_KEYS.get(check)
    if key is not None and key not in text and not ('"' in text and "\\" in text):
        # issue 8: these checks read one top-level key; YAML spells a key's text literally except in a
        # double-quoted scalar with escapes, so without both it is not in the data (no parse needed)
        return
    read = dist.parse_manifest_text(text, dist.MANIFEST_FILENAME)
    if check == "invalid":
        if read.error:
            msg = " ".join(read.error.split())
            key = next((k for k in ("env_requires", "distribution_owned", "name") if k in msg), "")
            if read.error_offset is not None and text:
                # a YAML error: point at where PyYAML stopped (its line and column are also in the message)
                at = min(read.error_offset, len(text) - 1)
                span = (at, at + 1)
            elif key:
                span = _locate(text, key)
            else:
                span = (0, min(len(text.split("\n", 1)[0]), 200))
            if read.error_kind == "limit" and read.hermes_effect:
                msg += f"; {read.hermes_effect}"
            yield _hit(span, {"message": (f"Hermes refuses to install it: {msg}" if read.error_kind == "hermes"
                                          else msg)},
                       Severity.HIGH if read.error_kind == "limit" else None)
        elif read.bomb:  # only in keys Hermes ignores: harmless to Hermes, hostile to anything else that reads it
            yield _hit((0, min(len(text.split("\n", 1)[0]), 200)), {"message": f"{read.bomb}; {read.hermes_effect}"},
                       Severity.HIGH)
        return
    if read.error_kind == "limit":
        return
    data = read.data
    if check == "env-secrets" and read.manifest is not None:
        plain = []  # ordinary credentials: one finding for all of them (issue 22: a line each was noise)
        for req in read.manifest.env_requires:
            if not _SECRET_NAME.search(req.name):
                continue
            need = "required" if req.required else "optional"
            if not _SENSITIVE_SECRETS.match(req.name):
                plain.append((req, need))
                continue
            why = f" ({need}" + (f": {req.description[:80]}" if req.description else "") + ")"
            why += "; a credential with wide reach: give it a narrowly scoped one"
            yield _hit(_locate(text, req.name), {"name": req.name, "why": why}, Severity.MEDIUM)
        if len(plain) == 1:
            req, need = plain[0]
            why = f" ({need}" + (f": {req.description[:80]}" if req.description else "") + ")"
            yield _hit(_locate(text, req.name), {"name": req.name, "why": why})
        elif plain:
            names = [f"{req.name} ({need})" for req, need in plain[:12]]
            listed = ", ".join(names[:-1]) + (f", {names[-1]}" if len(plain) > 12 else f" and {names[-1]}")
            more = f" and {len(plain) - 12} more" if len(plain) > 12 else ""
            yield _hit(_locate(text, plain[0][0].name), {"name": listed + more, "why": f", {len(plain)} credentials in all"})
    elif check == "owned-path" and isinstance(data, dict) and isinstance(data.get("distribution_owned"), list):
        for raw in data["distribution_owned"]:
            p = str(raw).strip()
            if not p:
                continue
            parts = PurePosixPath(p.strip("/")).parts
            if ".." in PurePosixPath(p).parts or p.startswith(("/", "~")) or re.match(r"^[A-Za-z]:[\\/]", p):
                why = ("leaves the profile directory (Hermes strips a leading '/', then the newest Hermes skips "
                       "entries with '..'; 0.19 ignores the list and copies the whole tree)")
            elif parts and parts[0] in dist.USER_OWNED_EXCLUDE:
                why = f"names user-owned data ({parts[0]!r}): Hermes never copies it"
            else:
                continue
            yield _hit(_locate(text, p), {"path": p, "why": why})


def _unesc(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def detect_install_plan(text: str, params: dict) -> Iterator:
    """Detector ``install-plan``: lines of the listing made by :func:`plan_listing`. ``params.check``:
    symlink, plugins, special, git-dir, gateway-hook."""
    if not text.startswith(PLAN_HEADER):
        return
    check = params.get("check")
    pos = 0
    for line in text.split("\n"):
        start = pos
        pos += len(line) + 1
        parts = line.split("\t")
        if len(parts) == 1 and " " in line and not line.startswith("#"):
            parts = line.replace(" -> ", " ").split(" ")  # tolerate the space-separated example form
        op = parts[0]
        span = (start, start + len(line))
        if check == "symlink" and op == "symlink" and len(parts) >= 3:
            target = _unesc(parts[2])
            escapes = target.startswith(("/", "~")) or ".." in PurePosixPath(target).parts
            yield _hit(span, {"path": _unesc(parts[1]), "target": target},
                       None if escapes else Severity.MEDIUM)
        elif check == "special" and op == "special" and len(parts) >= 3:
            yield _hit(span, {"path": _unesc(parts[1]), "type": parts[2]})
        elif op == "copy" and len(parts) >= 3:
            dest = _unesc(parts[2])
            if check == "plugins" and (dest == "plugins" or dest.startswith("plugins/")):
                yield _hit(span, {"path": dest})
            elif check == "git-dir" and (dest == ".git" or dest.startswith(".git/")):
                yield _hit(span, {"path": dest})
        elif check == "gateway-hook" and op == "hook" and len(parts) >= 2:
            calls = _unesc(parts[2]) if len(parts) >= 3 else ""
            yield _hit(span, {"path": _unesc(parts[1]),
                              "calls": f"; its handler.py {calls}" if calls else ""})


#: A cron ``script`` value that reads like a shell command line rather than a file name.
_SHELL_LIKE = re.compile(r"\s|[|;&`<>]|\$\(")


def detect_cron_jobs(text: str, params: dict) -> Iterator:
    """Detector ``cron-jobs``: Hermes cron job files (``{"jobs": [...]}`` JSON or YAML). ``params.check``:
    blocked (Hermes' cron scanner refuses the prompt), script (the job runs a script)."""
    if "prompt" not in text and "script" not in text:
        return
    check = params.get("check")
    t = text.lstrip("\ufeff").lstrip()
    cf = parse_job_text(text, "cron/jobs.json" if t.startswith(("{", "[")) else "cron/jobs.yaml")
    if cf.error:
        return
    for job in cf.jobs:
        if check == "blocked" and job.prompt:
            v = scan_cron_prompt(job.prompt)
            if v.blocked:
                yield _hit(_locate(text, job.prompt[:60], json.dumps(job.prompt)[1:61], job.name),
                           {"job": job.name, "message": v.message})
        elif check == "script" and job.script:
            how = (" with no agent: the script is the whole job, never scanned" if job.no_agent
                   else " before every run and pastes its output into the prompt")
            how += f" (schedule: {job.schedule or 'none'}" + ("" if job.enabled else ", disabled") + ")"
            if _SHELL_LIKE.search(job.script):
                how += ("; Hermes never runs it as a shell command: it is the name of a file in the profile's "
                        "scripts/ directory (run with bash for .sh/.bash, else python), and the job fails with "
                        "'Script not found' unless such a file exists")
            yield _hit(_locate(text, job.script, job.name), {"job": job.name, "script": job.script[:120], "how": how},
                       Severity.HIGH if job.no_agent and job.enabled else None)
