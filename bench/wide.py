"""Analysis throughput on wide payloads.

calls/s per core at 100, 500 and 1,000 keys per payload.

    python bench/wide.py            # about two minutes
    python bench/wide.py --quick    # a few seconds

Each width: wide calls (arguments of N fields, the request naming them in snake_case, a response of
half of them; bench/widebody.py) ingested into a fresh SQLite file and projected, then analysed by
the background analyser's own turns (webapp/ops/analyser.py: 200 ms batches, observed shapes,
problems) on one thread, so calls/s is per core. `analysis only` is analyze_call alone on the same
calls. The baseline, same run: a narrow call (5 keys). A last line runs the 500-key calls the way
the analyser did before batches were bounded (100 calls a batch), to show what short transactions
cost in throughput.
"""

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from common import options, ratio_line, write_figures  # noqa: E402
from widebody import wide_ndjson  # noqa: E402

from webapp import pipeline  # noqa: E402
from webapp.analysis import analyze_call  # noqa: E402
from webapp.ingest import parse_body  # noqa: E402
from webapp.ingest.model import Limits  # noqa: E402
from webapp.ops.analyser import Analyser  # noqa: E402
from webapp.store import Store  # noqa: E402

WIDTHS = (5, 100, 500, 1000)


def loaded_store(folder: Path, keys: int, calls: int, name: str = "") -> Store:
    """A fresh SQLite store holding `calls` projected wide calls of `keys` fields."""
    store = Store(folder / f"wide-{keys}{name}.db")
    body = wide_ndjson(calls, keys)
    pipeline.store_batch(
        store, parse_body(body, limits=Limits(max_body_bytes=len(body) + 1, max_events=10**6)), None
    )
    store.project_all()
    return store


def analyser_rate(store: Store, seconds: float, batched: bool = True) -> tuple[float, int]:
    """Calls/s of the analyser's turns on one thread for about `seconds`.

    Or until the backlog is done."""
    analyser = Analyser({"ANALYSIS_BUDGET": 2.0, "DATABASE": store.path, "RETENTION_DAYS": 0})
    done, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        busy = (
            analyser.turn(store)
            if batched
            else pipeline.analyze_pending(store, limit=100, budget=2.0)
        )
        if not busy:
            break
        done += busy
    return done / (time.perf_counter() - began), done


def analysis_rate(store: Store, seconds: float) -> float:
    """Calls/s of analyze_call alone on the same calls.

    No store, no shapes, no problems."""
    keys = [tuple(row) for row in store.db.execute("SELECT trace_id, call_id FROM calls LIMIT 200")]
    calls = list(store.calls_inputs(keys).values())
    done, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        analyze_call(calls[done % len(calls)]["snapshots"], None, budget=2.0)
        done += 1
    return done / (time.perf_counter() - began)


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=20.0)
    seconds = 1.0 if args.quick else args.seconds
    figures = {"seconds_per_width": seconds, "widths": {}}
    with tempfile.TemporaryDirectory() as folder:
        for keys in WIDTHS:
            calls = 20 if args.quick else min(3000, max(60, int(seconds * 4000 / keys)))
            store = loaded_store(Path(folder), keys, calls)
            try:
                rate, done = analyser_rate(store, seconds)
                alone = analysis_rate(store, min(seconds, 5.0))
            finally:
                store.close()
            figures["widths"][keys] = {"analyser_calls_per_s": round(rate, 1), "calls": done}
            figures["widths"][keys]["analysis_only_calls_per_s"] = round(alone, 1)
            print(
                f"{keys:5d} keys: analyser {rate:7.1f} calls/s per core ({done} calls); analysis "
                f"only {alone:7.1f}"
            )
        store = loaded_store(
            Path(folder), 500, 20 if args.quick else max(60, int(seconds * 8)), "-before"
        )
        try:
            unbounded, done = analyser_rate(store, seconds, batched=False)
        finally:
            store.close()
        figures["500_keys_batches_of_100_calls_per_s"] = round(unbounded, 1)
        print(
            f"  500 keys, batches of 100 (before bounded batches): {unbounded:.1f} calls/s ({done} "
            "calls)"
        )
    base = figures["widths"][5]["analyser_calls_per_s"]
    hundred = figures["widths"][100]["analyser_calls_per_s"]
    for keys in (100, 500, 1000):
        rate = figures["widths"][keys]["analyser_calls_per_s"]
        print(
            ratio_line(f"analyser calls/s, {keys} keys / 5 keys", rate, base, "a record, no target")
        )
        if keys > 100:
            print(
                ratio_line(
                    f"analyser calls/s, {keys} keys / 100 keys",
                    rate,
                    hundred,
                    "a record, no target",
                )
            )
    bounded = figures["widths"][500]["analyser_calls_per_s"]
    print(ratio_line("500 keys, 200 ms batches / batches of 100", bounded, unbounded, ">= 0.8"))
    print(f"figures: {write_figures('wide', figures, args.quick)}")


if __name__ == "__main__":
    main()
