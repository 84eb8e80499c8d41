"""Exposure is a function of the calls stored.

Not of the order they were analysed in: a call counts toward a problem when it broke it, or came at
or after its first seen with its argument path."""

from datetime import UTC, datetime

from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.pipeline.changes import change_problem
from webapp.store.problem_filters import ProblemFilters

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)


def exposure(store) -> dict:
    problems, _ = store.find_problems(ProblemFilters())
    assert len(problems) == 1, [p["kind"] for p in problems]
    return store.get_problem(int(problems[0]["id"][3:]))["exposure"]


def reanalysed(store) -> dict:
    store.invalidate_tool(None)
    pipeline.catch_up(store)
    return exposure(store)


def clean(client, store, minutes) -> None:
    send(
        client,
        *[event for m in minutes for event in call(trace(1000 + m), at(m, PAST), broken=False)],
    )
    pipeline.catch_up(store)


def test_calls_before_the_problem_opened_count_neither_live_nor_after_a_reanalysis(client, store):
    store.put_tool("findOrders", CONTRACT)
    # an hour of correct traffic before the bug
    clean(client, store, range(10))
    send(
        client,
        *call(trace(1), at(60, PAST)),
        *call(trace(2), at(61, PAST)),
        *call(trace(3), at(62, PAST)),
    )
    pipeline.catch_up(store)
    clean(client, store, (70, 71))
    live = exposure(store)
    assert (live["calls"], live["calls_with_path"]) == (3, 5)
    assert reanalysed(store) == live


def test_a_late_call_that_shows_the_problem_earlier_counts_the_calls_analysed_before_it(
    client, store
):
    store.put_tool("findOrders", CONTRACT)
    clean(client, store, range(10, 20))
    send(client, *call(trace(1), at(30, PAST)))
    pipeline.catch_up(store)
    assert exposure(store)["calls_with_path"] == 1
    # a shipper's late batch: the problem was there at 15
    send(client, *call(trace(2), at(15, PAST)))
    pipeline.catch_up(store)
    live = exposure(store)
    # the clean calls at 15..19 count now
    assert (live["calls"], live["calls_with_path"]) == (2, 2 + 5)
    assert reanalysed(store) == live


def test_a_problem_opened_by_a_late_call_counts_the_calls_after_it(client, store):
    store.put_tool("findOrders", CONTRACT)
    clean(client, store, range(10, 20))
    # first seen at 12, after clean calls from 10 to 19 were analysed
    send(client, *call(trace(1), at(12, PAST)))
    pipeline.catch_up(store)
    live = exposure(store)
    assert (live["calls"], live["calls_with_path"]) == (1, 1 + 8)
    assert reanalysed(store) == live


def test_when_the_first_break_is_fixed_the_calls_before_the_next_one_count_no_more(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST)), *call(trace(2), at(30, PAST)))
    pipeline.catch_up(store)
    clean(client, store, range(10, 20))
    assert exposure(store)["calls_with_path"] == 12
    # the first call's request, sent right
    send(client, call(trace(1), at(1, PAST), broken=False)[1])
    pipeline.catch_up(store)
    live = exposure(store)
    # first seen is 30 now: nothing before counts
    assert (live["calls"], live["calls_with_path"]) == (1, 1)
    assert reanalysed(store) == live


def test_retention_leaves_the_exposure_a_reanalysis_of_the_calls_left_would_give(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST)), *call(trace(2), at(30, PAST)))
    pipeline.catch_up(store)
    clean(client, store, (5, 10, 40, 50))
    assert exposure(store)["calls_with_path"] == 6
    # the first break goes: first seen moves to 30
    assert store.prune(at(1, PAST)) == 1
    live = exposure(store)
    # the break at 30, the clean calls at 40 and 50
    assert (live["calls"], live["calls_with_path"]) == (1, 3)
    assert reanalysed(store) == live


def test_a_merge_counts_the_calls_it_moved_and_those_since_the_earlier_first_seen(client, store):
    from webapp.problems.states import parse_change

    store.put_tool("findOrders", CONTRACT)
    clean(client, store, (10, 20))
    common = {"trace_id": trace(50), "call_id": "call_01", "tool": "findOrders", "ts": at(0, PAST)}
    send(
        client,
        # no /limit: status upper-cased
        {**common, "snapshot": "arguments", "payload": {"status": "paid"}},
        {**common, "snapshot": "request", "payload": {"status": "PAID"}},
    )
    send(client, *call(trace(1), at(30, PAST)))
    pipeline.catch_up(store)
    problems, _ = store.find_problems(ProblemFilters())
    limit, status = sorted(problems, key=lambda p: p["kind"] != "type_changed")
    assert store.get_problem(int(limit["id"][3:]))["exposure"]["calls_with_path"] == 1
    change_problem(
        store, int(status["id"][3:]), parse_change({"merged_into": limit["id"]}), "tester"
    )
    live = store.get_problem(int(limit["id"][3:]))["exposure"]
    # the moved call, the clean calls at 10 and 20
    assert (live["calls"], live["calls_with_path"]) == (2, 4)
    store.invalidate_tool(None)
    pipeline.catch_up(store)
    assert store.get_problem(int(limit["id"][3:]))["exposure"] == live
