"""Observed schemas through the real pipeline and store (both engines).

Learnt in the analyser's transaction, drift as findings grouped into problems, the same after a
re-analysis, rebuilt by `tracediff reanalyze`."""

import random

import orjson
import pytest
from click.testing import CliRunner
from observed_traffic import STATUSES, TOOL, mcp_results, order, order_events

from webapp import pipeline
from webapp.cli.main import main
from webapp.contracts import ContractError
from webapp.ingest import parse_body
from webapp.pipeline.observed import Observer, adopt, observed_view
from webapp.problems.words import problem_phrase
from webapp.store.problem_filters import ProblemFilters

LOUD = ("warning", "error")


def load(store, events):
    pipeline.store_batch(store, parse_body(orjson.dumps(events)), None)
    pipeline.catch_up(store)


def the_change(store, stable=300, changed=40):
    rng = random.Random(7)
    load(store, order_events([order(rng, n) for n in range(stable)]))
    load(
        store,
        order_events(
            [order(rng, n, changed=True) for n in range(stable, stable + changed)], start=stable
        ),
    )


def findings_of(store, n):
    return store.get_trace(f"{n + 1:032x}")["calls"][0]["findings"]


def drift_paths(store, n):
    return {
        f["right"]["path"]
        for f in findings_of(store, n)
        if f["kind"] == "drift" and f["severity"] in LOUD
    }


def test_a_server_change_is_drift_at_its_paths_and_opens_one_problem_per_path(store):
    the_change(store)
    assert not any(f["severity"] in LOUD for n in range(300) for f in findings_of(store, n))
    assert all(
        drift_paths(store, n) == {"/total_cents", "/status", "/currency"} for n in range(300, 340)
    )
    [message] = [
        f["message"] for f in findings_of(store, 300) if f["right"]["path"] == "/total_cents"
    ]
    assert message == '"/total_cents" integer in 300 of 300 calls since 09:02, a string since 14:02'
    problems, _ = store.find_problems(ProblemFilters(kind="drift"))
    assert sorted(p["right"]["path"] for p in problems) == ["/currency", "/status", "/total_cents"]
    assert all(
        p["calls"] == 40 and p["first_seen"].startswith("2026-12-01T14:02") for p in problems
    )
    titles = sorted(problem_phrase(p) for p in problems)
    assert titles == [
        "response /currency missing, where every call had it",
        "response /status has a value outside the ones its traffic showed",
        "response /total_cents now string, where it was integer",
    ]
    shapes = store.observed_shapes(TOOL)
    assert {stage: shape["calls"] for stage, shape in shapes.items()} == {
        "arguments": 340,
        "request": 340,
        "response": 340,
    }


def test_a_reanalysis_tells_the_same_drift_and_reanalyze_rebuilds_the_shapes(store, db_path):
    the_change(store, stable=120, changed=10)
    before = store.observed_shapes(TOOL)
    store.invalidate_tool(TOOL)
    pipeline.catch_up(store)
    # each call is learnt once
    assert store.observed_shapes(TOOL) == before
    assert all(
        drift_paths(store, n) == {"/total_cents", "/status", "/currency"} for n in range(120, 130)
    )
    result = CliRunner().invoke(main, ["reanalyze", "--db", str(db_path)])
    assert result.exit_code == 0, result.output
    rebuilt = store.observed_shapes(TOOL)
    assert (
        rebuilt["response"]["calls"] == 130
        and rebuilt["response"]["paths"].keys() == before["response"]["paths"].keys()
    )
    assert all(
        drift_paths(store, n) == {"/total_cents", "/status", "/currency"} for n in range(120, 130)
    )
    problems, _ = store.find_problems(ProblemFilters(kind="drift"))
    assert len(problems) == 3 and all(p["calls"] == 10 for p in problems)


def test_a_declared_response_schema_wins_over_drift(store):
    store.put_tool(TOOL, {"response_schema": {"type": "object"}})
    the_change(store, stable=60, changed=5)
    assert not any(drift_paths(store, n) for n in range(65))
    # still learnt: the draft keeps growing
    assert store.observed_shapes(TOOL)["response"]["calls"] == 65


