"""What the trace list can be filtered by, as the store runs it (webapp/web/filters.py parses a query string into
it), a since/until in the forms people write made a stored time, and the lists' cursors."""

import base64
import re
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta

from ..common import times

SEVERITIES = ("error", "warning", "info", "clean")
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
SNAPSHOTS = ("arguments", "request", "response", "result")
CHOICES = {"severity": SEVERITIES, "status": STATUS_CLASSES, "missing": SNAPSHOTS}
MAX_LIMIT = 500
# A day, or an RFC 3339 time (seconds and offset optional, as a datetime-local input sends it).
DAY_OR_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?\Z", re.ASCII
)  # \d is 0-9 only, as int() and times read them
# A time relative to now, as people say it: 30m, 2h, 7d, 2w (ago).
RELATIVE = re.compile(r"(\d{1,6})\s*(m|min|h|d|w)\Z", re.ASCII)  # \d is 0-9 only, as int() and times read them
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def absolute_time(text: str, now: datetime | None = None) -> str:
    """Return a since/until value in the stored form of times (webapp/common/times.py), so it compares with them.

    2h, 7d count back from now; a day is its midnight (UTC); what is not a time is returned as it is, for
    the caller to refuse."""
    match = RELATIVE.match(text or "")
    if not match:
        if not text or not DAY_OR_TIME.match(text):
            return text
        return times.fixed(text)
    now = now or datetime.now(UTC)
    try:
        moment = now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    except OverflowError:  # 999999w: before the calendar begins, so since the beginning
        return times.stamp(datetime.min)
    return times.stamp(moment)


@dataclass(frozen=True)
class TraceQuery:
    q: str = ""  # trace id prefix, tool name or words inside payloads
    tool: str = ""
    severity: str = ""  # one of SEVERITIES: the trace's worst finding
    kind: str = ""  # a finding kind, e.g. type_changed
    status: str = ""  # an HTTP status class, e.g. 5xx
    missing: str = ""  # a snapshot name that has not arrived
    since: str = ""  # RFC 3339 lower bound of last seen
    until: str = ""  # RFC 3339 upper bound of last seen
    problem: str = ""  # a problem id (TD-42): the traces it was seen in
    limit: int = 50

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        return query_args(self, changes)


def query_args(query, changes: dict) -> dict:
    """Return a query dataclass's non-empty values as query-string arguments, with changes applied."""
    values = {f.name: getattr(query, f.name) for f in fields(query)}
    values.update(changes)
    if values.get("limit") == 50:
        values.pop("limit")
    return {k: v for k, v in values.items() if v not in ("", None)}


def encode_cursor(cursor: tuple | None) -> str | None:
    """Encode a (last_ts, trace_id) keyset position as an opaque string."""
    if cursor is None:
        return None
    return base64.urlsafe_b64encode("\n".join(cursor).encode()).decode()


def decode_cursor(text: str | None) -> tuple | None:
    """Decode an opaque cursor; raise ValueError when it is not one of ours."""
    if not text:
        return None
    try:
        last_ts, trace_id = base64.urlsafe_b64decode(text.encode()).decode().split("\n", 1)
        # a cursor given out before migration 10 holds the time as it was stored then
        return times.fixed(last_ts), trace_id
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"cursor {text[:40]!r} is not one this server gave out") from error
