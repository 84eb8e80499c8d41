"""A trace is readable as soon as its ingest is acknowledged.

While the projection is held elsewhere (another node projecting, another writer holding SQLite's
lock): read through its events."""

import contextlib

from helpers import TRACE, envelope, ndjson, order_call

from webapp.ingest import parse_body
from webapp.pipeline import analyze_all
from webapp.store import Store


def acknowledge(store: Store, *events) -> None:
    """Commit events as ingest does (acknowledged, not projected)."""
    store.add_events(parse_body(ndjson(*events)).events)


@contextlib.contextmanager
def projection_held(db_path):
    """Hold the projection for the block, as another node projecting a long queue does."""
    other = Store.open(db_path)
    try:
        with other.write() as conn:
            other.take_summaries_turn(conn)
            yield
    finally:
        other.close()


def test_an_acknowledged_trace_reads_whole_while_another_holds_the_projection(db_path):
    store = Store.open(db_path, busy_timeout_ms=300)
    acknowledge(store, *order_call())
    with projection_held(db_path):
        trace = store.get_trace(TRACE)
        assert store.behind()
    [call] = trace["calls"]
    assert (call["tool"], call["status_code"], call["complete"]) == ("findOrders", 200, True)
    assert call["snapshots"]["request"]["payload"] == {"status": "paid", "limit": 5}
    assert call["analyzed"] is False and call["findings"] == []
    # the projection, once free, writes what was read through
    projected = store.get_trace(TRACE)
    assert not store.behind()
    assert projected["calls"][0]["snapshots"] == call["snapshots"]
    assert projected["calls"][0]["first_ts"] == call["first_ts"]
    store.close()


def test_a_new_version_read_through_shows_pending_and_an_unchanged_call_keeps_its_analysis(db_path):
    store = Store.open(db_path, busy_timeout_ms=300)
    acknowledge(store, *order_call(), *[dict(e, call_id="call_02") for e in order_call()])
    store.project_all()
    analyze_all(store)
    analysed = store.get_trace(TRACE)["calls"][1]
    late = envelope("request", {"status": "paid", "limit": "5"}, ts="2026-11-20T09:00:05Z")
    acknowledge(store, late)
    with projection_held(db_path):
        first, second = store.get_trace(TRACE)["calls"]
    assert first["call_id"] == "call_01" and first["analyzed"] is False
    assert first["snapshots"]["request"]["payload"] == {"status": "paid", "limit": "5"}
    assert first["versions"]["request"] == 2
    assert second["analyzed"] is True
    assert (second["findings"], second["worst"]) == (analysed["findings"], analysed["worst"])
    store.close()


def test_a_trace_never_acknowledged_is_still_not_found_while_the_projection_is_held(db_path):
    store = Store.open(db_path, busy_timeout_ms=300)
    acknowledge(store, *order_call())
    with projection_held(db_path):
        assert store.get_trace("0" * 32) is None
    store.close()


def test_the_api_and_the_page_answer_an_acknowledged_trace_while_the_projection_is_held(
    app, client, db_path
):
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).status_code == 200
    with projection_held(db_path):
        answer = client.get(f"/api/v1/traces/{TRACE}")
        page = client.get(f"/traces/{TRACE}")
    assert answer.status_code == 200
    [call] = answer.get_json()["calls"]
    assert call["snapshots"]["response"]["payload"] == {"orders": [], "total": 0}
    assert call["analyzed"] is False
    assert page.status_code == 200 and "findOrders" in page.get_data(as_text=True)
    # free again, the read projects and analyses it as before
    again = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"][0]
    assert again["analyzed"] is True


def test_a_first_read_shows_calls_analysed_that_taught_their_tool_a_mapping(client):
    """Calls whose evidence changes their tool's learnt mapping are queued again when analysed.

    The read analyses them again under the new mapping instead of answering "pending"."""
    arguments = {f"field_{n}": n for n in range(3)}
    events = []
    for number in range(6):
        common = {"trace_id": "8" * 32, "call_id": f"call_{number}", "tool": "learns"}
        request = {key: str(value) for key, value in arguments.items()}
        events += [
            {**common, "snapshot": "arguments", "payload": arguments},
            {**common, "snapshot": "request", "payload": request},
        ]
    assert client.post("/api/v1/ingest", json=events).status_code == 200
    # with no budget a read analyses as the analyser does, learning included (0: no limit)
    client.application.config["ANALYSIS_BUDGET"] = 0
    calls = client.get("/api/v1/traces/" + "8" * 32).get_json()["calls"]
    assert [(c["analyzed"], len(c["findings"])) for c in calls] == [(True, 3)] * 6
