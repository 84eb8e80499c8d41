"""parse_body: from the raw bytes of POST /api/v1/ingest to events.

To accepted events and rejections."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from ..common import jsontext
from .decode import decoded_pieces
from .envelope import (
    Context,
    check_trace_id,
    format_ts,
    make_event,
    normalise_envelope,
    record_trace_id,
)
from .model import (
    Batch,
    Event,
    Limits,
    RecordError,
    Rejection,
    is_depth_error,
    json_reason,
    too_deep,
)
from .records import depth_exceeds
from .shapes import extract_calls
from .stream import stream_records

_TRACEPARENT = re.compile(r"[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}", re.I)
_WRAPPER_KEYS = ("message", "log", "MESSAGE")
_MAX_UNWRAP = 3
_DEFAULT_LIMITS = Limits()


def parse_body(
    raw: bytes,
    *,
    content_encoding: str | None = None,
    headers: Mapping[str, str] = {},
    query: Mapping[str, str] = {},
    limits: Limits = _DEFAULT_LIMITS,
    now: datetime | None = None,
    prepare: Callable[[Event], Event] | None = None,
) -> Batch:
    """Decode, frame and normalise an ingest body.

    Raise IngestError when it is refused whole.

    The body is decompressed and split as it goes, and `prepare` (redaction, say) is applied to each
    event as it is made, so a large body's parsed values are never all held at once."""
    ctx = Context(limits, format_ts(now or datetime.now(UTC)), fallback_trace_id(headers, query))
    if ctx.fallback_trace_id is None:
        ctx.traceparent_problem = traceparent_problem(headers)
    batch = Batch()
    # event id -> the event that took it, to refuse an id given again to another event
    taken: dict[str, Event] = {}
    pieces = decoded_pieces(raw, content_encoding, limits.max_body_bytes)
    for rec in stream_records(pieces, limits):
        try:
            if rec.error is not None:
                raise rec.error
            events = record_events(rec.value, ctx)
            events = [prepare(event) for event in events] if prepare else events
            refuse_reused_ids(events, taken)
        except RecordError as err:
            batch.rejected.append(
                Rejection(
                    rec.index, err.code, err.message, rec.raw(), event_source=named_source(rec)
                )
            )
            continue
        batch.events.extend(events)
    return batch


def refuse_reused_ids(events: list[Event], taken: dict[str, Event]) -> None:
    """Refuse a record whose event id an earlier event of the body took for another.

    A re-sent event (same trace, call, snapshot and payload) is a duplicate, stored once; another
    event under the same id would be skipped as one, silently."""
    for event in events:
        earlier = taken.setdefault(event.event_id, event)
        if earlier is event or _same_event(earlier, event):
            continue
        raise RecordError(
            "event_id_reused",
            f"event_id {event.event_id[:80]!r} was given to another event earlier in this body "
            f"(trace {earlier.trace_id[:80]!r}, call {earlier.call_id[:80]!r}, "
            f"{earlier.snapshot}); each event needs its own: leave event_id out and one is made "
            "from the event",
        )


def _same_event(one: Event, other: Event) -> bool:
    return (one.trace_id, one.call_id, one.snapshot, _content(one.payload)) == (
        other.trace_id,
        other.call_id,
        other.snapshot,
        _content(other.payload),
    )


def _content(payload):
    """Return a payload as compared: a prepared one (a Fragment) by its JSON text."""
    return jsontext.dumps(payload) if isinstance(payload, jsontext.Fragment) else payload


def named_source(rec) -> str:
    """Return the `source` a rejected record names.

    As accepted events are counted by theirs ("" if unreadable)."""
    value = rec.value
    if value is None:
        # a record refused before parsing (too deep, say) is read again for its source: its text,
        # cut at 4 KiB
        try:
            value = jsontext.loads(rec.raw())
        except jsontext.JSONDecodeError:
            return ""
    source = value.get("source") if type(value) is dict else None
    return source if type(source) is str else ""


def fallback_trace_id(headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """Return the trace id a request names outside its body.

    From a W3C traceparent header, X-Trace-Id, or the trace_id query parameter."""
    lowered = {k.lower(): v for k, v in headers.items()} if headers else {}
    m = _TRACEPARENT.fullmatch(lowered.get("traceparent", "").strip())
    if m and m.group(1).strip("0"):
        return m.group(1).lower()
    value = lowered.get("x-trace-id", "").strip() or (query.get("trace_id") or "").strip()
    return value or None


def traceparent_problem(headers: Mapping[str, str]) -> str:
    """Say why a traceparent header sent names no trace, for the missing id's message.

    "" when none was sent."""
    sent = next((v for k, v in (headers or {}).items() if k.lower() == "traceparent"), None)
    if sent is None:
        return ""
    shown = repr(sent.strip()[:80])
    if _TRACEPARENT.fullmatch(sent.strip()):
        return f"; the traceparent header sent, {shown}, names the invalid all-zero trace id"
    return (
        f"; the traceparent header sent, {shown}, is not a W3C traceparent "
        "(00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>)"
    )


def record_events(value: Any, ctx: Context) -> list[Event]:
    """Return the events one record holds.

    An envelope, a wrapped envelope, or a known shape."""
    if type(value) is not dict:
        raise RecordError("bad_type", "each record must be a JSON object")
    rec, meta = unwrap(value, ctx.limits.max_depth)
    if "snapshot" in rec or "payload" in rec:
        return [normalise_envelope(rec, ctx, meta)]
    calls = extract_calls(rec)
    if calls is None:
        if "trace_id" in rec or "traceId" in rec:
            raise RecordError(
                "missing_field", "the record has a trace_id but no snapshot and payload"
            )
        raise RecordError(
            "unknown_shape",
            "not an event envelope and no tool-call shape we know "
            "(tool_use, tool_calls, function_call, functionCall, MCP tools/call)",
        )
    trace_id = record_trace_id(rec, ctx)
    if trace_id is None:
        raise RecordError(
            "missing_trace_id",
            "no trace id: put trace_id in the record, or send a traceparent or X-Trace-Id "
            f"header or a trace_id query parameter{ctx.traceparent_problem}",
        )
    trace_id = check_trace_id(trace_id)
    return [make_event(ctx, trace_id=trace_id, meta=meta, **call) for call in calls]


def unwrap(rec: dict, max_depth: int) -> tuple[dict, dict | None]:
    """Take our record out of a shipper's envelope (message/log string).

    Keep its fields as meta."""
    meta: dict | None = None
    for _ in range(_MAX_UNWRAP):
        if "snapshot" in rec or "payload" in rec:
            break
        inner = _wrapped(rec, max_depth)
        if inner is None:
            break
        key, rec_inner = inner
        outer = {k: v for k, v in rec.items() if k != key}
        meta = {**outer, **(meta or {})}
        rec = rec_inner
    return rec, meta


def _wrapped(rec: dict, max_depth: int) -> tuple[str, dict] | None:
    for key in _WRAPPER_KEYS:
        text = rec.get(key)
        if type(text) is str and text.lstrip()[:1] == "{":
            try:
                inner = jsontext.loads(text)
            except jsontext.JSONDecodeError as exc:
                if is_depth_error(exc):
                    raise too_deep(f"the JSON in field {key!r}", max_depth) from None
                raise RecordError(
                    "not_json",
                    f"field {key!r} holds text that is not valid JSON: {json_reason(exc)}",
                ) from None
            if type(inner) is dict:
                if depth_exceeds(inner, max_depth):
                    raise too_deep(f"the JSON in field {key!r}", max_depth)
                return key, inner
    return None
