"""A NUL character (U+0000) in what a sender or a reader gives, on both stores.

PostgreSQL's text cannot hold NUL and SQLite's can: a payload key holding one is refused at ingest
on both, alone, and a call that cannot be analysed or saved (one acknowledged before that rule,
say) is set aside with its error shown instead of blocking the analyser for good.
"""

import orjson
import pytest
from helpers import envelope, ndjson

from webapp import create_app
from webapp.ingest import Event
from webapp.pipeline import analyze_pending
from webapp.store import Store

NUL_KEY = "a\x00b"


def nul_call(trace_id: str, call_id: str = "c1") -> list[dict]:
    """The arguments and request of a call whose payloads hold a key with a NUL in it."""
    return [
        envelope("arguments", {NUL_KEY: "x", "limit": 5}, trace_id, call_id, tool="tnul"),
        envelope("request", {NUL_KEY: "x", "limit": "5"}, trace_id, call_id, tool="tnul"),
    ]


def test_a_payload_key_holding_nul_is_refused_alone_with_where_it_is(client):
    good = envelope("arguments", {"note": "a\x00b in a value is kept"}, "nulkeys", "c2")
    body = orjson.dumps([*nul_call("nulkeys"), good])

    response = client.post("/api/v1/ingest", data=body, content_type="application/json")

    assert response.status_code == 200
    answer = response.get_json()
    assert answer["accepted"] == 1
    assert [r["index"] for r in answer["rejected"]] == [0, 1]
    assert {r["code"] for r in answer["rejected"]} == {"bad_value"}
    assert "'/a\\x00b' holds a NUL character" in answer["rejected"][0]["message"]
    trace = client.get("/api/v1/traces/nulkeys").get_json()
    assert [call["call_id"] for call in trace["calls"]] == ["c2"]


def test_a_nested_nul_key_in_a_payload_logged_as_a_string_is_refused_too(client):
    payload = orjson.dumps({"outer": [{"in\x00ner": 1}]}).decode()
    body = ndjson(envelope("arguments", payload, "nulnested", "c1"))

    answer = client.post("/api/v1/ingest", data=body).get_json()

    assert answer["accepted"] == 0
    assert "'/outer/0/in\\x00ner'" in answer["rejected"][0]["message"]


def acknowledged_before_the_rule(store: Store, events: list[dict]) -> None:
    """Store events as a version without the NUL-key rule acknowledged them."""
    store.add_events([Event(event_id=f"e{i}", **event) for i, event in enumerate(events)])


def test_a_call_that_cannot_be_analysed_never_blocks_the_analyser(db_path, engine):
    store = Store.open(db_path)
    good = [
        envelope("arguments", {"limit": 5}, "nulkeys", "c2"),
        envelope("request", {"limit": "5"}, "nulkeys", "c2"),
    ]
    acknowledged_before_the_rule(store, [*nul_call("nulkeys"), *good])

    # one batch: the failing call and the good one together
    assert analyze_pending(store, 10) == 2

    assert not store.behind()
    assert store.pending_calls("nulkeys") == []
    client = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"})
    response = client.test_client().get("/api/v1/traces/nulkeys")
    assert response.status_code == 200
    calls = {call["call_id"]: call for call in response.get_json()["calls"]}
    assert calls["c2"]["analyzed"] and calls["c2"].get("incomplete") is None
    assert "type_changed" in {f["kind"] for f in calls["c2"]["findings"]}
    assert calls["c1"]["analyzed"]
    if engine == "postgresql":
        assert calls["c1"].get("incomplete", "").startswith("analysis failed (DataError: ")
        assert "set aside" in calls["c1"]["incomplete"]
        assert client.test_client().get("/traces/nulkeys").status_code == 200
    else:
        # SQLite holds NUL: the call is analysed as any other
        assert calls["c1"].get("incomplete") is None
    store.close()


def test_a_trace_read_sets_a_failing_call_aside_and_answers(db_path, engine):
    store = Store.open(db_path)
    acknowledged_before_the_rule(store, nul_call("nulread"))
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"})

    response = app.test_client().get("/api/v1/traces/nulread")

    assert response.status_code == 200
    (call,) = response.get_json()["calls"]
    assert call["analyzed"]
    assert (call.get("incomplete") is not None) == (engine == "postgresql")
    assert store.pending_calls("nulread") == []
    store.close()


NUL_URLS = [
    "/api/v1/traces/a%00b",
    "/api/v1/tools/a%00b",
    "/api/v1/tools/a%00b/observed",
    "/api/v1/traces?release=a%00b",
]
NUL_PAGES = ["/traces/a%00b", "/tools/a%00b", "/?release=a%00b"]
# a search drops its control characters (tests/test_store_listing.py): no 400, no 500
NUL_SEARCHES = ["/values/tool.json?q=%00", "/values/tool.json?tool=a%00b", "/?q=a%00b"]


@pytest.mark.parametrize("url", NUL_URLS)
def test_a_nul_in_an_api_url_is_a_bad_parameter_on_both_stores(client, url):
    response = client.get(url)

    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] == "bad_parameter"
    assert "NUL" in error["message"]


@pytest.mark.parametrize("url", NUL_SEARCHES)
def test_a_nul_in_a_search_is_dropped_on_both_stores(client, url):
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("url", NUL_PAGES)
def test_a_nul_in_a_page_url_answers_the_bad_request_page(client, url):
    response = client.get(url)

    assert response.status_code == 400
    assert "Bad request" in response.get_data(as_text=True)


def test_a_nul_in_a_write_url_is_a_bad_parameter_but_a_put_says_bad_name(client):
    deleted = client.delete("/api/v1/tools/a%00b")
    put = client.put("/api/v1/tools/a%00b", json={"input_schema": {"type": "object"}})

    assert (deleted.status_code, deleted.get_json()["error"]["code"]) == (400, "bad_parameter")
    assert (put.status_code, put.get_json()["error"]["code"]) == (400, "bad_name")


def test_checking_a_call_of_a_tool_named_with_nul_finds_no_tool(client):
    response = client.post("/api/v1/check", json={"tool": "a\x00b", "arguments": {}})

    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "tool_not_found"
