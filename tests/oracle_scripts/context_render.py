"""Oracle: hermes-agent's ``build_context_files_prompt`` and ``load_soul_md`` (0.19.0 and the other releases).

stdin: {"cases": [{"cwd": str, "hermes_home": str, "context_length": int|null, "skip_soul": bool}]}
stdout: [{"block": str, "soul": str|null, "error": str|null}]

Each case sets HERMES_HOME (config.yaml and SOUL.md are read from there; the
caller creates SOUL.md so that ``ensure_hermes_home`` seeds nothing).
"""
import json
import logging
import os
import sys

logging.disable(logging.CRITICAL)
req = json.load(sys.stdin)
from agent import prompt_builder  # noqa: E402

import inspect  # noqa: E402

# 0.13.0-0.16.0 take no context_length (their cap is always 20,000)
WINDOW = "context_length" in inspect.signature(prompt_builder.build_context_files_prompt).parameters
out = []
for c in req["cases"]:
    os.environ["HERMES_HOME"] = c["hermes_home"]
    try:
        if WINDOW:
            block = prompt_builder.build_context_files_prompt(
                cwd=c["cwd"], skip_soul=c.get("skip_soul", True), context_length=c.get("context_length"))
            soul = prompt_builder.load_soul_md(c.get("context_length"))
        else:
            block = prompt_builder.build_context_files_prompt(cwd=c["cwd"], skip_soul=c.get("skip_soul", True))
            soul = prompt_builder.load_soul_md()
        out.append({"block": block, "soul": soul, "error": None})
    except Exception as exc:  # reported, compared by the test
        out.append({"block": None, "soul": None, "error": f"{type(exc).__name__}: {exc}"})
json.dump(out, sys.stdout)
