"""Oracle: any hermes-agent release's MemoryStore (0.19.0, 0.20.1) on real files in a temporary HERMES_HOME.

stdin:  {"cases": [{"memory": str|null, "user": str|null, "limits": [int, int]}]}
        (a null store is not written; text is written byte-exact as UTF-8, no newline translation;
        ``memory_hex``/``user_hex`` give a store's bytes instead)
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
            data = bytes.fromhex(case[target + "_hex"]) if case.get(target + "_hex") is not None else \
                case[target].encode("utf-8") if case.get(target) is not None else None
            if data is not None:
                with open(os.path.join(mdir, name), "wb") as fh:
                    fh.write(data)
        store = MemoryStore(*case.get("limits", [2200, 1375]))
        try:
            store.load_from_disk()
        except Exception as exc:  # 0.19.0: a decode error ends the load (agent_init swallows it)
            store._system_prompt_snapshot = {"memory": "", "user": ""}

        def drift(target):
            if not hasattr(store, "_detect_external_drift"):  # 0.13.0-0.14.0: no drift guard
                return False
            if hasattr(store, "_read_raw_checked"):  # 0.20.1: the drift check works on the checked read
                raw, ok = store._read_raw_checked(store._path_for(target))
                return ok and store._detect_external_drift(target, raw) is not None
            try:
                return store._detect_external_drift(target) is not None
            except UnicodeDecodeError:
                return False

        res = {
            "memory_entries": store.memory_entries,
            "user_entries": store.user_entries,
            "memory_block": store.format_for_system_prompt("memory"),
            "user_block": store.format_for_system_prompt("user"),
            "memory_chars": store._char_count("memory"),
            "user_chars": store._char_count("user"),
            "memory_usage": store._success_response("memory")["usage"],
            "user_usage": store._success_response("user")["usage"],
            "memory_drift": drift("memory"),
            "user_drift": drift("user"),
        }
        out.append(res)
json.dump(out, sys.stdout)
