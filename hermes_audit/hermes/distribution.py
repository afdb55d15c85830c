"""Profile distributions as ``hermes profile install`` treats them: manifest, refusals, install plan.

Mirrors ``hermes_cli/profile_distribution.py`` and the profile-name checks of
``hermes_cli/profiles.py`` in hermes-agent 0.19.0 (profile ``0.19``; 0.18.2 has
the same file), 0.20.1 (profile ``0.20``), and the decomposed newest public
source for profile ``latest`` (index id 68582127806, see
``../shared/reference/hermes-behaviour.md`` section 6); what differs is read
from the profile's ``distribution_*`` switches:

* ``distribution.yaml`` at the root, read with ``yaml.safe_load``; the schema
  checks and their messages are Hermes' own (``DistributionManifest.from_dict``,
  ``EnvRequirement.from_dict``, ``check_hermes_requires``,
  ``validate_profile_name``); Hermes stops at the first one;
* any symlink anywhere in the tree refuses the install
  (``Profile distributions cannot contain symlinks: <rel>``);
* the copy: 0.19 copies every top-level entry except the user-owned names
  (``distribution_owned`` is not consulted); 0.20.1 and latest copy only the
  listed paths when the list is non-empty (paths under a user-owned first segment,
  with ``..`` or absolute are skipped); ``.env.template`` lands as
  ``.env.EXAMPLE``; ``.env.EXAMPLE`` is generated from ``env_requires`` when
  none was shipped; ``distribution.yaml`` is rewritten; a fresh install first
  creates the bootstrap directories.

Reading is hostile-input safe: the manifest is size-bounded and parsed with a
loader that refuses YAML alias bombs; the tree walk never follows symlinks and
is bounded in entries and depth. Nothing is ever written.
"""

from __future__ import annotations

import copy
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Optional

import yaml

from hermes_audit.documents.reader import FILE_TYPE_WORDS, file_type
from hermes_audit.documents.inputs import MAX_ESTIMATED_NODES, compose_yaml
from hermes_audit.documents.reader import ReadStatus, read_file

if TYPE_CHECKING:
    from hermes_audit.hermes.profiles import VersionProfile

MANIFEST_FILENAME = "distribution.yaml"
ENV_TEMPLATE_FILENAME = ".env.template"
ENV_EXAMPLE_FILENAME = ".env.EXAMPLE"
#: ``DEFAULT_DIST_OWNED`` (informational in Hermes: what ``owned_paths()`` returns without a list).
DEFAULT_DIST_OWNED = ("SOUL.md", "config.yaml", "mcp.json", "skills", "cron", MANIFEST_FILENAME)
#: ``USER_OWNED_EXCLUDE``: top-level names never copied from a distribution (identical in 0.19 and latest).
USER_OWNED_EXCLUDE = frozenset({
    "auth.json", ".env",
    "state.db", "state.db-shm", "state.db-wal", "hermes_state.db", "response_store.db",
    "response_store.db-shm", "response_store.db-wal", "gateway.pid", "gateway_state.json", "processes.json",
    "auth.lock", "active_profile", ".update_check", "errors.log", ".hermes_history",
    "memories", "sessions", "logs", "plans", "workspace", "home", "image_cache", "audio_cache", "document_cache",
    "browser_screenshots", "checkpoints", "sandboxes", "backups", "cache",
    "hermes-agent", ".worktrees", "profiles", "bin", "node_modules",
    "local",
})
#: Directories a fresh install creates first (``_bootstrap_user_dirs``; latest: ``profiles._PROFILE_DIRS``, same list).
BOOTSTRAP_DIRS = ("memories", "sessions", "skills", "skins", "logs", "plans", "workspace", "cron", "home")
#: ``_PROFILE_ID_RE`` and ``_RESERVED_NAMES`` of hermes_cli/profiles.py.
PROFILE_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
RESERVED_NAMES = frozenset({"hermes", "default", "test", "tmp", "root", "sudo"})
#: ``_looks_like_git_url``'s GitHub shorthand.
GITHUB_SHORTHAND_RE = re.compile(r"^github\.com/[\w.-]+/[\w.-]+/?$")
_VERSION_OP_RE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(.+?)\s*$")

#: Largest manifest read (bytes). Real manifests are a few hundred bytes.
MAX_MANIFEST_BYTES = 1024 * 1024
#: YAML limits: composed nodes, and values after expanding aliases.
MAX_YAML_NODES = 100_000
MAX_YAML_EXPANDED = 200_000
#: Tree walk limits (entries, directory depth).
MAX_TREE_ENTRIES = 200_000
MAX_TREE_DEPTH = 256


class DistributionError(Exception):
    """Hermes refuses the distribution; the message is Hermes' own wording (one logical line)."""


