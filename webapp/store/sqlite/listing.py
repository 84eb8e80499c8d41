"""The trace list and its capped counts on SQLite.

A search through the FTS5 index (its filters and pages are shared: ../listing.py).

Every query here is driven by an index that yields rows newest first, or by a bounded set of
search matches, so the first page costs about the same at a thousand traces and at a million.
"""

from ..filters import TraceQuery
from ..listing import (
    MAX_TOOLS_NAMED,
    SEARCH_CAP,
    add_exists,
    add_trace_filters,
    distinct_sql,
    page_sql,
    trace_filter_sql,
)

# Used only here (the rest have a namesake in postgresql/listing.py).
ONLY_HERE = ("PREFIX", "DENSE_PREFIX", "TOOL_NAMED")

# A search reads at most SEARCH_CAP matching snapshots, the newest first (events_fts rowid is
# events.seq, which grows with arrival): a word found in every payload stays a bounded query.
FTS_NEWEST = (
    f"SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid DESC LIMIT {SEARCH_CAP}"
)
SEARCH_CAPPED = (
    f"SELECT count(*) > {SEARCH_CAP} FROM "
    f"(SELECT rowid FROM events_fts WHERE events_fts MATCH ? LIMIT {SEARCH_CAP + 1})"
)
# A trace id prefix held by more ids than this ("0", "a") walks the list by time instead of sorting
# them.
PREFIX = "trace_id >= ? AND trace_id < ?"
DENSE_PREFIX = (
    f"(SELECT count(*) > {SEARCH_CAP} FROM (SELECT 1 FROM traces WHERE {PREFIX} LIMIT "
    f"{SEARCH_CAP + 1}))"
)


def fts_phrase(text: str) -> str:
    """Quote user text as one FTS5 phrase.

    So quotes, dashes or AND cannot change the query.

    Whole words only: a prefix query ("tic"*) merges every term it begins, 0.6 s at 1M traces.
    """
    return '"' + text.replace('"', '""') + '"'


# The n-th tool a search text names or begins, in any case, the exact name first ("findOrd"
# finds findOrders); NULL past the last. One equality per arm keeps each arm on its index.
TOOL_NAMED = (
    f"(SELECT x FROM ({distinct_sql('trace_tools', 'tool')}) "
    "WHERE substr(x, 1, length(?)) = ? COLLATE NOCASE ORDER BY x = ? COLLATE NOCASE DESC, x "
    "LIMIT 1 OFFSET {0})"
)


def search_arms(query: TraceQuery, cursor: tuple | None, limit: int) -> list[tuple[str, list]]:
    """Return the SELECTs whose union is what `q` finds, each filtered.

    Newest first, cut at limit.

    One arm per way of matching, so each takes the plan that suits it: a tool's index newest
    first, a dense id prefix by time, and the few payload matches and sparse prefixes sorted.
    """
    conditions, params = [], []
    add_exists(query, conditions, params, tool=True, kind=True)
    add_trace_filters(query, conditions, params)
    low, high = query.q.lower(), query.q.lower() + "\uffff"
    by_tools = [
        page_sql(
            "trace_tools k CROSS JOIN traces t ON t.trace_id = k.trace_id",
            "k",
            [f"k.tool = {TOOL_NAMED.format(n)}", *conditions],
            [query.q] * 3 + params,
            cursor,
            limit,
        )
        for n in range(MAX_TOOLS_NAMED)
    ]
    # A one-row table that is empty unless the prefix is dense (or sparse) gates each plan, so
    # the one not taken costs nothing; CROSS JOIN pins every join order below.
    by_time = page_sql(
        f"(SELECT 1 WHERE {DENSE_PREFIX}) CROSS JOIN traces t INDEXED BY traces_by_time",
        "t",
        ["t.trace_id >= ? AND t.trace_id < ?", *conditions],
        [low, high, low, high, *params],
        cursor,
        limit,
    )
    matches = (
        f"SELECT e.trace_id FROM ({FTS_NEWEST}) f CROSS JOIN events e ON e.seq = f.rowid "
        f"UNION SELECT trace_id FROM (SELECT 1 WHERE NOT {DENSE_PREFIX}) CROSS JOIN traces WHERE "
        f"{PREFIX}"
    )
    by_match = page_sql(
        f"({matches}) m CROSS JOIN traces t ON t.trace_id = m.trace_id",
        "t",
        conditions,
        [fts_phrase(query.q), low, high, low, high, *params],
        cursor,
        limit,
    )
    return [*by_tools, by_time, by_match]


def trace_list_sql(query: TraceQuery, cursor: tuple | None) -> tuple[str, list]:
    """Build the list query.

    Driven by the most selective index the filters allow."""
    if query.q:
        arms = search_arms(query, cursor, query.limit + 1)
        sql = " UNION ".join(f"SELECT * FROM ({arm})" for arm, _ in arms)
        params = [p for _, arm_params in arms for p in arm_params]
        return f"{sql} ORDER BY last_ts DESC, trace_id DESC LIMIT ?", params + [query.limit + 1]
    source, order_table, conditions, params = trace_filter_sql(query)
    sql, params = page_sql(source, order_table, conditions, params, cursor, query.limit + 1)
    return sql, params


def count_sql(query: TraceQuery, cap: int) -> tuple[str, list]:
    """Build a count of the traces matching a query that stops at cap + 1."""
    if query.q:
        # Each arm cut at cap + 1: the union reaches cap + 1 exactly when the true count does.
        arms = search_arms(query, None, cap + 1)
        union = " UNION ".join(f"SELECT trace_id FROM ({arm})" for arm, _ in arms)
        return f"SELECT count(*) FROM ({union})", [p for _, arm_params in arms for p in arm_params]
    source, _, conditions, params = trace_filter_sql(query, rows=False)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"SELECT count(*) FROM (SELECT 1 FROM {source} {where} LIMIT ?)", params + [cap + 1]
