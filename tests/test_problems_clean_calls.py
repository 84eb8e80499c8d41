"""The clean call a problem is compared with exercised what broke.

It carries the problem's argument path, and for a response problem it had a response of the same
class (an error for an error-envelope problem), on both stores."""

from datetime import UTC, datetime

from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.analysis import DEFAULT_ERROR_SCHEMA
from webapp.pipeline.problems import read_problem
from webapp.problems.exercised import preferred, response_class
from webapp.store.problem_filters import ProblemFilters

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
ERROR = {"error": {"code": "bad_status", "message": "unknown status", "retryable": False}}


def without_limit(trace_id: str, ts: str) -> list:
    """A clean call that never sent `limit`: it says nothing about how limit is mapped."""
    events = call(trace_id, ts, broken=False)
    for event in events[:2]:
        event["payload"] = {"status": "paid"}
    return events


def answered(events: list, body: dict, status: int) -> list:
    return events[:2] + [{**events[2], "payload": body, "http": {"status_code": status}}]


def only(store) -> dict:
    [problem] = store.find_problems(ProblemFilters())[0]
    return read_problem(store, int(problem["id"][3:]))


def test_the_last_clean_call_before_carries_the_problem_argument_path(client, store):
    store.put_tool("findOrders", CONTRACT)
    # the break
    send(
        client,
        # exercised /limit, the older
        *call(trace(1), at(0, PAST), broken=False),
        # the newest clean call, without /limit
        *without_limit(trace(2), at(5, PAST)),
        *call(trace(3), at(10, PAST)),
    )
    pipeline.catch_up(store)
    clean = only(store)["last_clean_before"]
    assert (clean["trace_id"], clean["has_path"]) == (trace(1), True)


def test_without_a_clean_call_that_had_the_path_the_newest_clean_one_is_given_and_says_so(
    client, store
):
    store.put_tool("findOrders", CONTRACT)
    send(client, *without_limit(trace(2), at(5, PAST)), *call(trace(3), at(10, PAST)))
    pipeline.catch_up(store)
    clean = only(store)["last_clean_before"]
    assert (clean["trace_id"], clean["has_path"]) == (trace(2), False)


def test_an_error_envelope_problem_is_compared_with_a_clean_error_response(client, store):
    # the envelope declared
    store.put_tool("findOrders", {**CONTRACT, "error_schema": DEFAULT_ERROR_SCHEMA})
    # retryable lost
    send(
        client,
        # a correct error body
        *answered(call(trace(1), at(0, PAST), broken=False), ERROR, 400),
        # a success, newer
        *call(trace(2), at(5, PAST), broken=False),
        *answered(
            call(trace(3), at(10, PAST), broken=False),
            {"error": {"code": "bad_status", "message": "unknown status"}},
            400,
        ),
    )
    pipeline.catch_up(store)
    problem = only(store)
    assert problem["kind"] == "error_shape"
    clean = problem["last_clean_before"]
    assert (clean["trace_id"], clean["status_code"], clean["same_response"]) == (
        trace(1),
        400,
        True,
    )
    # "compare with the nearest clean call" picks the clean error too, not the success that is
    # nearer in time
    response = client.get(f"/problems/{problem['id']}/nearest")
    assert response.status_code == 303 and f"a={trace(1)}" in response.headers["Location"]


def test_the_preference_is_path_and_class_then_path_then_class_then_any():
    problem = {
        "kind": "status_mismatch",
        "left": None,
        "right": {"snapshot": "response", "path": ""},
        "stages": "response",
    }
    assert (
        response_class(problem, 200) == "success"
        and response_class({"kind": "error_shape"}) == "error"
    )
    assert (
        response_class(
            {
                "kind": "type_changed",
                "left": {"snapshot": "arguments", "path": "/limit"},
                "right": {"snapshot": "request", "path": "/limit"},
                "stages": "arguments>request",
            }
        )
        is None
    )
    calls = [
        {"id": "none", "arguments": {}, "status_code": 200},
        {"id": "class", "arguments": {}, "status_code": 404},
        {"id": "path", "arguments": {"limit": 1}, "status_code": 200},
        {"id": "both", "arguments": {"limit": 1}, "status_code": 500},
    ]
    order = []
    while calls:
        pool, _ = preferred(calls, "/limit", "error")
        order.append(pool[0]["id"])
        calls = [c for c in calls if c["id"] != pool[0]["id"]]
    assert order == ["both", "path", "class", "none"]
