"""OpenTelemetry: tool spans and their HTTP spans become the snapshots.

Their HTTP client spans become the three snapshots."""

import gzip

import orjson
import pytest
from google.protobuf.json_format import MessageToDict
from helpers import envelope, ndjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from webapp.ingest import IngestError, Limits, otlp_response, parse_otlp

TRACE = bytes.fromhex("4BF92F3577B34DA6A3CE929D0E0E4736")
# 2025-08-20T09:00:00Z in unix nanos
T0 = 1_755_680_400_000_000_000


def any_value(v):
    if isinstance(v, bool):
        return AnyValue(bool_value=v)
    if isinstance(v, int):
        return AnyValue(int_value=v)
    if isinstance(v, float):
        return AnyValue(double_value=v)
    if isinstance(v, dict):
        return AnyValue(
            kvlist_value={"values": [KeyValue(key=k, value=any_value(x)) for k, x in v.items()]}
        )
    if isinstance(v, list):
        return AnyValue(array_value={"values": [any_value(x) for x in v]})
    return AnyValue(string_value=v)


def span(
    span_id,
    name,
    attrs,
    parent=b"",
    kind=Span.SPAN_KIND_INTERNAL,
    trace=TRACE,
    start=T0,
    end=T0 + 5_000_000,
):
    return Span(
        trace_id=trace,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=kind,
        start_time_unix_nano=start,
        end_time_unix_nano=end,
        attributes=[KeyValue(key=k, value=any_value(v)) for k, v in attrs.items()],
    )


def export(*spans):
    req = ExportTraceServiceRequest()
    rs = req.resource_spans.add()
    rs.resource.attributes.append(KeyValue(key="service.name", value=any_value("order-agent")))
    rs.scope_spans.add().spans.extend(spans)
    return req


TOOL = span(
    b"\x01" * 8,
    "execute_tool findOrders",
    {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "findOrders",
        "gen_ai.tool.call.id": "call_01",
        "gen_ai.tool.call.arguments": '{"customerEmail": "a@b.co", "limit": 5}',
        "gen_ai.tool.call.result": '{"from": "tool span"}',
    },
)
HTTP = span(
    b"\x02" * 8,
    "POST",
    {
        "http.request.method": "POST",
        "url.full": "https://api.example.com/orders/search",
        "http.request.body.content": '{"customer_email": "a@b.co", "limit": "5"}',
        "http.response.body.content": '{"orders": []}',
        "http.response.status_code": 200,
        "http.request.header.content-type": ["application/json"],
    },
    parent=b"\x01" * 8,
    kind=Span.SPAN_KIND_CLIENT,
    start=T0 + 1_000_000,
    end=T0 + 4_000_123,
)


def snapshots(batch):
    return {e.snapshot: e for e in batch.events}


def test_an_execute_tool_span_with_its_http_client_span_gives_all_three_snapshots_and_the_result():
    batch = parse_otlp(
        export(TOOL, HTTP).SerializeToString(), content_type="application/x-protobuf"
    )
    assert batch.rejected == []
    snaps = snapshots(batch)
    assert set(snaps) == {"arguments", "request", "response", "result"}
    # gen_ai.tool.call.result: what the model got
    assert snaps["result"].payload == {"from": "tool span"}
    for ev in snaps.values():
        assert (ev.trace_id, ev.call_id, ev.tool) == (
            "4bf92f3577b34da6a3ce929d0e0e4736",
            "call_01",
            "findOrders",
        )
    assert snaps["arguments"].payload == {"customerEmail": "a@b.co", "limit": 5}
    assert snaps["request"].payload == {"customer_email": "a@b.co", "limit": "5"}
    # the HTTP body wins over gen_ai.tool.call.result
    assert snaps["response"].payload == {"orders": []}
    assert snaps["request"].http == {
        "method": "POST",
        "url": "https://api.example.com/orders/search",
        "headers": {"content-type": "application/json"},
    }
    assert snaps["response"].http["status_code"] == 200
    assert snaps["arguments"].ts == "2025-08-20T09:00:00.000000Z"
    # nanoseconds cut to microseconds
    assert snaps["response"].ts == "2025-08-20T09:00:00.004000Z"
    assert snaps["arguments"].meta["service.name"] == "order-agent"


