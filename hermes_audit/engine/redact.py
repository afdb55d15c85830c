"""Redaction of secrets in snippets shown to users (text, JSON, SARIF, annotations)."""

from __future__ import annotations

import base64
import binascii
import functools
import re

from hermes_audit.patterns.regex_code import compile_builtin, declare

#: The providers' token prefixes (sixth red team): a prefix followed by 8 or more token characters is masked.
_KEEP_PREFIXES = (
    r"sk-(?:ant-|proj-)?|gh[pousr]_|github_pat_|gl(?:pat|rt|dt|ptt|soat|cbt|imt|agent)-|GR1348941|"
    r"xox[abpre]-|xapp-|AKIA|ASIA|AIza|hf_|(?:sk|rk|pk)_(?:live|test)_|whsec_|"
    r"hooks\.slack\.com/services/|discord(?:app)?\.com/api/webhooks/|"
    r"npm_|pypi-|SG\.|do[opr]_v1_|shp(?:at|ss|ca|pa)_|hv[sbr]\.|gsk_|r8_|dckr_pat_|fly_|FlyV1 |lin_api_|"
    r"ntn_|secret_(?=[A-Za-z0-9]{43})|ATATT3x|ATBB|AGE-SECRET-KEY-1|ya29\.|EAA(?=[A-Za-z0-9]{30})|PMAK-|"
    r"pscale_(?:tkn|pw|oauth)_|LTAI|dapi(?=[a-f0-9]{32})|sq0(?:atp|csp)-|key-(?=[0-9a-f]{32})|"
    r"sntr[ysu]_|dp\.(?:pt|st|sa|ct)\.|gl(?:c|sa)_|NRAK-|sbp_|pul-|atlasv1\.|rubygems_|CLOJARS_|AKC(?=[A-Za-z0-9]{10})|"
    r"figd_|AccountKey=|SharedAccessKey="
)

