"""GenAI instrumentations.

Tool calls announced by model spans, wrappers, and calls spread over exports."""

import orjson
import pytest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from test_ingest_otlp import T0, export, span

from webapp.ingest import genai, parse_otlp

ROOT = b"\x0a" * 8
CLIENT = Span.SPAN_KIND_CLIENT


def model_span(span_id, start, calls, **attrs):
    parts = [
        {"type": "tool_call", "id": cid, "name": "find_orders", "arguments": args}
        for cid, args in calls
    ]
    messages = [{"role": "assistant", "parts": parts}]
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", **attrs}
    if calls:
        attributes["gen_ai.output.messages"] = orjson.dumps(messages).decode()
    return span(
        span_id,
        "chat gpt-4.1-mini",
        attributes,
        parent=ROOT,
        kind=CLIENT,
        start=start,
        end=start + 10,
    )


def http_span(span_id, start, body, parent=ROOT):
    attrs = {"http.request.method": "POST", "url.full": "http://api/orders/search",
             "http.request.body.content": body, "http.response.body.content": '{"total": 1}'}  # fmt: skip
    return span(span_id, "POST", attrs, parent=parent, kind=CLIENT, start=start, end=start + 5)


def post(client, *spans):
    response = client.post(
        "/v1/traces", data=export(*spans).SerializeToString(), content_type="application/x-protobuf"
    )
    assert response.status_code == 200


def calls_of(client):
    trace = client.get("/api/v1/traces/4bf92f3577b34da6a3ce929d0e0e4736").get_json()
    return {c["call_id"]: c for c in trace["calls"]}


def test_two_calls_in_one_turn_pair_with_the_turns_http_spans_in_order(client):
    calls = [
        ("call_a", {"status": "paid", "limit": 5}),
        ("call_b", {"status": "refunded", "limit": 5}),
    ]
    post(
        client,
        model_span(b"\x01" * 8, T0, calls),
        http_span(b"\x02" * 8, T0 + 100, '{"status": "paid", "limit": "5"}'),
        http_span(b"\x03" * 8, T0 + 200, '{"status": "refunded", "limit": "5"}'),
        model_span(b"\x04" * 8, T0 + 300, []),
        # the next model span closed the turn
        http_span(b"\x05" * 8, T0 + 400, '{"after": "the turn"}'),
    )
    got = calls_of(client)
    assert got["call_a"]["snapshots"]["request"]["payload"] == {"status": "paid", "limit": "5"}
    assert got["call_b"]["snapshots"]["request"]["payload"] == {"status": "refunded", "limit": "5"}
    assert {got[c]["tool"] for c in ("call_a", "call_b")} == {"find_orders"}
    assert got[""]["snapshots"]["request"]["payload"] == {"after": "the turn"}


def test_the_model_turn_and_its_http_spans_in_separate_exports_still_pair(client):
    calls = [
        ("call_a", {"status": "paid", "limit": 5}),
        ("call_b", {"status": "refunded", "limit": 5}),
    ]
    post(client, model_span(b"\x01" * 8, T0, calls))
    post(client, http_span(b"\x02" * 8, T0 + 100, '{"status": "paid", "limit": "5"}'))
    post(client, http_span(b"\x03" * 8, T0 + 200, '{"status": "refunded", "limit": "5"}'))
    got = calls_of(client)
    assert set(got) == {"call_a", "call_b"}
    assert got["call_b"]["snapshots"]["request"]["payload"] == {"status": "refunded", "limit": "5"}
    assert got["call_b"]["tool"] == "find_orders"


def test_a_tool_span_and_its_http_child_in_separate_exports_make_one_call(client):
    tool = span(
        b"\x06" * 8,
        "execute_tool find_orders",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "find_orders",
            "gen_ai.tool.call.arguments": '{"limit": 5}',
        },  # fmt: skip
        parent=ROOT,
        start=T0,
        end=T0 + 1000,
    )
    post(client, tool)
    post(client, http_span(b"\x07" * 8, T0 + 10, '{"limit": "5"}', parent=b"\x06" * 8))
    [call] = calls_of(client).values()
    # no gen_ai.tool.call.id: the span id names the call
    assert call["call_id"] == "06" * 8
    assert call["tool"] == "find_orders"
    assert set(call["snapshots"]) == {"arguments", "request", "response"}


