"""Server time and size of each list page with 3,000 tools and releases.

3,000 tools and 3,000 releases, against the same page with 30.

A crowd is what one misconfigured shipper makes in an afternoon (a build id sent as the release;
tests/crowds.py builds it through the store's ingest). Each page should answer in under 300 ms on
SQLite and stay under 300 KB.

    python bench/crowds.py           # makes both databases in bench/out (~10 s), times each page
    python bench/crowds.py --quick   # fewer rounds, for tests/test_bench_smoke.py
"""

import statistics
import sys
import time

from common import OUT, ROOT, options, ratio_line, write_figures

sys.path[:0] = [str(ROOT / "tests")]

from crowds import RARE, TOOLS, build_crowd, tool_name  # noqa: E402

from webapp import create_app  # noqa: E402
from webapp.store import Store  # noqa: E402

BASELINE_TOOLS = 30
PAGES = (
    "/",
    "/index.json",
    "/tools",
    "/tools.json",
    "/releases",
    "/releases.json",
    "/api/v1/releases",
    "/problems",
    "/problems.json",
    "/quarantine",
    "/api/v1/ready",
    "/values/tool.json?q=2999",
)


def database(size: int) -> str:
    """Return the path of a crowd of `size` tools, built on first use."""
    path = OUT / f"crowd-{size}.db"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        store = Store.open(path)
        try:
            build_crowd(store, size)
        finally:
            store.close()
    return str(path)


def timed(client, url: str, rounds: int) -> tuple[float, int]:
    """Return the median seconds of `rounds` answers to url, and the size.

    After one warm-up; the answer's size."""
    size = len(client.get(url).data)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.get(url)
        times.append(time.perf_counter() - started)
    return statistics.median(times), size


def main() -> None:
    args = options(__doc__.splitlines()[0], 0)
    rounds = 3 if args.quick else 15
    clients = {
        size: create_app(
            {"TESTING": True, "DATABASE": database(size), "ANALYZER": "off"}
        ).test_client()
        for size in (BASELINE_TOOLS, TOOLS)
    }
    figures = {}
    print(f"{'page':<28} {'3,000 tools':>12} {'30 tools':>10} {'size':>10}")
    for url in PAGES:
        (crowd_s, size), (small_s, _) = (
            timed(clients[n], url, rounds) for n in (TOOLS, BASELINE_TOOLS)
        )
        figures[url] = {"crowd_ms": crowd_s * 1000, "baseline_ms": small_s * 1000, "bytes": size}
        print(f"{url:<28} {crowd_s * 1000:>10.0f}ms {small_s * 1000:>8.0f}ms {size:>10,}")
    slowest = max(figures, key=lambda url: figures[url]["crowd_ms"])
    worst = figures[slowest]
    print(f"the rare tool {tool_name(RARE)} is found by /values/tool.json; slowest page: {slowest}")
    print(
        ratio_line(
            f"slowest page ({slowest}), crowd over 30 tools",
            worst["crowd_ms"],
            worst["baseline_ms"],
            "<= 3",
        )
    )
    write_figures("crowds", {"pages": figures}, args.quick)


if __name__ == "__main__":
    main()
