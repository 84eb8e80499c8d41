"""Problem records.

Counted once per call, stable under re-analysis, moved between states by the events' own time."""

from datetime import UTC, datetime, timedelta

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.common import times
from webapp.pipeline.changes import change_problem
from webapp.pipeline.problems import read_problem
from webapp.problems.states import parse_change
from webapp.store.problem_filters import ProblemFilters

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)


@pytest.fixture
def world(client, store):
    """A findOrders contract, three broken calls in two traces and one clean call, all analysed."""
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *call(trace(1), at(0, PAST), source="app_intent", release="1.4.0"),
        *call(
            trace(1), at(1, PAST), call_id="call_02", limit=7, source="app_intent", release="1.4.0"
        ),
        *call(trace(2), at(60, PAST), source="foundation_models", release="1.4.0"),
        *call(trace(3), at(120, PAST), broken=False, release="1.4.0"),
    )
    pipeline.catch_up(store)
    return store


def only_problem(store) -> dict:
    problems, _ = store.find_problems(ProblemFilters())
    assert len(problems) == 1, [p["kind"] for p in problems]
    return read_problem(store, int(problems[0]["id"][3:]))


def snapshot(store) -> list:
    """Everything a person reads about the problems, for comparing before and after re-analysis."""
    problems, _ = store.find_problems(ProblemFilters())
    out = []
    for p in problems:
        detail = store.get_problem(int(p["id"][3:]))
        detail.pop("state_history")
        out.append((detail, store.problem_hourly(int(p["id"][3:]), "2000", "3000")))
    return out


def test_three_broken_calls_are_one_problem_with_reach_splits_and_value_pairs(world):
    p = only_problem(world)
    assert (p["kind"], p["tool"], p["transform"]) == (
        "type_changed",
        "findOrders",
        "integer>string",
    )
    assert (p["occurrences"], p["calls"], p["traces"]) == (3, 3, 2)
    assert p["first_seen"] == times.fixed(at(0, PAST)) and p["last_seen"] == times.fixed(
        at(60, PAST)
    )
    assert p["releases"] == ["1.4.0"] and p["sources"] == ["app_intent", "foundation_models"]
    assert {(v["left"], v["right"], v["count"]) for v in p["value_pairs"]} == {
        (5, "5", 2),
        (7, "7", 1),
    }
    assert p["exposure"] == {"occurrences": 3, "calls": 3, "calls_with_path": 4, "rate": 0.75}
    assert p["examples"]["first"]["trace_id"] == trace(1) and p["examples"]["latest"][
        "trace_id"
    ] == trace(2)
    assert world.problem_hourly(int(p["id"][3:]), "2026-11-20T09", "2026-11-20T10") == {
        "2026-11-20T09": 2,
        "2026-11-20T10": 1,
    }
    assert len(p["contract_digests"]) == 1


def test_reanalysing_every_call_keeps_the_same_problems_ids_and_counts(world):
    before = snapshot(world)
    for _ in range(2):
        world.invalidate_tool(None)
        pipeline.catch_up(world)
        assert snapshot(world) == before


def test_a_resent_batch_is_not_counted_twice(client, world):
    before = snapshot(world)
    send(client, *call(trace(1), at(0, PAST), source="app_intent", release="1.4.0"))
    pipeline.catch_up(world)
    assert snapshot(world) == before


def test_a_call_fixed_by_a_later_snapshot_leaves_the_problem(client, world):
    send(client, {**call(trace(2), at(61, PAST), broken=False)[1], "source": "foundation_models"})
    pipeline.catch_up(world)
    p = only_problem(world)
    assert (p["occurrences"], p["calls"], p["traces"]) == (2, 2, 1)
    assert p["last_seen"] == times.fixed(at(1, PAST)) and p["sources"] == ["app_intent"]
    # the rollups lose the fixed call's part, and the rows it alone held
    assert world.problem_hourly(int(p["id"][3:]), "2026-11-20T00", "2026-11-20T23") == {
        "2026-11-20T09": 2
    }
    assert {(v["left"], v["right"], v["count"]) for v in p["value_pairs"]} == {
        (5, "5", 1),
        (7, "7", 1),
    }
    assert p["by_source"] == [{"source": "app_intent", "occurrences": 2, "calls": 2}]


