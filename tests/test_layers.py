"""The import graph of ``hermes_audit`` points only down (issue 21; the map is in docs/development.md,
"Architecture").

The graph is built from the source's syntax tree, every ``import`` and ``from ... import`` of a
``hermes_audit`` module counted, the ones inside functions too (an import moved into a function to
dodge a cycle is still an edge). The checks:

* no cycle at all, not even between two modules of one layer;
* each module imports only modules of its own layer or of a lower one (:data:`LAYERS`);
* an import inside a function (or method) appears in :data:`LAZY_IMPORTS` with the reason it is
  not at the top of the module: start-up time (a command, a report format or a rare path that a
  plain ``hermes-audit scan`` does not use, tests/test_startup_imports.py). Nothing else may be
  imported lazily, and an entry that no longer matches an import is reported too;
* each such import says why in a comment (on the statement, or above its run of imports).

On main before issue 21 the first three failed: one cycle of 28 modules (documents, engine, hermes,
scan, profile audit, suppressions ...) and one of two (engine.markdown, engine.negation), and 210
imports inside functions.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "hermes_audit"

#: The layers, lowest first: (name, module-name prefixes). A module belongs to the layer of its longest
#: matching prefix (``hermes_audit`` alone is the package's ``__init__``: the version and the project URL).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # value types every layer speaks (Severity, Confidence, Span, Finding, fingerprints), glob syntax
    ("base", ("hermes_audit", "hermes_audit.findings", "hermes_audit.pathglobs")),
    # reading files safely, kinds, discovery; atomic writes and the on-disk data cache
    ("documents", ("hermes_audit.documents", "hermes_audit.atomic", "hermes_audit.datacache")),
    # rules as data (the YAML catalog, Hermes' parity catalog among it), compiled patterns, prefilters,
    # keyword search, the pattern deadline, NFKC: what both the Hermes model and the audit engine match with
    ("patterns", ("hermes_audit.patterns",)),
    # the model of one Hermes version: given documents, what Hermes does (never the audit engine)
    ("hermes", ("hermes_audit.hermes",)),
    # views, matching, text-only detectors, grading, findings of one document
    ("engine", ("hermes_audit.engine",)),
    # scan, memory, profile and prompt audits: the model's facts and the engine's findings combined;
    # suppressions, baselines, fixes, parallel scanning, profile sources (git clones)
    ("audits", ("hermes_audit.audits",)),
    ("reporters", ("hermes_audit.reporters",)),
    # the command line, the scan server (a CLI that stays warm) and the GitHub Action's entry point
    ("cli", ("hermes_audit.cli", "hermes_audit.server", "hermes_audit.action", "hermes_audit.__main__")),
]

_STARTUP = "start-up time: "
_COMMAND = _STARTUP + "a command (and a report format) imports only what it runs"
_OPCODES = _STARTUP + "compiled from the catalog cache's op-codes when imported, so imported after the catalog"
_MARKDOWN = _STARTUP + "the Markdown example spans grade a hit; a clean scan has none"
_YAML = _STARTUP + "hermes.distribution imports PyYAML, which a scan of Markdown files does not need"
_TREE_WALK = _STARTUP + "the tree walk, for a directory argument only"
_MEMORY = _STARTUP + "the memory-store model, for MEMORY.md and USER.md only"
_SCENARIO = _STARTUP + "the scenario parser, for rule examples only"
#: (importing module, imported module) -> why that import sits inside a function. Every such import also
#: carries the reason as a comment in the code.
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    ("hermes_audit.action", "hermes_audit.documents.beneath"): _COMMAND,
    ("hermes_audit.action", "hermes_audit.documents.discovery"): _COMMAND,
    ("hermes_audit.action", "hermes_audit.hermes.profiles"): _COMMAND,
    ("hermes_audit.audits.detectors", "hermes_audit.audits.profile_checks"):
        _STARTUP + "the profile checks, for a profile's files only",
    ("hermes_audit.audits.detectors", "hermes_audit.hermes.memory"): _MEMORY,
    ("hermes_audit.audits.detectors", "hermes_audit.hermes.prompt"):
        _STARTUP + "the prompt model, for prompt scenarios only (rule examples)",
    ("hermes_audit.audits.detectors", "hermes_audit.hermes.scenario"): _SCENARIO,
    ("hermes_audit.audits.scan", "hermes_audit.audits.baseline"): _STARTUP + "baselines, for --baseline only",
    ("hermes_audit.audits.scan", "hermes_audit.audits.prompt"): _STARTUP + "the prompt dry run, for --prompt only",
    ("hermes_audit.audits.scan", "hermes_audit.documents.discovery"): _TREE_WALK,
    ("hermes_audit.cli.baseline_support", "hermes_audit.audits.baseline"): _COMMAND,
    ("hermes_audit.cli.baseline_support", "hermes_audit.documents.beneath"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.atomic"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.documents.installed_hermes"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.documents.gitroot"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.engine.unicode_chars"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.hermes.profiles"): _COMMAND,
    ("hermes_audit.cli.common", "hermes_audit.reporters.workflow"): _COMMAND,
    ("hermes_audit.cli.config", "hermes_audit.documents.reader"): _COMMAND,
    ("hermes_audit.cli.config", "hermes_audit.pathglobs"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.cli.progress"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.hermes.context"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.hermes.hints"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.hermes.threats"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.hermes.truncation"): _COMMAND,
    ("hermes_audit.cli.context_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.fix_support", "hermes_audit.audits.fix"): _COMMAND,
    ("hermes_audit.cli.fix_support", "hermes_audit.audits.scan"): _COMMAND,
    ("hermes_audit.cli.fix_support", "hermes_audit.hermes.profiles"): _COMMAND,
    ("hermes_audit.cli.fix_support", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.init_cmd", "hermes_audit.atomic"): _COMMAND,
    ("hermes_audit.cli.init_cmd", "hermes_audit.documents.gitroot"): _COMMAND,
    ("hermes_audit.cli.init_cmd", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.audits.memory"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.engine.unicode_chars"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.engine.redact"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.findings"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.hermes.memory"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.reporters.json_report"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.reporters.sarif"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.reporters.text"): _COMMAND,
    ("hermes_audit.cli.memory_cmd", "hermes_audit.reporters.workflow"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.audits.gitsource"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.audits.profile"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.cli.progress"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.engine.unicode_chars"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.findings"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.hermes.cron_guard"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.hermes.skills_guard"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.reporters.excerpt"): _COMMAND,
    ("hermes_audit.cli.profile_cmd", "hermes_audit.reporters.workflow"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.audits.prompt"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.cli.config"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.documents.gitroot"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.findings"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.hermes.hermes_source"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.hermes.memory"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.hermes.prompt"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.hermes.threats"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.hermes.tokens"): _COMMAND,
    ("hermes_audit.cli.prompt_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.rules_cmd", "hermes_audit.hermes.cron_guard"): _COMMAND,
    ("hermes_audit.cli.rules_cmd", "hermes_audit.hermes.skills_guard"): _COMMAND,
    ("hermes_audit.cli.rules_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.audits.scan"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.cli.baseline_support"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.cli.config"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.documents.staged"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.cli.fix_support"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.cli.progress"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.documents.gitroot"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.documents.kinds"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.documents.reader"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.findings"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.patterns.catalog"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.reporters.github"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.reporters.json_report"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.reporters.sarif"): _COMMAND,
    ("hermes_audit.cli.scan_cmd", "hermes_audit.reporters.text"): _COMMAND,
    ("hermes_audit.datacache", "hermes_audit.atomic"):
        _STARTUP + "atomic writes, when the cache is written (a miss) only",
    ("hermes_audit.engine.comments", "hermes_audit.engine.deobfuscate"): _OPCODES,
    ("hermes_audit.engine.detectors", "hermes_audit.engine.ciphers"): _OPCODES,
    ("hermes_audit.engine.detectors", "hermes_audit.engine.comments"): _OPCODES,
    ("hermes_audit.engine.detectors", "hermes_audit.engine.cues"): _OPCODES,
    ("hermes_audit.engine.detectors", "hermes_audit.engine.payloads"): _OPCODES,
    ("hermes_audit.engine.engine", "hermes_audit.engine.deobfuscate"): _OPCODES,
    ("hermes_audit.engine.engine", "hermes_audit.engine.markdown"): _MARKDOWN,
    ("hermes_audit.engine.finding", "hermes_audit.engine.markdown"): _MARKDOWN,
    ("hermes_audit.engine.finding", "hermes_audit.engine.negation"):
        _STARTUP + "the negation model grades a hit; a clean scan has none",
    # round 9: the scope of an example adverbial (engine.mood imports engine.markdown)
    ("hermes_audit.engine.finding", "hermes_audit.engine.mood"):
        _STARTUP + "the mood model grades a hit an example presents; a clean scan has none",
    ("hermes_audit.engine.overlap", "hermes_audit.engine.markdown"): _MARKDOWN,
    ("hermes_audit.engine.payloads", "hermes_audit.engine.deobfuscate"): _OPCODES,
    ("hermes_audit.hermes.context", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.hermes.loading", "hermes_audit.documents.discovery"): _TREE_WALK,
    ("hermes_audit.hermes.memory", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.hermes.outcomes", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.hermes.prompt", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.hermes.verdict", "hermes_audit.hermes.distribution"): _YAML,
    ("hermes_audit.hermes.verdict", "hermes_audit.hermes.memory"): _MEMORY,
    ("hermes_audit.server.client", "hermes_audit.cli.main"): _COMMAND,
    ("hermes_audit.server.client", "hermes_audit.server.peer"): _COMMAND,
    ("hermes_audit.server.daemon", "hermes_audit.cli.main"): _COMMAND,
    ("hermes_audit.server.daemon", "hermes_audit.patterns.catalog"): _COMMAND,
}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def _imports(name: str, path: Path, known: set[str]) -> list[tuple[str, bool, int]]:
    """``(imported module, inside a function, line)`` for each import of a package module by ``name``;
    ``from a import b`` imports ``a.b`` when that is a module, else ``a``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            targets: list[str] = []
            if isinstance(child, ast.Import):
                targets = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in child.names]
            for target in dict.fromkeys(targets):
                while target and target not in known:  # ``import a.b.c`` of a name inside a module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.append((target, in_function, child.lineno))
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(tree, False)
    return found


