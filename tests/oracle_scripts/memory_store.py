"""Oracle: hermes-agent 0.19.0 MemoryStore on real files in a temporary HERMES_HOME.

stdin:  {"cases": [{"memory": str|null, "user": str|null, "limits": [int, int]}]}
        (a null store is not written; text is written byte-exact as UTF-8, no newline translation)
stdout: [{"memory_entries": [...], "user_entries": [...], "memory_block": str|null, "user_block": str|null,
          "memory_chars": int, "user_chars": int, "memory_usage": str, "user_usage": str,
          "memory_drift": bool, "user_drift": bool}]
"""
import json
import logging
import os
import sys
import tempfile

logging.disable(logging.CRITICAL)

req = json.load(sys.stdin)
out = []
for case in req["cases"]:
    with tempfile.TemporaryDirectory(prefix="hermes-oracle-mem-") as home:
        os.environ["HERMES_HOME"] = home
        from tools.memory_tool import MemoryStore  # noqa: E402  (after HERMES_HOME is set)

        mdir = os.path.join(home, "memories")
        os.makedirs(mdir, exist_ok=True)
        for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
            if case.get(target) is not None:
                with open(os.path.join(mdir, name), "wb") as fh:
                    fh.write(case[target].encode("utf-8"))
        store = MemoryStore(*case.get("limits", [2200, 1375]))
        store.load_from_disk()
        res = {
            "memory_entries": store.memory_entries,
            "user_entries": store.user_entries,
            "memory_block": store.format_for_system_prompt("memory"),
            "user_block": store.format_for_system_prompt("user"),
            "memory_chars": store._char_count("memory"),
            "user_chars": store._char_count("user"),
            "memory_usage": store._success_response("memory")["usage"],
            "user_usage": store._success_response("user")["usage"],
            "memory_drift": store._detect_external_drift("memory") is not None,
            "user_drift": store._detect_external_drift("user") is not None,
        }
        out.append(res)
json.dump(out, sys.stdout)
