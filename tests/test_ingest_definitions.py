"""Tool definitions a model was offered become the tool's arguments schema.

When it has none."""

import orjson
from test_ingest_genai import http_span, model_span, post
from test_ingest_otlp import T0

SCHEMA = {"type": "object", "required": ["limit"], "properties": {"limit": {"type": "integer"}}}
CHANGED = {"type": "object", "properties": {"limit": {"type": "string"}}}


def offered(span_id, start, schema):
    definitions = [{"type": "function", "function": {"name": "find_orders", "parameters": schema}}]
    return model_span(
        span_id,
        start,
        [("call_a", {"limit": 5})],
        **{"gen_ai.tool.definitions": orjson.dumps(definitions).decode()},
    )


def test_a_definition_seen_in_traffic_becomes_the_arguments_schema_marked_from_traffic(client):
    post(
        client, offered(b"\x01" * 8, T0, SCHEMA), http_span(b"\x02" * 8, T0 + 100, '{"limit": "5"}')
    )
    tool = client.get("/tools/find_orders.json").get_json()
    assert tool["contract"]["arguments_schema"] == SCHEMA
    assert tool["from_traffic"]["schema"] == SCHEMA and tool["from_traffic"]["changes"] == []
    page = client.get("/tools/find_orders").get_data(as_text=True)
    assert "from-traffic" in page and "from traffic: the tool definition" in page


def test_a_changed_definition_is_recorded_not_put_in_use(client):
    post(client, offered(b"\x01" * 8, T0, SCHEMA))
    post(client, offered(b"\x03" * 8, T0 + 1000, CHANGED))
    # seen again: recorded once
    post(client, offered(b"\x04" * 8, T0 + 2000, CHANGED))
    tool = client.get("/tools/find_orders.json").get_json()
    assert tool["contract"]["arguments_schema"] == SCHEMA
    assert [c["schema"] for c in tool["from_traffic"]["changes"]] == [CHANGED]
    assert "The definition changed since" in client.get("/tools/find_orders").get_data(as_text=True)


def test_a_declared_contract_always_wins(client):
    declared = {"type": "object", "properties": {"limit": {"type": "integer", "maximum": 50}}}
    assert (
        client.put("/api/v1/tools/find_orders", json={"arguments_schema": declared}).status_code
        == 200
    )
    post(client, offered(b"\x01" * 8, T0, SCHEMA))
    tool = client.get("/tools/find_orders.json").get_json()
    assert tool["contract"]["arguments_schema"] == declared and tool["from_traffic"] is None
    assert "from-traffic" not in client.get("/tools/find_orders").get_data(as_text=True)


def test_a_declared_schema_put_over_a_learnt_one_drops_the_mark(client):
    post(client, offered(b"\x01" * 8, T0, SCHEMA))
    client.put("/api/v1/tools/find_orders", json={"arguments_schema": CHANGED})
    assert client.get("/tools/find_orders.json").get_json()["from_traffic"] is None