def test_two_tool_spans_without_call_ids_never_collapse():
    tools = [
        span(
            bytes([n]) * 8,
            "execute_tool find_orders",
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "find_orders",
                "gen_ai.tool.call.arguments": f'{{"n": {n}}}',
            },
        )  # fmt: skip
        for n in (1, 2)
    ]
    batch = parse_otlp(export(*tools).SerializeToString(), content_type="application/x-protobuf")
    assert sorted(e.call_id for e in batch.events) == ["01" * 8, "02" * 8]


def test_an_http_span_inside_a_model_span_is_the_model_request_not_a_tool_call():
    model = model_span(b"\x01" * 8, T0, [("call_a", {"limit": 5})])
    sdk_request = http_span(b"\x02" * 8, T0 + 1, '{"model": "gpt"}', parent=b"\x01" * 8)
    batch = parse_otlp(
        export(model, sdk_request).SerializeToString(), content_type="application/x-protobuf"
    )
    assert [(e.snapshot, e.call_id) for e in batch.events] == [("arguments", "call_a")]


def test_openlit_joins_several_calls_with_commas_and_may_write_python_literals():
    calls = genai.announced_calls(
        {
            "gen_ai.tool.name": "find_orders, get_invoice",
            "gen_ai.tool.call.id": "call_1, call_2",
            "gen_ai.tool.args": "{'status': 'paid', 'note': 'a, b'}, {\"id\": 7}",
        }
    )
    assert calls == [
        genai.ToolCall("call_1", "find_orders", {"status": "paid", "note": "a, b"}),
        genai.ToolCall("call_2", "get_invoice", {"id": 7}),
    ]


def test_openinference_flattened_tool_calls_and_results_are_read():
    attrs = {
        "llm.output_messages.0.message.tool_calls.1.tool_call.id": "c2",
        "llm.output_messages.0.message.tool_calls.1.tool_call.function.name": "b",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "c1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "a",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"x": 1}',
        "llm.input_messages.2.message.role": "tool",
        "llm.input_messages.2.message.tool_call_id": "c0",
        "llm.input_messages.2.message.content": '{"ok": true}',
    }
    assert genai.announced_calls(attrs) == [
        genai.ToolCall("c1", "a", {"x": 1}),
        genai.ToolCall("c2", "b", None),
    ]
    assert genai.tool_results(attrs) == [genai.ToolResult("c0", {"ok": True})]


def test_wrappers_are_unwrapped():
    assert genai.unwrap_arguments('{"args": [], "kwargs": {"limit": 5}}') == {"limit": 5}
    assert genai.unwrap_arguments({"tool_name": "find_orders", "arguments": {"limit": 5}}) == {
        "limit": 5
    }
    assert genai.unwrap_result({"result": '{"total": 1}'}) == {"total": 1}
    mcp = {"content": [{"type": "text", "text": '{"total": 1}'}], "isError": False}
    assert genai.unwrap_result(mcp) == {"total": 1}
    # literals only, never eval
    assert genai.parse_value("__import__('os')") == "__import__('os')"


def test_a_child_span_far_later_than_its_parents_call_does_not_join_it(client):
    tool = span(
        b"\x06" * 8,
        "execute_tool find_orders",
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "find_orders",
            "gen_ai.tool.call.arguments": "{}",
        },
        parent=ROOT,
        start=T0,
        end=T0 + 1000,
    )
    post(client, tool)
    sixteen_minutes = 16 * 60 * 1_000_000_000
    post(client, http_span(b"\x07" * 8, T0 + sixteen_minutes, '{"limit": "5"}', parent=b"\x06" * 8))
    # the bound keeps a reused span id from joining
    assert set(calls_of(client)) == {"06" * 8, ""}


MS = 1_000_000


