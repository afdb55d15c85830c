"""Differential tests of the session simulation of profiles 0.13, 0.15, 0.16 and 0.17 against their packages
(issue 20).

One test per comparison, parametrised over the releases (each behind its own marker, ``pytest -m hermes_0_15_0``),
through the shared helpers of tests/session_oracle.py: the ``# Project Context`` block and SOUL.md byte for byte on
generated trees and on the cases where the releases differ (the fixed 20,000 cap of 0.13.0-0.16.0 and their
``Use file tools`` marker, 0.17.0's cap from the model's window, the ``.hermes.md`` walk above a session without a
git root up to 0.17.0), the subdirectory hints call by call on generated traces (``~unknown_user`` and symlink
loops make ``check_tool_call`` raise up to 0.17.0; 0.13.0-0.14.0 load hints outside the working directory),
``hermes profile install`` (user-owned names dropped at every depth up to 0.16.0, symlinks followed up to 0.14.0),
the memory blocks of stores on disk (0.13.0-0.14.0 do not scan at load) and the whole prompt byte for byte. The
comparisons record their counts (tests/differential.py) when recording.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_audit.hermes.hints import simulate_hints
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.threats import scanner_for
from tests.session_oracle import (compare_context_cases, compare_context_render, compare_memory_homes,
                                  compare_profile_install, compare_prompt, ours_context)
from tests.test_context_render_oracle import trees
from tests.test_hints_oracle import CASES_PER_RUN, calls, compare_batch
from tests.test_hints_oracle import trees as hint_trees
from tests.test_profile import write_tree

pytestmark = pytest.mark.oracle


def _release(release: str, profile: str):
    return pytest.param(release, profile, id=release, marks=getattr(pytest.mark, f"hermes_{release.replace('.', '_')}"))


#: (release, the profile that models it) for every release whose session part this file proves.
SESSION_RELEASES = [_release("0.13.0", "0.13"), _release("0.14.0", "0.13"), _release("0.15.0", "0.15"),
                    _release("0.16.0", "0.16"), _release("0.17.0", "0.17")]


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(trees(), min_size=20, max_size=20))
def test_context_render_equals_the_release(oracle_for, catalog, release, profile, batch):
    compare_context_render(oracle_for(release), catalog, batch, profile)


BIG = b"# Rules\n" + b"word " * 5_000 + b"\n## Tail\nend\n"  # 25,000+ characters: over 20,000


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_truncation_equals_the_release(oracle_for, catalog, tmp_path, release, profile):
    """The cap: 20,000 whatever config.yaml and the model say up to 0.16.0, the marker without a path; 0.17.0's
    cap from ``context_file_max_chars`` or the model's window and its marker naming the file."""
    oracle = oracle_for(release)
    specs = {"big-agents": {"AGENTS.md": BIG}, "big-claude": {"CLAUDE.md": BIG, ".cursorrules": b"never"}}
    window = compare_context_cases(oracle, catalog, tmp_path / "window", specs, profile, soul=BIG,
                                   context_length=250_000)
    pinned = compare_context_cases(oracle, catalog, tmp_path / "pinned", specs, profile, soul=b"calm",
                                   config="context_file_max_chars: 120\n")
    if get_profile(profile).context_cap_dynamic:
        assert "[...truncated" not in window[0]["block"]  # 250,000 tokens: a cap of 60,000
        assert "read the complete file with the read_file tool" in pinned[0]["block"]
    else:
        assert "kept 14000+4000 of" in window[0]["block"] and "Use file tools to read the full file." in window[0]["block"]
        assert "kept 14000+4000 of" in pinned[0]["block"]  # context_file_max_chars is not read


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_hermes_md_above_a_session_without_git_equals_the_release(oracle_for, catalog, tmp_path, release, profile):
    """Without a git root, up to 0.17.0 the nearest ``.hermes.md`` of any parent directory loads; 0.18.0 on,
    only the session directory's."""
    oracle = oracle_for(release)
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / "sub" / "deeper").mkdir(parents=True)
    home.mkdir()
    (home / "SOUL.md").write_bytes(b"")
    (root / ".hermes.md").write_bytes(b"---\nmodel: x\n---\nparent rules")
    (root / "sub" / "AGENTS.md").write_bytes(b"agents of sub")
    cases, ours = [], []
    for cwd in (root / "sub", root / "sub" / "deeper", root):
        cases.append({"cwd": str(cwd), "hermes_home": str(home), "context_length": None, "skip_soul": True})
        ours.append(ours_context(cwd, home, None, False, catalog, profile)[0])
    got = oracle.run("context_render", {"cases": cases})
    assert [g["block"] for g in got] == ours
    assert ("parent rules" in got[0]["block"]) == get_profile(profile).hermes_md_parent_walk


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(hint_trees().flatmap(lambda t: st.tuples(st.just(t), calls(t["dirs"]))),
                      min_size=CASES_PER_RUN, max_size=CASES_PER_RUN))
