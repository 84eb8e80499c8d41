"""Where a webhook receiver keeps its credential in a URL's path.

The well-known services' shapes, and any segment that looks like a random key (Mattermost's
`/hooks/<id>`, webhook.site's `/<uuid>`).

Query values under secret names and the user info's password are the redactor's already (urls.py);
this finds what only a webhook's URL says by where it is. It is not applied to payloads, whose URLs
name orders and users by ids that look random too.
"""

import re
from urllib.parse import unquote, urlsplit

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