def test_the_tool_result_is_the_response_when_no_http_span_carries_one():
    batch = parse_otlp(export(TOOL).SerializeToString(), content_type="application/x-protobuf")
    assert snapshots(batch)["response"].payload == {"from": "tool span"}
    assert set(snapshots(batch)) == {"arguments", "response"}


def test_structured_attribute_values_are_taken_as_they_are():
    tool = span(
        b"\x01" * 8,
        "execute_tool",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "f",
            "gen_ai.tool.call.arguments": {"limit": 5, "tags": ["a", True]},
        },
    )
    [ev] = parse_otlp(
        export(tool).SerializeToString(), content_type="application/x-protobuf"
    ).events
    assert ev.payload == {"limit": 5, "tags": ["a", True]} and ev.logged_as_string is False


def test_an_http_span_without_a_tool_ancestor_belongs_to_the_only_tool_span_of_the_trace():
    orphan = span(
        b"\x03" * 8,
        "POST",
        {"http.request.method": "POST", "http.request.body.content": "{}"},
        parent=b"\x09" * 8,
        kind=Span.SPAN_KIND_CLIENT,
    )
    batch = parse_otlp(
        export(TOOL, orphan).SerializeToString(), content_type="application/x-protobuf"
    )
    assert snapshots(batch)["request"].call_id == "call_01"


def test_an_http_span_with_two_candidate_tool_spans_and_no_ancestor_is_rejected():
    other = span(b"\x04" * 8, "execute_tool other", {"gen_ai.tool.call.id": "call_02"})
    orphan = span(
        b"\x03" * 8,
        "POST",
        {"http.request.method": "POST", "http.request.body.content": "{}"},
        kind=Span.SPAN_KIND_CLIENT,
    )
    batch = parse_otlp(
        export(TOOL, other, orphan).SerializeToString(), content_type="application/x-protobuf"
    )
    assert [(r.index, r.code) for r in batch.rejected] == [(2, "unattached_span")]


def test_the_nearest_tool_ancestor_wins_through_intermediate_spans():
    tool2 = span(
        b"\x05" * 8,
        "execute_tool getInvoice",
        {"gen_ai.tool.name": "getInvoice", "gen_ai.tool.call.id": "call_02"},
    )
    middle = span(b"\x06" * 8, "retry", {}, parent=b"\x05" * 8)
    http = span(
        b"\x07" * 8,
        "GET",
        {
            "http.request.method": "GET",
            "http.response.body.content": '{"id": 1}',
            "http.response.status_code": 404,
        },
        parent=b"\x06" * 8,
        kind=Span.SPAN_KIND_CLIENT,
    )
    batch = parse_otlp(
        export(TOOL, tool2, middle, http).SerializeToString(), content_type="application/x-protobuf"
    )
    resp = [e for e in batch.events if e.snapshot == "response" and e.call_id == "call_02"]
    assert [(e.tool, e.payload, e.http["status_code"]) for e in resp] == [
        ("getInvoice", {"id": 1}, 404)
    ]


def test_tracediff_source_on_the_tool_span_marks_its_http_snapshots_too():
    tool = span(
        b"\x01" * 8,
        "execute_tool findOrders",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "findOrders",
            "gen_ai.tool.call.id": "call_01",
            "gen_ai.tool.call.arguments": '{"limit": 5}',
            "tracediff.source": "openai",
        },
    )
    batch = parse_otlp(
        export(tool, HTTP).SerializeToString(), content_type="application/x-protobuf"
    )
    assert {e.snapshot: e.source for e in batch.events} == {
        "arguments": "openai",
        "request": "openai",
        "response": "openai",
    }
    unmarked = parse_otlp(
        export(TOOL, HTTP).SerializeToString(), content_type="application/x-protobuf"
    )
    assert {e.source for e in unmarked.events} == {None}


