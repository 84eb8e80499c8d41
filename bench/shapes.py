"""Time analyze_call and the trace page's alignment on every shape of the corpus at 0.1 to 5 MB.

    python bench/shapes.py                      # every shape at 0.1, 0.5, 1, 2 and 5 MB (several minutes)
    python bench/shapes.py --shapes records_enum,keys_renamed --sizes 0.1,1
    python bench/shapes.py --quick              # tiny sizes, for tests/test_bench_smoke.py
    python bench/shapes.py --write-docs         # also draw docs/perf-shapes.png

Per shape it prints the CPU time per MB against the friendly shape's at the same size (target within
3x) and the worst doubling ratio between neighbouring sizes (target <= 2.3x; time grows as size**k,
and a doubling multiplies it by 2**k). Times are CPU seconds of this process (time.process_time):
other work on a shared machine slows the wall clock more than it does these.
"""
import argparse
import gc
import math
import time

from common import ROOT, write_figures
from corpus import SHAPES, payload_bytes
from webapp import alignedview, tracepage
from webapp.analysis import analyze_call

SIZES = (0.1, 0.5, 1, 2, 5)
QUICK_SIZES = (0.005, 0.01)
TARGET_PER_MB, TARGET_DOUBLING = 3.0, 2.3


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, figures not for the docs")
    parser.add_argument("--sizes", help="comma-separated sizes in MB [default 0.1,0.5,1,2,5]")
    parser.add_argument("--shapes", help="comma-separated shape names [default all]")
    parser.add_argument("--write-docs", action="store_true", help="draw docs/perf-shapes.png from this run")
    return parser.parse_args()


def cpu(function) -> float:
    """Return the CPU seconds function() takes, best of two for short runs."""
    best = math.inf
    for _ in range(2):
        gc.collect()
        began = time.process_time()
        function()
        best = min(best, time.process_time() - began)
        if best > 0.5:
            break
    return best


def page(snapshots: dict, result: dict) -> None:
    """Compute what the trace page shows of an analysed call: findings and the first rows."""
    call = {"call_id": "c", "snapshots": {name: snapshots.get(name) for name in tracepage.SNAPSHOTS},
            "analyzed": True, **result}
    chosen = tracepage.select_call({"calls": [call]}, "c")
    tracepage.findings_view(chosen)
    alignedview.aligned_rows(chosen, False)


def measure(name: str, size_mb: float) -> dict:
    """Time one shape at one size: the analysis, then the page's alignment from its result."""
    snapshots, contract = SHAPES[name](int(size_mb * 1e6))
    result = analyze_call(snapshots, contract)
    figures = {"shape": name, "size_mb": size_mb, "mb": round(payload_bytes(snapshots) / 1e6, 3),
               "findings": len(result["findings"]),
               "occurrences": sum(f.get("occurrences", 1) for f in result["findings"])}
    figures["analyze_s"] = round(cpu(lambda: analyze_call(snapshots, contract)), 4)
    figures["page_s"] = round(cpu(lambda: page(snapshots, result)), 4)
    return figures


def doubling(points: list[dict], key: str) -> float:
    """Return the worst 2**k between neighbouring sizes, where time grows as size**k."""
    worst = 0.0
    for a, b in zip(points, points[1:]):
        if a[key] > 0 and b[key] > 0 and b["mb"] > a["mb"]:
            worst = max(worst, 2 ** (math.log(b[key] / a[key]) / math.log(b["mb"] / a["mb"])))
    return worst


def report(results: list[dict], sizes) -> list[dict]:
    """Print one line per shape: time per MB against the friendly shape's, and the doubling ratio."""
    friendly = {r["size_mb"]: r for r in results if r["shape"] == "friendly"}
    lines = []
    for name in dict.fromkeys(r["shape"] for r in results):
        points = [r for r in results if r["shape"] == name]
        per_mb = max((r["analyze_s"] + r["page_s"]) / r["mb"] /
                     ((friendly[r["size_mb"]]["analyze_s"] + friendly[r["size_mb"]]["page_s"]) / friendly[r["size_mb"]]["mb"])
                     for r in points if r["size_mb"] in friendly)
        line = {"shape": name, "per_mb_vs_friendly": round(per_mb, 2),
                "doubling_analyze": round(doubling(points, "analyze_s"), 2),
                "doubling_page": round(doubling(points, "page_s"), 2),
                "ms": {str(r["size_mb"]): round((r["analyze_s"] + r["page_s"]) * 1000, 1) for r in points}}
        lines.append(line)
        print(f"RATIO {name} time per MB / friendly: {per_mb:.2f} (target <= {TARGET_PER_MB}); doubling "
              f"{line['doubling_analyze']:.2f} analyze, {line['doubling_page']:.2f} page "
              f"(target <= {TARGET_DOUBLING}); ms by MB {line['ms']}", flush=True)
    return lines


def plot(results: list[dict], path) -> None:
    """Draw analysis + page time against size, one line per shape (log-log: slope 1 is linear)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 6))
    for name in dict.fromkeys(r["shape"] for r in results):
        points = [r for r in results if r["shape"] == name]
        ax.plot([r["mb"] for r in points], [(r["analyze_s"] + r["page_s"]) * 1000 for r in points],
                "o-" if name != "friendly" else "k*--", label=name, linewidth=2.5 if name == "friendly" else 1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("payload size (MB of compact JSON, all snapshots)")
    ax.set_ylabel("analyze_call + trace page alignment (CPU ms)")
    ax.set_title("Time against size per payload shape (log-log: a slope of 1 is linear)", fontsize="medium")
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    args = options()
    sizes = QUICK_SIZES if args.quick else tuple(float(s) for s in (args.sizes.split(",") if args.sizes else SIZES))
    names = ["friendly"] + [n for n in (args.shapes.split(",") if args.shapes else SHAPES) if n != "friendly"]
    analyze_call(*SHAPES["friendly"](10_000))   # compile the validators before timing
    results = []
    for name in names:
        for size in sizes:
            results.append(measure(name, size))
    lines = report(results, sizes)
    print(f"figures written to {write_figures('shapes', {'results': results, 'shapes': lines}, args.quick)}")
    if args.write_docs:
        plot(results, ROOT / "docs" / "perf-shapes.png")
        print("plot written to docs/perf-shapes.png")


if __name__ == "__main__":
    main()
