"""Oracle: hermes-agent 0.19.0 ``_load_cursorrules`` (the .cursorrules + .cursor/rules/*.mdc block).

stdin: {"cases": [{"files": {"<relative path>": "<content>", ...}}]}
stdout: ["<the block Hermes builds for a working directory holding those files>", ...]
Files are written as UTF-8 bytes of the given text (a leading U+FEFF becomes a BOM).
"""
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

logging.disable(logging.CRITICAL)
from agent.prompt_builder import _load_cursorrules  # noqa: E402

req = json.load(sys.stdin)
out = []
for case in req["cases"]:
    with tempfile.TemporaryDirectory() as tmp:
        for rel, content in case["files"].items():
            p = Path(tmp) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content.encode("utf-8"))
        out.append(_load_cursorrules(Path(tmp)))
json.dump(out, sys.stdout)
