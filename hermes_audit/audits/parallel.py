"""Scanning many documents on several cores (issue 8).

:func:`map_documents` applies a per-document function to a list of documents,
in this process for small jobs and, when there is enough text to pay for them,
in this process together with forked worker processes. Results are identical
and in the same order either way; only where the work runs changes.

* Workers are forked (``multiprocessing`` ``fork`` context), so they inherit
  the loaded catalog, compiled patterns and the already-read documents; they
  take document numbers from a counter in shared memory, and only results
  come back.
* Results refer to catalog rules by code: in the workers a :class:`Rule` is
  pickled as its code and the parent puts back its own rule object.
* Where ``fork`` is unavailable (Windows, macOS default), everything runs in
  this process; the documents of a worker that fails are computed here.

The number of processes is ``--jobs`` / ``ScanOptions.jobs``, else the
environment variable ``HERMES_AUDIT_JOBS``, else the CPUs this process may use.
"""

from __future__ import annotations

import copyreg
import os
from typing import Any, Callable, Optional, Sequence
from hermes_audit.patterns.catalog import Rule

#: Below this many characters of text in total, documents are scanned in this process.
PARALLEL_MIN_CHARS = 1_000_000
#: Below this many documents, documents are scanned in this process.
PARALLEL_MIN_DOCUMENTS = 4

_WORK: Optional[tuple[Callable[[Any], Any], Sequence[Any]]] = None  # (fn, docs), as the workers see it
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
    copyreg.pickle(Rule, _reduce_rule)


def _run_index(i: int) -> Any:
    assert _WORK is not None
    fn, items = _WORK
    return fn(items[i])


def _size(doc: Any) -> int:
    hint = getattr(doc, "size_hint", None)  # a document not read yet (issue 21): its size in bytes
    if hint is not None:
        return hint
    text = doc if isinstance(doc, str) else getattr(doc, "text", None)
    return len(text) if text else 0


def map_documents(fn: Callable[[Any], Any], docs: Sequence[Any], rules: Sequence[Any] = (),
                  jobs: Optional[int] = None) -> list:
    """``[fn(d) for d in docs]``, on ``jobs`` processes when the documents hold enough text.

    ``docs`` are documents (their ``text`` is measured, or their ``size_hint`` when they have one) or plain
    strings.
    ``rules`` are the catalog rules results may refer to (restored by code in
    this process). ``fn`` must not depend on state changed after the call
    starts. Never raises because of the pool: a pool failure falls back to
    running here.
    """
    return start_map_documents(fn, docs, rules, jobs)()


