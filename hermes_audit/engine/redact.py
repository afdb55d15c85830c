"""Redaction of secrets in snippets shown to users (text, JSON, SARIF, annotations)."""

from __future__ import annotations

import regex

# Token shapes: provider prefixes, then key=value assignments with long values.
_SECRET_SHAPES = regex.compile(
    r"(?P<keep>sk-(?:ant-)?|ghp_|gho_|ghs_|github_pat_|glpat-|xox[abpr]-|AKIA|ASIA|AIza)(?P<secret>[A-Za-z0-9_\-]{8,})"
    # (key names and value characters cover what HA404/HA406 report: access_key = <40 chars>, password: hunter2hunter2)
    r"|(?P<kv>(?i:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|token|secret|password|passwd|passphrase|pwd|auth)[\"']?\s*[=:]\s*[\"']?)"
    r"(?P<value>[A-Za-z0-9+/=_\-.!@#%^&*~]{8,})"
    r"|(?P<pem>-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]{0,4000}?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
)


def redact(text: str) -> str:
    """``text`` with secret-looking values replaced: keeps a 4-character prefix, then ``****``."""

    def repl(m: "regex.Match[str]") -> str:
        if m.group("keep"):
            return m.group("keep") + m.group("secret")[:4] + "****"
        if m.group("kv"):
            return m.group("kv") + m.group("value")[:4] + "****"
        return m.group("pem") + "****"

    return _SECRET_SHAPES.sub(repl, text)


def redact_in_place(text: str) -> str:
    """``text`` with each secret value's characters after the first four replaced by ``*``.

    Unlike :func:`redact` the length is unchanged, so offsets and columns computed
    on the original text still point at the same characters (used for source
    excerpts with carets).
    """

    def repl(m: "regex.Match[str]") -> str:
        if m.group("keep"):
            secret = m.group("secret")
            return m.group("keep") + secret[:4] + "*" * (len(secret) - 4)
        if m.group("kv"):
            value = m.group("value")
            return m.group("kv") + value[:4] + "*" * (len(value) - 4)
        whole = m.group(0)
        head = m.group("pem")
        return head + "".join(c if c in "\r\n" else "*" for c in whole[len(head):])

    return _SECRET_SHAPES.sub(repl, text)
