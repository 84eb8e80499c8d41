"""Time analyze_call and the page's alignment on every corpus shape.

The trace page's alignment, at 0.1 to 5 MB.

    python bench/shapes.py                      # every shape at 0.1, 0.5, 1, 2 and 5 MB (minutes)
    python bench/shapes.py --shapes records_enum,keys_renamed --sizes 0.1,1
    python bench/shapes.py --quick              # tiny sizes, for tests/test_bench_smoke.py
    python bench/shapes.py --write-docs         # also draw docs/perf-shapes.png
    (with --shapes, the other shapes' figures of earlier runs are kept in bench/out/shapes.json)

Per shape it prints the CPU time per MB against the friendly shape's at the same size (target within
3x), analyze_call against a bare per-node walk of the same payloads (bench/bare_walk.py; target
within 40x: docs/performance.md says why this is the right target for shapes whose every node
differs), and the doubling ratio (target <= 2.3x; time grows as size**k, and a doubling multiplies
it by 2**k), both for the worst pair of neighbouring sizes and fitted over every size. Times are CPU
seconds of this process (time.process_time): other work on a shared machine slows the wall clock
more than it does these.
"""

import argparse
import gc
import json
import math
import time

from bare_walk import bare
from common import OUT, ROOT, figures, write_figures
from corpus import SHAPES, payload_bytes

from webapp.analysis import analyze_call
from webapp.common.stages import NAMES
from webapp.web.render import aligned, tracepage

SIZES = (0.1, 0.5, 1, 2, 5)
QUICK_SIZES = (0.005, 0.01)
TARGET_PER_MB, TARGET_DOUBLING = 3.0, 2.3
# analyze_call / the bare per-node walk of the same shape (docs/performance.md says why)
TARGET_PER_NODE = 40.0


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, figures not for the docs")
    parser.add_argument("--sizes", help="comma-separated sizes in MB [default 0.1,0.5,1,2,5]")
    parser.add_argument("--shapes", help="comma-separated shape names [default all]")
    parser.add_argument(
        "--write-docs", action="store_true", help="draw docs/perf-shapes.png from this run"
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="measure nothing: print the ratios of bench/out/shapes.json (and plot with "
        "--write-docs)",
    )
    return parser.parse_args()


def cpu(function) -> tuple[float, object]:
    """Return the CPU seconds function() takes and what it returned.

    Best of three under 0.1 s."""
    best, value = math.inf, None
    for _ in range(3):
        gc.collect()
        began = time.process_time()
        value = function()
        best = min(best, time.process_time() - began)
        if best > 0.1:
            break
    return best, value


def page(snapshots: dict, result: dict) -> None:
    """Compute what the trace page shows of an analysed call.

    Findings and the first rows."""
    call = {
        "call_id": "c",
        "snapshots": {name: snapshots.get(name) for name in NAMES},
        "analyzed": True,
        **result,
    }
    chosen = tracepage.select_call({"calls": [call]}, "c")
    tracepage.findings_view(chosen)
    aligned.aligned_rows(chosen, False)


def measure(name: str, size_mb: float) -> dict:
    """Time one shape at one size.

    The analysis, then the page's alignment from its result."""
    snapshots, contract = SHAPES[name](int(size_mb * 1e6))
    analyze_s, result = cpu(lambda: analyze_call(snapshots, contract))
    return {
        "shape": name,
        "size_mb": size_mb,
        "mb": round(payload_bytes(snapshots) / 1e6, 3),
        "findings": len(result["findings"]),
        "occurrences": sum(f.get("occurrences", 1) for f in result["findings"]),
        "analyze_s": round(analyze_s, 4),
        "page_s": round(cpu(lambda: page(snapshots, result))[0], 4),
        "bare_s": round(cpu(lambda: bare(snapshots))[0], 4),
    }


def doubling(points: list[dict], key: str) -> float:
    """Return the worst 2**k between neighbouring sizes, where time grows as size**k."""
    worst = 0.0
    for a, b in zip(points, points[1:]):
        if a[key] > 0 and b[key] > 0 and b["mb"] > a["mb"]:
            worst = max(worst, 2 ** (math.log(b[key] / a[key]) / math.log(b["mb"] / a["mb"])))
    return worst


def fitted(points: list[dict], key: str) -> float:
    """Return 2**k for the k of a least-squares fit of log time on log size.

    Over every size.

    The worst neighbouring pair is at the mercy of one noisy point on a shared machine (the bare
    walk, linear by construction, shows neighbouring doublings up to ~3.5x); the fit is not."""
    xy = [(math.log(r["mb"]), math.log(r[key])) for r in points if r[key] > 0 and r["mb"] > 0]
    if len(xy) < 2:
        return 0.0
    mx, my = sum(x for x, _ in xy) / len(xy), sum(y for _, y in xy) / len(xy)
    slope = sum((x - mx) * (y - my) for x, y in xy) / (sum((x - mx) ** 2 for x, _ in xy) or 1)
    return 2**slope


