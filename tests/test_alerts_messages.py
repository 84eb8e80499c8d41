"""What alerts say.

One line of what broke and how often, and `data` that is the problem exactly as the API lists it."""

from datetime import UTC, datetime, timedelta

import orjson
import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.alerts.messages import slack_body
from webapp.alerts.wording import problem_line, problem_title
from webapp.analysis import FINDING_KINDS
from webapp.ops.sender import deliver_due
from webapp.problems.states import parse_change
from webapp.reports.problems import ticket_title


@pytest.fixture
def app(alerting_app):
    # the test client's host: permalinks compare as they are
    alerting_app.config["PUBLIC_URL"] = "http://localhost"
    return alerting_app


def add_rule(client, receiver, fmt="webhook", on=("new", "regressed", "escalating")) -> dict:
    rule = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "format": fmt, "on": list(on), "min_interval_s": 0},
    ).get_json()
    receiver.secret = rule["secret"] if fmt == "webhook" else None
    return rule


def spread(first: int, count: int, start_min: float, end_min: float, **extra) -> list:
    """`count` broken findOrders calls from `start_min` to `end_min` minutes from now."""
    step = (end_min - start_min) / max(1, count - 1)
    return [
        e for n in range(count) for e in call(trace(first + n), at(start_min + n * step), **extra)
    ]


def week_then_burst(client, store, count: int) -> None:
    """A week of findOrders sending limit as a string every six hours (a backfill, quiet), then
    `count` calls in this clock hour and the last 50 minutes, from release 1.4.2."""
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *[
            e
            for n in range(28)
            for e in call(trace(1 + n), at(-(7 * 24 - 6 * n) * 60 + 30), release="1.4.0")
        ],
    )
    pipeline.catch_up(store)
    now = datetime.now(UTC)
    start = max(now.replace(minute=0, second=0, microsecond=0), now - timedelta(minutes=50))
    send(client, *spread(100, count, -(now - start).total_seconds() / 60, 0, release="1.4.2"))
    pipeline.catch_up(store)