def resolve(store, body: dict) -> int:
    number = int(store.find_problems(ProblemFilters())[0][0]["id"][3:])
    change_problem(store, number, parse_change(body), "tester")
    return number


def test_resolved_now_regresses_only_on_a_later_failing_call(client, world):
    number = resolve(world, {"state": "resolved", "resolve": "now"})
    # a backfill of old logs, a shipper's retry and a re-analysis never reopen it
    send(client, *call(trace(4), at(30, PAST)))
    send(client, *call(trace(2), at(60, PAST), source="foundation_models", release="1.4.0"))
    pipeline.catch_up(world)
    world.invalidate_tool(None)
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "resolved"
    send(client, *call(trace(5), at(1)))
    pipeline.catch_up(world)
    p = world.get_problem(number)
    assert p["state"] == "regressed"
    assert (
        p["state_history"][0]["by"] == "tracediff" and trace(5) in p["state_history"][0]["detail"]
    )
    assert [h["state"] for h in p["state_history"]] == ["regressed", "resolved", "open"]


def test_after_a_resolve_the_page_counts_calls_that_exercised_the_path(client, world):
    number = resolve(world, {"state": "resolved", "resolve": "now"})
    send(client, *call(trace(6), at(1), broken=False), *call(trace(7), at(2), broken=False))
    pipeline.catch_up(world)
    p = world.get_problem(number)
    assert p["state"] == "resolved" and p["verification"] == {"calls": 2, "broke": 0}


def test_resolved_in_the_next_release_regresses_only_from_another_release(client, world):
    number = resolve(world, {"state": "resolved", "resolve": "next_release"})
    # old clients still run the broken release
    send(client, *call(trace(8), at(1), release="1.4.0"))
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "resolved"
    send(client, *call(trace(9), at(2), release="1.4.2"))
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "regressed"


def test_resolved_on_contract_change_regresses_only_under_another_contract(client, world):
    number = resolve(world, {"state": "resolved", "resolve": "contract_change"})
    send(client, *call(trace(10), at(1)))
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "resolved"
    world.put_tool("findOrders", {**CONTRACT, "description": "v2"})
    # the re-analysis under the new contract does not reopen it
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "resolved"
    send(client, *call(trace(11), at(2)))
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "regressed"


def test_resolved_after_n_clean_calls_that_exercised_the_path(client, world):
    number = resolve(world, {"state": "resolved", "resolve": {"after_clean_calls": 2}})
    send(client, *call(trace(12), at(1), broken=False))
    pipeline.catch_up(world)
    # first seen on PAST, over 7 days ago
    assert read_problem(world, number)["state"] == "ongoing"
    # a break starts the count again
    send(client, *call(trace(13), at(2)))
    send(client, *call(trace(14), at(3), broken=False))
    pipeline.catch_up(world)
    # first seen on PAST, over 7 days ago
    assert read_problem(world, number)["state"] == "ongoing"
    send(client, *call(trace(15), at(4), broken=False))
    pipeline.catch_up(world)
    p = world.get_problem(number)
    assert (
        p["state"] == "resolved"
        and p["state_history"][0]["detail"] == "2 clean calls exercised the path"
    )


def test_archived_until_escalating_comes_back_when_it_escalates(client, world):
    number = resolve(world, {"state": "archived", "until": "escalating"})
    send(client, *[e for n in range(5) for e in call(trace(100 + n), at(1 + n))])
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "archived"
    send(client, *[e for n in range(5, 12) for e in call(trace(100 + n), at(1 + n))])
    pipeline.catch_up(world)
    # first seen on PAST, over 7 days ago
    assert read_problem(world, number)["state"] == "ongoing"


