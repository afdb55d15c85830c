"""Compiled ``regex`` patterns as data, so a validated catalog need not parse its patterns again.

``regex.compile`` parses a pattern in Python (about 0.7 ms per catalog
pattern) and ends by handing a list of integer op-codes and a few tables to
the C extension's ``_regex.compile``. :func:`compile_and_capture` compiles a
pattern normally and records those arguments; :func:`from_code` gives them
back to ``_regex.compile``, which builds the same pattern object without the
parse (issue 8: start-up time of ``hermes-audit scan``).

The op-code list is recorded as one byte string of little-endian 32-bit
words (``["u32le", b"..."]``; records written by older versions hold it as
base64 text, still read): loading one byte string is far faster than tens of
thousands of numbers, and it is decoded only when the pattern is first used
(issue 8: the catalog cache holds the op-codes of every rule, of the patterns
in detector parameters, and of the engine's own constant patterns declared
with :func:`compile_builtin`).

Python's own ``re`` works the same way (``re._compiler.compile`` parses in
Python, then calls ``_sre.compile``): :func:`re_compile_and_capture` and
:func:`re_from_code` do for ``re`` what the functions above do for ``regex``.
The catalog cache keeps the ``re`` op-codes of Hermes' own patterns (which
Hermes compiles with ``re``) and of the tails of those patterns that
``hermes_audit.hermes.threats`` checks first (:func:`remember_tails`).

The arguments depend on the ``regex`` and Python versions (part of every cache
key that stores them, see :mod:`hermes_audit.datacache`). Any surprise (another
``regex`` layout, a malformed record) makes both functions give up and the
caller compiles the ordinary way. ``tests/test_performance_equivalence.py``
checks that patterns rebuilt from their code behave like freshly compiled ones.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional


@contextlib.contextmanager
def _recording(owner: Any, name: str) -> Iterator[list]:
    """Within the block, ``owner.<name>.compile`` (the C compiler entry of ``regex`` or ``re``) also appends
    the arguments of every call to the yielded list; everything else passes through unchanged."""
    real = getattr(owner, name)
    captured: list = []

    class _Recorder:
        def __getattr__(self, attr: str) -> Any:
            return getattr(real, attr)

        def compile(self, *args: Any) -> Any:  # noqa: A003 - mirrors the C module's compile
            captured.append(args)
            return real.compile(*args)

    setattr(owner, name, _Recorder())
    try:
        yield captured
    finally:
        setattr(owner, name, real)


def compile_and_capture(pattern: str, flags: int) -> tuple[Any, Optional[list]]:
    """``regex.compile(pattern, flags)`` and the JSON-ready arguments it gave ``_regex.compile`` (or ``None``).

    Raises ``regex.error`` exactly as ``regex.compile`` does.
    """
    import regex

    main = getattr(regex, "_main", None)
    if main is None or not hasattr(main, "_regex"):
        return regex.compile(pattern, flags), None
    with _recording(main, "_regex") as captured:
        compiled = regex.compile(pattern, flags, cache_pattern=False)
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
    return [pat, int(flags), _pack(code), {str(k): int(v) for k, v in group_index.items()},
            [[int(k), str(v)] for k, v in index_group.items()], int(req_offset),
            list(req_chars) if req_chars is not None else None, int(req_flags), int(group_count)]


def _pack(code: Any) -> Any:
    """``["u32le", bytes]`` for a list of op-codes that all fit 32 bits, else the list itself."""
    import array
    import sys

    try:
        words = array.array("I", code)
    except OverflowError:
        return list(code)
    if words.itemsize != 4:  # pragma: no cover - exotic platform
        return list(code)
    if sys.byteorder != "little":  # pragma: no cover - big-endian hosts
        words.byteswap()
    return ["u32le", words.tobytes()]


def _unpack(code: Any) -> list[int]:
    """The op-code list of a record's code field (as :func:`_pack` wrote it, or a plain list)."""
    if isinstance(code, list) and len(code) == 2 and code[0] == "u32le" and isinstance(code[1], (bytes, str)):
        import array
        import sys

        words = array.array("I")
        if words.itemsize != 4:  # pragma: no cover - exotic platform
            raise ValueError("no 32-bit array type")
        if isinstance(code[1], str):  # base64, as older versions wrote it
            import binascii

            words.frombytes(binascii.a2b_base64(code[1]))
        else:
            words.frombytes(code[1])
        if sys.byteorder != "little":  # pragma: no cover - big-endian hosts
            words.byteswap()
        return words.tolist()
    return [int(c) for c in code]


def packed(record: Any) -> bytes:
    """``record`` as one :mod:`marshal` byte string: the catalog cache stores records so, and each is
    loaded only when its pattern is first used (:func:`from_code`, :func:`re_from_code` take either form).
    Raises ``ValueError`` for a record marshal cannot write."""
    import marshal

    return marshal.dumps(record, 4)


