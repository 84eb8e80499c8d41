"""A problem that opens or regresses sends the alerts h15's rules ask for.

With the problem as the API lists it."""

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.ops.sender import deliver_due
from webapp.problems.states import parse_change


@pytest.fixture
def app(alerting_app):
    # rules may point at the local receiver
    return alerting_app


def test_new_and_regressed_problems_send_signed_alerts(client, app, store, receiver):
    rule = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": ["new", "regressed"], "min_interval_s": 0},
    ).get_json()
    receiver.secret = rule["secret"]
    store.put_tool("findOrders", CONTRACT)
    send(
        client, *call(trace(1), at(-10), release="1.4.0"), *call(trace(2), at(-9), release="1.4.0")
    )
    pipeline.catch_up(store)
    # one problem, one message, however many calls
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.new"
    assert body["data"]["kind"] == "type_changed" and body["data"]["calls"] == 2
    assert body["data"]["releases"] == ["1.4.0"] and body["data"]["permalink"].endswith(
        body["data"]["id"]
    )
    number = int(body["data"]["id"][3:])
    store.change_problem(number, parse_change({"state": "resolved"}), "tester")
    store.invalidate_tool(None)
    # a re-analysis neither reopens it nor alerts
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 0
    send(client, *call(trace(3), at(1), release="1.4.2"))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    assert receiver.accepted[-1][1]["type"] == "problem.regressed"
    assert receiver.accepted[-1][1]["data"]["state"] == "regressed"


def _rule(client, receiver):
    rule = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": ["new", "regressed"], "min_interval_s": 0},
    ).get_json()
    receiver.secret = rule["secret"]


def test_a_backfill_of_old_logs_opens_problems_quietly(client, app, store, receiver):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-3 * 24 * 60)), *call(trace(2), at(-3 * 24 * 60 + 1)))
    pipeline.catch_up(store)
    assert client.get("/api/v1/problems").get_json()["problems"], "the problem is there"
    assert deliver_due(store, app.config) == 0


def test_many_problems_opening_at_once_send_one_summary(client, app, store, receiver):
    _rule(client, receiver)
    events = []
    # eight tools, each with its own mapping bug
    for n in range(8):
        events += [{**e, "tool": f"tool{n}"} for e in call(trace(100 + n), at(-1))]
    send(client, *events)
    pipeline.catch_up(store)
    assert len(client.get("/api/v1/problems").get_json()["problems"]) == 8
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.new" and body["data"]["summary"] and body["data"]["count"] == 8
    assert body["data"]["permalink"].endswith("/problems")


def test_a_few_new_problems_alert_one_by_one(client, app, store, receiver):
    _rule(client, receiver)
    events = []
    for n in range(3):
        events += [{**e, "tool": f"tool{n}"} for e in call(trace(200 + n), at(-1))]
    send(client, *events)
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 3
    assert {body["data"]["tool"] for _, body in receiver.accepted} == {"tool0", "tool1", "tool2"}


STRICTER = {
    **CONTRACT,
    "request_schema": {
        "type": "object",
        "required": ["limit", "status", "region"],
        "properties": {
            "limit": {"type": "integer"},
            "status": {"type": "string"},
            "region": {"type": "string"},
        },
    },
}


def test_a_reanalysis_that_opens_problems_sends_one_summary_never_one_each(
    client, app, store, receiver
):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-3), broken=False), *call(trace(2), at(-2), broken=False))
    pipeline.catch_up(store)
    assert client.get("/api/v1/problems").get_json()["problems"] == []
    # the contract now wants a region the calls never sent
    store.put_tool("findOrders", STRICTER)
    store.invalidate_tool("findOrders")
    pipeline.catch_up(store)
    opened = client.get("/api/v1/problems").get_json()["problems"]
    assert opened, "the stricter contract shows a problem in the recent calls"
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.new" and body["data"]["summary"] and body["data"]["reanalysis"]
    assert body["data"]["count"] == len(opened) and {p["id"] for p in body["data"]["problems"]} == {
        p["id"] for p in opened
    }


def test_a_snapshot_that_arrives_later_is_news_not_a_reanalysis(client, app, store, receiver):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    arguments, request, response = call(trace(1), at(-1))
    send(client, arguments)
    # the arguments alone break nothing
    pipeline.catch_up(store)
    send(client, request, response)
    # the same call, grouped again with its request: the problem is new
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.new" and not body["data"].get("summary")


def _news(receiver) -> list[str]:
    """The tools of the problem.new messages the receiver took (a summary counts as its
    problems)."""
    bodies = [body["data"] for _, body in receiver.accepted if body["type"] == "problem.new"]
    return sorted(
        p["tool"] for data in bodies for p in (data["problems"] if data.get("summary") else [data])
    )


def test_a_problem_opened_by_a_backfill_is_news_once_at_its_first_live_call(
    client, app, store, receiver
):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    # one failing call of an hour and a half ago: a backfill, quiet
    send(client, *call(trace(1), at(-90)))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 0
    # the bug, live
    send(client, *call(trace(2), at(-1)), *call(trace(3), at(-0.5)), *call(trace(4), at(0)))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert (
        body["type"] == "problem.new"
        and body["data"]["calls"] == 4
        and body["data"]["state"] == "new"
    )
    # told once: more live calls are not news
    send(client, *call(trace(5), at(0)))
    pipeline.catch_up(store)
    store.invalidate_tool(None)
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 0 and len(receiver.accepted) == 1


@pytest.mark.parametrize("batch", [1, 3, 200])
def test_a_shippers_batch_of_hours_old_calls_tells_of_each_live_bug_whatever_the_analysers_batches(
    client, app, store, receiver, batch
):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    events = []
    # each bug's calls 300 to 20 minutes old
    for n, tool in enumerate(["toolA", "toolB", "toolC", "toolD"]):
        events += [
            {**e, "tool": tool}
            for back in (300, 200, 100, 20)
            for e in call(trace(10 * n + back), at(-back))
        ]
    # all old
    events += [
        {**e, "tool": "toolE"} for back in (300, 61) for e in call(trace(9000 + back), at(-back))
    ]
    send(client, *events)
    while pipeline.analyze_pending(store, limit=batch):
        pass
    assert len(client.get("/api/v1/problems").get_json()["problems"]) == 5
    deliver_due(store, app.config)
    # toolE's calls are all a backfill
    assert _news(receiver) == ["toolA", "toolB", "toolC", "toolD"]


def test_a_quiet_problem_someone_has_changed_is_not_news_at_its_first_live_call(
    client, app, store, receiver
):
    _rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-3 * 60)))
    pipeline.catch_up(store)
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    links = ["https://tracker.example.com/INC-9"]
    assert (
        client.patch(f"/api/v1/problems/{problem['id']}", json={"links": links}).status_code == 200
    )
    # whoever linked a ticket knows of it: no "new" to open another
    send(client, *call(trace(2), at(0)))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 0


def test_a_problem_whose_top_pair_misses_a_side_is_alerted(client, app, store, receiver):
    """A dropped field's pair names the side that holds no value ([5, null, ["right"]]): its alert
    is written."""
    _rule(client, receiver)
    # its request schema names the field: one call can tell it lost
    store.put_tool("findOrders", CONTRACT)
    events = call(trace(1), at(-5), broken=False)
    # the request drops it
    del events[1]["payload"]["limit"]
    send(client, *events)
    assert pipeline.catch_up(store) == 1
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.new" and body["data"]["kind"] == "dropped"
