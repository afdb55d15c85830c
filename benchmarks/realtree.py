"""A tree of real context files for profiling the full audit (issue 21).

Built from the evaluation corpora (never copied into the project): every benign file of
``$HERMES_AUDIT_CORPUS/benign`` and ``$HERMES_AUDIT_EXTERNAL_CORPUS/benign`` placed at the repository path its
name encodes (``owner__repo__dir__file`` -> ``owner__repo/dir/file``), the whole set repeated under ``copy-N/``
until the tree reaches the wanted size, then attack directories of the external corpus (already laid out as
repositories) until the size is reached.

    python -m benchmarks.realtree /tmp/realtree 5      # about 5 MB
    python -m benchmarks.realtree --mixed /tmp/realtree 5

:func:`build` is the tree of the matcher study (docs/performance.md, "Matcher"). :func:`build_mixed`, which the
benchmark suite's ``real`` section uses (issue 21), keeps the same share of attack repositories at every size, so
that time per MB at 5, 50 and 500 MB compares like with like.
"""

from __future__ import annotations

import os
import random
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


def _corpora() -> tuple[Path, Path]:
    return (Path(os.environ.get("HERMES_AUDIT_CORPUS", "/work/shared/corpus")),
            Path(os.environ.get("HERMES_AUDIT_EXTERNAL_CORPUS", "/work/shared/corpus-external")))


def units() -> list[list[tuple[Path, str]]]:
    """The corpora as repositories: each a list of ``(source file, path in the tree)``. A benign repository is
    the benign files of one ``owner__repo``; an attack repository one directory of the external corpus's
    ``attacks/``. Raises nothing; empty when neither corpus is there."""
    corpus, external = _corpora()
    groups: dict[str, list[tuple[Path, str]]] = {}
    for src, rel in _benign(corpus / "benign") + _benign(external / "benign"):
        groups.setdefault("benign/" + rel.split("/", 1)[0], []).append((src, "benign/" + rel))
    attacks = external / "attacks"
    for d in sorted(attacks.iterdir()) if attacks.is_dir() else ():
        if d.is_dir():
            groups["attacks/" + d.name] = [(f, "attacks/" + d.name + "/" + f.relative_to(d).as_posix())
                                           for f in sorted(d.rglob("*")) if f.is_file() and not f.is_symlink()]
    return [groups[k] for k in sorted(groups) if groups[k]]


def build_mixed(dest: Path, megabytes: float, seed: int = 21) -> int:
    """Write a tree of about ``megabytes`` MB (10^6 bytes) of real files under ``dest`` (created; must not exist)
    and return its size in bytes.

    Every repository of :func:`units` (benign and attack ones together) in one shuffled order (fixed ``seed``) is
    copied under ``copy-0/``, ``copy-1/``, ... until the next repository would pass the size; so a 5 MB tree and
    a 500 MB one hold benign and attack files in about the same proportion. Raises ``FileExistsError`` when
    ``dest`` exists, ``ValueError`` when no corpus file is found."""
    order = units()
    if not order:
        raise ValueError("no corpus files: set HERMES_AUDIT_CORPUS / HERMES_AUDIT_EXTERNAL_CORPUS")
    random.Random(seed).shuffle(order)
    sizes = [sum(src.stat().st_size for src, _ in u) for u in order]
    target = int(megabytes * 1_000_000)
    dest.mkdir(parents=True)
    total, copy = 0, 0
    while True:
        for unit, n in zip(order, sizes):
            if total + n > target and total > 0:
                return total
            for src, rel in unit:
                out = dest / f"copy-{copy}" / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out)
            total += n
        copy += 1


if __name__ == "__main__":
    args = sys.argv[1:]
    mixed = bool(args) and args[0] == "--mixed"
    if mixed:
        args = args[1:]
    n = (build_mixed if mixed else build)(Path(args[0]), float(args[1]) if len(args) > 1 else 5.0)
    print(f"{n:,} bytes")