def _graph() -> dict[str, list[tuple[str, bool, int]]]:
    mods = _modules()
    return {name: _imports(name, path, set(mods)) for name, path in mods.items()}


def layer_of(module: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact = prefix == "hermes_audit"
            if (module == prefix or (not exact and module.startswith(prefix + "."))) and len(prefix) > best:
                best, rank = len(prefix), i
    if rank is None:
        raise AssertionError(f"{module} is in no layer of LAYERS")
    return rank


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


@pytest.fixture(scope="module")
def graph():
    return _graph()


def test_every_module_is_in_a_layer(graph):
    for module in graph:
        layer_of(module)


def test_no_import_cycle(graph):
    edges = {m: {t for t, _, _ in imps} for m, imps in graph.items()}
    assert _cycles(edges) == []


def test_imports_point_only_down(graph):
    upward = [f"{m}:{line} imports {t} ({LAYERS[layer_of(m)][0]} -> {LAYERS[layer_of(t)][0]})"
              for m, imps in graph.items() for t, _, line in imps if layer_of(t) > layer_of(m)]
    assert upward == []


def test_imports_inside_functions_are_only_the_allowed_lazy_ones(graph):
    lazy = {(m, t): line for m, imps in graph.items() for t, inner, line in imps if inner}
    unexplained = [f"{m}:{line} imports {t} inside a function" for (m, t), line in lazy.items()
                   if (m, t) not in LAZY_IMPORTS]
    assert unexplained == []
    assert sorted(set(LAZY_IMPORTS) - set(lazy)) == []  # no stale entry
    assert all(reason.startswith(_STARTUP) and reason != _STARTUP for reason in LAZY_IMPORTS.values())


def _uncommented_lazy_imports(name: str, path: Path, known: set[str]) -> list[int]:
    """Lines of imports inside functions with no comment: none on the statement, none on the line above the
    run of import statements it belongs to."""
    lazy = {line for _t, inner, line in _imports(name, path, known) if inner}
    lines = path.read_text(encoding="utf-8").split("\n")
    out = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
            if not isinstance(block, list):
                continue
            run_start = None
            for st in block:
                if not isinstance(st, (ast.Import, ast.ImportFrom)):
                    run_start = None
                    continue
                run_start = run_start or st.lineno
                commented = any("#" in ln for ln in lines[st.lineno - 1:st.end_lineno])
                above = lines[run_start - 2].lstrip().startswith("#") if run_start > 1 else False
                if st.lineno in lazy and not (commented or above):
                    out.append(st.lineno)
    return out


def test_each_lazy_import_says_why_in_a_comment():
    mods = _modules()
    missing = [f"{name}:{line}" for name, path in mods.items()
               for line in _uncommented_lazy_imports(name, path, set(mods))]
    assert missing == []


def test_the_checks_can_fail():
    """The cycle finder and the layer table see a cycle and an upward import when there is one."""
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("hermes_audit.engine.engine") > layer_of("hermes_audit.hermes.context")
    assert layer_of("hermes_audit.findings") == 0 and layer_of("hermes_audit") == 0
    assert layer_of("hermes_audit.cli.main") == len(LAYERS) - 1


def test_the_catalog_knows_every_detector_and_only_those():
    """The catalog (below the engine) names the detectors as data; the engine's text detectors and the audits'
    model detectors are exactly those names, split between the two layers."""
    from hermes_audit.audits.detectors import MODEL_DETECTORS, AuditEngine
    from hermes_audit.engine.detectors import DETECTORS
    from hermes_audit.engine.engine import Engine
    from hermes_audit.patterns.catalog import DETECTOR_NAMES, load_catalog

    assert set(DETECTORS) | set(MODEL_DETECTORS) == DETECTOR_NAMES
    assert not set(DETECTORS) & set(MODEL_DETECTORS)
    rules = load_catalog().rules
    assert {r.detector for r in rules if r.detector} <= DETECTOR_NAMES
    model_rules = {r.code for r in rules if r.detector in MODEL_DETECTORS}
    assert model_rules and not model_rules & {r.code for r in Engine(rules).rules}
    assert model_rules <= {r.code for r in AuditEngine(rules).rules}
