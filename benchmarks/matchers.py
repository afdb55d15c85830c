"""Matcher alternatives measured on a tree of real files (issue 21, docs/performance.md "Matcher").

Runs the full audit (``run_scan``, one job, in process, catalog loaded and warmed once) with the engine's
pattern gating replaced by one of these, and prints CPU and wall seconds per run and whether the findings
equal those of the current engine (written by the ``current`` variant, so run it first):

* ``current``: the engine as it is (keyword prefilters, keyword-anchored matching, dispatch, gates).
* ``none``: no gating: every pattern's ``finditer`` on every view.
* ``literals``: a minimal gate: per pattern the folded literal runs (and alternations of them) that sit at
  the top level of its ``sre_parse`` tree, looked up with one ``pyahocorasick`` pass per view, then
  ``finditer``.
* ``anchored``: ``literals`` plus ``match`` at each occurrence of the pattern's leading literals (only when the
  folded text keeps the text's length; occurrences after an ASCII word character dropped for ``\\b``
  openings; dense occurrences fall back to ``finditer``).
* ``current-no-dispatch``, ``current-no-gates``, ``current-no-dense``, ``current-no-anchoring``: the current
  engine with one group of shortcuts off (keyword dispatch; rule gates; follow checks, tail starts and the
  one-pass locate; keyword-anchored matching).
* ``re2-sample``: RE2's ``Set`` (``pip install google-re2``) over patterns relaxed into a superset that RE2
  reads (literals folded, assertions dropped, classes widened), on the first 60 files: DFA build and warm
  pass times and candidate patterns per text.

    python -m benchmarks.realtree /tmp/realtree 5
    python -m benchmarks.matchers /tmp/realtree current 3
    python -m benchmarks.matchers /tmp/realtree anchored 3

Not part of the suite (``python -m benchmarks``); the variants are measurement code, not shipped.
"""

from __future__ import annotations

import json
import re
import string
import sys
import time
import warnings
from pathlib import Path

try:
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _sp  # type: ignore[attr-defined]
except ImportError:  # Python < 3.11
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _sp  # type: ignore[no-redef]

from hermes_audit.engine import engine as E
from hermes_audit.patterns import prefilter as P
from hermes_audit.patterns.catalog import load_catalog, materialize
from hermes_audit.engine.engine import Views
from hermes_audit.patterns.prefilter import _regex_only_syntax, fold

_UNANALYSED = 0x4000 | 0x100 | 0x1000 | 0x8000 | 0x400 | 0x800 | 0x10000 | re.VERBOSE
_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT) + ((_c.POSSESSIVE_REPEAT,) if hasattr(_c, "POSSESSIVE_REPEAT") else ())
_WORD = frozenset(string.ascii_letters + string.digits + "_")
_COMMON = frozenset("the and to of a in is for you that it on with as be are this or not by an at if from your use do "
                    "run all any can will have new no add set get one".split())


def _parse(pattern: str, flags: int):
    if int(flags) & _UNANALYSED or _regex_only_syntax(pattern):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = _sp.parse(pattern, int(flags) & (re.I | re.M | re.S))
    except Exception:
        return None
    return None if parsed.state.flags & re.VERBOSE else parsed


def _required(items, out: list) -> None:
    run: list = []

    def flush() -> None:
        s = "".join(run)
        if len(s) >= 2 and len(s.encode()) >= 3:
            out.append(frozenset({fold(s)}))
        run.clear()

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av))
            continue
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue  # zero-width: the literals on both sides are adjacent in the text
        flush()
        if op is _c.SUBPATTERN:
            _required(av[-1], out)
        elif op in _REPEATS and av[0] >= 1:
            _required(av[2], out)
        elif op is _c.BRANCH:
            union: set = set()
            for b in av[1]:
                sub: list = []
                _required(b, sub)
                if not sub:
                    union = set()
                    break
                union |= max(sub, key=lambda c: (min(map(len, c)), -len(c)))
            if union:
                out.append(frozenset(union))
    flush()


def required(pattern: str, flags: int):
    """Clauses (sets of folded strings, one of each must occur in any match), or None: always run."""
    parsed = _parse(pattern, flags)
    if parsed is None:
        return None
    out: list = []
    _required(parsed, out)
    return tuple(dict.fromkeys(out)) or None


def _lead(items):
    i = 0
    while i < len(items):
        op, av = items[i]
        if op in (_c.AT, _c.ASSERT_NOT) or (op is _c.ASSERT and av[0] == -1):
            i += 1
            continue
        if op is _c.ASSERT:  # a look-ahead: the match starts where its content does
            got = _lead(list(av[1]))
            if got:
                return got
            i += 1
            continue
        if op is _c.LITERAL:
            run = []
            while i < len(items) and items[i][0] is _c.LITERAL:
                run.append(chr(items[i][1]))
                i += 1
            return {fold("".join(run))}
        if op is _c.SUBPATTERN:
            return _lead(list(av[-1]))
        if op is _c.BRANCH:
            out: set = set()
            for b in av[1]:
                got = _lead(list(b))
                if not got:
                    return None
                out |= got
            return out
        if op is _c.IN:
            chars = set()
            for o, a in av:
                if o is not _c.LITERAL:
                    return None
                chars.add(fold(chr(a)))
            return chars if len(chars) <= 4 else None
        if op in _REPEATS:
            got = _lead(list(av[2]))
            if av[0] >= 1 or not got:
                return got
            rest = _lead(items[i + 1:])
            return got | rest if rest else None
        return None
    return None


