"""A problem's states and the rules that move it between them.

Pure: no database, no clock of its own.

Stored states are `open`, `resolved`, `regressed` and `archived`; an open problem reads as `new` for
seven days after it was first seen, then `ongoing`. A resolved problem regresses only when a call
whose own time is after the resolution breaks again, for the first time (a shipper's retry, a
backfill or a re-analysis never reopens one); "next release" also wants another release, "contract
change" another contract digest.
"""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from ..common.times import stamp

STATES = ("new", "ongoing", "resolved", "regressed", "archived")
RESOLVE_MODES = ("now", "next_release", "contract_change", "after_clean_calls")
NEW_DAYS = 7
# an archived problem escalates at twice the occurrences of the day before archiving
ESCALATION_FACTOR = 2
ESCALATION_MIN = 10
# a refused link is redacted up to this length, then quoted short: only its start is shown
QUOTE_SCAN = 2000


# what RFC 3986 never lets a URL hold as it is (a page or a ticket would misread it)
_NOT_IN_URLS = ' "<>\\^`{|}'


class BadChange(ValueError):
    """A state change the API or CLI cannot apply; the message says why."""


def display_state(state: str, first_seen: str | None, now: datetime) -> str:
    """Return the state a person reads.

    Open becomes new (first seen within 7 days) or ongoing."""
    if state != "open":
        return state
    return "new" if first_seen and first_seen >= new_since(now) else "ongoing"


def new_since(now: datetime) -> str:
    """Return the first-seen time from which an open problem reads as new."""
    return iso(now - timedelta(days=NEW_DAYS))


def shown(problem: dict | None, now: datetime | None = None) -> dict | None:
    """Give a stored problem the state a person reads, in place; return it.

    See display_state."""
    if problem is not None:
        problem["state"] = display_state(
            problem["state"], problem["first_seen"], now or datetime.now(UTC)
        )
    return problem


def iso(moment: datetime) -> str:
    """Format a time as the store writes times (webapp/common/times.py)."""
    return stamp(moment)


def parse_change(body, clean_link: Callable[[str], str] | None = None) -> dict:
    """Validate a PATCH body.

    Return {"state"?, "resolve"?, "until"?, "links"?, "merged_into"?}.

    `clean_link` redacts a ticket link before it is stored (a password or a token in it)."""
    if not isinstance(body, dict) or not body:
        raise BadChange(
            'the body must be a JSON object such as {"state": "resolved", "resolve": "now"}'
        )
    unknown = set(body) - {"state", "resolve", "until", "links", "merged_into"}
    if unknown:
        raise BadChange(f"unknown field(s): {', '.join(sorted(unknown))}")
    change = {}
    if "links" in body:
        change["links"] = list(
            dict.fromkeys(map(clean_link or str, _links(body["links"], clean_link)))
        )
    if "merged_into" in body:
        if not isinstance(body["merged_into"], str):
            raise BadChange('merged_into must be a problem id such as "TD-7"')
        change["merged_into"] = body["merged_into"]
    state = body.get("state")
    if state is None:
        if "resolve" in body or "until" in body:
            raise BadChange("resolve and until go with a state")
        return change
    if state == "resolved":
        change.update(state="resolved", resolve=_resolve(body.get("resolve", "now")))
    elif state == "archived":
        until = body.get("until")
        if until not in ("escalating", None):
            raise BadChange('until must be "escalating" or null')
        change.update(state="archived", until=until)
    elif state in ("open", "ongoing", "new"):
        change["state"] = "open"
    else:
        raise BadChange("state must be resolved, archived or open")
    return change


def _resolve(value) -> dict:
    if value in ("now", "next_release", "contract_change"):
        return {"mode": value}
    if isinstance(value, dict) and set(value) == {"after_clean_calls"}:
        n = value["after_clean_calls"]
        if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 1_000_000:
            return {"mode": "after_clean_calls", "n": n, "clean": 0}
    raise BadChange(
        'resolve must be "now", "next_release", "contract_change" or {"after_clean_calls": N} with '
        "N from 1 to 1000000"
    )


