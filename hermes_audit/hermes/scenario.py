"""Scenario documents: a small tree written as text, simulated in memory (rule examples, tests).

The loading rules' catalog examples are scenarios (format in ``docs/context-and-hints.md``);
:func:`hermes_audit.audits.detectors.scenario_issues` runs the session-start model of :mod:`hermes_audit.hermes.context` (and, with
the ``hints`` option, :mod:`hermes_audit.hermes.hints`) on one. :mod:`hermes_audit.hermes.prompt` reads
its own scenarios with :func:`split_scenario`. Kept out of :mod:`hermes_audit.hermes.context` so a scan
of real files does not build these classes (issue 8: start-up). Nothing is read from or written to disk.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Optional

from hermes_audit.hermes.context import MemoryFS
from hermes_audit.hermes.profiles import get_profile
from hermes_audit.hermes.truncation import MISSING, CapResolution, resolve_cap

#: First line of a scenario document.
SCENARIO_MAGIC = "#hermes-audit-scenario"
SCENARIO_ROOT = "/scenario"
#: Largest ``fill=N`` honoured in a scenario (characters).
SCENARIO_MAX_FILL = 2_000_000
_FILLER = "Filler line of an oversized context file.\n"


@dataclass
class Scenario:
    """A parsed scenario: a tree in memory, the session directory and the options.

    Format (documented in ``docs/context-and-hints.md``): the first line is
    ``#hermes-audit-scenario`` followed by options (``version=0.19|latest``,
    ``cap=N``, ``context-length=N``, ``cwd=DIR``, ``git``, ``hints``); then each
    file starts with a line ``=== PATH`` plus options (``fifo``, ``dir``,
    ``link=TARGET``, ``fill=N`` to put N characters of filler before the body,
    ``utf16`` to store the body as UTF-16, ``bom`` to prefix a UTF-8 BOM) and its
    body runs to the next ``===`` line.
    """

    fs: MemoryFS
    version: str
    cwd: str
    cap: CapResolution
    hints: bool
    headers: dict[str, tuple[int, int]]
    header_span: tuple[int, int]


@dataclass
class ScenarioFile:
    """One ``=== PATH options`` section of a scenario: the path as written, its options, its body and
    the span of its ``===`` line in the scenario text."""

    rel: str
    options: dict[str, str]
    body: str
    header: tuple[int, int]


def split_scenario(text: str, magic: str) -> tuple[dict[str, str], list[ScenarioFile], tuple[int, int]]:
    """The parts of a scenario document (this module's and :mod:`hermes_audit.hermes.prompt`'s):
    the first line's options, the file sections, and the first line's span. Raises ``ValueError``."""
    lines = text.split("\n")
    if not lines or not lines[0].startswith(magic):
        raise ValueError("not a scenario")
    opts = {k: v for k, _, v in (tok.partition("=") for tok in lines[0][len(magic):].split())}
    files: list[ScenarioFile] = []
    cur: Optional[tuple[str, dict[str, str], tuple[int, int]]] = None
    body: list[str] = []
    pos = len(lines[0]) + 1
    for line in lines[1:]:
        if line.startswith("=== "):
            if cur is not None:
                files.append(ScenarioFile(cur[0], cur[1], "\n".join(body), cur[2]))
            parts = line[4:].split()
            if not parts:
                raise ValueError("'===' needs a path")
            cur = (parts[0], {k: v for k, _, v in (tok.partition("=") for tok in parts[1:])}, (pos, pos + len(line)))
            body = []
        elif cur is not None:
            body.append(line)
        pos += len(line) + 1
    if cur is not None:
        files.append(ScenarioFile(cur[0], cur[1], "\n".join(body), cur[2]))
    return opts, files, (0, len(lines[0]))


def scenario_fill(options: dict[str, str], content: str) -> str:
    """``content`` with the ``fill=N`` filler (bounded by :data:`SCENARIO_MAX_FILL`) in front of it."""
    if "fill" not in options:
        return content
    n = max(0, min(int(options["fill"]), SCENARIO_MAX_FILL))  # bounded: a scenario may come from any file
    return (_FILLER * (n // len(_FILLER) + 1))[:n] + content


def parse_scenario(text: str) -> Scenario:
    """Parse a scenario document. Raises ``ValueError`` for a malformed one."""
    opts, files, first = split_scenario(text, SCENARIO_MAGIC)
    fs = MemoryFS()
    fs.add_dir(SCENARIO_ROOT)
    if "git" in opts:
        fs.add_dir(SCENARIO_ROOT + "/.git")
    headers: dict[str, tuple[int, int]] = {}
    for f in files:
        path = posixpath.normpath(posixpath.join(SCENARIO_ROOT, f.rel))
        headers[path] = f.header
        fo = f.options
        if "dir" in fo:
            fs.add_dir(path)
        elif "fifo" in fo:
            fs.add_fifo(path)
        elif "link" in fo:
            fs.add_link(path, fo["link"])
        else:
            content = scenario_fill(fo, f.body)
            data = content.encode("utf-16") if "utf16" in fo else content.encode("utf-8")
            if "bom" in fo:
                data = b"\xef\xbb\xbf" + data
            fs.add_file(path, data)
    version = opts.get("version", "latest")
    cl = int(opts["context-length"]) if opts.get("context-length") else None
    cap = resolve_cap(int(opts["cap"]) if opts.get("cap") else MISSING, cl, "scenario",
                      dynamic=get_profile(version).context_cap_dynamic)
    cwd = posixpath.normpath(posixpath.join(SCENARIO_ROOT, opts.get("cwd", ".")))
    fs.add_dir(cwd)
    return Scenario(fs, version, cwd, cap, "hints" in opts, headers, first)