def leading(pattern: str, flags: int):
    """Folded strings one of which every match starts with, or None."""
    parsed = _parse(pattern, flags)
    got = _lead(list(parsed)) if parsed is not None else None
    return frozenset(got) if got else None


def _install_literal_gate(cat, anchored: bool) -> None:
    import ahocorasick

    E.KEYWORD_DISPATCH = False
    E.RULE_GATES = False
    E.GATE_MIN_CHARS = 10 ** 12
    gates, leads = {}, {}
    for r in cat.rules:
        for p in r.compiled:
            k = (p.pattern, int(p.flags))
            gates[k] = required(p.pattern, p.flags)
            leads[k] = leading(p.pattern, p.flags) if gates[k] else None
    words = set().union(*[c for g in gates.values() if g for c in g], *[l for l in leads.values() if l])
    direct = {w for w in words if len(w) <= 1 or w in _COMMON}  # too frequent for the automaton's Python loop
    automaton = ahocorasick.Automaton()
    for w in words - direct:
        automaton.add_word(w, w)
    automaton.make_automaton()
    boundary = {k for k, l in leads.items() if l and k[0].startswith("\\b") and all(w[:1] in _WORD for w in l)}

    def state(views, name):
        text = views.get(name).text
        cache = views.__dict__.setdefault("_bench_state", {})
        got = cache.get(text)
        if got is None:
            f = fold(text)
            present = {w for _e, w in automaton.iter(f)}
            present.update(w for w in direct if w in f)
            got = cache[text] = (present, {} if len(f) == len(text) else None, f)
        return got

    def occurrences(pos, f, w, most):
        got = pos.get(w)
        if got is None:
            got, i = [], f.find(w)
            while i >= 0 and len(got) <= most:
                got.append(i)
                i = f.find(w, i + 1)
            pos[w] = got
        return got

    def walk(pat, text, starts, timeout):
        end, match = 0, pat.match
        for p in starts:
            if p >= end:
                m = match(text, p, timeout=timeout)
                if m is not None:
                    yield m
                    end = m.end()

    def matches(self, name, pattern, timeout=None):
        k = (pattern.pattern, int(pattern.flags))
        text = self.get(name).text
        g = gates.get(k)
        pat = materialize(pattern)
        if g is None:
            return pat.finditer(text, timeout=timeout)
        present, pos, f = state(self, name)
        if any(c.isdisjoint(present) for c in g):
            return iter(())
        lead = leads.get(k)
        if not anchored or lead is None or pos is None:
            return pat.finditer(text, timeout=timeout)
        most = len(text) // 40
        starts: list = []
        for w in lead:
            if w in present:
                starts.extend(occurrences(pos, f, w, most))
        if len(starts) > most:
            return pat.finditer(text, timeout=timeout)
        if k in boundary:
            starts = [p for p in starts if not (p and text[p - 1] in _WORD)]
        starts.sort()
        return walk(pat, text, starts, timeout)

    Views.matches = matches
    Views.may_match = lambda self, name, prefilter: True


def install(variant: str, cat) -> None:
    if variant == "current":
        return
    if variant == "none":
        E.KEYWORD_DISPATCH = False
        E.RULE_GATES = False
        Views.matches = lambda self, name, pattern, timeout=None: materialize(pattern).finditer(
            self.get(name).text, timeout=timeout)
        Views.may_match = lambda self, name, prefilter: True
    elif variant in ("literals", "anchored"):
        _install_literal_gate(cat, variant == "anchored")
    elif variant == "current-no-dispatch":
        E.KEYWORD_DISPATCH = False
    elif variant == "current-no-gates":
        E.RULE_GATES = False
    elif variant == "current-no-dense":
        P.FOLLOW_CHECKS = False
        P._tail_starts = lambda *a, **k: None
        P.LiteralIndex.locate = lambda self, words: None
    elif variant == "current-no-anchoring":
        def plain(self, name, pattern, timeout=None):
            if not self.index(name).passes(P.prefilter_for(pattern)):
                return iter(())
            return materialize(pattern).finditer(self.get(name).text, timeout=timeout)
        Views.matches = plain
    else:
        raise SystemExit(f"unknown variant {variant!r}")


# --- RE2 Set over relaxed patterns ----------------------------------------------------------------------
_ANY = r"[\x{0}-\x{10FFFF}]"


class _Unrelaxable(Exception):
    pass


def _esc(s: str) -> str:
    return "".join(ch if ch.isascii() and ch.isalnum() else "\\x{%x}" % ord(ch) for ch in s)


