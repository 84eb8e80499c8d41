"""What the lists can be filtered by, parsed from a URL's query string.

Or from the CLI's options: leniently for the pages, strictly for the API, into the plain filters the
store runs (webapp/store/filters.py); a since/until in the forms people write made a stored time,
and the trace list's cursors."""

import base64
import re
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta

from ..common import times
from ..common.digits import is_digits, problem_number
from ..store.filters import SEVERITIES, SNAPSHOTS, STATUS_CLASSES, TraceQuery

CHOICES = {"severity": SEVERITIES, "status": STATUS_CLASSES, "missing": SNAPSHOTS}
MAX_LIMIT = 500
# A day, or an RFC 3339 time (seconds and offset optional, as a datetime-local input sends it).
# \d is 0-9 only, as int() and times read them
DAY_OR_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?\Z",
    re.ASCII,
)
# A time relative to now, as people say it: 30m, 2h, 7d, 2w (ago).
RELATIVE = re.compile(r"(\d{1,6})\s*(m|min|h|d|w)\Z", re.ASCII)
# \d is 0-9 only, as int() and times read them
TOO_FAR_BACK = re.compile(r"\d{7,}\s*(m|min|h|d|w)\Z", re.ASCII)
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


@dataclass(frozen=True)
class ListQuery:
    """The trace list's query as it was typed (since `2h`, problem `TD-42`).

    The links keep it, the store gets `filters()`."""

    # trace id prefix, tool name or words inside payloads
    q: str = ""
    tool: str = ""
    # one of SEVERITIES: the trace's worst finding
    severity: str = ""
    # a finding kind, e.g. type_changed
    kind: str = ""
    # an HTTP status class, e.g. 5xx
    status: str = ""
    # a snapshot name that has not arrived
    missing: str = ""
    # lower bound of last seen: RFC 3339, a day, or 2h / 7d ago
    since: str = ""
    # upper bound of last seen
    until: str = ""
    # a problem id (TD-42): the traces it was seen in
    problem: str = ""
    # a release one of the trace's calls named (the envelope's `release`)
    release: str = ""
    limit: int = 50

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        return query_args(self, changes)

    def filters(self, now: datetime | None = None) -> TraceQuery:
        """Return the filters the store runs.

        Since and until made stored times (2h counts back from `now`), the problem its number."""
        now = now or datetime.now(UTC)
        plain = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("since", "until", "problem")
        }
        return TraceQuery(
            **plain,
            since=absolute_time(self.since, now),
            until=absolute_time(self.until, now),
            problem=problem_number(self.problem) if self.problem else None,
        )


def trace_query(args) -> ListQuery:
    """Build a trace query from request args, ignoring values it does not know."""
    values = known_values(
        {f.name: printable(args.get(f.name) or "") for f in fields(ListQuery) if f.name != "limit"}
    )
    if problem_number(values["problem"]) is None:
        values["problem"] = ""
    try:
        limit = min(max(int(args.get("limit", 50)), 1), MAX_LIMIT)
    except ValueError:
        limit = 50
    return ListQuery(limit=limit, **values)


def known_values(values: dict, choices: dict = CHOICES) -> dict:
    """Return a query's values with the unknown ones made empty.

    Each that is not one of its choices, and a since or until that is no time (the pages' lenient
    way: a stale link still opens the list)."""
    for name, allowed in choices.items():
        if values[name] not in allowed:
            values[name] = ""
    for name in ("since", "until"):
        if values[name] and not is_time(values[name]):
            values[name] = ""
    return values


def bad_trace_filter(args, kinds) -> str | None:
    """Say what is wrong with the first bad filter value in args.

    The API's strict way."""
    if args.get("problem") and problem_number(args["problem"]) is None:
        return f"problem must be a problem id like TD-42; got {args['problem'][:40]!r}"
    return bad_filter(args, {**CHOICES, "kind": kinds}) or bad_range(args)


def absolute_time(text: str, now: datetime | None = None) -> str:
    """Return a since/until value in the stored form of times.

    webapp/common/times.py, so it compares with them.

    2h, 7d count back from now; a day is its midnight (UTC); what is not a time is returned as it
    is, for the caller to refuse."""
    match = RELATIVE.match(text or "")
    if not match:
        if not text or not DAY_OR_TIME.match(text):
            return text
        return times.fixed(text)
    now = now or datetime.now(UTC)
    try:
        moment = now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    # 999999w: before the calendar begins, so since the beginning
    except OverflowError:
        return times.stamp(datetime.min)
    return times.stamp(moment)


def is_time(text: str) -> bool:
    """Say whether a since/until value is a real day.

    An RFC 3339 time or a relative time (2h, 7d)."""
    if RELATIVE.match(text):
        return True
    if not DAY_OR_TIME.match(text):
        return False
    # the pattern lets 2026-13-45 or 25:00 through; the calendar does not
    try:
        times.parse(text)
    except ValueError:
        return False
    return True


def bad_filter(args, choices: dict) -> str | None:
    """Say what is wrong with the first bad choice, time or limit, or None.

    In args; lists share these."""
    for name, allowed in choices.items():
        value = (args.get(name) or "").strip()
        if value and value not in allowed:
            return f"{name} must be one of {', '.join(allowed)}; got {value[:40]!r}"
    bad = bad_time(args)
    if bad:
        return bad
    limit = args.get("limit")
    if limit is not None and not (is_digits(limit) and 1 <= int(limit) <= MAX_LIMIT):
        return f"limit must be a whole number from 1 to {MAX_LIMIT}; got {limit[:40]!r}"
    return None


def bad_time(args) -> str | None:
    """Say what is wrong with a since or until in args that is no time, or None.

    2026-13-45 included."""
    for name in ("since", "until"):
        value = (args.get(name) or "").strip()
        if value and TOO_FAR_BACK.match(value):
            return (
                f"{name} {value[:40]!r} counts back too far: a time ago has at most 6 digits "
                "(999999d)"
            )
        if value and not is_time(value):
            return (
                f"{name} must be a date, an RFC 3339 time like 2026-11-30T09:00:00Z or a time ago "
                f"like 2h or 7d; got {value[:40]!r}"
            )
    return None


def query_args(query, changes: dict) -> dict:
    """Return a query dataclass's non-empty values as query-string arguments.

    With changes applied."""
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


def printable(text: str) -> str:
    """Drop control characters and outer spaces.

    A NUL would end SQLite's reading of the search."""
    return "".join(ch for ch in text if ch.isprintable() or ch == " ").strip()


def bad_range(args, now: datetime | None = None) -> str | None:
    """Say so when since comes after until, or None.

    A window that ends before it begins."""
    since, until = ((args.get(name) or "").strip() for name in ("since", "until"))
    if not (since and until and is_time(since) and is_time(until)):
        return None
    now = now or datetime.now(UTC)
    if _moment(absolute_time(since, now)) > _moment(absolute_time(until, now)):
        return f"since ({since[:40]!r}) must not be later than until ({until[:40]!r})"
    return None


def _moment(text: str) -> datetime:
    day = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return day.replace(tzinfo=UTC) if day.tzinfo is None else day