def _record(record: Any) -> Any:
    if isinstance(record, bytes):
        import marshal

        return marshal.loads(record)
    return record


_C_MODULE: Any = None
_SPECS: Any = None


def _specs() -> tuple:
    """``(spec of the regex package, spec of regex._regex)`` found without importing anything (either may be
    ``None``); computed once."""
    global _SPECS
    if _SPECS is None:
        import importlib.machinery
        import importlib.util

        pkg = sub = None
        try:
            pkg = importlib.util.find_spec("regex")  # a top-level package is located, not imported
            locations = pkg.submodule_search_locations if pkg is not None else None
            sub = importlib.machinery.PathFinder.find_spec("regex._regex", locations) if locations else None
        except (ImportError, ValueError, OSError):
            pass
        _SPECS = (pkg, sub)
    return _SPECS


def package_files() -> Optional[list]:
    """The files that make the installed ``regex`` package what it is (its ``__init__``, ``_main``,
    ``_regex_core`` and the C extension), found without importing it: the catalog's cheap cache key
    (``catalog._stat_key``) covers their signatures instead of ``regex.__version__`` (issue 8). ``None``
    when the package or its extension is not found."""
    import os

    pkg, sub = _specs()
    if pkg is None or sub is None or not pkg.origin or not sub.origin:
        return None
    here = os.path.dirname(pkg.origin)
    return [pkg.origin, os.path.join(here, "_main.py"), os.path.join(here, "_regex_core.py"), sub.origin]


def c_module() -> Any:
    """The ``regex`` package's C extension ``regex._regex``, loaded if needed WITHOUT running the package's
    ``__init__`` (issue 8: start-up time: ``import regex`` executes ``regex._main`` and the Python-level
    pattern parser ``regex._regex_core``, about 7 ms, which a run whose patterns all come from recorded
    op-codes never needs).

    When ``regex`` is already imported, its own ``_regex`` is returned. Otherwise the extension is found
    with :func:`importlib.util.find_spec` (which for a top-level package only locates it, it does not
    import it) and :class:`importlib.machinery.PathFinder` on the package's directory, and loaded by its
    :class:`~importlib.machinery.ExtensionFileLoader`; it is not left in ``sys.modules`` (the interpreter
    puts it there), so a later ``import regex`` loads its submodule the ordinary way and sets the
    package's ``_regex`` attribute. The extension uses single-phase initialisation, so that second load
    gives a module made from a copy of the first one's namespace: the same ``compile`` function and
    pattern types. The few paths of a pattern object that call back into the
    package's Python code (raising ``regex.error``, a ``sub`` template or ``Match.expand`` through
    ``regex._main._compile_replacement_helper``, pickling) import the package themselves when they run.
    Any surprise: ``import regex`` as usual. Raises ``ImportError`` only when ``regex`` is not installed."""
    global _C_MODULE
    if _C_MODULE is not None:
        return _C_MODULE
    import sys

    pkg = sys.modules.get("regex")
    mod = sys.modules.get("regex._regex")
    if pkg is not None and getattr(pkg, "_regex", None) is not None:
        mod = pkg._regex
    if mod is None:
        try:
            import importlib.machinery
            import importlib.util

            sub = _specs()[1]
            if sub is not None and isinstance(sub.loader, importlib.machinery.ExtensionFileLoader):
                mod = importlib.util.module_from_spec(sub)
                sub.loader.exec_module(mod)
        except Exception:  # another layout: the ordinary import below
            mod = None
        finally:
            if "regex" not in sys.modules:
                sys.modules.pop("regex._regex", None)
        if mod is None or not hasattr(mod, "compile"):
            import regex

            mod = regex._regex  # type: ignore[attr-defined]
    _C_MODULE = mod
    return mod


def _pickle_through_package(pattern_type: type) -> None:
    """Let a pattern built by :func:`from_code` be pickled before the ``regex`` package is imported: the
    package registers its pattern reducer with :mod:`copyreg` when imported; until then this one imports
    the package and hands over to that reducer."""
    import copyreg

    def reduce_pattern(pattern: Any) -> Any:
        import regex  # noqa: F401 - registers the package's own reducer for this type

        reducer = copyreg.dispatch_table.get(type(pattern))
        if reducer is None or reducer is reduce_pattern:
            raise TypeError(f"cannot pickle {type(pattern).__name__!r} object")
        return reducer(pattern)

    copyreg.dispatch_table.setdefault(pattern_type, reduce_pattern)


