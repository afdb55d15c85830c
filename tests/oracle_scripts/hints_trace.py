"""Oracle: hermes-agent 0.19.0 ``SubdirectoryHintTracker``, call by call, with each directory's own result.

stdin: {"cases": [{"working_dir": str, "home": str, "calls": [{"tool": str, "args": {...}}]}]}
stdout: [[{"text": str|null, "dirs": [[directory, str|null], ...]}, ...], ...]

``text`` is what ``check_tool_call`` returns; ``dirs`` lists, in the order the
tracker visited them (``set`` order), every directory ``_load_hints_for_directory``
was called with and what it returned, so the test can compare the blocks as a set.
"""
import json
import logging
import os
import sys

logging.disable(logging.CRITICAL)
req = json.load(sys.stdin)
from agent.subdirectory_hints import SubdirectoryHintTracker  # noqa: E402

out = []
for case in req["cases"]:
    os.environ["HOME"] = case["home"]
    tracker = SubdirectoryHintTracker(working_dir=case["working_dir"])
    seen = []
    original = tracker._load_hints_for_directory

    def recording(directory, _original=original, _seen=seen):
        result = _original(directory)
        _seen.append([str(directory), result])
        return result

    tracker._load_hints_for_directory = recording
    results = []
    for call in case["calls"]:
        seen.clear()
        text = tracker.check_tool_call(call["tool"], call.get("args") or {})
        results.append({"text": text, "dirs": [list(x) for x in seen]})
    out.append(results)
json.dump(out, sys.stdout)
