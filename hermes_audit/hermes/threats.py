"""Hermes' threat scanner, reproduced: ``scan_for_threats`` for a version profile.

Mirrors ``tools/threat_patterns.py`` (hermes-agent 0.19.0; newest public
source for ``latest``):

1. empty content gives no findings;
2. only ``content[:max_scan_chars]`` (65,536) is scanned;
3. invisible characters are checked on that raw window and reported as
   ``invisible_unicode_U+XXXX``; Hermes lists them in ``set`` order, which
   changes between runs, so they are listed here by code point (compare them
   as a set);
4. the window is NFKC-normalised and every pattern of the scope is searched
   with Python's ``re`` and ``re.IGNORECASE``, in catalog order; each id at
   most once.

Scopes are cumulative: ``all`` patterns are in every scope, ``context``
patterns in ``context`` and ``strict``, ``strict`` ones only in ``strict``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Optional

from hermes_audit.engine.catalog import SCOPES, ParityCatalog, Rule
from hermes_audit.engine.normalize import nfkc

_IN_SCOPE = {
    "all": ("all",),
    "context": ("all", "context"),
    "strict": ("all", "context", "strict"),
}


@dataclass(frozen=True)
class ParityHit:
    """One Hermes pattern id that matches, with where it first matches.

    ``start``/``end`` are offsets in the scanned content (not in the NFKC text).
    ``rule`` is the parity rule; ``codepoint`` is set for invisible characters.
    """

    pattern_id: str
    rule: Rule
    start: int
    end: int
    codepoint: Optional[str] = None


class ThreatScanner:
    """``scan_for_threats`` of one Hermes version profile."""

    def __init__(self, parity: ParityCatalog, version: str) -> None:
        if version not in parity.versions:
            raise ValueError(f"unknown Hermes version profile {version!r}")
        self.version = version
        self.parity = parity
        cfg = parity.versions[version]
        self.max_scan_chars = cfg.max_scan_chars
        self.invisible = cfg.invisible_chars
        self._by_scope = {
            scope: [(r, r.version_compiled[version]) for r in parity.rules if r.scope in _IN_SCOPE[scope]]
            for scope in SCOPES
        }

    def _patterns(self, scope: str):
        try:
            return self._by_scope[scope]
        except KeyError:
            raise ValueError(f"scan_for_threats: unknown scope {scope!r}") from None

    def scan(self, content: Optional[str], scope: str = "context") -> list[str]:
        """Pattern ids Hermes reports for ``content`` (invisible ids sorted by code point)."""
        patterns = self._patterns(scope)
        if not content:
            return []
        window = content[: self.max_scan_chars]
        out = [f"invisible_unicode_U+{ord(c):04X}" for c in sorted(set(window) & self.invisible)]
        normalised = unicodedata.normalize("NFKC", window)
        for rule, pat in patterns:
            if pat.search(normalised):
                out.append(rule.hermes_id or "")
        return out

    def locate(self, content: Optional[str], scope: str = "context") -> list[ParityHit]:
        """Like :meth:`scan`, with the first match of each id located in ``content``."""
        patterns = self._patterns(scope)
        if not content:
            return []
        window = content[: self.max_scan_chars]
        hits: list[ParityHit] = []
        present = set(window) & self.invisible
        for ch in sorted(present):
            i = window.index(ch)
            hits.append(ParityHit(f"invisible_unicode_U+{ord(ch):04X}", self.parity.invisible_rule, i, i + 1, f"U+{ord(ch):04X}"))
        mapped = None
        normalised = unicodedata.normalize("NFKC", window)
        for rule, pat in patterns:
            m = pat.search(normalised)
            if m is None:
                continue
            if mapped is None:
                mapped = nfkc(window)
            s, e = mapped.to_raw(m.start(), max(m.end(), m.start() + 1))
            hits.append(ParityHit(rule.hermes_id or "", rule, s, e))
        return hits

    def first_threat_message(self, content: Optional[str], scope: str = "strict") -> Optional[str]:
        """Hermes' ``first_threat_message``: the refusal text for the first finding, or ``None``."""
        findings = self.scan(content, scope)
        if not findings:
            return None
        pid = findings[0]
        if pid.startswith("invisible_unicode_"):
            return f"Blocked: content contains invisible unicode character {pid[len('invisible_unicode_'):]} (possible injection)."
        return (
            f"Blocked: content matches threat pattern '{pid}'. Content is injected into the system prompt "
            "and must not contain injection or exfiltration payloads."
        )


_SCANNERS: dict[tuple[int, str], ThreatScanner] = {}


def scanner_for(parity: ParityCatalog, version: str) -> ThreatScanner:
    """Cached :class:`ThreatScanner` for a catalog and version."""
    key = (id(parity), version)
    s = _SCANNERS.get(key)
    if s is None:
        s = _SCANNERS[key] = ThreatScanner(parity, version)
    return s
