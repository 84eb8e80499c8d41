"""parse_otlp: map OTLP trace exports to snapshot events.

GenAI, OpenInference, OpenLLMetry, logfire, openlit spans."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from ..common import jsontext, times
from . import genai
from .decode import decode_body
from .envelope import Context, format_ts, make_event
from .model import Batch, Event, IngestError, Limits, RecordError, Rejection, too_deep
from .otlp_calls import (
    TOOL_KEYS,
    Identities,
    adopt_read_bodies,
    body_of,
    has_body,
    host_tools,
    http_method,
    is_http,
    own_call_id,
    read_framework_events,
    source_of,
    tool_ancestor,
    tool_kind,
)
from .otlp_spans import Span, spans_from_json, spans_from_protobuf
from .otlp_turns import Turns
from .records import depth_exceeds

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
    spans = read_export(
        raw,
        content_type,
        content_encoding,
        limits,
        "ExportTraceServiceRequest",
        spans_from_json,
        spans_from_protobuf,
    )
    return within_events(
        map_spans(spans, Context(limits, format_ts(now or datetime.now(UTC)))), limits
    )


def read_export(
    raw: bytes,
    content_type,
    content_encoding,
    limits: Limits,
    message: str,
    from_json,
    from_protobuf,
):
    """Decode an OTLP/HTTP export into its spans or log records.

    Gzip or not, JSON or protobuf."""
    body = decode_body(raw, content_encoding, limits.max_body_bytes)
    if not is_json(content_type, body):
        return from_protobuf(body, limits.max_depth)
    if not body.strip():
        raise IngestError(422, "unparseable", f"the body is empty; send an OTLP/JSON {message}")
    return from_json(body, limits.max_depth)


def within_events(batch: Batch, limits: Limits) -> Batch:
    """Return the batch, or refuse an export of too many events whole.

    More events than one request may carry."""
    if len(batch.events) > limits.max_events:
        raise IngestError(
            422,
            "too_many_events",
            f"the export yields {len(batch.events)} events; "
            f"at most {limits.max_events} per request",
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
    """Encode an ExportTraceServiceResponse the way the request was encoded.

    Partial success."""
    resp = ExportTraceServiceResponse()
    if batch_rejected or message:
        resp.partial_success.rejected_spans = batch_rejected
        resp.partial_success.error_message = message
    if (content_type or "").split(";")[0].strip().lower() == "application/json":
        return jsontext.dumps(MessageToDict(resp)), "application/json"
    return resp.SerializeToString(), "application/x-protobuf"


def map_spans(spans: list[Span], ctx: Context) -> Batch:
    """Turn tool spans, model turns and their HTTP spans into snapshot events.

    HTTP client spans; arguments, request and response events."""
    by_id = {(s.trace_id, s.span_id): s for s in spans}
    link_spans(spans, by_id)
    adopt_read_bodies(spans, by_id)
    read_framework_events(spans)
    turns = Turns(spans, by_id)
    tools = [s for s in spans if tool_kind(s)]
    tools_by_trace: dict[str, list[Span]] = {}
    for s in tools:
        tools_by_trace.setdefault(s.trace_id, []).append(s)
    https = [s for s in spans if is_http(s) and not turns.is_model(s) and not turns.under_model(s)]
    above = {id(s): tool_ancestor(s, by_id) for s in https + tools}
    loose = [s for s in https if above[id(s)] is None and has_body(s)]
    owners = turns.assign(loose, [s for s in tools if above[id(s)] is None])
    unnamed = [s for s in tools if above[id(s)] is None and id(s) not in owners]
    owners.update(turns.by_arguments([s for s in unnamed if not own_call_id(s)]))
    below: dict[int, list[Span]] = {}
    for s in https:
        if above[id(s)] is not None:
            below.setdefault(id(above[id(s)]), []).append(s)
    identity = Identities(owners, above, host_tools(tools, below))
    places = turns.places(loose)
    batch = Batch()
    # calls whose response came from an HTTP span
    answered: set[tuple[str, str]] = set()
    for s in https:
        who = identity.of_http(s, tools_by_trace.get(s.trace_id, []))
        _emit(
            batch, s, _http_events, s, who, tools_by_trace.get(s.trace_id), ctx, places.get(id(s))
        )
        if who is not None and body_of(s.attrs, "response") is not None:
            answered.add((s.trace_id, who[1]))
    for s in spans:
        if reads_body_alone(s, by_id):
            _emit(batch, s, _read_body_events, s, ctx)
    for s in tools:
        announced = owners[id(s)][1] if id(s) in owners else None
        _emit(batch, s, _tool_events, s, ctx, identity.of_tool(s), answered, announced)
    taken = {id(owners[id(s)][1]) for s in tools if id(s) in owners}
    for turn in turns.turns.values():
        for call in turn.calls:
            if id(call) not in taken:
                _emit(batch, turn.model, _announced_events, turn, call, ctx)
    # a tool span that took an announced call under an id of its own (ADK 2.x) is that call
    aliases = {
        (s.trace_id, owners[id(s)][1].call_id): own_call_id(s)
        for s in tools
        if id(s) in owners and own_call_id(s)
    }
    for (trace_id, call_id), result in turns.results.items():
        call_id = turns.announced_id(trace_id, call_id, result.carrier)
        call_id = aliases.get((trace_id, call_id), call_id)
        _emit(batch, result.carrier, _result_events, trace_id, call_id, result, ctx)
    for event in batch.events:
        if (event.trace_id, event.call_id) in identity.invented:
            event.meta = {**(event.meta or {}), "provisional": event.call_id}
    for turn in turns.turns.values():
        batch.tool_definitions.update(genai.tool_definitions(turn.model.attrs))
    for s in spans:
        if s.name.startswith("tools/list") or s.attrs.get("mcp.method.name") == "tools/list":
            batch.tool_definitions.update(genai.listed_tools(s.attrs))
    return batch


# how many span ids an event's meta names as its ancestors, or as the spans under its tool span
MAX_LINKS = 8


def link_spans(spans: list[Span], by_id: dict) -> None:
    """Give each span its ancestors' ids, and each tool span those under it.

    The ids of the snapshot-less spans under it: what the store joins a span of another export by
    (store/spans.py)."""
    for s in spans:
        parent_id = s.parent_id
        while parent_id and len(s.ancestors) < MAX_LINKS:
            s.ancestors.append(parent_id)
            parent = by_id.get((s.trace_id, parent_id))
            parent_id = parent.parent_id if parent is not None else ""
    for s in spans:
        if tool_kind(s) or is_http(s) and has_body(s) or genai.is_model_span(s.attrs):
            continue
        owner = tool_ancestor(s, by_id)
        if owner is not None and len(owner.covers) < MAX_LINKS:
            owner.covers.append(s.span_id)


def _emit(batch: Batch, span: Span, build: Any, *args: Any) -> None:
    """Add the events `build(*args)` makes of a span, or its rejection."""
    try:
        if span.error is not None:
            raise span.error
        batch.events.extend(build(*args))
    except RecordError as err:
        raw = jsontext.dumps(
            {"trace_id": span.trace_id, "span_id": span.span_id, "name": span.name},
            option=jsontext.OPT_NON_STR_KEYS,
        ).decode()
        batch.rejected.append(
            Rejection(span.index, err.code, f"span {span.name!r}: {err.message}", raw)
        )


def _tool_events(s: Span, ctx: Context, who: tuple, answered: set, announced=None) -> list[Event]:
    """A tool span's arguments (its own, else those its model turn announced).

    Its result as the response when no HTTP span answered, else as the call's result (what the tool
    handed back to the model)."""
    args_key, result_key = TOOL_KEYS[tool_kind(s)][2:]
    tool, call_id, source = who
    events = []
    # its time holds the HTTP spans whose context was lost (store/rejoin.py)
    tool_span = {"tool_span": True}
    if announced is None and own_call_id(s):
        # an id of its own no turn of this export announced (ADK 2.x's adk-<uuid>): the store joins
        # the announced call of its tool and arguments from another export to it (store/rejoin.py)
        tool_span["unannounced"] = True
    # the MCP SDK's tools/call span carries no arguments
    if args_key in s.attrs or announced is not None:
        arguments = (
            genai.unwrap_arguments(s.attrs[args_key])
            if args_key in s.attrs
            else announced.arguments
        )
        events.append(
            _event(ctx, s, "arguments", arguments, tool, call_id, s.start_ns, None, source)
        )
    if result_key in s.attrs:
        events.append(
            _result_event(s, ctx, who, (s.trace_id, call_id) in answered, s.attrs[result_key])
        )
    for event in events:
        event.meta = {**(event.meta or {}), **tool_span}
    return events


def _result_event(s: Span, ctx: Context, who: tuple, answered: bool, value: Any) -> Event:
    """A tool span's result.

    The call's result when an HTTP span of this export answered it, else standing in for the
    response; as the model got it (a CallToolResult keeps its isError), or as the data it stands in
    for."""
    tool, call_id, source = who
    result, data = genai.tool_result(value), genai.unwrap_result(value)
    stage, payload = ("result", result) if answered else ("response", data)
    event = _event(ctx, s, stage, payload, tool, call_id, s.end_ns, None, source)
    # one id whichever stage: the same span sent again, with or without its HTTP span, is a
    # duplicate
    event.event_id = _event_id(f"{s.trace_id}:{s.span_id}:tool-result")
    # an HTTP span of another export may answer it: then it is the result
    if not answered and result == data:
        event.meta = {**(event.meta or {}), "stands_in": True}
    return event


def _announced_events(turn, call, ctx: Context) -> list[Event]:
    """The arguments of a call a model span announced."""
    m = turn.model
    event = _event(
        ctx, m, "arguments", call.arguments, call.name, call.call_id, m.end_ns, None, turn.provider
    )
    # one per announced call
    event.event_id = _event_id(f"{m.trace_id}:{m.span_id}:{call.call_id}:arguments")
    # the call's place in its turn: HTTP spans of a later export join the turn's calls in order
    # (store/spans.py)
    event.meta = {**(event.meta or {}), "call_index": turn.calls.index(call) + 1}
    return [event]


def _result_events(trace_id: str, call_id: str, result, ctx: Context) -> list[Event]:
    """The result a model request carried back for a call.

    Named by the model's call id (the call may have been announced in an earlier export); later
    requests repeat it, and the event id makes them duplicates."""
    m = result.carrier
    event = _event(ctx, m, "result", result.content, None, call_id, m.start_ns, None, result.source)
    event.event_id = _event_id(f"{trace_id}:result:{call_id}")
    return [event]


def reads_body_alone(s: Span, by_id: dict) -> bool:
    """Tell logfire's `Reading response body` span whose HTTP span is elsewhere.

    Not in its export."""
    return (
        "http.response.body.text" in s.attrs
        and not is_http(s)
        and bool(s.parent_id)
        and (s.trace_id, s.parent_id) not in by_id
    )


def _read_body_events(s: Span, ctx: Context) -> list[Event]:
    """The response a body-reading span read.

    For the store to join to its HTTP span's call."""
    body = s.attrs["http.response.body.text"]
    event = _event(ctx, s, "response", body, None, "", s.end_ns, None)
    event.meta = {**(event.meta or {}), "loose": True}
    return [event]


