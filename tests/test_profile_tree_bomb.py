"""Issue 18.8 and 18.13: a git tree bomb is stopped while git's listing streams (bounded memory), and
credentials in git URLs are redacted in every message form."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_audit.audits.gitsource import redact_url

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}


def _git(cwd: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, input=data, check=True, capture_output=True,
                          env=ENV).stdout.decode().strip()


def tree_bomb(tmp_path: Path, fanout: int = 10, depth: int = 9) -> Path:
    """A bare repository whose root tree lists ``fanout ** depth`` files in a few KB of objects: every tree
    points ``fanout`` times at the tree below (``git mktree``), the bottom one at one small blob."""
    repo = tmp_path / "bomb.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True, env=ENV)
    blob = _git(repo, "hash-object", "-w", "--stdin", data=b"x" * 10)
    tree = _git(repo, "mktree", data="".join(f"100644 blob {blob}\tf{i}\n" for i in range(fanout)).encode())
    for _ in range(depth - 1):
        tree = _git(repo, "mktree", data="".join(f"040000 tree {tree}\td{i}\n" for i in range(fanout)).encode())
    manifest = _git(repo, "hash-object", "-w", "--stdin", data=b"name: bomb\n")
    entries = _git(repo, "ls-tree", tree) + f"\n100644 blob {manifest}\tdistribution.yaml\n"
    root = _git(repo, "mktree", data=entries.encode())
    commit = _git(repo, "commit-tree", root, "-m", "bomb")
    _git(repo, "update-ref", "refs/heads/main", commit)
    _git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    return repo


# Runs the CLI as a grandchild and prints the largest resident set (KiB) of any process below it: the audit and
# git. An address-space limit on the child keeps a regression from taking the machine's memory.
_MEASURE = r"""
import resource, subprocess, sys
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
r = subprocess.run([sys.executable, "-m", "hermes_audit", *sys.argv[1:]], capture_output=True, text=True,
                   preexec_fn=limit, timeout=300)
sys.stderr.write(r.stderr)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@needs_git
def test_tree_bomb_is_refused_while_listing_with_bounded_memory(tmp_path):
    repo = tree_bomb(tmp_path)
    assert sum(f.stat().st_size for f in repo.rglob("*") if f.is_file()) < 300_000  # small on disk
    r = subprocess.run([sys.executable, "-c", _MEASURE, "profile", "--allow-local", "--format", "json",
                        repo.as_uri()], capture_output=True, text=True, timeout=320)
    code, maxrss_kib = (int(x) for x in r.stdout.split())
    err = r.stderr.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "more than 20,000 files" in err and "Traceback" not in err
    assert maxrss_kib < 200 * 1024, f"peak RSS {maxrss_kib} KiB"


@needs_git
def test_byte_limit_is_enforced_while_listing(tmp_path):
    from hermes_audit.audits.gitsource import GitSourceError, cloned

    repo = tree_bomb(tmp_path, fanout=10, depth=3)  # 1,000 files of 10 bytes
    with pytest.raises(GitSourceError, match="more than 5,000 bytes"):
        with cloned(repo.as_uri(), allow_local=True, max_bytes=5_000):
            pass
    with cloned(repo.as_uri(), allow_local=True) as root:  # within the limits it is checked out as before
        assert (root / "d9" / "d9" / "f9").read_bytes() == b"x" * 10


@pytest.mark.parametrize("text,shown,secret", [
    ("https://user:TOKEN@github.com/o/r.git", "https://***@github.com/o/r.git", "TOKEN"),
    ("https://user:p@ss@host/x.git", "https://***@host/x.git", "ss@"),
    ("https://u:p@ss@host", "https://***@host", "ss@"),
    ("ssh://bob:pw@h/r and https://x:y@h2/a", "ssh://***@h/r and https://***@h2/a", "pw@"),
    ("https://TOKEN@host/o/r", "https://***@host/o/r", "TOKEN"),
    ("user:token@host:path/r.git", "***@host:path/r.git", "token"),
    ("refusing 'user:tok@host:o/r': x", "refusing '***@host:o/r': x", "tok"),
    ("user:p@ss@host:o/r", "***@host:o/r", "ss@"),
    # red team (issue 18): blanks or a tab in the userinfo, a scheme without //, a token in the query
    ("https://u:S1 @127.0.0.1:1/r", "https://***@127.0.0.1:1/r", "S1"),
    ("https://u:S1\t@h/r", "https://***@h/r", "S1"),
    ("cannot resolve 'https:u:TOKEN@host/r'", "cannot resolve 'https:***@host/r'", "TOKEN"),
    ("https://h/r?private_token=glpat-SECRET17&x=1", "https://h/r?private_token=***&x=1", "SECRET17"),
    ("https://h/r?ref=main&access_key=AK1", "https://h/r?ref=main&access_key=***", "AK1"),
    # second red team: '#' and '?' in the password, fragment and parameter tokens, a newline, malformed URLs
    ("git failed for https://u:SEK#RET@127.0.0.1:9/x.git: fatal", "git failed for https://***@127.0.0.1:9/x.git: fatal",
     "RET"),
    ("https://u:SE?KRET@h/x", "https://***@h/x", "KRET"),
    ("https://h/x.git#token=SEKRET", "https://h/x.git#token=***", "SEKRET"),
    ("https://h/x.git;token=SEKRET", "https://h/x.git;token=***", "SEKRET"),
    ("https://u:SEKRET\n@h", "https://***@h", "SEKRET"),
    ("https:/u:SEKRET@h", "https:/***@h", "SEKRET"),
    ("https:///u:SEKRET@h", "https:///***@h", "SEKRET"),
    ("ext::u:SEKRET@x", "ext:***@x", "SEKRET"),
])
def test_redaction(text, shown, secret):
    assert redact_url(text) == shown
    assert secret not in redact_url(text)


@pytest.mark.parametrize("text", ["git@github.com:o/r.git", "https://github.com/o/a@b", "see a:b and c@d"])
def test_redaction_leaves_urls_without_credentials(text):
    assert redact_url(text) == text


@pytest.mark.parametrize("text,secret", [
    ("git failed for https://user:pa/ss3SECRETC@127.0.0.1:1/x.git: fatal", "SECRETC"),
    ("https://u:SECRETSL/@h/x", "SECRETSL"),
    ("https://user:a/b?c#SECRETMIX@h/x.git", "SECRETMIX"),
    ("ssh://u:p/SECRETSSH@127.0.0.1/x.git", "SECRETSSH"),
])
def test_redaction_of_a_userinfo_holding_a_slash(text, secret):
    """Third red team: a '/' after 'user:' in the userinfo stopped the redaction."""
    assert secret not in redact_url(text) and "***@" in redact_url(text)
