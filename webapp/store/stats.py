"""Counts for the trace list.

Traces per filter value, and calls per tool and hour."""

import time
from dataclasses import replace
from datetime import datetime, timedelta

from .filters import SEVERITIES, SNAPSHOTS, STATUS_CLASSES, TraceQuery
from .listing import distinct_sql
from .values import recent_tools

STRIP_HOURS = 168
# Each count stops at COUNT_CAP + 1 rows ("10,000+"), so counting costs the same at any size.
COUNT_CAP = 10_000
# Cheapest first: under a tight filter, counting per tool can use up the time budget.
FACETS = ("severity", "kind", "status", "missing", "tool")
# A rare value combined with other filters can still walk many rows: a count that takes longer
# than COUNT_TIMEOUT_S, or that starts after COUNT_BUDGET_S for the whole page, is left uncounted
# (None, shown as "?") instead of making the page wait.
COUNT_BUDGET_S = 0.5
COUNT_TIMEOUT_S = 0.05


def tool_names(store) -> list[str]:
    """Return every tool name that has traces, in name order."""
    return [row[0] for row in store.db.execute(distinct_sql("trace_tools", "tool"))]


def kind_names(store) -> list[str]:
    """Return every finding kind that some trace has, in name order."""
    return [row[0] for row in store.db.execute(distinct_sql("trace_kinds", "kind"))]


