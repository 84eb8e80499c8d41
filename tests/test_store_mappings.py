"""Inferred mappings through the store and the pipeline.

Evidence, decisions, re-analysis."""

import random
import sqlite3

import orjson
import pytest
from renames import TOOL, events, traffic

from webapp import pipeline
from webapp.analysis import learnt
from webapp.ingest import parse_body
from webapp.pipeline import mappings as toolmappings
from webapp.store import Store

SWAPPED = "5" * 32


def load(store, envelopes) -> None:
    pipeline.store_batch(store, parse_body(orjson.dumps(envelopes)), None)
    pipeline.catch_up(store)


def findings(store, trace_id) -> list[dict]:
    return store.get_trace(trace_id)["calls"][0]["findings"]


def counted(store) -> dict:
    """The seats pair's counts, the magnitudes of the numbers it kept summed as `kept`."""
    counts = store.evidence(TOOL)[("/seats", "/quantity")]
    out = {k: n for k, n in counts.items() if not k.startswith(learnt.KEPT)}
    return {**out, "kept": sum(n for k, n in counts.items() if k.startswith(learnt.KEPT))}


def test_evidence_is_counted_once_per_call_and_marks_the_calls_learnt_from(store):
    load(store, traffic(5))
    first = counted(store)
    # (and the calls in which no other argument shared the field: at most every call)
    assert {k: n for k, n in first.items() if k != "alone"} == {"both": 5, "equal": 5, "kept": 5}
    assert first.get("alone", 0) <= 5
    assert (
        store.unobserved(
            [(t, "call_01") for (t,) in store.db.execute("SELECT trace_id FROM traces")]
        )
        == set()
    )
    store.invalidate_tool(TOOL)
    # re-analysing a call does not count it again
    pipeline.catch_up(store)
    assert counted(store) == first


def test_after_enough_calls_a_renaming_tool_is_quiet_and_its_earlier_calls_are_reanalysed(store):
    load(store, traffic(25))
    assert ("/seats", "/quantity") in store.inferred_pairs(TOOL)
    worst = {row[0] for row in store.db.execute("SELECT worst FROM calls")}
    # every call, the first 19 included
    assert worst <= {"info", "clean"}, worst
    # inferred pairs never enter the stored contract
    assert store.get_tool(TOOL) is None


def test_a_swap_between_renamed_fields_is_a_value_change_at_the_inferred_pair(store):
    load(store, traffic(25))
    arguments = {
        "seats": 6,
        "child_count": 2,
        "store_id": "st_4242",
        "date": "2026-12-05",
        "notes": "",
    }
    request = {
        "quantity": 2,
        "minors": 6,
        "locationId": "st_4242",
        "day": "2026-12-05",
        "comment": "",
        "channel": "agent",
    }
    load(store, events(arguments, request, SWAPPED))
    found = {
        (f["kind"], f["left"]["path"], f["right"]["path"])
        for f in findings(store, SWAPPED)
        if f["severity"] in ("warning", "error") and f["left"] and f["right"]
    }
    assert ("value_changed", "/seats", "/quantity") in found
    assert ("value_changed", "/child_count", "/minors") in found


def test_a_type_change_on_every_call_is_learnt_and_a_call_that_reverts_it_is_reported(store):
    envelopes = []
    for event in traffic(25):
        if event["snapshot"] == "request":
            event = {
                **event,
                "payload": {**event["payload"], "quantity": str(event["payload"]["quantity"])},
            }
        envelopes.append(event)
    load(store, envelopes)
    assert ("/seats", "/quantity") in store.inferred_pairs(TOOL)
    # a conversion the layer makes on every call is its mapping (issue 32): info, not a warning
    first = findings(store, envelopes[0]["trace_id"])
    assert not [f for f in first if f["severity"] in ("warning", "error")]
    assert [f["kind"] for f in first if f["right"] and f["right"]["path"] == "/quantity"] == [
        "type_changed"
    ]
    # a call that sends the number as it is departs from what every earlier call did
    arguments = {"seats": 6, "child_count": 2, "store_id": "st_4242", "date": "2026-12-05"}
    request = {"quantity": 6, "minors": 2, "locationId": "st_4242", "day": "2026-12-05"}
    load(
        store,
        events(
            {**arguments, "notes": ""},
            {**request, "comment": "", "channel": "agent"},
            SWAPPED,
            minute=40,
        ),
    )
    loud = [
        (f["kind"], f["right"]["path"])
        for f in findings(store, SWAPPED)
        if f["severity"] in ("warning", "error") and f["right"]
    ]
    assert loud == [("type_changed", "/quantity")]


