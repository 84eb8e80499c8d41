"""SQL for the filtered, keyset-paginated trace list and its capped counts.

Every query here is driven by an index that yields rows newest first, or by a bounded set of
search matches, so the first page costs about the same at a thousand traces and at a million.
"""

from ..common import times
from .filters import TraceQuery

# Literal conditions, not parameters: the partial indexes of schema.py serve only a query whose
# WHERE holds the very same expression.
SEVERITY_CONDITIONS = {
    "error": "t.worst = 'error'",
    "warning": "t.worst = 'warning'",
    "info": "t.worst = 'info'",
    "clean": "t.worst IN ('clean', 'info')",
}
STATUS_CONDITIONS = {
    cls: f"(',' || t.status_codes || ',') LIKE '%,{cls[0]}__,%'" for cls in ("2xx", "3xx", "4xx", "5xx")
}
# A search reads at most this many matching snapshots, the newest first (events_fts rowid is
# events.seq, which grows with arrival): a word found in every payload stays a bounded query.
SEARCH_CAP = 5000
MAX_TOOLS_NAMED = 3  # tools a search matches by name or prefix
FTS_NEWEST = f"SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid DESC LIMIT {SEARCH_CAP}"
SEARCH_CAPPED = (
    f"SELECT count(*) > {SEARCH_CAP} FROM "
    f"(SELECT rowid FROM events_fts WHERE events_fts MATCH ? LIMIT {SEARCH_CAP + 1})"
)
# A trace id prefix held by more ids than this ("0", "a") walks the list by time instead of sorting them.
PREFIX = "trace_id >= ? AND trace_id < ?"
DENSE_PREFIX = f"(SELECT count(*) > {SEARCH_CAP} FROM (SELECT 1 FROM traces WHERE {PREFIX} LIMIT {SEARCH_CAP + 1}))"
NEWEST_FIRST = "ORDER BY {0}.last_ts DESC, {0}.trace_id DESC"


def fts_phrase(text: str) -> str:
    """Quote user text as one FTS5 phrase so quotes, dashes or AND cannot change the query.

    Whole words only: a prefix query ("tic"*) merges every term it begins, 0.6 s at 1M traces.
    """
    return '"' + text.replace('"', '""') + '"'


def distinct_sql(table: str, column: str) -> str:
    """Return a SELECT of a column's distinct values that skips through the index it leads."""
    return (
        f"WITH RECURSIVE v(x) AS (SELECT min({column}) FROM {table} UNION ALL "
        f"SELECT (SELECT min({column}) FROM {table} WHERE {column} > v.x) FROM v WHERE v.x IS NOT NULL) "
        "SELECT x FROM v WHERE x IS NOT NULL"
    )


# The n-th tool a search text names or begins, in any case, the exact name first ("findOrd"
# finds findOrders); NULL past the last. One equality per arm keeps each arm on its index.
TOOL_NAMED = (
    f"(SELECT x FROM ({distinct_sql('trace_tools', 'tool')}) "
    "WHERE substr(x, 1, length(?)) = ? COLLATE NOCASE ORDER BY x = ? COLLATE NOCASE DESC, x "
    "LIMIT 1 OFFSET {0})"
)


def trace_filter_sql(query: TraceQuery, rows: bool = True) -> tuple[str, str, list[str], list]:
    """Return (from clause, order table alias, conditions, params) for the filters other than `q`.

    With rows=False the traces table is joined only when a condition needs it (for counting).
    """
    conditions, params = [], []
    _add_trace_filters(query, conditions, params)
    if not query.kind and not query.tool:
        return "traces t", "t", conditions, params
    if _has_partial_index(query):
        # The rare value's own index, newest first, beats walking every trace of a tool or kind.
        _add_exists(query, conditions, params, tool=True, kind=True)
        return "traces t", "t", conditions, params
    table, column, value = ("trace_kinds", "kind", query.kind) if query.kind else ("trace_tools", "tool", query.tool)
    exists, exists_params = [], []
    _add_exists(query, exists, exists_params, tool=bool(query.kind), kind=False)
    source = f"{table} k"
    if rows or conditions or exists:
        source += " JOIN traces t ON t.trace_id = k.trace_id"
    return source, "k", [f"k.{column} = ?", *exists, *conditions], [value, *exists_params, *params]


