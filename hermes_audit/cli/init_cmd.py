"""``hermes-audit init``: set a repository up (pre-commit hook and GitHub workflow).

Two changes, each reported on its own line:

* ``.pre-commit-config.yaml``: created with the hermes-audit hook, or the hook's
  repository entry appended to its ``repos:`` list. The file is edited as text
  (comments and layout kept) and the result is parsed again with
  ``yaml.safe_load`` and compared with the original data plus the new entry
  before anything is written; when that check fails, nothing is written and the
  snippet to add by hand is printed. A file that already names the hook is left
  alone.
* ``.github/workflows/hermes-audit.yml``: the example workflow of docs/github.md,
  written only when no such file exists.

The hook's ``rev`` (and the workflow's ``uses`` ref) is the release tag of this
version when it exists (:data:`RELEASE_TAG`); until then the default branch, with
a comment saying how to pin a commit (``pre-commit autoupdate --repo URL``).

Idempotent (a second run changes nothing), never clobbers (existing files are
only ever appended to as above, symlinks are not written through), writes
atomically, never runs git or git hooks. Exit codes: 0 done (changed or not),
2 a file could not be read, parsed or written.
"""

from __future__ import annotations

import os
import re
import subprocess
import stat
from pathlib import Path
from typing import Optional

import click

from hermes_audit.cli.common import CliError

#: Where the hook and the action live: the project's one URL constant.
from hermes_audit import PROJECT_URL

HOOK_ID = "hermes-audit"
PRE_COMMIT_FILE = ".pre-commit-config.yaml"
WORKFLOW_FILE = ".github/workflows/hermes-audit.yml"
MAX_CONFIG_BYTES = 1024 * 1024
ACTION_REF = PROJECT_URL.split("github.com/", 1)[-1]

#: The release tag of this version (``v`` + ``__version__``) once it is published in the project
#: repository; ``None`` while it is not (tests/test_init.py compares it with ``git tag`` of the checkout).
#: pre-commit and GitHub Actions fetch ``rev``/``uses`` refs from that repository, so a tag that does not
#: exist there breaks both: without one, the files name the default branch (:data:`DEFAULT_BRANCH`)
#: and say how to pin a commit.
RELEASE_TAG: Optional[str] = None
#: The project repository's default branch, used while there is no release tag.
DEFAULT_BRANCH = "main"


def hook_rev() -> str:
    """The ``rev`` written for the pre-commit hook (and the ref of the workflow's ``uses``): the release
    tag when there is one, else the default branch."""
    return RELEASE_TAG or DEFAULT_BRANCH


#: The hook's repository entry (a YAML sequence item, indented by {indent}).
HOOK_ENTRY = (
    "- repo: {url}\n"
    "{comment}"
    "  rev: {rev}\n"
    "  hooks:\n"
    "    - id: {hook}\n"
)
#: Above ``rev:`` while there is no release tag: pre-commit expects an immutable rev (a tag or a commit
#: SHA), warns about a branch name and never updates a branch it has cached; ``autoupdate`` writes the
#: newest tag, or the newest commit's SHA while the repository has no tag.
UNPINNED_COMMENT = (
    "  # while hermes-audit has no release tag, this pins rev to its newest commit (and later updates it):\n"
    "  #   pre-commit autoupdate --repo {url}\n"
)

#: The example workflow (also docs/examples/hermes-audit.yml; a test keeps them equal).
WORKFLOW_TEMPLATE = """\
# hermes-audit: audit the files Hermes Agent reads (AGENTS.md, .hermes.md, SOUL.md, memory).
# Findings appear in the Security tab (code scanning) and as annotations on pull requests.
name: hermes-audit

on:
  push:
    branches: [{branch}]
  pull_request:

permissions:
  contents: read

jobs:
  hermes-audit:
    runs-on: ubuntu-latest
    permissions:
      contents: read         # check out the repository
      security-events: write # upload SARIF to code scanning
      actions: read          # upload-sarif reads the run in private repositories
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
          fetch-depth: 2  # the base commit too: on pull requests the action uses its configuration (auditor mode)
{uses_comment}      - uses: {action}@{ref}
        with:
          paths: .
          hermes-version: latest
          fail-on: high
          format: github
          sarif-file: hermes-audit.sarif
          # Pull requests from forks get a read-only token and cannot upload.
          upload: ${{{{ github.event_name != 'pull_request' || github.event.pull_request.head.repo.full_name == github.repository }}}}
"""


class SnippetError(CliError):
    """The hook cannot be added automatically: a one-line error on stderr (exit 2) and, on stdout, the
    snippet to add by hand, with real line breaks so it can be pasted."""

    def __init__(self, message: str, snippet: str) -> None:
        super().__init__(message)
        self.snippet = snippet

    def show(self, file=None) -> None:
        super().show(file)
        click.echo(self.snippet, nl=False)


