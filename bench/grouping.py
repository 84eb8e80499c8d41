"""What grouping findings into problems adds to the analyser, per call.

bench/analysis.py prints it.

    python bench/grouping.py            # ~2 min: 1,520 broken calls, 3,000 realistic ones, 5 rounds
    python bench/grouping.py --quick

The baseline is the analyser with grouping left out and nothing else: the same analysis (with the
rename hints), the same contract digests, the same save in one transaction and the same learning of
mappings, but no fingerprints and no problem rows. (Until Dec 1 2026 the baseline was the analyser
as it was before problems, without the rename hints and the learning added since, which counted
their cost as grouping's.) The measured path is `pipeline.analyze_calls` itself. Both analyse the
same batches of the same database side by side, taking turns at going first, so disk caches and the
machine's load fall on both alike (two whole passes one after the other differed by 15-20% on a
quiet machine, more than the margin measured). Two shapes of traffic: the worst case, a store where
every call is broken (each save touches a problem's rollups), which is what the sample traces
repeated many times give; and realistic traffic (bench/traffic.py: 90% of calls correct), also among
300,000 stored calls (copied rows: a read that scans a table shows there, as two did until Dec 2
2026: 642 ms per batch at 300k calls).
"""

import gc
import statistics
import tempfile
import time
from pathlib import Path

import orjson
import traffic
from common import SAMPLES, options, ratio_line, write_figures

from webapp import pipeline
from webapp.cli import demo
from webapp.ingest import parse_body
from webapp.pipeline import store_batch
from webapp.pipeline.learning import learn
from webapp.pipeline.rules import RULES
from webapp.store import Store
from webapp.store.problems import forget_calls


def _baseline(store: Store, calls) -> int:
    """Analyse and save calls as pipeline.analyze_calls does, less the grouping."""
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    batch = pipeline._Batch(store, inputs)
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


FORGET = (
    "DELETE FROM problems",
    "DELETE FROM problem_calls",
    "DELETE FROM problem_hours",
    "DELETE FROM problem_splits",
    "DELETE FROM problem_pairs",
    "DELETE FROM problem_checks",
    "DELETE FROM problem_states",
    "UPDATE calls SET problem_paths = NULL, grouped_seqs = NULL",
)
# the calls analysed, not the copies grow() stores around them
MEASURED = "trace_id NOT LIKE '%~%'"


# What each pass analyses: every problem new (a backfill into an empty store), every call new to
# problems that exist (the live analyser's steady state), or every call again from the same
# snapshots (`tracediff reanalyze`)
PASSES = ("backfill", "new_calls", "reanalysis")


def _pass(store: Store, keys, kind: str) -> tuple[float, float]:
    """Analyse every call once without grouping and once with it.

    Batch by batch (the background analyser's 100 calls), the two side by side and in turn first, so
    a busy spell of the machine and a warm cache fall on both alike; return the CPU seconds of each
    (this process's: SQLite runs in it)."""
    with store.write() as conn:
        if kind == "backfill":
            for statement in FORGET:
                conn.execute(statement)
        # each call's part taken out of its problems, as retention does
        elif kind == "new_calls":
            forget_calls(conn, keys, RULES.exercises)
            conn.execute(
                f"UPDATE calls SET problem_paths = NULL, grouped_seqs = NULL WHERE {MEASURED}"
            )
        conn.execute(f"UPDATE calls SET version = version + 1, claimed_at = NULL WHERE {MEASURED}")
    calls = [{"trace_id": t, "call_id": c} for t, c in keys]
    spent = {_baseline: 0.0, pipeline.analyze_calls: 0.0}
    store.db.conn.execute("PRAGMA wal_autocheckpoint = 0")
    for number, start in enumerate(range(0, len(calls), 100)):
        batch = calls[start : start + 100]
        for analyse in (
            (_baseline, pipeline.analyze_calls)
            if number % 2
            else (pipeline.analyze_calls, _baseline)
        ):
            gc.collect()
            began = time.process_time()
            analyse(store, batch)
            # each side copies its own writes from the log into the database: left to SQLite, a
            # checkpoint falls on whichever commit crosses 1,000 pages, often the other side's
            store.db.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            spent[analyse] += time.process_time() - began
    return spent[_baseline], spent[pipeline.analyze_calls]


def sample_store(folder: Path, samples, copies: int) -> Store:
    """The worst case: the sample traces `copies` times under other trace ids.

    Most of their calls are broken, so nearly every save touches a problem's rows."""
    store = Store(folder / "grouping.db")
    demo.load_folder(store, samples, None)
    for copy in range(1, copies):
        store.db.execute(
            "INSERT INTO events (event_id, trace_id, call_id, snapshot, tool, source, release, "
            "payload, "
            "logged_as_string, http, meta, ts, received_at) SELECT event_id || ?, trace_id || ?, "
            "call_id, snapshot, tool, source, release, payload, logged_as_string, http, meta, ts, "
            "received_at FROM events WHERE event_id NOT LIKE '%#%'",
            (f"#{copy}", f"-{copy}"),
        )
    return store