def search_arms(query: TraceQuery, cursor: tuple | None, limit: int) -> list[tuple[str, list]]:
    """Return the SELECTs whose union is what `q` finds, each filtered, newest first, cut at limit.

    One arm per way of matching, so each takes the plan that suits it: a tool's index newest
    first, a dense id prefix by time, and the few payload matches and sparse prefixes sorted.
    """
    conditions, params = [], []
    _add_exists(query, conditions, params, tool=True, kind=True)
    _add_trace_filters(query, conditions, params)
    low, high = query.q.lower(), query.q.lower() + "\uffff"
    by_tools = [
        _page(
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
    by_time = _page(
        f"(SELECT 1 WHERE {DENSE_PREFIX}) CROSS JOIN traces t INDEXED BY traces_by_time",
        "t",
        ["t.trace_id >= ? AND t.trace_id < ?", *conditions],
        [low, high, low, high, *params],
        cursor,
        limit,
    )
    matches = (
        f"SELECT e.trace_id FROM ({FTS_NEWEST}) f CROSS JOIN events e ON e.seq = f.rowid "
        f"UNION SELECT trace_id FROM (SELECT 1 WHERE NOT {DENSE_PREFIX}) CROSS JOIN traces WHERE {PREFIX}"
    )
    by_match = _page(
        f"({matches}) m CROSS JOIN traces t ON t.trace_id = m.trace_id",
        "t",
        conditions,
        [fts_phrase(query.q), low, high, low, high, *params],
        cursor,
        limit,
    )
    return [*by_tools, by_time, by_match]


def trace_list_sql(query: TraceQuery, cursor: tuple | None) -> tuple[str, list]:
    """Build the list query: driven by the most selective index the filters allow."""
    if query.q:
        arms = search_arms(query, cursor, query.limit + 1)
        sql = " UNION ".join(f"SELECT * FROM ({arm})" for arm, _ in arms)
        params = [p for _, arm_params in arms for p in arm_params]
        return f"{sql} ORDER BY last_ts DESC, trace_id DESC LIMIT ?", params + [query.limit + 1]
    source, order_table, conditions, params = trace_filter_sql(query)
    sql, params = _page(source, order_table, conditions, params, cursor, query.limit + 1)
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


def _page(source: str, order_table: str, conditions: list, params: list, cursor, limit: int) -> tuple[str, list]:
    conditions, params = list(conditions), list(params)
    if cursor:
        conditions.append(f"({order_table}.last_ts, {order_table}.trace_id) < (?, ?)")
        params.extend(cursor)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"SELECT t.* FROM {source} {where} {NEWEST_FIRST.format(order_table)} LIMIT ?", params + [limit]


def _has_partial_index(query: TraceQuery) -> bool:
    return (
        bool(query.missing) or query.severity in ("error", "warning", "info") or query.status in ("3xx", "4xx", "5xx")
    )


def _add_exists(query: TraceQuery, conditions: list, params: list, tool: bool, kind: bool) -> None:
    if tool and query.tool:
        conditions.append("EXISTS (SELECT 1 FROM trace_tools tt WHERE tt.trace_id = t.trace_id AND tt.tool = ?)")
        params.append(query.tool)
    if kind and query.kind:
        conditions.append("EXISTS (SELECT 1 FROM trace_kinds tk WHERE tk.trace_id = t.trace_id AND tk.kind = ?)")
        params.append(query.kind)


def _add_trace_filters(query: TraceQuery, conditions: list, params: list) -> None:
    if query.severity:
        conditions.append(SEVERITY_CONDITIONS[query.severity])
    if query.status:
        conditions.append(STATUS_CONDITIONS[query.status])
    if query.missing:
        conditions.append(f"t.has_{query.missing} = 0")
    if query.problem is not None:
        # the traces a problem was seen in (its calls' rows, by the problem's index); a merged problem's calls
        # moved to the one it was merged into (merged_into always names the last of a chain)
        conditions.append(
            "t.trace_id IN (SELECT trace_id FROM problem_calls WHERE problem_id = "
            "coalesce((SELECT merged_into FROM problems WHERE id = ?), ?))"
        )
        params += [query.problem] * 2
    if query.release:
        # by the calls' release index: a release names few calls beside the whole list
        conditions.append("t.trace_id IN (SELECT trace_id FROM calls WHERE release = ?)")
        params.append(query.release)
    if query.since:
        conditions.append("t.last_ts >= ?")
        params.append(times.fixed(query.since))
    if query.until:
        conditions.append("t.last_ts <= ?")
        params.append(times.fixed(query.until))
