"""Reference timing: hermes-agent 0.19.0's own ``scan_for_threats``, run in the oracle's environment.

This script runs under the oracle's interpreter (``tests/oracle.py``
``ensure_oracle()``), never in hermes-audit's. It reads a JSON request on stdin:
``{"list": "<file with one path per line>", "scope": "context", "repeat": 3,
"mode": "scan"}`` and writes JSON on stdout: the best wall time of ``repeat``
passes over all texts (``seconds``), the characters and files scanned, and each
file's pattern ids (invisible ids sorted, since Hermes lists them in set order).

Files are read once, before timing, with ``encoding="utf-8"`` as Hermes does;
only the scanning is timed. ``mode: "import"`` instead times the import of
``tools.threat_patterns`` (start-up cost).
"""

import json
import sys
import time


def main() -> None:
    req = json.load(sys.stdin)
    if req.get("mode") == "import":
        t0 = time.perf_counter()
        import tools.threat_patterns  # noqa: F401  (the import is what is timed)

        json.dump({"seconds": time.perf_counter() - t0}, sys.stdout)
        return
    from tools.threat_patterns import scan_for_threats

    scope = req.get("scope", "context")
    with open(req["list"], encoding="utf-8") as fh:
        paths = [line.rstrip("\n") for line in fh if line.strip()]
    texts = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            texts.append(fh.read())
    best = None
    verdicts = None
    for _ in range(int(req.get("repeat", 3))):
        t0 = time.perf_counter()
        out = [scan_for_threats(t, scope) for t in texts]
        dt = time.perf_counter() - t0
        if best is None or dt < best:
            best = dt
        verdicts = out
    norm = []
    for ids in verdicts or []:
        inv = sorted(i for i in ids if i.startswith("invisible_unicode_"))
        norm.append(inv + [i for i in ids if not i.startswith("invisible_unicode_")])
    json.dump({
        "seconds": best,
        "files": len(texts),
        "characters": sum(len(t) for t in texts),
        "scanned_characters": sum(min(len(t), 65_536) for t in texts),
        "verdicts": dict(zip(paths, norm)),
    }, sys.stdout)


if __name__ == "__main__":
    main()
