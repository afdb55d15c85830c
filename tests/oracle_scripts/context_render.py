"""Oracle: hermes-agent 0.19.0 ``build_context_files_prompt`` and ``load_soul_md``.

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

out = []
for c in req["cases"]:
    os.environ["HERMES_HOME"] = c["hermes_home"]
    try:
        block = prompt_builder.build_context_files_prompt(
            cwd=c["cwd"], skip_soul=c.get("skip_soul", True), context_length=c.get("context_length"))
        soul = prompt_builder.load_soul_md(c.get("context_length"))
        out.append({"block": block, "soul": soul, "error": None})
    except Exception as exc:  # reported, compared by the test
        out.append({"block": None, "soul": None, "error": f"{type(exc).__name__}: {exc}"})
json.dump(out, sys.stdout)
