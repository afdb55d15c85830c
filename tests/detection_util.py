"""Measuring detection: audit findings per corpus or held-out file, seam pairs, confusion tables.

Used by tests/test_detection.py (the evaluation corpus) and
tests/test_detection_heldout.py (tests/heldout/cases.yaml).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from hermes_audit.documents.document import Document
from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.audits.detectors import AuditEngine as Engine
from hermes_audit.findings import Finding, Severity

#: Which audit rule codes answer which expected kind of the corpus manifest.
KIND_RULES: dict[str, tuple[str, ...]] = {
    # any injected instruction to the agent answers "prompt_injection" (the manifest's generic label)
    "prompt_injection": ("HA101", "HA102", "HA103", "HA104", "HA105", "HA106", "HA111", "HA112", "HA113", "HA114",
                         "HA301", "HA303", "HA304", "HA502", "HA506", "HA507"),
    "role_hijack": ("HA103", "HA113"),
    "deception": ("HA102", "HA112"),
    "invisible_unicode": ("HA201", "HA202", "HA203", "HA204", "HA205", "HA207"),
    "hidden_html": ("HA301", "HA302", "HA303", "HA304", "HA305"),
    "exfil": ("HA401", "HA402", "HA403", "HA405", "HA507"),
    "secret_read": ("HA402", "HA401"),
    "ssh_backdoor": ("HA503",),
    "exec_script": ("HA501", "HA502", "HA505", "HA506", "HA507"),
    "obfuscation": ("HA306", "HA505", "HA207", "HA201", "HA202", "HA203"),
    "c2_promptware": ("HA507",),
    "url_in_memory": ("HA403", "HA405", "HA201"),
    "destructive": ("HA502",),
}

_SEAM_KEY = re.compile(r"^(.*?)-[ab](?:__|\.mdc$)")


@dataclass
class Outcome:
    """Audit findings for one file (its own plus any seam findings that involve it)."""

    rel: str
    label: str
    findings: list[Finding] = field(default_factory=list)
    expected_kinds: list[str] = field(default_factory=list)

    @property
    def top(self) -> Optional[Severity]:
        return max((f.severity for f in self.findings), default=None)

    @property
    def detected(self) -> bool:
        return self.top is not None and self.top >= Severity.MEDIUM

    @property
    def false_positive(self) -> bool:
        return self.top is not None and self.top >= Severity.HIGH

    def kinds_found(self) -> set[str]:
        codes = {f.rule_id for f in self.findings if f.severity >= Severity.MEDIUM}
        return {k for k in self.expected_kinds if any(c in codes for c in KIND_RULES.get(k, ()))}


def audit_findings(engine: Engine, text: str, path: str, kind: DocumentKind) -> list[Finding]:
    """Audit findings (no parity) for ``text`` scanned as ``kind``."""
    return engine.run(Document.from_text(text, path, kind)).findings


def seam_key(rel: str) -> Optional[str]:
    """The pair key of a seam-split corpus file (``recon__seam-split`` / ``lexus-395``), or ``None``."""
    name = rel.rsplit("/", 1)[-1]
    if not name.endswith(".mdc"):
        return None
    m = _SEAM_KEY.match(name)
    return m.group(1) if m else None


def seam_findings_for(engine: Engine, files: list[Path], workdir: Path, version: str) -> dict[str, list[Finding]]:
    """Lay ``files`` out as ``<workdir>/.cursor/rules/<name>`` and return seam findings by source file name."""
    from hermes_audit.documents.kinds import DocumentKind as K
    from hermes_audit.engine.seams import seam_findings
    from hermes_audit.hermes.profiles import get_profile

    rules = workdir / ".cursor" / "rules"
    rules.mkdir(parents=True, exist_ok=True)
    items = []
    names: dict[str, str] = {}
    for f in files:
        dest = rules / f.name.rsplit("__", 1)[-1] if "__" in f.name else rules / f.name
        shutil.copyfile(f, dest)
        names[dest.name] = f.name
        doc = Document.from_path(dest, f".cursor/rules/{dest.name}", K.CURSOR_RULE, workdir.resolve(), 1 << 24)
        items.append((doc, None))
    found, _, errors = seam_findings(items, engine, get_profile(version))
    assert not errors, errors
    out: dict[str, list[Finding]] = {}
    for f in found:
        involved = [f.path] + [r.path for r in f.related]
        for p in involved:
            out.setdefault(names[p.rsplit("/", 1)[-1]], []).append(f)
    return out


def confusion_table(title: str, outcomes: Iterable[Outcome], attack_label: str = "malicious") -> tuple[str, dict]:
    """A printable confusion table and its numbers (recall and false positives)."""
    outs = list(outcomes)
    mal = [o for o in outs if o.label == attack_label]
    ben = [o for o in outs if o.label != attack_label]
    tp = sum(o.detected for o in mal)
    fn = len(mal) - tp
    fp = sum(o.false_positive for o in ben)
    tn = len(ben) - fp
    nums = {"attacks": len(mal), "detected": tp, "missed": fn, "honest": len(ben), "false_positives": fp,
            "recall": tp / len(mal) if mal else 1.0, "fp_rate": fp / len(ben) if ben else 0.0}
    lines = [
        f"{title}",
        f"                     flagged (>= medium / >= high)   not flagged",
        f"  attack ({len(mal):3d})        {tp:5d}                          {fn:5d}",
        f"  honest ({len(ben):3d})        {fp:5d}                          {tn:5d}",
        f"  recall {nums['recall']:.1%}   false positives {fp} ({nums['fp_rate']:.1%})",
    ]
    for o in mal:
        if not o.detected:
            lines.append(f"  MISSED  {o.rel}")
    for o in ben:
        if o.false_positive:
            lines.append(f"  FALSE+  {o.rel}: " + ", ".join(sorted({f'{f.rule_id}:{f.severity.label}' for f in o.findings
                                                                      if f.severity >= Severity.HIGH})))
    return "\n".join(lines), nums
