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
