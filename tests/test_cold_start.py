"""One-time costs of the first scan in a fresh process (issue 8, pre-commit latency).

* ``hermes_audit.patterns.regex_code.c_module``: patterns rebuilt from cached op-codes need only the ``regex``
  C extension; the package is imported lazily by the few pattern methods that call back into it.
* ``hermes_audit.datacache.stat_key``: the confusables table is found by a cheap key over its files'
  signatures, like the catalog; a rewritten file is hashed again.
* ``hermes_audit.patterns.keywords``: the whitespace test of the keyword split.
* The flag constants written as ints where importing ``regex`` is avoided.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from hermes_audit.patterns import regex_code

ROOT = Path(__file__).resolve().parents[1]

#: Run in a fresh interpreter (``regex`` not yet imported); prints one line per check.
_C_ONLY = r'''
import copy, pickle, sys
from hermes_audit.patterns import regex_code as R
rec = bytes.fromhex(sys.argv[1])
p = R.from_code(rec)
assert p is not None
out = []
out.append(("built", "regex" in sys.modules))
m = p.search("xx FOObar foo")
out.append(("search", m.span(), m.group("w"), m.groups(), [x.span() for x in p.finditer("foo fooo")]))
out.append(("literal-sub", p.sub("X", "foo bar"), "regex" in sys.modules))
out.append(("flags", int(p.flags), p.groupindex))
out.append(("pickle", pickle.loads(pickle.dumps(p)).pattern))
out.append(("template-sub", p.sub(r"<\g<w>>", "foo bar"), m.expand(r"[\1]")))
import regex
out.append(("package", regex._regex.compile is R.c_module().compile, type(p) is type(regex.compile("x"))))
print(repr(out))
'''


def test_patterns_from_op_codes_work_before_and_after_the_regex_package_is_imported():
    pattern, flags = r"(?P<w>fo+)(bar)?", regex.IGNORECASE
    rec = regex_code.packed(regex_code.compile_and_capture(pattern, flags)[1])
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _C_ONLY, rec.hex()], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = dict((row[0], row[1:]) for row in eval(proc.stdout))  # noqa: S307 - our own repr of plain data
    fresh = regex.compile(pattern, flags)
    fm = fresh.search("xx FOObar foo")
    assert got["built"] == (False,)  # rebuilding needed only the C extension
    assert got["search"] == (fm.span(), fm.group("w"), fm.groups(), [x.span() for x in fresh.finditer("foo fooo")])
    assert got["literal-sub"] == (fresh.sub("X", "foo bar"), False)
    assert got["flags"] == (int(fresh.flags), fresh.groupindex)
    assert got["pickle"] == (pattern,)  # pickling imports the package and uses its own reducer
    assert got["template-sub"] == (fresh.sub(r"<\g<w>>", "foo bar"), fm.expand(r"[\1]"))
    assert got["package"] == (True, True)  # one extension, the package's ``_regex`` attribute set as usual


def test_c_module_is_the_packages_extension_once_regex_is_imported():
    import regex as pkg

    assert regex_code.c_module().compile is pkg._regex.compile


def test_flag_constants_written_as_ints_equal_regex_flags():
    from hermes_audit.engine import comments
    from hermes_audit.patterns import catalog, prefilter

    assert catalog._FLAG_NAMES == {"ignorecase": int(regex.IGNORECASE), "multiline": int(regex.MULTILINE),
                                   "dotall": int(regex.DOTALL)}
    assert catalog._PARAM_PATTERN_FLAGS == int(regex.IGNORECASE | regex.DOTALL) == comments._FLAGS
    assert prefilter._REGEX_REVERSE == int(regex.REVERSE)


def test_regex_package_files_exist_and_name_the_installed_package():
    files = regex_code.package_files()
    assert files is not None and all(os.path.isfile(f) for f in files)
    assert os.path.dirname(files[0]) == os.path.dirname(regex.__file__)
    assert any(os.path.samefile(f, regex._regex.__file__) for f in files)


def test_confusables_found_by_stat_key_without_reading_until_a_file_is_rewritten(tmp_path, monkeypatch):
    from hermes_audit.engine import deobfuscate as deob

    table = tmp_path / "confusables.txt"
    table.write_bytes(deob.CONFUSABLES_PATH.read_bytes())
    monkeypatch.setattr(deob, "CONFUSABLES_PATH", table)
    monkeypatch.setenv("HERMES_AUDIT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("HERMES_AUDIT_NO_CACHE", raising=False)
    build = deob.confusable_prototypes.__wrapped__  # past the lru_cache
    cold = build()
    assert cold and len(list((tmp_path / "cache").glob("confusableskey-*.marshal"))) == 1

    def no_open(*args, **kwargs):
        raise AssertionError("confusables file read")

    monkeypatch.setattr(deob, "open", no_open, raising=False)
    assert build() == cold  # found by the cheap key: neither read nor hashed
    st_ = os.stat(table)
    table.write_bytes(table.read_bytes())  # same bytes, new change time
    os.utime(table, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    with pytest.raises(AssertionError, match="read"):
        build()
    monkeypatch.delattr(deob, "open")
    assert build() == cold  # hashed again; the content entry is found
    assert build() == cold  # and the new cheap key too
    # changed bytes: a different table, never the cached one
    lines = table.read_text(encoding="utf-8-sig").splitlines(keepends=True)
    kept = [ln for ln in lines if not ln.startswith("0430 ")]  # CYRILLIC SMALL LETTER A -> a
    assert len(kept) == len(lines) - 1
    table.write_text("".join(kept), encoding="utf-8")
    changed = build()
    assert "\u0430" in cold and "\u0430" not in changed


def test_stat_key_is_none_for_a_missing_file(tmp_path):
    from hermes_audit import datacache

    f = tmp_path / "a"
    f.write_text("x")
    assert datacache.stat_key(["k"], [f]) is not None
    assert datacache.stat_key(["k"], [f, tmp_path / "missing"]) is None
    assert datacache.read_stat_key("catalog", None) is None
    assert datacache.write_stat_key("catalog", None, "x") is False


@given(st.text(alphabet=st.sampled_from(list("ab-_ \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028"
                                             "\u2029\u202f\u205f\u3000\u200b\ufeff")), max_size=8))
def test_keyword_whitespace_test_is_str_isspace(s):
    from hermes_audit.patterns import keywords

    assert keywords.has_space(s) == any(c.isspace() for c in s)