# Token shapes: provider prefixes, then key=value assignments with long values.
_SECRET_SHAPES_PATTERN = declare(
    # (sixth red team: the providers' published token prefixes; a prefix followed by 8 or more token
    # characters is masked: npm, PyPI, SendGrid, DigitalOcean, Shopify, Vault, GitLab runner/deploy, Groq,
    # Replicate, Stripe webhooks, Docker Hub, Fly.io, Linear, Notion, Atlassian, age, Google OAuth, Meta,
    # Slack app/refresh, Postman, PlanetScale, Alibaba, Databricks, Square, Mailgun, Sentry, Doppler,
    # Grafana, New Relic, Supabase, Pulumi, Terraform Cloud, RubyGems, Clojars, Artifactory, Figma, Bitbucket)
    r"(?P<keep>" + _KEEP_PREFIXES + r")"
    r"(?P<secret>[A-Za-z0-9_\-/+.=]{8,})"
    # a Telegram bot token (bot id, a colon, AA and the secret)
    r"|(?P<tgid>\b\d{8,10}:)(?P<tgsecret>AA[A-Za-z0-9_-]{30,})"
    # (key names and value characters cover what HA404/HA406 report: access_key = <40 chars>, password: hunter2hunter2)
    # a quoted value, blanks and all (seventh red team: password="correct horse battery staple" was shown)
    r"|(?P<kvq>(?i:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|token|secret|password|passwd|passphrase|pwd|(?<![a-z])pw|(?<![a-z])pass|auth|sig|signature|x-amz-signature|credentials?|session[_-]?id|secret[_-]?key[_-]?base|csrf[_-]?token)[\"']?\s*(?:=>|==|:?[=:\uff1d])\s*)(?P<q>[\"'])(?P<qval>[^\"'\n]{4,200})(?P=q)"
    r"|(?P<kv>(?i:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|token|secret|password|passwd|passphrase|pwd|(?<![a-z])pw|(?<![a-z])pass|auth|sig|signature|x-amz-signature|credentials?|session[_-]?id|secret[_-]?key[_-]?base|csrf[_-]?token)[\"']?\s*(?:=>|==|:?[=:\uff1d])\s*[\"']?"
    # "client_secret 3f9a...": a name, blanks, then a long hex or base64 run
    r"|(?i:client[_-]?secret|secret[_-]?key[_-]?base|api[_-]?key|session[_-]?id)[ \t]+(?=[A-Za-z0-9+/=_-]{16,})"
    # "the password is Hunter2pw": a value with a digit or symbol in it, after "<name> is"
    r"|(?i:password|passphrase|passwd|secret|token|api key)\s+is\s+[\"']?(?=[^\s\"']*[0-9_\-/+!@#$%]))"
    r"(?P<value>[A-Za-z0-9+/=_\-.!@#%^&*~]{8,})"
    r"|(?P<pem>-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]{0,4000}?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"
    # a Markdown table row naming a credential in one cell and giving it in the next
    # (| DB_PASSWORD | s3cr3tP4ss |; seventh red team, issue 18)
    r"|(?P<cell>\|[ \t]*`?(?i:[\w.-]{0,40}(?:password|passwd|passphrase|secret|token|api[_ -]?key|access[_ -]?key|"
    r"private[_ -]?key|credentials?|pwd)[\w.-]{0,20})`?[ \t]*\|[ \t]*`?)(?P<cellval>[^\s|`][^|\n`]{2,197}[^\s|`])"
    # a JSON web token, an HTTP Bearer or Basic credential (red team: shown in full in snippets)
    r"|(?P<jwt>eyJ)(?P<jwtrest>[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,})"
    r"|(?P<scheme>(?i:bearer|basic)[ \t]{1,4})(?P<cred>[A-Za-z0-9+/=._~-]{12,})"
    # a password or token given to a command (sshpass -p, mysql -pPW, redis-cli -a, gh --token, htpasswd -b
    # FILE USER PW), an Authorization "token" header, a .netrc "login USER password PW" line
    # (seventh red team: openssl -k, zip -P, ldapsearch -w, wget --http-password)
    r"|(?P<flag>(?<![\w-])(?:-p|-a|-k|-P|-w|--token|--pass(?:word)?|--http-password|--secret|-b[ \t]+\S+[ \t]+\S+)[ \t=]?)"
    r"(?!https?:)(?P<flagval>[^\s'\"-][^\s'\"]{5,})"
    r"|(?P<authtok>(?i:authorization:)[ \t]*(?i:token)[ \t]+|\blogin[ \t]+\S+[ \t]+password[ \t]+)(?P<atval>\S{4,})"
    # curl's -u/--user/--proxy-user user:password, also glued or bundled (-uadmin:pw, -su, -u'admin:pw')
    r"|(?P<curlu>(?:(?<![\w-])-[A-Za-z]{0,4}u[ \t]{0,4}|--(?:proxy-)?user[ \t=]{1,4})['\"]?[^\s:'\"]{1,64}:"
    r"|(?<![\w-])-U[ \t]{0,4}['\"]?[^\s%'\"]{1,64}%)"
    r"(?P<pw>[^\s'\"]{4,})"
    # the userinfo of a URL in the text (https://user:password@host, //token@host): red team, issue 18
    r"|(?P<urlhead>\b[A-Za-z][A-Za-z0-9+.-]{0,20}://|(?<![:\w/])//)(?P<userinfo>[^\s@/'\"<>()\[\]]{1,256})(?=@)"
    # base64 of anything (a secret shape or a user:password pair is looked for in its decoding)
    r"|(?P<b64>[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{24,})"
)

