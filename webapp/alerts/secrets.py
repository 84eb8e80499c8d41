"""Secrets in a rule's webhook URL.

Stored as given, shown masked to everyone, kept on an edit.

A receiver's credential often lives in its URL: the user info (`https://user:pass@`), a query value
under a secret name (`?token=`, `?sig=`, Google Chat's `?key=`), a path segment (Slack's
`/services/T…/B…/XXXX`, Discord's `/api/webhooks/<id>/<token>`, a random-looking key), or a part
the rule marks (`secret_parts`: query parameter names, path segments by number from 1). The
redaction package finds them (redactor.url, webhooks.py); here each becomes [REDACTED] wherever a
rule is shown, as Grafana shows a contact point's secure fields, and a URL sent back with
[REDACTED] in a place keeps what is saved there.
"""

from urllib.parse import unquote, unquote_plus

from ..redaction.redactor import Redactor
from ..redaction.urls import REDACTED, split_url
from ..redaction.webhooks import secret_segments

_REDACTOR = Redactor()
# a secret this long or longer is cut out of any text; a shorter one only where its whole URL is
SHORTEST = 4
# the places of _split's list
USERINFO, PATH, QUERY, FRAGMENT = 1, 2, 3, 4


def marked_names(rule: dict) -> set[str]:
    """The query parameter names a rule marks secret."""
    return {part for part in rule.get("secret_parts") or () if isinstance(part, str)}


def masked_url(rule: dict) -> str:
    """Return a rule's URL, each secret part as [REDACTED].

    A Slack URL: its whole path."""
    url = rule["url"]
    return _REDACTOR.url(url, marked_names(rule), _segments(rule))


def _segments(rule: dict) -> set[int]:
    url = rule["url"]
    marked = {part for part in rule.get("secret_parts") or () if type(part) is int}
    # a Slack incoming webhook's URL is itself the secret
    if rule.get("format") == "slack":
        return set(range(1, len(_split(url)[2])))
    return marked | secret_segments(url)


def public(rule: dict) -> dict:
    """Return a rule as anyone may see it.

    Its URL masked, its pause reason cleaned."""
    shown = {**rule, "url": masked_url(rule)}
    if rule.get("pause_reason"):
        shown["pause_reason"] = scrub(rule["pause_reason"], rule)
    return shown


def scrub(text: str | None, rule: dict) -> str | None:
    """Return text with the rule's URL and secrets masked.

    Text such as a delivery error, a log line."""
    if not text:
        return text
    text = text.replace(rule["url"], masked_url(rule))
    for secret in sorted(secrets(rule), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text


def secrets(rule: dict) -> set[str]:
    """Return the secret parts of a rule's URL, as written and decoded.

    SHORTEST characters or longer."""
    shown, saved = _split(masked_url(rule)), _split(rule["url"])
    found = set()
    for kind in range(1, 5):
        for mask, value in zip(shown[kind] or (), saved[kind] or (), strict=False):
            if REDACTED in mask and mask != value:
                found |= _forms(_value(kind, value))
    return {secret for secret in found if len(secret) >= SHORTEST}


def _value(kind: int, part: str) -> str:
    """The secret of a part.

    The password of the user info, the value of a `name=value` pair."""
    if kind == USERINFO:
        return part.partition(":")[2]
    if kind in (QUERY, FRAGMENT):
        return part.partition("=")[2] or part
    return part


def _forms(value: str) -> set[str]:
    return {value, unquote(value), unquote_plus(value)}


def keep_secrets(sent: str, saved: dict) -> str:
    """Return the URL an edit sent.

    Each [REDACTED] part replaced by what is saved in that place.

    Raise ValueError when one has nothing saved to stand for, or when the scheme, host or port
    changed: a kept secret never goes to another server than the one it was typed for.
    """
    if REDACTED not in sent:
        return sent
    new, shown, stored = _split(sent), _split(masked_url(saved)), _split(saved["url"])
    if new[0].lower() != shown[0].lower():
        raise ValueError("url keeps a saved secret but names another host: type its secrets again")
    for kind in range(1, 5):
        used = set()
        for index, part in enumerate(new[kind] or ()):
            if REDACTED in part:
                at = _place(part, index, shown[kind] or [], used)
                if at is None:
                    raise ValueError(f"url has {part!r} where no secret is saved: type the secret")
                new[kind][index] = stored[kind][at]
    return _join(new)


def _place(part: str, index: int, shown: list[str], used: set[int]) -> int | None:
    """Find where a masked part was shown.

    At its own place, else the first unused equal one."""
    candidates = [index, *range(len(shown))]
    for at in candidates:
        if at < len(shown) and at not in used and shown[at] == part:
            used.add(at)
            return at
    return None


def _split(url: str) -> list:
    """Split a URL: [scheme://host:port, [user info], [segments], [query], [fragment]]."""
    scheme, authority, path, query, fragment = split_url(url) or ("", url, "", None, None)
    userinfo, at, hostport = authority.rpartition("@")
    return [
        scheme + hostport,
        [userinfo] if at else [],
        path.split("/"),
        None if query is None else query[1:].split("&"),
        None if fragment is None else fragment[1:].split("&"),
    ]


def _join(parts: list) -> str:
    scheme_host, userinfo, path, query, fragment = parts
    scheme, _, hostport = scheme_host.partition("://")
    url = f"{scheme}://{userinfo[0] + '@' if userinfo else ''}{hostport}{'/'.join(path)}"
    url += "" if query is None else f"?{'&'.join(query)}"
    return url + ("" if fragment is None else f"#{'&'.join(fragment)}")
