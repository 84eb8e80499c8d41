"""The store: events kept once, versions, current snapshots, analysis bookkeeping."""

import pytest
from helpers import TRACE, envelope, ndjson, order_call

from webapp.ingest import parse_body
from webapp.store import Store
from webapp.store.filters import TraceQuery


def add(store: Store, *events):
    """Commit events and fold them into calls and traces, as the background worker does."""
    result = store.add_events(parse_body(ndjson(*events)).events)
    store.project_all()
    return result


def test_a_batch_is_stored_and_grouped_into_one_call(store):
    result = add(store, *order_call())
    assert (result.accepted, result.duplicates) == (3, 0)
    trace = store.get_trace(TRACE)
    call = trace["calls"][0]
    assert call["tool"] == "findOrders" and call["status_code"] == 200
    assert call["snapshots"]["request"]["payload"] == {"status": "paid", "limit": 5}
    assert call["snapshots"]["request"]["http"]["method"] == "POST"


def test_resending_an_event_stores_it_once_and_counts_a_duplicate(store):
    add(store, *order_call())
    result = add(store, *order_call())
    assert (result.accepted, result.duplicates) == (0, 3)
    assert store.count_events() == 3


def test_a_later_version_becomes_current_and_earlier_ones_are_kept(store):
    add(store, envelope("request", {"limit": "5"}, ts="2026-11-20T09:00:01Z"))
    add(store, envelope("request", {"limit": 5}, ts="2026-11-20T09:05:00Z"))
    call = store.get_trace(TRACE)["calls"][0]
    assert call["snapshots"]["request"]["payload"] == {"limit": 5}
    assert call["versions"]["request"] == 2
    versions = store.snapshot_versions(TRACE, "call_01", "request")
    assert [v["payload"] for v in versions] == [{"limit": 5}, {"limit": "5"}]


def test_a_late_event_with_an_older_timestamp_does_not_replace_the_current_version(store):
    add(store, envelope("request", {"limit": 5}, ts="2026-11-20T09:05:00Z"))
    add(store, envelope("request", {"limit": "5"}, ts="2026-11-20T09:00:01Z"))
    assert store.get_trace(TRACE)["calls"][0]["snapshots"]["request"]["payload"] == {"limit": 5}


def test_a_new_snapshot_marks_the_call_for_analysis_and_a_stale_analysis_is_refused(store):
    add(store, order_call()[0])
    [pending] = store.claim_pending()
    add(store, order_call()[1])
    analysis = {"findings": [], "summary": {}, "worst": None}
    assert store.save_analysis(TRACE, "call_01", pending["version"], analysis) is False
    [again] = store.claim_pending() or store.pending_calls(TRACE)
    assert store.save_analysis(TRACE, "call_01", again["version"], analysis) is True
    assert store.pending_calls(TRACE) == []


def test_claimed_calls_are_not_handed_to_a_second_worker(store):
    add(store, *order_call())
    assert len(store.claim_pending()) == 1
    assert store.claim_pending() == []


def test_traces_list_newest_first_with_a_keyset_cursor(store):
    for n in range(5):
        add(store, envelope(trace_id=f"{n:032x}", ts=f"2026-11-2{n}T09:00:00Z"))
    first, cursor = store.find_traces(TraceQuery(limit=2))
    assert [t["trace_id"][-1] for t in first] == ["4", "3"]
    second, cursor = store.find_traces(TraceQuery(limit=2), cursor)
    third, cursor = store.find_traces(TraceQuery(limit=2), cursor)
    assert [t["trace_id"][-1] for t in second + third] == ["2", "1", "0"]
    assert cursor is None


def test_trace_summary_says_which_snapshots_arrived(store):
    add(store, *order_call()[:2])
    [summary], _ = store.find_traces(TraceQuery())
    # a result when there is one
    assert summary["snapshots"] == {"arguments": True, "request": True, "response": False}
    assert summary["tools"] == ["findOrders"]
    missing, _ = store.find_traces(TraceQuery(missing="response"))
    assert [t["trace_id"] for t in missing] == [TRACE]
    assert store.find_traces(TraceQuery(missing="request"))[0] == []


def test_a_result_is_kept_as_the_fourth_snapshot_and_a_call_without_one_stays_complete(store):
    add(store, *order_call())
    [summary], _ = store.find_traces(TraceQuery())
    assert summary["complete"] is True and "result" not in summary["snapshots"]
    # three-snapshot answers are unchanged
    assert "result" not in store.get_trace(TRACE)["calls"][0]["snapshots"]
    assert [t["trace_id"] for t in store.find_traces(TraceQuery(missing="result"))[0]] == [TRACE]
    add(store, envelope("result", "No orders found.", ts="2026-11-20T09:00:03Z"))
    call = store.get_trace(TRACE)["calls"][0]
    assert call["snapshots"]["result"]["payload"] == "No orders found."
    assert call["snapshots"]["response"]["payload"] == {"orders": [], "total": 0}
    [summary], _ = store.find_traces(TraceQuery())
    assert summary["complete"] is True and summary["snapshots"]["result"] is True
    assert store.find_traces(TraceQuery(missing="result"))[0] == []


