"""The JSON API through the Flask test client, on a real SQLite file."""

from urllib.parse import quote

import orjson
import pytest
from helpers import TRACE, envelope, ndjson, order_call

from webapp import create_app


def post(client, body: bytes, **headers):
    return client.post("/api/v1/ingest", data=body, headers=headers)


def assert_error_shape(response, status, code=None):
    assert response.status_code == status
    error = response.get_json()["error"]
    assert set(error) == {"code", "message", "retryable"}
    assert isinstance(error["message"], str) and error["message"]
    if code:
        assert error["code"] == code
    return error


@pytest.mark.parametrize("framing", ["object", "array", "ndjson"])
def test_ingest_takes_one_object_an_array_or_ndjson_whatever_the_content_type(client, framing):
    events = order_call()
    body = {
        "object": orjson.dumps(events[0]),
        "array": orjson.dumps(events),
        "ndjson": ndjson(*events),
    }[framing]
    response = post(client, body, **{"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200
    assert response.get_json() == {
        "accepted": 1 if framing == "object" else 3,
        "duplicates": 0,
        "rejected": [],
    }


def test_one_bad_event_does_not_drop_the_good_ones(client, store):
    bad = {"trace_id": TRACE, "snapshot": "argumentz", "payload": {}}
    response = post(client, ndjson(order_call()[0], bad, order_call()[1]))
    body = response.get_json()
    assert response.status_code == 200
    assert body["accepted"] == 2
    [rejected] = body["rejected"]
    assert (
        rejected["index"] == 1
        and rejected["retryable"] is False
        and "argumentz" in rejected["message"]
    )
    assert store.count_events() == 2
    assert len(store.quarantine()) == 1


def test_a_resent_batch_is_counted_as_duplicates(client, store):
    post(client, ndjson(*order_call()))
    again = post(client, ndjson(*order_call())).get_json()
    assert (again["accepted"], again["duplicates"]) == (0, 3)
    assert store.count_events() == 3


def test_a_snapshots_versions_name_a_bad_snapshot_400_and_a_missing_one_404(client):
    post(client, ndjson(order_call()[0]))
    calls = f"/api/v1/traces/{TRACE}/calls/call_01"

    listed = client.get(f"{calls}/arguments/versions")
    bad = assert_error_shape(client.get(f"{calls}/zzz/versions"), 400, "bad_parameter")
    missing = client.get(f"{calls}/request/versions")

    assert [v["payload"] for v in listed.get_json()["versions"]] == [order_call()[0]["payload"]]
    assert "'zzz'" in bad["message"] and "arguments" in bad["message"]
    assert_error_shape(missing, 404, "snapshot_not_found")


@pytest.mark.parametrize("body", [b"", b"not json at all", b'{"trace_id": ', b"\xff\xfe\x00"])
def test_an_unparseable_body_gets_422_and_stores_nothing(client, store, body):
    assert_error_shape(post(client, body), 422)
    assert store.count_events() == 0


@pytest.mark.parametrize(
    "event, word",
    [
        ({"snapshot": "arguments", "payload": {}}, "trace_id"),
        ({"trace_id": TRACE, "payload": {}}, "snapshot"),
        ({"trace_id": TRACE, "snapshot": "arguments"}, "payload"),
        ({"trace_id": "x" * 129, "snapshot": "arguments", "payload": {}}, "trace_id"),
        ({"trace_id": TRACE, "snapshot": "reply", "payload": {}}, "snapshot"),
    ],
)
def test_an_event_missing_a_required_field_is_rejected_with_a_reason(client, store, event, word):
    body = post(client, orjson.dumps([event])).get_json()
    assert body["accepted"] == 0
    assert word in body["rejected"][0]["message"]
    assert store.count_events() == 0


def test_a_body_over_the_size_limit_gets_413_in_the_error_shape(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "t.db"),
            "ANALYZER": "off",
            "MAX_BODY_BYTES": 1000,
        }
    )
    response = app.test_client().post("/api/v1/ingest", data=b"[" + b" " * 2000 + b"]")
    assert_error_shape(response, 413, "too_large")


def test_trace_detail_returns_calls_snapshots_validation_and_findings(client):
    post(client, ndjson(*order_call(limit_sent="5")))
    trace = client.get(f"/api/v1/traces/{TRACE}").get_json()
    assert trace["trace_id"] == TRACE
    [call] = trace["calls"]
    assert call["call_id"] == "call_01" and call["tool"] == "findOrders"
    assert set(call["snapshots"]) == {"arguments", "request", "response"}
    assert call["snapshots"]["arguments"]["payload"] == {"status": "paid", "limit": 5}
    assert set(call["validation"]) == {"arguments", "request", "response"}
    [finding] = [f for f in call["findings"] if f["kind"] == "type_changed"]
    assert finding["left"] == {"snapshot": "arguments", "path": "/limit"}
    assert finding["right"] == {"snapshot": "request", "path": "/limit"}