def test_hints_equal_the_release_call_by_call(oracle_for, release, profile, batch):
    compare_batch(oracle_for(release), batch, profile)


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_hint_runtime_errors_equal_the_release(oracle_for, catalog, tmp_path, release, profile):
    """``~unknown_user`` and a symlink loop: ``check_tool_call`` raises up to 0.17.0 (nothing is appended, and
    the next call still works); the directories touched before are not marked loaded."""
    oracle = oracle_for(release)
    w = tmp_path / "w"
    (w / "a").mkdir(parents=True)
    (w / "a" / "AGENTS.md").write_text("# A\nrules of a\n")
    os.symlink("loop", w / "loop")
    trace = [
        {"tool": "read_file", "args": {"path": "~unknown_user_zz/x"}},
        {"tool": "terminal", "args": {"command": "cat a/x.py loop/y.py"}},
        {"tool": "read_file", "args": {"path": "a/x.py"}},
        {"tool": "read_file", "args": {"path": "a/x.py"}},
    ]
    answer = oracle.run("hints_trace", {"cases": [{"working_dir": str(w), "home": str(tmp_path), "calls": trace}]})[0]
    prof = get_profile(profile)
    report = simulate_hints(w, [(c["tool"], c["args"]) for c in trace], prof,
                            scanner_for(catalog.parity, prof.scanner), home=str(tmp_path))
    assert [c.text for c in report.calls] == [a["text"] for a in answer]
    assert [c.error is not None for c in report.calls] == [a["error"] is not None for a in answer]
    assert answer[0]["error"] == ("RuntimeError" if prof.hint_runtime_errors_escape else None)
    assert "rules of a" in answer[2]["text"] and answer[3]["text"] is None


def _linked(root):
    """Symlinks inside the distribution: a file link at the top, a directory link, a nested file link."""
    write_tree(root, {"distribution.yaml": "name: linked\n", "notes/soul.txt": "You are terse.\n",
                      "shared/SKILL.md": "shared\n", "skills/a/SKILL.md": "a\n"})
    os.symlink("notes/soul.txt", root / "SOUL.md")
    os.symlink("../shared", root / "skills" / "alias")
    os.symlink("SKILL.md", root / "skills" / "a" / "COPY.md")
    return root


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_profile_install_equals_the_release(oracle_for, tmp_path, release, profile):
    """0.13.0-0.14.0 follow the symlinks of a distribution (the install copies what they point to); 0.15.0 on
    refuse it."""
    extra = {"nested-user-owned": {"distribution.yaml": "name: nested\n", "skills/x/.env": "A=1\n",
                                   "skills/x/SKILL.md": "x\n", "skills/memories/m.md": "m\n",
                                   "cron/sessions/s.json": "{}\n", "cron/jobs.json": "{}\n"},
             "linked": _linked}
    theirs = compare_profile_install(oracle_for(release), tmp_path, profile, extra=extra,
                                     requires=len(get_profile(profile).releases) == 1)
    files = set(theirs["plan-nested-user-owned"]["files"])
    assert ("skills/x/.env" in files) == (not get_profile(profile).distribution_exclude_nested)
    linked = theirs["plan-linked"]
    if get_profile(profile).distribution_reject_symlinks:
        assert linked["error"].startswith("Profile distributions cannot contain symlinks: ")
    else:
        assert {"SOUL.md", "skills/alias/SKILL.md", "skills/a/COPY.md"} <= set(linked["files"])


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_memory_render_equals_the_release(oracle_for, tmp_path, release, profile):
    theirs = compare_memory_homes(oracle_for(release), tmp_path, profile)
    blocked = "[BLOCKED" in (theirs["poisoned"]["memory_block"] or "")
    assert blocked == get_profile(profile).memory_scan_on_load