def counts_are_cheap(store) -> bool:
    """Say whether the store is small enough to count every facet while the page waits."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM traces LIMIT ?) AS t"
    return store.db.execute(sql, (COUNT_CAP + 1,)).fetchone()[0] <= COUNT_CAP


def search_capped(store, q: str) -> bool:
    """Say whether a search text matches more snapshots than a search reads.

    SEARCH_CAP."""
    if not q:
        return False
    return bool(
        store.db.execute(store.listing.SEARCH_CAPPED, (store.listing.fts_phrase(q),)).fetchone()[0]
    )


def capped_count(
    store, query: TraceQuery, deadline: float | None = None, timeout_s: float = COUNT_TIMEOUT_S
) -> int | None:
    """Count the traces matching a query, stopping at COUNT_CAP + 1.

    None when past the deadline or slower than timeout_s."""
    if deadline is not None and time.monotonic() > deadline:
        return None
    sql, params = store.listing.count_sql(query, COUNT_CAP)
    if deadline is not None:
        deadline = min(deadline, time.monotonic() + timeout_s)
    return store.count_by(sql, params, deadline)


def filter_counts(
    store,
    query: TraceQuery,
    budget_s: float | None = COUNT_BUDGET_S,
    timeout_s: float = COUNT_TIMEOUT_S,
) -> dict[str, dict[str, int | None]]:
    """Count matching traces per value of each filter.

    The other filters applied, capped at COUNT_CAP + 1.

    budget_s=None counts everything however long it takes (for a store where counts_are_cheap).
    """
    deadline = None if budget_s is None else time.monotonic() + budget_s
    # the busiest tools, and the one filtered by: a crowd of tools is not counted one by one
    tools = recent_tools(store)
    values = {
        "tool": tools + [query.tool] if query.tool and query.tool not in tools else tools,
        "kind": kind_names(store),
        "severity": SEVERITIES,
        "status": STATUS_CLASSES,
        "missing": SNAPSHOTS,
    }
    counts = {
        facet: {
            value: capped_count(store, replace(query, **{facet: value}), deadline, timeout_s)
            for value in values[facet]
        }
        for facet in FACETS
    }
    # open-ended lists: only the values found (or not counted)
    for facet in ("tool", "kind"):
        counts[facet] = {value: count for value, count in counts[facet].items() if count != 0}
    return counts


MAX_STRIP_HOURS = 24 * 14
# rows a strip draws, the busiest tools' (a crowd of tools names how many more it has)
STRIP_TOOLS = 50


def call_span(store, tool: str = "", problem: int | None = None) -> tuple[str | None, str | None]:
    """Return the times of the oldest and the newest call of a tool.

    Or of every tool; of a problem's tool: the strip counts its calls, the problem's among them. Two
    index probes (calls_by_time, calls_by_tool_time)."""
    if problem is not None:
        row = store.db.execute(
            "SELECT coalesce(m.tool, p.tool) FROM problems p LEFT JOIN problems m ON m.id = "
            "p.merged_into "
            "WHERE p.id = ?",
            (problem,),
        ).fetchone()
        if row is None:
            return None, None
        tool = row[0] or tool
    where, params = ("WHERE tool = ?", (tool,)) if tool else ("", ())
    first = store.db.execute(f"SELECT min(last_ts) FROM calls {where}", params).fetchone()[0]
    return first, store.db.execute(f"SELECT max(last_ts) FROM calls {where}", params).fetchone()[0]


def hourly_strip(
    store,
    hours: int = STRIP_HOURS,
    tool: str = "",
    until: str = "",
    since: str = "",
    problem: int | None = None,
    through: bool = False,
) -> dict:
    """Return calls and calls with findings per tool and hour.

    Over the hours up to the newest call.

    `since` and `until` are stored times. With `since`, the strip covers the filters' range (at most
    MAX_STRIP_HOURS), so six hours of an incident fill the strip rather than a sliver of a fixed
    week; `through` runs it to `until`'s hour even when the newest call came earlier (a window said
    in words, "the last 24 hours", is drawn whole). With `problem`, it is that problem's tool, and
    "findings" are the problem's occurrences (from its hourly rollup, at most the hour's calls)."""
    db = store.db
    if problem is not None:
        row = db.execute(
            "SELECT coalesce(m.id, p.id), coalesce(m.tool, p.tool) FROM problems p LEFT JOIN "
            "problems m "
            "ON m.id = p.merged_into WHERE p.id = ?",
            (problem,),
        ).fetchone()
        if row is None or (tool and tool != row[1]):
            return {"hours": [], "tools": {}}
        problem, tool = row[0], row[1] or ""
    until = until or "\uffff"
    newest = db.execute("SELECT max(last_ts) FROM calls WHERE last_ts <= ?", (until,)).fetchone()[0]
    end = _hour_of(newest)
    if end is None:
        return {"hours": [], "tools": {}}
    if through and until != "\uffff":
        end = max(end, _last_hour_before(until) or end)
    start = _hour_of(since) if since else None
    if start is not None:
        hours = min(MAX_STRIP_HOURS, max(1, int((end - start).total_seconds() // 3600) + 1))
    hour_list = [
        (end - timedelta(hours=n)).strftime("%Y-%m-%dT%H") for n in range(hours - 1, -1, -1)
    ]
    # The call_hours rollup holds one row per tool and hour, so this reads at most 168 x tools rows.
    sql = "SELECT tool, hour, calls, findings FROM call_hours WHERE hour >= ? AND hour <= ?"
    params = [hour_list[0], hour_list[-1]]
    if tool:
        sql += " AND tool = ?"
        params.append(tool)
    tools: dict[str, dict] = {}
    for name, hour, calls, findings in db.execute(sql + " ORDER BY 1, 2", params):
        tools.setdefault(name, {})[hour] = {"calls": calls, "findings": findings or 0}
    if problem is not None:
        seen = dict(
            db.execute(
                "SELECT hour, occurrences FROM problem_hours WHERE problem_id = ? AND hour >= ? "
                "AND hour <= ?",
                (problem, hour_list[0], hour_list[-1]),
            )
        )
        for hour, cell in tools.get(tool, {}).items():
            cell["findings"] = min(cell["calls"], seen.get(hour, 0))
    busiest = sorted(tools, key=lambda name: (-sum(c["calls"] for c in tools[name].values()), name))
    kept = set(busiest[:STRIP_TOOLS])
    return {
        "hours": hour_list,
        "tools": {n: c for n, c in tools.items() if n in kept},
        "more_tools": len(busiest) - len(kept),
    }


def _last_hour_before(until: str) -> datetime | None:
    """Return the last hour a window that ends at `until` reaches into.

    10:00:00 exactly ends with 09:00."""
    hour = _hour_of(until)
    return (
        hour - timedelta(hours=1) if hour is not None and until[13:].strip("0:.Z") == "" else hour
    )


def _hour_of(text: str | None) -> datetime | None:
    """Return the hour a stored time (or a since value) falls in.

    None when it is not a time."""
    try:
        return datetime.strptime((text or "")[:13], "%Y-%m-%dT%H")
    except ValueError:
        try:
            return datetime.strptime((text or "")[:10], "%Y-%m-%d")
        except ValueError:
            return None