def workflow_text(branch: str = "main") -> str:
    """The example workflow for this version (``uses:`` the release tag, else the default branch with a
    comment saying how to pin a commit); ``branch`` is the repository's own default branch, the one whose
    pushes it scans (docs/examples/hermes-audit.yml shows ``main``)."""
    comment = "" if RELEASE_TAG else (
        "      # no hermes-audit release tag yet: this follows its default branch; pin a commit\n"
        f"      # (uses: {ACTION_REF}@<40-character commit SHA>) to freeze it\n")
    return WORKFLOW_TEMPLATE.format(action=ACTION_REF, ref=hook_rev(), uses_comment=comment, branch=branch)


def hook_entry(indent: int = 2) -> str:
    """The pre-commit repository entry, each line indented by ``indent`` spaces (with a comment on how to
    pin it while there is no release tag)."""
    comment = "" if RELEASE_TAG else UNPINNED_COMMENT.format(url=PROJECT_URL)
    text = HOOK_ENTRY.format(url=PROJECT_URL, comment=comment, rev=hook_rev(), hook=HOOK_ID)
    return "".join(" " * indent + line for line in text.splitlines(keepends=True))


def _atomic_write(path: Path, text: str, mode: Optional[int] = None, root: Optional[Path] = None) -> None:
    """Write ``path`` atomically below ``root`` (the repository): never through a symbolic link out of it,
    also when a directory is swapped for one after the checks (issue 18, item 7). Raises :class:`CliError`."""
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.atomic import OutsideRoot, atomic_write_text

    try:
        atomic_write_text(path, text, mode, create_parents=True, root=root)
    except OutsideRoot as exc:
        raise CliError(f"{path}: {exc.strerror}; not written") from None


