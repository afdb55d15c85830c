"""Redaction of secrets in snippets shown to users (text, JSON, SARIF, annotations)."""

from __future__ import annotations

import functools

from hermes_audit.engine.regex_code import compile_builtin, declare

# Token shapes: provider prefixes, then key=value assignments with long values.
_SECRET_SHAPES_PATTERN = declare(
    r"(?P<keep>sk-(?:ant-)?|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|AKIA|ASIA|AIza)(?P<secret>[A-Za-z0-9_\-]{8,})"
    # (key names and value characters cover what HA404/HA406 report: access_key = <40 chars>, password: hunter2hunter2)
    r"|(?P<kv>(?i:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|token|secret|password|passwd|passphrase|pwd|auth)[\"']?\s*[=:]\s*[\"']?)"
    r"(?P<value>[A-Za-z0-9+/=_\-.!@#%^&*~]{8,})"
    r"|(?P<pem>-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]{0,4000}?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
)


@functools.lru_cache(maxsize=1)
def _secret_shapes():
    """The compiled token shapes, compiled on first use (issue 8: a scan without findings never needs them)."""
    return compile_builtin(_SECRET_SHAPES_PATTERN)


def redact(text: str) -> str:
    """``text`` with secret-looking values replaced: keeps a 4-character prefix, then ``****``."""

    def repl(m) -> str:
        if m.group("keep"):
            return m.group("keep") + m.group("secret")[:4] + "****"
        if m.group("kv"):
            return m.group("kv") + m.group("value")[:4] + "****"
        return m.group("pem") + "****"

    return _secret_shapes().sub(repl, text)


def redact_in_place(text: str) -> str:
    """``text`` with each secret value's characters after the first four replaced by ``*``.

    Unlike :func:`redact` the length is unchanged, so offsets and columns computed
    on the original text still point at the same characters (used for source
    excerpts with carets).
    """

    def repl(m) -> str:
        if m.group("keep"):
            secret = m.group("secret")
            return m.group("keep") + secret[:4] + "*" * (len(secret) - 4)
        if m.group("kv"):
            value = m.group("value")
            return m.group("kv") + value[:4] + "*" * (len(value) - 4)
        whole = m.group(0)
        head = m.group("pem")
        return head + "".join(c if c in "\r\n" else "*" for c in whole[len(head):])

    return _secret_shapes().sub(repl, text)
