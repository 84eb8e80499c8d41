"""Join OpenTelemetry HTTP spans to their tool call across exports.

When the two came in different exports.

An exporter that sends each span as it ends sends the HTTP client span before the tool span that
encloses it, so ingest stores it under call "" with its parent's span id in `meta`. A model span
that announced tool calls may come in an earlier export than the HTTP spans of its turn: those join
the latest announced call under the same parent within TURN_WINDOW, the first of the turn without a
request. A tool span whose export held no HTTP span stands its result in for the response (ingest
marks it `stands_in`); once an HTTP span of another export answers the call, that result is the
call's result.
"""

from datetime import datetime, timedelta

from . import rejoin
from .codec import loads

# a span joins its parent's call, or its turn's, only this close in time
TURN_WINDOW = timedelta(minutes=15)

# SPAN_EVENTS, ADOPT_CHILDREN, FIND_PARENT, FIND_TURN, FIND_ANNOUNCED, TURN_ORPHANS and TURN_SPANS
# are the engine's statements (sqlite/sql.py, postgresql/sql.py); this one is the same on both.
ADOPT_ONE = "UPDATE events SET call_id = ?, tool = coalesce(tool, ?) WHERE seq = ?"
RESPONSES = (
    "SELECT seq, meta FROM events WHERE trace_id = ? AND call_id = ? AND snapshot = 'response'"
)
AS_RESULT = "UPDATE events SET snapshot = 'result' WHERE seq = ?"
# a trace with a call ingest named for want of the model's, a span not joined yet, or a tool span
# under an id of its own its export announced nowhere
UNJOINED = """SELECT 1 FROM events WHERE trace_id = ? AND (call_id = ''
 OR meta LIKE '%"provisional"%' OR meta LIKE '%"loose"%' OR meta LIKE '%"unannounced"%') LIMIT 1"""
# a trace's events as rejoin.plan reads them: payloads of arguments and requests only
TRACE_EVENTS = """SELECT seq, call_id, tool, snapshot, ts, meta,
 CASE WHEN snapshot IN ('arguments', 'request') THEN payload END FROM events WHERE trace_id = ?
 ORDER BY seq LIMIT ?"""


def join_orphan_spans(conn, sql, *new_events) -> set[tuple[str, str]]:
    """Give call-less span events among the new ones their parent's call.

    Return calls touched.

    `sql` is the engine's statements module; `new_events` its SPAN_EVENTS parameters (SQLite: the
    range of seq projected; PostgreSQL: the list of seq taken from the queue)."""
    touched = set()
    # (trace, span) -> [parent span, earliest ts, seqs, turn span, place]
    orphans: dict[tuple[str, str], list] = {}
    rows = conn.execute(sql.SPAN_EVENTS, new_events).fetchall()
    for row in rows:
        (
            seq,
            trace_id,
            call_id,
            tool,
            span_id,
            parent_id,
            ts,
            turn_span,
            place,
            call_index,
            turn_calls,
        ) = row
        if call_id:
            adopted = conn.execute(
                sql.ADOPT_CHILDREN, (call_id, tool, trace_id, span_id, *_around(ts))
            ).rowcount
            # a call a log record announced
            if call_index is not None and turn_calls is not None:
                adopted += _adopt_turn(
                    conn, sql, trace_id, span_id, (call_id, tool), int(call_index), int(turn_calls)
                )
            if adopted:
                touched |= {(trace_id, call_id), (trace_id, "")}
        elif parent_id or turn_span:
            orphan = orphans.setdefault((trace_id, span_id), [parent_id, ts, [], turn_span, place])
            orphan[1], orphan[2] = min(orphan[1], ts), [*orphan[2], seq]
    traces = {row[1] for row in rows}
    for (trace_id, span_id), (parent_id, ts, seqs, turn_span, place) in orphans.items():
        found = (
            (
                parent_id
                and conn.execute(sql.FIND_PARENT, (trace_id, parent_id, *_around(ts))).fetchone()
            )
            or (turn_span and announced_call(conn, sql, trace_id, turn_span, place))
            or (parent_id and turn_call(conn, sql, (trace_id, span_id, parent_id, ts), touched))
        )
        if found:
            conn.executemany(ADOPT_ONE, [(found[0], found[1], seq) for seq in seqs])
            touched |= {(trace_id, found[0]), (trace_id, "")}
    for trace_id in sorted(traces):
        touched |= rejoin_trace(conn, trace_id)
    settle_stand_ins(conn, touched)
    return touched


