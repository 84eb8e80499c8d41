"""What grouping findings into problems adds to the analyser, per call (bench/analysis.py prints it).

    python bench/grouping.py            # about 30 s: 540 calls, best of 5
    python bench/grouping.py --quick

The baseline is the analyser with grouping left out and nothing else: the same analysis (with the
rename hints), the same contract digests, the same save in one transaction and the same learning of
mappings, but no fingerprints and no problem rows. (Until Dec 1 2026 the baseline was the analyser
as it was before problems, without the rename hints and the learning added since, which counted
their cost as grouping's.) The measured path is `pipeline.analyze_calls` itself. Both re-analyse the
same calls of the same database, turn about, so disk caches and the machine's load fall on both
alike. The worst case is a store where every call is broken (each save touches a problem's rollups),
which is what the sample traces repeated many times give: most of their calls show a warning or error.
"""
import tempfile
import time
from pathlib import Path

from common import SAMPLES, options, ratio_line, write_figures
from webapp import demo, pipeline
from webapp.store import Store
from webapp.toolmappings import learn


def _baseline(store: Store, calls) -> int:
    """Analyse and save calls as pipeline.analyze_calls does, less the grouping."""
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    batch = pipeline._Batch(store)
    for key, call in inputs.items():
        analysis = pipeline.analyze_one(call, batch.contract(call["tool"]))
        tool = call["tool"]
        if tool not in batch.digests:
            batch.digests[tool] = pipeline.contract_digest(batch.contract(tool))
        analysis["contract_digest"] = batch.digests[tool]
        batch.results.append((*key, call["version"], analysis))
    saved = store.save_analyses(batch.results)
    learn(store, inputs)
    return saved


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
    demo.load_folder(store, samples, None)
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
    # each round's own ratio too: the rounds run back to back, so a busy spell of the machine
    # falls on both sides of a ratio, where the best of each side may come from different spells
    paired = [sorted(w / b for w, b in zip(times, without))[len(without) // 2] for times in (first, again)]
    return {"calls": len(keys), "problems": problems, "sample_calls": len(rows),
            "ms_per_call_without": round(per_call[0], 3), "ms_per_call_first": round(per_call[1], 3),
            "ms_per_call_reanalysis": round(per_call[2], 3),
            "overhead_first": round(per_call[1] / per_call[0] - 1, 4),
            "overhead_reanalysis": round(per_call[2] / per_call[0] - 1, 4),
            "median_round_overhead_first": round(paired[0] - 1, 4),
            "median_round_overhead_reanalysis": round(paired[1] - 1, 4)}


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=0)
    with tempfile.TemporaryDirectory(prefix="tracediff-bench-") as tmp:
        figures = grouping_overhead(Path(tmp), SAMPLES, 2 if args.quick else 20, 1 if args.quick else 5)
    print(f"grouping: {figures}")
    for when, words in (("first", "first analysis"), ("reanalysis", "re-analysis")):
        print(ratio_line(f"analyser CPU per call with grouping / without ({words})",
                         figures[f"ms_per_call_{when}"], figures["ms_per_call_without"], "< 1.10"))
    print(f"figures written to {write_figures('grouping', figures, args.quick)}")


if __name__ == "__main__":
    main()