@pytest.mark.parametrize("release, profile", SESSION_RELEASES)
def test_hints_outside_the_working_directory_equal_the_release(oracle_for, catalog, tmp_path, release, profile):
    """0.13.0-0.14.0 load the hint of a directory outside the working directory (a sibling repository, its
    parents), shown relative to the home directory; 0.15.0 on, only inside it."""
    oracle = oracle_for(release)
    w = tmp_path / "proj"
    w.mkdir()
    (tmp_path / "sibling").mkdir()
    (tmp_path / "sibling" / "AGENTS.md").write_text("sibling repo rules\n")
    trace = [{"tool": "read_file", "args": {"path": "../sibling/x.py"}},
             {"tool": "terminal", "args": {"command": f"cat {tmp_path}/sibling/y.py"}}]
    answer = oracle.run("hints_trace", {"cases": [{"working_dir": str(w), "home": str(tmp_path), "calls": trace}]})[0]
    prof = get_profile(profile)
    report = simulate_hints(w, [(c["tool"], c["args"]) for c in trace], prof,
                            scanner_for(catalog.parity, prof.scanner), home=str(tmp_path))
    assert [c.text for c in report.calls] == [a["text"] for a in answer]
    assert (answer[0]["text"] is not None and "~/sibling/AGENTS.md" in answer[0]["text"]) == \
        prof.hint_outside_working_dir


#: The releases whose prompt dry run this file proves (0.17.0's agent/system_prompt.py is 0.18.2's but for the
#: computer-use block; 0.15.0 on build it in agent/system_prompt.py, 0.13.0-0.14.0 in run_agent.py's AIAgent).
PROMPT_RELEASES = [_release("0.13.0", "0.13"), _release("0.14.0", "0.13"), _release("0.15.0", "0.15"),
                   _release("0.16.0", "0.16"), _release("0.17.0", "0.17")]
#: The environments each runs with: 0.17.0 the desktop surfaces; the older ones plain and with an embedder's
#: environment hint and the desktop marker set (0.16.0 adds the hint line; none of them has the desktop line).
PROMPT_ENVS = {"plain": {}, "desktop": {"HERMES_DESKTOP": "1"}, "desktop-terminal": {"HERMES_DESKTOP_TERMINAL": "yes"},
               "embedder-hint": {"HERMES_ENVIRONMENT_HINT": "Outbound traffic goes through a proxy.", "HERMES_DESKTOP": "1"}}
PROMPT_RUNS = [pytest.param(*r.values, PROMPT_ENVS[env], id=f"{r.id}-{env}", marks=r.marks) for r in PROMPT_RELEASES
               for env in (("plain", "desktop", "desktop-terminal") if r.values[0] == "0.17.0" else
                           ("plain", "embedder-hint"))]


@pytest.mark.parametrize("release, profile, extra_env", PROMPT_RUNS)
def test_prompt_equals_the_release_byte_for_byte(oracle_for, catalog, tmp_path, release, profile, extra_env):
    """The whole prompt, tier by tier, on the frozen sessions of tests/test_prompt_oracle.py and a tui session:
    0.17.0 has the desktop line, no Telegram rich-messages extension, no tui pane clarifier, no
    ``agent.coding_instructions`` and takes any git repository for a code workspace; 0.13.0-0.16.0 have no
    coding posture, steering note or parallel-tool-call guidance and ignore config.yaml ``platform_hints``; 0.16.0
    adds the task-completion guidance, the embedder's environment hint and the ``environments:`` filter of the
    skills index; 0.13.0-0.14.0 have no active-profile line and give the time of day."""
    theirs = compare_prompt(oracle_for(release), catalog, tmp_path, profile, release, extra_env)
    prof = get_profile(profile)
    first = theirs[0]["prompt"]
    desktop_line = "Runtime surface: you're running inside the Hermes desktop GUI app."
    assert (desktop_line in first) == bool(extra_env and prof.prompt_desktop_environment_hint)
    assert "Operator instructions" not in theirs[4]["prompt"]  # config.yaml sets them; none of these reads them
    assert ("Keep replies short." in theirs[1]["prompt"]) == prof.prompt_platform_hint_overrides
    assert ("Active Hermes profile: default." in first) == prof.prompt_active_profile_line
    assert ("Wednesday, July 15, 2026 09:30 AM" in first) == prof.prompt_session_time_of_day
    assert ("\n# Finishing the job\n" in first) == prof.prompt_task_completion
    assert ("- old" in first) == (not prof.skills_prune_support_dirs)  # skills/ops/deploy/references/old/SKILL.md
    if not os.path.isdir("/run/s6") and not os.path.isdir("/package/admin/s6-overlay"):
        assert ("- s6only" in first) == (not prof.skills_environments_filter)
    if "HERMES_ENVIRONMENT_HINT" in extra_env:
        assert ("Outbound traffic goes through a proxy." in first) == prof.prompt_environment_hint_extra
