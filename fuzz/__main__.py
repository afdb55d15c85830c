"""``python -m fuzz TARGET [--seconds N] [--engine atheris|hypothesis] [-- ATHERIS-ARGS...]``

Runs one fuzz target of :mod:`fuzz.targets` (or ``all``, one after the other) for ``--seconds``
(default 60 per target). With atheris installed (``pip install -e '.[fuzz]'``, Linux) the run is
coverage-guided; otherwise hypothesis generates the inputs (from the seeds, arbitrary bytes and
hostile fragments). A failing input is printed and written to ``fuzz-crash-<target>-<sha1>.bin``
in the current directory; exit code 1. Replay one with ``python -m fuzz TARGET --replay FILE``.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import traceback
from pathlib import Path


def _save(target: str, data: bytes) -> Path:
    p = Path(f"fuzz-crash-{target}-{hashlib.sha1(data).hexdigest()[:12]}.bin")
    p.write_bytes(data)
    return p


def _run_hypothesis(name: str, fn, seconds: float) -> int:
    from hypothesis import HealthCheck, given, seed, settings
    from hypothesis import strategies as st

    from fuzz.targets import seeds

    frag = st.sampled_from([s[1:] for s in seeds()])
    data_st = st.one_of(
        st.binary(max_size=4096),
        st.lists(st.one_of(frag, st.binary(max_size=16), st.text(max_size=16).map(lambda t: t.encode("utf-8", "surrogatepass"))),
                 max_size=40).map(b"".join).map(lambda b: bytes([len(b) % 256]) + b),
    )
    deadline = time.monotonic() + seconds
    found: list[bytes] = []
    runs = 0
    round_ = 0
    while time.monotonic() < deadline and not found:
        round_ += 1

        @seed(round_)
        @settings(max_examples=200, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @given(data=data_st)
        def check(data: bytes) -> None:
            try:
                fn(data)
            except Exception:
                found.append(data)
                raise

        try:
            check()
        except Exception:
            break
        runs += 200
    if found:
        data = found[-1]
        p = _save(name, data)
        print(f"fuzz {name}: failure on {data!r}; saved to {p}", file=sys.stderr)
        try:
            fn(data)
        except Exception:
            traceback.print_exc()
        return 1
    print(f"fuzz {name}: {runs} inputs in {seconds:.0f} s (hypothesis), no failure")
    return 0


def _run_atheris(name: str, fn, seconds: float, extra: list[str]) -> int:  # pragma: no cover - needs atheris
    import atheris

    from fuzz.targets import seeds

    def one(data: bytes) -> None:
        try:
            fn(data)
        except Exception:
            p = _save(name, data)
            print(f"fuzz {name}: failure saved to {p}", file=sys.stderr)
            raise

    corpus = Path(f".fuzz-corpus/{name}")
    corpus.mkdir(parents=True, exist_ok=True)
    for i, s in enumerate(seeds()):
        (corpus / f"seed-{i}").write_bytes(s)
    argv = [sys.argv[0], f"-max_total_time={int(seconds)}", "-rss_limit_mb=4096", *extra, str(corpus)]
    with atheris.instrument_imports():
        import hermes_audit.documents.reader  # noqa: F401
        import hermes_audit.engine.engine  # noqa: F401
        import hermes_audit.audits.fix  # noqa: F401
        import hermes_audit.hermes.memory  # noqa: F401
    atheris.Setup(argv, one)
    atheris.Fuzz()
    return 0


def main(argv=None) -> int:
    from fuzz import targets
    from fuzz.targets import TARGETS

    targets.CHECK_TIME = True  # the redos target's bound per MB (wall clock: here, never in the test suite)

    ap = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__.split("\n\n")[1])
    ap.add_argument("target", choices=[*TARGETS, "all"])
    ap.add_argument("--seconds", type=float, default=60.0, help="time per target [default: 60]")
    ap.add_argument("--engine", choices=["auto", "atheris", "hypothesis"], default="auto")
    ap.add_argument("--replay", type=Path, help="run the target once on this file's bytes")
    ap.add_argument("--sweep", type=int, metavar="CHARS",
                    help="redos only: every near-miss of every pattern at about CHARS characters, once each "
                         "(not random), and the bound per MB checked on each")
    ap.add_argument("extra", nargs="*", help="after --: arguments for atheris/libFuzzer")
    args = ap.parse_args(argv)
    if args.sweep:
        from fuzz import nearmiss

        if args.target != "redos":
            ap.error("--sweep goes with the redos target")
        bad = nearmiss.sweep(size=args.sweep, deadline=targets.REDOS_DEADLINE, verbose=True)
        for subject, got in bad:
            print(f"over the bound: {subject.kind} {subject.code} {subject.version}: {got}")
        print(f"{len(bad)} over the bound")
        return 1 if bad else 0
    if args.replay:
        TARGETS[args.target](args.replay.read_bytes())
        print("no failure")
        return 0
    engine = args.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401

            engine = "atheris" if args.target != "all" else "hypothesis"
        except ImportError:
            engine = "hypothesis"
    names = list(TARGETS) if args.target == "all" else [args.target]
    if engine == "atheris":
        return _run_atheris(names[0], TARGETS[names[0]], args.seconds, args.extra)
    return max(_run_hypothesis(n, TARGETS[n], args.seconds) for n in names)


if __name__ == "__main__":
    sys.exit(main())
