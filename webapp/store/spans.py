"""Join OpenTelemetry HTTP spans to their tool call when the two came in different exports.

An exporter that sends each span as it ends sends the HTTP client span before the tool span
that encloses it, so ingest stores it under call "" with its parent's span id in `meta`.
"""

SPAN_EVENTS = """SELECT seq, trace_id, call_id, tool, json_extract(meta, '$.span_id'),
 json_extract(meta, '$.parent_span_id') FROM events
 WHERE seq > ? AND seq <= ? AND json_extract(meta, '$.span_id') IS NOT NULL"""
ADOPT_CHILDREN = """UPDATE events SET call_id = ?, tool = coalesce(tool, ?)
 WHERE trace_id = ? AND call_id = '' AND json_extract(meta, '$.parent_span_id') = ?"""
FIND_PARENT = """SELECT call_id, tool FROM events WHERE trace_id = ? AND call_id != ''
 AND json_extract(meta, '$.span_id') = ? LIMIT 1"""
ADOPT_ONE = "UPDATE events SET call_id = ?, tool = coalesce(tool, ?) WHERE seq = ?"


def join_orphan_spans(conn, sql, *new_events) -> set[tuple[str, str]]:
    """Give call-less span events among the new ones their parent's call; return calls touched.

    `sql` is the engine's statements module; `new_events` its SPAN_EVENTS parameters (SQLite: the
    range of seq projected; PostgreSQL: the list of seq taken from the queue)."""
    touched = set()
    for seq, trace_id, call_id, tool, span_id, parent_id in conn.execute(sql.SPAN_EVENTS, new_events).fetchall():
        if call_id:
            if conn.execute(sql.ADOPT_CHILDREN, (call_id, tool, trace_id, span_id)).rowcount:
                touched |= {(trace_id, call_id), (trace_id, "")}
        elif parent_id:
            parent = conn.execute(sql.FIND_PARENT, (trace_id, parent_id)).fetchone()
            if parent:
                conn.execute(ADOPT_ONE, (parent[0], parent[1], seq))
                touched |= {(trace_id, parent[0]), (trace_id, "")}
    return touched