def traffic_store(folder: Path, calls: int) -> Store:
    """Traffic as real mapping layers make it (bench/traffic.py).

    Eight tools, fields renamed, small integers, booleans, repeated values; 90% of calls correct,
    10% with one planted bug of every kind in turn."""
    folder.mkdir(exist_ok=True)
    store = Store(folder / "traffic.db")
    for name, contract in traffic.contracts().items():
        store.put_tool(name, {k: v for k, v in contract.items() if k != "name"})
    events = traffic.ingest_events(traffic.generate(calls, seed=7))
    for start in range(0, len(events), 5000):
        store_batch(
            store,
            parse_body(b"\n".join(orjson.dumps(e) for e in events[start : start + 5000])),
            None,
        )
    return store


def grow(store: Store, copies: int) -> int:
    """Copy the analysed calls and their parts in problems `copies` times.

    Under other trace ids (SQL only, no analysis): a store as big as a team's, for reads that would
    scan it. Return the calls stored."""
    for table in ("calls", "problem_calls"):
        columns = [row[1] for row in store.db.execute(f"PRAGMA table_info({table})").fetchall()]
        copied = ", ".join(_copied(column) for column in columns)
        for copy in range(1, copies + 1):
            store.db.execute(
                f"INSERT INTO {table} ({', '.join(columns)}) SELECT {copied} FROM {table} "
                "WHERE trace_id NOT LIKE '%~%'",
                {"copy": f"~{copy}", "days": f"-{copy} days"},
            )
    return store.db.execute("SELECT count(*) FROM calls").fetchone()[0]


def _copied(column: str) -> str:
    """A column of a copy.

    Another trace id, and a day earlier per copy (as many calls an hour as the original)."""
    if column == "trace_id":
        return "trace_id || :copy"
    # the fixed-width time form: a new date, the same time of day
    if column in ("ts", "first_ts", "last_ts"):
        return f"date({column}, :days) || substr({column}, 11)"
    return column


def grouping_overhead(store: Store, rounds: int, copies: int = 0, passes=PASSES) -> dict:
    """Return CPU ms per call with and without grouping, and the overhead of each pass.

    Over all rounds together, and the median of the rounds' own ratios. `copies` grows the store
    around the calls measured."""
    pipeline.catch_up(store)
    keys = store.db.execute("SELECT trace_id, call_id FROM calls").fetchall()
    stored = grow(store, copies) if copies else len(keys)
    spent = {kind: [] for kind in passes}
    for _ in range(rounds):
        for kind in passes:
            spent[kind].append(_pass(store, keys, kind))
    problems = store.db.execute("SELECT count(*) FROM problems").fetchone()[0]
    broken = store.db.execute(
        "SELECT count(DISTINCT trace_id || ' ' || call_id) FROM problem_calls WHERE trace_id NOT "
        "LIKE '%~%'"
    ).fetchone()[0]
    store.close()
    figures = {
        "calls": len(keys),
        "stored_calls": stored,
        "broken_calls": broken,
        "problems": problems,
        "rounds": rounds,
    }
    for when, pairs in spent.items():
        without, with_ = (sum(side) for side in zip(*pairs))
        figures[f"ms_per_call_without_{when}"] = round(without / rounds / len(keys) * 1000, 4)
        figures[f"ms_per_call_{when}"] = round(with_ / rounds / len(keys) * 1000, 4)
        figures[f"overhead_{when}"] = round(with_ / without - 1, 4)
        figures[f"median_round_overhead_{when}"] = round(
            statistics.median(w / b for b, w in pairs) - 1, 4
        )
    return figures


def measure(folder: Path, quick: bool, big: bool = True) -> dict:
    """Both shapes of traffic.

    The worst case (every call broken) and realistic traffic (most calls clean), and (`big`)
    realistic traffic among 300,000 stored calls."""
    rounds = 2 if quick else 5
    figures = {
        "all_broken": grouping_overhead(sample_store(folder, SAMPLES, 3 if quick else 40), rounds),
        "realistic": grouping_overhead(traffic_store(folder, 300 if quick else 3000), rounds),
    }
    if big:
        figures["realistic_big_store"] = grouping_overhead(
            traffic_store(folder / "big", 300 if quick else 3000),
            rounds,
            10 if quick else 100,
            PASSES[1:],
        )
    return figures


def report(figures: dict) -> None:
    """Print one ratio per traffic shape and pass.

    The target is the live analyser's (new calls)."""
    for shape, f in figures.items():
        for kind in PASSES:
            if f"ms_per_call_{kind}" not in f:
                # a backfill would forget the copies' problems too
                continue
            print(
                ratio_line(
                    f"analyser CPU per call with grouping / without, {shape.replace('_', ' ')}, "
                    f"{kind.replace('_', ' ')}",
                    f[f"ms_per_call_{kind}"],
                    f[f"ms_per_call_without_{kind}"],
                    "< 1.10" if kind == "new_calls" else "none; context",
                )
            )
        # the target that holds whatever the payloads (docs/performance.md)
        if "ms_per_call_new_calls" in f:
            added = f["ms_per_call_new_calls"] - f["ms_per_call_without_new_calls"]
            print(
                ratio_line(
                    f"grouping's CPU per new call / 0.25 ms, {shape.replace('_', ' ')}",
                    added,
                    0.25,
                    "< 1.00",
                )
            )


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=0)
    with tempfile.TemporaryDirectory(prefix="tracediff-bench-") as tmp:
        figures = measure(Path(tmp), args.quick)
    print(f"grouping: {figures}")
    report(figures)
    print(f"figures written to {write_figures('grouping', figures, args.quick)}")


if __name__ == "__main__":
    main()