def test_a_call_with_a_result_carries_it_and_the_list_filters_by_a_missing_result(client):
    post(
        client, ndjson(*order_call(), envelope("result", {"orders": []}, ts="2026-11-20T09:00:03Z"))
    )
    post(client, ndjson(*order_call(trace_id="a" * 32)))
    [call] = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"]
    assert call["snapshots"]["result"]["payload"] == {"orders": []}
    assert set(call["validation"]) == {"arguments", "request", "response"}
    listed = client.get("/api/v1/traces?missing=result").get_json()["traces"]
    assert [t["trace_id"] for t in listed] == ["a" * 32] and listed[0]["complete"] is True


def test_an_unknown_trace_is_a_404_in_the_error_shape(client):
    assert_error_shape(client.get("/api/v1/traces/nope"), 404, "trace_not_found")


def test_unknown_api_path_and_wrong_method_use_the_error_shape(client):
    assert_error_shape(client.get("/api/v1/nothing-here"), 404)
    assert_error_shape(client.get("/api/v1/ingest"), 405)


def test_a_wrong_method_says_which_methods_the_resource_takes(client):
    # RFC 9110: a 405 carries Allow
    wrong = client.get("/api/v1/ingest")
    assert_error_shape(wrong, 405, "method_not_allowed")
    assert wrong.mimetype == "application/json" and "POST" in wrong.headers["Allow"]
    assert set(client.post("/api/v1/traces").headers["Allow"].split(", ")) >= {"GET", "HEAD"}


def test_trace_list_is_newest_first_and_pages_with_a_cursor(client):
    for n in range(3):
        post(client, ndjson(envelope(trace_id=f"{n:032x}", ts=f"2026-11-2{n}T09:00:00Z")))
    first = client.get("/api/v1/traces?limit=2").get_json()
    assert [t["trace_id"][-1] for t in first["traces"]] == ["2", "1"]
    assert set(first["traces"][0]) >= {"trace_id", "tools", "snapshots", "last_seen"}
    rest = client.get(f"/api/v1/traces?limit=2&cursor={first['next_cursor']}").get_json()
    assert [t["trace_id"][-1] for t in rest["traces"]] == ["0"] and rest["next_cursor"] is None


def test_a_forged_cursor_is_a_400(client):
    assert_error_shape(client.get("/api/v1/traces?cursor=%%%"), 400, "bad_cursor")


CONTRACT = {
    "arguments_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
    "request_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}},
    "mapping": [{"arguments": "/limit", "request": "/limit"}],
}


def test_tool_contracts_can_be_put_read_listed_and_deleted(client):
    assert client.put("/api/v1/tools/findOrders", json=CONTRACT).status_code == 200
    assert (
        client.get("/api/v1/tools/findOrders").get_json()["request_schema"]
        == CONTRACT["request_schema"]
    )
    assert [t["name"] for t in client.get("/api/v1/tools").get_json()["tools"]] == ["findOrders"]
    assert client.delete("/api/v1/tools/findOrders").status_code == 204
    assert_error_shape(client.get("/api/v1/tools/findOrders"), 404, "tool_not_found")


def test_a_bad_schema_is_refused_with_what_is_wrong(client):
    bad = {"arguments_schema": {"type": "object", "properties": {"limit": {"type": "integr"}}}}
    error = assert_error_shape(
        client.put("/api/v1/tools/findOrders", json=bad), 400, "bad_contract"
    )
    assert "integr" in error["message"]


def test_a_contract_makes_the_request_validate_and_errors_carry_json_pointers(client):
    client.put("/api/v1/tools/findOrders", json=CONTRACT)
    post(client, ndjson(*order_call(limit_sent="5")))
    call = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"][0]
    request = call["validation"]["request"]
    assert request["valid"] is False and request["schema"]
    assert [e["path"] for e in request["errors"]] == ["/limit"]
    assert call["validation"]["arguments"]["valid"] is True


def test_importing_anthropic_tool_definitions_creates_contracts(client):
    tools = [{"name": "sendEmail", "description": "Send", "input_schema": {"type": "object"}}]
    assert client.post("/api/v1/tools/import", json=tools).get_json() == {"imported": ["sendEmail"]}
    assert client.get("/api/v1/tools/sendEmail").get_json()["arguments_schema"] == {
        "type": "object"
    }


# --- tool import and contracts: bad input is a 4xx in the error shape ------------------------


