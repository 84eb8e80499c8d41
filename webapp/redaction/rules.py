"""What redaction counts as a secret.

Key names (and suffixes) and the shapes of well-known tokens."""

import re

from .urls import REDACTED

DEFAULT_KEYS = (
    "authorization",
    "proxy-authorization",
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "client_secret",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "auth_token",
    "session_token",
    "api_key",
    "apikey",
    "x-api-key",
    "cookie",
    "set-cookie",
    "private_key",
    "credentials",
    "credential",
    "session",
    "session_id",
    "sessionid",
    "cvv",
    "cvc",
    "x-amz-signature",
    # signatures of presigned URLs
    "x-goog-signature",
)
# Names that are a secret as a URL's query (or fragment) parameter, where APIs put their keys
# (Google's `?key=AIza...`, a presigned `sig=`), but are ordinary field names in a JSON body
# (`{"key": "order_id"}`).
QUERY_KEYS = (
    "key",
    "sig",
    "signature",
    "auth",
    "access_key",
    "accesskey",
    "apikey",
    "api-key",
    "client_secret",
    "code_verifier",
    "hash",
    "hmac",
    "jwt",
    "pass",
    "private_token",
    "subscription-key",
)
# A key ending in one of these is a secret too (`db_password`, `github_token`, `x-auth-token`)...
SECRET_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "privatekey",
    "secretkey",
    "credentials",
    "cookie",
    "authorization",
    "sessionid",
    # the key names detect-secrets' keyword plugin knows: `AccountKey`, `aws_secret_access_key`,
    # `db_pass`
    "accesskey",
    "accountkey",
    "authkey",
    "servicekey",
    "clientkey",
    "privkey",
    "signingkey",
    "masterkey",
    "encryptionkey",
    "dbkey",
    "databasekey",
    "dbpass",
    "databasepass",
    "keypass",
    "contrasena",
    "contraseña",
)
# ...unless it ends in one of these: pagination cursors and LLM token settings are not secrets.
PUBLIC_SUFFIXES = (
    "pagetoken",
    "nexttoken",
    "continuationtoken",
    "synctoken",
    "maxtoken",
    "mintoken",
    "stoptoken",
    "eostoken",
    "bostoken",
    "padtoken",
    "unktoken",
    "cancellationtoken",
)
# (literals, pattern, prescan): a pattern runs only on strings holding one of its literals, which
# keeps the scan of ordinary text at the speed of a substring search; `prescan` (RE2 syntax) is what
# the one-pass proof of a clean event looks for, the literals themselves when it is None.
TOKEN_PATTERNS = (
    (("eyJ",), r"eyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*", None),
    (("earer", "EARER"), r"(?i:bearer)\s+[A-Za-z0-9._~+/-]{16,}=*", None),
    (("sk-",), r"sk-(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{20,}", None),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{30,}", None),
    (("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,}", None),
    (("xox",), r"xox[abposr]-[A-Za-z0-9-]{10,}", None),
    (
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}",
        None,
    ),
    (("AIza",), r"AIza[0-9A-Za-z_-]{35}", None),
    (("k_live_", "k_test_"), r"[rs]k_(?:live|test)_[0-9A-Za-z]{16,}", None),
    (
        (
            "glpat-",
            "gldt-",
            "glft-",
            "glsoat-",
            "glrt-",
            "glcbt-",
            "glimt-",
            "glptt-",
            "glagent-",
            "GR1348941",
        ),
        r"(?:gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent)-|GR1348941)[0-9A-Za-z_-]{20,}",
        None,
    ),
    (("npm_",), r"npm_[A-Za-z0-9]{36}", None),
    (("pypi-",), r"pypi-[A-Za-z0-9_-]{50,}", None),
    (("SG.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}", None),
    (("sq0csp-", "sq0atp-"), r"sq0(?:csp|atp)-[0-9A-Za-z_\\-]{22,}", None),
    (("softlayer.com",), r"softlayer\.com/soap/v3(?:\.1)?/[a-z0-9]{64}", None),
    (("AKC",), r"AKC[a-zA-Z0-9]{10,}", None),
    (
        ("AP",),
        r"(?<![A-Za-z0-9])AP[0-9A-F][a-zA-Z0-9]{8,}(?![A-Za-z0-9])",
        r"AP[0-9A-F][a-zA-Z0-9]{8}",
    ),
    # Twilio's API key SID (SK...) names a credential; its account SID (AC + 32 hex) is an id, kept
    # as the evidence it is (the account's auth token is a secret by its key, `auth_token`).
    (("SK",), r"(?<![A-Za-z0-9])SK[a-z0-9]{32}(?![A-Za-z0-9])", r"SK[a-z0-9]{32}"),
    (("-us",), r"[0-9a-z]{32}-us[0-9]{1,2}", None),
    (
        (".",),
        r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",
        r"[MNO][a-zA-Z0-9_-]{23,25}\.[a-zA-Z0-9_-]{6}\.[a-zA-Z0-9_-]{27}",
    ),
    ((":",), r"(?<![0-9])[0-9]{8,10}:[0-9A-Za-z_-]{35}", r"[0-9]{8,10}:[0-9A-Za-z_-]{35}"),
    (
        ("PRIVATE KEY",),
        r"-----BEGIN [A-Z ]*PRIVATE KEY[A-Z ]*-----(?:.*?-----END [A-Z ]*PRIVATE KEY[A-Z "
        r"]*-----|.*)",
        None,
    ),
)


def replace_token(match: re.Match) -> str:
    """Return the marker for a token a pattern found.

    Unless it is part of a longer word."""
    start, text = match.start(), match.string
    if (
        start
        and (text[start - 1].isalnum() or text[start - 1] == "_")
        and not _token_start(text, start)
    ):
        # inside a longer word: "risk-..." is not an "sk-" key
        return match.group(0)
    return REDACTED


def _token_start(text: str, start: int) -> bool:
    """Tell a token glued to what is no word.

    A percent-escape (`%20ghp_...`), or Telegram's `bot` prefix of its API paths
    (`/bot123456789:AAH...`)."""
    escaped = start >= 3 and text[start - 3] == "%" and text[start - 2 : start].isalnum()
    return escaped or (text[start].isdigit() and text[:start].endswith("bot"))