def test_openinference_and_openllmetry_tool_spans_are_fallbacks():
    oi = span(
        b"\x01" * 8,
        "findOrders",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "findOrders",
            "input.value": '{"limit": 5}',
            "output.value": '{"orders": []}',
        },
    )
    ll = span(
        b"\x02" * 8,
        "getInvoice.tool",
        {
            "traceloop.span.kind": "tool",
            "traceloop.entity.name": "getInvoice",
            "traceloop.entity.input": '{"args": [], "kwargs": {"id": 1}}',
            "traceloop.entity.output": '{"total": 3}',
        },
        trace=b"\x11" * 16,
    )
    batch = parse_otlp(export(oi, ll).SerializeToString(), content_type="application/x-protobuf")
    got = sorted((e.tool, e.snapshot, orjson.dumps(e.payload).decode()) for e in batch.events)
    assert got == [
        ("findOrders", "arguments", '{"limit":5}'),
        ("findOrders", "response", '{"orders":[]}'),
        # traceloop's {"args": [], "kwargs": ...} unwrapped
        ("getInvoice", "arguments", '{"id":1}'),
        ("getInvoice", "response", '{"total":3}'),
    ]


def test_spans_that_carry_nothing_for_us_are_ignored_not_rejected():
    chat = span(b"\x08" * 8, "chat gpt-4o", {"gen_ai.operation.name": "chat"})
    health = span(b"\x09" * 8, "GET", {"http.request.method": "GET"}, kind=Span.SPAN_KIND_CLIENT)
    batch = parse_otlp(
        export(chat, health).SerializeToString(), content_type="application/x-protobuf"
    )
    assert batch.events == [] and batch.rejected == []


def test_event_ids_derive_from_trace_span_and_snapshot_so_a_resent_export_is_a_duplicate():
    body = export(TOOL, HTTP).SerializeToString()
    first = parse_otlp(body, content_type="application/x-protobuf")
    again = parse_otlp(body, content_type="application/x-protobuf")
    assert [e.event_id for e in first.events] == [e.event_id for e in again.events]
    assert len({e.event_id for e in first.events}) == 4


def test_gzip_protobuf_as_the_collector_sends_it():
    body = gzip.compress(export(TOOL, HTTP).SerializeToString())
    batch = parse_otlp(body, content_type="application/x-protobuf", content_encoding="gzip")
    assert len(batch.events) == 4


def otlp_json(req):
    """Encode as OTLP/JSON: like protobuf JSON but ids as hex and enums as integers."""
    doc = MessageToDict(req, use_integers_for_enums=True)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in s:
                        s[key] = __import__("base64").b64decode(s[key]).hex().upper()
    return doc


def test_otlp_json_gives_the_same_events_as_protobuf():
    req = export(TOOL, HTTP)
    from_pb = parse_otlp(req.SerializeToString(), content_type="application/x-protobuf")
    from_json = parse_otlp(orjson.dumps(otlp_json(req)), content_type="application/json")
    assert [(e.event_id, e.payload, e.http, e.ts) for e in from_json.events] == [
        (e.event_id, e.payload, e.http, e.ts) for e in from_pb.events
    ]


def test_otlp_json_ids_in_base64_from_a_generic_encoder_are_understood():
    # base64 ids, enum names, int64 as strings
    doc = MessageToDict(export(TOOL))
    batch = parse_otlp(orjson.dumps(doc), content_type="application/json")
    assert {e.trace_id for e in batch.events} == {"4bf92f3577b34da6a3ce929d0e0e4736"}


def test_the_format_is_sniffed_when_the_content_type_says_nothing():
    assert len(parse_otlp(orjson.dumps(otlp_json(export(TOOL))), content_type=None).events) == 2
    assert len(parse_otlp(export(TOOL).SerializeToString(), content_type="text/plain").events) == 2


def test_an_empty_protobuf_export_is_an_empty_batch():
    batch = parse_otlp(b"", content_type="application/x-protobuf")
    assert batch.events == [] and batch.rejected == []


@pytest.mark.parametrize(
    "body,ctype",
    [
        (b"{not json", "application/json"),
        (b"", "application/json"),
        (b"\xff\xff\xff\xff", "application/x-protobuf"),
        (b"[1]", "application/json"),
    ],
)
def test_an_unreadable_export_is_refused_with_422(body, ctype):
    with pytest.raises(IngestError) as info:
        parse_otlp(body, content_type=ctype)
    assert (info.value.status, info.value.code) == (422, "unparseable")