def test_error_responses_are_not_learnt_as_the_tools_shape(store):
    rng = random.Random(8)
    events = order_events([order(rng, n) for n in range(60)])
    for event in events[-3 * 5 :]:
        if event["snapshot"] == "response":
            event["payload"], event["http"] = (
                {"code": "not_found", "message": "no order"},
                {"status_code": 404},
            )
    load(store, events)
    assert store.observed_shapes(TOOL)["response"]["calls"] == 55
    assert not any(drift_paths(store, n) for n in range(60))


def test_the_result_stage_is_learnt_as_the_other_three_are(store):
    rng = random.Random(9)
    events = order_events([order(rng, n) for n in range(60)])
    results = [
        {
            **e,
            "snapshot": "result",
            "payload": {"total": e["payload"]["total_cents"] / 100, "shown": 1},
            "source": "mcp",
        }
        for e in events
        if e["snapshot"] == "response"
    ]
    results[-1]["payload"]["shown"] = "yes"
    load(store, events + results)
    shape = store.observed_shapes(TOOL)["result"]
    assert shape["calls"] == 60 and set(shape["paths"]["/shown"]["t"]) == {"integer", "string"}
    assert drift_paths_of(store, 59, "result") == {"/shown"}


def drift_paths_of(store, n, stage):
    return {
        f["right"]["path"]
        for f in findings_of(store, n)
        if f["kind"] == "drift" and f["severity"] in LOUD and f["right"]["snapshot"] == stage
    }


def test_two_analysers_learning_at_once_lose_no_call_and_a_forgotten_shape_starts_again(store):
    rng = random.Random(10)
    load(store, order_events([order(rng, n) for n in range(60)]))
    pipeline.store_batch(
        store,
        parse_body(orjson.dumps(order_events([order(rng, n) for n in range(60, 70)], start=60))),
        None,
    )
    store.project_all()
    inputs = store.calls_inputs([(f"{n + 1:032x}", "call_01") for n in range(60, 70)])
    halves = [dict(list(inputs.items())[:5]), dict(list(inputs.items())[5:])]
    # both read the shapes before either writes
    observers = [Observer(store, half) for half in halves]
    for observer, half in zip(observers, halves):
        for key, call in half.items():
            observer.drift(key, call, {})
    for observer in observers:
        with store.write() as conn:
            observer.write(conn)
    assert store.observed_shapes(TOOL)["response"]["calls"] == 70
    pipeline.store_batch(
        store, parse_body(orjson.dumps(order_events([order(rng, 80)], start=80))), None
    )
    store.project_all()
    same = store.calls_inputs([(f"{81:032x}", "call_01")])
    # a page analyses what the analyser claimed
    page, analyser = Observer(store, same), Observer(store, same)
    for observer in (page, analyser):
        for key, call in same.items():
            observer.drift(key, call, {})
        with store.write() as conn:
            observer.write(conn)
    # learnt once
    assert store.observed_shapes(TOOL)["response"]["calls"] == 71
    assert store.observed_of(list(same))[(f"{81:032x}", "call_01")]["seen"] == [
        "arguments",
        "request",
        "response",
    ]
    pipeline.store_batch(
        store, parse_body(orjson.dumps(order_events([order(rng, 70)], start=70))), None
    )
    store.project_all()
    later = store.calls_inputs([(f"{71:032x}", "call_01")])
    late = Observer(store, later)
    for key, call in later.items():
        # learnt onto the shapes as read now
        late.drift(key, call, {})
    # `tracediff reanalyze` forgets them before this batch is written
    store.forget_observed()
    with store.write() as conn:
        late.write(conn)
    assert store.observed_shapes(TOOL)["response"]["calls"] == 1