def test_a_new_and_a_regressed_problem_say_what_broke_how_often_and_since_when(
    client, app, store, receiver
):
    add_rule(client, receiver, fmt="slack")
    store.put_tool("findOrders", CONTRACT)
    send(client, *spread(1, 83, -10, 0, release="1.4.2"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    assert receiver.accepted[-1][1]["text"] == (
        "findOrders: /limit sent as string instead of integer, 83 calls in 10 min since 1.4.2 "
        "(new, TD-1)"
    )
    store.change_problem(1, parse_change({"state": "resolved"}), "tester")
    # after the fix: the calls since it, not all 86
    send(client, *spread(200, 3, 0.5, 2.5, release="1.4.3"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    assert receiver.accepted[-1][1]["text"] == (
        "findOrders: /limit sent as string instead of integer, 3 calls in 2 min since 1.4.3 "
        "(regressed, TD-1)"
    )


def test_an_escalation_says_the_hours_calls_against_the_7_day_mean(client, app, store, receiver):
    add_rule(client, receiver, fmt="slack", on=("escalating",))
    week_then_burst(client, store, 12)
    assert deliver_due(store, app.config) == 1
    text = receiver.accepted[0][1]["text"]
    assert text == (
        "findOrders: /limit sent as string instead of integer, 12 calls in the last hour "
        "(7-day mean 0.2/h) since 1.4.2 (escalating, TD-1)"
    )
    # the problem's total is not what grew
    assert "40 calls" not in text


def listed(client, problem_id: str) -> dict:
    """Return a problem's entry in GET /api/v1/problems."""
    return next(
        p
        for p in client.get("/api/v1/problems?limit=500").get_json()["problems"]
        if p["id"] == problem_id
    )


def assert_as_the_api_lists_it(client, data: dict) -> None:
    assert data == listed(client, data["id"])
    detail = client.get(f"/api/v1/problems/{data['id']}").get_json()
    assert {key: detail[key] for key in data} == data


def test_the_webhook_data_of_every_type_is_the_problem_as_the_api_lists_it(
    client, app, store, receiver
):
    add_rule(client, receiver)
    store.put_tool("findOrders", CONTRACT)
    send(client, *spread(1, 2, -3, -2, release="1.4.0", source="fluent-bit"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    [(_, new)] = receiver.accepted
    assert new["type"] == "problem.new" and new["data"]["contract_digests"]
    assert_as_the_api_lists_it(client, new["data"])

    links = ["https://tracker.example.com/INC-7"]
    assert (
        client.patch(
            "/api/v1/problems/TD-1", json={"state": "resolved", "links": links}
        ).status_code
        == 200
    )
    send(client, *spread(10, 1, 0.2, 0.2, release="1.4.2"))
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    regressed = receiver.accepted[-1][1]
    assert regressed["type"] == "problem.regressed" and regressed["data"]["links"] == links
    assert (
        regressed["data"]["state"] == "regressed"
        and "_line" not in orjson.dumps(regressed).decode()
    )
    assert_as_the_api_lists_it(client, regressed["data"])


def test_the_escalating_webhook_data_is_the_problem_as_the_api_lists_it(
    client, app, store, receiver
):
    add_rule(client, receiver, on=("escalating",))
    week_then_burst(client, store, 12)
    deliver_due(store, app.config)
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.escalating" and body["data"]["calls"] == 40
    assert_as_the_api_lists_it(client, body["data"])


def ends(left: str | None, right: str | None, stages: str = "arguments>request") -> dict:
    """A problem's two ends at these paths, on these stages."""
    first, second = (stages.split(">") * 2)[:2]
    return {
        "stages": stages,
        "left": None if left is None else {"snapshot": first, "path": left},
        "right": None if right is None else {"snapshot": second, "path": right},
    }


# adults and children swapped: 0 adults sent as 2
SWAP = {"left": 0, "right": 2}
# each kind: what its problem is, and what its one line must say (a pair of values where they say
# it)
SAID = {
    "renamed": (
        {**ends("/customerId", "/customer_ref")},
        "/customerId sent under another key, /customer_ref",
    ),
    "case_changed": (
        {"transform": "camelCase>snake_case", **ends("/orderId", "/order_id")},
        "/orderId sent as /order_id (snake_case instead of camelCase)",
    ),
    "moved": ({**ends("/city", "/location/city")}, "/city sent at another level, /location/city"),
    "type_changed": (
        {"transform": "integer>string", **ends("/limit", "/limit")},
        "/limit sent as string instead of integer",
    ),
    "enum_changed": (
        {"transform": "UPPER>lower", **ends("/currency", "/ccy")},
        "/currency sent to /ccy as lower instead of UPPER",
    ),
    "format_changed": (
        {"transform": "iso8601>epoch", **ends("/at", "/at")},
        "/at sent as epoch instead of iso8601",
    ),
    "scaled": (
        {"transform": "x100", **ends("/amount", "/amount_cents")},
        "/amount sent to /amount_cents multiplied by 100",
    ),
    "value_changed": (
        {**ends("/adults", "/guests/adult_count")},
        "value changed between /adults and /guests/adult_count (0 -> 2)",
    ),
    "dropped": ({**ends("/region", None)}, "/region dropped on the way to the request"),
    "added": (
        {**ends(None, "/internal_cost_center")},
        "/internal_cost_center sent but given by no argument",
    ),
    "echo_mismatch": (
        {**ends("/order_id", "/order/id", "request>response")},
        "the response echoes /order_id at /order/id with another value (0 -> 2)",
    ),
    "error_shape": (
        {**ends(None, "/error/retryable", "response")},
        "an error response breaks the error schema at /error/retryable",
    ),
    "status_mismatch": ({**ends(None, "", "response")}, "the status and the body disagree at /"),
    "invalid_json": (
        {**ends(None, "", "request")},
        "the request is a string that is not valid JSON",
    ),
    "drift": (
        {"transform": "integer>string", **ends(None, "/total_cents", "response")},
        "response /total_cents now string, where it was integer",
    ),
    "error_hidden": (
        {**ends("/error", "", "response>result")},
        "an error response (/error) reached the model as a success",
    ),
    "error_invented": (
        {**ends("", "", "response>result")},
        "a successful response reached the model as a failure",
    ),
    "result_large": (
        {**ends(None, "", "result")},
        "the result handed to the model is past the tool's budget",
    ),
    "schema_violation": (
        {"keyword": "required", **ends(None, "", "request")},
        "request / breaks the schema (required)",
    ),
}


def test_every_finding_kind_and_a_schema_violation_has_its_words():
    assert set(SAID) == {kind for kind, _ in FINDING_KINDS} | {"schema_violation"}


@pytest.mark.parametrize("kind", sorted(SAID))
def test_a_problem_of_each_kind_is_said_as_what_broke_in_its_line_and_its_ticket_title(kind):
    problem, said = SAID[kind]
    problem = {"id": "TD-22", "tool": "bookHotel", "kind": kind, "transform": None, **problem}
    facts = {
        "calls": 4,
        "first": "2026-12-01T10:00:00Z",
        "last": "2026-12-01T10:01:00Z",
        "since": "3.0.1",
        "pair": SWAP,
    }
    assert problem_title(problem, SWAP) == said
    assert (
        problem_line("problem.new", problem, facts)
        == f"bookHotel: {said}, 4 calls in 1 min since 3.0.1 (new, TD-22)"
    )
    ticket = {**problem, "value_pairs": [{**SWAP, "count": 4}]}
    # the Markdown title says the same
    assert ticket_title(ticket).startswith(f"bookHotel: {said} (")


def test_swapped_arguments_are_said_as_a_changed_value_with_the_values_not_as_a_rename(
    client, app, store, receiver
):
    add_rule(client, receiver, fmt="slack", on=("new",))
    store.put_tool(
        "bookHotel",
        {
            "mapping": [
                {"arguments": "/adults", "request": "/guests/adult_count"},
                {"arguments": "/children", "request": "/guests/child_count"},
            ]
        },
    )
    for n, (adults, children) in enumerate([(0, 2), (2, 0), (1, 3)]):
        common = {
            "trace_id": trace(n + 1),
            "call_id": "c",
            "tool": "bookHotel",
            "ts": at(-3 + n),
            "release": "3.0.1",
        }
        send(
            client,
            {
                **common,
                "snapshot": "arguments",
                "payload": {"adults": adults, "children": children},
            },
            {
                **common,
                "snapshot": "request",
                "payload": {"guests": {"adult_count": children, "child_count": adults}},
            },
        )
    pipeline.catch_up(store)
    deliver_due(store, app.config)
    texts = sorted(body["text"] for _, body in receiver.accepted)
    assert texts and all(" sent as " not in text for text in texts), texts
    assert any(
        text.startswith("bookHotel: value changed between /adults and /guests/adult_count (")
        for text in texts
    ), texts


def test_the_slack_line_escapes_every_part_of_the_payload():
    problem = {
        "id": "TD-9",
        "tool": "<!channel> & <http://evil.example|click>",
        "kind": "type_changed",
        "transform": "integer>string",
        "left": {"snapshot": "arguments", "path": "/<b>"},
        "right": {"snapshot": "request", "path": "/<b>"},
        "links": ["https://t.example/<x>&y"],
        "permalink": "https://tracediff.example.com/problems/TD-9",
    }
    facts = {
        "calls": 240,
        "first": None,
        "last": None,
        "since": "<@U123>",
        "mean_per_hour": 3.0,
        "days": 7,
    }
    body = orjson.loads(slack_body("problem.escalating", problem, facts))
    texts = [
        body["text"],
        body["blocks"][0]["text"]["text"],
        body["blocks"][2]["elements"][0]["text"],
    ]
    for text in texts:
        assert "<" not in text and ">" not in text and "& " not in text
    assert body["text"] == (
        "&lt;!channel&gt; &amp; &lt;http://evil.example|click&gt;: /&lt;b&gt; sent as string "
        "instead of integer, 240 calls in the last hour (7-day mean 3/h) since &lt;@U123&gt; "
        "(escalating, TD-9)"
    )
