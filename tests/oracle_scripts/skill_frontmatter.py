"""Oracle: hermes-agent 0.19.0 ``agent.skill_utils.parse_frontmatter`` on SKILL.md texts.

stdin: {"cases": [str]}  (SKILL.md contents)
stdout: [{"yaml_called": bool, "yaml_failed": bool, "keys": [str], "error": str|null}]

``yaml_load`` is wrapped to record whether Hermes' YAML parse of the front matter ran and whether it
raised (then Hermes falls back to ``key: value`` lines). Values are never turned into text (an alias
bomb stays unexpanded); only the keys are returned.
"""
import json
import logging
import sys

logging.disable(logging.CRITICAL)
req = json.load(sys.stdin)
from agent import skill_utils  # noqa: E402

state = {}
_real = skill_utils.yaml_load


def _recording(content):
    state["called"] = True
    try:
        return _real(content)
    except Exception:
        state["failed"] = True
        raise


skill_utils.yaml_load = _recording
out = []
for text in req["cases"]:
    state.clear()
    try:
        fm, _body = skill_utils.parse_frontmatter(text)
        out.append({"yaml_called": bool(state.get("called")), "yaml_failed": bool(state.get("failed")),
                    "keys": sorted(str(k) for k in fm if isinstance(k, (str, int, float, bool))), "error": None})
    except Exception as exc:  # reported, compared by the test
        out.append({"yaml_called": bool(state.get("called")), "yaml_failed": bool(state.get("failed")), "keys": [],
                    "error": f"{type(exc).__name__}: {exc}"})
json.dump(out, sys.stdout)