def report(results: list[dict]) -> list[dict]:
    """Print one line per shape.

    Time per MB against the friendly shape's of the same run, doubling ratios."""
    friendly = {(r.get("run", ""), r["size_mb"]): r for r in results if r["shape"] == "friendly"}
    lines = []
    for name in dict.fromkeys(r["shape"] for r in results):
        points = [r for r in results if r["shape"] == name]
        line = {
            "shape": name,
            "ms": {
                str(r["size_mb"]): round((r["analyze_s"] + r["page_s"]) * 1000, 1) for r in points
            },
        }
        for key, parts in (("analyze", ("analyze_s",)), ("total", ("analyze_s", "page_s"))):
            ratios = [
                sum(r[p] for p in parts) / r["mb"] / (sum(base[p] for p in parts) / base["mb"])
                for r in points
                if (base := friendly.get((r.get("run", ""), r["size_mb"])))
            ]
            line[f"per_mb_{key}"] = round(max(ratios), 2)
            summed = [{**r, key: sum(r[p] for p in parts)} for r in points]
            line[f"doubling_{key}"] = round(doubling(summed, key), 2)
            line[f"fitted_{key}"] = round(fitted(summed, key), 2)
        if all(r.get("bare_s") for r in points):
            line["doubling_bare"] = round(doubling(points, "bare_s"), 2)
        bares = [r["analyze_s"] / r["bare_s"] for r in points if r.get("bare_s")]
        line["per_node"] = round(max(bares), 2) if bares else None
        lines.append(line)
        if bares:
            worst = max(
                (r for r in points if r.get("bare_s")), key=lambda r: r["analyze_s"] / r["bare_s"]
            )
            walk_ms = {
                str(r["size_mb"]): round(r["bare_s"] * 1000, 1) for r in points if r.get("bare_s")
            }
            print(
                f"RATIO {name} analyze / bare per-node walk of the same payloads: "
                f"{line['per_node']:.2f} "
                f"(target <= {TARGET_PER_NODE:g}; "
                f"{figures(worst['analyze_s'] * 1000, worst['bare_s'] * 1000)} ms); walk ms by "
                f"size {walk_ms}"
            )
        print(
            f"RATIO {name} time per MB / friendly's, analyze + page: {line['per_mb_total']:.2f} "
            f"(target <= {TARGET_PER_MB}); analyze alone {line['per_mb_analyze']:.2f}; doubling, "
            "analyze "
            f"{line['doubling_analyze']:.2f}, analyze + page {line['doubling_total']:.2f} "
            f"(target <= {TARGET_DOUBLING}); ms by size {line['ms']}",
            flush=True,
        )
        print(
            f"RATIO {name} doubling fitted over every size, analyze: {line['fitted_analyze']:.2f} "
            f"(target <= {TARGET_DOUBLING}); analyze + page {line['fitted_total']:.2f}; the bare "
            "walk's worst "
            f"neighbouring doubling in the same run (noise): {line.get('doubling_bare', 0):.2f}",
            flush=True,
        )
    return lines


def plot(results: list[dict], path) -> None:
    """Draw analysis + page time against size, one line per shape.

    Log-log: slope 1 is linear."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6))
    latest = max(r.get("run", "") for r in results)
    for name in dict.fromkeys(r["shape"] for r in results):
        points = [
            r
            for r in results
            if r["shape"] == name and (name != "friendly" or r.get("run", "") == latest)
        ]
        ax.plot(
            [r["mb"] for r in points],
            [(r["analyze_s"] + r["page_s"]) * 1000 for r in points],
            "o-" if name != "friendly" else "k*--",
            label=name,
            linewidth=2.5 if name == "friendly" else 1,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("payload size (MB of compact JSON, all snapshots)")
    ax.set_ylabel("analyze_call + trace page alignment (CPU ms)")
    ax.set_title(
        "Time against size per payload shape (log-log: a slope of 1 is linear)", fontsize="medium"
    )
    ax.legend(fontsize="x-small", ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def merged(results: list[dict]) -> list[dict]:
    """Add the shapes of earlier runs that this one did not measure.

    From bench/out/shapes.json, when this run measured a subset.

    Each run measures the friendly shape too, and every ratio is against the baseline of its own
    run."""
    path = OUT / "shapes.json"
    if not path.exists():
        return results
    before = json.loads(path.read_text())["results"]
    done = {r["shape"] for r in results if r["shape"] != "friendly"}
    kept = [r for r in before if r["shape"] not in done]
    runs = {r.get("run", "") for r in kept if r["shape"] != "friendly"}
    return [r for r in kept if r["shape"] != "friendly" or r.get("run", "") in runs] + results


def main() -> None:
    args = options()
    sizes = (
        QUICK_SIZES
        if args.quick
        else tuple(float(s) for s in (args.sizes.split(",") if args.sizes else SIZES))
    )
    names = ["friendly"] + [
        n for n in (args.shapes.split(",") if args.shapes else SHAPES) if n != "friendly"
    ]
    # compile the validators before timing
    analyze_call(*SHAPES["friendly"](10_000))
    results, run = [], time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if args.report_only:
        names, results = [], json.loads((OUT / "shapes.json").read_text())["results"]
    for name in names:
        for size in sizes:
            results.append({**measure(name, size), "run": run})
            print(f"{name} {size} MB: {results[-1]}", flush=True)
    if args.shapes and not args.quick and not args.report_only:
        results = merged(results)
    lines = report(results)
    print(
        "figures written to "
        f"{write_figures('shapes', {'results': results, 'shapes': lines}, args.quick)}"
    )
    if args.write_docs:
        plot(results, ROOT / "docs" / "perf-shapes.png")
        print("plot written to docs/perf-shapes.png")


if __name__ == "__main__":
    main()
