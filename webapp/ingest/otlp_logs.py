"""parse_otlp_logs: read the GenAI event records of OTLP/HTTP log exports.

Into snapshot events.

`gen_ai.client.inference.operation.details` carries a model request's input and output messages as
attributes; the older `gen_ai.choice` (the model's answer) and `gen_ai.tool.message` (a tool's
result sent back) carry them in the body. Each record names the model span it belongs to by trace
and span id: the arguments it announces keep that span id and their place in the turn, so that the
turn's HTTP spans join them in the store whichever export comes first (store/spans.py).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from ..common import jsontext, times
from . import genai
from .envelope import Context, format_ts, make_event
from .model import Batch, Event, IngestError, Limits, RecordError, Rejection, too_deep
from .otlp import read_export, within_events
from .otlp_spans import (
    TooDeep,
    _get,
    _hex_id,
    _int,
    _items,
    _json_attrs,
    _json_value,
    _pb_attrs,
    _pb_value,
    _release,
    _service,
    bad_ids,
    json_export,
)
from .records import depth_exceeds

_DEFAULT_LIMITS = Limits()
DETAILS, CHOICE, TOOL_MESSAGE = (
    "gen_ai.client.inference.operation.details",
    "gen_ai.choice",
    "gen_ai.tool.message",
)


@dataclass(eq=False)
class LogRecord:
    index: int
    trace_id: str
    span_id: str
    name: str
    time_ns: int
    attrs: dict = field(default_factory=dict)
    body: Any = None
    service: str | None = None
    release: str | None = None
    error: RecordError | None = None


def parse_otlp_logs(
    raw: bytes,
    *,
    content_type: str | None,
    content_encoding: str | None = None,
    limits: Limits = _DEFAULT_LIMITS,
    now: datetime | None = None,
) -> Batch:
    """Decode an OTLP/HTTP log export into its GenAI records' snapshot events.

    The snapshot events its GenAI event records carry."""
    records = read_export(
        raw,
        content_type,
        content_encoding,
        limits,
        "ExportLogsServiceRequest",
        records_from_json,
        records_from_protobuf,
    )
    ctx = Context(limits, format_ts(now or datetime.now(UTC)))
    batch = Batch()
    for record in records:
        try:
            if record.error is not None:
                raise record.error
            batch.events.extend(_events(record, ctx))
            batch.tool_definitions.update(genai.tool_definitions(record.attrs))
        except RecordError as err:
            raw_id = jsontext.dumps(
                {"trace_id": record.trace_id, "span_id": record.span_id, "name": record.name}
            )
            batch.rejected.append(
                Rejection(
                    record.index, err.code, f"log {record.name!r}: {err.message}", raw_id.decode()
                )
            )
    return within_events(batch, limits)


def otlp_logs_response(rejected: int, message: str, content_type: str | None) -> tuple[bytes, str]:
    """Encode an ExportLogsServiceResponse the way the request was encoded.

    Partial success."""
    resp = ExportLogsServiceResponse()
    if rejected or message:
        resp.partial_success.rejected_log_records = rejected
        resp.partial_success.error_message = message
    if (content_type or "").split(";")[0].strip().lower() == "application/json":
        return jsontext.dumps(MessageToDict(resp)), "application/json"
    return resp.SerializeToString(), "application/x-protobuf"


def records_from_protobuf(body: bytes, max_depth: int) -> list[LogRecord]:
    """Decode an ExportLogsServiceRequest in protobuf into log records."""
    req = ExportLogsServiceRequest()
    try:
        req.ParseFromString(body)
    except (DecodeError, RecursionError) as exc:
        raise IngestError(
            422,
            "unparseable",
            f"the body is not an OTLP ExportLogsServiceRequest in protobuf: {exc}",
        ) from None
    records: list[LogRecord] = []
    for rl in req.resource_logs:
        resource = _pb_attrs(rl.resource.attributes, max_depth, None)
        for sl in rl.scope_logs:
            for r in sl.log_records:
                record = LogRecord(
                    len(records),
                    r.trace_id.hex(),
                    r.span_id.hex(),
                    r.event_name,
                    r.time_unix_nano or r.observed_time_unix_nano,
                )
                record.service, record.release = _service(resource), _release(resource)
                record.attrs = _pb_attrs(r.attributes, max_depth, record)
                record.body = (
                    _value(_pb_value, r.body, record, max_depth) if r.HasField("body") else None
                )
                record.error = record.error or bad_ids(record.trace_id, record.span_id)
                records.append(record)
    return records


def records_from_json(body: bytes, max_depth: int) -> list[LogRecord]:
    """Decode an ExportLogsServiceRequest in OTLP/JSON into log records.

    Hex ids, lowerCamelCase keys."""
    doc = json_export(body, "ExportLogsServiceRequest")
    records: list[LogRecord] = []
    for rl in _items(doc, "resourceLogs", "resource_logs"):
        resource = _get(rl, "resource", "resource") or {}
        resource = _json_attrs(_items(resource, "attributes", "attributes"), max_depth, None)
        for sl in _items(rl, "scopeLogs", "scope_logs"):
            for r in _items(sl, "logRecords", "log_records"):
                record = LogRecord(
                    len(records),
                    _hex_id(_get(r, "traceId", "trace_id")),
                    _hex_id(_get(r, "spanId", "span_id")),
                    str(_get(r, "eventName", "event_name") or ""),
                    _int(_get(r, "timeUnixNano", "time_unix_nano"))
                    or _int(_get(r, "observedTimeUnixNano", "observed_time_unix_nano")),
                )
                record.service, record.release = _service(resource), _release(resource)
                record.attrs = _json_attrs(_items(r, "attributes", "attributes"), max_depth, record)
                record.body = _value(_json_value, r.get("body"), record, max_depth)
                record.error = record.error or bad_ids(record.trace_id, record.span_id)
                records.append(record)
    return records


def _value(convert, value: Any, record: LogRecord, max_depth: int) -> Any:
    """Convert a log body (one level inside its event), or mark the record too deep."""
    try:
        return convert(value, max_depth - 1)
    except TooDeep:
        record.error = too_deep("the log body", max_depth)
        return None


def _events(r: LogRecord, ctx: Context) -> list[Event]:
    # older SDKs put the event name in an attribute
    name = r.name or str(r.attrs.get("event.name") or "")
    if not r.trace_id or name not in (DETAILS, CHOICE, TOOL_MESSAGE):
        return []
    if name == DETAILS:
        calls = genai.announced_calls(r.attrs)
        results = genai.results_in_messages(r.attrs.get("gen_ai.input.messages"))
    elif name == CHOICE:
        calls, results = genai.calls_in_messages([r.body]), []
    else:
        body = r.body if type(r.body) is dict else {}
        results = (
            [genai.ToolResult(str(body["id"]), genai.parse_value(body.get("content")))]
            if "id" in body
            else []
        )
        calls = []
    source = genai.provider(r.attrs)
    events = [
        _event(ctx, r, "arguments", c.arguments, c.name, c.call_id, source, n, len(calls))
        for n, c in enumerate(calls, 1)
        if c.call_id
    ]
    events += [_event(ctx, r, "result", res.content, None, res.call_id, source) for res in results]
    return events


def _event(
    ctx: Context,
    r: LogRecord,
    snapshot: str,
    payload: Any,
    tool,
    call_id: str,
    source,
    index=None,
    of=None,
) -> Event:
    meta = {"span_id": r.span_id, "log_event": r.name or r.attrs.get("event.name")}
    # the call's place in its model turn, for the turn's HTTP spans (store/spans.py)
    if index is not None:
        meta |= {"call_index": index, "turn_calls": of}
    if r.service:
        meta["service.name"] = r.service
    key = f"otlp-log:{r.trace_id}:{call_id}:{snapshot}"
    # parsed here from text: checked as the envelope would
    if depth_exceeds(payload, ctx.limits.max_depth - 1):
        raise too_deep("the payload", ctx.limits.max_depth)
    return make_event(
        ctx,
        trace_id=r.trace_id,
        call_id=call_id,
        snapshot=snapshot,
        payload=payload,
        tool=tool,
        source=source,
        ts=times.from_ns(r.time_ns) if r.time_ns > 0 else None,
        event_id=hashlib.sha256(key.encode()).hexdigest()[:32],
        meta=meta,
        text_by_definition=True,
        release=r.release,
    )
