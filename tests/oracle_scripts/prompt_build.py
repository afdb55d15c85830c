"""Oracle: hermes-agent ``build_system_prompt`` for a minimal stand-in agent, with the clock fixed.

stdin: {"cases": [{"cwd": str, "hermes_home": str, "now": ISO str with offset, "tools": [str],
                   "model": str, "provider": str, "platform": str, "context_length": int|null,
                   "system_message": str|null, "session_id": str|null}]}
stdout: [{"prompt": str, "parts": {"stable": str, "context": str, "volatile": str}, "error": str|null}]

The stand-in carries exactly the attributes ``agent/system_prompt.py`` reads,
set from ``load_config()`` the way ``agent/agent_init.py`` sets them (memory
flags and limits, ``agent.*`` switches, ``platform_hints``). Time is frozen by
replacing ``hermes_time.datetime`` with a subclass whose ``now()`` returns the
case's moment. Each case runs with ``HERMES_HOME`` set and the process in the
case's directory (a local CLI launch: no ``TERMINAL_CWD``). 0.15.0 on build the prompt in
``agent/system_prompt.py``; 0.13.0-0.14.0 in the ``AIAgent`` methods ``_build_system_prompt_parts`` and
``_build_system_prompt`` of ``run_agent.py``, called here on the stand-in. Releases without
``hermes_time.reset_cache`` (up to 0.16.0) have their zone cache cleared by hand.
"""
import json
import logging
import os
import sys
from datetime import datetime
from types import SimpleNamespace

logging.disable(logging.CRITICAL)
req = json.load(sys.stdin)
os.environ.pop("TERMINAL_CWD", None)

import hermes_time  # noqa: E402

_FIXED = {"now": None}


class _Frozen(datetime):
    @classmethod
    def now(cls, tz=None):
        fixed = _FIXED["now"]
        if tz is None:
            return fixed.astimezone().replace(tzinfo=None)
        return fixed.astimezone(tz)


hermes_time.datetime = _Frozen

import run_agent  # noqa: E402,F401  (system_prompt resolves helpers through it)
from agent import prompt_builder, skill_utils  # noqa: E402
from hermes_cli import config as hconfig  # noqa: E402
from tools.memory_tool import MemoryStore  # noqa: E402

try:
    from agent import system_prompt  # noqa: E402  (0.15.0 on)

    _parts, _whole = system_prompt.build_system_prompt_parts, system_prompt.build_system_prompt
except ImportError:  # 0.13.0-0.14.0: methods of AIAgent
    _parts, _whole = run_agent.AIAgent._build_system_prompt_parts, run_agent.AIAgent._build_system_prompt


def _reset_clock_cache():
    if hasattr(hermes_time, "reset_cache"):
        hermes_time.reset_cache()
    else:  # up to 0.16.0: the module's cache globals
        hermes_time._cache_resolved = False
        hermes_time._cached_tz = hermes_time._cached_tz_name = None


out = []
for c in req["cases"]:
    try:
        os.environ["HERMES_HOME"] = c["hermes_home"]
        os.chdir(c["cwd"])
        _FIXED["now"] = datetime.fromisoformat(c["now"])
        _reset_clock_cache()
        prompt_builder.clear_skills_system_prompt_cache(clear_snapshot=True)
        skill_utils._external_dirs_cache_clear()
        cfg = hconfig.load_config()
        agent_sec = cfg.get("agent") or {}
        mem_cfg = cfg.get("memory") or {}
        tools = set(c["tools"])
        store = None
        mem_on = bool(mem_cfg.get("memory_enabled", False))
        user_on = bool(mem_cfg.get("user_profile_enabled", False))
        if mem_on or user_on:
            store = MemoryStore(memory_char_limit=mem_cfg.get("memory_char_limit", 2200),
                                user_char_limit=mem_cfg.get("user_char_limit", 1375))
            try:  # as agent/agent_init.py does: a load error leaves the store with empty blocks
                store.load_from_disk()
            except Exception:
                pass
        hints = cfg.get("platform_hints", {})
        agent = SimpleNamespace(
            context_compressor=SimpleNamespace(context_length=c.get("context_length")),
            load_soul_identity=False,
            skip_context_files=False,
            valid_tool_names=tools,
            _task_completion_guidance=bool(agent_sec.get("task_completion_guidance", True)),
            _parallel_tool_call_guidance=bool(agent_sec.get("parallel_tool_call_guidance", True)),
            _kanban_worker_guidance=prompt_builder.KANBAN_GUIDANCE if "kanban_show" in tools else "",
            _tool_use_enforcement=agent_sec.get("tool_use_enforcement", "auto"),
            _environment_probe=bool(agent_sec.get("environment_probe", True)),
            _platform_hint_overrides=hints if isinstance(hints, dict) else {},
            model=c.get("model") or "",
            provider=c.get("provider") or "",
            platform=c.get("platform") or "cli",
            _memory_store=store,
            _memory_enabled=mem_on,
            _user_profile_enabled=user_on,
            _memory_manager=None,
            pass_session_id=bool(c.get("session_id")),
            session_id=c.get("session_id"),
            _emit_status=lambda *a, **k: None,
        )
        agent._build_system_prompt_parts = lambda system_message=None, _a=agent: _parts(_a, system_message)
        parts = _parts(agent, system_message=c.get("system_message"))
        prompt = _whole(agent, system_message=c.get("system_message"))
        out.append({"prompt": prompt, "parts": parts, "error": None})
    except Exception as exc:  # reported, compared by the test
        import traceback

        out.append({"prompt": None, "parts": None, "error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"})
json.dump(out, sys.stdout)
