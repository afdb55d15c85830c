"""The de-obfuscated view audit rules match on.

Steps, each keeping a map to the raw text: invisible, format, tag and
variation-selector characters removed; blank letters (Hangul fillers and the
like) turned into spaces; NFKC.
"""

from __future__ import annotations

from hermes_audit.engine.normalize import MappedText


def deobfuscate(text: str) -> MappedText:
    """De-obfuscated view of ``text`` with a map back to it."""
    from hermes_audit.engine.engine import basic_deobfuscate

    return basic_deobfuscate(text)
