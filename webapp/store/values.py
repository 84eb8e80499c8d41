"""The values a filter offers, bounded.

The most used tools, releases and sources, and those matching typed text.

A shipper that stamps a build id as the release makes thousands of values in an afternoon; a filter
lists at most SHOWN_VALUES of them and finds the rest by search, so no page grows with the crowd.
The same SQL runs on SQLite and PostgreSQL.
"""

import time
from datetime import datetime, timedelta

from .hours import NO_TOOL
from .listing import distinct_sql

# values a filter lists, and a search returns
SHOWN_VALUES = 50
# "most used" counts the calls of the week up to the newest call
RECENT_DAYS = 7
FACETS = ("tool", "release", "source")
CROWDS_SECONDS = 60
_CROWDS: dict[tuple, tuple[float, list[dict]]] = {}
# call_hours: one row per hour and tool, its primary key led by the hour, so a week is a range of it
NEWEST_HOUR = "SELECT max(hour) FROM call_hours"
TOP_TOOLS = """SELECT tool FROM call_hours WHERE hour >= ? AND tool != ? GROUP BY tool
 ORDER BY sum(calls) DESC, tool LIMIT ?"""
# calls_by_release leads with the release: a covering walk; problem_splits_by_value serves the
# sources
TOP_RELEASES = """SELECT release FROM calls WHERE release IS NOT NULL AND last_ts >= ? GROUP BY
  release
 ORDER BY count(*) DESC, release LIMIT ?"""
TOP_SOURCES = """SELECT value FROM problem_splits WHERE dim = 'source' AND value != '' GROUP BY
  value
 ORDER BY sum(calls) DESC, value LIMIT ?"""
# what the problems list filters by: the problems' own tools, releases and sources
TOP_PROBLEM_TOOLS = """SELECT tool FROM problems WHERE tool IS NOT NULL AND merged_into IS NULL
  GROUP BY tool
 ORDER BY sum(calls) DESC, tool LIMIT ?"""
TOP_PROBLEM_SPLITS = """SELECT value FROM problem_splits WHERE dim = ? AND value != '' GROUP BY
  value
 ORDER BY sum(calls) DESC, value LIMIT ?"""
# the day up to the newest call: calls_by_time's range, each call's row read for its release and
# source
NEWEST_CALL = "SELECT max(last_ts) FROM calls"
RELEASES_PER_SOURCE = """SELECT coalesce(source, ''), count(DISTINCT release) FROM calls
 WHERE last_ts >= ? AND release IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1"""
TOOLS_IN_HOURS = "SELECT count(DISTINCT tool) FROM call_hours WHERE hour >= ? AND tool != ?"
# a search skips through the index its column leads (one probe per distinct value), stopping at the
# limit
MATCHING = {
    "tool": distinct_sql("trace_tools", "tool"),
    "release": distinct_sql("calls", "release"),
    "source": "SELECT DISTINCT value AS x FROM problem_splits WHERE dim = 'source' AND value != ''",
}
MATCH_CONDITION = " AND lower(x) LIKE ? ESCAPE '!' ORDER BY x LIMIT ?"


def recent_tools(store, limit: int = SHOWN_VALUES) -> list[str]:
    """Return the tools with the most calls in the week up to the newest call.

    Busiest first, then other tools of the traces in name order, `limit` in all."""
    since = _week_before(store.db.execute(NEWEST_HOUR).fetchone()[0])
    busiest = (
        [row[0] for row in store.db.execute(TOP_TOOLS, (since, NO_TOOL, limit))] if since else []
    )
    if len(busiest) < limit:
        named = store.db.execute(MATCHING["tool"] + " LIMIT ?", (limit + len(busiest),))
        busiest += [name for (name,) in named if name not in busiest][: limit - len(busiest)]
    return busiest


def recent_releases(store, limit: int = SHOWN_VALUES) -> list[str]:
    """Return the releases with the most calls in the last week, busiest first.

    The week up to the newest call."""
    since = _week_before(store.db.execute(NEWEST_HOUR).fetchone()[0])
    if since is None:
        return []
    return [row[0] for row in store.db.execute(TOP_RELEASES, (since, limit))]


def problem_values(store, limit: int = SHOWN_VALUES) -> dict[str, list[str]]:
    """Return the tools, releases and sources problems were seen with most.

    By calls, busiest first."""
    values = {"tool": [row[0] for row in store.db.execute(TOP_PROBLEM_TOOLS, (limit,))]}
    for dim in ("release", "source"):
        values[dim] = [row[0] for row in store.db.execute(TOP_PROBLEM_SPLITS, (dim, limit))]
    return values


def matching(store, facet: str, text: str, limit: int = SHOWN_VALUES) -> list[str]:
    """Return up to `limit` values of a facet containing `text`, any case.

    Facets: tool, release, source; in name order."""
    sql = _matching_sql(facet)
    pattern = "%" + "".join("!" + ch if ch in "%_!" else ch for ch in text.lower()) + "%"
    return [row[0] for row in store.db.execute(sql, (pattern, limit))]


def crowds(store, threshold: int) -> list[dict]:
    """Return what passed `threshold` distinct values in the day up to the newest call.

    The releases each source named ({"what": "releases", "source", "count", "since"}) and the tools
    called ({"what": "tools", ...}).

    A day's calls are read to count them, so a process reuses the answer for CROWDS_SECONDS
    (readiness probes come every few seconds)."""
    cached = _CROWDS.get((store.path, threshold))
    if cached and time.monotonic() - cached[0] < CROWDS_SECONDS:
        return cached[1]
    found = _crowds(store, threshold)
    _CROWDS[(store.path, threshold)] = (time.monotonic(), found)
    return found


def _crowds(store, threshold: int) -> list[dict]:
    newest = store.db.execute(NEWEST_CALL).fetchone()[0]
    if not threshold or not newest:
        return []
    day_before = (datetime.strptime(newest[:19], "%Y-%m-%dT%H:%M:%S") - timedelta(days=1)).strftime(
        "%Y-%m-%dT%H"
    )
    found = [
        {"what": "releases", "source": source or None, "count": count, "since": day_before}
        for source, count in store.db.execute(RELEASES_PER_SOURCE, (day_before,))
        if count > threshold
    ]
    tools = store.db.execute(TOOLS_IN_HOURS, (day_before, NO_TOOL)).fetchone()[0]
    if tools > threshold:
        found.append({"what": "tools", "source": None, "count": tools, "since": day_before})
    return found


def _matching_sql(facet: str) -> str:
    inner = MATCHING[facet]
    # the skip-scan: its last SELECT already has a WHERE
    if inner.startswith("WITH"):
        return inner + MATCH_CONDITION
    return f"SELECT x FROM ({inner}) AS v WHERE x IS NOT NULL" + MATCH_CONDITION


def _week_before(hour: str | None) -> str | None:
    """Return the stored time RECENT_DAYS before an hour of call_hours.

    Such as '2026-11-30T09'; None for none."""
    if not hour:
        return None
    start = datetime.strptime(hour[:13], "%Y-%m-%dT%H") - timedelta(days=RECENT_DAYS)
    return start.strftime("%Y-%m-%dT%H")