def _read_text(path: Path) -> str:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise CliError(f"{path}: is a symbolic link; not changed (edit the file it points to by hand)")
    if not stat.S_ISREG(st.st_mode):
        raise CliError(f"{path}: not a regular file; not changed")
    if st.st_size > MAX_CONFIG_BYTES:
        raise CliError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; not changed")
    try:
        with open(path, "rb") as fh:
            return fh.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{path}: not UTF-8; not changed") from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _load_yaml(text: str, path: Path):
    # start-up time: hermes.distribution imports PyYAML, which a scan of Markdown files does not need
    import yaml

    from hermes_audit.hermes.distribution import YamlLimitError, load_yaml_bounded

    try:
        return load_yaml_bounded(text)  # bounded: an alias bomb would make the comparison below hang
    except YamlLimitError as exc:
        raise CliError(f"{path}: not changed: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise CliError(f"{path}: invalid YAML{where}; not changed") from None


def _has_hook(data) -> bool:
    repos = data.get("repos") if isinstance(data, dict) else None
    for repo in repos or []:
        if not isinstance(repo, dict):
            continue
        if str(repo.get("repo", "")).rstrip("/").removesuffix(".git") == PROJECT_URL:
            return True
        for hook in repo.get("hooks") or []:
            if isinstance(hook, dict) and hook.get("id") == HOOK_ID:
                return True
    return False


#: Paths the hook must see: a file of every kind Hermes loads (for :func:`hook_blockers`).
_CONTEXT_SAMPLES = ("AGENTS.md", "CLAUDE.md", ".hermes.md", "HERMES.md", ".cursorrules", ".cursor/rules/a.mdc",
                    "sub/AGENTS.md", "SOUL.md", "memories/MEMORY.md")
#: Stage names under which a hook runs at ``git commit`` (pre-commit's current and legacy names).
_COMMIT_STAGES = ("pre-commit", "commit")


def _skipped(pattern, keep: bool) -> list[str]:
    """The sample paths a pre-commit ``files`` (``keep``: what runs) or ``exclude`` pattern takes from the hook
    (Python ``re.search``, as pre-commit uses; run with the ``regex`` module under a timeout, since the file is
    the repository's)."""
    import regex

    if not isinstance(pattern, str) or not pattern:
        return []
    try:
        rx = regex.compile(pattern)
        return [p for p in _CONTEXT_SAMPLES if bool(rx.search(p, timeout=1.0)) != keep]
    except (regex.error, TimeoutError, ValueError):
        return []


def hook_blockers(data) -> list[str]:
    """Why a ``.pre-commit-config.yaml`` (``data``, parsed) would not run the hermes-audit hook on the files Hermes
    loads at ``git commit``, one line each: a top-level or hook ``exclude``/``files`` that takes context files
    away, ``default_stages`` or the hook's ``stages`` without the commit stage, a hook with hermes-audit's id
    that is not hermes-audit's (eighth red team, issue 18: ``init`` said "added" or "already has the hook"
    while pre-commit would never run it). ``[]`` when nothing stands in the way."""
    if not isinstance(data, dict):
        return []
    out = _scope_blockers(data, "the top-level", "'default_stages'", "default_stages")
    for repo in data.get("repos") or []:
        if not isinstance(repo, dict):
            continue
        ours = str(repo.get("repo", "")).rstrip("/").removesuffix(".git") == PROJECT_URL
        for hook in repo.get("hooks") or []:
            if not isinstance(hook, dict) or hook.get("id") != HOOK_ID:
                continue
            if not ours:
                out.append(f"a hook with the id '{HOOK_ID}' comes from repo '{str(repo.get('repo'))[:80]}', not "
                           f"from {PROJECT_URL}; check what it runs")
            out += _scope_blockers(hook, "the hook's", "the hook's 'stages'", "stages")
    return out


def _scope_blockers(mapping: dict, whose: str, stages_name: str, stages_key: str) -> list[str]:
    """:func:`hook_blockers` of one mapping (the top level or one hook): its ``exclude``/``files`` and stages."""
    out = []
    for key, keep in (("exclude", False), ("files", True)):
        gone = _skipped(mapping.get(key), keep)
        if gone:
            out.append(f"{whose} '{key}' keeps the hook from {', '.join(gone[:3])}")
    stages = mapping.get(stages_key)
    if isinstance(stages, list) and not any(s in _COMMIT_STAGES for s in stages):
        out.append(f"{stages_name} ({', '.join(map(str, stages))[:60]}) leaves the hook out of git commit")
    return out


def _expected(data) -> dict:
    import copy

    import yaml

    new = copy.deepcopy(data)
    new["repos"] = list(new.get("repos") or []) + yaml.safe_load(hook_entry(0))
    return new


def _last_scalar_end(node) -> int:
    """Offset just after the last scalar inside ``node`` (block nodes end at the next token)."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return node.end_mark.index
    children = []
    if isinstance(node, yaml.SequenceNode):
        children = node.value
    elif isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    ends = [_last_scalar_end(c) for c in children]
    return max(ends) if ends else node.end_mark.index


def add_hook_text(text: str) -> Optional[str]:
    """``text`` (a ``.pre-commit-config.yaml``) with the hermes-audit entry appended to the
    block sequence under the top-level ``repos:`` key, or ``None`` when that cannot be
    done as a plain insertion (no ``repos`` key, a flow-style list, another layout)."""
    import yaml

    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "repos"):
            continue
        if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
            indent = value.start_mark.column
            # insert after the line holding the last scalar of the last item
            end = _last_scalar_end(value.value[-1])
            line_end = text.find("\n", end)
            cut = len(text) if line_end == -1 else line_end + 1
            head = text[:cut]
            if not head.endswith("\n"):
                head += "\n"
            return head + hook_entry(indent) + text[cut:]
        if isinstance(value, yaml.ScalarNode) and value.value in ("", "~", "null") and value.tag.endswith(":null"):
            line_end = text.find("\n", key.end_mark.index)
            cut = len(text) if line_end == -1 else line_end + 1
            head = text[:cut] if line_end != -1 else text + "\n"
            if value.value in ("~", "null"):
                return None
            return head + hook_entry(2) + text[cut:]
        return None
    return None


def setup_pre_commit(root: Path, dry_run: bool) -> str:
    """Add the hook to ``root/.pre-commit-config.yaml``; returns the line to report (followed by a
    ``warning:`` line for each of :func:`hook_blockers`)."""
    line = _setup_pre_commit(root, dry_run)
    path = root / PRE_COMMIT_FILE
    if os.path.isfile(path) and not os.path.islink(path):
        try:
            text = _read_text(path) if not dry_run or line.startswith("unchanged") else None
            data = _load_yaml(text, path) if text is not None else None
        except CliError:
            data = None
        for why in hook_blockers(data):
            line += f"\nwarning: {PRE_COMMIT_FILE}: {why}"
    return line


def _setup_pre_commit(root: Path, dry_run: bool) -> str:
    path = root / PRE_COMMIT_FILE
    if not os.path.lexists(path):
        text = "# See https://pre-commit.com for more information\nrepos:\n" + hook_entry(2)
        if not dry_run:
            _atomic_write(path, text, root=root)
        return f"{'would create' if dry_run else 'created'} {PRE_COMMIT_FILE} with the {HOOK_ID} hook"
    text = _read_text(path)
    data = _load_yaml(text, path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CliError(f"{path}: top level is not a mapping; not changed")
    if _has_hook(data):
        return f"unchanged {PRE_COMMIT_FILE}: it already has the {HOOK_ID} hook"
    if not text.strip():
        new = "repos:\n" + hook_entry(2)
    elif "repos" not in data:
        new = text + ("" if text.endswith("\n") else "\n") + "repos:\n" + hook_entry(2)
    else:
        new = add_hook_text(text)
    import yaml

    try:
        ok = new is not None and yaml.safe_load(new) == _expected(data)
    except yaml.YAMLError:
        ok = False
    if not ok:
        raise SnippetError(
            f"{path}: cannot add the hook without rewriting the file; not changed. "
            "Add the entry printed on stdout to its 'repos:' list",
            "repos:\n" + hook_entry(2),
        )
    if not dry_run:
        _atomic_write(path, new, stat.S_IMODE(os.lstat(path).st_mode), root=root)
        return f"updated {PRE_COMMIT_FILE}: added the {HOOK_ID} hook ({PROJECT_URL} {hook_rev()})"
    return f"would update {PRE_COMMIT_FILE}: add the {HOOK_ID} hook ({PROJECT_URL} {hook_rev()})"


#: A branch name written into the workflow as it is: no YAML or glob syntax (``*``, ``[``, ``:``, quotes).
_PLAIN_BRANCH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")


def default_branch(root: Path) -> str:
    """The repository's default branch: the remote's HEAD (``origin/HEAD`` -> ``master``), else the
    branch checked out, else ``main``. Only ``git symbolic-ref`` runs (it reads no index and runs no
    hook) and only in ``root`` itself, never a repository above it; a name that is not plain
    (:data:`_PLAIN_BRANCH`) gives ``main``."""
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(root.resolve().parent), GIT_DIR=str(root / ".git"))
    for ref in ("refs/remotes/origin/HEAD", "HEAD"):
        try:
            out = subprocess.run(["git", "-C", str(root), "symbolic-ref", "--quiet", "--short", ref],
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=10, env=env)
        except (OSError, subprocess.SubprocessError):
            return "main"
        name = out.stdout.strip()
        if out.returncode == 0 and name:
            name = name[len("origin/"):] if ref != "HEAD" and name.startswith("origin/") else name
            return name if _PLAIN_BRANCH.fullmatch(name) else "main"
    return "main"


def setup_workflow(root: Path, dry_run: bool) -> str:
    """Write the example workflow unless a file is already there; returns the line to report."""
    path = root / WORKFLOW_FILE
    branch = default_branch(root)
    text = workflow_text(branch)
    if os.path.lexists(path):
        try:
            same = not path.is_symlink() and path.is_file() and _read_text(path) == text
        except CliError:
            same = False
        if same:
            return f"unchanged {WORKFLOW_FILE}: already up to date"
        return f"left {WORKFLOW_FILE} alone: it exists and differs (the example is in docs/examples/hermes-audit.yml)"
    for parent in (root / ".github", root / ".github" / "workflows"):
        if parent.is_symlink() or (os.path.lexists(parent) and not parent.is_dir()):
            raise CliError(f"{parent}: not a plain directory; workflow not written")
    if not dry_run:
        _atomic_write(path, text, root=root)
    return (f"{'would create' if dry_run else 'created'} {WORKFLOW_FILE} "
            f"(scans pushes to {branch} and pull requests, uploads SARIF to code scanning)")


@click.command()
@click.option("--path", "target", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Repository to set up [default: the git root of the current directory].")
@click.option("--no-pre-commit", is_flag=True, help="Do not touch .pre-commit-config.yaml.")
@click.option("--no-workflow", is_flag=True, help="Do not write the GitHub workflow.")
@click.option("--dry-run", is_flag=True, help="Say what would change, change nothing.")
def init(target: Optional[Path], no_pre_commit: bool, no_workflow: bool, dry_run: bool) -> None:
    """Set a repository up: the pre-commit hook and a GitHub Actions workflow.

    Adds the hermes-audit hook to .pre-commit-config.yaml (created if missing)
    and writes .github/workflows/hermes-audit.yml (only if it does not exist).
    Existing content is never replaced; running it again changes nothing.
    """
    # start-up time: a command (and a report format) imports only what it runs
    from hermes_audit.documents.gitroot import find_git_root

    if target is None:
        target = find_git_root(Path.cwd().resolve()) or Path.cwd()
    if not target.is_dir():
        raise CliError(f"{target}: no such directory")
    lines = []
    if not no_pre_commit:
        lines.append(setup_pre_commit(target, dry_run))
    if not no_workflow:
        lines.append(setup_workflow(target, dry_run))
    for line in lines:
        click.echo(line)
    if not dry_run and any(line.startswith(("created .pre", "updated")) for line in lines):
        if RELEASE_TAG is None:
            click.echo(f"next: run `pre-commit autoupdate --repo {PROJECT_URL}` to pin the hook to a commit "
                       f"(hermes-audit has no release tag yet; rev: {DEFAULT_BRANCH} follows its branch)")
        click.echo("next: run `pre-commit install` to enable the hook for your commits")
