"""Oracle: what hermes-agent 0.19.0 does with a file given as raw bytes (hostile encodings).

stdin:  {"cases": [{"b64": str}]}   (each case's bytes are written byte-exact)
stdout: [{"context": {"block": str|null, "error": str|null},      AGENTS.md in an empty cwd, build_context_files_prompt
          "soul": {"text": str|null, "error": str|null},          SOUL.md in HERMES_HOME, load_soul_md
          "memory": {"entries": [...]|null, "block": str|null, "error": str|null}}]
                                            memories/MEMORY.md: MemoryStore.load_from_disk, format_for_system_prompt
"""
import base64
import json
import logging
import os
import sys
import tempfile

logging.disable(logging.CRITICAL)
req = json.load(sys.stdin)


def _err(exc):
    return f"{type(exc).__name__}: {exc}"


out = []
for case in req["cases"]:
    data = base64.b64decode(case["b64"])
    res = {}
    with tempfile.TemporaryDirectory(prefix="hermes-oracle-hostile-") as tmp:
        home = os.path.join(tmp, "home")
        cwd = os.path.join(tmp, "cwd")
        os.makedirs(os.path.join(home, "memories"))
        os.makedirs(cwd)
        os.environ["HERMES_HOME"] = home
        with open(os.path.join(cwd, "AGENTS.md"), "wb") as fh:
            fh.write(data)
        with open(os.path.join(home, "SOUL.md"), "wb") as fh:
            fh.write(data)
        with open(os.path.join(home, "memories", "MEMORY.md"), "wb") as fh:
            fh.write(data)
        from agent import prompt_builder  # noqa: E402  (after HERMES_HOME is set)
        from tools.memory_tool import MemoryStore  # noqa: E402

        try:
            res["context"] = {"block": prompt_builder.build_context_files_prompt(cwd=cwd, skip_soul=True),
                              "error": None}
        except Exception as exc:  # compared by the test
            res["context"] = {"block": None, "error": _err(exc)}
        try:
            res["soul"] = {"text": prompt_builder.load_soul_md(None), "error": None}
        except Exception as exc:
            res["soul"] = {"text": None, "error": _err(exc)}
        try:
            store = MemoryStore(2200, 1375)
            store.load_from_disk()
            res["memory"] = {"entries": store.memory_entries, "block": store.format_for_system_prompt("memory"),
                             "error": None}
        except Exception as exc:
            res["memory"] = {"entries": None, "error": _err(exc)}
    out.append(res)
json.dump(out, sys.stdout)
