"""Where a webhook receiver keeps its credential in a URL's path.

The well-known services' shapes, and any segment that looks like a random key (Mattermost's
`/hooks/<id>`, webhook.site's `/<uuid>`).

Query values under secret names and the user info's password are the redactor's already (urls.py);
this finds what only a webhook's URL says by where it is. An alert's receiver (secret_segments)
loses every segment after the service's prefix, and any random-looking one; those rules are not
applied to payloads, whose URLs name orders and users by ids that look random too. In payloads,
headers and text (redact_webhook_tokens) a well-known webhook URL loses its token alone: the ids
before it (Slack's team and hook, Discord's webhook id) name the destination and stay as evidence.
"""

import re
from urllib.parse import unquote, urlsplit

from .urls import REDACTED

# a prefix segment that may be anything (IFTTT's event name)
ANY = "*"
# (host, or a domain starting with "."; the path segments before the secret ones): every segment
# after them is the receiver's credential
WEBHOOK_PATHS = (
    # /services/T…/B…/<secret>
    ("hooks.slack.com", ("services",)),
    # workflow triggers: /workflows/T…/A…/<id>/<secret>
    ("hooks.slack.com", ("workflows",)),
    ("hooks.slack.com", ("triggers",)),
    # /api/webhooks/<id>/<token>
    ("discord.com", ("api", "webhooks")),
    ("discordapp.com", ("api", "webhooks")),
    # Teams: /webhookb2/<group>@<tenant>/IncomingWebhook/<id>/<owner>
    (".webhook.office.com", ("webhookb2",)),
    ("outlook.office.com", ("webhookb2",)),
    # /hooks/catch/<account>/<key>/
    ("hooks.zapier.com", ("hooks", "catch")),
    # /trigger/<event>/with/key/<key>
    ("maker.ifttt.com", ("trigger", ANY, "with", "key")),
    # /bot<token>/sendMessage
    ("api.telegram.org", ()),
)
# a key made by a machine: 16 or more URL-safe characters, letters and digits mixed
RANDOM = re.compile(r"(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[A-Za-z0-9_~.=-]{16,}")


def secret_segments(url: str) -> set[int]:
    """Return the numbers of a webhook URL's path segments holding its credential.

    Counted from 1."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:
        return set()
    segments = [unquote(segment) for segment in parts.path.split("/")]
    found = {index for index, segment in enumerate(segments) if index and RANDOM.fullmatch(segment)}
    for domain, prefix in WEBHOOK_PATHS:
        if _on(host, domain) and _starts(segments[1:], prefix):
            found |= {index for index in range(len(prefix) + 1, len(segments)) if segments[index]}
    return found


def _on(host: str, domain: str) -> bool:
    return host.endswith(domain) if domain.startswith(".") else host == domain


def _starts(segments: list[str], prefix: tuple[str, ...]) -> bool:
    return len(segments) > len(prefix) and all(
        want in (ANY, got.lower()) for want, got in zip(prefix, segments, strict=False)
    )


# (host, path up to the token) of the well-known webhook URLs; the ids on the path are digits or
# the vendor's prefixed ids, never the random key
WEBHOOK_TOKEN_PATHS = (
    # /api[/v10]/webhooks/<snowflake>/<token>, on discord.com, ptb. and canary. too
    (r"(?:ptb\.|canary\.)?discord(?:app)?\.com", r"/api(?:/v\d+)?/webhooks/\d+/"),
    # /services/T…/B…/<secret>
    (r"hooks\.slack\.com", r"/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/"),
    # workflow webhooks /workflows/T…/A…/<id>/<secret>, triggers /triggers/T…/<id>/<secret>
    (r"hooks\.slack\.com", r"/workflows/T[A-Za-z0-9_]+/A[A-Za-z0-9_]+/\d+/"),
    (r"hooks\.slack\.com", r"/triggers/T[A-Za-z0-9_]+/\d+/"),
    # /hooks/catch/<account>/<key>
    (r"hooks\.zapier\.com", r"/hooks/catch/\d+/"),
    # /trigger/<event>/with/key/<key>
    (r"maker\.ifttt\.com", r"/trigger/[A-Za-z0-9_.-]+/with/key/"),
)
# The hosts of WEBHOOK_TOKEN, as the one-scan proof of a clean event looks for them (RE2 syntax).
WEBHOOK_HOSTS = "(?i:" + "|".join(dict.fromkeys(host for host, _ in WEBHOOK_TOKEN_PATHS)) + ")"
# a slash as written, or percent-encoded (a URL sent in a form field or a query value)
_SLASH = r"(?:/|%2[Ff])"
# a webhook URL up to its token (kept), then the token; the host starts a word, or follows an
# encoded slash
WEBHOOK_TOKEN = re.compile(
    r"(?:(?<![A-Za-z0-9.-])|(?<=%2[Ff]))(?P<kept>"
    + "|".join(f"(?i:{host}){path.replace('/', _SLASH)}" for host, path in WEBHOOK_TOKEN_PATHS)
    + r")(?P<token>[A-Za-z0-9_-]+)",
    re.ASCII,
)
# in every text WEBHOOK_TOKEN matches, lower-cased (a substring test costs a fifth of a search)
_HOST_WORDS = ("discord", "hooks.", "ifttt")


def redact_webhook_tokens(text: str) -> str:
    """Return text with the token of every well-known webhook URL in it redacted.

    The URL's scheme, host, path and ids are kept."""
    lowered = text.lower()
    if not any(word in lowered for word in _HOST_WORDS):
        return text
    return WEBHOOK_TOKEN.sub(lambda match: match.group("kept") + REDACTED, text)
