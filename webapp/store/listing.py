"""SQL for the filtered, keyset-paginated trace list."""
from .filters import TraceQuery

STATUS_PATTERNS = {"2xx": "2__", "3xx": "3__", "4xx": "4__", "5xx": "5__"}
FTS_MATCH = ("SELECT e.trace_id FROM events_fts f JOIN events e ON e.seq = f.rowid "
             "WHERE events_fts MATCH ?")


def fts_phrase(text: str) -> str:
    """Quote user text as one FTS5 phrase so quotes, dashes or AND cannot change the query."""
    return '"' + text.replace('"', '""') + '"'


def trace_filter_sql(query: TraceQuery) -> tuple[str, str, list[str], list]:
    """Return (from clause, order table alias, conditions, params) for the query's filters."""
    conditions, params = [], []
    if query.kind:
        source, order_table = "trace_kinds k JOIN traces t ON t.trace_id = k.trace_id", "k"
        conditions.append("k.kind = ?")
        params.append(query.kind)
    elif query.tool:
        source, order_table = "trace_tools k JOIN traces t ON t.trace_id = k.trace_id", "k"
        conditions.append("k.tool = ?")
        params.append(query.tool)
    else:
        source, order_table = "traces t", "t"
    if query.tool and query.kind:
        conditions.append("EXISTS (SELECT 1 FROM trace_tools tt WHERE tt.trace_id = t.trace_id AND tt.tool = ?)")
        params.append(query.tool)
    _add_trace_filters(query, conditions, params)
    return source, order_table, conditions, params


def trace_list_sql(query: TraceQuery, cursor: tuple | None) -> tuple[str, list]:
    """Build the list query: driven by the most selective index the filters allow."""
    source, order_table, conditions, params = trace_filter_sql(query)
    if cursor:
        conditions.append(f"({order_table}.last_ts, {order_table}.trace_id) < (?, ?)")
        params.extend(cursor)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    sql = (f"SELECT t.* FROM {source} {where} "
           f"ORDER BY {order_table}.last_ts DESC, {order_table}.trace_id DESC LIMIT ?")
    return sql, params + [query.limit + 1]


def _add_trace_filters(query: TraceQuery, conditions: list, params: list) -> None:
    if query.severity == "clean":
        conditions.append("t.worst IN ('clean', 'info')")
    elif query.severity:
        conditions.append("t.worst = ?")
        params.append(query.severity)
    if query.status:
        conditions.append("(',' || t.status_codes || ',') LIKE ?")
        params.append(f"%,{STATUS_PATTERNS[query.status]},%")
    if query.missing:
        conditions.append(f"t.has_{query.missing} = 0")
    if query.since:
        conditions.append("t.last_ts >= ?")
        params.append(query.since)
    if query.until:
        conditions.append("t.last_ts <= ?")
        params.append(query.until)
    if query.q:
        conditions.append("(t.trace_id >= ? AND t.trace_id < ? OR (',' || t.tools || ',') LIKE ?"
                          f" OR t.trace_id IN ({FTS_MATCH}))")
        params.extend([query.q.lower(), query.q.lower() + "\uffff", f"%,{query.q},%", fts_phrase(query.q)])
