"""The trace list's filters and keyset pages, the same on both engines.

Its search and counts are each engine's own (sqlite/listing.py, postgresql/listing.py).

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
    # a trace missing a stage of a call is not clean: nothing was compared there
    "clean": "t.worst IN ('clean', 'info') AND t.complete = 1",
}
STATUS_CONDITIONS = {
    cls: f"(',' || t.status_codes || ',') LIKE '%,{cls[0]}__,%'"
    for cls in ("2xx", "3xx", "4xx", "5xx")
}
# A search reads at most this many matching snapshots, the newest first (events_fts rowid is
# events.seq, which grows with arrival): a word found in every payload stays a bounded query.
# matching snapshots a search reads at most, the newest first
SEARCH_CAP = 5000
# tools a search matches by name or prefix
MAX_TOOLS_NAMED = 3
NEWEST_FIRST = "ORDER BY {0}.last_ts DESC, {0}.trace_id DESC"


def distinct_sql(table: str, column: str) -> str:
    """Return a SELECT of a column's distinct values, skipping through its index.

    The index the column leads."""
    return (
        f"WITH RECURSIVE v(x) AS (SELECT min({column}) FROM {table} UNION ALL "
        f"SELECT (SELECT min({column}) FROM {table} WHERE {column} > v.x) FROM v WHERE v.x IS NOT "
        "NULL) "
        "SELECT x FROM v WHERE x IS NOT NULL"
    )


def trace_filter_sql(query: TraceQuery, rows: bool = True) -> tuple[str, str, list[str], list]:
    """Return the SQL parts for the filters other than `q`.

    (from clause, order table alias, conditions, params).

    With rows=False the traces table is joined only when a condition needs it (for counting).
    """
    conditions, params = [], []
    add_trace_filters(query, conditions, params)
    if not query.kind and not query.tool:
        return "traces t", "t", conditions, params
    if _has_partial_index(query):
        # The rare value's own index, newest first, beats walking every trace of a tool or kind.
        add_exists(query, conditions, params, tool=True, kind=True)
        return "traces t", "t", conditions, params
    table, column, value = (
        ("trace_kinds", "kind", query.kind) if query.kind else ("trace_tools", "tool", query.tool)
    )
    exists, exists_params = [], []
    add_exists(query, exists, exists_params, tool=bool(query.kind), kind=False)
    source = f"{table} k"
    if rows or conditions or exists:
        source += " JOIN traces t ON t.trace_id = k.trace_id"
    return source, "k", [f"k.{column} = ?", *exists, *conditions], [value, *exists_params, *params]


def page_sql(
    source: str, order_table: str, conditions: list, params: list, cursor, limit: int
) -> tuple[str, list]:
    conditions, params = list(conditions), list(params)
    if cursor:
        conditions.append(f"({order_table}.last_ts, {order_table}.trace_id) < (?, ?)")
        params.extend(cursor)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return (
        f"SELECT t.* FROM {source} {where} {NEWEST_FIRST.format(order_table)} LIMIT ?",
        params + [limit],
    )


def _has_partial_index(query: TraceQuery) -> bool:
    return (
        bool(query.missing)
        or query.severity in ("error", "warning", "info")
        or query.status in ("3xx", "4xx", "5xx")
    )


def add_exists(query: TraceQuery, conditions: list, params: list, tool: bool, kind: bool) -> None:
    if tool and query.tool:
        conditions.append(
            "EXISTS (SELECT 1 FROM trace_tools tt WHERE tt.trace_id = t.trace_id AND tt.tool = ?)"
        )
        params.append(query.tool)
    if kind and query.kind:
        conditions.append(
            "EXISTS (SELECT 1 FROM trace_kinds tk WHERE tk.trace_id = t.trace_id AND tk.kind = ?)"
        )
        params.append(query.kind)


def add_trace_filters(query: TraceQuery, conditions: list, params: list) -> None:
    if query.severity:
        conditions.append(SEVERITY_CONDITIONS[query.severity])
    if query.status:
        conditions.append(STATUS_CONDITIONS[query.status])
    if query.missing:
        conditions.append(f"t.has_{query.missing} = 0")
    if query.problem is not None:
        # the traces a problem was seen in (its calls' rows, by the problem's index); a merged
        # problem's calls moved to the one it was merged into (merged_into always names the last of
        # a chain)
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