def test_an_attribute_nested_too_deep_rejects_its_span():
    deep = {"x": 1}
    for _ in range(20):
        deep = {"x": deep}
    tool = span(b"\x01" * 8, "execute_tool", {"gen_ai.tool.call.arguments": deep})
    fine = span(b"\x02" * 8, "execute_tool", {"gen_ai.tool.call.arguments": {"x": {"y": 1}}})
    batch = parse_otlp(
        export(tool, fine).SerializeToString(),
        content_type="application/x-protobuf",
        limits=Limits(max_depth=10),
    )
    assert [(r.index, r.code) for r in batch.rejected] == [(0, "too_deep")]
    assert [e.payload for e in batch.events] == [{"x": {"y": 1}}]


def nested(levels: int, leaf):
    """An AnyValue of `levels` key-value lists around leaf, built without the runtime's depth limit."""
    value = any_value(leaf)
    for _ in range(levels):
        outer = AnyValue()
        outer.kvlist_value.values.add(key="x").value.CopyFrom(value)
        value = outer
    return value


def deep_export(levels: int, leaf, *others):
    """An export of a span whose arguments nest `levels` deep, then the others."""
    req = export()
    spans = req.resource_spans[0].scope_spans[0].spans
    deep = spans.add()
    deep.CopyFrom(span(b"\x01" * 8, "execute_tool", {}))
    deep.attributes.add(key="gen_ai.tool.call.arguments").value.CopyFrom(nested(levels, leaf))
    deep.events.add(name="e").attributes.add(key="k").value.CopyFrom(nested(levels, 1))
    for other in others:
        spans.add().CopyFrom(other)
    return req


@pytest.mark.parametrize("levels", [31, 40, 62, 63, 150, 2000])
def test_a_span_nested_past_the_protobuf_runtimes_depth_is_read_as_its_json_twin(levels):
    # the runtime refuses past 100 message levels, three a key-value list level: such an export
    # is read span by span, to the event's own limit, the spans beside the deep one kept
    fine = span(b"\x02" * 8, "execute_tool", {"gen_ai.tool.call.arguments": {"x": {"y": True}}})
    req = deep_export(levels, [-5, 2.5], fine)
    from_pb = parse_otlp(req.SerializeToString(), content_type="application/x-protobuf")
    assert {e.payload == {"x": {"y": True}} for e in from_pb.events} >= {True}
    # (protobuf's own JSON encoder, which writes the JSON twin, stops short of 60 levels)
    if levels <= 40:
        from_json = parse_otlp(orjson.dumps(otlp_json(req)), content_type="application/json")
        assert [(e.event_id, e.payload) for e in from_pb.events] == [
            (e.event_id, e.payload) for e in from_json.events
        ]
        assert [(r.index, r.code) for r in from_pb.rejected] == [
            (r.index, r.code) for r in from_json.rejected
        ]
    # the event is level 1 and its payload level 2: 63 levels inside the payload fit in 64
    assert [r.code for r in from_pb.rejected] == ([] if levels <= 62 else ["too_deep"])


def test_a_protobuf_export_with_one_span_too_deep_stores_the_others(client):
    fine = span(b"\x02" * 8, "execute_tool", {"gen_ai.tool.call.arguments": {"limit": 5}})
    answer = client.post(
        "/v1/traces",
        data=deep_export(150, 1, fine).SerializeToString(),
        content_type="application/x-protobuf",
    )
    assert answer.status_code == 200, answer.get_data()
    partial = ExportTraceServiceResponse.FromString(answer.get_data()).partial_success
    assert partial.rejected_spans == 1 and "nests deeper than 64" in partial.error_message
    calls = client.get(f"/api/v1/traces/{TRACE.hex()}").get_json()["calls"]
    assert [c["snapshots"]["arguments"]["payload"] for c in calls] == [{"limit": 5}]