def _http_events(
    s: Span,
    who: tuple | None,
    trace_tools: list[Span] | None,
    ctx: Context,
    place: dict | None = None,
) -> list[Event]:
    a = s.attrs
    req_body, resp_body = body_of(a, "request"), body_of(a, "response")
    if req_body is None and resp_body is None:
        return []
    if who is None and trace_tools:
        raise RecordError(
            "unattached_span",
            f"HTTP span has a body but no execute_tool ancestor, and its "
            f"trace has {len(trace_tools)} tool spans to choose from",
        )
    tool, call_id, source = who or (None, "", None)
    http = {"method": http_method(s), "url": a.get("url.full") or a.get("http.url")}
    events = []
    # a GET's URL is its request
    status = a.get("http.response.status_code", a.get("http.status_code"))
    status = status if type(status) is int and 100 <= status <= 599 else None
    if req_body is not None or isinstance(http["url"], str) and http["url"]:
        req_http = {**http, "headers": _headers(a, "http.request.header.")}
        # its body read in a child span of another export (logfire): the status goes with the
        # request, the call's status until a response names one
        if resp_body is None and status is not None:
            req_http["status_code"] = status
        events.append(
            _event(ctx, s, "request", req_body, tool, call_id, s.start_ns, req_http, source)
        )
    if resp_body is not None:
        resp_http = {**http, "headers": _headers(a, "http.response.header.")}
        if status is not None:
            resp_http["status_code"] = status
        events.append(
            _event(ctx, s, "response", resp_body, tool, call_id, s.end_ns, resp_http, source)
        )
    # its model turn's calls come in a log record (store/spans.py)
    for event in events if place else ():
        event.meta = {**(event.meta or {}), **place}
    # joined in the store, and joined again there when a span of a later export tells better
    # (store/rejoin.py)
    for event in events if who is None else ():
        event.meta = {**(event.meta or {}), "loose": True}
    return events


