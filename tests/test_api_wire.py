"""A request given by its URL, through the real app.

Ingest without a payload, then the trace's findings and rows name the query and path fields
(`query:/page_size`, `path:/2`) and body paths stay as they were."""

import orjson
import pytest
from helpers import TRACE, envelope, ndjson


def post(client, body: bytes):
    return client.post("/api/v1/ingest", data=body)


def find_orders(url: str, payload=..., trace_id=TRACE) -> list[dict]:
    args = envelope(
        "arguments",
        {"email": "ann@example.com", "status": "paid", "limit": 5},
        trace_id,
        ts="2026-11-20T09:00:00Z",
    )
    request = envelope(
        "request", {}, trace_id, ts="2026-11-20T09:00:01Z", http={"method": "GET", "url": url}
    )
    if payload is ...:
        del request["payload"]
    else:
        request["payload"] = payload
    return [args, request]


def the_call(client):
    [call] = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"]
    return call


def test_a_get_without_a_payload_is_accepted_and_its_query_aligns_with_the_arguments(client, store):
    url = "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=5"
    answer = post(client, ndjson(*find_orders(url)))
    assert answer.status_code == 200 and answer.get_json() == {
        "accepted": 2,
        "duplicates": 0,
        "rejected": [],
    }
    call = the_call(client)
    assert call["snapshots"]["request"]["payload"] is None
    assert [f for f in call["findings"] if f["severity"] != "info"] == []
    rows = {(row["arguments"], row["request"]) for row in call["alignment"]}
    assert {
        ("/email", "query:/customer_email"),
        ("/status", "query:/status"),
        ("/limit", "query:/page_size"),
    } <= rows


@pytest.mark.parametrize("payload", [None, ""])
def test_a_get_logged_with_a_null_or_empty_body_is_not_flagged_at_the_root(client, payload):
    post(
        client,
        ndjson(
            *find_orders(
                "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=5",
                payload,
            )
        ),
    )
    assert the_call(client)["worst"] == "info"


def test_a_status_the_contract_maps_dropped_from_the_query_is_a_warning_with_its_problem(
    client, store
):
    store.put_tool(
        "findOrders", {"mapping": [{"arguments": "/status", "request": "query:/status"}]}
    )
    post(
        client,
        ndjson(
            *find_orders(
                "https://api.example.com/orders?customer_email=ann%40example.com&page_size=5"
            )
        ),
    )
    call = the_call(client)
    [finding] = [f for f in call["findings"] if f["severity"] == "warning"]
    assert (finding["kind"], finding["left"]["path"]) == ("dropped", "/status") and finding[
        "problem"
    ]


def test_a_query_value_off_by_one_names_the_parameter_and_groups_into_one_problem(client):
    for n in range(3):
        trace = f"{n:032x}"
        post(
            client,
            ndjson(
                *find_orders(
                    "https://api.example.com/orders?customer_email=ann%40example.com&status=paid&page_size=6",
                    trace_id=trace,
                )
            ),
        )
        # reading a trace analyses it (the analyser is off here)
        client.get(f"/api/v1/traces/{trace}")
    problems = client.get("/api/v1/problems").get_json()["problems"]
    [problem] = problems
    assert problem["right"] == {"snapshot": "request", "path": "query:/page_size"}
    assert problem["calls"] == 3 and problem["kind"] == "value_changed"


@pytest.mark.parametrize(
    "event, words",
    [
        ({"trace_id": TRACE, "snapshot": "request", "http": {"method": "GET"}}, "payload"),
        ({"trace_id": TRACE, "snapshot": "request", "http": {"url": 5}}, "http.url"),
        ({"trace_id": TRACE, "snapshot": "request", "http": "https://x.example/"}, "http"),
    ],
)
def test_a_request_without_payload_or_url_is_still_refused_with_a_reason(
    client, store, event, words
):
    body = post(client, orjson.dumps([event])).get_json()
    assert body["accepted"] == 0 and words in body["rejected"][0]["message"]
    assert store.count_events() == 0


def test_an_unparseable_body_is_still_the_json_error(client):
    response = post(client, b'{"trace_id": ')
    assert response.status_code == 422 and set(response.get_json()["error"]) == {
        "code",
        "message",
        "retryable",
    }
