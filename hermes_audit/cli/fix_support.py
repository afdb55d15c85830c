"""``scan --fix`` / ``--diff`` / ``--fix-hermes-blocking``: the CLI side of :mod:`hermes_audit.audits.fix`.

* ``--diff`` prints a unified diff of what ``--fix`` would change (invisible
  characters written as ``<U+XXXX>``) and writes nothing; exit code 1 when
  there is something to fix, 0 when not, 2 on a usage error.
* ``--fix`` writes the fixes (atomically), says on stderr what it removed, scans
  again and reports what is left, with the usual exit codes.
* ``--fix-hermes-blocking`` adds the legitimate invisible characters that the
  chosen Hermes version still blocks a file for; it needs ``--fix`` or ``--diff``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import click

from hermes_audit.cli.common import EXIT_CLEAN, EXIT_FINDINGS, CliError, log_safe
from hermes_audit.cli.common import one_line


def run_fix(result, targets: Sequence[Path], opts, fix: bool, hermes_blocking: bool, diff: bool):
    """Fix (or diff) the files of ``result``; returns the result of a new scan after fixing.

    With ``diff`` the process exits here (nothing is written). Raises
    :class:`CliError` for a usage error.
    """
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.patterns.catalog import load_catalog
    from hermes_audit.audits.fix import FixError, plan_for_document, unified_diff, write_plan
    from hermes_audit.hermes.profiles import get_profile
    from hermes_audit.audits.scan import run_scan

    if hermes_blocking and not (fix or diff):
        raise CliError("--fix-hermes-blocking needs --fix or --diff")
    invisible, keep_bom = None, True
    if hermes_blocking:
        # the profile names its scanner's catalog (0.18 uses 0.19's; 0.15-0.17 their own) and whether Hermes
        # scans a leading BOM as text (0.15.0-0.18.2 block a file for it)
        profile = get_profile(result.hermes_version)
        invisible = load_catalog(opts.rules_dir).parity.versions[profile.scanner].invisible_chars
        keep_bom = profile.strip_bom_before_scan
    plans = []
    for fr in result.files:
        plan = plan_for_document(fr.document, invisible, keep_bom)
        if plan is not None and plan.changed:
            plans.append(plan)
    if diff:
        click.echo(log_safe("".join(unified_diff(p) for p in plans)), nl=False)
        n = sum(p.removed_chars for p in plans)
        click.echo(log_safe(f"hermes-audit: {n} character(s) in {len(plans)} file(s) would be fixed (nothing written)"), err=True)
        sys.exit(EXIT_FINDINGS if plans else EXIT_CLEAN)
    failed = 0
    for plan in plans:
        try:
            write_plan(plan)
        except FixError as exc:
            failed += 1
            click.echo(log_safe(f"hermes-audit: not fixed: {exc}"), err=True)  # FixError messages escape the path
            continue
        reasons = sorted({e.reason for e in plan.edits})

        click.echo(f"hermes-audit: fixed {one_line(plan.path)}: removed {plan.removed_chars} character(s) ({', '.join(reasons)})",
                   err=True)
    if not plans:
        click.echo(log_safe("hermes-audit: nothing to fix"), err=True)
        return _note_hermes_blocking(result, hermes_blocking)
    try:
        again = run_scan(targets, opts)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if failed:
        again.notes.append(f"{failed} file(s) could not be fixed (see the messages above)")
    return _note_hermes_blocking(again, hermes_blocking)


def _note_hermes_blocking(result, hermes_blocking: bool):
    """After ``--fix`` without ``--fix-hermes-blocking``: a note naming that option when Hermes still blocks a
    file for an invisible character (HP100: a legitimate one, e.g. a zero-width joiner in an emoji, which
    ``--fix`` alone keeps). Returns ``result``."""
    if hermes_blocking:
        return result
    paths = sorted({f.path for f in result.findings if f.rule_id == "HP100" and f.suppressed is None})
    if paths:
        which = paths[0] if len(paths) == 1 else f"{paths[0]} and {len(paths) - 1} more"
        result.notes.append(f"Hermes still blocks {which} for invisible characters --fix keeps because they may "
                            "carry meaning (e.g. a zero-width joiner inside an emoji); add --fix-hermes-blocking to "
                            "remove them too")
    return result