def test_the_partial_success_response_matches_the_request_encoding():
    body, mime = otlp_response(2, "2 spans rejected: bad_trace_id", "application/x-protobuf")
    resp = ExportTraceServiceResponse.FromString(body)
    assert mime == "application/x-protobuf"
    assert (resp.partial_success.rejected_spans, resp.partial_success.error_message) == (
        2,
        "2 spans rejected: bad_trace_id",
    )
    body, mime = otlp_response(1, "bad", "application/json; charset=utf-8")
    assert mime == "application/json"
    assert orjson.loads(body) == {"partialSuccess": {"rejectedSpans": "1", "errorMessage": "bad"}}
    assert otlp_response(0, "", "application/json") == (b"{}", "application/json")


def test_a_real_sdk_export_is_understood():
    """Encode spans with the OpenTelemetry SDK's own OTLP encoder, as OTLPSpanExporter sends
    them."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import SpanKind

    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span(
        "execute_tool findOrders",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "findOrders",
            "gen_ai.tool.call.id": "call_sdk",
            "gen_ai.tool.call.arguments": '{"limit": 5}',
        },
    ) as tool:
        with tracer.start_as_current_span(
            "POST",
            kind=SpanKind.CLIENT,
            attributes={
                "http.request.method": "POST",
                "http.request.body.content": '{"limit": "5"}',
                "http.response.body.content": '{"orders": []}',
                "http.response.status_code": 200,
            },
        ):
            pass
    trace_id = format(tool.get_span_context().trace_id, "032x")
    body = encode_spans(memory.get_finished_spans()).SerializeToString()
    batch = parse_otlp(body, content_type="application/x-protobuf")
    assert {(e.snapshot, e.trace_id, e.call_id) for e in batch.events} == {
        ("arguments", trace_id, "call_sdk"),
        ("request", trace_id, "call_sdk"),
        ("response", trace_id, "call_sdk"),
    }


@pytest.mark.slow
def export_tool_call(url: str, processor, call_id: str) -> str:
    """Send a tool span and its HTTP client span through the SDK's OTLP/HTTP exporter; return the
    trace id."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import SpanKind

    provider = TracerProvider()
    provider.add_span_processor(processor(OTLPSpanExporter(endpoint=f"{url}/v1/traces")))
    tracer = provider.get_tracer("tracediff-test")
    with tracer.start_as_current_span(
        "execute_tool findOrders",
        attributes={
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "findOrders",
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.call.arguments": '{"limit": 5}',
        },
    ) as tool:
        with tracer.start_as_current_span(
            "POST",
            kind=SpanKind.CLIENT,
            attributes={
                "http.request.method": "POST",
                "url.full": "https://api.example.com/orders",
                "http.request.body.content": '{"limit": "5"}',
                "http.response.body.content": '{"orders": []}',
                "http.response.status_code": 200,
            },
        ):
            pass
    provider.shutdown()
    return format(tool.get_span_context().trace_id, "032x")


@pytest.mark.slow
def test_spans_sent_by_the_sdk_otlp_http_exporter_reach_a_running_server(live_server):
    import httpx
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # The batch processor (the production default) exports both spans together.
    trace_id = export_tool_call(live_server.url, BatchSpanProcessor, "call_live")
    trace = httpx.get(f"{live_server.url}/api/v1/traces/{trace_id}", timeout=10).json()
    [call] = trace["calls"]
    assert call["call_id"] == "call_live" and call["tool"] == "findOrders"
    snaps = call["snapshots"]
    assert snaps["arguments"]["payload"] == {"limit": 5}
    assert snaps["request"]["payload"] == {"limit": "5"}
    assert snaps["response"]["payload"] == {"orders": []}
    assert snaps["response"]["http"]["status_code"] == 200
    page = httpx.get(f"{live_server.url}/traces/{trace_id}", timeout=10)
    assert page.status_code == 200 and "call_live" in page.text


