"""Oracle: hermes-agent 0.19.0 scan_for_threats and _scan_context_content.

stdin: {"cases": [{"text": str, "scope": "context"|"strict"|"all", "label": str|null}]}
stdout: [{"ids": [...], "context": str|null}]  (context = _scan_context_content(text, label) when label given)
"""
import json
import logging
import sys

logging.disable(logging.CRITICAL)
from tools.threat_patterns import scan_for_threats  # noqa: E402
from agent.prompt_builder import _scan_context_content  # noqa: E402

req = json.load(sys.stdin)
out = []
for c in req["cases"]:
    ids = scan_for_threats(c["text"], scope=c.get("scope", "context"))
    ctx = _scan_context_content(c["text"], c["label"]) if c.get("label") else None
    out.append({"ids": ids, "context": ctx})
json.dump(out, sys.stdout)
