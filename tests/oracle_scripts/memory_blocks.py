"""Oracle: any hermes-agent release's MemoryStore snapshot blocks, as agent_init loads them.

stdin:  {"cases": [{"memory": str|null, "user": str|null}]}
stdout: [{"memory": str|null, "user": str|null}]   (format_for_system_prompt of each target)
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
    with tempfile.TemporaryDirectory() as home:
        os.environ["HERMES_HOME"] = home
        mdir = os.path.join(home, "memories")
        os.makedirs(mdir)
        for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
            if case.get(target) is not None:
                with open(os.path.join(mdir, name), "wb") as fh:
                    fh.write(case[target].encode("utf-8"))
        import importlib

        import tools.memory_tool as mt

        importlib.reload(mt)  # get_memory_dir follows HERMES_HOME
        store = mt.MemoryStore(2200, 1375)
        try:
            store.load_from_disk()
        except Exception:
            pass
        out.append({"memory": store.format_for_system_prompt("memory"), "user": store.format_for_system_prompt("user")})
json.dump(out, sys.stdout)
