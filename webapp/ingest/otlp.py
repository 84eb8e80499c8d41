"""parse_otlp: map OTLP trace exports (GenAI, OpenInference, OpenLLMetry spans) to snapshot events."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import orjson
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from ..common import times
from .decode import decode_body
from .envelope import Context, format_ts, make_event
from .model import Batch, Event, IngestError, Limits, RecordError, Rejection
from .otlp_spans import SPAN_KIND_CLIENT, Span, spans_from_json, spans_from_protobuf

_DEFAULT_LIMITS = Limits()


def parse_otlp(
    raw: bytes,
    *,
    content_type: str | None,
    content_encoding: str | None = None,
    limits: Limits = _DEFAULT_LIMITS,
    now: datetime | None = None,
) -> Batch:
    """Decode an OTLP/HTTP trace export and return the snapshot events its spans carry."""
    body = decode_body(raw, content_encoding, limits.max_body_bytes)
    if is_json(content_type, body):
        if not body.strip():
            raise IngestError(422, "unparseable", "the body is empty; send an OTLP/JSON ExportTraceServiceRequest")
        spans = spans_from_json(body, limits.max_depth)
    else:
        spans = spans_from_protobuf(body, limits.max_depth)
    ctx = Context(limits, format_ts(now or datetime.now(UTC)))
    batch = map_spans(spans, ctx)
    if len(batch.events) > limits.max_events:
        raise IngestError(
            422,
            "too_many_events",
            f"the export yields {len(batch.events)} events; at most {limits.max_events} per request",
        )
    return batch


def is_json(content_type: str | None, body: bytes) -> bool:
    """Tell OTLP/JSON from protobuf: by Content-Type, else by the first byte."""
    mime = (content_type or "").split(";")[0].strip().lower()
    if mime == "application/json":
        return True
    if mime in ("application/x-protobuf", "application/protobuf"):
        return False
    return body.lstrip()[:1] == b"{"


def otlp_response(batch_rejected: int, message: str, content_type: str | None) -> tuple[bytes, str]:
    """Encode an ExportTraceServiceResponse (partial success) the way the request was encoded."""
    resp = ExportTraceServiceResponse()
    if batch_rejected or message:
        resp.partial_success.rejected_spans = batch_rejected
        resp.partial_success.error_message = message
    if (content_type or "").split(";")[0].strip().lower() == "application/json":
        return orjson.dumps(MessageToDict(resp)), "application/json"
    return resp.SerializeToString(), "application/x-protobuf"


def map_spans(spans: list[Span], ctx: Context) -> Batch:
    """Turn tool spans and their HTTP client spans into arguments, request and response events."""
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    tools = [s for s in spans if _tool_kind(s)]
    tools_by_trace: dict[str, list[Span]] = {}
    for s in tools:
        tools_by_trace.setdefault(s.trace_id, []).append(s)
    batch = Batch()
    answered: set[str] = set()  # tool spans whose response came from an HTTP span
    for s in spans:
        if s.kind == SPAN_KIND_CLIENT and _http_method(s) and not _tool_kind(s):
            owner = _owner(s, by_id, tools_by_trace.get(s.trace_id, []))
            _emit(batch, s, ctx, lambda: _http_events(s, owner, tools_by_trace.get(s.trace_id), ctx))
            if owner is not None and "http.response.body.content" in s.attrs:
                answered.add(owner.span_id)
    for s in tools:
        _emit(batch, s, ctx, lambda: _tool_events(s, ctx, s.span_id in answered))
    return batch


def _emit(batch: Batch, span: Span, ctx: Context, build: Any) -> None:
    try:
        if span.error is not None:
            raise span.error
        batch.events.extend(build())
    except RecordError as err:
        raw = orjson.dumps(
            {"trace_id": span.trace_id, "span_id": span.span_id, "name": span.name}, option=orjson.OPT_NON_STR_KEYS
        ).decode()
        batch.rejected.append(Rejection(span.index, err.code, f"span {span.name!r}: {err.message}", raw))


def _tool_kind(s: Span) -> str | None:
    a = s.attrs
    if s.name.startswith("execute_tool") or a.get("gen_ai.operation.name") == "execute_tool":
        return "genai"
    if a.get("openinference.span.kind") == "TOOL":
        return "openinference"
    if a.get("traceloop.span.kind") == "tool":
        return "openllmetry"
    return None


_TOOL_KEYS = {  # kind: (tool name, call id, arguments, result)
    "genai": ("gen_ai.tool.name", "gen_ai.tool.call.id", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"),
    "openinference": ("tool.name", "tool_call.id", "input.value", "output.value"),
    "openllmetry": (
        "traceloop.entity.name",
        "gen_ai.tool.call.id",
        "traceloop.entity.input",
        "traceloop.entity.output",
    ),
}


def _tool_events(s: Span, ctx: Context, answered: bool) -> list[Event]:
    name_key, id_key, args_key, result_key = _TOOL_KEYS[_tool_kind(s)]
    tool, call_id = _tool_name(s, name_key), _call_id(s, id_key)
    events = []
    if args_key in s.attrs:
        events.append(_event(ctx, s, "arguments", s.attrs[args_key], tool, call_id, s.start_ns, None))
    if result_key in s.attrs and not answered:
        events.append(_event(ctx, s, "response", s.attrs[result_key], tool, call_id, s.end_ns, None))
    return events


def _http_events(s: Span, owner: Span | None, trace_tools: list[Span] | None, ctx: Context) -> list[Event]:
    a = s.attrs
    has_req, has_resp = "http.request.body.content" in a, "http.response.body.content" in a
    if not (has_req or has_resp):
        return []
    if owner is None and trace_tools:
        raise RecordError(
            "unattached_span",
            f"HTTP span has a body but no execute_tool ancestor, and its "
            f"trace has {len(trace_tools)} tool spans to choose from",
        )
    tool, call_id = (
        (None, "")
        if owner is None
        else (_tool_name(owner, _TOOL_KEYS[_tool_kind(owner)][0]), _call_id(owner, _TOOL_KEYS[_tool_kind(owner)][1]))
    )
    http = {"method": _http_method(s), "url": a.get("url.full") or a.get("http.url")}
    events = []
    if has_req or isinstance(http["url"], str) and http["url"]:  # a GET sends no body: its URL is its request
        req_http = {**http, "headers": _headers(a, "http.request.header.")}
        events.append(
            _event(ctx, s, "request", a.get("http.request.body.content"), tool, call_id, s.start_ns, req_http, owner)
        )
    if has_resp:
        status = a.get("http.response.status_code", a.get("http.status_code"))
        resp_http = {**http, "headers": _headers(a, "http.response.header.")}
        if type(status) is int and 100 <= status <= 599:
            resp_http["status_code"] = status
        events.append(
            _event(ctx, s, "response", a["http.response.body.content"], tool, call_id, s.end_ns, resp_http, owner)
        )
    return events


def _owner(s: Span, by_id: dict, trace_tools: list[Span]) -> Span | None:
    """Return the nearest tool-span ancestor, else the trace's only tool span."""
    parent_id, hops = s.parent_id, 0
    while parent_id and hops < 256:
        parent = by_id.get((s.trace_id, parent_id))
        if parent is None:
            break
        if _tool_kind(parent):
            return parent
        parent_id, hops = parent.parent_id, hops + 1
    return trace_tools[0] if len(trace_tools) == 1 else None


