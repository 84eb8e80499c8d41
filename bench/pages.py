"""Server time of the pages at 10k, 100k and 1M stored traces.

Against a bare SELECT on the same database.

With the traces go 10,000 problems (bench/gen_problems.py): /problems and two problem pages, one of
a problem with a tenth of the store's calls. TRACEDIFF_BENCH_MAX_TRACES=N stops at the largest size
this machine builds in time (1M takes minutes to generate).

    python bench/pages.py            # makes bench/out/pages-*.db once (1M: minutes), then ~30 s
    python bench/pages.py --quick    # 2k traces, a 100 KB response: tests/test_bench_smoke.py
    # the same pages on PostgreSQL too: each SQLite database is copied (as tracediff migrate does)
    # into tracediff_bench_<N>, made on first use and reused while the SQLite file holds the same
    # rows (bench/pages_postgres.py)
    python bench/pages.py --database postgresql:///tracediff_bench
"""

import sqlite3
import statistics
import time

from common import options, ratio_line, write_figures
from gen_problems import add_problems
from gendb import cached_db
from payloads import document

from webapp import create_app, pipeline
from webapp.ingest import Event
from webapp.store import Store

COUNTS = (10_000, 100_000, 1_000_000)
BIG_TRACE = "b1600000000000000000000000000001"
PAGES = {
    "list first page": "/",
    "filtered by tool": "/?tool=sendEmail",
    "filtered by kind": "/?kind=dropped",
    "full-text search": "/?q=ticket4242",
    # fetched by htmx after the first paint on a big store (views.index, part=counts)
    "facet counts and strip (htmx)": "/?part=counts",
    "problems list": "/problems",
    "problems filtered by release and state": "/problems?release=1.4.2&state=resolved",
    # problems seen inside a window of the generated data's span (one probe, or the hourly rollup,
    # per problem)
    "problems in a day": "/problems?since=2026-09-25T10:00:00Z&until=2026-09-26T10:00:00Z",
    "problems in three days": "/problems?since=2026-09-24&until=2026-09-27",
    "facet counts and strip, one problem (htmx)": "/?problem=TD-1&part=counts",
    "problem page, a tenth of all calls": "/problems/TD-1",
    # a short range: bars under an hour, counted from the calls' own times
    # (webapp/problems/timeline.py)
    "problem page, a tenth of all calls, six hours": (
        "/problems/TD-1?since=2026-09-25T10:00:30Z&until=2026-09-25T16:00:00Z"
    ),
    "problems in six hours": "/problems?since=2026-09-25T10:00:30Z&until=2026-09-25T16:00:00Z",
    "problem page, a small problem": "/problems/TD-5000",
    "problem API, a tenth of all calls": "/api/v1/problems/TD-1",
}
HTMX = {"HX-Request": "true"}
MAX_TRACES = int(__import__("os").environ.get("TRACEDIFF_BENCH_MAX_TRACES", "1000000"))
BARE_SELECT = "SELECT * FROM traces ORDER BY last_ts DESC, trace_id DESC LIMIT 51"


def add_big_call(path, size: int) -> str:
    """Store (once) and analyse a call whose response is about `size` bytes.

    Return its trace id."""
    store = Store(path)
    if store.get_trace(BIG_TRACE) is None:
        body = document(size)
        events = [
            Event(
                event_id=f"big-{name}",
                trace_id=BIG_TRACE,
                call_id="call_01",
                snapshot=name,
                payload=payload,
                tool="saveNotebook",
                source="http",
                ts="2026-01-01T00:00:00Z",
                http={"status_code": 200} if name == "response" else None,
            )
            for name, payload in (
                ("arguments", {"notebook": "nb_42"}),
                ("request", {"notebook": "nb_42"}),
                ("response", body),
            )
        ]
        store.add_events(events)
    pipeline.analyze_all(store)
    store.close()
    return BIG_TRACE


def server_ms(client, url: str, repeats: int) -> dict:
    """GET url `repeats` times after one cold request.

    Return the status and timings in ms.

    `cpu_ms` is the process's CPU time (SQLite runs in it) per request, the best of the repeats:
    on a machine other work shares, the wall clock says more about the neighbours than about the
    page."""
    headers = HTMX if "part=" in url else {}
    began = time.perf_counter()
    response = client.get(url, headers=headers)
    cold = (time.perf_counter() - began) * 1000
    times, cpu = [], []
    for _ in range(repeats):
        began, began_cpu = time.perf_counter(), time.process_time()
        response = client.get(url, headers=headers)
        response.get_data()
        times.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    return {
        "status": response.status_code,
        "bytes": len(response.get_data()),
        "cold_ms": round(cold, 2),
        "median_ms": round(statistics.median(times), 2),
        "max_ms": round(max(times), 2),
        "cpu_ms": round(min(cpu), 2),
    }


