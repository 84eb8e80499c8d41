"""Ingest into `tracediff serve` on PostgreSQL against raw inserts.

Raw PostgreSQL inserts of the same events, same run.

python bench/ingest.py --database postgresql:///tracediff_bench # an empty database, dropped and
remade
"""

import sys
import time
from pathlib import Path

import orjson
import psycopg
from common import Process, free_port, ratio_line
from events import batch_body, contract

BASELINE_DDL = """CREATE TABLE raw_events (seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
 event_id TEXT NOT NULL UNIQUE, trace_id TEXT NOT NULL, call_id TEXT NOT NULL, snapshot TEXT NOT
   NULL, tool TEXT,
 source TEXT, payload TEXT NOT NULL, http TEXT, ts TEXT NOT NULL)"""
BASELINE_INSERT = """INSERT INTO raw_events (event_id, trace_id, call_id, snapshot, tool, source,
  payload, http, ts)
 VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"""


def reset(url: str) -> None:
    """Empty the bench database: every table of a previous run goes."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def raw_baseline(url: str, seconds: float) -> dict:
    """Insert the same events with executemany, a commit per batch of ~100.

    Events' own id unique."""
    from ingest_clients import raw_row

    with psycopg.connect(url) as conn:
        conn.execute(BASELINE_DDL)
        conn.commit()
        number, rows_done, spent = 0, 0, 0.0
        while spent < seconds:
            body, calls = batch_body("raw", number)
            number += calls
            rows = [raw_row(orjson.loads(line)) for line in body.splitlines()]
            began = time.perf_counter()
            with conn.cursor() as cursor:
                cursor.executemany(BASELINE_INSERT, rows)
            conn.commit()
            spent += time.perf_counter() - began
            rows_done += len(rows)
        conn.execute("DROP TABLE raw_events")
        conn.commit()
    return {
        "events": rows_done,
        "seconds": round(spent, 3),
        "events_per_s": round(rows_done / spent, 1),
    }


def run(url: str, folder: Path, seconds: float, step) -> dict:
    """Measure raw inserts, then `tracediff serve` batches.

    On the same database server."""
    import httpx
    from ingest_clients import load

    reset(url)
    figures = {"postgres_executemany": raw_baseline(url, seconds / 4)}
    step("raw PostgreSQL baseline")
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "webapp",
        "serve",
        "--port",
        str(port),
        "--workers",
        "2",
        "--db",
        url,
    ]
    with Process(command, {"TRACEDIFF_DATABASE": url}, folder / "postgres.log", port) as server:
        server.wait_ready("/api/v1/health")
        httpx.put(
            server.url + "/api/v1/tools/findOrders", json=contract(), timeout=30
        ).raise_for_status()
        figures["tracediff_batches_postgres"] = load(
            server.url + "/api/v1/ingest", "p", 100, seconds
        )
    step("tracediff serve on PostgreSQL stopped")
    return figures


def report(figures: dict) -> None:
    for name, value in figures.items():
        print(f"{name}: {value}")
    print(
        ratio_line(
            "ingest batches on PostgreSQL / raw PostgreSQL executemany",
            figures["tracediff_batches_postgres"]["events_per_s"],
            figures["postgres_executemany"]["events_per_s"],
            "none; the issue's figures say where limits are",
        )
    )