def _event(
    ctx: Context,
    s: Span,
    snapshot: str,
    payload: Any,
    tool: str | None,
    call_id: str,
    ns: int,
    http: dict | None,
    owner: Span | None = None,
) -> Event:
    if http is not None:
        http = {k: v for k, v in http.items() if v}
    meta = {"span_id": s.span_id, "span_name": s.name}
    if s.parent_id:  # lets the store re-home an HTTP span whose tool span came in another export
        meta["parent_span_id"] = s.parent_id
    if s.service:
        meta["service.name"] = s.service
    event_id = hashlib.sha256(f"otlp:{s.trace_id}:{s.span_id}:{snapshot}".encode()).hexdigest()[:32]
    return make_event(
        ctx,
        trace_id=s.trace_id,
        call_id=call_id,
        snapshot=snapshot,
        payload=payload,
        tool=tool,
        source=_source(owner) or _source(s),
        http=http or None,
        ts=_ns_ts(ns),
        event_id=event_id,
        meta=meta,
        text_by_definition=True,
        release=s.release,
    )


def _source(s: Span | None) -> str | None:
    """Return the chain that made the call: `tracediff.source` on the span, else mcp for an MCP span."""
    if s is None:
        return None
    value = s.attrs.get("tracediff.source")
    if type(value) is str:
        return value
    return "mcp" if "mcp.method.name" in s.attrs else None


def _ns_ts(ns: int) -> str | None:
    return times.from_ns(ns) if ns > 0 else None


def _http_method(s: Span) -> str | None:
    m = s.attrs.get("http.request.method", s.attrs.get("http.method"))
    return m if type(m) is str else None


def _headers(attrs: dict, prefix: str) -> dict:
    out = {}
    for k, v in attrs.items():
        if k.startswith(prefix):
            out[k[len(prefix) :]] = ", ".join(map(str, v)) if type(v) is list else str(v)
    return out


def _tool_name(s: Span, key: str) -> str | None:
    v = s.attrs.get(key)
    return v if type(v) is str else None


def _call_id(s: Span, key: str) -> str:
    v = s.attrs.get(key)
    return v if type(v) is str else ("" if v is None else str(v))
