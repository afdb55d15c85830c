"""Scanning many documents on several cores (issue 8).

:func:`map_documents` applies a per-document function to a list of documents,
in this process for small jobs and in a pool of forked worker processes when
there is enough text to pay for one. Results are identical and in the same
order either way; only where the work runs changes.

* Workers are forked (``multiprocessing`` ``fork`` context), so they inherit
  the loaded catalog, compiled patterns and the already-read documents; only
  document indices go to them and only results come back.
* Results refer to catalog rules by code: in the workers a :class:`Rule` is
  pickled as its code and the parent puts back its own rule object.
* Where ``fork`` is unavailable (Windows, macOS default), or a worker fails,
  everything runs in this process.

The number of processes is ``--jobs`` / ``ScanOptions.jobs``, else the
environment variable ``HERMES_AUDIT_JOBS``, else the CPUs this process may use.
"""

from __future__ import annotations

import copyreg
import os
from typing import Any, Callable, Optional, Sequence

#: Below this many characters of text in total, documents are scanned in this process.
PARALLEL_MIN_CHARS = 1_000_000
#: Below this many documents, documents are scanned in this process.
PARALLEL_MIN_DOCUMENTS = 4

_WORK: Optional[tuple[Callable[[Any], Any], Sequence[Any]]] = None
_RULES: dict[str, Any] = {}


def default_jobs() -> int:
    """Processes to use: ``$HERMES_AUDIT_JOBS`` when set to a positive integer, else the usable CPUs."""
    env = os.environ.get("HERMES_AUDIT_JOBS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def fork_available() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _rule_by_code(code: str) -> Any:
    return _RULES[code]


def _reduce_rule(rule: Any) -> tuple:
    return (_rule_by_code, (rule.code,))


def _worker_init() -> None:
    from hermes_audit.engine.catalog import Rule

    copyreg.pickle(Rule, _reduce_rule)


def _run_index(i: int) -> Any:
    assert _WORK is not None
    fn, items = _WORK
    return fn(items[i])


def _size(doc: Any) -> int:
    text = doc if isinstance(doc, str) else getattr(doc, "text", None)
    return len(text) if text else 0


def map_documents(fn: Callable[[Any], Any], docs: Sequence[Any], rules: Sequence[Any] = (),
                  jobs: Optional[int] = None) -> list:
    """``[fn(d) for d in docs]``, on ``jobs`` processes when the documents hold enough text.

    ``docs`` are documents (their ``text`` is measured) or plain strings.
    ``rules`` are the catalog rules results may refer to (restored by code in
    this process). ``fn`` must not depend on state changed after the call
    starts. Never raises because of the pool: a pool failure falls back to
    running here.
    """
    return start_map_documents(fn, docs, rules, jobs)()


def start_map_documents(fn: Callable[[Any], Any], docs: Sequence[Any], rules: Sequence[Any] = (),
                        jobs: Optional[int] = None) -> Callable[[], list]:
    """Start :func:`map_documents` and return a function that waits for its list.

    With a pool the workers run while this process does other work until the returned function is
    called; without one the work runs when the function is called. Call it exactly once. Same results as :func:`map_documents`.
    """
    global _WORK
    jobs = default_jobs() if jobs is None else max(1, jobs)
    total = sum(_size(d) for d in docs)
    if jobs < 2 or len(docs) < PARALLEL_MIN_DOCUMENTS or total < PARALLEL_MIN_CHARS or not fork_available():
        return lambda: [fn(d) for d in docs]
    jobs = min(jobs, len(docs))
    for r in rules:
        _RULES[r.code] = r
    # largest documents first, so the last chunks are small and the workers finish together
    order = sorted(range(len(docs)), key=lambda i: -_size(docs[i]))
    chunk = max(1, min(16, len(docs) // (jobs * 8)))
    previous = _WORK
    _WORK = (fn, docs)
    try:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        pool = ctx.Pool(jobs, initializer=_worker_init)
        pending = pool.map_async(_run_index, order, chunksize=chunk)
    except Exception:  # the pool could not start: do the work here
        _WORK = previous
        return lambda: [fn(d) for d in docs]

    def wait() -> list:
        global _WORK
        try:
            got = pending.get()
        except Exception:  # a worker died: do the work here
            return [fn(d) for d in docs]
        finally:
            pool.terminate()
            pool.join()
            _WORK = previous
        out: list = [None] * len(docs)
        for i, res in zip(order, got):
            out[i] = res
        return out

    return wait