def orders_openapi(ref="#/components/schemas/Query"):
    return {
        "openapi": "3.0.3",
        "info": {"title": "Orders", "version": "1"},
        "paths": {
            "/orders/search": {
                "post": {
                    "operationId": "findOrders",
                    "summary": "Search orders",
                    "requestBody": {"content": {"application/json": {"schema": {"$ref": ref}}}},
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
        "components": {"schemas": {"Query": {"type": "object"}}},
    }


@pytest.mark.parametrize(
    "ref, words",
    [
        ("#/components/schemas/Nope", "'#/components/schemas/Nope' points nowhere"),
        ("other.yaml#/X", "external $ref 'other.yaml#/X' is not supported"),
    ],
)
def test_an_openapi_ref_that_cannot_be_followed_is_a_400_naming_its_place(client, ref, words):
    error = assert_error_shape(
        client.post("/api/v1/tools/import", json=orders_openapi(ref)), 400, "bad_ref"
    )
    assert words in error["message"]
    assert (
        "/paths/~1orders~1search/post/requestBody/content/application~1json/schema/$ref"
        in error["message"]
    )
    assert client.get("/api/v1/tools").get_json()["tools"] == []


@pytest.mark.parametrize(
    "operation, words",
    [
        ("x=nosuch", "no operation 'nosuch' in the OpenAPI document (it has: findOrders)"),
        ("garbage", "operation 'garbage': expected TOOL=OPERATION_ID"),
    ],
)
def test_a_bad_operation_mapping_is_a_400_naming_it(client, operation, words):
    response = client.post(f"/api/v1/tools/import?operation={operation}", json=orders_openapi())
    assert words in assert_error_shape(response, 400, "bad_operation")["message"]
    assert client.get("/api/v1/tools").get_json()["tools"] == []


def test_a_schema_with_an_unresolvable_ref_is_refused_naming_schema_and_ref(client):
    for ref in ("#/definitions/missing", "https://example.com/schemas/order.json"):
        response = client.put("/api/v1/tools/findOrders", json={"arguments_schema": {"$ref": ref}})
        message = assert_error_shape(response, 400, "bad_contract")["message"]
        assert f"arguments_schema: /$ref: $ref {ref!r} cannot be resolved" in message
    assert_error_shape(client.get("/api/v1/tools/findOrders"), 404, "tool_not_found")


@pytest.mark.parametrize(
    "content_type", ["application/yaml", "text/yaml", "application/x-yaml", "text/plain"]
)
def test_a_yaml_openapi_document_is_imported(client, content_type):
    from test_contracts import ORDERS_OPENAPI_YAML

    response = client.post(
        "/api/v1/tools/import", data=ORDERS_OPENAPI_YAML, content_type=content_type
    )
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["imported"] == ["findOrders"]
    tool = client.get("/api/v1/tools/findOrders").get_json()
    assert (
        tool["request_schema"]["properties"]["created_after"]["example"] == "2026-08-20T09:00:00Z"
    )
    assert tool["error_schema"]["required"] == ["code", "message", "retryable"]


def test_broken_yaml_is_a_422_naming_the_line(client):
    response = client.post(
        "/api/v1/tools/import", data="openapi: 3.0.3\npaths: [a\n", content_type="application/yaml"
    )
    assert "line 3" in assert_error_shape(response, 422, "not_yaml")["message"]


@pytest.mark.parametrize(
    "tools",
    [
        {"name": "descT", "description": "my desc", "input_schema": {"type": "object"}},
        [
            {
                "type": "function",
                "function": {
                    "name": "descT",
                    "description": "my desc",
                    "parameters": {"type": "object"},
                },
            }
        ],
        {
            "openapi": "3.0.3",
            "info": {"title": "t", "version": "1"},
            "paths": {
                "/d": {
                    "get": {
                        "operationId": "descT",
                        "description": "my desc",
                        "responses": {"200": {"description": "ok"}},
                    }
                }
            },
        },
    ],
    ids=["anthropic", "openai", "openapi"],
)
def test_import_keeps_the_tool_description_also_when_merging(client, tools):
    assert client.post("/api/v1/tools/import", json=tools).status_code == 200
    assert client.get("/api/v1/tools/descT").get_json()["description"] == "my desc"
    client.put("/api/v1/tools/descT", json={"request_schema": {"type": "object"}})
    assert client.post("/api/v1/tools/import", json=tools).status_code == 200
    merged = client.get("/api/v1/tools/descT").get_json()
    assert merged["description"] == "my desc" and merged["request_schema"] == {"type": "object"}


def test_server_tools_are_skipped_and_the_rest_imported(client):
    tools = [
        {"type": "web_search_20250305", "name": "web_search"},
        {"name": "sendEmail", "input_schema": {"type": "object"}},
    ]
    body = client.post("/api/v1/tools/import", json=tools).get_json()
    assert body["imported"] == ["sendEmail"]
    assert [(s["name"], s["type"]) for s in body["skipped"]] == [
        ("web_search", "web_search_20250305")
    ]


@pytest.mark.parametrize(
    "document",
    [
        {"openapi": "3.0.0", "paths": []},
        {"openapi": "2.0", "paths": {}},
        {"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": ["x"], "responses": {}}}}},
        {"openapi": "3.0.0", "paths": {"/a": {"get": {"operationId": "x", "responses": []}}}},
    ],
)
def test_a_malformed_openapi_document_is_a_400(client, document):
    assert_error_shape(client.post("/api/v1/tools/import", json=document), 400, "bad_openapi")


