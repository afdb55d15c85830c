"""A tree of real context files for profiling the full audit (issue 21).

Built from the evaluation corpora (never copied into the project): every benign file of
``$HERMES_AUDIT_CORPUS/benign`` and ``$HERMES_AUDIT_EXTERNAL_CORPUS/benign`` placed at the repository path its
name encodes (``owner__repo__dir__file`` -> ``owner__repo/dir/file``), the whole set repeated under ``copy-N/``
until the tree reaches the wanted size, then attack directories of the external corpus (already laid out as
repositories) until the size is reached.

    python -m benchmarks.realtree /tmp/realtree 5      # about 5 MB
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def _benign(root: Path) -> list[tuple[Path, str]]:
    out = []
    for d in sorted(root.iterdir()) if root.is_dir() else ():
        if d.is_file() and not d.name.endswith((".tsv", "README.md")):
            parts = d.name.split("__")
            rel = "/".join([parts[0] + "__" + parts[1]] + parts[2:]) if len(parts) >= 3 else d.name
            out.append((d, rel))
    return out


def build(dest: Path, megabytes: float) -> int:
    """Write the tree under ``dest`` (created; must not exist) and return its size in bytes."""
    corpus = Path(os.environ.get("HERMES_AUDIT_CORPUS", "/work/shared/corpus"))
    external = Path(os.environ.get("HERMES_AUDIT_EXTERNAL_CORPUS", "/work/shared/corpus-external"))
    benign = _benign(corpus / "benign") + _benign(external / "benign")
    benign_bytes = sum(p.stat().st_size for p, _ in benign)
    target = int(megabytes * 1_000_000)
    dest.mkdir(parents=True)
    total, copy = 0, 0
    while benign and total + benign_bytes <= target:
        for src, rel in benign:
            out = dest / f"copy-{copy}" / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out)
        total += benign_bytes
        copy += 1
    attacks = external / "attacks"
    for d in sorted(attacks.iterdir()) if attacks.is_dir() else ():
        if total >= target:
            break
        size = sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
        shutil.copytree(d, dest / "attacks" / d.name)
        total += size
    return total


if __name__ == "__main__":
    n = build(Path(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 5.0)
    print(f"{n:,} bytes")
