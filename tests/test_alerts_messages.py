"""What alerts say: one line of what broke and how often, and `data` that is the problem exactly as the API lists it."""
from datetime import datetime, timedelta, timezone

import orjson
import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.alerts.messages import slack_body
from webapp.alerts.sender import deliver_due
from webapp.alerts.wording import what_broke
from webapp.problems.states import parse_change


@pytest.fixture
def app(alerting_app):
    alerting_app.config["PUBLIC_URL"] = "http://localhost"  # the test client's host: permalinks compare as they are
    return alerting_app


def add_rule(client, receiver, fmt="webhook", on=("new", "regressed", "escalating")) -> dict:
    rule = client.post("/api/v1/alerts", json={"url": receiver.url, "format": fmt, "on": list(on),
                                                "min_interval_s": 0}).get_json()
    receiver.secret = rule["secret"] if fmt == "webhook" else None
    return rule


def spread(first: int, count: int, start_min: float, end_min: float, **extra) -> list:
    """`count` broken findOrders calls from `start_min` to `end_min` minutes from now."""
    step = (end_min - start_min) / max(1, count - 1)
    return [e for n in range(count) for e in call(trace(first + n), at(start_min + n * step), **extra)]


def week_then_burst(client, store, count: int) -> None:
    """A week of findOrders sending limit as a string every six hours (a backfill, quiet), then `count` calls in
    this clock hour and the last 50 minutes, from release 1.4.2."""
    store.put_tool("findOrders", CONTRACT)
    send(client, *[e for n in range(28) for e in call(trace(1 + n), at(-(7 * 24 - 6 * n) * 60 + 30), release="1.4.0")])
    pipeline.catch_up(store)
    now = datetime.now(timezone.utc)
    start = max(now.replace(minute=0, second=0, microsecond=0), now - timedelta(minutes=50))
    send(client, *spread(100, count, -(now - start).total_seconds() / 60, 0, release="1.4.2"))
    pipeline.catch_up(store)


def test_a_new_and_a_regressed_problem_say_what_broke_how_often_and_since_when(client, app, store, receiver):
    add_rule(client, receiver, fmt="slack")
    store.put_tool("findOrders", CONTRACT)
    send(client, *spread(1, 83, -10, 0, release="1.4.2"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    assert receiver.accepted[-1][1]["text"] == (
        "findOrders: /limit sent as string instead of integer, 83 calls in 10 min since 1.4.2 (new, TD-1)")
    store.change_problem(1, parse_change({"state": "resolved"}), "tester")
    send(client, *spread(200, 3, 0.5, 2.5, release="1.4.3"))  # after the fix: the calls since it, not all 86
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    assert receiver.accepted[-1][1]["text"] == (
        "findOrders: /limit sent as string instead of integer, 3 calls in 2 min since 1.4.3 (regressed, TD-1)")


def test_an_escalation_says_the_hours_calls_against_the_7_day_mean(client, app, store, receiver):
    add_rule(client, receiver, fmt="slack", on=("escalating",))
    week_then_burst(client, store, 12)
    assert deliver_due(store, app.config) == 1
    text = receiver.accepted[0][1]["text"]
    assert text == ("findOrders: /limit sent as string instead of integer, 12 calls in the last hour "
                    "(7-day mean 0.2/h) since 1.4.2 (escalating, TD-1)")
    assert "40 calls" not in text  # the problem's total is not what grew


def listed(client, problem_id: str) -> dict:
    """Return a problem's entry in GET /api/v1/problems."""
    return next(p for p in client.get("/api/v1/problems?limit=500").get_json()["problems"] if p["id"] == problem_id)


def assert_as_the_api_lists_it(client, data: dict) -> None:
    assert data == listed(client, data["id"])
    detail = client.get(f"/api/v1/problems/{data['id']}").get_json()
    assert {key: detail[key] for key in data} == data


def test_the_webhook_data_of_every_type_is_the_problem_as_the_api_lists_it(client, app, store, receiver):
    add_rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *spread(1, 2, -3, -2, release="1.4.0", source="fluent-bit"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    [(_, new)] = receiver.accepted
    assert new["type"] == "problem.new" and new["data"]["contract_digests"]
    assert_as_the_api_lists_it(client, new["data"])

    links = ["https://tracker.example.com/INC-7"]
    assert client.patch("/api/v1/problems/TD-1", json={"state": "resolved", "links": links}).status_code == 200
    send(client, *spread(10, 1, 0.2, 0.2, release="1.4.2"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    regressed = receiver.accepted[-1][1]
    assert regressed["type"] == "problem.regressed" and regressed["data"]["links"] == links
    assert regressed["data"]["state"] == "regressed" and "_line" not in orjson.dumps(regressed).decode()
    assert_as_the_api_lists_it(client, regressed["data"])


def test_the_escalating_webhook_data_is_the_problem_as_the_api_lists_it(client, app, store, receiver):
    add_rule(client, receiver, on=("escalating",))
    week_then_burst(client, store, 12)
    deliver_due(store, app.config)
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.escalating" and body["data"]["calls"] == 40
    assert_as_the_api_lists_it(client, body["data"])


@pytest.mark.parametrize("problem,said", [
    ({"kind": "type_changed", "transform": "integer>string", "left": {"snapshot": "arguments", "path": "/limit"},
      "right": {"snapshot": "request", "path": "/limit"}}, "/limit sent as string instead of integer"),
    ({"kind": "case_changed", "transform": "camelCase>snake_case",
      "left": {"snapshot": "arguments", "path": "/orderId"}, "right": {"snapshot": "request", "path": "/order_id"}},
     "/orderId sent as /order_id (snake_case instead of camelCase)"),
    ({"kind": "scaled", "transform": "x100", "left": {"snapshot": "arguments", "path": "/amount"},
      "right": {"snapshot": "request", "path": "/amount"}}, "/amount sent multiplied by 100"),
    ({"kind": "dropped", "stages": "arguments>request", "left": {"snapshot": "arguments", "path": "/region"},
      "right": None}, "/region dropped on the way to the request"),
    ({"kind": "schema_violation", "keyword": "required", "left": None, "right": {"snapshot": "request", "path": ""}},
     "request / breaks the schema (required)"),
])
def test_a_problem_is_said_in_words(problem, said):
    assert what_broke(problem) == said


def test_the_slack_line_escapes_every_part_of_the_payload():
    problem = {"id": "TD-9", "tool": "<!channel> & <http://evil.example|click>", "kind": "type_changed",
               "transform": "integer>string", "left": {"snapshot": "arguments", "path": "/<b>"},
               "right": {"snapshot": "request", "path": "/<b>"}, "links": ["https://t.example/<x>&y"],
               "permalink": "https://tracediff.example.com/problems/TD-9"}
    facts = {"calls": 240, "first": None, "last": None, "since": "<@U123>", "mean_per_hour": 3.0, "days": 7}
    body = orjson.loads(slack_body("problem.escalating", problem, facts))
    texts = [body["text"], body["blocks"][0]["text"]["text"], body["blocks"][2]["elements"][0]["text"]]
    for text in texts:
        assert "<" not in text and ">" not in text and "& " not in text
    assert body["text"] == ("&lt;!channel&gt; &amp; &lt;http://evil.example|click&gt;: /&lt;b&gt; sent as string "
                            "instead of integer, 240 calls in the last hour (7-day mean 3/h) since &lt;@U123&gt; "
                            "(escalating, TD-9)")
