"""Copy the latest benchmark figures into ``docs/performance.md``.

Only the text between the markers ``<!-- performance-figures:begin -->`` /
``<!-- performance-figures:end -->`` is replaced. The README no longer carries the
figures (issue 22: it links to that page); a README that still has the markers
``<!-- performance:begin -->`` / ``<!-- performance:end -->`` gets them too.
Files are written atomically.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
README = ROOT / "README.md"


def _atomic_write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


def _replace_between(text: str, begin: str, end: str, body: str) -> str:
    i, j = text.find(begin), text.find(end)
    if i == -1 or j == -1 or j < i:
        raise ValueError(f"markers {begin} / {end} not found")
    return text[: i + len(begin)] + "\n" + body.rstrip("\n") + "\n" + text[j:]


def _shown_command(command: str) -> str:
    """``command`` without ``--workdir DIR`` (where the inputs were generated changes no figure)."""
    words = command.split()
    out = [w for i, w in enumerate(words)
           if w != "--workdir" and not (i and words[i - 1] == "--workdir") and not w.startswith("--workdir=")]
    return " ".join(out)


def _context(results: dict) -> str:
    m = results["machine"]
    load = m.get("loadavg_start")
    load_s = f", load average {load[0]:.2f} at the start" if load else ""
    dates = sorted({s.get("measured_at", results["date"])[:16] for s in results["sections"].values()})
    cmds: list[str] = []
    for name, s in results["sections"].items():
        c = _shown_command(s.get("command", results["command"]))
        if c not in cmds:
            cmds.append(c)
    separately = " (sections measured separately)" if len(cmds) > 1 else ""
    when = dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}{separately}"
    by = " and ".join(f"`{c}`" for c in cmds)
    return (f"Measured {when} UTC by {by} ({results['mode']} sizes) on "
            f"{m.get('cpus')} CPUs ({m.get('cpu')}), Python {m.get('python')}{load_s}. "
            f"Every ratio compares two programs measured in the same run; the machine was shared with other "
            f"jobs, which slows the parallel figures most.")


def write_docs(results: dict, table: str) -> None:
    """Update docs/performance.md (and a README with the performance markers) with ``table``
    (see :func:`benchmarks.run.table`)."""
    took = results.get("total_s")
    whole = "--only" not in results.get("command", "") and "--quick" not in results.get("command", "")
    took_s = f"the whole suite took {took / 60:.0f} minutes here; " if took and whole else ""
    regen = f"Regenerate with `python -m benchmarks --write-docs` ({took_s}`--quick` for a smoke run)."
    figures = _context(results) + "\n\n" + table + "\n\n" + regen + "\n"
    if DOC.exists():
        text = DOC.read_text(encoding="utf-8")
        text = _replace_between(text, "<!-- performance-figures:begin -->", "<!-- performance-figures:end -->", figures)
        _atomic_write(DOC, text)
    readme = README.read_text(encoding="utf-8")
    if "<!-- performance:begin -->" in readme:
        body = figures + "Method, design and the memory bound: [docs/performance.md](docs/performance.md).\n"
        _atomic_write(README, _replace_between(readme, "<!-- performance:begin -->", "<!-- performance:end -->", body))
