"""Alerts wait for the analysis to settle.

A problem a re-analysis empties is never told, and a message says what is true when it is sent (a
real receiver, tests/receiver.py, on both stores)."""

import time

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import create_app, pipeline
from webapp.ops.sender import deliver_due


@pytest.fixture
def app(alerting_app):
    return alerting_app


def add_rule(client, receiver, on=("new", "regressed")) -> dict:
    rule = client.post(
        "/api/v1/alerts", json={"url": receiver.url, "on": list(on), "min_interval_s": 0}
    ).get_json()
    receiver.secret = rule["secret"]
    return rule


def paging_calls(first: int, count: int) -> list:
    """Calls of a tool with no contract whose names mislead: `n` goes to `p` and `page` to `count`.
    One call reads as two value changes (n -> count, page -> p by their names); twenty teach the
    inference the right pairs."""
    events = []
    for i in range(first, first + count):
        common = {
            "trace_id": trace(5000 + i),
            "call_id": "c1",
            "tool": "listPages",
            "ts": at(-30 + i * 0.1),
        }
        events += [
            {**common, "snapshot": "arguments", "payload": {"n": 3 + i % 4, "page": 10 + i}},
            {**common, "snapshot": "request", "payload": {"count": 10 + i, "p": 3 + i % 4}},
            {
                **common,
                "snapshot": "response",
                "payload": {"ok": True},
                "http": {"status_code": 200},
            },
        ]
    return events


def open_problems(client) -> list:
    return client.get("/api/v1/problems").get_json()["problems"]


def messages(client, rule) -> list:
    return client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["messages"]


def test_a_problem_an_inference_change_empties_is_never_told(client, app, store, receiver):
    rule = add_rule(client, receiver)
    send(client, *paging_calls(0, 3))
    pipeline.catch_up(store)
    # written with the analysis
    assert len(open_problems(client)) == 2 and len(messages(client, rule)) == 2
    send(client, *paging_calls(3, 25))
    store.project_all()
    # the evidence of these calls changes the inferred mapping...
    pipeline.analyze_pending(store, limit=25)
    assert store.inferred_pairs("listPages") == [("/n", "/p"), ("/page", "/count")]
    # ...so the messages wait
    assert deliver_due(store, app.config) == 0 and receiver.accepted == []
    assert {m["state"] for m in messages(client, rule)} == {"pending"}
    # the re-analysis: every call is correct under the learnt pairs
    pipeline.catch_up(store)
    assert open_problems(client) == []
    # a waiting message is looked at again after RECHECK_S
    time.sleep(1.1)
    assert deliver_due(store, app.config) == 2
    assert receiver.accepted == [] and receiver.attempts == []
    assert {m["state"] for m in messages(client, rule)} == {"dropped"}
    log = client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["deliveries"]
    assert {d["state"] for d in log} == {"dropped"} and all(
        "no call shows TD-" in d["error"] for d in log
    )


def test_a_message_waits_no_longer_than_its_bound(db_path, store, receiver):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            "ALERT_SUMMARY_WAIT": 0,
            "ALERT_SETTLE_S": 0,
        }
    )
    client = app.test_client()
    add_rule(client, receiver)
    send(client, *paging_calls(0, 3))
    pipeline.catch_up(store)
    # a re-analysis that never comes within the bound
    store.invalidate_tool("listPages")
    assert deliver_due(store, app.config) == 2
    # sent as they stand
    assert len(receiver.accepted) == 2


def test_a_summary_sent_after_more_calls_carries_the_counts_of_when_it_is_sent(
    client, app, store, receiver
):
    add_rule(client, receiver)
    for t in range(6):
        store.put_tool(f"tool{t}", CONTRACT)
    first = [{**e, "tool": f"tool{t}"} for t in range(6) for e in call(trace(100 + t), at(-20))]
    send(client, *first)
    # six problems at once: one summary, written with one call each
    pipeline.catch_up(store)
    more = [
        {**e, "tool": "tool0"} for n in range(15) for e in call(trace(200 + n), at(-19 + n * 0.1))
    ]
    send(client, *more)
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["data"]["summary"] and body["data"]["count"] == 6
    by_tool = {p["tool"]: p for p in body["data"]["problems"]}
    assert by_tool["tool0"]["calls"] == 16 and by_tool["tool0"]["occurrences"] == 16
    assert by_tool["tool1"]["calls"] == 1
    # the outbox's own keys stay in the outbox
    assert "_ids" not in body["data"]


def test_a_summary_leaves_out_the_problems_no_call_shows_any_more(client, app, store, receiver):
    add_rule(client, receiver)
    for t in range(7):
        store.put_tool(f"tool{t}", CONTRACT)
    send(
        client,
        *[{**e, "tool": f"tool{t}"} for t in range(7) for e in call(trace(100 + t), at(-20))],
    )
    pipeline.catch_up(store)
    # tool0's only call is fixed by a later request snapshot: its problem is left with no call
    send(client, {**call(trace(100), at(-19), broken=False)[1], "tool": "tool0"})
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["data"]["count"] == 6 and body["data"]["title"] == "6 new problems at once"
    assert "tool0" not in {p["tool"] for p in body["data"]["problems"]}


def test_a_single_message_counts_its_calls_when_it_is_sent(client, app, store, receiver):
    add_rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-10)))
    pipeline.catch_up(store)
    send(client, *[e for n in range(4) for e in call(trace(2 + n), at(-9 + n))])
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["data"]["calls"] == 5 and body["type"] == "problem.new"


def test_the_delivery_log_names_each_message_problem_with_a_link(client, app, store, receiver):
    rule = add_rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-10)))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    answer = client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()
    named = {"id": "TD-1", "title": "/limit sent as string instead of integer"}
    assert answer["deliveries"][0]["problem"] == named and answer["messages"][0]["problem"] == named
    page = client.get("/settings/alerts").get_data(as_text=True)
    assert '<a href="/problems/TD-1">TD-1</a> /limit sent as string instead of integer' in page