def test_a_rejected_pair_leaves_inference_and_its_calls_are_reanalysed(store):
    load(store, traffic(25))
    toolmappings.reject(store, TOOL, "/seats", "/quantity")
    assert ("/seats", "/quantity") not in store.inferred_pairs(TOOL)
    assert store.pending_calls_of(
        [t for (t,) in store.db.execute("SELECT trace_id FROM traces")], 1000
    )
    pipeline.catch_up(store)
    seats = [
        f["kind"]
        for f in findings(store, traffic(1)[0]["trace_id"])
        if f["left"] and f["left"]["path"] == "/seats"
    ]
    # no longer paired silently by an inferred mapping
    assert seats and set(seats) <= {"renamed", "dropped"}
    assert toolmappings.mapping_rows(store, TOOL)["rejected"] == [
        {"arguments": "/seats", "request": "/quantity"}
    ]


def test_confirming_writes_the_pair_into_the_contract_and_it_is_no_longer_inferred(store):
    load(store, traffic(25))
    contract = toolmappings.confirm(store, TOOL, "/seats", "/quantity")
    assert contract["mapping"] == [{"arguments": "/seats", "request": "/quantity"}]
    assert ("/seats", "/quantity") not in store.inferred_pairs(TOOL)
    rows = toolmappings.mapping_rows(store, TOOL)
    assert rows["declared"][0]["evidence"] == "equal in 25 of 25 calls"
    assert ("/date", "/day") in {(r["arguments"], r["request"]) for r in rows["inferred"]}


def test_a_changed_inference_reanalyses_only_the_newest_calls(store):
    load(store, traffic(30))
    store.set_inferred(TOOL, [("/seats", "/quantity")], recent=7)
    assert (
        len(
            store.pending_calls_of(
                [t for (t,) in store.db.execute("SELECT trace_id FROM traces")], 100
            )
        )
        == 7
    )
    # unchanged: nothing to redo
    assert store.set_inferred(TOOL, [("/seats", "/quantity")], recent=7) is False


def test_a_tool_keeps_a_bounded_number_of_evidence_rows(store):
    load(store, traffic(2))
    first, second = [
        (t, "call_01") for (t,) in store.db.execute("SELECT trace_id FROM traces ORDER BY 1")
    ]
    store.db.execute("UPDATE calls SET observed = 0")
    store.db.execute("DELETE FROM mapping_evidence")
    assert (
        store.add_evidence(
            TOOL,
            {first: {(f"/a{i}", f"/r{i}"): {"both": 1, "equal": 1} for i in range(50)}},
            cap=20,
        )
        == 1
    )
    more = {("/a0", "/r0"): {"both": 1, "equal": 1}, ("/new", "/x"): {"both": 1}}
    # first counted already
    assert store.add_evidence(TOOL, {first: more, second: more}, cap=20) == 1
    evidence = store.evidence(TOOL)
    assert len(evidence) == 20 and evidence[("/a0", "/r0")] == {"both": 2, "equal": 2}


# a database made before migrations is a SQLite file
@pytest.mark.sqlite_only
def test_a_database_made_before_inference_opens_and_gets_its_columns(db_path):
    Store.open(db_path).close()
    conn = sqlite3.connect(db_path)
    conn.execute("ALTER TABLE calls DROP COLUMN observed")
    conn.execute("DROP TABLE mapping_evidence")
    # as a database made before migration 5
    conn.execute("DELETE FROM schema_migrations WHERE version >= 5")
    conn.commit()
    conn.close()
    store = Store.open(db_path)
    load(store, traffic(3))
    assert store.evidence(TOOL)[("/seats", "/quantity")]["both"] == 3


def test_a_template_and_a_lookup_the_history_shows_are_quiet_and_a_departure_from_them_is_loud(
    store,
):
    teams = {"ENG": "9c1e7a52-1f0b", "OPS": "77d0b3f4-aa10", "WEB": "0be5c2d9-4e21"}
    rng = random.Random(3)

    def call(i, team, order, team_id=None, gid=None):
        arguments = {"team": team, "order": order, "title": f"issue {i}"}
        request = {
            "teamId": team_id or teams[team],
            "order": gid or f"gid://shop/Order/{order}",
            "title": f"issue {i}",
        }
        return events(arguments, request, f"{i + 1:032x}", minute=i, tool="file_issue")

    envelopes = []
    for i in range(30):
        envelopes += call(i, rng.choice(list(teams)), str(rng.randint(10**6, 10**7)))
    envelopes += call(30, "OPS", "4242")
    # another team's id, and the order id sent unwrapped
    envelopes += call(31, "OPS", "4243", team_id=teams["ENG"])
    envelopes += call(32, "WEB", "4244", gid="4244")
    load(store, envelopes)
    inferred = set(store.inferred_pairs("file_issue"))
    assert {("/team", "/teamId"), ("/order", "/order")} <= inferred

    def loud(i):
        return {
            (f["kind"], f["left"]["path"])
            for f in findings(store, f"{i + 1:032x}")
            if f["severity"] in ("warning", "error") and f["left"]
        }

    assert loud(5) == loud(30) == set()
    assert loud(31) == {("value_changed", "/team")}
    assert loud(32) == {("value_changed", "/order")}
