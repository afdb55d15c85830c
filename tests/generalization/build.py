"""Build the project's independent evaluation set (``tests/generalization/``) from its sources.

``python tests/generalization/build.py`` writes, next to this file:

* ``attacks/gNNN-e/<hermes_name>`` (the payload at a paragraph boundary of an honest carrier) and
  ``attacks/gNNN-b/<hermes_name>`` (the payload alone) for every entry of :data:`payloads.PAYLOADS`;
* ``benign/hNNN__<name>`` for every honest look-alike of :data:`honest.HONEST` (inside a carrier) and every
  carrier alone;
* ``attacks-manifest.tsv`` and ``benign-manifest.tsv`` in the shape ``python -m benchmarks.detection`` reads.

``python tests/generalization/build.py round2`` builds round 2 (``payloads2``, ``honest2``) into ``round2/``;
``python tests/generalization/build.py round3`` builds round 3 (``payloads3``, ``honest3``, with its own carriers
``carriers3``) into ``round3/``; ``build.py round4`` builds round 4 (``payloads4``, ``honest4``, carriers ``carriers3``)
into ``round4/``; ``build.py round5`` builds round 5 (``payloads5``, ``honest5``, carriers ``carriers3``) into
``round5/``; ``build.py round6`` builds round 6 (``payloads6``, ``honest6``, carriers ``carriers3``) into
``round6/``.

Deterministic: running it twice gives the same bytes. The files are committed; rerun after editing a source.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from carriers import CARRIERS  # noqa: E402


def _boundaries(text: str) -> list[int]:
    """Line indexes after which a new paragraph may be inserted (blank lines outside code fences)."""
    out, fenced = [], False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.strip() == "" and i > 1:
            out.append(i)
    return out


def embed(carrier: str, payload: str, n: int) -> tuple[str, int]:
    """``carrier`` with ``payload`` inserted at its ``n``-th paragraph boundary (mod the count); the text and the
    1-based line of the payload."""
    lines = carrier.split("\n")
    b = _boundaries(carrier)
    at = b[n % len(b)]
    new = lines[: at + 1] + payload.split("\n") + [""] + lines[at + 1:]
    return "\n".join(new), at + 2


def manifests(set_dir: Path) -> tuple[list[dict], list[dict]]:
    """The attack and honest rows of a built set's ``attacks-manifest.tsv`` and ``benign-manifest.tsv`` (the tests
    check the committed files against their sources with it)."""
    import csv

    out = []
    for name in ("attacks-manifest.tsv", "benign-manifest.tsv"):
        with (set_dir / name).open(encoding="utf-8", newline="") as fh:
            out.append(list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)))
    return out[0], out[1]


def main(argv: list[str]) -> int:
    """``build.py`` builds round 1 next to this file; ``build.py round2`` / ``round3`` build round 2 / 3 into
    ``round2/`` / ``round3/``."""
    global HERE, CARRIERS
    if argv[1:] == ["round6"]:
        from carriers3 import CARRIERS
        from honest6 import HONEST
        from payloads6 import PAYLOADS
        HERE = HERE / "round6"
    elif argv[1:] == ["round5"]:
        from carriers3 import CARRIERS
        from honest5 import HONEST
        from payloads5 import PAYLOADS
        HERE = HERE / "round5"
    elif argv[1:] == ["round4"]:
        from carriers3 import CARRIERS
        from honest4 import HONEST
        from payloads4 import PAYLOADS
        HERE = HERE / "round4"
    elif argv[1:] == ["round3"]:
        from carriers3 import CARRIERS
        from honest3 import HONEST
        from payloads3 import PAYLOADS
        HERE = HERE / "round3"
    elif argv[1:] == ["round2"]:
        from honest2 import HONEST
        from payloads2 import PAYLOADS
        HERE = HERE / "round2"
    else:
        from honest import HONEST
        from payloads import PAYLOADS
    for d in ("attacks", "benign"):
        shutil.rmtree(HERE / d, ignore_errors=True)
    names = sorted(CARRIERS)
    arows = ["\t".join(("path", "hermes_name", "category", "class", "relevance", "variant", "lang", "payload_no",
                        "carrier", "payload_line"))]
    for no, (cat, lang, text) in enumerate(PAYLOADS, 1):
        klass = cat.split(":")[0]
        cname = names[no % len(names)]
        hname, ctext = CARRIERS[cname]
        for variant, body, line, carrier in (("embedded", *embed(ctext, text, no), cname),
                                              ("bare", text + "\n", 1, "")):
            rel = Path("attacks") / f"g{no:03d}-{variant[0]}" / hname
            (HERE / rel).parent.mkdir(parents=True, exist_ok=True)
            (HERE / rel).write_text(body, encoding="utf-8")
            arows.append("\t".join((rel.as_posix(), hname, cat, klass, "attack", variant, lang, str(no), carrier,
                                    str(line))))
    brows = ["\t".join(("path", "hermes_name", "language", "notes"))]
    (HERE / "benign").mkdir(parents=True)
    for no, (lang, note, text) in enumerate(HONEST, 1):
        cname = names[no % len(names)]
        hname, ctext = CARRIERS[cname]
        body, _ = embed(ctext, text, no)
        rel = Path("benign") / f"h{no:03d}__{hname.replace('/', '__')}"
        (HERE / rel).write_text(body, encoding="utf-8")
        brows.append("\t".join((rel.as_posix(), hname, lang, f"{note} (in {cname})")))
    for cname in names:
        hname, ctext = CARRIERS[cname]
        rel = Path("benign") / f"c-{cname}__{hname.replace('/', '__')}"
        (HERE / rel).write_text(ctext, encoding="utf-8")
        lang = {"notas-es": "es", "hinweise-de": "de", "carteira-pt": "pt", "kumo-ja": "ja"}.get(cname, "en")
        brows.append("\t".join((rel.as_posix(), hname, lang, f"carrier {cname} alone")))
    (HERE / "attacks-manifest.tsv").write_text("\n".join(arows) + "\n", encoding="utf-8")
    (HERE / "benign-manifest.tsv").write_text("\n".join(brows) + "\n", encoding="utf-8")
    print(f"{len(PAYLOADS)} payloads ({2 * len(PAYLOADS)} attack files), {len(HONEST) + len(names)} honest files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
