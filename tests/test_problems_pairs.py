"""A problem's most common values.

A pair that says nothing is not kept, a missing field reads "(missing)"."""

from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from problem_helpers import CONTRACT, at, send, trace

from webapp import pipeline
from webapp.cli import main

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
GET_USER = {
    "arguments_schema": {"type": "object", "properties": {"userId": {"type": "string"}}},
    "error_schema": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message", "retryable"],
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "retryable": {"type": "boolean"},
                },
            }
        },
    },
}


def get_user(n: int) -> list:
    """A getUser call answered 503 with an error body that lacks `retryable` (an error_shape
    problem)."""
    common = {"trace_id": trace(n), "call_id": "c", "tool": "getUser", "ts": at(n, PAST)}
    return [
        {**common, "snapshot": "arguments", "payload": {"userId": "u1"}},
        {**common, "snapshot": "request", "payload": {"user_id": "u1"}},
        {
            **common,
            "snapshot": "response",
            "payload": {"error": {"code": "unavailable", "message": "later"}},
            "http": {"status_code": 503},
        },
    ]


def dropped(n: int) -> list:
    """A findOrders call whose request leaves the status out (a dropped problem: a value against
    nothing)."""
    common = {"trace_id": trace(n), "call_id": "c", "tool": "findOrders", "ts": at(n, PAST)}
    return [
        {**common, "snapshot": "arguments", "payload": {"status": "paid", "limit": 5}},
        {**common, "snapshot": "request", "payload": {"limit": 5}},
    ]


@pytest.fixture
def loaded(client, store):
    store.put_tool("getUser", GET_USER)
    store.put_tool("findOrders", CONTRACT)
    send(client, *[e for n in range(1, 6) for e in get_user(n)], *dropped(10), *dropped(11))
    pipeline.catch_up(store)
    return client


def problem(client, kind: str) -> dict:
    listed = client.get("/api/v1/problems").get_json()["problems"]
    return client.get(
        f"/api/v1/problems/{next(p['id'] for p in listed if p['kind'] == kind)}"
    ).get_json()


def shown(client, db_path, pid: str) -> tuple[str, str, str]:
    """Return the problem's page, its Markdown and `tracediff problems show`."""
    cli = CliRunner().invoke(
        main, ["problems", "show", pid, "--db", str(db_path)], catch_exceptions=False
    )
    return (
        client.get(f"/problems/{pid}").get_data(as_text=True),
        client.get(f"/problems/{pid}.md").get_data(as_text=True),
        cli.output,
    )


def test_a_missing_field_against_nothing_keeps_no_value_pair(loaded, db_path):
    body = problem(loaded, "error_shape")
    assert body["occurrences"] == 5 and body["value_pairs"] == []
    page, markdown, cli = shown(loaded, db_path, body["id"])
    assert "Most common values" not in page and "Most common values" not in markdown
    assert "null" not in cli and "`null` -> `null`" not in markdown


def test_a_value_against_a_missing_field_says_missing_not_null(loaded, db_path):
    body = problem(loaded, "dropped")
    assert body["value_pairs"] == [
        {"left": "paid", "right": None, "missing": ["right"], "count": 2}
    ]
    page, markdown, cli = shown(loaded, db_path, body["id"])
    assert '<code>"paid"</code></td><td>→</td><td><i>(missing)</i></td>' in page
    assert '- `"paid"` -> (missing) x 2' in markdown and '  "paid" -> (missing) x 2' in cli
    assert "null" not in cli.split("grouped by")[1]


def test_a_pair_stored_before_pairs_that_say_nothing_were_dropped_is_not_shown(loaded, store):
    body = problem(loaded, "error_shape")
    with store.write() as conn:
        conn.execute(
            "INSERT INTO problem_pairs (problem_id, pair, count) VALUES (?, ?, ?)",
            (int(body["id"][3:]), "[null,null]", 5),
        )
    assert problem(loaded, "error_shape")["value_pairs"] == []
