"""Gauges sampled by each worker, so that a scrape reads only memory.

Sampled in its analyser's turn and the health and readiness probes: /metrics answers while the
database is down, and says so in tracediff_database_up.

Kept in prometheus_client's multiprocess files like the counters (imported once
PROMETHEUS_MULTIPROC_DIR is set); a figure of the database is the latest any live worker sampled,
the pools' are summed over workers.
"""

import time

from prometheus_client import Gauge

from ..store import StoreUnavailable
from ..store.urls import is_postgres_url

# how often a worker's analyser reads the backlog and sizes (a readiness probe's cost)
SAMPLE_SECONDS = 5
DATABASE_UP = Gauge(
    "tracediff_database_up",
    "1 when this node's last look at the database (the analyser's "
    "turn, a health or readiness probe) reached it, 0 when it could not.",
    multiprocess_mode="livemostrecent",
)
SAMPLED = Gauge(
    "tracediff_database_sampled_timestamp_seconds",
    "When the database's gauges were last read.",
    multiprocess_mode="livemostrecent",
)


def _store_gauge(name: str, text: str) -> Gauge:
    return Gauge(name, text, multiprocess_mode="livemostrecent")


DATABASE_BYTES = _store_gauge("tracediff_database_bytes", "Size of the SQLite database file.")
WAL_BYTES = _store_gauge("tracediff_wal_bytes", "Size of the write-ahead log (-wal file).")
EVENTS_WAITING = _store_gauge(
    "tracediff_projection_backlog_events", "Committed events not yet folded into calls."
)
CALLS_WAITING = _store_gauge("tracediff_analysis_backlog_calls", "Calls waiting for analysis.")
OLDEST_WAITING = _store_gauge(
    "tracediff_analysis_oldest_waiting_seconds",
    "Seconds the longest-waiting event or call has waited for projection or analysis.",
)
ANALYSIS_PAUSED = Gauge(
    "tracediff_analysis_paused",
    "1 while this node's analyser saves nothing because the database's disk has less free space "
    "than TRACEDIFF_MIN_FREE_MB (the waiting calls are analysed once space returns).",
    multiprocess_mode="livemax",
)
QUARANTINE = _store_gauge("tracediff_quarantine_records", "Rejected records kept in quarantine.")
POOL = Gauge(
    "tracediff_database_pool_connections",
    "PostgreSQL connections of the workers' pools, by state (open, idle, max).",
    ["state"],
    multiprocess_mode="livesum",
)
POOL_WAITING = Gauge(
    "tracediff_database_pool_waiting_requests",
    "Requests waiting for a pooled PostgreSQL connection.",
    multiprocess_mode="livesum",
)


def database_up(reached: bool) -> None:
    """Record whether the database answered this worker's last look."""
    DATABASE_UP.set(1 if reached else 0)


def sample(store) -> None:
    """Read the backlog, sizes and quarantine from an open store into the gauges.

    StoreUnavailable: down."""
    try:
        sizes, backlog, quarantine = store.file_sizes(), store.backlog(), store.quarantine_count()
    except StoreUnavailable:
        database_up(False)
        raise
    DATABASE_BYTES.set(sizes["database"])
    WAL_BYTES.set(sizes["wal"])
    EVENTS_WAITING.set(backlog["events_waiting"])
    CALLS_WAITING.set(backlog["calls_waiting"])
    OLDEST_WAITING.set(backlog["oldest_waiting_seconds"])
    QUARANTINE.set(quarantine)
    SAMPLED.set(time.time())
    database_up(True)


def sample_pools(database: str) -> None:
    """Copy this worker's PostgreSQL pool figures into the gauges (nothing for SQLite)."""
    if not is_postgres_url(database):
        return
    from ..store.postgresql.connection import pool_stats

    stats = pool_stats()
    for state, key in (("open", "size"), ("idle", "available"), ("max", "max")):
        POOL.labels(state).set(stats[key])
    POOL_WAITING.set(stats["waiting"])