@pytest.mark.parametrize(
    "url, status",
    [
        ("/api/v1/traces/{trace}/findings?offset=\u00b3", 400),
        ("/api/v1/traces/{trace}/findings?limit=\u0663", 400),
        ("/traces/{trace}?view=aligned&more=\u00b2", 200),
    ],
)
def test_a_digit_that_is_not_ascii_is_a_bad_parameter_or_ignored_not_a_500(client, url, status):
    client.post("/api/v1/ingest", data=ndjson(*order_call()))
    answer = client.get(url.format(trace=TRACE))
    # "³".isdigit() is true, yet int("³") raised: a 500
    assert answer.status_code == status
    assert status == 200 or answer.get_json()["error"]["code"] == "bad_parameter"


@pytest.mark.parametrize(
    "query, found",
    [
        ("muller", True),
        ("MÜLLER", True),
        ("jurgen", True),
        ("sao paulo", True),
        ("São", True),
        ("paulo sao", False),
        ("mull", False),
    ],
)
def test_search_finds_words_with_or_without_their_accents_on_either_store(client, query, found):
    event = envelope(trace_id="a1" * 16, payload={"name": "Jürgen Müller", "city": "São Paulo"})
    assert post(client, orjson.dumps(event)).status_code == 200
    traces = client.get("/api/v1/traces", query_string={"q": query}).get_json()["traces"]
    assert [t["trace_id"] for t in traces] == (["a1" * 16] if found else [])


@pytest.mark.parametrize("framing", ["array", "ndjson"])
def test_a_number_past_what_a_double_holds_is_refused_not_stored_as_null(client, framing):
    events = [
        envelope(trace_id="b1" * 16, payload={"e": 1}),
        envelope(trace_id="b2" * 16, payload={"e": 2}),
    ]
    texts = [orjson.dumps(event).replace(b'"e":2', b'"e":1e400') for event in events]
    body = b"[" + b",".join(texts) + b"]" if framing == "array" else b"\n".join(texts) + b"\n"
    answer = post(client, body).get_json()
    assert answer["accepted"] == 1 and [r["index"] for r in answer["rejected"]] == [1]
    # why, in words
    assert "double" in answer["rejected"][0]["message"]
    assert client.get(f"/api/v1/traces/{'b2' * 16}").status_code == 404


@pytest.mark.parametrize(
    "name", ["srv/observed", "srv/observed/adopt", "srv/mappings", "srv/mappings/confirm"]
)
def test_a_tool_name_that_ends_as_a_tools_own_route_is_refused(client, name):
    error = assert_error_shape(client.put(f"/api/v1/tools/{name}", json=CONTRACT), 400, "bad_name")
    assert name in error["message"]
    tools = [{"name": name, "input_schema": {"type": "object"}}]
    assert_error_shape(client.post("/api/v1/tools/import", json=tools), 400, "bad_name")
    assert client.get("/api/v1/tools").get_json()["tools"] == []


@pytest.mark.parametrize("name", ["a\x1b]0;owned\x07b", "line\nbreak", "nul\x00"])
def test_a_tool_name_no_event_could_carry_is_refused(client, name):
    # ingest takes printable tool names only; a contract under another was shown raw in a terminal
    error = assert_error_shape(
        client.put(f"/api/v1/tools/{quote(name, safe='')}", json=CONTRACT), 400, "bad_name"
    )
    assert "printable" in error["message"]
    tools = [{"name": name, "input_schema": {"type": "object"}}]
    assert_error_shape(client.post("/api/v1/tools/import", json=tools), 400, "bad_name")
    assert client.get("/api/v1/tools").get_json()["tools"] == []


def test_a_tool_name_with_a_slash_that_is_no_route_is_taken(client):
    assert client.put("/api/v1/tools/github/create_issue", json=CONTRACT).status_code == 200
    assert (
        client.get("/api/v1/tools/github/create_issue").get_json()["name"] == "github/create_issue"
    )