def test_archived_for_good_stays_archived(client, world):
    number = resolve(world, {"state": "archived", "until": None})
    send(client, *[e for n in range(12) for e in call(trace(200 + n), at(1 + n))])
    pipeline.catch_up(world)
    assert world.get_problem(number)["state"] == "archived"


def test_merging_moves_calls_and_new_findings_follow_the_merge(client, world):
    send(
        client,
        *call(trace(20), at(5, PAST), limit=3)
        + [
            {
                "trace_id": trace(20),
                "call_id": "call_01",
                "tool": "findOrders",
                "snapshot": "request",
                "ts": at(5, PAST),
                "payload": {"status": "PAID", "limit": "3"},
            }
        ],
    )
    pipeline.catch_up(world)
    problems, _ = world.find_problems(ProblemFilters())
    limit, status = sorted(problems, key=lambda p: p["kind"] != "type_changed")
    old, new = int(status["id"][3:]), int(limit["id"][3:])
    change_problem(world, old, parse_change({"merged_into": limit["id"]}), "tester")
    merged = world.get_problem(new)
    assert merged["calls"] == 4 and merged["occurrences"] == 5
    assert world.get_problem(old)["merged_into"] == limit["id"]
    send(
        client,
        *call(trace(21), at(6, PAST), limit=3)
        + [
            {
                "trace_id": trace(21),
                "call_id": "call_01",
                "tool": "findOrders",
                "snapshot": "request",
                "ts": at(6, PAST),
                "payload": {"status": "PAID", "limit": "3"},
            }
        ],
    )
    pipeline.catch_up(world)
    assert [p["id"] for p in world.find_problems(ProblemFilters())[0]] == [limit["id"]]
    assert world.get_problem(new)["calls"] == 5


def test_a_database_from_before_problems_opens_and_gains_the_columns(tmp_path):
    import sqlite3

    from webapp.store import Store

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL "
        "UNIQUE, "
        "trace_id TEXT NOT NULL, call_id TEXT NOT NULL, snapshot TEXT NOT NULL, tool TEXT, "
        "source TEXT, payload TEXT NOT NULL, logged_as_string INTEGER NOT NULL DEFAULT 0, "
        "http TEXT, meta TEXT, ts TEXT NOT NULL, received_at TEXT NOT NULL);"
    )
    conn.close()
    opened = Store(path)
    columns = {row[1] for row in opened.db.execute("PRAGMA table_info(events)")}
    opened.close()
    assert "release" in columns


def test_new_reads_as_ongoing_after_seven_days(world):
    p = only_problem(world)
    from webapp.problems.states import display_state

    now = datetime.now(UTC)
    assert (
        display_state("open", (now - timedelta(days=8)).strftime("%Y-%m-%dT%H:%M:%SZ"), now)
        == "ongoing"
    )
    assert (
        display_state("open", (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), now)
        == "new"
    )
    assert p["state"] == display_state("open", p["first_seen"], now)


def test_the_filter_choices_are_read_once_per_database_not_once_per_request(world, db_path):
    from webapp.store import Store

    # each request opens a store of its own
    first, second = Store.open(db_path), Store.open(db_path)
    try:
        choices = first.problem_facets()
        assert choices["tool"] == ["findOrders"] and choices["release"] == ["1.4.0"]
        with world.write() as conn:
            conn.execute("UPDATE problems SET tool = 'renamedTool'")
        # within a few seconds the next request reuses them: a walk of every problem saved
        assert second.problem_facets() == choices
    finally:
        first.close()
        second.close()


def test_a_problem_no_call_shows_any_more_says_so_on_its_page(client, world):
    number = int(only_problem(world)["id"][3:])
    send(
        client,
        call(trace(1), at(0, PAST), broken=False)[1],
        call(trace(1), at(1, PAST), call_id="call_02", limit=7, broken=False)[1],
        call(trace(2), at(60, PAST), broken=False)[1],
    )
    pipeline.catch_up(world)
    assert world.get_problem(number)["calls"] == 0
    # the list leaves it out
    assert world.find_problems(ProblemFilters())[0] == []
    page = client.get(f"/problems/TD-{number}")
    assert page.status_code == 200 and b"No stored call shows this problem any more" in page.data


