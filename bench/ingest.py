"""Ingest throughput of `tracediff serve` against raw SQLite and bare Flask.

A bare Flask app, in the same run.

python bench/ingest.py # about 90 s python bench/ingest.py --quick # a few seconds, for
tests/test_bench_smoke.py python bench/ingest.py --database postgresql:///tracediff_bench # also
PostgreSQL (the database is emptied)
"""

import sqlite3
import statistics
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import orjson
from common import bare_server, options, ratio_line, tracediff_server, write_figures
from events import batch_body, call_lines, contract
from ingest_clients import BASELINE_DDL, BASELINE_INSERT, NDJSON, load, raw_row


def baseline_database(path: Path, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """Create the baseline's table in a new WAL database and return a connection to it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(f"PRAGMA synchronous = {synchronous}")
    conn.execute(BASELINE_DDL)
    return conn


def sqlite_baseline(folder: Path, seconds: float, synchronous: str = "NORMAL") -> dict:
    """Insert the same events with executemany, WAL.

    The given synchronous mode, a commit per ~100 rows."""
    conn = baseline_database(folder / f"raw-{synchronous}.db", synchronous)
    number, rows_done, spent = 0, 0, 0.0
    while spent < seconds:
        body, calls = batch_body("raw", number)
        number += calls
        rows = [raw_row(orjson.loads(line)) for line in body.splitlines()]
        began = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany(BASELINE_INSERT, rows)
        conn.execute("COMMIT")
        spent += time.perf_counter() - began
        rows_done += len(rows)
    conn.close()
    return {
        "events": rows_done,
        "seconds": round(spent, 3),
        "events_per_s": round(rows_done / spent, 1),
    }


def _read(db_path: Path, sql: str, params=()):
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute(sql, params).fetchone()
    finally:
        conn.close()


def unanalysed(db_path: Path) -> int:
    """Count stored calls without an up-to-date analysis.

    Whether or not a calls row exists yet."""
    calls = _read(db_path, "SELECT count(*) FROM (SELECT DISTINCT trace_id, call_id FROM events)")[
        0
    ]
    done = _read(
        db_path,
        "SELECT count(*) FROM calls WHERE analyzed_version = version AND analyzed_version > 0",
    )[0]
    return calls - done


def drain(db_path: Path, timeout: float) -> dict:
    """Wait until every stored call is analysed.

    Return the backlog and how long it took."""
    began, backlog = time.monotonic(), unanalysed(db_path)
    left = backlog
    while left and time.monotonic() - began < timeout:
        time.sleep(0.1)
        left = unanalysed(db_path)
    elapsed = time.monotonic() - began
    return {
        "backlog_calls": backlog,
        "left_calls": left,
        "seconds": round(elapsed, 2),
        "calls_per_s": round((backlog - left) / elapsed, 1) if elapsed else None,
    }


# When the oldest snapshot still waiting for analysis arrived: a call not analysed at its current
# version (its newest current snapshot), or an event not yet projected into a call.
OLDEST_WAITING = """SELECT min(t) FROM (
 SELECT max(e.received_at) AS t FROM calls c JOIN events e
  ON e.seq IN (c.arguments_seq, c.request_seq, c.response_seq)
  WHERE c.analyzed_version < c.version GROUP BY c.trace_id, c.call_id
 UNION ALL
 SELECT min(received_at) FROM events
  WHERE seq > coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0))"""


class LagSampler(threading.Thread):
    """Sample how long the oldest snapshot waiting for analysis has waited.

    Twice a second."""

    def __init__(self, db_path: Path):
        super().__init__(daemon=True)
        self.db_path, self.stopping, self.lags = db_path, threading.Event(), []

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            oldest = _read(self.db_path, OLDEST_WAITING)[0]
            lag = (
                0.0
                if oldest is None
                else (
                    datetime.now(UTC) - datetime.fromisoformat(oldest.replace("Z", "+00:00"))
                ).total_seconds()
            )
            self.lags.append(lag)

    def summary(self) -> dict:
        self.stopping.set()
        self.join()
        lags = self.lags or [0.0]
        return {
            "samples": len(lags),
            "median_s": round(statistics.median(lags), 2),
            "max_s": round(max(lags), 2),
        }


def _analysed(db_path: Path, trace_id: str, call_id: str) -> bool:
    row = _read(
        db_path,
        "SELECT analyzed_version = version AND analyzed_version > 0 FROM calls WHERE trace_id = ? "
        "AND call_id = ?",
        (trace_id, call_id),
    )
    return bool(row and row[0])


def trickle(url: str, db_path: Path, calls: int) -> dict:
    """Post one whole call at a time on an idle server.

    Time from its acknowledgement until it is analysed."""
    lags = []
    with httpx.Client(timeout=30) as client:
        for number in range(calls):
            lines = call_lines("trickle", number)
            first = orjson.loads(lines[0])
            client.post(
                url + "/api/v1/ingest", content=("\n".join(lines) + "\n").encode(), headers=NDJSON
            ).raise_for_status()
            acked = time.monotonic()
            while (
                not _analysed(db_path, first["trace_id"], first["call_id"])
                and time.monotonic() - acked < 30
            ):
                time.sleep(0.01)
            lags.append(time.monotonic() - acked)
    return {
        "calls": calls,
        "median_s": round(statistics.median(lags), 3),
        "max_s": round(max(lags), 3),
    }


def serve_and_load(
    folder: Path, figures: dict, synchronous: str, seconds: float, quick: bool, step
) -> None:
    """Load `tracediff serve` with batches and single events.

    Time the analysis after the load."""
    db_path = folder / f"tracediff-{synchronous}.db"
    suffix = "" if synchronous == "FULL" else f"_{synchronous.lower()}"
    with tracediff_server(db_path, env={"TRACEDIFF_SYNCHRONOUS": synchronous}) as server:
        server.wait_ready("/api/v1/health")
        step(f"tracediff serve is up (synchronous={synchronous})")
        httpx.put(
            server.url + "/api/v1/tools/findOrders", json=contract(), timeout=30
        ).raise_for_status()
        sampler = LagSampler(db_path)
        sampler.start()
        figures[f"tracediff_batches{suffix}"] = load(
            server.url + "/api/v1/ingest", "b", 100, seconds, server.process.pid
        )
        figures[f"analysis_lag_during_load{suffix}"] = sampler.summary()
        step("batches posted")
        figures[f"analysis_drain{suffix}"] = drain(db_path, 10 if quick else 120)
        if synchronous != "FULL":
            return
        figures["analysis_trickle"] = trickle(server.url, db_path, 3 if quick else 20)
        step("analysis drained and trickle timed")
        figures["tracediff_single"] = load(server.url + "/api/v1/ingest", "s", 1, seconds / 2)


def request_only(folder: Path, figures: dict, seconds: float, step) -> None:
    """Load `tracediff serve` with its analyser off (NORMAL): the ingest request alone."""
    db_path = folder / "tracediff-off.db"
    env = {"TRACEDIFF_SYNCHRONOUS": "NORMAL", "TRACEDIFF_ANALYZER": "off"}
    with tracediff_server(db_path, env=env) as server:
        server.wait_ready("/api/v1/health")
        step("tracediff serve is up (analyser off)")
        figures["tracediff_batches_off"] = load(
            server.url + "/api/v1/ingest", "o", 100, seconds, server.process.pid
        )


def run(args) -> dict:
    """Measure every ingest figure and return them."""
    seconds, quick = args.seconds, args.quick
    began = time.monotonic()
    step = lambda name: print(f"[{time.monotonic() - began:5.1f} s] {name}", flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="tracediff-bench-") as tmp:
        folder = Path(tmp)
        step("raw SQLite baselines")
        figures = {
            "sqlite_executemany": sqlite_baseline(folder, 0.3 if quick else 5),
            "sqlite_executemany_full": sqlite_baseline(folder, 0.3 if quick else 5, "FULL"),
        }
        # the default setting
        serve_and_load(folder, figures, "FULL", seconds, quick, step)
        # like for like with the baseline
        serve_and_load(folder, figures, "NORMAL", seconds, quick, step)
        request_only(folder, figures, seconds / 2, step)
        step("tracediff serve stopped")
        baseline_database(folder / "bare.db").close()
        with bare_server(
            folder / "bare.log", env={"BARE_DATABASE": str(folder / "bare.db")}
        ) as bare:
            bare.wait_ready("/health")
            step("bare Flask is up")
            figures["bare_single"] = load(bare.url + "/ingest", "s", 1, seconds / 2)
            figures["bare_batches"] = load(bare.url + "/ingest", "b", 100, seconds / 2)
            figures["bare_store_batches"] = load(
                bare.url + "/ingest-store", "c", 100, seconds / 2, bare.process.pid
            )
        step("bare Flask stopped")
        if args.database:
            import ingest_postgres

            figures.update(ingest_postgres.run(args.database, folder, seconds, step))
    return figures


def report(figures: dict) -> None:
    """Print the figures and the ratios against the baselines."""
    for name, value in figures.items():
        print(f"{name}: {value}")
    normal, raw = (
        figures["tracediff_batches_normal"]["events_per_s"],
        figures["sqlite_executemany"]["events_per_s"],
    )
    print(
        ratio_line(
            "ingest batches / raw SQLite executemany, both synchronous=NORMAL",
            normal,
            raw,
            ">= 0.60",
        )
    )
    batches, full = (
        figures["tracediff_batches"]["events_per_s"],
        figures["sqlite_executemany_full"]["events_per_s"],
    )
    print(
        ratio_line(
            "ingest batches / raw SQLite executemany, both synchronous=FULL (the default)",
            batches,
            full,
            ">= 0.60",
        )
    )
    print(
        ratio_line(
            "single-event POSTs / bare Flask",
            figures["tracediff_single"]["posts_per_s"],
            figures["bare_single"]["posts_per_s"],
            "none; for context",
        )
    )
    print(
        ratio_line(
            "ingest batches / bare Flask batches",
            batches,
            figures["bare_batches"]["events_per_s"],
            "none; for context",
        )
    )
    floor = figures["bare_store_batches"]["events_per_s"]
    print(
        ratio_line(
            "bare Flask that only parses and inserts / raw SQLite executemany, both NORMAL "
            "(the ceiling for a server that stores each event)",
            floor,
            raw,
            "none; bounds the 0.60 target",
        )
    )
    print(
        ratio_line(
            "ingest batches (NORMAL) / bare Flask that only parses and inserts",
            normal,
            floor,
            "none; for context",
        )
    )
    print_cpu_ratios(figures)
    if "postgres_executemany" in figures:
        import ingest_postgres

        ingest_postgres.report(figures)


def print_cpu_ratios(figures: dict) -> None:
    """Print the CPU an event of servers and clients, and the rate CPU alone allows.

    On a machine others share, the rates move with their load; the CPU an event much less. The
    bare server's CPU and ours (analyser off: the request alone) with the clients' beside each
    give the ratio of the rates of a machine whose cores the load alone keeps busy."""
    bare, clients = figures["bare_store_batches"], figures["tracediff_batches_normal"]
    if "server_cpu_us_per_event" not in bare or "server_cpu_us_per_event" not in clients:
        return
    ours = figures.get("tracediff_batches_off", clients)
    print(
        ratio_line(
            "server CPU an event, ingest (analyser off) / bare parse-and-insert",
            ours["server_cpu_us_per_event"],
            bare["server_cpu_us_per_event"],
            "none; for context",
        )
    )
    print(
        ratio_line(
            "rate the CPU allows, ingest (analyser off) / bare parse-and-insert (CPU an event of "
            "the server and the clients, bare's / ingest's)",
            bare["server_cpu_us_per_event"] + bare["client_cpu_us_per_event"],
            ours["server_cpu_us_per_event"] + ours["client_cpu_us_per_event"],
            ">= 0.5",
        )
    )


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=20)
    if args.quick:
        args.seconds = min(args.seconds, 1.0)
    figures = run(args)
    report(figures)
    print(f"figures written to {write_figures('ingest', figures, args.quick)}")


if __name__ == "__main__":
    main()