def test_a_mapping_bug_at_a_request_field_is_its_own_finding_not_also_drift(store):
    rng = random.Random(12)
    events = order_events([order(rng, n) for n in range(60)])
    for event in events[-3:]:
        if event["snapshot"] == "request":
            # the argument "o59" sent as a number: type_changed
            event["payload"] = {"order_id": 59}
    load(store, events)
    kinds = {
        (f["kind"], f["right"]["path"])
        for f in findings_of(store, 59)
        if f["severity"] in LOUD and f["right"]
    }
    assert ("drift", "/order_id") not in kinds and any(path == "/order_id" for _, path in kinds)
    [record] = store.observed_of([(f"{60:032x}", "call_01")]).values()
    # learnt as drift, told as the bug
    assert [f["right"]["path"] for f in record["findings"]] == ["/order_id"]


def test_the_result_stage_adopted_is_its_structured_content_and_the_next_bad_result_breaks_it(
    store,
):
    rng = random.Random(13)
    events = order_events([order(rng, n) for n in range(60)])
    load(store, events + mcp_results(events))
    view = observed_view(store, TOOL)["result"]
    assert view["adoptable"] is True and view["adopts"] == "/structuredContent"
    contract = adopt(store, TOOL, "result")
    schema = contract["result_schema"]
    assert (
        schema["required"] == ["currency", "status", "total"]
        and "x-tracediff-seen" not in orjson.dumps(schema).decode()
    )
    assert (
        schema["properties"]["total"]["type"] == "number"
        and schema["properties"]["status"]["enum"] == STATUSES
    )
    assert observed_view(store, TOOL)["result"]["disagreements"] == []
    later = order_events([order(rng, 60)], start=60)
    load(store, later + mcp_results(later, changed_at=0))
    checked = store.get_trace(f"{61:032x}")["calls"][0]["validation"]["result"]
    assert checked["valid"] is False and checked["schema"] == "result_schema"
    assert {e["path"] for e in checked["errors"]} == {
        # required, and missing
        "/structuredContent/currency",
        "/structuredContent/total",
        "/structuredContent/status",
    }
    rows = {row["path"] for row in observed_view(store, TOOL)["result"]["disagreements"]}
    assert rows == {
        "/structuredContent/total",
        "/structuredContent/status",
        "/structuredContent/currency",
    }


def test_results_without_a_structured_value_cannot_be_adopted(store):
    rng = random.Random(14)
    events = order_events([order(rng, n) for n in range(3)])
    texts = [
        {**e, "snapshot": "result", "payload": {"content": [{"type": "text", "text": "paid"}]}}
        for e in events
        if e["snapshot"] == "response"
    ]
    load(store, events + texts)
    assert observed_view(store, TOOL)["result"]["adoptable"] is False
    with pytest.raises(ContractError) as refused:
        adopt(store, TOOL, "result")
    assert refused.value.code == "nothing_structured" and "result_schema" not in (
        store.get_tool(TOOL) or {}
    )


def passed_on(events):
    """An MCP result per response that hands the response body on whole as its structuredContent."""
    return [
        {
            **e,
            "snapshot": "result",
            "payload": {
                "content": [{"type": "text", "text": "ok"}],
                "structuredContent": e["payload"],
            },
        }
        for e in events
        if e["snapshot"] == "response"
    ]


def test_a_server_change_a_result_passes_on_is_one_drift_at_the_response_not_two(store):
    rng = random.Random(15)
    stable = order_events([order(rng, n) for n in range(60)])
    changed = order_events([order(rng, n, changed=True) for n in range(60, 70)], start=60)
    load(store, stable + passed_on(stable) + changed + passed_on(changed))
    drifts = [f for f in findings_of(store, 65) if f["kind"] == "drift" and f["severity"] in LOUD]
    assert {f["right"]["snapshot"] for f in drifts} == {"response"}
    assert {f["right"]["path"] for f in drifts} >= {"/total_cents", "/status", "/currency"}
    problems, _ = store.find_problems(ProblemFilters(tool=TOOL, kind="drift"))
    assert {p["right"]["snapshot"] for p in problems} == {"response"}