def test_a_new_result_marks_the_call_for_analysis_again(store):
    add(store, *order_call())
    [first] = store.claim_pending()
    store.save_analysis(
        TRACE, "call_01", first["version"], {"findings": [], "summary": {}, "worst": None}
    )
    add(store, envelope("result", {"orders": []}, ts="2026-11-20T09:00:03Z"))
    [again] = store.claim_pending()
    assert again["version"] == first["version"] + 1
    inputs = store.call_inputs(TRACE, "call_01")
    assert inputs["snapshots"]["result"]["payload"] == {"orders": []}
    assert inputs["snapshots"]["response"]["payload"] == {"orders": [], "total": 0}


def test_rejected_records_are_kept_in_quarantine(store):
    batch = parse_body(ndjson(envelope(), {"trace_id": "x", "snapshot": "bogus", "payload": 1}))
    store.add_events(batch.events, batch.rejected)
    [row] = store.quarantine()
    assert row["code"] and "bogus" in row["raw"]


def test_prune_deletes_only_old_traces(store):
    add(store, envelope(trace_id="a" * 32, ts="2020-01-01T00:00:00Z"))
    add(store, envelope(trace_id="b" * 32, ts="2026-11-29T00:00:00Z"))
    assert store.prune("2026-01-01T00:00:00Z", batch=1) == 1
    assert store.get_trace("a" * 32) is None and store.get_trace("b" * 32) is not None
    assert store.count_events() == 1


def test_search_forgets_pruned_payloads_and_keeps_the_rest(store):
    # most traces old: the prune also merges the search index whole
    for n in range(12):
        old = n < 9
        add(
            store,
            envelope(
                trace_id=f"{n:032x}",
                ts="2020-01-01T00:00:00Z" if old else "2026-11-29T00:00:00Z",
                payload={"note": f"{'ancient' if old else 'recent'} word{n}", "limit": n},
            ),
        )
    assert store.prune("2026-01-01T00:00:00Z", batch=2) == 9
    assert store.find_traces(TraceQuery(q="ancient"))[0] == []
    assert sorted(t["trace_id"] for t in store.find_traces(TraceQuery(q="recent"))[0]) == [
        f"{n:032x}" for n in range(9, 12)
    ]
    # the index itself holds none of the deleted rows, and is sound
    if store.engine == "sqlite":
        assert (
            store.db.execute(
                "SELECT rowid FROM events_fts WHERE events_fts MATCH 'ancient'"
            ).fetchall()
            == []
        )
        store.db.execute("INSERT INTO events_fts (events_fts) VALUES ('integrity-check')")
        assert (
            store.db.execute("SELECT v FROM events_fts_config WHERE k = 'automerge'").fetchone()[0]
            == 4
        )


def test_acknowledged_events_are_visible_to_readers_before_the_worker_projects_them(store):
    store.add_events(parse_body(ndjson(*order_call())).events)
    assert store.behind()
    assert store.get_trace(TRACE)["calls"][0]["snapshots"]["response"] is not None
    assert not store.behind()


def test_projection_is_incremental_and_survives_reopening(db_path):
    first = Store.open(db_path)
    first.add_events(parse_body(ndjson(*order_call()[:2])).events)
    assert first.project() == 2 and first.project() == 0
    first.close()
    second = Store.open(db_path)
    second.add_events(parse_body(ndjson(order_call()[2])).events)
    assert second.project() == 1
    assert second.get_trace(TRACE)["calls"][0]["snapshots"]["response"]["payload"] == {
        "orders": [],
        "total": 0,
    }


def test_schema_creation_is_idempotent(db_path):
    Store.open(db_path).close()
    again = Store.open(db_path)
    assert again.count_traces() == 0
    if again.engine == "sqlite":
        assert again.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def direct_hours(store) -> set:
    return set(
        store.db.execute(
            "SELECT substr(last_ts, 1, 13), coalesce(tool, '(no tool)'), count(*), "
            "count(CASE WHEN worst IN ('error', 'warning') THEN 1 END) FROM calls GROUP BY 1, 2"
        ).fetchall()
    )


