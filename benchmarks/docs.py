"""Copy the latest benchmark figures into ``docs/performance.md``.

Only the text between the markers ``<!-- performance-figures:begin -->`` /
``<!-- performance-figures:end -->`` is replaced. The README no longer carries the
figures (issue 22: it links to that page); a README that still has the markers
``<!-- performance:begin -->`` / ``<!-- performance:end -->`` gets them too.
Files are written atomically.

A run that measured only some sections (``--only real,precommit-git``) replaces only their rows: the
page's rows of the other sections stay (each row's section is told by how its first cell opens, see
:func:`section_of_row`), with the paragraph that says how they were measured, and a paragraph for the
new rows is added ("Rows of real, precommit-git: measured ...").
"""

from __future__ import annotations

import os
import re
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


#: How the first cell of a table row opens -> its section (:func:`benchmarks.run.table`); first match wins.
ROW_SECTIONS = (
    ("pre-commit in", "precommit-git"),
    ("pre-commit", "precommit"),
    ("real files", "real"),
    ("parity verdicts", "throughput"),
    ("identical verdicts", "throughput"),
    ("full audit", "throughput"),
    ("whole `hermes-audit scan` process", "throughput"),
    ("`rg", "throughput"),
    ("discovery", "monorepo"),
    ("whole `hermes-audit scan --select hermes-parity` on that repo", "monorepo"),
    ("worst case", "worst"),
    ("peak rss", "memory"),
    ("growth", "growth"),
)


def section_of_row(row: str) -> str:
    """The section of a figures-table row (``| first cell | ...``), ``""`` when none is recognised."""
    cell = row.strip().lstrip("|").split("|", 1)[0].strip().lower()
    return next((sec for prefix, sec in ROW_SECTIONS if cell.startswith(prefix.lower())), "")


_ROWS_OF = re.compile(r"^Rows of ([a-z,\- ]+): ")


def merge_figures(old: str, results: dict, table: str, context: str) -> str:
    """The figures block: ``table``'s rows, and the rows of ``old`` (the block on the page) whose sections this run
    did not measure, in the table's section order; the context paragraphs of the rows kept, then ``context``."""
    from benchmarks.run import SECTIONS

    measured = set(results["sections"])
    new_lines = table.splitlines()
    header, new_rows = new_lines[:2], [ln for ln in new_lines[2:] if ln.startswith("|")]
    old_rows = [ln for ln in old.splitlines() if ln.startswith("| ") and not ln.startswith("| measurement |")]
    kept = [ln for ln in old_rows if section_of_row(ln) and section_of_row(ln) not in measured]
    if not kept:
        return context + "\n\n" + table
    kept_secs = {section_of_row(ln) for ln in kept}
    paras = []
    for para in old.split("\n\n"):
        p = para.strip()
        if not p or p.startswith("|") or p.startswith("Regenerate with"):
            continue
        m = _ROWS_OF.match(p)
        secs = [x.strip() for x in m.group(1).split(",")] if m else None
        if secs is None:
            paras.append(p)
        elif set(secs) & kept_secs:
            # a paragraph of several sections, some measured again now: it names only the rows it still describes
            paras.append(f"Rows of {', '.join(x for x in secs if x in kept_secs)}: {p[m.end():]}")
    order = {sec: i for i, sec in enumerate(SECTIONS)}
    rows = sorted(kept + new_rows, key=lambda ln: order.get(section_of_row(ln), len(order)))
    mine = ", ".join(s for s in SECTIONS if s in measured)
    return "\n\n".join(paras + [f"Rows of {mine}: {context}", "\n".join(header + rows)])


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
        begin, end = "<!-- performance-figures:begin -->", "<!-- performance-figures:end -->"
        i, j = text.find(begin), text.find(end)
        old = text[i + len(begin):j] if 0 <= i < j else ""
        body = merge_figures(old, results, table, _context(results)) + "\n\n" + regen + "\n"
        text = _replace_between(text, begin, end, body)
        _atomic_write(DOC, text)
    readme = README.read_text(encoding="utf-8")
    if "<!-- performance:begin -->" in readme:
        body = figures + "Method, design and the memory bound: [docs/performance.md](docs/performance.md).\n"
        _atomic_write(README, _replace_between(readme, "<!-- performance:begin -->", "<!-- performance:end -->", body))
