"""The benchmark figures' heading (benchmarks/docs.py): the command that produced them, as a user would type it."""

from __future__ import annotations

from benchmarks.docs import _context, _shown_command


def _results(*commands: str) -> dict:
    sections = {f"s{i}": {"command": c, "measured_at": f"2026-11-30T19:{10 + i}"} for i, c in enumerate(commands)}
    return {"machine": {"cpus": 2, "cpu": "x", "python": "3.11"}, "sections": sections, "date": "2026-11-30T19:00",
            "command": commands[0], "mode": "full"}


def test_the_work_directory_is_not_part_of_the_shown_command():
    assert _shown_command("python -m benchmarks --write-docs --workdir /tmp/bw --only worst") == \
        "python -m benchmarks --write-docs --only worst"
    assert _shown_command("python -m benchmarks --workdir=/tmp/bw") == "python -m benchmarks"


def test_one_command_is_one_run_not_sections_measured_separately():
    one = _context(_results("python -m benchmarks --write-docs --workdir /a", "python -m benchmarks --write-docs --workdir /a"))
    assert "2026-11-30T19:10 to 2026-11-30T19:11 UTC by `python -m benchmarks --write-docs` (" in one
    assert "separately" not in one and "/a" not in one
    two = _context(_results("python -m benchmarks --write-docs", "python -m benchmarks --only throughput --write-docs"))
    assert "(sections measured separately)" in two and "--only throughput" in two


OLD_BLOCK = """
Measured 2026-11-30T20:29 UTC by `python -m benchmarks --write-docs` (full sizes) on 2 CPUs.

| measurement | hermes-audit | reference | ratio | target |
|---|---|---|---|---|
| pre-commit: `hermes-audit scan` on 5 small files (median of 15) | 125 ms | 42 ms | 2.99x | |
| parity verdicts, 51 MB / 3460 files, 1 core | 1.73 s | 11.72 s | 6.78x faster | |
| worst case: slowest of 163 rules | 44 ms/MB | target 50 ms/MB | 0.87x | 0 of 163 over (met) |
| growth: 5 MB tree, parity / full audit (whole process) | 355 ms / 1.36 s | | 70 / 266 ms per MB |  |

Regenerate with `python -m benchmarks --write-docs`.
"""


def test_a_partial_run_keeps_the_rows_of_the_sections_it_did_not_measure():
    from benchmarks.docs import merge_figures, section_of_row

    results = {"sections": {"real": {}, "worst": {}}}
    table = ("| measurement | hermes-audit | reference | ratio | target |\n|---|---|---|---|---|\n"
             "| real files, 2 MB / 400 documents: parity verdicts, 1 core (in process) | 1 s | 10 s | 10x | met |\n"
             "| worst case: slowest of 165 rules | 19 ms/MB | target 20 ms/MB | 0.95x | met |")
    out = merge_figures(OLD_BLOCK, results, table, "Measured now by `python -m benchmarks --only real,worst`.")
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and not ln.startswith("| measurement")]
    assert [section_of_row(r) for r in rows] == ["precommit", "throughput", "real", "worst", "growth"]
    assert "44 ms/MB" not in out and "19 ms/MB" in out  # the worst-case row is replaced, not kept twice
    assert out.startswith("Measured 2026-11-30T20:29 UTC")  # the kept rows' paragraph stays
    assert "Rows of real, worst: Measured now" in out
    # a second partial run of the same sections replaces their paragraph instead of adding one
    again = merge_figures(out, results, table, "Measured later.")
    assert "Measured now" not in again and again.count("Rows of real, worst:") == 1


def test_a_paragraph_of_sections_measured_again_names_only_the_rows_it_still_describes():
    """Issue 21: a run of ``real`` after one of ``precommit-git, real`` left "Rows of precommit-git, real: ..."
    above the new real rows and their own paragraph."""
    from benchmarks.docs import merge_figures

    old = merge_figures(OLD_BLOCK, {"sections": {"precommit-git": {}, "real": {}}},
                        "| measurement | a | b | c | d |\n|---|---|---|---|---|\n"
                        "| pre-commit in a real `git commit` (x) | 1 | 2 | 3 | |\n"
                        "| real files, 1 MB / 1 documents: parity verdicts | 1 | 2 | 3 | |", "Measured first.")
    assert "Rows of precommit-git, real: Measured first." in old
    out = merge_figures(old, {"sections": {"real": {}}},
                        "| measurement | a | b | c | d |\n|---|---|---|---|---|\n"
                        "| real files, 2 MB / 1 documents: parity verdicts | 1 | 2 | 3 | |", "Measured again.")
    assert "Rows of precommit-git: Measured first." in out and "Rows of real: Measured again." in out
    assert "precommit-git, real" not in out


def test_a_whole_run_replaces_every_row():
    from benchmarks.docs import merge_figures

    results = {"sections": {k: {} for k in ("precommit", "throughput", "worst", "growth")}}
    table = "| measurement | a | b | c | d |\n|---|---|---|---|---|\n| pre-commit: x | 1 | 2 | 3 | |"
    assert merge_figures(OLD_BLOCK, results, table, "Measured now.") == "Measured now.\n\n" + table


def test_an_unknown_section_is_an_error_with_exit_code_2(capsys):
    from benchmarks.run import main

    assert main(["--only", "real,nonsense"]) == 2
    assert "unknown section 'nonsense'" in capsys.readouterr().err


def test_the_real_file_section_without_corpora_says_so_instead_of_failing(tmp_path, monkeypatch):
    from benchmarks import real, run

    monkeypatch.setenv("HERMES_AUDIT_CORPUS", str(tmp_path / "none"))
    monkeypatch.setenv("HERMES_AUDIT_EXTERNAL_CORPUS", str(tmp_path / "none-either"))

    class FakeEnv:
        work = tmp_path

    res = real.bench_real(FakeEnv(), "quick", run)
    assert "no corpus files" in res["error"]
    assert "not measured: no corpus files" in run.table({"sections": {"real": res}})


def test_the_mixed_real_tree_keeps_its_share_of_attack_repositories(tmp_path, monkeypatch):
    from benchmarks import realtree

    benign = tmp_path / "c" / "benign"
    benign.mkdir(parents=True)
    for i in range(6):
        (benign / f"owner__repo{i}__AGENTS.md").write_text("x" * 1000)
    attacks = tmp_path / "e" / "attacks"
    for i in range(3):
        (attacks / f"a{i}").mkdir(parents=True)
        (attacks / f"a{i}" / "CLAUDE.md").write_text("y" * 1000)
    (tmp_path / "e" / "benign").mkdir()
    monkeypatch.setenv("HERMES_AUDIT_CORPUS", str(tmp_path / "c"))
    monkeypatch.setenv("HERMES_AUDIT_EXTERNAL_CORPUS", str(tmp_path / "e"))
    size = realtree.build_mixed(tmp_path / "t", 0.027)  # three copies of the nine repositories
    files = [p.relative_to(tmp_path / "t").as_posix() for p in (tmp_path / "t").rglob("*") if p.is_file()]
    assert size == 27_000 and len(files) == 27
    assert sum(1 for f in files if "/attacks/" in f) == 9
    assert "copy-2/benign/owner__repo0/AGENTS.md" in files


def test_real_sizes_must_be_positive_numbers(capsys):
    from benchmarks.run import main

    assert main(["--only", "real", "--real-mb", "5,x"]) == 2
    assert "--real-mb: expected sizes in MB" in capsys.readouterr().err
    assert main(["--only", "real", "--real-mb", "0"]) == 2
