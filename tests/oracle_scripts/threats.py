"""Oracle: any hermes-agent release's scan_for_threats and _scan_context_content (0.13.0-0.14.0: the ids of
the legacy _scan_context_content's marker, for every scope).

stdin: {"cases": [{"text": str, "scope": "context"|"strict"|"all", "label": str|null}]}
stdout: [{"ids": [...], "context": str|null}]  (context = _scan_context_content(text, label) when label given)
"""
import json
import logging
import sys

logging.disable(logging.CRITICAL)
from agent.prompt_builder import _scan_context_content  # noqa: E402

try:
    from tools.threat_patterns import scan_for_threats  # noqa: E402
except ImportError:  # 0.13.0-0.14.0: the legacy scanner inside agent/prompt_builder.py is the only one
    import re

    def scan_for_threats(text, scope="context"):
        """The ids _scan_context_content puts in its BLOCKED marker (every scope: there is one scanner)."""
        marker = _scan_context_content(text, "x")
        m = re.match(r"^\[BLOCKED: x contained potential prompt injection \((.*)\)\. Content not loaded\.\]$",
                     marker, re.S)
        return m.group(1).split(", ") if m and marker is not text else []

req = json.load(sys.stdin)
out = []
for c in req["cases"]:
    ids = scan_for_threats(c["text"], scope=c.get("scope", "context"))
    ctx = _scan_context_content(c["text"], c["label"]) if c.get("label") else None
    out.append({"ids": ids, "context": ctx})
json.dump(out, sys.stdout)
