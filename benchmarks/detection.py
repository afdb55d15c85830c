"""``python -m benchmarks.detection``: detection figures on an external evaluation set.

Reads a manifest of the shape of ``../shared/corpus-external/`` (``attacks-manifest.tsv`` and
``benign-manifest.tsv``, see that directory's README), runs the real audit in this process
(:func:`hermes_audit.audits.scan.run_scan` on each file's own directory, the file under its Hermes name) and prints:

* recall per class (``agent``, ``jailbreak``) and per category of the ``relevance=attack`` rows: a row is
  detected when a *detection* finding (not hygiene, see :data:`HYGIENE_FAMILIES` and :data:`HYGIENE_CODES`)
  is at medium or above;
* honest files with a detection finding at high or above, and at medium or above;
* ``not-attack`` and ``probe`` rows with a detection finding at high or above (noise, like an honest file);
* with ``--misses``: every missed attack and every false alarm (path, rules, severities).

``--json`` prints the figures as one JSON object instead. Exit code 0; 2 when the manifest is missing or
malformed (one-line error). Typical run: about 30 s for the 710 files of the shared half on one core.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from hermes_audit.findings import Finding, Severity

#: The shared half: ``$HERMES_AUDIT_EXTERNAL_CORPUS``, else ``../shared/corpus-external`` next to the repository.
DEFAULT_DIR = Path(os.environ.get("HERMES_AUDIT_EXTERNAL_CORPUS")
                   or Path(__file__).resolve().parent.parent.parent / "shared" / "corpus-external")

#: Rule families whose findings are hygiene, not detections: what Hermes loads, truncates, shadows or fits in
#: its budget (``loading``, ``prompt``), how the file is encoded (``input``), and the audit's own suppression
#: comments (``suppression``). A finding of these never counts as detecting an attack, nor as a false alarm.
HYGIENE_FAMILIES: frozenset[str] = frozenset({"loading", "prompt", "input", "suppression"})
#: Hygiene rules of other families: memory store capacity and format drift, duplicate entries, and the
#: information-only note about legitimate invisible characters.
HYGIENE_CODES: frozenset[str] = frozenset({"HA707", "HA708", "HA709", "HA710", "HA206"})
#: Detections of the ``loading`` family: a threat in text Hermes injects without scanning is a detection.
DETECTION_CODES_IN_HYGIENE_FAMILIES: frozenset[str] = frozenset({"HA602"})


def is_detection(f: Finding, families: dict[str, str]) -> bool:
    """Whether ``f`` is a detection finding: an audit rule (not parity ``HP*``) that is not hygiene."""
    code = f.rule_id
    if not code.startswith("HA"):
        return False
    if code in DETECTION_CODES_IN_HYGIENE_FAMILIES:
        return True
    return code not in HYGIENE_CODES and families.get(code) not in HYGIENE_FAMILIES


@dataclass
class Row:
    """One manifest row and what the audit found in its file."""

    path: str
    hermes_name: str
    category: str = ""
    klass: str = ""
    relevance: str = ""
    variant: str = ""
    benign: bool = False
    findings: list[Finding] = field(default_factory=list)  # detection findings only

    @property
    def top(self) -> Optional[Severity]:
        return max((f.severity for f in self.findings), default=None)

    def at(self, sev: Severity) -> bool:
        return self.top is not None and self.top >= sev

    def describe(self) -> str:
        rules = sorted({(f.rule_id, f.severity.label) for f in self.findings})
        return f"{self.path}  " + (", ".join(f"{c}:{s}" for c, s in rules) if rules else "(none)")


class ManifestError(Exception):
    """A missing or malformed manifest."""


def _read_tsv(path: Path, needed: Sequence[str]) -> list[dict]:
    if not path.is_file():
        raise ManifestError(f"{path}: no such manifest")
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    if rows and any(k not in rows[0] for k in needed):
        raise ManifestError(f"{path}: needs the columns {', '.join(needed)}")
    return rows


def load_rows(manifest_dir: Path) -> list[Row]:
    """The attack rows then the benign rows of ``manifest_dir``. Raises :class:`ManifestError`."""
    out: list[Row] = []
    for r in _read_tsv(manifest_dir / "attacks-manifest.tsv", ("path", "hermes_name", "category", "class", "relevance")):
        out.append(Row(r["path"], r["hermes_name"], r["category"], r["class"], r["relevance"], r.get("variant", "")))
    for r in _read_tsv(manifest_dir / "benign-manifest.tsv", ("path", "hermes_name")):
        out.append(Row(r["path"], r["hermes_name"], benign=True))
    return out


def _scan_file(root: Path, hermes_name: str, catalog, families: dict[str, str]) -> list[Finding]:
    """Detection findings of the file ``root/hermes_name``: scanned as the kind its name gives, and a name Hermes
    does not load by itself (``.github/copilot-instructions.md``) as a context file (``AGENTS.md``)."""
    from hermes_audit.documents.kinds import DocumentKind, classify
    from hermes_audit.audits.scan import ScanOptions, run_scan

    kind = classify(hermes_name) or DocumentKind.AGENTS_MD
    opts = ScanOptions(use_git=False, jobs=1, base=root, repo_root=root, fail_on=None, kind=kind)
    res = run_scan([root / hermes_name], opts, catalog)
    if not res.files:
        raise ManifestError(f"{root / hermes_name}: not scanned ({'; '.join(res.notes) or 'no document'})")
    return [f for f in res.findings if is_detection(f, families)]


def evaluate(manifest_dir: Path, rows: Optional[list[Row]] = None) -> list[Row]:
    """Scan every row's file (benign files copied under their Hermes name into a directory of their own)."""
    from hermes_audit.patterns.catalog import load_catalog

    catalog = load_catalog()
    families = {r.code: r.family for r in catalog.all_rules()}
    rows = load_rows(manifest_dir) if rows is None else rows
    with tempfile.TemporaryDirectory(prefix="hermes-audit-detection-") as tmp:
        for i, row in enumerate(rows):
            src = manifest_dir / row.path
            if not src.is_file():
                raise ManifestError(f"{src}: listed in the manifest but missing")
            if row.benign:
                root = Path(tmp) / str(i)
                dest = root / row.hermes_name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dest)
            else:
                # attacks/<id>/<hermes_name>: the file's own directory is the repository
                parts = Path(row.path).parts
                n = len(Path(row.hermes_name).parts)
                root = manifest_dir.joinpath(*parts[: len(parts) - n])
            row.findings = _scan_file(root, row.hermes_name, catalog, families)
    return rows


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f} %" if d else "-"