def rejoin_trace(conn, trace_id: str) -> set[tuple[str, str]]:
    """Join a trace's provisional calls and orphan spans to their calls (rejoin.py).

    Return the calls touched."""
    if conn.execute(UNJOINED, (trace_id,)).fetchone() is None:
        return set()
    found = conn.execute(TRACE_EVENTS, (trace_id, rejoin.MAX_TRACE_EVENTS + 1)).fetchall()
    if len(found) > rejoin.MAX_TRACE_EVENTS:
        return set()
    rows = [
        rejoin.Row(seq, call_id, tool, snapshot, ts, meta, _payload(payload))
        for seq, call_id, tool, snapshot, ts, text, payload in found
        if type(meta := _meta(text)) is dict and "span_id" in meta
    ]
    was = {r.seq: r.call_id for r in rows}
    moves = rejoin.plan(rows)
    conn.executemany(ADOPT_ONE, [(call_id, tool, seq) for seq, (call_id, tool) in moves.items()])
    return {(trace_id, call_id) for call_id, _ in moves.values()} | {
        (trace_id, was[seq]) for seq in moves
    }


def _meta(meta):
    return loads(meta) if isinstance(meta, str) else meta


def _payload(payload):
    if payload is None:
        return None
    try:
        return loads(payload)
    except ValueError:
        return payload


def settle_stand_ins(conn, calls) -> None:
    """Make a tool span's stand-in response its call's result.

    Where an HTTP span of the call carried the response.

    Only joined calls are read: a stand-in and an HTTP response from different exports meet in one
    call by a join."""
    for trace_id, call_id in calls:
        if not call_id:
            continue
        rows = conn.execute(RESPONSES, (trace_id, call_id)).fetchall()
        stand_ins = [seq for seq, meta in rows if _stands_in(meta)]
        if stand_ins and len(stand_ins) < len(rows):
            conn.executemany(AS_RESULT, [(seq,) for seq in stand_ins])


def _stands_in(meta) -> bool:
    meta = loads(meta) if isinstance(meta, str) else meta
    return type(meta) is dict and meta.get("stands_in") is True


def announced_call(conn, sql, trace_id: str, model_span: str, place) -> tuple[str, str] | None:
    """Return (call id, tool) of the call a log record announced for a model span.

    For this model span at this place in its turn."""
    calls = conn.execute(sql.FIND_ANNOUNCED, (trace_id, model_span)).fetchall()
    for call_id, tool, index, of in calls:
        if (of is not None and int(of) == 1) or (place is not None and int(index) == int(place)):
            return call_id, tool
    return None


def _adopt_turn(conn, sql, trace_id: str, model_span: str, call: tuple, index: int, of: int) -> int:
    """Give the model span's turn's call-less HTTP spans the call.

    Those that sit at the call's place."""
    seqs = [
        seq
        for seq, place in conn.execute(sql.TURN_ORPHANS, (trace_id, model_span)).fetchall()
        if of == 1 or place is not None and int(place) == index
    ]
    conn.executemany(ADOPT_ONE, [(call[0], call[1], seq) for seq in seqs])
    return len(seqs)


def turn_call(conn, sql, orphan: tuple, touched: set) -> tuple[str, str] | None:
    """Return (call id, tool) of the announced call an HTTP span belongs to.

    The span as (trace, span, parent, sent at).

    Several calls in one turn take its HTTP spans in the order they were sent, whatever order they
    arrive in: a span sent before others already joined moves them one call on (their calls go into
    `touched`)."""
    trace_id, span_id, parent_id, ts = orphan
    rows = conn.execute(
        sql.FIND_TURN, (trace_id, parent_id, _before(ts, TURN_WINDOW), ts)
    ).fetchall()
    if not rows:
        return None
    model_span = rows[0][2]
    calls = sorted(
        {(int(index), call_id, tool) for call_id, tool, span, index in rows if span == model_span}
    )
    if len(calls) == 1:
        return calls[0][1:]
    # span -> [first ts, its call now, its seqs]
    sent: dict[str, list] = {span_id: [ts, None, []]}
    for _, call_id, _ in calls:
        for seq, span, at in conn.execute(
            sql.TURN_SPANS, (trace_id, call_id, parent_id)
        ).fetchall():
            entry = sent.setdefault(span, [at, call_id, []])
            entry[0], entry[2] = min(entry[0], at), [*entry[2], seq]
    order = sorted(sent, key=lambda span: (sent[span][0], span))
    if len(order) > len(calls):
        # more HTTP spans than calls: which one is whose cannot be told
        return None
    for span, (_, call_id, tool) in zip(order, calls):
        now, seqs = sent[span][1:]
        if span != span_id and now != call_id:
            conn.executemany(ADOPT_ONE, [(call_id, tool, seq) for seq in seqs])
            touched |= {(trace_id, call_id), (trace_id, now)}
    return calls[order.index(span_id)][1:]


def _around(ts: str) -> tuple[str, str]:
    """Return the times TURN_WINDOW before and after `ts`.

    A span and its parent's events are that close."""
    # the whole second after, any fraction
    return _before(ts, TURN_WINDOW), _before(ts, -TURN_WINDOW) + "\uffff"


def _before(ts: str, window: timedelta) -> str:
    """Return the stored time `window` before `ts`.

    Both in the fixed-width form, so they order as text."""
    moment = datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S") - window
    return moment.strftime("%Y-%m-%dT%H:%M:%S")
