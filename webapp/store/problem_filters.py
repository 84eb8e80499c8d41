"""What the problem list can be filtered by, and the SQL conditions for it."""

from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta

from ..analysis.kinds import KIND_NAMES
from ..common import times
from ..problems.fingerprint import SCHEMA_KIND
from ..problems.states import NEW_DAYS, STATES
from .filters import MAX_LIMIT, absolute_time, bad_filter, is_time, query_args

TICKETS = ("linked", "unlinked")
HOUR = "%Y-%m-%dT%H"  # problem_hours' keys
ROLLUP_HOURS = 24  # a time window up to this long is decided by the hourly rollup, a longer one by a probe
# The release of a problem's first call: the release it is new in (problem_calls_by_time finds it, one probe).
FIRST_RELEASE = (
    "(SELECT f.release FROM problem_calls f WHERE f.problem_id = p.id ORDER BY f.ts, f.trace_id, f.call_id LIMIT 1)"
)
CHOICES = {"state": STATES, "severity": ("error", "warning"), "kind": (*KIND_NAMES, SCHEMA_KIND), "ticket": TICKETS}


@dataclass(frozen=True)
class ProblemQuery:
    q: str = ""  # words in the tool, kind, paths or transform, or a problem id
    tool: str = ""
    kind: str = ""
    severity: str = ""
    state: str = ""  # new, ongoing, resolved, regressed, archived
    source: str = ""
    release: str = ""
    new_in: str = ""  # a release: only the problems first seen in it (the release of their first call)
    ticket: str = ""  # linked (has ticket links) or unlinked
    since: str = ""  # seen at or after (RFC 3339, a day, or 2h / 7d ago): an occurrence in the range
    until: str = ""  # seen at or before
    limit: int = 50

    @classmethod
    def from_args(cls, args) -> "ProblemQuery":
        """Build a query from request args, ignoring values it does not know (the pages' lenient way)."""
        values = {
            f.name: "".join(ch for ch in (args.get(f.name) or "") if ch.isprintable()).strip()
            for f in fields(cls)
            if f.name != "limit"
        }
        for name, choices in CHOICES.items():
            if values[name] not in choices:
                values[name] = ""
        for name in ("since", "until"):
            if values[name] and not is_time(values[name]):
                values[name] = ""
        limit = args.get("limit", "50")
        limit = min(max(int(limit), 1), MAX_LIMIT) if (str(limit).isascii() and str(limit).isdigit()) else 50
        return cls(limit=limit, **values)

    @staticmethod
    def bad_value(args) -> str | None:
        """Say what is wrong with the first bad value in args (the API's strict way)."""
        return bad_filter(args, CHOICES) or bad_range(args)

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        return query_args(self, changes)


def bad_range(args, now: datetime | None = None) -> str | None:
    """Say so when since comes after until (a window that ends before it begins), or None."""
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


def new_since(now: datetime | None = None) -> str:
    """Return the first-seen time after which an open problem reads as new."""
    now = now or datetime.now(UTC)
    return times.stamp(now - timedelta(days=NEW_DAYS))


def conditions(query: ProblemQuery, now: datetime | None = None) -> tuple[list[str], list]:
    """Return the WHERE conditions and parameters of a problem query (merged problems left out)."""
    where, params = ["p.merged_into IS NULL", "p.calls > 0"], []
    for name in ("tool", "kind", "severity"):
        if getattr(query, name):
            where.append(f"p.{name} = ?")
            params.append(getattr(query, name))
    if query.state in ("new", "ongoing"):
        where.append("p.state = 'open' AND p.first_seen " + (">= ?" if query.state == "new" else "< ?"))
        params.append(new_since(now))
    elif query.state:
        where.append("p.state = ?")
        params.append(query.state)
    for dim in ("source", "release"):
        if getattr(query, dim):
            # one search of problem_splits_by_value, not a probe per problem; `+` keeps the walk by last_seen
            where.append("+p.id IN (SELECT s.problem_id FROM problem_splits s WHERE s.dim = ? AND s.value = ?)")
            params += [dim, getattr(query, dim)]
    if query.new_in:  # seen in the release at all (the index), then first seen in it (a probe per such problem)
        where.append("+p.id IN (SELECT s.problem_id FROM problem_splits s WHERE s.dim = 'release' AND s.value = ?)")
        where.append(f"{FIRST_RELEASE} = ?")
        params += [query.new_in, query.new_in]
    if query.ticket:
        where.append("p.links " + ("!=" if query.ticket == "linked" else "=") + " '[]'")  # links is a JSON list
    if query.since or query.until:
        _in_range(absolute_time(query.since, now), absolute_time(query.until, now), where, params)
    if query.q:
        _search(query.q, where, params)
    return where, params


def _in_range(since: str, until: str, where: list, params: list) -> None:
    """Keep problems with an occurrence between since and until, not only those last seen there."""
    if since:
        where.append("p.last_seen >= ?")
        params.append(since)
    if until:
        where.append("p.first_seen <= ?")
        params.append(until)
    if since and until:
        where.append(f"(p.first_seen >= ? OR p.last_seen <= ? OR {_seen_inside(since, until, params)})")


def _seen_inside(since: str, until: str, params: list) -> str:
    """Return the condition that a problem seen before and after a window was seen inside it too."""
    # First or last seen inside the window is an occurrence in it (the caller's OR): this decides the rest. A probe
    # of problem_calls_by_time per problem costs ~7 us (70 ms for 10,000 at 1M traces); reading the window's
    # hourly rollup costs ~1.6 us a row, so up to a day it is cheaper: an hour wholly inside decides, and only a
    # problem seen in an edge hour is probed.
    # OFFSET keeps PostgreSQL from hashing the probe into a scan of every call in the window (it did: 0.6 s)
    probe = (
        "EXISTS (SELECT 1 FROM problem_calls c WHERE c.problem_id = p.id AND c.ts >= ? AND c.ts <= ? LIMIT 1 OFFSET 0)"
    )
    start, end = _moment(since), _moment(until)
    first = start.replace(minute=0, second=0, microsecond=0)
    try:
        first += timedelta(hours=1) if first < start else timedelta(0)
        last = end.replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    except OverflowError:  # a window at an end of the calendar: no hours to read
        last = first - timedelta(days=ROLLUP_HOURS)
    if last - first >= timedelta(hours=ROLLUP_HOURS) or start.year < 1000:  # %Y writes year 1 as "1"
        params += [since, until, since, until]
        return probe
    full = (first.strftime(HOUR), last.strftime(HOUR)) if first <= last else ("1", "0")  # "1" > "0": no hour
    params += [since, until, *full, start.strftime(HOUR), end.strftime(HOUR), since, until]
    return (
        "p.id IN (SELECT h.problem_id FROM problem_hours h WHERE h.hour >= ? AND h.hour <= ?) "
        f"OR (p.id IN (SELECT e.problem_id FROM problem_hours e WHERE e.hour IN (?, ?)) AND {probe})"
    )


def _search(text: str, where: list, params: list) -> None:
    number = text.upper().removeprefix("TD-")
    if (number.isascii() and number.isdigit()) and len(number) <= 18:
        where.append("p.id = ?")
        params.append(int(number))
        return
    for word in text.split()[:5]:
        like = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(
            "(p.tool LIKE ?1 ESCAPE '\\' OR p.kind LIKE ?1 ESCAPE '\\' OR p.left_path LIKE ?1 ESCAPE '\\' "
            "OR p.right_path LIKE ?1 ESCAPE '\\' OR p.transform LIKE ?1 ESCAPE '\\')".replace("?1", "?")
        )
        params += [like] * 5
