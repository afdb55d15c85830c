"""The configuration's ``trusted-hosts``: hosts the user vouches for as sources of code.

HA501 (download and run, a package manager given a URL, a git repository or an index) and HA761 (an MCP server
fetched from a URL or a git repository) report a host that is neither a well-known forge or public index nor the
user's own machine or network. A company's own index (``pip install --index-url
https://pypi.corp.example.com/simple ...``) is such a host to the catalog and one the company trusts; naming it
in ``trusted-hosts`` drops those findings when every host the finding's text names is trusted.

- :func:`host_problem`: why an entry is not a host name (the configuration refuses it).
- :func:`named_hosts`: the hosts a text names in URLs (``scheme://[user@]host``) and scp-like git addresses
  (``git@host:path``), lower-cased.
- :func:`is_trusted`: a host equal to an entry or below it (``a.pypi.corp.example.com`` under
  ``pypi.corp.example.com``).
- :func:`trusted_away`: whether a finding is dropped.

Like every setting, ``trusted-hosts`` is configuration from the repository: ``--no-config`` ignores it and the
GitHub Action's auditor mode (``pull_request`` events) reads the base branch's configuration, not the pull
request's, and says in a notice how many findings configuration removed (docs/hardening.md).
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

from hermes_audit.findings import Finding

#: The rules whose findings name a host the code comes from.
TRUSTED_HOST_RULES = frozenset({"HA501", "HA761"})

#: At most this many entries (a bound on the work per finding).
MAX_TRUSTED_HOSTS = 200

_HOST = re.compile(r"(?=.{1,253}\Z)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+")
_URL_HOST = re.compile(
    r"(?i)\b[a-z][a-z0-9+.-]{0,20}://(?:[^\s/@'\"`<>]{1,200}@)?(\[[0-9a-f:.]{2,60}\]|[^\s/:?#'\"`<>|;&()\[\]\\]{1,253})"
    r"|(?<![\w.@-])[\w.-]{1,64}@([a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){1,8}):(?!//)"
)


def host_problem(entry: object) -> Optional[str]:
    """Why ``entry`` is not a host name with at least two labels (``pypi.corp.example.com``; no scheme, port,
    path or wildcard), or ``None`` when it is one."""
    if not isinstance(entry, str):
        return f"{entry!r} is not a string"
    host = entry.strip().lower().rstrip(".")
    if not _HOST.fullmatch(host):
        return (f"{entry!r} is not a host name with at least two labels (write pypi.corp.example.com: "
                "no scheme, port, path or wildcard)")
    return None


def normalise(entry: str) -> str:
    """``entry`` as :func:`is_trusted` compares it: lower-case, without a trailing dot."""
    return entry.strip().lower().rstrip(".")


def named_hosts(text: str) -> list[str]:
    """Every host ``text`` names in a URL or an scp-like git address, lower-cased, in order."""
    out = []
    for m in _URL_HOST.finditer(text):
        host = (m.group(1) or m.group(2) or "").lower().rstrip(".")
        if host:
            out.append(host)
    return out


def is_trusted(host: str, trusted: Sequence[str]) -> bool:
    """True when ``host`` is an entry of ``trusted`` (normalised) or a name below one."""
    return any(host == t or host.endswith("." + t) for t in trusted)


def command_lines(text: str, start: int, end: int) -> str:
    """The whole lines of ``text`` that hold ``[start, end)`` (code points), with the lines a trailing ``\\``
    continues: the command a finding sits in, so an option after the matched part (``--extra-index-url`` of another
    host) is seen too. Bounded to 8,000 code points each side."""
    lo = text.rfind("\n", max(0, start - 8000), start) + 1 if start else 0
    hi = end
    limit = min(len(text), end + 8000)
    while True:
        nl = text.find("\n", hi, limit)
        if nl < 0:
            hi = limit
            break
        hi = nl
        if not text[:nl].rstrip(" \t").endswith("\\"):
            break
        hi = nl + 1
    return text[lo:hi]


def trusted_away(finding: Finding, text: str, trusted: Sequence[str]) -> bool:
    """True when ``finding`` (of a rule in :data:`TRUSTED_HOST_RULES`) names at least one host and every host named
    in ``text`` is trusted; ``text`` is what the finding covers widened to its :func:`command_lines`."""
    if not trusted or finding.rule_id not in TRUSTED_HOST_RULES:
        return False
    hosts = named_hosts(text)
    return bool(hosts) and all(is_trusted(h, trusted) for h in hosts)