def test_retention_takes_the_deleted_calls_out_of_their_problems_as_a_reanalysis_would(world):
    before = only_problem(world)
    assert (before["occurrences"], before["calls"], before["traces"]) == (3, 3, 2)
    # trace 1 and its two broken calls go
    assert world.prune(at(30, PAST)) == 1
    after = only_problem(world)
    assert (after["occurrences"], after["calls"], after["traces"]) == (1, 1, 1)
    assert (
        after["first_seen"] == times.fixed(at(60, PAST))
        and after["by_source"][0]["source"] == "foundation_models"
    )
    examples = world.db.execute("SELECT DISTINCT trace_id FROM problem_calls").fetchall()
    # no example points at a deleted trace
    assert [row[0] for row in examples] == [trace(2)]
    kept = snapshot(world)
    world.invalidate_tool(None)
    pipeline.catch_up(world)
    assert snapshot(world) == kept


def test_a_problem_grouped_under_the_first_fingerprint_version_keeps_its_calls_and_says_so(
    client, world
):
    from webapp.problems.fingerprint import describe_finding, key

    p = only_problem(world)
    number = int(p["id"][3:])
    # a database grouped before v2: the same problem under its v1 fingerprint
    old = key(
        describe_finding("findOrders", world.call_analysis(trace(1), "call_01")["findings"][0]), 1
    )
    with world.write() as conn:
        conn.execute(
            "UPDATE problems SET fingerprint = ?, fp_version = 1 WHERE id = ?", (old, number)
        )
    page = client.get(f"/problems/{p['id']}").get_data(as_text=True)
    assert "fingerprint v1; made before fingerprint v2, which groups only newer findings" in page
    body = client.get(f"/api/v1/traces/{trace(1)}").get_json()
    # its old calls still name it
    assert body["calls"][0]["problems"] == [p["id"]]
    send(client, *call(trace(30), at(200, PAST)))
    pipeline.catch_up(world)
    problems, _ = world.find_problems(ProblemFilters())
    # a new finding opens a v2 problem
    assert sorted(q["fingerprint_version"] for q in problems) == [1, 2]
    # the 5th call teaches pairs and re-analyses the tool's recent calls; a re-analysis moves no
    # call out of it
    assert world.inferred_pairs("findOrders")
    for _ in range(2):
        kept = read_problem(world, number)
        assert (kept["fingerprint_version"], kept["calls"], kept["traces"]) == (1, 3, 2)
        world.invalidate_tool(None)
        pipeline.catch_up(world)


def test_a_violation_a_finding_explains_links_to_the_problem_that_counts_its_call(client, world):
    (type_changed,) = world.find_problems(ProblemFilters())[0]
    # a request-only call: no finding explains its violation, which opens a problem of its own
    request_only = [e for e in call(trace(9), at(180, PAST)) if e["snapshot"] == "request"]
    send(client, *request_only)
    pipeline.catch_up(world)
    problems, _ = world.find_problems(ProblemFilters())
    violation = next(p for p in problems if p["kind"] == "schema_violation")
    assert (violation["calls"], violation["traces"]) == (1, 1)
    linked = client.get(f"/api/v1/traces?problem={violation['id']}").get_json()["traces"]
    assert [t["trace_id"] for t in linked] == [trace(9)]
    # an earlier call's violation at /limit is its type_changed finding's problem, as grouped
    body = client.get(f"/api/v1/traces/{trace(2)}").get_json()
    (one,) = body["calls"]
    [error] = one["validation"]["request"]["errors"]
    assert (error["path"], error["problem"]) == ("/limit", type_changed["id"])
    assert one["problems"] == [type_changed["id"]]
    alone = client.get(f"/api/v1/traces/{trace(9)}").get_json()["calls"][0]
    assert alone["problems"] == [violation["id"]]