def test_the_hourly_rollup_matches_the_calls_through_ingest_analysis_moves_and_prune(store):
    from webapp.pipeline import analyze_all

    add(store, *order_call(limit_sent="5"))
    add(store, *order_call(trace_id="c" * 32))
    add(store, envelope(trace_id="d" * 32, ts="2020-01-01T00:00:00Z"))
    analyze_all(store)
    rollup = set(store.db.execute("SELECT hour, tool, calls, findings FROM call_hours").fetchall())
    assert rollup == direct_hours(store)
    assert ("2026-11-20T09", "findOrders", 2, 1) in rollup
    add(store, envelope("response", {"orders": []}, trace_id="c" * 32, ts="2026-11-21T10:00:00Z"))
    store.prune("2021-01-01T00:00:00Z")
    rollup = set(store.db.execute("SELECT hour, tool, calls, findings FROM call_hours").fetchall())
    assert rollup == direct_hours(store)
    assert ("2026-11-21T10", "findOrders", 1, 0) in rollup and len(rollup) == 2


# a database made before numbered migrations is a SQLite file
@pytest.mark.sqlite_only
def test_an_existing_database_gets_its_rollup_filled_when_opened(db_path):
    first = Store.open(db_path)
    first.add_events(parse_body(ndjson(*order_call())).events)
    first.project_all()
    # as made before the rollup and the numbered migrations
    first.db.execute("DELETE FROM call_hours")
    first.db.execute("DROP TABLE schema_migrations")
    first.close()
    reopened = Store.open(db_path)
    assert set(reopened.db.execute("SELECT hour, tool, calls FROM call_hours").fetchall()) == {
        ("2026-11-20T09", "findOrders", 1)
    }


def span_event(snapshot, call_id, span_id, parent=None, payload=None):
    from webapp.ingest import Event

    meta = {"span_id": span_id, **({"parent_span_id": parent} if parent else {})}
    return Event(
        event_id=f"{span_id}-{snapshot}",
        trace_id=TRACE,
        call_id=call_id,
        snapshot=snapshot,
        payload=payload or {"limit": 5},
        tool="findOrders" if call_id else None,
        ts="2026-11-20T09:00:00Z",
        meta=meta,
    )


def test_a_span_exported_after_its_tool_span_joins_the_tool_call(store):
    store.add_events([span_event("arguments", "call_9", "tool-span")])
    store.project_all()
    store.add_events(
        [span_event("request", "", "http-span", parent="tool-span", payload={"limit": "5"})]
    )
    [call] = store.get_trace(TRACE)["calls"]
    assert call["call_id"] == "call_9" and call["tool"] == "findOrders"
    assert call["snapshots"]["request"]["payload"] == {"limit": "5"}


def test_a_span_whose_parent_never_arrives_stays_visible_under_an_empty_call_id(store):
    store.add_events([span_event("request", "", "http-span", parent="missing-span")])
    [call] = store.get_trace(TRACE)["calls"]
    assert call["call_id"] == "" and call["snapshots"]["request"] is not None


def test_prune_also_deletes_quarantined_records_received_before_the_cutoff(store):
    store.add_events([], parse_body(b'{"no": "envelope"}\n').rejected)
    store.db.execute("UPDATE quarantine SET received_at = '2020-01-01T00:00:00Z'")
    store.add_events([], parse_body(b'{"still": "no envelope"}\n').rejected)
    store.prune("2026-01-01T00:00:00Z", batch=1)
    assert [r[0] for r in store.db.execute("SELECT received_at > '2026' FROM quarantine")] == [1]


def test_a_big_json_text_parses_whole_and_leaves_the_collector_as_it_found_it():
    import gc

    from webapp.store.codec import BIG_TEXT, dumps, loads

    doc = {"trees": [{"k": {"k": {"leaf": n, "name": f"node {n}"}}} for n in range(BIG_TEXT // 30)]}
    text = dumps(doc)
    assert len(text) > BIG_TEXT
    assert loads(text) == doc and gc.isenabled()
    gc.disable()
    try:
        assert loads(text) == doc and not gc.isenabled()
    finally:
        gc.enable()


def test_a_claim_bounded_in_time_projects_part_of_a_long_queue_and_claims_from_it(store):
    # 1,200 events of ~1 KB: more than one projection transaction on either engine
    padding = "x" * 1000
    events = [
        dict(event, payload={**event["payload"], "note": padding})
        for n in range(400)
        for event in order_call(trace_id=f"{n:032x}")
    ]
    store.add_events(parse_body(ndjson(*events)).events)
    claimed = store.claim_pending(50, projecting=0)
    # under a sustained load the queue never empties: the analyser gets calls all the same
    assert len(claimed) == 50
    assert store.behind()
    store.project_all()
    assert not store.behind()
