"""Compiled ``regex`` patterns as data, so a validated catalog need not parse its patterns again.

``regex.compile`` parses a pattern in Python (about 0.7 ms per catalog
pattern) and ends by handing a list of integer op-codes and a few tables to
the C extension's ``_regex.compile``. :func:`compile_and_capture` compiles a
pattern normally and records those arguments; :func:`from_code` gives them
back to ``_regex.compile``, which builds the same pattern object without the
parse (issue 8: start-up time of ``hermes-audit scan``).

The arguments depend on the ``regex`` version (part of every cache key that
stores them, see :mod:`hermes_audit.datacache`). Any surprise (another
``regex`` layout, a malformed record) makes both functions give up and the
caller compiles the ordinary way. ``tests/test_performance_equivalence.py``
checks that patterns rebuilt from their code behave like freshly compiled ones.
"""

from __future__ import annotations

from typing import Any, Optional


def compile_and_capture(pattern: str, flags: int) -> tuple[Any, Optional[list]]:
    """``regex.compile(pattern, flags)`` and the JSON-ready arguments it gave ``_regex.compile`` (or ``None``).

    Raises ``regex.error`` exactly as ``regex.compile`` does.
    """
    import regex

    try:
        main = regex._main  # type: ignore[attr-defined]
        real = main._regex
    except AttributeError:
        return regex.compile(pattern, flags), None
    captured: list = []

    class _Recorder:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def compile(self, *args: Any) -> Any:  # noqa: A003 - mirrors _regex.compile
            captured.append(args)
            return real.compile(*args)

    main._regex = _Recorder()
    try:
        compiled = regex.compile(pattern, flags, cache_pattern=False)
    finally:
        main._regex = real
    if len(captured) != 1:
        return compiled, None
    return compiled, _to_json(captured[0])


def _to_json(args: tuple) -> Optional[list]:
    try:
        (pat, flags, code, group_index, index_group, named_lists, named_list_indexes,
         req_offset, req_chars, req_flags, group_count) = args
    except ValueError:
        return None
    if named_lists or any(x is not None for x in named_list_indexes):
        return None  # named lists hold sets; not needed for the catalog
    if not (isinstance(pat, str) and all(isinstance(c, int) for c in code)):
        return None
    return [pat, int(flags), list(code), {str(k): int(v) for k, v in group_index.items()},
            [[int(k), str(v)] for k, v in index_group.items()], int(req_offset),
            list(req_chars) if req_chars is not None else None, int(req_flags), int(group_count)]


def from_code(record: Any) -> Optional[Any]:
    """The pattern object for a record made by :func:`compile_and_capture`, or ``None`` when it cannot."""
    try:
        import regex
        from regex import _regex  # type: ignore[attr-defined]

        pat, flags, code, group_index, index_group, req_offset, req_chars, req_flags, group_count = record
        return _regex.compile(pat, regex.RegexFlag(flags), [int(c) for c in code],
                              {str(k): int(v) for k, v in group_index.items()},
                              {int(k): str(v) for k, v in index_group}, {}, [], int(req_offset),
                              tuple(int(c) for c in req_chars) if req_chars is not None else None,
                              int(req_flags), int(group_count))
    except Exception:  # any mismatch: compile the ordinary way
        return None