def _links(value, clean_link: Callable[[str], str] | None) -> list[str]:
    if not isinstance(value, list) or len(value) > 50:
        raise BadChange("links must be a list of up to 50 http(s) URLs")
    for link in value:
        if not is_link(link):
            raise BadChange(
                f"links must be http(s) URLs with a host, such as "
                f'"https://tracker.example.com/INC-8"; got {quoted(link, clean_link)}'
            )
    return value


def quoted(link, clean_link: Callable[[str], str] | None) -> str:
    """Quote a link for an error message.

    Redacted as a stored link is, then cut (a secret cut first could slip past the redactor)."""
    if not isinstance(link, str):
        return "a " + type(link).__name__
    shown = clean_link(link[:QUOTE_SCAN]) if clean_link else link
    return repr(shown[:80] + ("…" if len(shown) > 80 else ""))


def is_link(value) -> bool:
    """Tell an http(s) URL with a host.

    At most 2000 characters, no spaces or control characters."""
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= 2000
        or not value.isprintable()
        or any(ch in value for ch in _NOT_IN_URLS)
    ):
        return False
    # a link stored redacted comes back in a PATCH that edits the list: its marker is no fault
    try:
        parts = urlsplit(value.replace("[REDACTED]", "redacted"))
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def links_change(
    current: list[str], add=(), remove=(), clean_link: Callable[[str], str] | None = None
) -> dict:
    """Return the change that adds and removes ticket links.

    A link to remove is matched as given or as stored (redacted), and one that is not there is
    refused."""
    clean = clean_link or str
    for link in remove:
        if link not in current and not (is_link(link) and clean(link) in current):
            raise BadChange(f"{quoted(link, clean_link)} is not linked to this problem")
    gone = {*remove, *(clean(link) for link in remove if is_link(link))}
    return parse_change(
        {"links": [link for link in current if link not in gone] + list(add)}, clean_link
    )


def reopens(problem: dict, call: dict) -> bool:
    """Say whether a breaking call regresses a resolved problem.

    `call` has `ts` (its own time), `prior` (it broke this problem before: a re-analysis), `release`
    and `digest` (of the contract its analysis used).
    """
    if problem["state"] != "resolved" or call["prior"]:
        return False
    resolve = problem["resolve"] or {}
    if not call["ts"] or call["ts"] <= (problem["resolved_at"] or ""):
        return False
    if resolve.get("mode") == "next_release":
        return call["release"] is not None and call["release"] not in resolve.get("releases", [])
    if resolve.get("mode") == "contract_change":
        return call["digest"] != resolve.get("digest")
    return True


def counts_clean_calls(resolve: dict | None, state: str) -> bool:
    """Tell whether an "after N clean calls" resolution still waits for its calls.

    Not once it resolved the problem (`met`, the time it did): a call that breaks it again
    regresses it, and only a person resolves it anew (else a flapping bug would close itself after
    every N clean calls)."""
    if state == "resolved" or not resolve or resolve.get("mode") != "after_clean_calls":
        return False
    return not resolve.get("met")


def pending_text(resolve: dict | None, state: str) -> str | None:
    """Say how far a pending "after N clean calls" resolution got.

    "2 of 3 clean calls ..."."""
    if not counts_clean_calls(resolve, state):
        return None
    return (
        f"{resolve.get('clean', 0)} of {resolve['n']} clean calls that exercised the path; "
        f"resolves at {resolve['n']}"
    )


def escalates(archive: dict | None, occurrences_since: int) -> bool:
    """Say whether an archived-until-escalating problem broke out of its archive."""
    if not archive or archive.get("until") != "escalating":
        return False
    return occurrences_since >= max(ESCALATION_MIN, ESCALATION_FACTOR * archive.get("baseline", 0))


def verified_text(calls: int, broke: int) -> str:
    """Say how a resolution held: "verified: 240 calls, 0 broke"."""
    return f"verified: {calls} call{'s' if calls != 1 else ''}, {broke} broke"