#: A necessary condition for :data:`_SECRET_SHAPES_PATTERN` to match anywhere, checked first with Python's
#: ``re`` (issue 21: on the snippets and messages of a full audit of real files, 9 texts in 10 hold no secret
#: shape, and this finds that in about a third of the time the full pattern takes). Each alternative is a
#: substring that every match of one alternative of the full pattern contains: the same literals, its
#: look-arounds and the unbounded ends of its runs dropped, ``\w`` and ``\S`` classes widened to "not ``|``
#: or a line break" or a few blanks. It is read with ``re``: ``re``'s ``\s`` and ``(?i)`` match every
#: character ``regex``'s do (tests/test_performance_equivalence.py checks all code points), and it has no
#: ``\d``, ``\w`` or ``\b``.
_SECRET_GATE_PATTERN = (
    r"(?:" + _KEEP_PREFIXES + r")[A-Za-z0-9_\-/+.=]{8}"
    r"|:AA[A-Za-z0-9_-]{30}"
    r"|(?i:key|secret|token|passwd|password|passphrase|pwd|pw|pass|auth|sig|signature|credentials?|id|base)"
    r"[\"']?\s*[=:\uff1d]"
    r"|(?i:client[_-]?secret|secret[_-]?key[_-]?base|api[_-]?key|session[_-]?id)[ \t]+[A-Za-z0-9+/=_-]{16}"
    r"|(?i:password|passphrase|passwd|secret|token|api key)\s+is\s"
    r"|-----BEGIN "
    r"|(?i:passw|passphrase|secret|token|key|credential|pwd)[^|\n]*\|"
    r"|eyJ"
    r"|(?i:bearer|basic)[ \t]{1,4}[A-Za-z0-9+/=._~-]{12}"
    r"|(?<![A-Za-z0-9_-])(?:-p|-a|-k|-P|-w|--token|--pass(?:word)?|--http-password|--secret)[ \t=]?[^ \t\n'\"-][^ \t\n'\"]{5}"
    r"|(?<![A-Za-z0-9_-])-b[ \t]"
    r"|(?i:authorization:)|login[ \t]"
    r"|(?<![A-Za-z0-9_-])-[A-Za-z]{0,4}u|--(?:proxy-)?user|(?<![A-Za-z0-9_-])-U"
    r"|//[^@/'\"<>()\[\] \t\n]{1,256}@"
    r"|[A-Za-z0-9+/]{16}|[A-Za-z0-9_-]{24}"
)


@functools.lru_cache(maxsize=1)
def _secret_gate():
    return re.compile(_SECRET_GATE_PATTERN)


#: A decoded text that reads as a credential: ``user:password`` (what HTTP Basic and ``curl -u`` carry) or a
#: value after ``Bearer``/``token``; checked on decodings only, where honest text rarely looks so.
_CREDENTIAL_PAIR = re.compile(r"(?:^|[\s\"'])[^\s:\"']{1,64}:[^\s\"']{6,}|(?i:bearer|token)[ :=]+\S{8,}")


def _secret_run(run: str) -> bool:
    """A run of base64 characters that is a secret: it decodes to one (:func:`_decodes_to_secret`), or it has
    the shape of an unlabelled AWS secret access key (40 characters mixing cases, digits and ``/`` or ``+``)."""
    if len(run) == 40 and any(c.isupper() for c in run) and any(c.islower() for c in run) \
            and any(c.isdigit() for c in run) and ("/" in run or "+" in run):
        return True
    return _decodes_to_secret(run)


def _decodes_to_secret(run: str) -> bool:
    """True when the base64 (or base64url) ``run`` decodes to UTF-8 text that holds a secret shape or a
    ``user:password`` pair (red team, issue 18: an ``extraheader`` or ``curl -u`` credential, encoded, was
    shown in full in snippets while the decoded message was masked)."""
    text = run.rstrip("=")
    decoders = []
    if len(text) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in text):
        decoders.append(bytes.fromhex)  # hex (red team: a ghp_ token in hex was shown raw)
    if all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567" for c in text):
        decoders.append(lambda t: base64.b32decode(t + "=" * (-len(t) % 8)))
    decoders.append(lambda t: (base64.urlsafe_b64decode if ("-" in t or "_" in t) else base64.b64decode)(
        t + "=" * (-len(t) % 4)))
    for decode in decoders:
        try:
            decoded = decode(text).decode("utf-8")
        except (binascii.Error, ValueError, UnicodeDecodeError):
            continue
        if decoded.isprintable() and (_secret_shapes().search(decoded) or _CREDENTIAL_PAIR.search(decoded)):
            return True
    return False


@functools.lru_cache(maxsize=1)
def _secret_shapes():
    """The compiled token shapes, compiled on first use (issue 8: a scan without findings never needs them)."""
    return compile_builtin(_SECRET_SHAPES_PATTERN)


#: :func:`redact` remembers its answers for the last this many texts of at most :data:`REMEMBERED_CHARS`
#: characters (issue 21: a finding's match, message and snippet are often one text, redacted two or three
#: times); at most about 4 MB.
REMEMBERED_TEXTS = 1024
REMEMBERED_CHARS = 4096


