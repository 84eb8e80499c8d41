"""Alert rules: what a rule may say.

Checked once when it is made, and which events it matches."""

import base64
import secrets

from ..analysis import KIND_NAMES, SEVERITIES, rank
from ..problems.fingerprint import SCHEMA_KIND
from .urls import UrlRefused, parse_url

# What a rule's `on` may name, and the type of message each sends.
EVENT_TYPES = {
    "new": "problem.new",
    "regressed": "problem.regressed",
    "escalating": "problem.escalating",
    "rejected_events": "ingest.rejected",
}
# The type of the one message outside the outbox: a test send, which no receiver should take for a
# problem.
TEST_TYPE = "tracediff.test"
FORMATS = ("webhook", "slack")
# every kind a problem can have
PROBLEM_KINDS = (*KIND_NAMES, SCHEMA_KIND)
DEFAULT_MIN_INTERVAL_S = 600
FIELDS = (
    *("url", "format", "on", "tool", "kind", "min_severity", "source", "min_interval_s"),
    "secret_parts",
)
MAX_SECRET_PARTS = 20


class RuleError(ValueError):
    """A rule that cannot be made; the message names the field."""


def parse_rule(body) -> dict:
    """Return a rule from a request body, or raise RuleError naming what is wrong."""
    if not isinstance(body, dict):
        raise RuleError("the rule must be a JSON object")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise RuleError(f"unknown field {unknown[0]!r}; a rule takes {', '.join(FIELDS)}")
    url = body.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise RuleError("url must be an http:// or https:// URL")
    try:
        parse_url(url)
    except UrlRefused as error:
        raise RuleError(str(error)) from None
    fmt = body.get("format", "webhook")
    if fmt not in FORMATS:
        raise RuleError(f"format must be one of {', '.join(FORMATS)}")
    on = body.get("on", ["new", "regressed"])
    if not isinstance(on, list) or not on or any(e not in EVENT_TYPES for e in on):
        raise RuleError(f"on must be a non-empty list of {', '.join(EVENT_TYPES)}")
    return {
        "url": url,
        "format": fmt,
        "on": sorted(set(on), key=list(EVENT_TYPES).index),
        "tool": _optional(body, "tool"),
        "kind": _choice(body, "kind", PROBLEM_KINDS),
        "min_severity": _choice(body, "min_severity", SEVERITIES),
        "source": _optional(body, "source"),
        "min_interval_s": _interval(body.get("min_interval_s", DEFAULT_MIN_INTERVAL_S)),
        "secret_parts": _secret_parts(body.get("secret_parts") or []),
    }


def _optional(body, name):
    value = body.get(name)
    if value is not None and (not isinstance(value, str) or not value):
        raise RuleError(f"{name} must be a non-empty string or null")
    return value


def _choice(body, name, allowed):
    value = _optional(body, name)
    if value is not None and value not in allowed:
        raise RuleError(f"{name} must be one of {', '.join(allowed)}")
    return value


def _interval(value) -> int:
    if type(value) is not int or not 0 <= value <= 7 * 86400:
        raise RuleError("min_interval_s must be an integer number of seconds, 0 to 604800")
    return value


def _secret_parts(parts) -> list:
    """Check the parts of its URL a rule marks secret.

    Query parameter names, segment numbers."""
    if not isinstance(parts, list) or len(parts) > MAX_SECRET_PARTS or not all(map(_part, parts)):
        raise RuleError(
            f"secret_parts must be a list of at most {MAX_SECRET_PARTS} query parameter names"
            " and path segment numbers (1 is the first segment, at most 100)"
        )
    return sorted(set(parts), key=lambda part: (isinstance(part, str), str(part).zfill(3)))


def _part(part) -> bool:
    """Tell a query parameter's name, or the number of a path segment (1 is the first)."""
    if isinstance(part, str):
        return 0 < len(part) <= 100
    return type(part) is int and 1 <= part <= 100


def matches(rule: dict, event: str, data: dict) -> bool:
    """Tell whether a rule wants an event about a problem or the ingest.

    Events such as `new`, `regressed`..."""
    if event not in rule["on"]:
        return False
    if event == "rejected_events":
        return rule["source"] is None or rule["source"] == data.get("source")
    return all(
        (
            rule["tool"] is None or rule["tool"] == data.get("tool"),
            rule["kind"] is None or rule["kind"] == data.get("kind"),
            rule["min_severity"] is None
            or rank(data.get("severity")) <= rank(rule["min_severity"]),
            rule["source"] is None
            or rule["source"] in (data.get("sources") or [data.get("source")]),
        )
    )


def filters_text(rule: dict) -> str:
    """Say every filter of a rule, set or not.

    "tool=findOrders kind=any min_severity=warning source=any min_interval_s=600" (what `tracediff
    alerts list` and `add` print)."""
    shown = [
        f"{name}={rule.get(name) or 'any'}" for name in ("tool", "kind", "min_severity", "source")
    ]
    return " ".join([*shown, f"min_interval_s={rule.get('min_interval_s')}"])


def new_secret() -> str:
    """Return a signing secret in the Standard Webhooks form.

    `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