def from_code(record: Any) -> Optional[Any]:
    """The pattern object for a record made by :func:`compile_and_capture` (or its :func:`packed` form),
    or ``None`` when it cannot. Uses only the C extension (:func:`c_module`): the ``regex`` package is not
    imported. The pattern's ``flags`` is then a plain ``int`` (equal to the ``regex.RegexFlag`` a fresh
    compile gives)."""
    try:
        pat, flags, code, group_index, index_group, req_offset, req_chars, req_flags, group_count = _record(record)
        compiled = c_module().compile(pat, int(flags), _unpack(code),
                                      {str(k): int(v) for k, v in group_index.items()},
                                      {int(k): str(v) for k, v in index_group}, {}, [], int(req_offset),
                                      tuple(int(c) for c in req_chars) if req_chars is not None else None,
                                      int(req_flags), int(group_count))
    except Exception:  # any mismatch: compile the ordinary way
        return None
    if type(compiled) not in _PICKLE_READY:
        _PICKLE_READY.add(type(compiled))
        _pickle_through_package(type(compiled))
    return compiled


#: Pattern types :func:`_pickle_through_package` has seen.
_PICKLE_READY: set = set()


#: Records of patterns whose op-codes were stored with the catalog, by ``"<flags>\0<pattern>"``
#: (:func:`remember`); :func:`compile_known` looks them up.
_KNOWN: dict[str, Any] = {}


def remember(records: dict) -> None:
    """Make ``records`` (``"<flags>\\0<pattern>"`` -> record, as the catalog cache stores them) available
    to :func:`compile_known`."""
    _KNOWN.update(records)


#: Modules whose import declares built-in patterns (:func:`compile_builtin`, :func:`declare`); the catalog
#: cache imports them when it is written and stores the op-codes of every declared pattern.
BUILTIN_PATTERN_MODULES = ("hermes_audit.engine.payloads", "hermes_audit.engine.deobfuscate",
                           "hermes_audit.engine.redact", "hermes_audit.engine.cues")
#: ``(pattern, flags)`` of the built-in patterns declared so far.
_DECLARED: dict[tuple[str, int], None] = {}


def declare(pattern: str, flags: int = 0) -> str:
    """Record ``pattern`` (compiled later with ``flags``) as a built-in pattern whose op-codes the catalog
    cache keeps (issue 8); returns ``pattern``."""
    _DECLARED[(pattern, int(flags))] = None
    return pattern


def compile_builtin(pattern: str, flags: int = 0) -> Any:
    """A module constant: :func:`declare` then :func:`compile_known` (``regex.compile(pattern, flags)``,
    built from the cached op-codes when the catalog cache has them). Raises ``regex.error``."""
    return compile_known(declare(pattern, flags), flags)


def builtin_codes() -> dict:
    """``"<flags>\\0<pattern>"`` -> record for every built-in pattern of :data:`BUILTIN_PATTERN_MODULES`
    (imported here), for the catalog cache; patterns whose op-codes cannot be captured are left out."""
    return _captured(BUILTIN_PATTERN_MODULES, _DECLARED, compile_and_capture)


def _captured(modules, declared, capture) -> dict:
    """The records ``capture(pattern, flags)`` gives for the ``declared`` ``(pattern, flags)`` pairs, after
    importing ``modules`` (which declare their constants when imported)."""
    import importlib

    for name in modules:
        importlib.import_module(name)
    out = {}
    for pattern, flags in list(declared):
        try:
            _compiled, code = capture(pattern, flags)
        except Exception:  # a broken constant fails where it is compiled, not here
            continue
        if code is not None:
            out[f"{flags}\x00{pattern}"] = code
    return out


def _rebuilt(known: dict, build: Any, pattern: str, flags: int) -> Any:
    """The pattern ``build`` makes from the record remembered in ``known`` for ``(pattern, flags)``, or ``None``
    (no record, or one that does not build)."""
    record = known.get(f"{int(flags)}\x00{pattern}")
    return build(record) if record is not None else None


def compile_known(pattern: str, flags: int) -> Any:
    """``regex.compile(pattern, flags)``, built from remembered op-codes when the catalog cache had them
    (a rule's detector parameters, e.g. the ``html-comments`` patterns; issue 8). Raises ``regex.error``
    like ``regex.compile``."""
    compiled = _rebuilt(_KNOWN, from_code, pattern, flags)
    if compiled is not None:
        return compiled
    import regex

    return regex.compile(pattern, flags)


# --- Python's ``re`` ----------------------------------------------------------------------------------

