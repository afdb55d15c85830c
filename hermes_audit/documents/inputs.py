"""Hostile input, the facts: the ``input`` family (rules/hardening.yaml, issue 9). The findings and the
``input-encoding`` and ``yaml-duplicate-keys`` detectors are :mod:`hermes_audit.engine.inputs`.

Encodings first, then duplicate keys in YAML (:func:`duplicate_yaml_keys`).

Hermes reads every file it puts in the prompt as strict UTF-8
(``Path.read_text(encoding="utf-8")`` in hermes-agent 0.19.0
``agent/prompt_builder.py`` and ``tools/memory_tool.py``; ``utf-8-sig`` for
context files in the latest profile). What that means for odd input:

* a UTF-8 byte-order mark is kept as U+FEFF (0.19.0; Hermes strips one leading
  U+FEFF before scanning a context file) or dropped (``utf-8-sig``);
* UTF-16 or UTF-32 text (with or without a byte-order mark), Latin-1 or
  Windows-1252 text with a non-ASCII byte, a UTF-8-encoded surrogate
  (``ED A0 80``: CESU-8 or WTF-8), an overlong form, a truncated character: the
  decode fails. A context file is then treated as absent; a memory store
  raises in ``MemoryStore.load_from_disk`` and no memory is loaded;
* NUL and other control characters are valid UTF-8: Hermes loads them.

Two rules report this (codes in rules/hardening.yaml):

* ``HA951 not-utf8``: the file is not valid UTF-8. Such a document has no text,
  so the rule engine cannot run on it; :func:`hermes_audit.engine.inputs.input_findings` makes the finding
  for the scan pipeline. In the rule's examples (and tests) the ``input-encoding``
  detector reads a *bytes scenario* instead: a text whose first line is
  ``#hermes-audit-bytes`` and whose rest is the file's bytes, written with
  Python escapes (``\\xe9``) for anything that is not plain UTF-8;
* ``HA952 nul-character``: NUL characters in a UTF-8 file. Git and GitHub call a
  file with a NUL in its first 8,000 bytes binary and show no diff of it, so a
  reviewer never reads what Hermes loads.
* ``HA953 duplicate-yaml-key``: a key that appears twice in one mapping of a
  ``distribution.yaml``. Hermes parses it with ``yaml.safe_load``
  (``hermes_cli/profile_distribution.py``, 0.19.0), which keeps the last value
  without a word; a reviewer reading the first one is misled.
"""

from __future__ import annotations

import codecs
from typing import Optional

from hermes_audit.documents.kinds import DocumentKind
from hermes_audit.documents.reader import ReadResult

#: First line of a bytes scenario (rule examples of HA951).
BYTES_MAGIC = "#hermes-audit-bytes"
#: Rule codes (rules/hardening.yaml).
NOT_UTF8 = "HA951"
NUL_CHARACTER = "HA952"
DUPLICATE_YAML_KEY = "HA953"
#: YAML nodes inspected for duplicate keys (the bounded loader's limit).
MAX_DUPLICATE_CHECK_NODES = 100_000


def why_not_utf8(read: ReadResult) -> str:
    """A short explanation of a decode failure, from the byte-order mark and the first bad bytes.

    Returns e.g. ``"it is UTF-16-LE text (byte-order mark)"``, ``"it is binary data: an ELF executable
    or library, not text"`` (NUL bytes or a file signature, :func:`hermes_audit.documents.reader.binary_clue`:
    never described as a legacy encoding) or ``"bytes ED A0 80 encode a UTF-16 surrogate (CESU-8 or
    WTF-8), which UTF-8 forbids"``; ``""`` when nothing is known.
    """
    if read.bom in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        return f"it is {read.bom.upper()} text (it starts with that byte-order mark)"
    if read.binary:  # NUL bytes or a file signature: not text in some other encoding
        return f"it is {read.binary}, not text" if read.binary.startswith("binary") else f"it is {read.binary}"
    bad = read.bad_bytes or b""
    if not bad:
        return ""
    shown = " ".join(f"{b:02X}" for b in bad[:3])
    b0 = bad[0]
    if b0 == 0xED and len(bad) > 1 and 0xA0 <= bad[1] <= 0xBF:
        return f"bytes {shown} encode a UTF-16 surrogate (CESU-8 or WTF-8), which UTF-8 forbids"
    if b0 in (0xC0, 0xC1) or (b0 == 0xE0 and len(bad) > 1 and bad[1] < 0xA0) or (
            b0 == 0xF0 and len(bad) > 1 and bad[1] < 0x90):
        return f"bytes {shown} are an overlong encoding, which UTF-8 forbids"
    if b0 >= 0xF5:
        return f"byte {b0:02X} never occurs in UTF-8"
    if 0x80 <= b0 <= 0xBF:
        return f"byte {b0:02X} continues a character that never started: typical of Latin-1 or Windows-1252 text"
    if b0 == 0xF4 and len(bad) > 1 and bad[1] >= 0x90:
        return f"bytes {shown} encode a code point beyond U+10FFFF, which UTF-8 forbids"
    if 0xC2 <= b0 <= 0xF4:
        need = 2 if b0 <= 0xDF else 3 if b0 <= 0xEF else 4
        run = 1
        while run < len(bad) and 0x80 <= bad[run] <= 0xBF:
            run += 1
        at_end = read.decode_error_offset is not None and read.decode_error_offset + run >= read.size_bytes
        if run < need and at_end:
            return f"the file ends inside a character (bytes {shown})"
        return f"byte {b0:02X} starts a character that does not continue: typical of Latin-1 or Windows-1252 text"
    return ""