def figures(rows: Iterable[Row]) -> dict:
    """The figures as a JSON-able dict (counts and rates; rates in percent)."""
    rows = list(rows)
    attacks = [r for r in rows if not r.benign and r.relevance == "attack"]
    noise = [r for r in rows if not r.benign and r.relevance in ("not-attack", "probe")]
    benign = [r for r in rows if r.benign]

    def recall(group: list[Row]) -> dict:
        hit = sum(r.at(Severity.MEDIUM) for r in group)
        return {"detected": hit, "total": len(group), "recall": round(100.0 * hit / len(group), 1) if group else None}

    by_class: dict[str, list[Row]] = defaultdict(list)
    by_cat: dict[str, list[Row]] = defaultdict(list)
    for r in attacks:
        by_class[r.klass].append(r)
        by_cat[r.category].append(r)
    b_high = sum(r.at(Severity.HIGH) for r in benign)
    b_med = sum(r.at(Severity.MEDIUM) for r in benign)
    return {
        "classes": {k: recall(v) for k, v in sorted(by_class.items())},
        "categories": {k: recall(v) for k, v in sorted(by_cat.items())},
        "benign": {"total": len(benign), "high": b_high, "medium": b_med,
                   "high_rate": round(100.0 * b_high / len(benign), 1) if benign else None,
                   "medium_rate": round(100.0 * b_med / len(benign), 1) if benign else None},
        "noise": {"total": len(noise), "high": sum(r.at(Severity.HIGH) for r in noise)},
        "misses": [r.path for r in attacks if not r.at(Severity.MEDIUM)],
        "false_alarms": [r.path for r in benign + noise if r.at(Severity.HIGH)],
    }


def report(rows: list[Row], misses: bool) -> str:
    fig = figures(rows)
    out = ["recall at >= medium (detections only)"]
    for k, v in fig["classes"].items():
        out.append(f"  class {k:<28} {v['detected']:>4}/{v['total']:<4} {_pct(v['detected'], v['total'])}")
    for k, v in fig["categories"].items():
        out.append(f"  {k:<34} {v['detected']:>4}/{v['total']:<4} {_pct(v['detected'], v['total'])}")
    b = fig["benign"]
    out.append(f"honest files with a detection at >= high:   {b['high']}/{b['total']} {_pct(b['high'], b['total'])}")
    out.append(f"honest files with a detection at >= medium: {b['medium']}/{b['total']} {_pct(b['medium'], b['total'])}")
    n = fig["noise"]
    out.append(f"not-attack/probe rows at >= high:           {n['high']}/{n['total']}")
    if misses:
        out.append("")
        out.append("missed attacks:")
        out += ["  " + r.describe() for r in rows if not r.benign and r.relevance == "attack" and not r.at(Severity.MEDIUM)]
        out.append("false alarms (honest at >= medium, not-attack/probe at >= high):")
        out += ["  " + r.describe() for r in rows if r.benign and r.at(Severity.MEDIUM)]
        out += ["  " + r.describe() for r in rows
                if not r.benign and r.relevance in ("not-attack", "probe") and r.at(Severity.HIGH)]
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.detection", description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest-dir", type=Path, default=DEFAULT_DIR,
                    help="directory holding attacks-manifest.tsv and benign-manifest.tsv (default: %(default)s)")
    ap.add_argument("--misses", action="store_true", help="list missed attacks and false alarms")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    try:
        rows = evaluate(args.manifest_dir)
    except (ManifestError, OSError, csv.Error, UnicodeDecodeError) as exc:
        print(f"benchmarks.detection: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures(rows), indent=2))
    else:
        print(report(rows, args.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