class YamlLimitError(ValueError):
    """A YAML document exceeds hermes-audit's safety limits. :attr:`kind` says which: ``"bomb"`` (aliases
    expanding past the limit), ``"self-reference"``, ``"nodes"`` (too many nodes) or ``"depth"`` (nested
    too deeply for PyYAML's recursive parser)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------------------
# Bounded YAML
# ---------------------------------------------------------------------------


def load_yaml_bounded(text: str, max_nodes: int = MAX_YAML_NODES, max_expanded: int = MAX_YAML_EXPANDED) -> Any:
    """``yaml.safe_load`` with limits: the node graph is checked before anything is constructed.

    Raises :class:`YamlLimitError` when the document has more than
    ``max_nodes`` nodes, an alias that contains itself, aliases that
    expand to more than ``max_expanded`` values (a "billion laughs" bomb), or
    collections nested too deeply for the parser (``RecursionError`` inside
    PyYAML, issue 9); ``yaml.YAMLError`` for invalid YAML. Only safe tags are
    constructed.
    """
    what, node = compose_yaml(text)  # composed once per text (flow depth and size checked first)
    if what == "deep":
        raise YamlLimitError("its collections are nested too deeply", "depth")
    if what == "large":
        raise YamlLimitError(f"it has more than {MAX_ESTIMATED_NODES:,} separators (values, keys, lines)", "nodes")
    if what == "error":
        raise node
    if node is None:
        return None
    _check_graph(node, max_nodes, max_expanded)
    if "<<" in text or "merge" in text:
        # PyYAML's constructor flattens merge keys in place (``flatten_mapping``): the composed node is kept
        # for the next reader of the same text (compose_yaml), which must see it as parsed
        node = copy.deepcopy(node)
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_document(node)
    except RecursionError:
        raise YamlLimitError("its collections are nested too deeply", "depth") from None
    finally:
        loader.dispose()


def _check_graph(root: yaml.Node, max_nodes: int, max_expanded: int) -> None:
    size: dict[int, int] = {}
    seen_nodes = 0
    # iterative post-order with cycle detection
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    active: set[int] = set()
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            active.discard(nid)
            total = 1
            for child in _children(node):
                total += size[id(child)]
                if total > max_expanded:
                    raise YamlLimitError(
                        f"its aliases expand to more than {max_expanded:,} values (a YAML bomb)", "bomb")
            size[nid] = total
            continue
        if nid in size:
            continue
        if nid in active:
            raise YamlLimitError("an alias refers to a node that contains it (self-referencing YAML)", "self-reference")
        seen_nodes += 1
        if seen_nodes > max_nodes:
            raise YamlLimitError(f"it has more than {max_nodes:,} YAML nodes", "nodes")
        active.add(nid)
        stack.append((node, True))
        for child in _children(node):
            cid = id(child)
            if cid in active:
                raise YamlLimitError("an alias refers to a node that contains it (self-referencing YAML)", "self-reference")
            if cid not in size:
                stack.append((child, False))


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.MappingNode):
        out = []
        for k, v in node.value:
            out.append(k)
            out.append(v)
        return out
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


# ---------------------------------------------------------------------------
# Manifest
# ---------------------------------------------------------------------------


@dataclass
class EnvRequirement:
    """One ``env_requires`` entry (``EnvRequirement`` in Hermes)."""

    name: str
    description: str = ""
    required: bool = True
    default: Any = None

    def to_dict(self) -> dict:
        out: dict = {"name": self.name, "description": self.description}
        if not self.required:
            out["required"] = False
        if self.default is not None:
            out["default"] = self.default
        return out


@dataclass
class Manifest:
    """A parsed ``distribution.yaml`` with Hermes' defaults and conversions applied.

    ``unknown_keys`` are keys Hermes ignores (and drops when it rewrites the
    manifest); ``notes`` explain values Hermes converts surprisingly (a
    ``required: "no"`` string is true, a number name becomes text...).
    """

    name: str
    version: str = "0.1.0"
    description: str = ""
    hermes_requires: str = ""
    author: str = ""
    license: str = ""
    env_requires: list[EnvRequirement] = field(default_factory=list)
    distribution_owned: list[str] = field(default_factory=list)
    source: str = ""
    installed_at: str = ""
    unknown_keys: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    raw_owned: list[Any] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The mapping Hermes writes back (``DistributionManifest.to_dict``, key order kept)."""
        out: dict = {"name": self.name, "version": self.version}
        for key in ("description", "hermes_requires", "author", "license"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.env_requires:
            out["env_requires"] = [e.to_dict() for e in self.env_requires]
        if self.distribution_owned:
            out["distribution_owned"] = list(self.distribution_owned)
        if self.source:
            out["source"] = self.source
        if self.installed_at:
            out["installed_at"] = self.installed_at
        return out

    def owned_paths(self) -> list[str]:
        """``owned_paths()``: the list, or ``DEFAULT_DIST_OWNED`` when it is empty."""
        return list(self.distribution_owned) if self.distribution_owned else list(DEFAULT_DIST_OWNED)


_KNOWN_KEYS = {"name", "version", "description", "hermes_requires", "author", "license", "env_requires",
               "distribution_owned", "source", "installed_at"}


def _hstr(value: Any, default: str = "") -> str:
    """Hermes' ``str(data.get(key) or default)``."""
    return str(value or default)


def manifest_from_data(data: Any) -> Manifest:
    """``DistributionManifest.from_dict``: Hermes' checks in Hermes' order.

    Raises :class:`DistributionError` with Hermes' message for the first
    problem: not a mapping, missing ``name``, ``env_requires`` not a list or
    with a bad entry, ``distribution_owned`` not a list.
    """
    if not isinstance(data, dict):
        raise DistributionError(f"{MANIFEST_FILENAME} must be a mapping, got {type(data).__name__}")
    name = _hstr(data.get("name")).strip()
    if not name:
        raise DistributionError(f"{MANIFEST_FILENAME} missing 'name'")
    env_raw = data.get("env_requires") or []
    if not isinstance(env_raw, list):
        raise DistributionError("env_requires must be a list")
    env: list[EnvRequirement] = []
    notes: list[str] = []
    for item in env_raw:
        if not isinstance(item, dict):
            raise DistributionError(f"env_requires entry must be a mapping, got {type(item).__name__}")
        ename = _hstr(item.get("name")).strip()
        if not ename:
            raise DistributionError("env_requires entry missing 'name'")
        req_raw = item.get("required", True)
        if isinstance(req_raw, str):
            notes.append(f"env_requires {ename}: required is the string {req_raw!r}; Hermes uses bool(), so "
                         f"it counts as {'required' if bool(req_raw) else 'optional'}")
        env.append(EnvRequirement(ename, _hstr(item.get("description")), bool(req_raw), item.get("default")))
    owned_raw = data.get("distribution_owned") or []
    if owned_raw and not isinstance(owned_raw, list):
        raise DistributionError("distribution_owned must be a list")
    owned_list = owned_raw if isinstance(owned_raw, list) else []
    owned = [str(p).strip().strip("/") for p in owned_list if str(p).strip()]
    for key in ("name", "version", "description", "hermes_requires", "author", "license"):
        v = data.get(key)
        if v is not None and not isinstance(v, str):
            notes.append(f"{key} is a {type(v).__name__}, not text; Hermes uses {_hstr(v)[:60]!r}")
    unknown = sorted(str(k) for k in data if k not in _KNOWN_KEYS)
    return Manifest(
        name=name,
        version=_hstr(data.get("version"), "0.1.0"),
        description=_hstr(data.get("description")),
        hermes_requires=_hstr(data.get("hermes_requires")),
        author=_hstr(data.get("author")),
        license=_hstr(data.get("license")),
        env_requires=env,
        distribution_owned=owned,
        source=_hstr(data.get("source")),
        installed_at=_hstr(data.get("installed_at")),
        unknown_keys=unknown,
        notes=notes,
        raw_owned=list(owned_list),
    )


@dataclass
class ManifestRead:
    """Outcome of reading ``distribution.yaml``: the manifest, or Hermes' refusal, or a hermes-audit limit.

    ``hermes_effect`` (with a ``limit`` error, or with ``bomb``) says what Hermes does with a manifest
    whose aliases hermes-audit would not expand (:func:`hermes_on_alias_bomb`). ``bomb`` describes an alias
    bomb that sits only in keys Hermes ignores: the manifest is then evaluated without those values.
    """

    manifest: Optional[Manifest] = None
    error: Optional[str] = None
    #: "hermes" when Hermes itself refuses with ``error``; "limit" when hermes-audit will not evaluate it
    error_kind: str = ""
    data: Any = None
    hermes_effect: str = ""
    bomb: str = ""
    #: where PyYAML stopped, as a 0-based code-point offset into the manifest text (a YAML error only)
    error_offset: Optional[int] = None


def yaml_error_text(exc: Exception) -> str:
    """PyYAML's error message on one line: context and problem with their positions as
    ``line L, column C`` (1-based); the source excerpt and caret of its multi-line message are dropped."""
    if isinstance(exc, yaml.MarkedYAMLError):
        parts = []
        for what, mark in ((exc.context, exc.context_mark), (exc.problem, exc.problem_mark)):
            if what:
                parts.append(what + (f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""))
        if exc.note:
            parts.append(exc.note)
        if parts:
            return ": ".join(" ".join(p.split()) for p in parts)
    return " ".join(str(exc).split())


def yaml_error_offset(exc: Exception) -> Optional[int]:
    """The 0-based code-point offset PyYAML gives for ``exc``, or ``None`` when the error carries no position.

    The problem mark, unless it sits at the end of the stream (an unclosed construct), where the context
    mark (the construct's start) is the more useful place to point at."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return None
    marks = [m for m in (exc.problem_mark, exc.context_mark) if m is not None and getattr(m, "index", None) is not None]
    if not marks:
        return None
    inside = [m for m in marks if m.buffer is None or m.index < len(m.buffer.rstrip("\0"))]
    return int((inside or marks)[0].index)


def parse_manifest_text(text: str, display_path: str) -> ManifestRead:
    """Parse manifest text as Hermes does (``read_manifest``), with hermes-audit's YAML limits.

    A YAML error is Hermes' ``Failed to parse <path>: <PyYAML message>``, the message put on one line
    (:func:`yaml_error_text`). A document over the limits is not constructed; an alias bomb is
    examined as a node graph instead (:func:`hermes_on_alias_bomb`).
    """
    try:
        data = load_yaml_bounded(text)
    except YamlLimitError as exc:
        effect, partial, where = hermes_on_alias_bomb(text, display_path)
        if partial is None:
            return ManifestRead(error=f"hermes-audit did not evaluate {MANIFEST_FILENAME}: {exc}", error_kind="limit",
                                hermes_effect=effect)
        read = parse_manifest_data(partial)
        verb = "hold" if where.startswith("keys") else "holds"
        read.bomb = (f"{where} of {MANIFEST_FILENAME} {verb} a YAML alias bomb (more than {MAX_YAML_EXPANDED:,} "
                     "values when expanded); hermes-audit did not expand it")
        read.hermes_effect = effect
        return read
    except yaml.YAMLError as exc:
        return ManifestRead(error=f"Failed to parse {display_path}: {yaml_error_text(exc)}", error_kind="hermes",
                            error_offset=yaml_error_offset(exc))
    return parse_manifest_data(data)


def parse_manifest_data(data: Any) -> ManifestRead:
    """:func:`manifest_from_data` as a :class:`ManifestRead` (Hermes' refusal in ``error``)."""
    try:
        return ManifestRead(manifest_from_data(data or {}), data=data)
    except DistributionError as exc:
        return ManifestRead(error=str(exc), error_kind="hermes", data=data)


#: Manifest fields ``DistributionManifest.from_dict`` turns into text with ``str()``, in its order after
#: ``name``, ``env_requires`` and ``distribution_owned`` (hermes-agent 0.19.0 hermes_cli/profile_distribution.py).
_STR_FIELDS = ("version", "description", "hermes_requires", "author", "license", "source", "installed_at")


def _expanded_sizes(root: yaml.Node, max_nodes: int = MAX_YAML_NODES) -> dict[int, int]:
    """Values each node expands to (itself included), by node id. Raises :class:`YamlLimitError` for a
    self-referencing alias or more than ``max_nodes`` distinct nodes."""
    size: dict[int, int] = {}
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        nid = id(node)
        if done:
            active.discard(nid)
            size[nid] = 1 + sum(size[id(c)] for c in _children(node))
            continue
        if nid in size:
            continue
        if nid in active:
            raise YamlLimitError("an alias refers to a node that contains it (self-referencing YAML)", "self-reference")
        if len(size) + len(active) >= max_nodes:
            raise YamlLimitError(f"it has more than {max_nodes:,} YAML nodes", "nodes")
        active.add(nid)
        stack.append((node, True))
        for c in _children(node):
            if id(c) in active:
                raise YamlLimitError("an alias refers to a node that contains it (self-referencing YAML)", "self-reference")
            if id(c) not in size:
                stack.append((c, False))
    return size


def hermes_on_alias_bomb(text: str, display_path: str = MANIFEST_FILENAME,
                         max_expanded: int = MAX_YAML_EXPANDED) -> tuple[str, Optional[dict], str]:
    """What Hermes does with a manifest whose aliases expand past ``max_expanded`` values.

    Hermes parses it with ``yaml.safe_load``, which is quick: an alias becomes a second reference to the
    same Python object, nothing is copied. The expansion happens only where Hermes turns a value into text
    with ``str()`` (``DistributionManifest.from_dict`` and the ``.env.EXAMPLE`` it writes, hermes-agent
    0.19.0 ``hermes_cli/profile_distribution.py``): that takes time and memory in proportion to the
    expanded size, so the install hangs or runs out of memory. Returns ``(effect, data, where)``:
    ``effect`` is one clause saying what Hermes does; ``data`` is the manifest with the bombed values
    replaced by ``None`` when Hermes never expands them (they sit in keys it ignores), else ``None``;
    ``where`` names those keys. Only the node graph is examined; nothing is expanded.
    """
    quick = "Hermes parses it with yaml.safe_load (quickly: an alias is a shared reference, nothing is copied)"
    too_deep = ("Hermes' yaml.safe_load fails on it as hermes-audit's parse did (RecursionError: collections nested "
                f"too deeply) and `hermes profile install` refuses it: Failed to parse {display_path}")
    what, root = compose_yaml(text)
    if what == "deep":  # read_manifest turns every exception of yaml.safe_load into a refusal
        return too_deep, None, ""
    if what == "large":
        return (f"{quick}; what it does with a document of over {MAX_ESTIMATED_NODES:,} separators is not "
                "predicted"), None, ""
    if what == "error":
        return f"{quick}; what it does next is not predicted", None, ""
    try:
        sizes = _expanded_sizes(root) if root is not None else {}
    except RecursionError:
        return too_deep, None, ""
    except YamlLimitError as exc:
        return f"{quick}; what it does with a document where {exc} is not predicted", None, ""

    def big(node: Optional[yaml.Node]) -> bool:
        return node is not None and sizes.get(id(node), 0) > max_expanded

    def hang(what: str, node: yaml.Node) -> str:
        return (f"{quick}, then turns {what} into text with str(), which expands {sizes[id(node)]:,} values: "
                "`hermes profile install` hangs or runs out of memory")

    if not isinstance(root, yaml.MappingNode):
        kind = "list" if isinstance(root, yaml.SequenceNode) else "str"
        return f"{quick} and refuses it: {MANIFEST_FILENAME} must be a mapping, got {kind}", None, ""
    fields: dict[str, yaml.Node] = {}
    for k, v in root.value:
        if not isinstance(k, yaml.ScalarNode):
            return (f"{quick} and refuses it: Failed to parse {display_path}: a mapping key is a collection "
                    "(found unhashable key)"), None, ""
        fields[k.value] = v
    name = fields.get("name")
    if big(name):
        return hang("'name'", name), None, ""
    env = fields.get("env_requires")
    if isinstance(env, yaml.SequenceNode):
        for i, item in enumerate(env.value):
            if not isinstance(item, yaml.MappingNode):
                break
            sub = {k.value: v for k, v in item.value if isinstance(k, yaml.ScalarNode)}
            for key in ("name", "description"):
                if big(sub.get(key)):
                    return hang(f"env_requires[{i}].{key}", sub[key]), None, ""
    owned = fields.get("distribution_owned")
    if isinstance(owned, yaml.SequenceNode):
        for i, item in enumerate(owned.value):
            if big(item):
                return hang(f"distribution_owned[{i}]", item), None, ""
    for key in _STR_FIELDS:
        if big(fields.get(key)):
            return hang(f"'{key}'", fields[key]), None, ""
    if isinstance(env, yaml.SequenceNode):
        for i, item in enumerate(env.value):
            sub = ({k.value: v for k, v in item.value if isinstance(k, yaml.ScalarNode)}
                   if isinstance(item, yaml.MappingNode) else {})
            if big(sub.get("default")):
                return (f"{quick}, then writes env_requires[{i}].default into .env.EXAMPLE with str(), which "
                        f"expands {sizes[id(sub['default'])]:,} values: `hermes profile install` hangs or runs "
                        "out of memory"), None, ""
    bombed = [k for k, v in fields.items() if big(v) and k not in _KNOWN_KEYS]
    if any(big(v) for k, v in fields.items() if k in _KNOWN_KEYS):
        return f"{quick}; what it does next is not predicted", None, ""
    null = yaml.ScalarNode("tag:yaml.org,2002:null", "")
    trimmed = yaml.MappingNode("tag:yaml.org,2002:map",
                               [(k, null if big(v) else v) for k, v in root.value])
    loader = yaml.SafeLoader("")
    try:
        data = loader.construct_document(trimmed)
    except RecursionError:  # read_manifest turns every exception of yaml.safe_load into a refusal
        return too_deep, None, ""
    except yaml.YAMLError:
        return f"{quick}; what it does next is not predicted", None, ""
    finally:
        loader.dispose()
    where = "key" + ("s " if len(bombed) > 1 else " ") + ", ".join(repr(k) for k in bombed)
    return (f"{quick} and never uses {where} (it ignores unknown keys), so the bomb does not go off in "
            "Hermes"), data, where


def read_manifest(root: Path, display_path: Optional[str] = None) -> ManifestRead:
    """Read ``root/distribution.yaml`` safely: bounded size, no FIFO, strict UTF-8.

    ``display_path`` is the path Hermes would print (default ``root/distribution.yaml``).
    """
    path = root / MANIFEST_FILENAME
    shown = display_path or str(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ManifestRead(error=f"no {MANIFEST_FILENAME}", error_kind="missing")
    except OSError as exc:
        return ManifestRead(error=f"cannot read {MANIFEST_FILENAME}: {exc.strerror or exc}", error_kind="limit")
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        # Hermes tests is_file(): a directory or FIFO named distribution.yaml counts as no manifest
        return ManifestRead(error=f"no {MANIFEST_FILENAME} (a {_type_of(st.st_mode)} has that name)",
                            error_kind="missing")
    if stat.S_ISREG(st.st_mode) and st.st_size > MAX_MANIFEST_BYTES:
        return ManifestRead(error=(f"hermes-audit did not evaluate {MANIFEST_FILENAME}: it is {st.st_size:,} bytes "
                                   f"(limit {MAX_MANIFEST_BYTES:,}; a real manifest is a few hundred bytes)"),
                            error_kind="limit")
    res = read_file(path, root.resolve(), max_bytes=MAX_MANIFEST_BYTES)
    if res.status is ReadStatus.NOT_UTF8:
        return ManifestRead(error=f"Failed to parse {shown}: 'utf-8' codec can't decode the file ({res.detail})",
                            error_kind="hermes")
    if res.status is not ReadStatus.OK or res.text is None:
        return ManifestRead(error=f"{MANIFEST_FILENAME} is not read: {res.detail}", error_kind="limit")
    return parse_manifest_text(res.text, shown)


# ---------------------------------------------------------------------------
# Versions and names
# ---------------------------------------------------------------------------


def parse_semver(v: str) -> tuple[int, int, int]:
    """``_parse_semver``: major.minor.patch, ``v`` and ``-``/``+`` suffixes dropped, padded with zeros.

    Raises :class:`DistributionError` ``Unparseable version: '<v>'``.
    """
    s = str(v).strip().lstrip("v")
    s = re.split(r"[-+]", s, maxsplit=1)[0]
    parts = s.split(".")
    while len(parts) < 3:
        parts.append("0")
    try:
        return (int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        raise DistributionError(f"Unparseable version: {v!r}") from None


def check_hermes_requires(spec: str, current_version: str, compare: bool = True) -> None:
    """``check_hermes_requires``: one comparator (a bare version means ``>=``).

    Raises :class:`DistributionError` with Hermes' message when not satisfied, or
    ``Unparseable version: ...`` for a version Hermes cannot parse. With ``compare`` false only the
    parsing is checked (the running version is unknown; an unparseable target fails for any).
    """
    if not spec or not spec.strip():
        return
    m = _VERSION_OP_RE.match(spec)
    op, target = (m.group(1), m.group(2)) if m else (">=", spec.strip())
    cur = parse_semver(current_version)
    tgt = parse_semver(target)
    if not compare:
        return
    ok = {">=": cur >= tgt, "<=": cur <= tgt, "==": cur == tgt, "!=": cur != tgt, ">": cur > tgt, "<": cur < tgt}[op]
    if not ok:
        raise DistributionError(f"This distribution requires Hermes {op}{target}, but you have {current_version}.")


def canonical_profile_name(name: Any) -> str:
    """``normalize_profile_name`` then ``validate_profile_name`` (hermes_cli/profiles.py).

    Raises ``ValueError`` with Hermes' message. ``default`` is returned as is.
    """
    if not isinstance(name, str):
        name = str(name)
    stripped = name.strip()
    if not stripped:
        raise ValueError("profile name cannot be empty")
    canon = "default" if stripped.casefold() == "default" else stripped.lower()
    if canon == "default":
        return canon
    if not PROFILE_ID_RE.match(canon):
        raise ValueError(f"Invalid profile name {canon!r}. Must match [a-z0-9][a-z0-9_-]{{0,63}}")
    if canon in RESERVED_NAMES:
        raise ValueError(
            f"Profile name {canon!r} is reserved — it collides with either the Hermes installation itself "
            "or a common system binary.  Pick a different name.")
    return canon


def install_name(manifest: Manifest, override: Optional[str]) -> str:
    """The profile name the install uses, or :class:`DistributionError`/``ValueError`` as Hermes raises them."""
    canon = canonical_profile_name(override or manifest.name)
    if canon == "default":
        raise DistributionError(
            "Cannot install a distribution as 'default' — that is the built-in root profile (~/.hermes).  "
            "Pass --name <name> to install under a new profile.")
    return canon


def looks_like_git_url(source: str) -> bool:
    """``_looks_like_git_url``: ``*.git``, ``git@``, ``ssh://``, ``git://``, any ``http(s)://``, ``github.com/u/r``."""
    s = source.strip()
    return (
        s.endswith(".git")
        or s.startswith(("git@", "ssh://", "git://", "http://", "https://"))
        or bool(GITHUB_SHORTHAND_RE.match(s))
    )


def env_template(manifest: Manifest) -> str:
    """``_env_template_from_manifest``: the ``.env.EXAMPLE`` Hermes writes when none is shipped."""
    lines = [
        "# Environment variables required by this Hermes distribution.",
        "# Copy to `.env` and fill in your own values before running.",
        "",
    ]
    for req in manifest.env_requires:
        if req.description:
            lines.append(f"# {req.description}")
        lines.append(f"# ({'required' if req.required else 'optional'})")
        default_val = req.default if req.default is not None else ""
        lines.append(f"{'' if req.required else '# '}{req.name}={default_val}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------------------
# The tree
# ---------------------------------------------------------------------------


@dataclass
class TreeEntry:
    """One entry of a distribution tree (never followed when it is a symlink).

    ``rel`` is ``/``-separated; ``type`` is ``file``, ``dir``, ``symlink`` or
    a special type (``FIFO``, ``socket``, ``device``); ``target`` is a
    symlink's text; ``mode`` the permission bits.
    """

    rel: str
    type: str
    size: int = 0
    mode: int = 0
    target: str = ""


@dataclass
class Tree:
    """A bounded listing of a distribution directory, in ``Path.rglob`` order (pre-order by directory)."""

    root: Path
    entries: list[TreeEntry] = field(default_factory=list)
    truncated: bool = False

    def files(self) -> list[TreeEntry]:
        return [e for e in self.entries if e.type == "file"]

    def symlinks(self) -> list[TreeEntry]:
        return [e for e in self.entries if e.type == "symlink"]

    def get(self, rel: str) -> Optional[TreeEntry]:
        for e in self.entries:
            if e.rel == rel:
                return e
        return None

    def under(self, rel: str) -> list[TreeEntry]:
        """Entries strictly below directory ``rel``."""
        prefix = rel.rstrip("/") + "/"
        return [e for e in self.entries if e.rel.startswith(prefix)]


def _type_of(mode: int) -> str:
    """A tree entry's type: ``file``, ``dir``, ``symlink``, ``socket``, or the words for the others
    (``FIFO``, ``character device``...), which messages and the install-plan listing show as they are."""
    t = file_type(mode)
    return t if t in ("file", "dir", "symlink", "socket") else FILE_TYPE_WORDS[t]


def walk_tree(root: Path, max_entries: int = MAX_TREE_ENTRIES, max_depth: int = MAX_TREE_DEPTH) -> Tree:
    """List ``root`` without following symlinks: each directory's entries (``scandir`` order), then its
    subdirectories in the same order, as ``Path.rglob("*")`` visits them. Bounded in entries and depth."""
    tree = Tree(root)
    dirs: list[tuple[Path, str, int]] = [(root, "", 0)]
    while dirs:
        d, rel_d, depth = dirs.pop(0)
        try:
            with os.scandir(d) as it:
                items = list(it)
        except OSError:
            continue
        subdirs = []
        for it_ in items:
            rel = f"{rel_d}{it_.name}"
            try:
                st = it_.stat(follow_symlinks=False)
            except OSError:
                continue
            t = _type_of(st.st_mode)
            entry = TreeEntry(rel, t, st.st_size if t == "file" else 0, stat.S_IMODE(st.st_mode))
            if t == "symlink":
                try:
                    entry.target = os.readlink(it_.path)
                except OSError:
                    entry.target = "?"
            tree.entries.append(entry)
            if len(tree.entries) >= max_entries:
                tree.truncated = True
                return tree
            if t == "dir":
                if depth + 1 >= max_depth:
                    tree.truncated = True
                    continue
                subdirs.append((Path(it_.path), rel + "/", depth + 1))
        # rglob: a directory's own entries, then each subdirectory in turn (depth first)
        dirs[0:0] = subdirs
    return tree


def first_symlink_error(tree: Tree) -> Optional[str]:
    """Hermes' ``_reject_distribution_symlinks`` message for the first symlink in walk order, or ``None``."""
    links = tree.symlinks()
    if not links:
        return None
    return f"Profile distributions cannot contain symlinks: {links[0].rel}"


# ---------------------------------------------------------------------------
# Install plan
# ---------------------------------------------------------------------------


@dataclass
class PlannedCopy:
    """One staged path copied into the profile: ``source`` -> ``dest`` (both relative, ``/``-separated).

    ``type`` is the staged entry's type; a directory is copied whole
    (``shutil.copytree``), so every entry below it lands too.
    """

    source: str
    dest: str
    type: str


@dataclass
class InstallPlan:
    """What ``hermes profile install`` would do with a staged distribution (fresh install).

    ``copies`` are the top-level (0.19) or listed (latest) paths; ``files``
    every resulting path in the profile (directories end with ``/``);
    ``generated`` files Hermes writes itself; ``skipped`` staged paths that are
    never copied, with the reason; ``problems`` things that make the copy fail
    half-way (special files).
    """

    version: str
    name: str
    target: str
    copies: list[PlannedCopy] = field(default_factory=list)
    generated: list[str] = field(default_factory=list)
    bootstrap_dirs: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    #: staged rel path of every installed file -> its path in the profile
    installed_from: dict[str, str] = field(default_factory=dict)

    def installed_set(self) -> set[str]:
        return set(self.files)

    def to_dict(self) -> dict:
        return {
            "hermes_version": self.version, "name": self.name, "target": self.target,
            "copies": [{"source": c.source, "dest": c.dest, "type": c.type} for c in self.copies],
            "generated": list(self.generated), "bootstrap_dirs": list(self.bootstrap_dirs),
            "never_copied": [{"path": p, "reason": r} for p, r in self.skipped],
            "problems": list(self.problems), "files": sorted(self.files),
        }


def follow_in_tree(tree: Tree, entry: TreeEntry, hops: int = 40) -> Optional[TreeEntry]:
    """The entry a symlink of the tree ends at when every step stays inside the tree (relative targets),
    else ``None`` (absolute, leaving the tree, dangling, a loop): hermes-audit never follows a link out."""
    seen = 0
    while entry.type == "symlink" and seen < hops:
        seen += 1
        if entry.target.startswith("/") or entry.target in ("", "?"):
            return None
        parts = [] if "/" not in entry.rel else entry.rel.rsplit("/", 1)[0].split("/")
        for part in entry.target.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if not parts:
                    return None
                parts.pop()
            else:
                parts.append(part)
        nxt = tree.get("/".join(parts)) if parts else None
        if nxt is None:
            return None
        entry = nxt
    return entry if entry.type != "symlink" else None


def _plan_copy(tree: Tree, profile: "VersionProfile", plan: "InstallPlan", out: set, entry: TreeEntry, rel: str,
               dest: str, top: bool, depth: int = 0) -> None:
    """Add what copying ``entry`` (staged ``rel``) to ``dest`` installs: ``shutil.copy2`` for a file,
    ``copytree`` for a directory. A symlink refuses the install from 0.15.0 (:func:`refusal`); up to 0.14.0
    (no ``distribution_reject_symlinks``) both follow it and copy what it points to."""
    if entry.type == "symlink":
        target = follow_in_tree(tree, entry) if depth < 8 else None
        if target is None:
            plan.problems.append(
                f"{rel} is a symlink to {entry.target!r}, which leaves the distribution (or leads nowhere): "
                f"{profile.label} follows it ({'shutil.copy2 or copytree' if top else 'copytree'}) and installs "
                "whatever it points to on the installing machine, or stops with a Python traceback when it is "
                "missing; hermes-audit does not follow it")
            return
        _plan_copy(tree, profile, plan, out, target, target.rel, dest, top, depth + 1)
        return
    if entry.type == "dir":
        out.add(f"{dest}/")
        prefix = rel + "/"
        for sub in tree.entries:
            if not sub.rel.startswith(prefix) or "/" in sub.rel[len(prefix):]:
                continue  # direct children only: each child directory recurses
            name = sub.rel[len(prefix):]
            if profile.distribution_exclude_nested and name in USER_OWNED_EXCLUDE:
                # 0.13.0-0.16.0: copytree(ignore=...) drops user-owned names at every depth
                plan.skipped.append((sub.rel, "user-owned name: copytree ignores it at every depth"))
                continue
            if sub.type in ("dir", "file", "symlink"):
                _plan_copy(tree, profile, plan, out, sub, sub.rel, f"{dest}/{name}", False, depth)
            else:
                plan.problems.append(f"{sub.rel} is a {sub.type}: shutil.copytree fails on it, so the install "
                                     "stops half-way with a Python traceback")
    elif entry.type == "file":
        out.add(dest)
        plan.installed_from.setdefault(rel, dest)
    elif top:
        plan.problems.append(f"{rel} is a {entry.type}: shutil.copy2 refuses it, so the install stops "
                             "half-way with a Python traceback")
    else:
        plan.problems.append(f"{rel} is a {entry.type}: shutil.copytree fails on it, so the install "
                             "stops half-way with a Python traceback")


def plan_install(tree: Tree, manifest: Manifest, profile: "VersionProfile", name: str, target: str = "") -> InstallPlan:
    """The fresh-install plan for ``tree`` under the Hermes version ``profile``.

    ``name`` is the resolved profile name; ``target`` how to show the profile
    directory. The plan assumes the install is not refused (see
    :func:`refusal`). With ``profile.distribution_owned_paths`` (0.20.1 and
    latest ``_materialize``) a non-empty ``distribution_owned`` is the list of
    paths copied; else (0.19.0) every top-level entry is.
    """
    plan = InstallPlan(profile.name, name, target or f"~/.hermes/profiles/{name}")
    plan.bootstrap_dirs = list(BOOTSTRAP_DIRS)
    out: set[str] = {f"{d}/" for d in BOOTSTRAP_DIRS}
    top = [e for e in tree.entries if "/" not in e.rel]
    selected: list[tuple[TreeEntry, str]] = []
    if profile.distribution_owned_paths and manifest.distribution_owned:
        listed = set()
        for rel in manifest.distribution_owned:
            parts = PurePosixPath(rel).parts
            if not parts:
                plan.skipped.append((rel or "(empty)", "distribution_owned entry names no path"))
                continue
            if parts[0] in USER_OWNED_EXCLUDE:
                plan.skipped.append((rel, f"distribution_owned entry under the user-owned name {parts[0]!r}"))
                continue
            if ".." in parts or PurePosixPath(rel).is_absolute():
                plan.skipped.append((rel, "distribution_owned entry with '..' or an absolute path"))
                continue
            rel_norm = "/".join(parts)
            entry = tree.get(rel_norm)
            if entry is None:
                plan.skipped.append((rel, "listed in distribution_owned but not in the distribution"))
                continue
            listed.add(rel_norm)
            selected.append((entry, rel_norm))
        for e in top:
            if e.rel not in listed and not any(p.startswith(e.rel + "/") for p in listed):
                reason = ("user-owned name: never copied" if e.rel in USER_OWNED_EXCLUDE
                          else "not listed in distribution_owned; Hermes writes its own" if e.rel == MANIFEST_FILENAME
                          else "not listed in distribution_owned")
                plan.skipped.append((e.rel, reason))
    else:
        for e in top:
            if e.rel in USER_OWNED_EXCLUDE:
                plan.skipped.append((e.rel, "user-owned name: never copied"))
                continue
            selected.append((e, e.rel))
    for entry, rel in selected:
        dest = rel
        if "/" not in rel and rel == ENV_TEMPLATE_FILENAME:
            dest = ENV_EXAMPLE_FILENAME
        plan.copies.append(PlannedCopy(rel, dest, entry.type))
        parent = PurePosixPath(dest).parent
        while str(parent) not in (".", ""):
            out.add(f"{parent.as_posix()}/")
            parent = parent.parent
        _plan_copy(tree, profile, plan, out, entry, rel, dest, top=True)
    if manifest.env_requires and ENV_EXAMPLE_FILENAME not in out:
        plan.generated.append(ENV_EXAMPLE_FILENAME)
        out.add(ENV_EXAMPLE_FILENAME)
    plan.generated.append(MANIFEST_FILENAME)
    out.add(MANIFEST_FILENAME)
    plan.files = sorted(out)
    return plan


#: How Hermes' message for an unsatisfied ``hermes_requires`` begins (``check_hermes_requires``).
VERSION_MISMATCH_PREFIX = "This distribution requires Hermes "


def refusal(
    tree: Tree,
    read: ManifestRead,
    profile: "VersionProfile",
    override_name: Optional[str] = None,
    hermes_version: Optional[str] = None,
) -> Optional[str]:
    """The first message Hermes (``profile``) stops with for this staged tree, or ``None`` when it installs.

    Order (0.19.0 and 0.20.1 ``plan_install``): symlinks, manifest parse and
    schema, ``hermes_requires`` (only when ``hermes_version`` is known),
    profile name. With ``profile.distribution_name_before_symlinks`` (latest)
    the manifest is parsed and the name checked before looking for symlinks.
    ``read`` errors of kind ``limit`` are returned as they are (they are
    hermes-audit's, not Hermes').
    """
    symlink = first_symlink_error(tree) if profile.distribution_reject_symlinks else None
    if not profile.distribution_name_before_symlinks and symlink:
        return symlink
    if read.error is not None:
        if read.error_kind == "missing":
            return f"No {MANIFEST_FILENAME} at the root of the distribution."
        return read.error
    manifest = read.manifest
    assert manifest is not None
    if profile.distribution_name_before_symlinks:
        try:
            install_name(manifest, override_name)
        except (DistributionError, ValueError) as exc:
            return str(exc)
        if symlink:
            return symlink
    try:
        # an unparseable target raises whatever the running version is; a comparison needs that version
        check_hermes_requires(manifest.hermes_requires, hermes_version or "0.0.0", compare=bool(hermes_version))
    except DistributionError as exc:
        return str(exc)
    try:
        install_name(manifest, override_name)
    except (DistributionError, ValueError) as exc:
        return str(exc)
    return None