def bare_select_ms(path, repeats: int) -> float:
    """Return the median time of a bare first-page SELECT on the same database, in ms."""
    conn = sqlite3.connect(path)
    times = []
    for _ in range(repeats + 1):
        began = time.perf_counter()
        conn.execute(BARE_SELECT).fetchall()
        times.append((time.perf_counter() - began) * 1000)
    conn.close()
    return round(statistics.median(times[1:]), 3)


def measure(count: int, big_size: int, repeats: int, postgres: str = "") -> dict:
    """Measure every page on a database of `count` traces.

    Copied into PostgreSQL when a URL is given."""
    path, generated = cached_db(count)
    problems_s = add_problems(path, count)
    trace_id = add_big_call(path, big_size)
    database, bare_ms, copied_s = str(path), lambda: bare_select_ms(path, repeats), None
    if postgres:
        from pages_postgres import bare_select_ms as pg_bare_select_ms
        from pages_postgres import copy_into_postgres

        database, copied_s = copy_into_postgres(path, postgres, count)
        bare_ms = lambda: pg_bare_select_ms(database, BARE_SELECT, repeats)  # noqa: E731
    app = create_app({"DATABASE": database, "ANALYZER": "off"})
    client = app.test_client()
    pages = {name: server_ms(client, url, repeats) for name, url in PAGES.items()}
    pages["trace page, big response"] = server_ms(client, f"/traces/{trace_id}", repeats)
    return {
        "traces": count,
        "engine": "postgresql" if postgres else "sqlite",
        "generated_s": None if generated is None else round(generated, 1),
        "problems_generated_s": None if problems_s is None else round(problems_s, 1),
        "copied_s": None if copied_s is None else round(copied_s, 1),
        "db_bytes": path.stat().st_size,
        "big_response_bytes": big_size,
        "bare_select_ms": bare_ms(),
        "pages": pages,
    }


def report(results: list[dict]) -> None:
    """Print each page's time, its ratio to the bare SELECT, and its flatness.

    Flatness against the smallest database."""
    first = results[0]
    for result in results:
        print(
            f"{result['traces']} traces on {result['engine']} (bare SELECT "
            f"{result['bare_select_ms']} ms):"
        )
        for name, page in result["pages"].items():
            print(f"  {name}: {page}")
    last = [r for r in results if r["engine"] == first["engine"]][-1]
    listing = last["pages"]["list first page"]
    for name, page in last["pages"].items():
        target = "< 200 ms" if name.startswith("trace page") else "< 100 ms"
        print(
            f"{last['traces']} traces, {name}: {page['median_ms']} ms, CPU {page['cpu_ms']} ms "
            f"(target {target}, status {page['status']})"
        )
        print(
            ratio_line(
                f"{name} CPU / the trace list's first page CPU, at {last['traces']}",
                page["cpu_ms"],
                listing["cpu_ms"],
                "none; context: the page every user opens",
            )
        )
        print(
            ratio_line(
                f"{name} at {last['traces']} / at {first['traces']} traces",
                page["median_ms"],
                first["pages"][name]["median_ms"],
                "about 1: flat",
            )
        )
        print(
            ratio_line(
                f"{name} at {last['traces']} / bare SELECT",
                page["median_ms"],
                last["bare_select_ms"],
                "none; context",
            )
        )


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=0)
    counts, big, repeats = ((500, 2_000), 100_000, 3) if args.quick else (COUNTS, 1_000_000, 9)
    counts = tuple(c for c in counts if c <= MAX_TRACES) or counts[:1]
    results = []
    for count in counts:
        results.append(measure(count, big, repeats))
        print(f"measured {count} traces", flush=True)
    report(results)
    if args.database:
        on_postgres = []
        for count in counts:
            on_postgres.append(measure(count, big, repeats, args.database))
            print(
                f"measured {count} traces on PostgreSQL (copied in {on_postgres[-1]['copied_s']} "
                "s; "
                "None: an earlier run's copy)",
                flush=True,
            )
        report(on_postgres)
        for sqlite_run, pg_run in zip(results, on_postgres):
            for name, page in pg_run["pages"].items():
                print(
                    ratio_line(
                        f"{name} at {pg_run['traces']} traces, PostgreSQL / SQLite",
                        page["median_ms"],
                        sqlite_run["pages"][name]["median_ms"],
                        "none; where the limits are",
                    )
                )
        results += on_postgres
    print(f"figures written to {write_figures('pages', {'results': results}, args.quick)}")


if __name__ == "__main__":
    main()