def redact(text: str) -> str:
    """``text`` with secret-looking values replaced: keeps a 4-character prefix, then ``****``.

    Texts of up to :data:`REMEMBERED_CHARS` characters are remembered (:data:`REMEMBERED_TEXTS`); a text without
    a secret shape is returned as it is after one scan with :data:`_SECRET_GATE_PATTERN`."""
    return _redact_remembered(text) if len(text) <= REMEMBERED_CHARS else _redact(text)


def _redact(text: str) -> str:
    """:func:`redact`, not remembered."""
    if _secret_gate().search(text) is None:
        return text

    def repl(m) -> str:
        if m.group("keep"):
            return m.group("keep") + m.group("secret")[:4] + "****"
        if m.group("tgid"):
            return m.group("tgid") + "AA****"
        if m.group("kvq"):
            return m.group("kvq") + m.group("q") + m.group("qval")[:2] + "****" + m.group("q")
        if m.group("kv"):
            return m.group("kv") + m.group("value")[:4] + "****"
        if m.group("cell"):
            return m.group("cell") + m.group("cellval")[:2] + "****"
        if m.group("jwt"):
            return "eyJ****"
        if m.group("curlu"):
            return m.group("curlu") + "****"
        if m.group("flag"):
            return m.group("flag") + "****"
        if m.group("authtok"):
            return m.group("authtok") + "****"
        if m.group("urlhead"):
            return m.group("urlhead") + "***"
        if m.group("scheme"):
            return m.group("scheme") + m.group("cred")[:4] + "****"
        if m.group("b64"):
            run = m.group("b64")
            return run[:4] + "****" if _secret_run(run) else run
        return m.group("pem") + "****"

    return _secret_shapes().sub(repl, text)


_redact_remembered = functools.lru_cache(maxsize=REMEMBERED_TEXTS)(_redact)


def redact_in_place(text: str) -> str:
    """``text`` with each secret value's characters after the first four replaced by ``*``.

    Unlike :func:`redact` the length is unchanged, so offsets and columns computed
    on the original text still point at the same characters (used for source
    excerpts with carets).
    """
    if _secret_gate().search(text) is None:
        return text

    def repl(m) -> str:
        if m.group("keep"):
            secret = m.group("secret")
            return m.group("keep") + secret[:4] + "*" * (len(secret) - 4)
        if m.group("tgid"):
            return m.group("tgid") + "AA" + "*" * (len(m.group("tgsecret")) - 2)
        if m.group("kvq"):
            qval = m.group("qval")
            return m.group("kvq") + m.group("q") + qval[:2] + "*" * (len(qval) - 2) + m.group("q")
        if m.group("kv"):
            value = m.group("value")
            return m.group("kv") + value[:4] + "*" * (len(value) - 4)
        if m.group("cell"):
            value = m.group("cellval")
            return m.group("cell") + value[:2] + "".join(c if c.isspace() else "*" for c in value[2:])
        if m.group("jwt"):
            return "eyJ" + "*" * len(m.group("jwtrest"))
        if m.group("curlu"):
            return m.group("curlu") + "*" * len(m.group("pw"))
        if m.group("flag"):
            return m.group("flag") + "*" * len(m.group("flagval"))
        if m.group("authtok"):
            return m.group("authtok") + "*" * len(m.group("atval"))
        if m.group("urlhead"):
            return m.group("urlhead") + "*" * len(m.group("userinfo"))
        if m.group("scheme"):
            cred = m.group("cred")
            return m.group("scheme") + cred[:4] + "*" * (len(cred) - 4)
        if m.group("b64"):
            run = m.group("b64")
            return run[:4] + "*" * (len(run) - 4) if _secret_run(run) else run
        whole = m.group(0)
        head = m.group("pem")
        return head + "".join(c if c in "\r\n" else "*" for c in whole[len(head):])

    return _secret_shapes().sub(repl, text)


def redact_decoded(text: str) -> str:
    """:func:`redact` for text hermes-audit decoded from an encoding (a finding's ``decoded`` text), where a
    ``user:password`` pair is a credential too (what HTTP Basic carries): its value is masked."""
    text = redact(text)
    return re.sub(r"(?P<user>(?:^|(?<=[\s\"']))[^\s:\"'*/]{1,64}:)(?!//)(?P<pw>[^\s\"'*]{6,})",
                  lambda m: m.group("user") + m.group("pw")[:2] + "****", text)