def re_compile_and_capture(pattern: str, flags: int) -> tuple[Any, Optional[list]]:
    """``re.compile(pattern, flags)`` (a fresh object, not from ``re``'s cache) and the arguments it gave
    ``_sre.compile``, as a record for :func:`re_from_code` (or ``None`` when they cannot be captured).

    Raises ``re.error`` exactly as ``re.compile`` does.
    """
    import re

    comp = getattr(re, "_compiler", None)
    if comp is None or not hasattr(comp, "_sre"):  # pragma: no cover - another Python layout
        return re.compile(pattern, flags), None
    with _recording(comp, "_sre") as captured:
        compiled = comp.compile(pattern, int(flags))
    if len(captured) != 1:
        return compiled, None
    try:
        pat, fl, code, groups, groupindex, indexgroup = captured[0]
    except ValueError:
        return compiled, None
    if not (isinstance(pat, str) and all(isinstance(c, int) for c in code)):
        return compiled, None
    return compiled, [pat, int(fl), _pack(code), int(groups), {str(k): int(v) for k, v in groupindex.items()},
                      [None if g is None else str(g) for g in indexgroup]]


def re_from_code(record: Any) -> Optional[Any]:
    """The ``re`` pattern object for a record of :func:`re_compile_and_capture` (or its :func:`packed` form),
    or ``None`` when it cannot."""
    try:
        import _sre

        pat, fl, code, groups, groupindex, indexgroup = _record(record)
        return _sre.compile(pat, int(fl), _unpack(code), int(groups),
                            {str(k): int(v) for k, v in groupindex.items()},
                            tuple(None if g is None else str(g) for g in indexgroup))
    except Exception:  # any mismatch: compile the ordinary way
        return None


#: Modules whose import declares built-in ``re`` patterns (:func:`re_compile_builtin`); the catalog cache
#: imports them when it is written and stores the ``re`` op-codes of every declared pattern.
BUILTIN_RE_PATTERN_MODULES = ("hermes_audit.engine.markdown",)
#: ``(pattern, flags)`` of the built-in ``re`` patterns declared so far.
_RE_DECLARED: dict[tuple[str, int], None] = {}
#: ``re`` records of the catalog cache (Hermes' patterns and the built-in ``re`` constants), by
#: ``"<flags>\0<pattern>"`` (:func:`remember_re`); :func:`re_compile_builtin` looks them up.
_RE_KNOWN: dict[str, Any] = {}


def remember_re(records: dict) -> None:
    """Make ``records`` (``"<flags>\\0<pattern>"`` -> ``re`` record, as the catalog cache stores them)
    available to :func:`re_compile_builtin`."""
    _RE_KNOWN.update(records)


def re_compile_builtin(pattern: str, flags: int = 0) -> Any:
    """A module constant compiled with Python's ``re``: ``re.compile(pattern, flags)``, built from the
    cached op-codes when the catalog cache has them (issue 8: ``hermes_audit.engine.markdown`` compiles
    16 patterns when it is imported). Records the pattern for :func:`re_builtin_codes`. The lookup is by
    the pattern's text and flags, so a changed constant is simply compiled. Raises ``re.error`` like
    ``re.compile``."""
    _RE_DECLARED[(pattern, int(flags))] = None
    return re_compile_known(pattern, flags)


def re_compile_known(pattern: str, flags: int) -> Any:
    """``re.compile(pattern, flags)``, built from remembered op-codes (:func:`remember_re`) when the catalog
    cache had them (Hermes' patterns, the built-in ``re`` constants, the helper patterns of the engine's
    candidate-start narrowing). Raises ``re.error`` like ``re.compile``."""
    compiled = _rebuilt(_RE_KNOWN, re_from_code, pattern, flags)
    if compiled is not None:
        return compiled
    import re

    return re.compile(pattern, int(flags))


def re_builtin_codes() -> dict:
    """``"<flags>\\0<pattern>"`` -> ``re`` record for every built-in ``re`` pattern of
    :data:`BUILTIN_RE_PATTERN_MODULES` (imported here), for the catalog cache; patterns whose op-codes
    cannot be captured are left out."""
    return _captured(BUILTIN_RE_PATTERN_MODULES, _RE_DECLARED, re_compile_and_capture)


#: ``"<flags>\0<pattern>"`` -> ``None`` (the pattern has no tail) or ``(tail, record or None)``, for
#: ``hermes_audit.hermes.threats.tail_pattern``; filled from the catalog cache by :func:`remember_tails`.
_TAILS: dict[str, Any] = {}


def remember_tails(table: dict) -> None:
    """Make the cached tails of Hermes' patterns (see :data:`_TAILS`) available to :func:`known_tail`."""
    _TAILS.update(table)


def known_tail(pattern: str, flags: int) -> tuple[bool, Any]:
    """``(True, compiled tail or None)`` when the catalog cache knew the tail of ``(pattern, flags)``,
    else ``(False, None)``."""
    try:
        entry = _TAILS[f"{int(flags)}\x00{pattern}"]
    except KeyError:
        return False, None
    if entry is None:
        return True, None
    try:
        tail, record = entry
        compiled = re_from_code(record) if record is not None else None
        if compiled is None:
            import re

            compiled = re.compile(tail, int(flags))
        return True, compiled
    except Exception:  # a malformed entry: derive the tail again
        return False, None