def _event(
    ctx: Context,
    s: Span,
    snapshot: str,
    payload: Any,
    tool: str | None,
    call_id: str,
    ns: int,
    http: dict | None,
    source: str | None = None,
) -> Event:
    if http is not None:
        http = {k: v for k, v in http.items() if v}
    meta = {"span_id": s.span_id, "span_name": s.name}
    # lets the store re-home an HTTP span whose tool span came in another export
    if s.parent_id:
        meta["parent_span_id"] = s.parent_id
    if len(s.ancestors) > 1:
        meta["ancestors"] = s.ancestors
    if s.covers:
        meta["covers"] = s.covers
    if s.service:
        meta["service.name"] = s.service
    event_id = _event_id(f"{s.trace_id}:{s.span_id}:{snapshot}")
    # parsed here from text: checked as the envelope would
    if depth_exceeds(payload, ctx.limits.max_depth - 1):
        raise too_deep("the payload", ctx.limits.max_depth)
    return make_event(
        ctx,
        trace_id=s.trace_id,
        call_id=call_id,
        snapshot=snapshot,
        payload=payload,
        tool=tool,
        source=source or source_of(s),
        http=http or None,
        ts=_ns_ts(ns),
        event_id=event_id,
        meta=meta,
        text_by_definition=True,
        release=s.release,
    )


def _event_id(key: str) -> str:
    return hashlib.sha256(f"otlp:{key}".encode()).hexdigest()[:32]


def _ns_ts(ns: int) -> str | None:
    return times.from_ns(ns) if ns > 0 else None


def _headers(attrs: dict, prefix: str) -> dict:
    out = {}
    for k, v in attrs.items():
        if k.startswith(prefix):
            out[k[len(prefix) :]] = ", ".join(map(str, v)) if type(v) is list else str(v)
    return out