def _relax_in(av) -> str:
    neg, chars = False, []
    for op, a in av:
        if op is _c.NEGATE:
            neg = True
        elif op is _c.LITERAL:
            chars.append(chr(a))
        elif op is _c.RANGE and a[1] - a[0] <= 64:
            chars.extend(chr(x) for x in range(a[0], a[1] + 1))
        else:
            return _ANY
    if neg:  # only ASCII non-letters: no other character folds to one of them
        if all(ch.isascii() and not ch.isalpha() for ch in chars):
            return "[^" + "".join("\\x{%x}" % ord(ch) for ch in chars) + "]"
        return _ANY
    folded = {fold(ch) for ch in chars}
    if any(len(f) != 1 for f in folded):
        return _ANY
    return "[" + "".join("\\x{%x}" % ord(ch) for ch in sorted(folded)) + "]"


def _relax_seq(items) -> str:
    return "".join(_relax(op, av) for op, av in items)


def _relax(op, av) -> str:
    if op is _c.LITERAL:
        f = fold(chr(av))
        if len(f) != 1:
            raise _Unrelaxable("expanding fold")
        return _esc(f)
    if op is _c.NOT_LITERAL:
        ch = chr(av)
        return "[^\\x{%x}]" % av if ch.isascii() and not ch.isalpha() else _ANY
    if op is _c.IN:
        return _relax_in(av)
    if op in (_c.ANY, _c.CATEGORY):
        return _ANY
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return ""
    if op is _c.SUBPATTERN:
        return "(?:" + _relax_seq(av[-1]) + ")"
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return "(?:" + _relax_seq(av) + ")"
    if op is _c.BRANCH:
        return "(?:" + "|".join(_relax_seq(b) for b in av[1]) + ")"
    if op in _REPEATS:
        lo, hi, body = av
        inner = "(?:" + _relax_seq(body) + ")"
        lo = min(lo, 1000)
        return inner + ("{%d,}" % lo if hi is _c.MAXREPEAT or hi > 1000 else "{%d,%d}" % (lo, hi))
    if op in (_c.GROUPREF, _c.GROUPREF_EXISTS):
        return _ANY + "*"
    raise _Unrelaxable(str(op))


def relaxed(pattern: str, flags: int):
    """An RE2 pattern matching (in the folded text, when folding keeps its length) wherever ``pattern`` does."""
    parsed = _parse(pattern, flags)
    try:
        return _relax_seq(parsed) if parsed is not None else None
    except _Unrelaxable:
        return None


def re2_sample(root: Path, cat, files: int = 60) -> None:
    import re2

    opt = re2.Options()
    opt.max_mem = 1 << 30
    rset, n, total = re2.Set.SearchSet(opt), 0, 0
    t = time.process_time()
    for r in cat.rules:
        for p in r.compiled:
            total += 1
            rx = relaxed(p.pattern, p.flags)
            if rx is None:
                continue
            try:
                re2.compile(rx, opt)
            except Exception:
                continue
            rset.Add(rx)
            n += 1
    rset.Compile()
    print(f"re2: {n} of {total} patterns relaxed and accepted, compile {time.process_time() - t:.2f} s CPU")
    texts = [fold(f.read_text(errors="replace")) for f in sorted(root.rglob("*")) if f.is_file()][:files]
    chars = sum(map(len, texts))
    for rep in range(2):
        t, cands = time.process_time(), 0
        for x in texts:
            cands += len(rset.Match(x) or ())
        dt = time.process_time() - t
        print(f"re2 pass {rep}: {chars:,} characters, {dt:.2f} s CPU ({dt / chars * 1e6:.0f} ms per MB), "
              f"{cands / len(texts):.1f} candidate patterns per text")


def main(argv: list[str]) -> int:
    from hermes_audit.audits.scan import ScanOptions, run_scan

    root, variant = Path(argv[0]), argv[1]
    reps = int(argv[2]) if len(argv) > 2 else 3
    cat = load_catalog()
    if variant == "re2-sample":
        re2_sample(root, cat)
        return 0
    install(variant, cat)
    opts = ScanOptions(jobs=1, use_git=False, fail_on=None)
    run_scan([root], opts, cat)  # warm: patterns built, automata made
    runs = []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        res = run_scan([root], opts, cat)
        runs.append((time.process_time() - c0, time.perf_counter() - w0))
    key = sorted([f.path, f.rule_id, f.span.start, f.span.end, f.message, int(f.severity), int(f.confidence)]
                 for f in res.findings)
    ref = root.parent / (root.name + ".current-findings.json")
    if variant == "current":
        ref.write_text(json.dumps(key))
        same = "reference written"
    else:
        same = "identical" if ref.exists() and json.loads(ref.read_text()) == key else "DIFFERENT (or no reference)"
    cpu = sorted(r[0] for r in runs)
    wall = sorted(r[1] for r in runs)
    print(f"{variant}: CPU s {[round(x, 2) for x in cpu]} (median {cpu[len(cpu) // 2]:.2f}), wall s "
          f"{[round(x, 2) for x in wall]}; {len(key)} findings, {len(res.errors)} errors; findings {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
