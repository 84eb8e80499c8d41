"""The tool-call shapes agents already log become the right snapshots.

The right snapshot, tool and call id."""

import orjson
import pytest

from webapp.ingest import parse_body

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE.upper()}-00f067aa0ba902b7-01"


def events(record, **kw):
    batch = parse_body(orjson.dumps(record), **kw)
    assert batch.rejected == []
    return [(e.snapshot, e.tool, e.call_id, e.payload, e.source) for e in batch.events]


def with_trace(record):
    return {**record, "trace_id": TRACE}


def test_an_anthropic_tool_use_block_is_the_arguments():
    block = {
        "type": "tool_use",
        "id": "toolu_01",
        "name": "findOrders",
        "input": {"customerEmail": "a@b.co"},
    }
    assert events(with_trace(block)) == [
        ("arguments", "findOrders", "toolu_01", {"customerEmail": "a@b.co"}, None)
    ]


def test_an_anthropic_tool_result_block_is_the_result_matched_by_tool_use_id():
    content = [{"type": "text", "text": '{"orders": []}'}]
    block = {"type": "tool_result", "tool_use_id": "toolu_01", "content": content, "is_error": True}
    [ev] = parse_body(orjson.dumps(with_trace(block))).events
    assert (ev.snapshot, ev.call_id) == ("result", "toolu_01")
    # is_error kept
    assert ev.payload == {"type": "tool_result", "content": content, "is_error": True}


def test_a_whole_anthropic_message_yields_each_tool_use_block():
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_01", "name": "findOrders", "input": {"limit": 5}},
            {"type": "tool_use", "id": "toolu_02", "name": "getInvoice", "input": {"id": "inv_9"}},
        ],
    }
    assert events(with_trace(message)) == [
        ("arguments", "findOrders", "toolu_01", {"limit": 5}, None),
        ("arguments", "getInvoice", "toolu_02", {"id": "inv_9"}, None),
    ]


def test_an_openai_tool_calls_entry_has_its_arguments_string_parsed():
    entry = {
        "id": "call_abc",
        "type": "function",
        "function": {"name": "findOrders", "arguments": '{"limit": 5}'},
    }
    batch = parse_body(orjson.dumps(with_trace(entry)))
    [ev] = batch.events
    assert (ev.snapshot, ev.tool, ev.call_id, ev.payload, ev.logged_as_string) == (
        "arguments",
        "findOrders",
        "call_abc",
        {"limit": 5},
        True,
    )


def test_openai_arguments_that_are_broken_json_are_kept_as_text_for_the_analysis():
    entry = {
        "id": "call_abc",
        "type": "function",
        "function": {"name": "findOrders", "arguments": '{"limit": 5,}'},
    }
    assert events(with_trace(entry))[0][3] == '{"limit": 5,}'


def test_a_whole_assistant_message_yields_each_tool_call():
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "b", "arguments": '{"x": 1}'},
            },
        ],
    }
    assert events(with_trace(message)) == [
        ("arguments", "a", "call_1", {}, None),
        ("arguments", "b", "call_2", {"x": 1}, None),
    ]


def test_a_chat_completion_response_yields_the_tool_calls_of_its_choices():
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "a", "arguments": "{}"},
                        }
                    ],
                },
            }
        ],
    }
    assert events(with_trace(completion)) == [("arguments", "a", "call_1", {}, None)]


def test_a_role_tool_message_is_the_result_by_tool_call_id():
    message = {"role": "tool", "tool_call_id": "call_1", "content": '{"ok": true}'}
    assert events(with_trace(message)) == [("result", None, "call_1", {"ok": True}, None)]


def test_responses_function_call_and_output_items_pair_by_call_id():
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_9",
        "name": "findOrders",
        "arguments": '{"limit": 5}',
    }
    output = {"type": "function_call_output", "call_id": "call_9", "output": '{"orders": []}'}
    assert events(with_trace(call)) == [("arguments", "findOrders", "call_9", {"limit": 5}, None)]
    assert events(with_trace(output)) == [("result", None, "call_9", {"orders": []}, None)]


def test_a_responses_api_response_yields_its_function_call_items():
    response = {
        "id": "resp_1",
        "object": "response",
        "output": [
            {"type": "message", "content": []},
            {"type": "function_call", "call_id": "call_9", "name": "f", "arguments": "{}"},
        ],
    }
    assert events(with_trace(response)) == [("arguments", "f", "call_9", {}, None)]


def test_gemini_function_call_and_response_parts():
    call = {"functionCall": {"name": "findOrders", "args": {"limit": 5}}}
    reply = {"functionResponse": {"name": "findOrders", "response": {"orders": []}}}
    assert events(with_trace(call)) == [("arguments", "findOrders", "", {"limit": 5}, None)]
    assert events(with_trace(reply)) == [("result", "findOrders", "", {"orders": []}, None)]


def test_a_gemini_candidate_yields_its_function_call_parts():
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "ok"},
                        {"functionCall": {"id": "fc-1", "name": "f", "args": {"a": 1}}},
                    ],
                }
            }
        ]
    }
    assert events(with_trace(response)) == [("arguments", "f", "fc-1", {"a": 1}, None)]


def test_an_mcp_tools_call_request_is_the_arguments_with_source_mcp():
    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "findOrders", "arguments": {"limit": 5}},
    }
    assert events(with_trace(request)) == [("arguments", "findOrders", "7", {"limit": 5}, "mcp")]


def test_an_mcp_call_tool_result_is_the_result_as_the_model_got_it():
    result = {
        "content": [{"type": "text", "text": "2 orders"}],
        "structuredContent": {"orders": [1, 2]},
        "isError": False,
    }
    rpc = {"jsonrpc": "2.0", "id": "req-7", "result": result}
    assert events(with_trace(rpc)) == [("result", None, "req-7", result, "mcp")]


