"""Report redaction (hermes_audit/engine/redact.py) against a well-kept secret scanner used as an oracle:
whatever Yelp's detect-secrets (a test-only dependency) finds in a line, the masked line no longer shows.

The lines are this file's own: credential assignments in the spellings of many languages and formats, with
made-up values, and the shared corpora's lines (sixth red team, issue 18: the hand-made shapes missed
spellings such as ``password => "..."`` and ``secret == "..."``)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

detect_secrets = pytest.importorskip("detect_secrets")

from detect_secrets.core.scan import scan_line  # noqa: E402
from detect_secrets.settings import transient_settings  # noqa: E402

from hermes_audit.engine.redact import redact, redact_in_place  # noqa: E402

#: detect-secrets' detectors of named credentials; its entropy detectors flag ordinary words and hashes.
NAMED = ["ArtifactoryDetector", "AWSKeyDetector", "AzureStorageKeyDetector", "BasicAuthDetector", "CloudantDetector",
         "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector", "IbmCloudIamDetector",
         "IbmCosHmacDetector", "JwtTokenDetector", "KeywordDetector", "MailchimpDetector", "NpmDetector",
         "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector", "SlackDetector",
         "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector", "TelegramBotTokenDetector", "TwilioKeyDetector"]

NAMES = ["password", "secret", "api_key", "apikey", "token", "private_key", "client_secret", "auth_token", "db_pass",
         "passwd", "secret_key", "access_token", "aws_secret_access_key", "github_token", "PASSWORD", "DB_PASSWORD",
         "ApiKey", "pwd", "credentials", "secrettoken", "masterKey"]
VALUES = ["Hunter2pw9xyz", "aB3dE5gH7jK9mN1p", "c2VjcmV0LXZhbHVlLTEyMw"]
TEMPLATES = ['{n} = "{v}"', "{n}: '{v}'", "{n}={v}", "export {n}={v}", '"{n}": "{v}"', '{n} := "{v}"',
             '${n} = "{v}";', '{n} => "{v}"', "<{n}>{v}</{n}>", "set {n}={v}", "{n}: {v}", 'const {n} = "{v}"',
             '{n}("{v}")', "--{n} {v}", "{n} is {v}", "my {n}: {v}", '{n}=="{v}"', 'private String {n} = "{v}";',
             "{n} -> {v}"]


def _found(line: str, plugins: list[str]) -> list[str]:
    with transient_settings({"plugins_used": [{"name": n} for n in plugins]}):
        return [s.secret_value for s in scan_line(line) if s.secret_value and len(s.secret_value) >= 8]


def test_every_credential_the_oracle_finds_in_an_assignment_is_masked():
    flagged, leaked = 0, []
    for n, v, t in itertools.product(NAMES, VALUES, TEMPLATES):
        line = t.format(n=n, v=v)
        found = _found(line, NAMED)
        flagged += bool(found)
        for value in found:
            if value in redact(line) or value in redact_in_place(line):
                leaked.append(line)
    assert flagged > 300  # the oracle sees most of them: the test measures something
    assert leaked == [], leaked[:10]


def _corpus_roots() -> list[Path]:
    roots = [os.environ.get("HERMES_AUDIT_CORPUS"), os.environ.get("HERMES_AUDIT_EXTERNAL_CORPUS")]
    here = Path(__file__).resolve().parents[2] / "shared"
    roots += [str(here / "corpus"), str(here / "corpus-external")]
    return [Path(r) for r in dict.fromkeys(r for r in roots if r) if Path(r).is_dir()]


def test_no_token_the_oracle_finds_in_the_shared_corpora_survives_masking():
    """The corpora's attack files carry tokens in many shapes; each one detect-secrets names (its keyword
    detector aside: on prose it names words such as ``tenant_id``; and the private-key header, which is all
    it reports of a key) is masked."""
    roots = _corpus_roots()
    if not roots:
        pytest.skip("no shared corpus beside the repository (HERMES_AUDIT_CORPUS)")
    plugins = [p for p in NAMED if p not in ("KeywordDetector", "PrivateKeyDetector")]
    leaked, flagged = [], 0
    for root in roots:
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.stat().st_size > 2_000_000:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            for line in text.splitlines():
                if len(line) > 3000:
                    continue
                for value in _found(line, plugins):
                    flagged += 1
                    if value in redact(line) or value in redact_in_place(line):
                        leaked.append((path.name, value[:40]))
    assert leaked == [], leaked[:10]