def same_tool_twice():
    """A turn announcing find_orders twice with the same arguments, and the two tool spans (no call
    id: OpenLLMetry's @tool) each with its HTTP span under it, one millisecond apart."""
    same = {"status": "paid", "limit": 5}
    spans = [model_span(b"\x01" * 8, T0, [("call_a", same), ("call_b", same)])]
    for n, tool_id in enumerate((b"\x02" * 8, b"\x04" * 8)):
        start = T0 + (1 + 3 * n) * MS
        spans.append(span(tool_id, "find_orders.tool", {
            "traceloop.span.kind": "tool", "traceloop.entity.name": "find_orders",
            "traceloop.entity.input": orjson.dumps({"args": [], "kwargs": same}).decode(),
        }, parent=ROOT, start=start, end=start + 2 * MS))  # fmt: skip
        http_id = bytes([tool_id[0] + 1]) * 8
        spans.append(
            http_span(http_id, start + MS // 2, '{"status": "paid", "limit": "5"}', tool_id)
        )
    return spans


@pytest.mark.parametrize("order", ["one export", "forward", "reversed"])
def test_two_calls_of_one_tool_with_the_same_arguments_stay_two_whatever_the_exports(client, order):
    spans = same_tool_twice()
    if order == "one export":
        post(client, *spans)
    for one in spans if order == "forward" else spans[::-1] if order == "reversed" else []:
        post(client, one)
    got = calls_of(client)
    assert set(got) == {"call_a", "call_b"}, {c: sorted(got[c]["snapshots"]) for c in got}
    for call in got.values():
        assert call["tool"] == "find_orders"
        assert {s for s, v in call["snapshots"].items() if v} == {
            "arguments",
            "request",
            "response",
        }


def own_id_tool_spans(announced: int):
    """ADK 2.x's way: a turn announcing find_orders `announced` times with the same arguments under
    ids the model never gave (find_orders_0...), and two tool spans under ids of their own."""
    same = {"status": "paid", "limit": 5}
    calls = [(f"find_orders_{n}", same) for n in range(announced)]
    spans = [model_span(b"\x01" * 8, T0, calls)]
    for n, call_id in enumerate(("adk-a", "adk-b")):
        start = T0 + (1 + 3 * n) * MS
        spans.append(span(bytes([2 + n]) * 8, "execute_tool find_orders", {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "find_orders",
            "gen_ai.tool.call.id": call_id, "gen_ai.tool.call.arguments": orjson.dumps(same).decode(),
        }, parent=ROOT, start=start, end=start + 2 * MS))  # fmt: skip
    return spans


@pytest.mark.parametrize("announced", [1, 2])
@pytest.mark.parametrize("order", ["one export", "forward", "reversed"])
def test_tool_spans_under_their_own_ids_take_the_announced_calls_one_each(client, order, announced):
    spans = own_id_tool_spans(announced)
    if order == "one export":
        post(client, *spans)
    for one in spans if order == "forward" else spans[::-1] if order == "reversed" else []:
        post(client, one)
    got = calls_of(client)
    # the announced calls join the tool spans, never two to one: none is left alone
    assert set(got) == {"adk-a", "adk-b"}, {c: sorted(got[c]["snapshots"]) for c in got}
    for call in got.values():
        assert call["snapshots"]["arguments"]["payload"] == {"status": "paid", "limit": 5}


@pytest.mark.parametrize(
    "body, joins",
    [('{"status": "paid", "limit": "5"}', True), ('{"unrelated": "payload"}', False)],
)
def test_an_http_span_whose_context_was_lost_joins_the_announced_call_its_request_carries(
    client, body, joins
):
    # an MCP server in another process that got no trace context: its HTTP span's parent is a span
    # tracediff never receives
    post(client, model_span(b"\x01" * 8, T0, [("call_a", {"status": "paid", "limit": 5})]))
    post(client, http_span(b"\x02" * 8, T0 + MS, body, parent=b"\x0e" * 8))
    got = calls_of(client)
    assert (got["call_a"]["snapshots"]["request"] is not None) is joins, sorted(got)
    # never guessed by its place alone
    assert set(got) == ({"call_a"} if joins else {"call_a", ""})
