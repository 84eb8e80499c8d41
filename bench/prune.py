"""Prune's cost against plain SQL deletes.

Seconds, the largest transaction (peak WAL) and the file left.

A database of N traces (gendb.py: three small events each, one search index segment) is pruned
twice, each time from a fresh copy: a daily retention run (the oldest 1/30 of the traces) and an
emergency on a full disk (the oldest 80%). `Store.prune` then `Store.reclaim` (what `tracediff
prune` runs) is timed against the baseline, in the same run on another copy: one transaction of
set-wide DELETE statements (and the search index's delete markers) followed by the same incremental
vacuum. The baseline is the least the deletions cost; its one transaction needs a WAL the size of
everything it deletes, which is what a full disk does not have.

    python bench/prune.py [--traces 100000]
"""

import argparse
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

from common import OUT, ratio_line, write_figures
from gendb import generate

from webapp.pipeline.rules import RULES
from webapp.store import Store
from webapp.store.sqlite.upkeep import file_bytes

CASES = {"daily": 1 / 30, "emergency": 0.8}
BASELINE = [
    "INSERT INTO events_fts (events_fts, rowid, body) SELECT 'delete', seq, payload FROM events "
    "WHERE trace_id IN old",
    "DELETE FROM events WHERE trace_id IN old",
    "DELETE FROM calls WHERE trace_id IN old",
    "DELETE FROM trace_kinds WHERE trace_id IN old",
    "DELETE FROM trace_tools WHERE trace_id IN old",
    "DELETE FROM traces WHERE trace_id IN old",
]


class PeakWal:
    """Sample the size of a database's WAL every few milliseconds.

    Keep the largest."""

    def __init__(self, path: Path):
        self.wal, self.peak, self.done = f"{path}-wal", 0, threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self.done.wait(0.002):
            try:
                self.peak = max(self.peak, os.path.getsize(self.wal))
            except OSError:
                pass

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.done.set()
        self.thread.join()


def cutoff_of(path: Path, share: float) -> str:
    with sqlite3.connect(path) as conn:
        count = conn.execute("SELECT count(*) FROM traces").fetchone()[0]
        return conn.execute(
            "SELECT last_ts FROM traces ORDER BY last_ts LIMIT 1 OFFSET ?", (int(count * share),)
        ).fetchone()[0]


def run(pristine: Path, folder: Path, cutoff: str, plain: bool) -> dict:
    work = folder / ("plain.db" if plain else "prune.db")
    shutil.copy(pristine, work)
    store = Store(work, create=False)
    began = time.perf_counter()
    with PeakWal(work) as wal:
        if plain:
            old = f"(SELECT trace_id FROM traces WHERE last_ts < '{cutoff}')"
            with store.write() as conn:
                for statement in BASELINE:
                    conn.execute(statement.replace(" old", f" {old}"))
        else:
            store.prune(cutoff, rules=RULES)
        store.reclaim()
    seconds = time.perf_counter() - began
    traces = store.count_traces()
    store.close()
    return {
        "seconds": seconds,
        "peak_wal": wal.peak,
        "file": file_bytes(work),
        "traces_left": traces,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="2,000 traces, for the smoke test")
    args = parser.parse_args()
    traces = 2_000 if args.quick else args.traces
    # a fresh checkout has no bench/out until a benchmark writes it
    OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(dir=OUT))
    pristine = folder / "pristine.db"
    generate(pristine, traces)
    store = Store(pristine, create=False)
    # gendb writes no projection progress: the store would fold every event in the timed part
    store.project_all()
    store.close()
    figures = {"traces": traces, "file": file_bytes(pristine), "cases": {}}
    print(f"{traces} traces, {file_bytes(pristine) / 1e6:.1f} MB")
    for name, share in CASES.items():
        cutoff = cutoff_of(pristine, share)
        ours, plain = (
            run(pristine, folder, cutoff, plain=False),
            run(pristine, folder, cutoff, plain=True),
        )
        assert ours["traces_left"] == plain["traces_left"], (ours, plain)
        figures["cases"][name] = {"prune": ours, "baseline": plain}
        print(
            f"{name} ({share:.0%}): prune {ours['seconds']:.2f} s, peak WAL "
            f"{ours['peak_wal'] / 1e6:.2f} MB, "
            f"file {ours['file'] / 1e6:.1f} MB | plain deletes {plain['seconds']:.2f} s, peak WAL "
            f"{plain['peak_wal'] / 1e6:.2f} MB, file {plain['file'] / 1e6:.1f} MB"
        )
        print(
            ratio_line(
                f"{name} prune seconds / plain deletes", ours["seconds"], plain["seconds"], "< 3"
            )
        )
        print(
            ratio_line(
                f"{name} prune file left / plain deletes", ours["file"], plain["file"], "< 1.1"
            )
        )
    shutil.rmtree(folder)
    write_figures("prune", figures, args.quick)


if __name__ == "__main__":
    main()
