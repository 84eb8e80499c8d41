"""What learning mappings costs the background analyser.

Analysis with and without it, in the same run.

    python bench/inference.py            # about a minute
    python bench/inference.py --quick    # a few seconds

Two workloads: a renaming tool (tests/renames.py, small repeated values) and a worst case for the
evidence, wide payloads of 60 renamed booleans and small integers (every value pairs with many).
Printed: the analysis alone, then with learning, whose time includes the re-analysis of the calls
analysed before the tool's inferred pairs changed, and the time spent in learning itself.
"""

import random
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from renames import events, traffic  # noqa: E402

from webapp import pipeline  # noqa: E402
from webapp.ingest import parse_body  # noqa: E402
from webapp.pipeline import learning as learnt_from  # noqa: E402
from webapp.store import Store  # noqa: E402


def wide(count: int) -> list[dict]:
    rng = random.Random(1)
    out = []
    for i in range(count):
        arguments = {f"flag_{k}": rng.choice([True, False, 0, 1, 2]) for k in range(60)}
        request = {f"flagRenamed{k}": v for k, v in enumerate(arguments.values())}
        out += events(arguments, request, f"{i:032x}", i, tool="wideTool")
    return out


def timed(envelopes, learning: bool) -> tuple[float, int, int, float]:
    """Load the events, then analyse every call (learning or not).

    Return (seconds, calls analysed, evidence rows, seconds spent learning)."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        pipeline.store_batch(store, parse_body(orjson.dumps(envelopes)), None)
        store.project_all()
        keep, spent = learnt_from.learn, [0.0]

        def learn(store, inputs, *what_the_analysis_found):
            if learning:
                began = time.perf_counter()
                keep(store, inputs, *what_the_analysis_found)
                spent[0] += time.perf_counter() - began

        # the baseline runs the same analysis and learns nothing
        pipeline.learn = learn
        try:
            start = time.perf_counter()
            analysed = pipeline.catch_up(store)
            seconds = time.perf_counter() - start
        finally:
            pipeline.learn = keep
        rows = store.db.execute("SELECT count(*) FROM mapping_evidence").fetchone()[0]
        store.close()
        return seconds, analysed, rows, spent[0]


def main(quick: bool) -> None:
    n = 100 if quick else 1000
    for name, envelopes in (
        ("renaming tool", traffic(n)),
        ("wide payloads (60 keys)", wide(n // 2)),
    ):
        base, calls, _, _ = timed(envelopes, learning=False)
        total, analysed, rows, learning = timed(envelopes, learning=True)
        print(
            f"{name}: {calls} calls analysed in {base:.2f} s; with learning {analysed} analyses in "
            f"{total:.2f} s "
            f"({total / base:.2f}x); learning itself {learning:.2f} s ({learning / base:.2f}x the "
            "analysis, "
            f"{1000 * learning / calls:.2f} ms a call); {rows} evidence rows"
        )


if __name__ == "__main__":
    main("--quick" in sys.argv)