def test_an_mcp_error_result_keeps_its_is_error_and_text():
    result = {"content": [{"type": "text", "text": "not found"}], "isError": True}
    assert events(with_trace({"jsonrpc": "2.0", "id": 7, "result": result})) == [
        ("result", None, "7", result, "mcp")
    ]


def test_an_mcp_jsonrpc_error_is_the_result_under_error():
    error = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32602, "message": "Unknown tool"}}
    assert events(with_trace(error)) == [("result", None, "7", {"error": error["error"]}, "mcp")]


BLOCK = {"type": "tool_use", "id": "toolu_01", "name": "findOrders", "input": {}}


@pytest.mark.parametrize(
    "kw,expected",
    [
        ({"headers": {"traceparent": TRACEPARENT}}, TRACE),
        ({"headers": {"X-Trace-Id": "run-42"}}, "run-42"),
        ({"query": {"trace_id": "run-43"}}, "run-43"),
        (
            {
                "headers": {"traceparent": TRACEPARENT, "X-Trace-Id": "run-42"},
                "query": {"trace_id": "q"},
            },
            TRACE,
        ),
        ({"headers": {"traceparent": "garbage", "x-trace-id": "run-42"}}, "run-42"),
    ],
)
def test_the_trace_id_comes_from_traceparent_then_x_trace_id_then_the_query(kw, expected):
    [ev] = parse_body(orjson.dumps(BLOCK), **kw).events
    assert ev.trace_id == expected


def test_a_trace_id_in_the_record_wins_over_headers():
    [ev] = parse_body(
        orjson.dumps({**BLOCK, "traceId": "from-record"}), headers={"X-Trace-Id": "h"}
    ).events
    assert ev.trace_id == "from-record"


def test_an_all_zero_traceparent_is_no_trace_id():
    batch = parse_body(
        orjson.dumps(BLOCK), headers={"traceparent": "00-" + "0" * 32 + "-00f067aa0ba902b7-01"}
    )
    assert [r.code for r in batch.rejected] == ["missing_trace_id"]


def test_a_shape_without_any_trace_id_is_rejected_missing_trace_id():
    [rej] = parse_body(orjson.dumps(BLOCK)).rejected
    assert rej.code == "missing_trace_id" and "traceparent" in rej.message


def test_a_record_of_no_known_shape_is_rejected_unknown_shape():
    [rej] = parse_body(orjson.dumps({"level": "info", "msg": "hello"})).rejected
    assert rej.code == "unknown_shape"


def test_vector_file_source_records_are_unwrapped_from_message_with_shipper_meta():
    inner = {"trace_id": TRACE, "snapshot": "request", "payload": {"amount": 5}}
    record = {
        "message": orjson.dumps(inner).decode(),
        "host": "web-1",
        "file": "/var/log/agent.ndjson",
        "source_type": "file",
        "timestamp": "2026-08-20T09:00:00.123Z",
    }
    [ev] = parse_body(orjson.dumps(record)).events
    assert (ev.snapshot, ev.payload) == ("request", {"amount": 5})
    assert ev.meta == {
        "host": "web-1",
        "file": "/var/log/agent.ndjson",
        "source_type": "file",
        "timestamp": "2026-08-20T09:00:00.123Z",
    }


def test_fluent_bit_tail_records_are_unwrapped_from_log_and_keep_the_date():
    inner = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "trace_id": TRACE}
    record = {"date": 1755680400.123456, "log": orjson.dumps(inner).decode() + "\n"}
    [ev] = parse_body(orjson.dumps(record)).events
    assert (ev.snapshot, ev.call_id, ev.meta) == (
        "arguments",
        "toolu_1",
        {"date": 1755680400.123456},
    )


def test_docker_logs_read_by_a_shipper_are_unwrapped_twice():
    inner = {"trace_id": TRACE, "snapshot": "response", "payload": {"ok": True}}
    docker = {"log": orjson.dumps(inner).decode() + "\n", "stream": "stdout"}
    record = {"message": orjson.dumps(docker).decode(), "host": "node-3"}
    [ev] = parse_body(orjson.dumps(record)).events
    assert ev.payload == {"ok": True} and ev.meta == {"host": "node-3", "stream": "stdout"}


def test_a_wrapped_message_that_is_plain_text_is_not_an_event():
    [rej] = parse_body(orjson.dumps({"message": "GET /health 200", "host": "h"})).rejected
    assert rej.code == "unknown_shape"


def test_a_wrapped_message_that_is_broken_json_is_rejected_not_json():
    [rej] = parse_body(orjson.dumps({"message": '{"trace_id": "x", ', "host": "h"})).rejected
    assert rej.code == "not_json" and "message" in rej.message


@pytest.mark.parametrize(
    "traceparent, says",
    [
        ("garbage", "'garbage', is not a W3C traceparent"),
        ("00-" + "0" * 32 + "-00f067aa0ba902b7-01", "names the invalid all-zero trace id"),
        (None, None),
    ],
)
def test_a_traceparent_that_names_no_trace_is_said_so_not_reported_missing(
    client, traceparent, says
):
    headers = {"traceparent": traceparent} if traceparent else {}
    envelope = {"call_id": "c", "snapshot": "arguments", "payload": {"a": 1}}
    body = orjson.dumps(BLOCK) + b"\n" + orjson.dumps(envelope)
    rejected = client.post("/api/v1/ingest", data=body, headers=headers).get_json()["rejected"]
    assert [r["code"] for r in rejected] == ["missing_trace_id", "missing_field"]
    for refused in rejected:
        if says:
            assert says in refused["message"], refused
        else:
            assert "header sent" not in refused["message"]
