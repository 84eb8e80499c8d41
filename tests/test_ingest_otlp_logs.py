"""POST /v1/logs: the GenAI event records of OTLP log exports.

Joined to spans by trace and span id."""

import json

import orjson
import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from test_ingest_otlp import T0, TRACE, any_value
from test_instrumentations import ORDERS, assert_tool_calls, posts_json, posts_pb, replay, trace_ids
from test_security import INGEST_TOKEN, assert_unauthorized, bearer, guarded  # noqa: F401 (fixture)

from webapp.ingest import Limits, parse_otlp_logs

MODEL_SPAN = b"\x01" * 8


def log_export(*records):
    """An ExportLogsServiceRequest of (event name, attributes, body) records on the model span."""
    req = ExportLogsServiceRequest()
    scope = req.resource_logs.add().scope_logs.add()
    for name, attrs, body in records:
        record = scope.log_records.add(
            trace_id=TRACE, span_id=MODEL_SPAN, time_unix_nano=T0, event_name=name
        )
        for key, value in attrs.items():
            record.attributes.add(key=key, value=any_value(value))
        if body is not None:
            record.body.CopyFrom(any_value(body))
    return req.SerializeToString()


def test_the_older_choice_and_tool_message_events_give_arguments_and_result():
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "find_orders", "arguments": '{"limit": 5}'},
    }
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "tool_calls": [call]},
    }
    tool_message = {"id": "call_1", "content": '{"total": 1}'}
    batch = parse_otlp_logs(
        log_export(
            ("gen_ai.choice", {"gen_ai.system": "openai"}, choice),
            ("gen_ai.tool.message", {"gen_ai.system": "openai"}, tool_message),
            # nothing for us
            ("gen_ai.user.message", {}, {"content": "hi"}),
        ),
        content_type="application/x-protobuf",
    )
    got = [(e.snapshot, e.call_id, e.tool, e.payload, e.source) for e in batch.events]
    assert got == [
        ("arguments", "call_1", "find_orders", {"limit": 5}, "openai"),
        ("result", "call_1", None, {"total": 1}, "openai"),
    ]
    assert batch.events[0].meta["span_id"] == MODEL_SPAN.hex()


def test_the_event_name_in_an_attribute_as_older_sdks_send_it_is_read():
    body = {"message": {"tool_calls": [{"id": "c", "function": {"name": "t", "arguments": "{}"}}]}}
    batch = parse_otlp_logs(
        log_export(("", {"event.name": "gen_ai.choice"}, body)),
        content_type="application/x-protobuf",
    )
    assert [(e.snapshot, e.call_id) for e in batch.events] == [("arguments", "c")]


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_spans_before_their_log_records_join_the_calls_the_logs_announce(client, encoding):
    """EVENT_ONLY: the model spans carry no messages; whichever export comes first, the calls come
    together."""
    stem = "openai-v2.events-openai-two"
    posts = posts_pb(stem) if encoding == "protobuf" else posts_json(stem)
    replay(
        client,
        list(reversed(posts)),
        "application/x-protobuf" if encoding == "protobuf" else "application/json",
    )
    [trace_id] = trace_ids(posts_json(stem))
    assert_tool_calls(client.get(f"/api/v1/traces/{trace_id}").get_json(), "two")


def test_a_log_export_answers_partial_success_like_the_trace_export(client):
    response = client.post("/v1/logs", data=log_export(), content_type="application/x-protobuf")
    assert response.status_code == 200 and response.mimetype == "application/x-protobuf"
    ExportLogsServiceResponse().ParseFromString(response.data)
    response = client.post("/v1/logs", data=b"{}", content_type="application/json")
    assert response.status_code == 200 and response.get_json() == {}


def test_an_unreadable_log_export_is_refused_with_422_and_quarantined(client):
    response = client.post(
        "/v1/logs", data=b"\xff\xff not protobuf", content_type="application/x-protobuf"
    )
    assert response.status_code == 422 and response.get_json()["error"]["code"] == "unparseable"
    assert client.get("/api/v1/quarantine").get_json()["records"][0]["code"] == "unparseable"


def test_a_log_export_without_an_ingest_token_is_refused(guarded):  # noqa: F811
    assert_unauthorized(guarded.post("/v1/logs", data=b"{}", content_type="application/json"))
    ok = guarded.post(
        "/v1/logs", data=b"{}", content_type="application/json", headers=bearer(INGEST_TOKEN)
    )
    assert ok.status_code == 200


def test_a_log_record_nested_too_deep_is_rejected_alone():
    deep = {"role": "assistant"}
    for _ in range(10):
        deep = {"x": deep}
    body = log_export(("gen_ai.choice", {}, deep))
    batch = parse_otlp_logs(body, content_type="application/x-protobuf", limits=Limits(max_depth=5))
    assert [r.code for r in batch.rejected] == ["too_deep"]


assert json and orjson and ORDERS