def consequence(kind: DocumentKind, profile_label: str, memory_read_checked: bool = False) -> str:
    """What Hermes (``profile_label``, e.g. ``Hermes 0.19.0``) does with a file of ``kind`` it cannot decode.
    ``memory_read_checked``: the version reads an undecodable memory store as empty (0.20.1
    ``MemoryStore._read_entries_checked``) instead of failing the whole memory load."""
    if kind.is_memory_store and memory_read_checked:
        return (f"{profile_label} catches the decode error and treats this store as empty "
                "(the other store still loads)")
    if kind.is_memory_store:
        return (f"{profile_label} raises a decode error in MemoryStore.load_from_disk, so no memory "
                "(MEMORY.md or USER.md) is loaded")
    if kind is DocumentKind.DISTRIBUTION:
        return f"{profile_label} cannot parse it, so the profile distribution does not install"
    if kind is DocumentKind.SKILL:
        return f"{profile_label} cannot read the skill"
    return f"{profile_label} fails to decode it and treats it as absent"


def not_utf8_message(read: ReadResult, kind: DocumentKind, profile_label: str, memory_read_checked: bool = False) -> str:
    """The HA951 message for a file whose ``read`` status is ``not-utf8`` (``memory_read_checked``: see
    :func:`consequence`)."""
    why = why_not_utf8(read)
    offset = "" if read.decode_error_offset is None else f" at byte {read.decode_error_offset:,}"
    return (f"not valid UTF-8{offset}" + (f": {why}" if why else "")
            + f"; {consequence(kind, profile_label, memory_read_checked)}; hermes-audit cannot scan its text either")


# ---------------------------------------------------------------------------------------------------
# The `input-encoding` detector


def scenario_bytes(text: str) -> Optional[bytes]:
    """The bytes of a bytes scenario (see the module docstring), or ``None`` when ``text`` is not one.

    Everything after the first line is encoded as UTF-8, then Python escapes
    (``\\xNN``, ``\\n``, ``\\\\``) are turned into bytes.
    """
    if not text.startswith(BYTES_MAGIC):
        return None
    _, _, body = text.partition("\n")
    try:
        data, _ = codecs.escape_decode(body.encode("utf-8", "surrogatepass"))
    except (ValueError, UnicodeError):
        return None
    return bytes(data)


# ---------------------------------------------------------------------------------------------------
# Duplicate keys in YAML


def duplicate_yaml_keys(text: str) -> list[tuple[str, int, int, int]]:
    """Keys that appear more than once in one YAML mapping: ``(key, start, end, first_line)``.

    ``start``/``end`` is the character span of the repeated key in ``text``
    and ``first_line`` (1-based) the line of its first occurrence. Keys are
    compared as resolved scalars (tag and text), merge keys (``<<``) are
    skipped. Text that is not valid YAML, nested too deeply or larger than
    :data:`MAX_DUPLICATE_CHECK_NODES` nodes yields what was found so far (the
    bounded loader reports the problem itself). Never constructs objects.
    """
    if ":" not in text and "?" not in text and "{" not in text:
        # issue 8: PyYAML composes a mapping only after a ':' or '?' indicator or a '{': without one
        # there is no key at all (the pure-Python parser costs ~0.5 s per MB of plain scalar)
        return []
    return composed_duplicate_keys(text)


