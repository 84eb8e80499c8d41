"""Releases in the store, on both engines.

Each release's calls and the problems first seen in it, releases in the order they appeared, the
problems a release broke or fixed against another, and the ones it regressed."""

from datetime import UTC, datetime, timedelta

import pytest
from problem_helpers import send
from release_helpers import CONTRACT, incident, order_call, stamp

from webapp import pipeline
from webapp.common import times
from webapp.pipeline.releases import compare_releases, list_releases
from webapp.problems.states import parse_change
from webapp.store.problem_filters import ProblemFilters
from webapp.web.problem_filters import ProblemQuery

BASE = datetime(2026, 11, 20, 8, tzinfo=UTC)


@pytest.fixture
def incident_store(client, store):
    """The four-hour incident (tests/release_helpers.py) analysed: an old problem from 1.0.0, two
    new in 1.1.0."""
    store.put_tool("findOrders", CONTRACT)
    send(client, *incident(BASE))
    pipeline.catch_up(store)
    return store


def problem_kinds(problems) -> set[tuple]:
    return {(p["kind"], (p["left"] or {}).get("path")) for p in problems}


def test_each_release_has_its_calls_first_and_last_seen_sources_and_the_problems_it_brought(
    incident_store,
):
    releases = list_releases(incident_store)
    assert [r["release"] for r in releases] == ["1.1.1", "1.1.0", "1.0.0"]
    by_name = {r["release"]: r for r in releases}
    assert [by_name[name]["new_problems"] for name in ("1.0.0", "1.1.0", "1.1.1")] == [1, 2, 0]
    assert by_name["1.0.0"]["calls"] == 15 and by_name["1.1.0"]["calls"] == 30
    assert by_name["1.0.0"]["first_seen"] == times.fixed(stamp(BASE, 0))
    assert by_name["1.0.0"]["last_seen"] == times.fixed(stamp(BASE, 56))
    assert by_name["1.0.0"]["sources"] == ["app_intent", "mcp"] and by_name["1.0.0"]["tools"] == [
        "findOrders"
    ]
    # 1.0.0: every fifth call broke (0, 5, 10 of 15); 1.1.0 broke more calls than it did not
    assert by_name["1.0.0"]["with_findings"] == 3 and by_name["1.1.0"]["with_findings"] > 15
    # the problem list agrees: one problem of 1.0.0 carried on, two more opened
    problems, _ = incident_store.find_problems(ProblemFilters())
    assert len(problems) == 3


def test_new_in_keeps_exactly_the_problems_first_seen_in_that_release(incident_store):
    new, _ = incident_store.find_problems(ProblemFilters(new_in="1.1.0"))
    assert problem_kinds(new) == {("enum_changed", "/status"), ("dropped", "/since")}
    old, _ = incident_store.find_problems(ProblemFilters(new_in="1.0.0"))
    assert problem_kinds(old) == {("type_changed", "/limit")} and "1.1.0" in old[0]["releases"]
    assert incident_store.find_problems(ProblemFilters(new_in="1.1.1"))[0] == []
    assert incident_store.find_problems(ProblemFilters(new_in="no-such-release"))[0] == []
    # it narrows the other filters and the counts per state, as any filter does
    assert sum(ProblemQuery(new_in="1.1.0").counts(incident_store).values()) == 2


def test_a_comparison_says_what_the_later_release_broke_and_what_it_fixed(incident_store):
    broke = compare_releases(incident_store, "1.0.0", "1.1.0")
    assert problem_kinds(broke["broke"]) == {("enum_changed", "/status"), ("dropped", "/since")}
    assert broke["fixed"] == []
    fixed = compare_releases(incident_store, "1.1.0", "1.1.1")
    assert fixed["broke"] == [] and problem_kinds(fixed["fixed"]) == {
        ("enum_changed", "/status"),
        ("dropped", "/since"),
    }
    assert {p["in_release"]["calls_in_compare"] for p in fixed["fixed"]} == {15}
    status = next(p for p in fixed["fixed"] if p["kind"] == "enum_changed")
    # every second call of 1.1.0's thirty
    assert status["in_release"]["calls"] == 15


def test_a_release_that_never_called_the_tool_fixed_nothing(client, incident_store):
    send(
        client,
        {
            "trace_id": "f" * 32,
            "call_id": "c",
            "tool": "otherTool",
            "snapshot": "arguments",
            "payload": {"x": 1},
            "ts": stamp(BASE, 250),
            "release": "1.2.0",
        },
    )
    pipeline.catch_up(incident_store)
    assert compare_releases(incident_store, "1.1.0", "1.2.0") == {"broke": [], "fixed": []}


def test_releases_are_ordered_by_first_seen_not_by_name(client, store):
    store.put_tool("findOrders", CONTRACT)
    # by name: 1.10.0 < 1.2.0 < 1.9.0 < 3f2a9c1d
    names = ["1.9.0", "1.10.0", "3f2a9c1d", "1.2.0"]
    for n, release in enumerate(names):
        send(client, *order_call(n, stamp(BASE, 10 * n), release))
    pipeline.catch_up(store)
    assert [r["release"] for r in list_releases(store)] == list(reversed(names))


def test_a_problem_that_breaks_again_after_its_resolve_counts_as_regressed_by_that_release(
    client, incident_store
):
    old = incident_store.find_problems(ProblemFilters(new_in="1.0.0"))[0][0]
    incident_store.change_problem(
        int(old["id"][3:]), parse_change({"state": "resolved", "resolve": "now"}), "test"
    )
    later = datetime.now(UTC) + timedelta(seconds=5)
    send(client, *order_call(1000, stamp(later, 0), "1.2.0", old_bug=True))
    pipeline.catch_up(incident_store)
    by_name = {r["release"]: r for r in list_releases(incident_store)}
    assert by_name["1.2.0"]["regressed_problems"] == 1 and by_name["1.2.0"]["new_problems"] == 0
    assert by_name["1.1.1"]["regressed_problems"] == 0
    assert incident_store.get_problem(int(old["id"][3:]))["state"] == "regressed"


def test_calls_without_a_release_make_no_release(client, store):
    store.put_tool("findOrders", CONTRACT)
    events = order_call(1, stamp(BASE, 0), "x")
    send(client, *[{k: v for k, v in event.items() if k != "release"} for event in events])
    pipeline.catch_up(store)
    assert list_releases(store) == []
