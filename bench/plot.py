"""Draw docs/perf-payload.png and docs/perf-traces.png.

From bench/out/analysis.json and pages.json.

python bench/plot.py            # after python bench/analysis.py and python bench/pages.py
python bench/plot.py --quick    # from the quick runs' figures, into bench/out/ (not docs/)
"""

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from common import OUT, ROOT, options  # noqa: E402


def _load(name: str, quick: bool) -> dict:
    return json.loads((OUT / f"{name}{'-quick' if quick else ''}.json").read_text())


def plot_payload(figures: dict, path) -> None:
    """Plot analysis time against payload size.

    All three tools, then without DeepDiff (linear axes)."""
    big = figures["big"]
    sizes = [pair["bytes"] / 1e6 for pair in big]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    series = (
        ("analyze_ms", "tracediff analyze_call (validation + diff)", "o-"),
        ("jsondiffpatch_ms", "jsondiffpatch (node), diff only", "s--"),
        ("deepdiff_ms", "DeepDiff, diff only", "^:"),
    )
    # DeepDiff is ~50x slower: the right panel leaves it out so the two fast lines can be read.
    for ax, shown, title in (
        (axes[0], series, "all three"),
        (axes[1], series[:2], "without DeepDiff"),
    ):
        for key, label, style in shown:
            points = [(x, pair[key]) for x, pair in zip(sizes, big) if pair.get(key)]
            if points:
                ax.plot(*zip(*points), style, label=label)
        ax.set_xlabel("size of each side of the pair (MB of compact JSON)")
        ax.set_ylabel("time per call (ms)")
        ax.set_title(f"Analysis time against payload size: {title}", fontsize="medium")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_traces(figures: dict, path) -> None:
    """Plot each page's server time against the number of stored traces.

    Log x, linear y."""
    results = figures["results"]
    counts = [r["traces"] for r in results]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for name in results[0]["pages"]:
        ax.plot(counts, [r["pages"][name]["median_ms"] for r in results], "o-", label=name)
    ax.plot(counts, [r["bare_select_ms"] for r in results], "k:", label="bare SELECT ... LIMIT 51")
    ax.set_xscale("log")
    ax.set_xlabel("stored traces")
    ax.set_ylabel("server time, median (ms)")
    ax.set_title("Page time against trace count")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=0)
    folder = OUT if args.quick else ROOT / "docs"
    folder.mkdir(parents=True, exist_ok=True)
    suffix = "-quick" if args.quick else ""
    plot_payload(_load("analysis", args.quick), folder / f"perf-payload{suffix}.png")
    plot_traces(_load("pages", args.quick), folder / f"perf-traces{suffix}.png")
    print(f"plots written to {folder}/perf-payload{suffix}.png and perf-traces{suffix}.png")


if __name__ == "__main__":
    main()