#: Flow collections nested deeper than this cannot be composed by PyYAML (its composer spends two Python
#: frames a level, past the default recursion limit of 1,000: ``RecursionError``), and its scanner costs time
#: quadratic in the depth before it gets there (red team, issue 18: 7 s for one 2 KB file of 1,000 ``[``).
MAX_FLOW_DEPTH = 500


def yaml_flow_depth_exceeds(text: str, limit: int = MAX_FLOW_DEPTH) -> bool:
    """True when ``[``/``{`` brackets outside quoted scalars and comments nest more than ``limit`` deep. One
    linear pass; quoting is followed roughly (a quote opens a scalar only at the start of a value), which can
    only overcount, and only a document no honest manifest resembles reaches the limit."""
    depth = 0
    quote = ""
    prev = "\n"
    comment = False
    for ch in text:
        if comment:
            comment = ch != "\n"
        elif quote:
            if ch == quote:
                quote = ""
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return True
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch in "'\"" and prev in " \t\n[{,:":
            quote = ch
        elif ch == "#" and prev in " \t\n":
            comment = True
        prev = ch
    return False


#: A document with more separators than this (an estimate of its nodes: flow commas and brackets, lines,
#: keys) is not given to PyYAML: the pure-Python parser costs about 0.03-0.1 ms a node (red team, issue 18:
#: 400,000 items in an 800 KB manifest took 77 s; 99,000 took 3 s, per file). A distribution's manifest,
#: config.yaml, cron files and SKILL.md front matter hold tens to hundreds of nodes.
MAX_ESTIMATED_NODES = 20_000

_COMPOSED: dict = {}


def compose_yaml(text: str):
    """``("node", root)``, ``("deep", None)`` (a ``RecursionError``: nested too deeply), ``("large", n)``
    (more than :data:`MAX_ESTIMATED_NODES` separators, not parsed) or ``("error", exc)`` (``yaml.YAMLError``)
    for ``text``, composed once with ``yaml.SafeLoader`` and kept for the last few texts: a manifest is read by
    the Hermes model, the duplicate-key check and the bomb check, and each composition costs the same."""
    import yaml

    key = hash(text), len(text)
    got = _COMPOSED.get(key)
    if got is not None and got[0] == text:
        return got[1]
    estimate = (text.count(",") + text.count("\n") + text.count(": ") + text.count("[") + text.count("{")
                + text.count("? "))
    if yaml_flow_depth_exceeds(text):
        result = ("deep", None)
    elif estimate > MAX_ESTIMATED_NODES:
        result = ("large", estimate)
    else:
        try:
            loader = yaml.SafeLoader(text)
        except yaml.YAMLError as exc:
            result = ("error", exc)
        else:
            try:
                result = ("node", loader.get_single_node())
            except RecursionError:
                result = ("deep", None)
            except yaml.YAMLError as exc:
                result = ("error", exc)
            finally:
                loader.dispose()
    if len(_COMPOSED) >= 4:
        _COMPOSED.clear()
    _COMPOSED[key] = (text, result)
    return result


def composed_duplicate_keys(text: str) -> list[tuple[str, int, int, int]]:
    """:func:`duplicate_yaml_keys` without its pre-check: the text composed and every mapping walked (the
    equivalence tests compare the two)."""
    import yaml

    what, root = compose_yaml(text)  # the reader already refuses some characters (NUL)
    if what != "node":
        return []  # not YAML, nested too deeply, or too large to compose
    out: list[tuple[str, int, int, int]] = []
    if root is None:
        return out
    stack = [root]
    seen_nodes: set[int] = set()
    while stack and len(seen_nodes) < MAX_DUPLICATE_CHECK_NODES:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[tuple[str, str], int] = {}
            for k, v in node.value:
                stack.append(v)
                if not isinstance(k, yaml.ScalarNode):
                    stack.append(k)
                    continue
                if k.tag == "tag:yaml.org,2002:merge":
                    continue
                key = (k.tag, k.value)
                if key in first:
                    out.append((k.value, k.start_mark.index, k.end_mark.index, first[key]))
                else:
                    first[key] = k.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    out.sort(key=lambda d: d[1])
    return out

