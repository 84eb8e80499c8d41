"""Speed and memory of analyze_call against DeepDiff and jsondiffpatch.

jsondiffpatch under node, in the same run.

python bench/analysis.py            # about 60-90 s
python bench/analysis.py --quick    # a few seconds, for tests/test_bench_smoke.py
"""

import gc
import json
import subprocess
import tempfile
import time
import tracemalloc
from pathlib import Path

import orjson
from common import ROOT, SAMPLES, options, ratio_line, write_figures
from deepdiff import DeepDiff
from grouping import measure as measure_grouping
from grouping import report as report_grouping
from payloads import call

from webapp.analysis import analyze_call
from webapp.cli import demo
from webapp.store import Store

SIZES = {"50KB": 50_000, "1MB": 1_000_000, "5MB": 5_000_000}
QUICK_SIZES = {"50KB": 50_000, "200KB": 200_000}
DEEPDIFF_BUDGET_S = 60
NODE = "/usr/bin/node"


def sample_calls(folder: Path) -> list[tuple[dict, dict | None]]:
    """Return (snapshots, contract) of every call in sample_traces/.

    Read back from a real store."""
    store = Store(folder / "samples.db")
    demo.load_folder(store, SAMPLES, None)
    keys = store.db.execute("SELECT trace_id, call_id FROM calls").fetchall()
    calls = []
    for trace_id, call_id in keys:
        inputs = store.call_inputs(trace_id, call_id)
        calls.append(
            (inputs["snapshots"], store.get_tool(inputs["tool"]) if inputs["tool"] else None)
        )
    store.close()
    return calls


def rate(function, items, seconds: float) -> float:
    """Call function on items round-robin for `seconds`.

    Return calls per second."""
    # warm caches (compiled validators) first
    for item in items:
        function(item)
    done, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds:
        for item in items:
            function(item)
        done += len(items)
    return done / (time.perf_counter() - began)


def best_time(function, repeats: int) -> float:
    """Return the best of `repeats` timings of function(), in seconds."""
    times = []
    for _ in range(repeats):
        gc.collect()
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return min(times)


def peak_bytes(function) -> int:
    """Return the peak bytes Python allocated while function() ran."""
    gc.collect()
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def jsondiffpatch_ms(left: dict, right: dict, folder: Path, repeats: int) -> float | None:
    """Time jsondiffpatch under node on the same pair.

    None when node or the package is missing."""
    if not (ROOT / "bench" / "node_modules" / "jsondiffpatch").exists():
        return None
    paths = [folder / "left.json", folder / "right.json"]
    for path, value in zip(paths, (left, right)):
        path.write_bytes(orjson.dumps(value))
    out = subprocess.run(
        [NODE, str(ROOT / "bench" / "jsondiffpatch_bench.mjs"), *map(str, paths), str(repeats)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)["ms"]


def big_pair(label: str, size: int, folder: Path, deepdiff_allowed: bool, quick: bool) -> dict:
    """Measure one big pair.

    Our analysis, its peak memory, DeepDiff and jsondiffpatch."""
    snapshots, contract = call(size)
    left, right = snapshots["arguments"]["payload"], snapshots["request"]["payload"]
    bytes_one = len(orjson.dumps(left))
    repeats = 1 if quick or size > 2_000_000 else 3
    ours = best_time(lambda: analyze_call(snapshots, contract), repeats)
    figures = {
        "size": label,
        "bytes": bytes_one,
        "analyze_ms": round(ours * 1000, 2),
        "peak_bytes": peak_bytes(lambda: analyze_call(snapshots, contract)),
    }
    figures["peak_ratio"] = round(figures["peak_bytes"] / bytes_one, 2)
    if deepdiff_allowed:
        figures["deepdiff_ms"] = round(best_time(lambda: DeepDiff(left, right), 1) * 1000, 1)
    else:
        figures["deepdiff_ms"] = None
        figures["deepdiff_skipped"] = f"projected over {DEEPDIFF_BUDGET_S} s from the smaller pairs"
    figures["jsondiffpatch_ms"] = jsondiffpatch_ms(left, right, folder, repeats)
    return figures


def run(args) -> dict:
    """Measure small-call throughput and the big pairs; return the figures."""
    with tempfile.TemporaryDirectory(prefix="tracediff-bench-") as tmp:
        folder = Path(tmp)
        calls = sample_calls(folder)
        seconds = 0.5 if args.quick else min(args.seconds, 10)
        figures = {
            "small": {
                "calls": len(calls),
                "analyze_per_s": round(rate(lambda c: analyze_call(*c), calls, seconds), 1),
                "deepdiff_per_s": round(rate(lambda c: DeepDiff(*_pair(c[0])), calls, seconds), 1),
            }
        }
        # the big store: bench/grouping.py
        figures["grouping"] = measure_grouping(folder, args.quick, big=False)
        print(f"grouping: {figures['grouping']}", flush=True)
        figures["big"] = []
        # DeepDiff seconds per byte, to skip a pair it would take minutes on
        per_byte = None
        for label, size in (QUICK_SIZES if args.quick else SIZES).items():
            allowed = per_byte is None or per_byte * size < DEEPDIFF_BUDGET_S
            pair = big_pair(label, size, folder, allowed, args.quick)
            if pair["deepdiff_ms"]:
                per_byte = pair["deepdiff_ms"] / 1000 / pair["bytes"]
            figures["big"].append(pair)
            print(f"{label}: {pair}", flush=True)
    return figures


def _pair(snapshots: dict) -> tuple:
    payload = [(snapshots.get(name) or {}).get("payload") for name in ("arguments", "request")]
    return payload[0], payload[1]


def report(figures: dict) -> None:
    """Print the figures and the ratios against the targets and baselines."""
    small = figures["small"]
    print(f"small calls: {small}")
    print(ratio_line("small calls/s / 2,000", small["analyze_per_s"], 2000, ">= 1.00"))
    print(
        ratio_line(
            "small calls/s / DeepDiff alone",
            small["analyze_per_s"],
            small["deepdiff_per_s"],
            "none; context",
        )
    )
    report_grouping(figures["grouping"])
    for pair in figures["big"]:
        label, ours = pair["size"], pair["analyze_ms"]
        if pair["jsondiffpatch_ms"]:
            print(
                ratio_line(
                    f"{label} jsondiffpatch time / analyze time",
                    pair["jsondiffpatch_ms"],
                    ours,
                    "> 1.00 at 1MB",
                )
            )
        if pair["deepdiff_ms"]:
            print(
                ratio_line(
                    f"{label} DeepDiff time / analyze time",
                    pair["deepdiff_ms"],
                    ours,
                    ">= 20 at 1MB",
                )
            )
        print(
            f"{label}: analyze {ours} ms (5MB target < 1000 ms), peak {pair['peak_ratio']}x the "
            "payload "
            f"(5MB target < 10x)"
        )


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=5)
    figures = run(args)
    report(figures)
    print(f"figures written to {write_figures('analysis', figures, args.quick)}")


if __name__ == "__main__":
    main()
