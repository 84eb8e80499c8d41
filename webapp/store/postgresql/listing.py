"""The trace list's search and counts on PostgreSQL.

Its filters and pages are shared (../listing.py).

A search unites three arms, each cut at the page size: traces of the tools the text names or
begins (any case), traces whose id begins with it, and traces whose payloads hold its words
(the newest SEARCH_CAP matching snapshots, through the GIN index on events.words).
"""

from ..filters import TraceQuery
from ..listing import (
    MAX_TOOLS_NAMED,
    NEWEST_FIRST,
    SEARCH_CAP,
    add_exists,
    add_trace_filters,
    distinct_sql,
    page_sql,
    trace_filter_sql,
)
from .sql import PHRASE

# Used only here (the rest have a namesake in sqlite/listing.py).
ONLY_HERE = ("TOOLS_NAMED",)

FTS_NEWEST = f"SELECT seq FROM events WHERE words @@ {PHRASE} ORDER BY seq DESC LIMIT {SEARCH_CAP}"
SEARCH_CAPPED = (
    f"SELECT count(*) > {SEARCH_CAP} FROM (SELECT 1 FROM events WHERE words @@ {PHRASE} LIMIT "
    f"{SEARCH_CAP + 1}) AS m"
)
TOOLS_NAMED = (
    f"SELECT x FROM ({distinct_sql('trace_tools', 'tool')}) AS v "
    f"WHERE lower(left(x, length(?))) = lower(?) ORDER BY lower(x) = lower(?) DESC, x "
    f"LIMIT {MAX_TOOLS_NAMED}"
)


def fts_phrase(text: str) -> str:
    """The search text as it is.

    PHRASE turns it into the same words the index holds."""
    return text


def search_arms(query: TraceQuery, cursor: tuple | None, limit: int) -> list[tuple[str, list]]:
    """Return the SELECTs whose union is what `q` finds, each filtered.

    Newest first, cut at limit."""
    conditions, params = [], []
    add_exists(query, conditions, params, tool=True, kind=True)
    add_trace_filters(query, conditions, params)
    low, high = query.q.lower(), query.q.lower() + "\uffff"
    by_tools = page_sql(
        "trace_tools k JOIN traces t ON t.trace_id = k.trace_id",
        "k",
        [f"k.tool IN ({TOOLS_NAMED})", *conditions],
        [query.q] * 3 + params,
        cursor,
        limit,
    )
    by_id = page_sql(
        "traces t",
        "t",
        ["t.trace_id >= ? AND t.trace_id < ?", *conditions],
        [low, high, *params],
        cursor,
        limit,
    )
    by_words = page_sql(
        f"(SELECT DISTINCT e.trace_id FROM ({FTS_NEWEST}) f JOIN events e ON e.seq = f.seq) m "
        "JOIN traces t ON t.trace_id = m.trace_id",
        "t",
        conditions,
        [query.q, *params],
        cursor,
        limit,
    )
    return [by_tools, by_id, by_words]


def trace_list_sql(query: TraceQuery, cursor: tuple | None) -> tuple[str, list]:
    """Build the list query.

    Driven by the most selective index the filters allow."""
    if query.q:
        arms = search_arms(query, cursor, query.limit + 1)
        sql = " UNION ".join(f"SELECT * FROM ({arm}) AS a{n}" for n, (arm, _) in enumerate(arms))
        params = [p for _, arm_params in arms for p in arm_params]
        return f"{sql} ORDER BY last_ts DESC, trace_id DESC LIMIT ?", params + [query.limit + 1]
    source, order_table, conditions, params = trace_filter_sql(query)
    return page_sql(source, order_table, conditions, params, cursor, query.limit + 1)


def count_sql(query: TraceQuery, cap: int) -> tuple[str, list]:
    """Build a count of the traces matching a query that stops at cap + 1."""
    if query.q:
        arms = search_arms(query, None, cap + 1)
        union = " UNION ".join(
            f"SELECT trace_id FROM ({arm}) AS a{n}" for n, (arm, _) in enumerate(arms)
        )
        return f"SELECT count(*) FROM ({union}) AS u", [
            p for _, arm_params in arms for p in arm_params
        ]
    source, order_table, conditions, params = trace_filter_sql(query, rows=False)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    # Newest first, as the list: the planner then walks the value's index (an index-only scan of cap
    # + 1 entries) where, unordered, it prices a scan of the wide traces rows lower and takes 3-5x
    # longer.
    return (
        f"SELECT count(*) FROM (SELECT 1 FROM {source} {where} {NEWEST_FIRST.format(order_table)} "
        "LIMIT ?) AS c",
        params + [cap + 1],
    )