@pytest.mark.slow
def test_an_http_span_exported_before_its_tool_span_joins_the_tool_call(live_server):
    """SimpleSpanProcessor exports each span as it ends: the HTTP span comes first, alone."""
    import httpx
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    trace_id = export_tool_call(live_server.url, SimpleSpanProcessor, "call_simple")
    trace = httpx.get(f"{live_server.url}/api/v1/traces/{trace_id}", timeout=10).json()
    [call] = trace["calls"]
    assert call["call_id"] == "call_simple" and call["tool"] == "findOrders"
    assert call["snapshots"]["request"]["payload"] == {"limit": "5"}
    assert call["snapshots"]["response"]["http"]["status_code"] == 200
    assert any(
        f["kind"] == "type_changed" and f["right"]["path"] == "/limit" for f in call["findings"]
    )


def json_tool_span(start, arguments_value):
    return orjson.dumps(
        {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "eeee0000000000000000000000000005",
                                    "spanId": "00000000000000c1",
                                    "name": "execute_tool q",
                                    "startTimeUnixNano": start,
                                    "endTimeUnixNano": start,
                                    "attributes": [
                                        {"key": "gen_ai.tool.name", "value": {"stringValue": "q"}},
                                        {
                                            "key": "gen_ai.tool.call.arguments",
                                            "value": arguments_value,
                                        },
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    )


@pytest.mark.parametrize("start", ["99999999999999999999999999", 1e30, "\u0663", "-5", "abc"])
def test_a_span_time_out_of_range_or_not_ascii_digits_is_stored_at_its_receive_time(client, start):
    answer = client.post(
        "/v1/traces",
        data=json_tool_span(start, {"stringValue": '{"limit": 5}'}),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    call = client.get("/api/v1/traces/eeee0000000000000000000000000005").get_json()["calls"][0]
    assert call["snapshots"]["arguments"]["payload"] == {"limit": 5}
    assert not call["snapshots"]["arguments"]["ts"].startswith("1970")


@pytest.mark.parametrize("number", ["18446744073709551616", "\u0663", "abc"])
def test_an_int_value_that_is_no_int64_keeps_its_text_instead_of_failing_or_becoming_zero(
    client, number
):
    arguments = {"kvlistValue": {"values": [{"key": "v", "value": {"intValue": number}}]}}
    answer = client.post(
        "/v1/traces",
        data=json_tool_span("1764756000000000000", arguments),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    call = client.get("/api/v1/traces/eeee0000000000000000000000000005").get_json()["calls"][0]
    assert call["snapshots"]["arguments"]["payload"] == {"v": number}


@pytest.mark.parametrize(
    "doc, field",
    [
        ({"resourceSpans": 5}, "resourceSpans"),
        ({"resourceSpans": [{"scopeSpans": "x"}]}, "scopeSpans"),
        ({"resourceSpans": [{"scopeSpans": [{"spans": {"name": "x"}}]}]}, "spans"),
    ],
)
def test_a_repeated_field_that_is_not_a_list_is_refused_with_422_naming_it(client, doc, field):
    answer = client.post("/v1/traces", data=orjson.dumps(doc), content_type="application/json")
    assert answer.status_code == 422
    assert (
        answer.get_json()["error"]["code"] == "unparseable"
        and field in answer.get_json()["error"]["message"]
    )


def test_a_null_repeated_field_is_an_empty_one():
    assert parse_otlp(b'{"resourceSpans": null}', content_type="application/json").events == []


@pytest.mark.parametrize(
    "ids, code",
    [
        ({"traceId": "zz"}, "bad_trace_id"),
        # 30 digits
        ({"traceId": "eeee00000000000000000000000000"}, "bad_trace_id"),
        ({"spanId": "not-hex!"}, "bad_span_id"),
        ({"parentSpanId": "0123"}, "bad_span_id"),
    ],
)
def test_a_span_whose_ids_are_neither_hex_nor_base64_is_rejected_alone(client, ids, code):
    bad = orjson.loads(json_tool_span("1764756000000000000", {"stringValue": '{"limit": 5}'}))
    good_span = bad["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    bad_span = {**good_span, "spanId": "00000000000000c2", **ids}
    bad["resourceSpans"][0]["scopeSpans"][0]["spans"].append(bad_span)
    answer = client.post("/v1/traces", data=orjson.dumps(bad), content_type="application/json")
    assert answer.status_code == 200
    partial = answer.get_json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1" and "hex digits" in partial["errorMessage"]
    assert parse_otlp(orjson.dumps(bad), content_type="application/json").rejected[0].code == code
    assert (
        client.get("/api/v1/traces/eeee0000000000000000000000000005").get_json()["calls"][0]["tool"]
        == "q"
    )


@pytest.mark.parametrize("sent", ["Infinity", "-Infinity", "NaN"])
def test_a_double_that_json_cannot_hold_keeps_the_text_proto3_sends_it_as(client, sent):
    arguments = {"kvlistValue": {"values": [{"key": "v", "value": {"doubleValue": sent}}]}}
    answer = client.post(
        "/v1/traces",
        data=json_tool_span("1764756000000000000", arguments),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)
    call = client.get("/api/v1/traces/eeee0000000000000000000000000005").get_json()["calls"][0]
    assert call["snapshots"]["arguments"]["payload"] == {"v": sent}


def test_a_protobuf_double_that_json_cannot_hold_keeps_its_proto3_text():
    attrs = {
        "gen_ai.tool.name": "q",
        "gen_ai.tool.call.arguments": {"v": float("inf"), "w": float("nan")},
    }
    batch = parse_otlp(
        export(span(b"\x01" * 8, "execute_tool q", attrs)).SerializeToString(), content_type=""
    )
    assert snapshots(batch)["arguments"].payload == {"v": "Infinity", "w": "NaN"}


MCP_FAILED = {"content": [{"type": "text", "text": "Sorry, failed"}], "isError": True}
MCP_STRUCTURED = {
    "content": [{"type": "text", "text": '{"orders": []}'}],
    "structuredContent": {"orders": []},
    "isError": True,
}


def mcp_tool_call(trace: bytes, result, wrapped: bool) -> ExportTraceServiceRequest:
    """A tool span whose gen_ai.tool.call.result is an MCP CallToolResult, over a successful HTTP
    span."""
    told = orjson.dumps({"result": orjson.dumps(result).decode()} if wrapped else result).decode()
    tool = span(
        b"\x01" * 8,
        "execute_tool findOrders",
        {**TOOL_ATTRS, "gen_ai.tool.call.result": told},
        trace=trace,
    )
    http = span(
        b"\x02" * 8, "POST", HTTP_ATTRS, parent=b"\x01" * 8, kind=Span.SPAN_KIND_CLIENT, trace=trace
    )
    return export(tool, http)


TOOL_ATTRS = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "findOrders",
    "gen_ai.tool.call.id": "c1",
}
HTTP_ATTRS = {
    "http.request.method": "POST",
    "url.full": "https://api.example.com/orders/search",
    "http.request.body.content": '{"limit": 5}',
    "http.response.body.content": '{"orders": []}',
    "http.response.status_code": 200,
}


def way_back_findings(client, trace_id: str) -> tuple[list, dict]:
    [call] = client.get(f"/api/v1/traces/{trace_id}").get_json()["calls"]
    kinds = sorted(
        (f["kind"], f["severity"]) for f in call["findings"] if f["kind"].startswith("error_")
    )
    return kinds, call["snapshots"]["result"]["payload"]


@pytest.mark.parametrize("result", [MCP_FAILED, MCP_STRUCTURED], ids=["text", "structured"])
@pytest.mark.parametrize("wrapped", [False, True], ids=["bare", "in-result-wrapper"])
def test_an_mcp_result_over_otlp_keeps_its_is_error_as_native_ingest_does(client, result, wrapped):
    native = "ab" * 16
    calls = [
        envelope("arguments", {"limit": 5}, native, ts="2026-11-20T09:00:00Z"),
        envelope(
            "request", {"limit": 5}, native, ts="2026-11-20T09:00:01Z", http={"method": "POST"}
        ),
        envelope(
            "response", {"orders": []}, native, ts="2026-11-20T09:00:02Z", http={"status_code": 200}
        ),
        envelope("result", result, native, ts="2026-11-20T09:00:03Z"),
    ]
    assert client.post("/api/v1/ingest", data=ndjson(*calls)).status_code == 200
    pb, js = bytes.fromhex("cd" * 16), bytes.fromhex("ef" * 16)
    sent = client.post(
        "/v1/traces",
        data=mcp_tool_call(pb, result, wrapped).SerializeToString(),
        content_type="application/x-protobuf",
    )
    assert sent.status_code == 200
    body = orjson.dumps(otlp_json(mcp_tool_call(js, result, wrapped)))
    assert client.post("/v1/traces", data=body, content_type="application/json").status_code == 200
    expected = ([("error_invented", "error")], result)
    assert way_back_findings(client, native) == expected
    assert way_back_findings(client, pb.hex()) == expected
    assert way_back_findings(client, js.hex()) == expected


def scoped(scope: str, *spans):
    req = export()
    ss = req.resource_spans[0].scope_spans[0]
    ss.scope.name = scope
    ss.spans.extend(spans)
    return req


@pytest.mark.parametrize(
    "scope,source",
    [
        ("openinference.instrumentation.openai_agents", "openai-agents"),
        ("pydantic-ai", "pydantic-ai"),
        ("gcp.vertex.agent", "google-adk"),
        ("openinference.instrumentation.smolagents", "smolagents"),
        # the plain SDK's instrumentation: no framework
        ("openinference.instrumentation.openai", None),
    ],
)
def test_a_framework_call_is_named_by_the_framework_its_scope_names_not_by_the_model_provider(
    scope, source
):
    for body, ctype in (
        (scoped(scope, TOOL, HTTP).SerializeToString(), "application/x-protobuf"),
        (orjson.dumps(MessageToDict(scoped(scope, TOOL, HTTP))), "application/json"),
    ):
        events = parse_otlp(body, content_type=ctype).events
        assert {e.snapshot: e.source for e in events} == dict.fromkeys(
            ("arguments", "request", "response", "result"), source
        )


def test_smolagents_call_wrapper_is_unwrapped_so_only_the_planted_bug_is_found(client):
    wrapped = {
        "args": [],
        "sanitize_inputs_outputs": True,
        "kwargs": {"customerEmail": "a@b.co", "limit": 5},
    }
    tool = span(
        b"\x01" * 8,
        "FindOrdersTool",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "find_orders",
            "input.value": orjson.dumps(wrapped).decode(),
            "output.value": '{"orders": []}',
        },
    )
    body = scoped("openinference.instrumentation.smolagents", tool, HTTP).SerializeToString()
    assert (
        client.post("/v1/traces", data=body, content_type="application/x-protobuf").status_code
        == 200
    )
    [call] = client.get(f"/api/v1/traces/{TRACE.hex()}").get_json()["calls"]
    assert call["snapshots"]["arguments"]["payload"] == {"customerEmail": "a@b.co", "limit": 5}
    assert call["source"] == "smolagents" and call["complete"]
    loud = [
        (f["kind"], f["left"]["path"])
        for f in call["findings"]
        if f["severity"] in ("warning", "error")
    ]
    assert loud == [("type_changed", "/limit")]


def test_a_response_field_the_otlp_result_left_out_hints_the_way_back_command(client):
    trace = bytes.fromhex("cd" * 16)
    tool = span(
        b"\x01" * 8,
        "execute_tool bookTable2",
        {
            **TOOL_ATTRS,
            "gen_ai.tool.name": "bookTable2",
            "gen_ai.tool.call.arguments": '{"seats": 4}',
            "gen_ai.tool.call.result": '{"ok": true}',
        },
        trace=trace,
    )
    http = {
        **HTTP_ATTRS,
        "http.request.body.content": '{"seats": 4}',
        "http.response.body.content": '{"id": "b_1", "guests": 4}',
        "http.response.status_code": 201,
    }
    posted = client.post(
        "/v1/traces",
        data=export(
            tool, span(b"\x02" * 8, "POST", http, b"\x01" * 8, Span.SPAN_KIND_CLIENT, trace)
        ).SerializeToString(),
        content_type="application/x-protobuf",
    )
    assert posted.status_code == 200
    [call] = client.get(f"/api/v1/traces/{'cd' * 16}").get_json()["calls"]
    [dropped] = [f for f in call["findings"] if f["message"].startswith("guests dropped")]
    assert dropped["message"].endswith(
        "declare the pair: tracediff tools map bookTable2 --result guests=ok"
    )
