"""The audits' engine: the engine's text-only detectors plus the detectors that read the Hermes model's facts
(issue 21). Rules name them with ``detector:`` like any other (``rules/*.yaml``); the catalog knows every
name (:data:`hermes_audit.patterns.catalog.DETECTOR_NAMES`).

* ``memory-store``: capacity, format drift, duplicates (:func:`hermes_audit.hermes.memory.detect_store`);
* ``prompt-model``: the prompt model on a prompt scenario (:func:`hermes_audit.hermes.prompt.detect_prompt`);
* ``loading-model``: the loading model on a loading scenario (:func:`detect_loading`, which runs this
  engine over the text Hermes injects unscanned, as a real scan does);
* ``mcp-servers``, ``hermes-config``, ``distribution-manifest``, ``install-plan``, ``cron-jobs``,
  ``skill-frontmatter``: a profile distribution's files (:mod:`hermes_audit.audits.profile_checks`);
* ``suppression-comments``: hermes-audit's own suppression comments (:mod:`hermes_audit.audits.suppressions`).

Every audit runs rules with :class:`AuditEngine`; :class:`hermes_audit.engine.engine.Engine` alone runs the
text-only detectors and skips rules that name one of these.
"""

from __future__ import annotations

import functools
from collections import ChainMap
from typing import Callable, Iterator

from hermes_audit.audits import suppressions
from hermes_audit.engine.detectors import DETECTORS
from hermes_audit.engine.engine import Engine
from hermes_audit.findings import DetectorHit
from hermes_audit.hermes.context import CEILING_CAP, LoadingIssue, loading_issues, simulate_context
from hermes_audit.hermes.hints import hint_issues, simulate_hints
from hermes_audit.hermes.loading import case_collision_issues
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.threats import scanner_for
from hermes_audit.hermes.truncation import resolve_cap
from hermes_audit.patterns.catalog import load_catalog

def _memory_store(text: str, params: dict) -> Iterator[DetectorHit]:
    from hermes_audit.hermes.memory import detect_store  # start-up time: only a memory store needs the model

    return detect_store(text, params)


def _prompt_model(text: str, params: dict) -> Iterator[DetectorHit]:
    from hermes_audit.hermes.prompt import detect_prompt  # start-up time: the prompt model is large

    return detect_prompt(text, params)


def _profile_check(name: str) -> Callable[[str, dict], Iterator[DetectorHit]]:
    def run(text: str, params: dict) -> Iterator[DetectorHit]:
        from hermes_audit.audits import profile_checks  # start-up time: only a profile's files need them

        return getattr(profile_checks, name)(text, params)

    return run


def _suppression_comments(text: str, params: dict) -> Iterator[DetectorHit]:
    return suppressions.detect(text, params)


def scenario_issues(text: str) -> list[tuple[LoadingIssue, tuple[int, int]]]:
    """Run the loading model on a scenario (:func:`hermes_audit.hermes.scenario.parse_scenario`); each issue
    with the span of its file's ``===`` line. The audit rules other than the loading rules run, with
    :class:`AuditEngine`, over the text Hermes injects unscanned. Raises what ``parse_scenario`` raises."""
    from hermes_audit.hermes.scenario import SCENARIO_ROOT, parse_scenario  # start-up time: only rule examples are scenarios

    sc = parse_scenario(text)
    catalog = load_catalog()
    profile = get_profile(sc.version)
    scanner = scanner_for(catalog.parity, profile.scanner)
    engine = AuditEngine([r for r in catalog.rules if r.family != "loading"])
    rep = simulate_context(sc.cwd, profile, scanner, sc.cap, fs=sc.fs)
    ceiling = simulate_context(sc.cwd, profile, scanner, resolve_cap(CEILING_CAP), fs=sc.fs)
    issues = loading_issues(rep, ceiling, scanner, engine)
    if sc.hints:
        hr = simulate_hints(sc.cwd, [], profile, scanner, fs=sc.fs, home="/nonexistent-home", all_dirs=True)
        issues.extend(hint_issues(hr, scanner, engine))
    issues.extend(case_collision_issues(list(sc.headers), SCENARIO_ROOT))  # the scenario's files: what git lists
    return [(it, sc.headers.get(it.entry.path, sc.header_span)) for it in issues]


#: Scenario results kept (each loading rule of a scenario needs the same simulation).
_SCENARIO_CACHE_SIZE = 32


@functools.lru_cache(maxsize=_SCENARIO_CACHE_SIZE)
def _scenario_results(text: str) -> tuple:
    return tuple(scenario_issues(text))


def detect_loading(text: str, params: dict) -> Iterator[DetectorHit]:
    """Detector ``loading-model``: findings of rule ``params["rule"]`` for a scenario document.

    A scenario is a text whose first line starts with ``#hermes-audit-scenario``
    (:func:`hermes_audit.hermes.scenario.parse_scenario`): it describes a small
    tree that is simulated in memory (nothing is read from or written to disk).
    Every other document yields nothing: in real scans loading findings come
    from :func:`hermes_audit.audits.loading.loading_findings`. A hit spans the ``=== PATH`` line of the file
    the finding is about.
    """
    from hermes_audit.hermes.scenario import SCENARIO_MAGIC  # start-up time: only rule examples are scenarios

    if not text.startswith(SCENARIO_MAGIC):
        return
    try:
        results = _scenario_results(text)
    except (ValueError, KeyError, OSError, RecursionError):
        return
    want = params.get("rule")
    for issue, (start, end) in results:
        if issue.rule == want:
            yield DetectorHit(start, max(end, start + 1), {"message": issue.message}, severity=issue.severity)


#: The detectors that read the Hermes model's facts (see the module docstring), by name.
MODEL_DETECTORS: dict[str, Callable[[str, dict], Iterator[DetectorHit]]] = {
    "memory-store": _memory_store,
    "mcp-servers": _profile_check("detect_mcp_servers"),
    "hermes-config": _profile_check("detect_hermes_config"),
    "distribution-manifest": _profile_check("detect_distribution_manifest"),
    "install-plan": _profile_check("detect_install_plan"),
    "cron-jobs": _profile_check("detect_cron_jobs"),
    "skill-frontmatter": _profile_check("detect_skill_frontmatter"),
    "suppression-comments": _suppression_comments,
    "loading-model": detect_loading,
    "prompt-model": _prompt_model,
}


class AuditEngine(Engine):
    """:class:`~hermes_audit.engine.engine.Engine` with every detector a rule may name: the text-only ones
    (looked up in :data:`~hermes_audit.engine.detectors.DETECTORS` when a rule runs) and :data:`MODEL_DETECTORS`."""

    detectors = ChainMap(MODEL_DETECTORS, DETECTORS)
