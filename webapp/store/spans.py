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


def join_orphan_spans(conn, after_seq: int, last_seq: int) -> set[tuple[str, str]]:
    """Give call-less span events in or before this range their parent's call; return calls touched."""
    touched = set()
    for seq, trace_id, call_id, tool, span_id, parent_id in conn.execute(
            SPAN_EVENTS, (after_seq, last_seq)).fetchall():
        if call_id:
            if conn.execute(ADOPT_CHILDREN, (call_id, tool, trace_id, span_id)).rowcount:
                touched |= {(trace_id, call_id), (trace_id, "")}
        elif parent_id:
            parent = conn.execute(FIND_PARENT, (trace_id, parent_id)).fetchone()
            if parent:
                conn.execute(ADOPT_ONE, (parent[0], parent[1], seq))
                touched |= {(trace_id, parent[0]), (trace_id, "")}
    return touched
