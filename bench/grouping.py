"""What grouping findings into problems adds to the analyser, per call (bench/analysis.py prints it).

The baseline is the analyser as it was before problems: analyse, then save the analyses in one
transaction. The measured path also fingerprints every finding and replaces each call's part in
the problems inside that transaction. Both re-analyse the same calls of the same database, turn
about, so disk caches and the machine's load fall on both alike. The worst case is a store where
every call is broken (each save touches a problem's rollups), which is what the sample traces
repeated many times give: most of their calls show a warning or error.
"""
import time

from webapp import bulk, pipeline
from webapp.analysis import analyze_call
from webapp.store import Store


def _baseline(store: Store, calls) -> int:
    """Analyse and save calls without grouping: what analyze_calls did before problems."""
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    contracts = {}
    results = []
    for (trace_id, call_id), call in inputs.items():
        tool = call["tool"]
        if tool and tool not in contracts:
            contracts[tool] = store.get_tool(tool)
        results.append((trace_id, call_id, call["version"], analyze_call(call["snapshots"], contracts.get(tool))))
    return store.save_analyses(results)


FORGET = ("DELETE FROM problems", "DELETE FROM problem_calls", "DELETE FROM problem_hours", "DELETE FROM problem_splits",
          "DELETE FROM problem_pairs", "DELETE FROM problem_checks", "DELETE FROM problem_states",
          "UPDATE calls SET problem_paths = NULL, grouped_seqs = NULL")


def _timed(store: Store, analyse, keys, first: bool = False) -> float:
    """Re-analyse every call in batches of 100; `first` forgets the problems so each call is new to them."""
    if first:
        with store.write() as conn:
            for statement in FORGET:
                conn.execute(statement)
    store.invalidate_tool(None)
    calls = [{"trace_id": t, "call_id": c} for t, c in keys]
    # CPU time of this process (SQLite runs in it): the other processes sharing the machine's cores
    # would otherwise decide the ratio
    began = time.process_time()
    for start in range(0, len(calls), 100):  # the background analyser's batch size
        analyse(store, calls[start:start + 100])
    return time.process_time() - began


def grouping_overhead(folder, samples, copies: int, rounds: int) -> dict:
    """Return ms per call with and without grouping, and the overhead ratio, on `copies` x the samples."""
    store = Store(folder / "grouping.db")
    bulk.load_folder(store, samples, None)
    rows = store.db.execute("SELECT trace_id, call_id FROM calls").fetchall()
    for copy in range(1, copies):  # more calls of the same problems, under other trace ids
        store.db.execute("INSERT INTO events (event_id, trace_id, call_id, snapshot, tool, source, release, payload, "
                         "logged_as_string, http, meta, ts, received_at) SELECT event_id || ?, trace_id || ?, "
                         "call_id, snapshot, tool, source, release, payload, logged_as_string, http, meta, ts, "
                         "received_at FROM events WHERE event_id NOT LIKE '%#%'", (f"#{copy}", f"-{copy}"))
    pipeline.catch_up(store)
    keys = store.db.execute("SELECT trace_id, call_id FROM calls").fetchall()
    first, again, without = [], [], []
    for _ in range(rounds):
        without.append(_timed(store, _baseline, keys))
        first.append(_timed(store, pipeline.analyze_calls, keys, first=True))
        again.append(_timed(store, pipeline.analyze_calls, keys))
    problems = store.db.execute("SELECT count(*) FROM problems").fetchone()[0]
    store.close()
    per_call = [min(times) / len(keys) * 1000 for times in (without, first, again)]
    return {"calls": len(keys), "problems": problems, "sample_calls": len(rows),
            "ms_per_call_without": round(per_call[0], 3), "ms_per_call_first": round(per_call[1], 3),
            "ms_per_call_reanalysis": round(per_call[2], 3),
            "overhead_first": round(per_call[1] / per_call[0] - 1, 4),
            "overhead_reanalysis": round(per_call[2] / per_call[0] - 1, 4)}
