"""The scan command's baseline options: ``--baseline``, ``--write-baseline`` (and ``--no-suppressions``).

Kept apart from ``scan_cmd`` so the command stays a list of options. Errors are
:class:`~hermes_audit.cli.common.CliError` (one line, exit 2).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from hermes_audit.cli.common import CliError, echo_err, write_output


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


def _named_inside(path: Path, root: Path) -> bool:
    """True when ``path`` as written (no link resolved) lies below ``root``."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.beneath import is_below

    a = os.path.abspath(path)
    return is_below(os.path.dirname(a), os.path.abspath(root)) or is_below(os.path.dirname(a), os.path.realpath(root))


def prepare_baseline(opts, baseline: Optional[Path], write_to: Optional[Path], no_suppressions: bool,
                     root: Path) -> list[str]:
    """Set ``opts.baseline`` from ``--baseline`` and check ``--write-baseline``'s target.

    In the auditor's mode (``--no-suppressions``) a baseline inside the scanned
    repository ``root`` is ignored (a hostile repository could ship one that
    hides its findings); the returned notes say so. ``--write-baseline`` refuses
    to replace an existing file that is not a hermes-audit baseline.
    """
    notes: list[str] = []
    if baseline is None and write_to is None:
        return notes  # issue 8: a plain scan does not import the baseline module
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.audits.baseline import BaselineError, load_baseline

    if baseline is not None:
        if no_suppressions and _inside(baseline, root):
            notes.append(f"--no-suppressions: baseline {baseline} is inside the scanned repository and was not used")
        else:
            opts.baseline = baseline
    if write_to is not None:
        target = Path(write_to)
        if target.is_dir():
            raise CliError(f"--write-baseline {write_to}: is a directory")
        if target.exists() or target.is_symlink():
            try:
                load_baseline(target)
            except BaselineError as exc:
                raise CliError(f"--write-baseline: {exc}; refusing to replace it") from None
    return notes


def finish_baseline(result, write_to: Optional[Path]) -> None:
    """For ``--write-baseline``: write the baseline of ``result`` atomically, then mark
    its findings as accepted so the report and exit code show the new state. The line saying
    what was written (``hermes-audit: wrote N findings to baseline FILE``) goes to stderr, once;
    it is not added to the report's notes."""
    if write_to is None:
        return
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.audits.baseline import Baseline, apply_baseline, build_baseline, dump_baseline, load_baseline

    target = Path(write_to)
    previous: Optional[Baseline] = None
    if target.is_file():
        previous = load_baseline(target)
    if result.options.baseline is not None and Path(result.options.baseline).is_file():
        older = load_baseline(Path(result.options.baseline))
        previous = Baseline([*older.entries, *(previous.entries if previous else [])])
    new = build_baseline(result, previous)
    stale = {s.message() for s in result.baseline_stale}
    if stale:
        result.notes[:] = [n for n in result.notes if n not in stale]
        result.baseline_stale.clear()
    # issue 18, item 7: a baseline inside the repository is written below it, never through a link out of it
    repo = result.options.identity_root()
    write_output(dump_baseline(new), target, root=repo if _named_inside(target, repo) else None)
    apply_baseline(result, new)
    n = len(new.entries)
    msg = f"wrote {n} finding{'s' if n != 1 else ''} to baseline {target}"
    if stale:
        msg += f" ({len(stale)} stale entr{'ies' if len(stale) != 1 else 'y'} dropped)"
    # once, on stderr only: the report (on stdout or in -o FILE, in any format) describes the scan, and a
    # JSON or SARIF consumer gets no note about hermes-audit's own bookkeeping
    echo_err(f"hermes-audit: {msg}")