def start_map_documents(fn: Callable[[Any], Any], docs: Sequence[Any], rules: Sequence[Any] = (),
                        jobs: Optional[int] = None) -> Callable[[], list]:
    """Start :func:`map_documents` and return a function that computes and returns its list.

    With more than one process, ``jobs - 1`` forked workers start at once; the returned function makes this
    process the last worker and collects the others' results. Call it exactly once. Same results as
    :func:`map_documents`.

    How the work is shared (issue 8): the documents are taken largest first, a few at a time, from one
    counter in shared memory, by every process including this one, so all finish at about the same time;
    this process keeps its own results as they are (nothing pickled), and each worker sends each chunk's
    results when done, which a thread of this process places meanwhile. A worker that fails or dies only
    loses its documents not yet sent, which this process then computes.
    """
    jobs = default_jobs() if jobs is None else max(1, jobs)
    total = sum(_size(d) for d in docs)
    if jobs < 2 or len(docs) < PARALLEL_MIN_DOCUMENTS or total < PARALLEL_MIN_CHARS or not fork_available():
        return lambda: [fn(d) for d in docs]
    jobs = min(jobs, len(docs))
    for r in rules:
        _RULES[r.code] = r
    # largest documents first, so the last chunks are small and the processes finish together
    order = sorted(range(len(docs)), key=lambda i: -_size(docs[i]))
    chunk = max(1, min(16, len(docs) // (jobs * 8)))
    try:
        workers = _start_workers(fn, docs, order, chunk, jobs - 1)
    except Exception:  # no worker could start: do the work here
        return lambda: [fn(d) for d in docs]
    return lambda: _finish(fn, docs, order, chunk, workers)


class _Workers:
    """The forked workers of one :func:`start_map_documents` call and the counter they share."""

    def __init__(self, ctx: Any, counter: Any) -> None:
        self.ctx = ctx
        self.counter = counter  # next chunk to take, a ``multiprocessing.Value`` (with its lock)
        self.procs: list = []  # (process, read end of its pipe)


def _take(counter: Any) -> int:
    """The next chunk number (each taken exactly once across the processes)."""
    with counter.get_lock():
        k = counter.value
        counter.value = k + 1
    return k


def _start_workers(fn: Callable[[Any], Any], docs: Sequence[Any], order: list, chunk: int, n: int) -> _Workers:
    import gc
    import multiprocessing

    global _WORK
    ctx = multiprocessing.get_context("fork")
    workers = _Workers(ctx, ctx.Value("q", 0))
    previous = _WORK
    _WORK = (fn, docs)
    # the objects alive now are left out of the workers' garbage collections, which would otherwise visit
    # (and so copy from this process) every one of them
    gc.freeze()
    try:
        for _ in range(n):
            reader, writer = ctx.Pipe(duplex=False)
            # the child inherits every read end made so far, its own included: it closes them (_worker), or a
            # killed parent would leave it blocked on a full pipe that it itself keeps open
            readers = [r for _p, r in workers.procs] + [reader]
            proc = ctx.Process(target=_worker, args=(workers.counter, order, chunk, writer, os.getpid(), readers),
                               daemon=True)
            try:
                proc.start()
            finally:
                writer.close()
            workers.procs.append((proc, reader))
    except BaseException:  # (a worker could not start: none is used)
        _stop(workers, at_once=True)
        raise
    finally:
        gc.unfreeze()
        _WORK = previous
    return workers


def _worker(counter: Any, order: list, chunk: int, conn: Any, parent: int, inherited: Sequence[Any] = ()) -> None:
    """A forked worker: computes the chunks it takes, sending each one's ``[(index, result), ...]`` when done,
    then :data:`_DONE` (or :data:`_FAILED` when the function raised: this process then computes the
    documents of that chunk itself). It stops, sending nothing more, once its ``parent`` is gone (killed:
    nobody would read its results).

    ``inherited``: the pipes' read ends the fork copied into this process, closed first, so that the parent
    holds the only read end of ``conn``: once the parent is killed, a send fails (``BrokenPipeError``) instead
    of waiting for ever on a full pipe, and the worker ends (with it the copies of the parent's other
    descriptors it holds, such as a scan server's connection and lock)."""
    for r in inherited:
        try:
            r.close()
        except OSError:
            pass
    _worker_init()
    end = _DONE
    try:
        while True:
            if os.getppid() != parent:
                return
            k = _take(counter) * chunk
            if k >= len(order):
                break
            conn.send([(i, _run_index(i)) for i in order[k:k + chunk]])
    except BaseException:
        end = _FAILED
    try:
        conn.send(end)
        conn.close()
    except OSError:  # the parent is gone (BrokenPipeError): nobody to tell
        pass


_DONE = "done"
_FAILED = "failed"


def _receive(reader: Any, out: list, done: list) -> None:
    """Place a worker's results as they come (a thread of this process: the worker never waits for this
    process to finish its own documents, and the results are unpickled meanwhile)."""
    try:
        while True:
            got = reader.recv()
            if not isinstance(got, list):
                return
            for i, res in got:
                out[i] = res
                done[i] = True
    except (EOFError, OSError):  # the worker died
        return


def _finish(fn: Callable[[Any], Any], docs: Sequence[Any], order: list, chunk: int, workers: _Workers) -> list:
    """Take chunks in this process too until none is left, while threads collect the workers' results;
    then compute whatever a failed worker did not return."""
    import threading

    out: list = [None] * len(docs)
    done = [False] * len(docs)
    threads = [threading.Thread(target=_receive, args=(reader, out, done), daemon=True)
               for _proc, reader in workers.procs]
    for t in threads:
        t.start()
    try:
        while True:
            k = _take(workers.counter) * chunk
            if k >= len(order):
                break
            for i in order[k:k + chunk]:
                out[i] = fn(docs[i])
                done[i] = True
        for t in threads:
            t.join()
    except BaseException:
        _stop(workers, at_once=True)
        raise
    _stop(workers)
    for i, ok in enumerate(done):
        if not ok:  # a worker failed: compute its documents here
            out[i] = fn(docs[i])
    return out


def _stop(workers: _Workers, at_once: bool = False) -> None:
    """Close the pipes and end the workers (at once, or after a few seconds for those still running: they
    have sent their results and are exiting)."""
    for proc, reader in workers.procs:
        reader.close()
        if not at_once:
            proc.join(5.0)
        if proc.is_alive():
            proc.terminate()
            proc.join()
