"""The problem list's filters as the store runs them.

And the SQL conditions for them.

The filters are plain values in the store's own terms (stored states and times); the web layer
parses a query string into them (webapp/web/problem_filters.py), its "new" and "ongoing"
included."""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..common.digits import problem_number

# problem_hours' keys
HOUR = "%Y-%m-%dT%H"
# a time window up to this long is decided by the hourly rollup, a longer one by a probe
ROLLUP_HOURS = 24
# The release of a problem's first call: the release it is new in (problem_calls_by_time finds it,
# one probe).
FIRST_RELEASE = (
    "(SELECT f.release FROM problem_calls f WHERE f.problem_id = p.id ORDER BY f.ts, f.trace_id, "
    "f.call_id LIMIT 1)"
)


@dataclass(frozen=True)
class ProblemFilters:
    # words in the tool, kind, paths or transform, or a problem id
    q: str = ""
    tool: str = ""
    kind: str = ""
    severity: str = ""
    # a stored state: open, resolved, regressed, archived
    state: str = ""
    # first seen at or after this time
    first_seen_from: str = ""
    # first seen before this time
    first_seen_before: str = ""
    source: str = ""
    release: str = ""
    # a release: only the problems first seen in it (the release of their first call)
    new_in: str = ""
    # linked (has ticket links) or unlinked
    ticket: str = ""
    # seen at or after (a stored time): an occurrence in the range
    since: str = ""
    # seen at or before
    until: str = ""
    limit: int = 50


def _moment(text: str) -> datetime:
    day = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return day.replace(tzinfo=UTC) if day.tzinfo is None else day


def conditions(filters: ProblemFilters) -> tuple[list[str], list]:
    """Return the WHERE conditions and parameters of the filters.

    Merged problems left out."""
    where, params = ["p.merged_into IS NULL", "p.calls > 0"], []
    for name in ("tool", "kind", "severity", "state"):
        if getattr(filters, name):
            where.append(f"p.{name} = ?")
            params.append(getattr(filters, name))
    if filters.first_seen_from:
        where.append("p.first_seen >= ?")
        params.append(filters.first_seen_from)
    if filters.first_seen_before:
        where.append("p.first_seen < ?")
        params.append(filters.first_seen_before)
    for dim in ("source", "release"):
        if getattr(filters, dim):
            # one search of problem_splits_by_value, not a probe per problem; `+` keeps the walk by
            # last_seen
            where.append(
                "+p.id IN (SELECT s.problem_id FROM problem_splits s WHERE s.dim = ? AND s.value = "
                "?)"
            )
            params += [dim, getattr(filters, dim)]
    # seen in the release at all (the index), then first seen in it (a probe per such problem)
    if filters.new_in:
        where.append(
            "+p.id IN (SELECT s.problem_id FROM problem_splits s WHERE s.dim = 'release' AND "
            "s.value = ?)"
        )
        where.append(f"{FIRST_RELEASE} = ?")
        params += [filters.new_in, filters.new_in]
    if filters.ticket:
        # links is a JSON list
        where.append("p.links " + ("!=" if filters.ticket == "linked" else "=") + " '[]'")
    if filters.since or filters.until:
        _in_range(filters.since, filters.until, where, params)
    if filters.q:
        _search(filters.q, where, params)
    return where, params


def _in_range(since: str, until: str, where: list, params: list) -> None:
    """Keep problems with an occurrence between since and until.

    Not only those last seen there."""
    if since:
        where.append("p.last_seen >= ?")
        params.append(since)
    if until:
        where.append("p.first_seen <= ?")
        params.append(until)
    if since and until:
        where.append(
            f"(p.first_seen >= ? OR p.last_seen <= ? OR {_seen_inside(since, until, params)})"
        )


def _seen_inside(since: str, until: str, params: list) -> str:
    """Return the condition that a problem was seen inside a window.

    For a problem seen before and after the window."""
    # First or last seen inside the window is an occurrence in it (the caller's OR): this decides
    # the rest. A probe of problem_calls_by_time per problem costs ~7 us (70 ms for 10,000 at 1M
    # traces); reading the window's hourly rollup costs ~1.6 us a row, so up to a day it is cheaper:
    # an hour wholly inside decides, and only a problem seen in an edge hour is probed. OFFSET keeps
    # PostgreSQL from hashing the probe into a scan of every call in the window (it did: 0.6 s)
    probe = (
        "EXISTS (SELECT 1 FROM problem_calls c WHERE c.problem_id = p.id AND c.ts >= ? AND c.ts <= "
        "? LIMIT 1 OFFSET 0)"
    )
    start, end = _moment(since), _moment(until)
    first = start.replace(minute=0, second=0, microsecond=0)
    try:
        first += timedelta(hours=1) if first < start else timedelta(0)
        last = end.replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)
    # a window at an end of the calendar: no hours to read
    except OverflowError:
        last = first - timedelta(days=ROLLUP_HOURS)
    # %Y writes year 1 as "1"
    if last - first >= timedelta(hours=ROLLUP_HOURS) or start.year < 1000:
        params += [since, until, since, until]
        return probe
    # "1" > "0": no hour
    full = (first.strftime(HOUR), last.strftime(HOUR)) if first <= last else ("1", "0")
    params += [since, until, *full, start.strftime(HOUR), end.strftime(HOUR), since, until]
    return (
        "p.id IN (SELECT h.problem_id FROM problem_hours h WHERE h.hour >= ? AND h.hour <= ?) "
        "OR (p.id IN (SELECT e.problem_id FROM problem_hours e WHERE e.hour IN (?, ?)) AND "
        f"{probe})"
    )


def _search(text: str, where: list, params: list) -> None:
    number = problem_number(text)
    if number is not None:
        where.append("p.id = ?")
        params.append(number)
        return
    for word in text.split()[:5]:
        like = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append(
            "(p.tool LIKE ?1 ESCAPE '\\' OR p.kind LIKE ?1 ESCAPE '\\' OR p.left_path LIKE ?1 "
            "ESCAPE '\\' "
            "OR p.right_path LIKE ?1 ESCAPE '\\' OR p.transform LIKE ?1 ESCAPE '\\')".replace(
                "?1", "?"
            )
        )
        params += [like] * 5
