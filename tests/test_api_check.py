"""POST /api/v1/check.

One call analysed under its tool's stored contract (what `tracediff check` prints for files), stored
nowhere; the MCP tool check_call asks it."""

import json

import pytest

from webapp import create_app

ARGUMENTS = {"customerEmail": "ana@example.com", "status": "paid", "limit": 5}
SENT_AS_STRING = {"customer_email": "ana@example.com", "status": "paid", "limit": "5"}
FIXED = {"customer_email": "ana@example.com", "status": "paid", "limit": 5}


def test_the_sample_bug_fails_and_the_corrected_call_passes_under_the_stored_contract(
    client, samples
):
    broken = client.post(
        "/api/v1/check",
        json={"tool": "findOrders", "arguments": ARGUMENTS, "request": SENT_AS_STRING},
    )
    assert broken.status_code == 200
    found = broken.get_json()
    assert found["outcome"] == "failed" and found["tool"] == "findOrders"
    [finding] = [f for f in found["findings"] if f["severity"] != "info"]
    assert (finding["kind"], finding["left"]["path"], finding["right"]["path"]) == (
        "type_changed",
        "/limit",
        "/limit",
    )
    assert found["validation"]["request"]["valid"] is False
    # the contract the stored calls were analysed under, as the problem of that bug records it
    listed = client.get("/api/v1/problems?tool=findOrders&kind=type_changed").get_json()["problems"]
    [problem] = [p for p in listed if p["left"]["path"] == "/limit"]
    assert found["contract_digest"] in problem["contract_digests"]
    fixed = client.post(
        "/api/v1/check", json={"tool": "findOrders", "arguments": ARGUMENTS, "request": FIXED}
    )
    assert fixed.get_json()["outcome"] == "passed" and fixed.get_json()["worst"] in ("info", None)


def test_a_request_given_by_its_url_is_checked_against_the_query_string(client, samples):
    url = "https://api.example.com/orders?customer_email=ana%40example.com&status=PAID&limit=5"
    answer = client.post(
        "/api/v1/check",
        json={"tool": "findOrders", "arguments": ARGUMENTS, "method": "get", "url": url},
    ).get_json()
    assert answer["outcome"] == "failed"
    ends = {(f["kind"], (f["right"] or {}).get("path")) for f in answer["findings"]}
    assert ("enum_changed", "query:/status") in ends


def test_payloads_given_as_json_text_are_read_as_ingest_reads_them(client, samples):
    # OpenAI's tool_calls[].function.arguments is JSON text: ingest parses it (logged as a string),
    # so a check of the same call must too
    as_text = {
        "tool": "findOrders",
        "arguments": json.dumps(ARGUMENTS),
        "request": json.dumps(SENT_AS_STRING),
    }
    broken = client.post("/api/v1/check", json=as_text).get_json()
    loud = [(f["kind"], f["left"]["path"]) for f in broken["findings"] if f["severity"] != "info"]
    assert loud == [("type_changed", "/limit")], broken["findings"]
    assert broken["validation"]["arguments"]["valid"] is True
    fixed = client.post("/api/v1/check", json=as_text | {"request": json.dumps(FIXED)}).get_json()
    assert fixed["outcome"] == "passed", fixed["findings"]
    # text that is not a JSON object or array stays text, as ingest keeps it
    text = client.post(
        "/api/v1/check", json={"tool": "findOrders", "arguments": ARGUMENTS, "request": "{broken"}
    ).get_json()
    assert "invalid_json" in {f["kind"] for f in text["findings"]}


def test_a_check_stores_nothing(client, samples):
    before = samples.count_events(), samples.count_traces()
    client.post(
        "/api/v1/check",
        json={"tool": "findOrders", "arguments": ARGUMENTS, "request": SENT_AS_STRING},
    )
    assert (samples.count_events(), samples.count_traces()) == before


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"tool": "noSuchTool", "arguments": ARGUMENTS}, 404, "tool_not_found"),
        ({"tool": "findOrders"}, 400, "bad_parameter"),
        ({"tool": "findOrders", "args": ARGUMENTS}, 400, "bad_parameter"),
        ({"arguments": ARGUMENTS}, 400, "bad_parameter"),
        ({"tool": "findOrders", "arguments": ARGUMENTS, "status": "200"}, 400, "bad_parameter"),
        (
            {"tool": "findOrders", "arguments": ARGUMENTS, "url": "orders?limit=5"},
            400,
            "bad_parameter",
        ),
        (
            {"tool": "findOrders", "arguments": ARGUMENTS, "url": "http://[::1/orders?limit=5"},
            400,
            "bad_parameter",
        ),
        (
            {"tool": "findOrders", "arguments": ARGUMENTS, "headers": {"X-Id": 5}},
            400,
            "bad_parameter",
        ),
        ([ARGUMENTS], 400, "bad_parameter"),
    ],
)
def test_a_check_it_cannot_run_is_refused_in_the_error_shape(client, samples, body, status, code):
    answer = client.post("/api/v1/check", json=body)
    assert answer.status_code == status
    assert (
        answer.get_json()["error"]["code"] == code
        and answer.get_json()["error"]["retryable"] is False
    )


def test_a_body_that_is_not_json_is_a_422(client):
    answer = client.post("/api/v1/check", data=b"{not json", content_type="application/json")
    assert answer.status_code == 422 and answer.get_json()["error"]["code"] == "not_json"


def test_a_check_reads_so_a_read_token_opens_it_and_none_is_refused(db_path, samples):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "READ_TOKENS": "agent:rd-7a8b9c",
        }
    )
    body = {"tool": "findOrders", "arguments": ARGUMENTS, "request": FIXED}
    client = app.test_client()
    assert client.post("/api/v1/check", json=body).status_code == 401
    assert (
        client.post(
            "/api/v1/check", json=body, headers={"Authorization": "Bearer wrong"}
        ).status_code
        == 401
    )
    answer = client.post("/api/v1/check", json=body, headers={"Authorization": "Bearer rd-7a8b9c"})
    assert answer.status_code == 200 and answer.get_json()["outcome"] == "passed"
