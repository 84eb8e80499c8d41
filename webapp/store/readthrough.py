"""Read a trace through its raw events before the projection folds them.

Ingest acknowledges a batch once its events are committed; the projection (another transaction, on
PostgreSQL perhaps another node's) folds them into `calls` and `traces` later. A trace read in
between is built here from its events by the projection's own rule (each stage's current event is
its latest by ts, then seq; tool, source and release the latest given), so an acknowledged trace is
readable at once. A call whose current snapshots the stored row does not point at yet shows no
analysis: it is pending, as it will be once projected.
"""

from ..common.stages import NAMES
from .codec import loads

TRACE_EVENTS = """SELECT seq, call_id, snapshot, tool, source, release, http, ts FROM events
 WHERE trace_id = ? AND call_id != ''"""


def calls_through_events(db, trace_id: str, stored: list[dict]) -> list[dict]:
    """Return a trace's call rows as the projection will write them.

    Keeping each stored row whose current snapshots are unchanged (its analysis still holds)."""
    by_call: dict[str, list] = {}
    for row in db.execute(TRACE_EVENTS, (trace_id,)).fetchall():
        by_call.setdefault(row[1], []).append(row)
    kept = {row["call_id"]: row for row in stored}
    rows = [_current(trace_id, call, events, kept.get(call)) for call, events in by_call.items()]
    return sorted(rows, key=lambda row: (row["first_ts"], row["call_id"]))


def _current(trace_id: str, call_id: str, events: list, stored: dict | None) -> dict:
    """Return one call's row from its events.

    Seq, call_id, snapshot, tool, source, release, http, ts."""
    latest = {}
    for event in events:
        seq, snapshot, ts = event[0], event[2], event[7]
        if snapshot not in latest or (ts, seq) > (latest[snapshot][7], latest[snapshot][0]):
            latest[snapshot] = event
    seqs = {f"{name}_seq": latest[name][0] if name in latest else None for name in NAMES}
    if stored is not None and all(stored[column] == seq for column, seq in seqs.items()):
        return stored
    by_seq = sorted(events)
    response = latest.get("response")
    return {
        "trace_id": trace_id,
        "call_id": call_id,
        "tool": _last_given(by_seq, 3),
        "source": _last_given(by_seq, 4),
        "release": _last_given(by_seq, 5),
        **seqs,
        "status_code": _status(response),
        "first_ts": min(event[7] for event in events),
        "last_ts": max(event[7] for event in events),
        "analysis": None,
        # pending: its analysis waits for the projection and the analyser
        "version": (stored or {}).get("version", 0) + 1,
        "analyzed_version": (stored or {}).get("analyzed_version", 0),
    }


def _last_given(events: list, column: int):
    """Return the latest non-null value of a column, by seq."""
    return next((event[column] for event in reversed(events) if event[column] is not None), None)


def _status(response) -> int | None:
    """Return the status code a response event's http holds.

    As the projection reads it."""
    http = loads(response[6]) if response else None
    return http.get("status_code") if isinstance(http, dict) else None
