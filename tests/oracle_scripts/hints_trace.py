"""Oracle: hermes-agent 0.19.0 ``SubdirectoryHintTracker``, call by call, with each directory's own result.

stdin: {"cases": [{"working_dir": str, "home": str, "calls": [{"tool": str, "args": {...}}]}]}
stdout: [[{"text": str|null, "dirs": [[directory, str|null], ...], "error": str|null}, ...], ...]

``text`` is what ``check_tool_call`` returns; ``dirs`` lists, in the order the
tracker visited them (``set`` order), every directory ``_load_hints_for_directory``
was called with and what it returned, so the test can compare the blocks as a set; ``error`` names the exception ``check_tool_call`` raised.
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
        try:
            text, error = tracker.check_tool_call(call["tool"], call.get("args") or {}), None
        except Exception as exc:  # 0.13.0-0.17.0: the RuntimeError of ~unknown_user or a symlink loop escapes
            text, error = None, type(exc).__name__
        results.append({"text": text, "dirs": [list(x) for x in seen], "error": error})
    out.append(results)
json.dump(out, sys.stdout)
