"""Prometheus metrics at /metrics: counters from every worker, and gauges read from the store at scrape."""
import os
import time

from flask import Blueprint, current_app, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from .db import get_store
from ..store import StoreUnavailable
from ..ops.counters import ANALYSED, RETENTION, record_ingest, record_request

__all__ = ["ANALYSED", "RETENTION", "bp", "init_app", "record_ingest", "note_store_unavailable"]
bp = Blueprint("metrics", __name__)
STARTED_KEY = "tracediff.started"
UNAVAILABLE_KEY = "tracediff.store_unavailable"


class StoreGauges:
    """Read the backlog, sizes and quarantine from the store when scraped."""

    def __init__(self, store):
        self.store = store

    def collect(self):
        sizes = self.store.file_sizes()
        yield _gauge("tracediff_database_bytes", "Size of the SQLite database file.", sizes["database"])
        yield _gauge("tracediff_wal_bytes", "Size of the write-ahead log (-wal file).", sizes["wal"])
        backlog = self.store.backlog()
        yield _gauge("tracediff_projection_backlog_events", "Committed events not yet folded into calls.",
                     backlog["events_waiting"])
        yield _gauge("tracediff_analysis_backlog_calls", "Calls waiting for analysis.", backlog["calls_waiting"])
        yield _gauge("tracediff_analysis_oldest_waiting_seconds", "Seconds the longest-waiting event or call "
                     "has waited for projection or analysis.", backlog["oldest_waiting_seconds"])
        yield _gauge("tracediff_quarantine_records", "Rejected records kept in quarantine.",
                     self.store.quarantine_count())


def _gauge(name: str, text: str, value) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, text, value=value)


@bp.get("/metrics")
def metrics():
    """Answer Prometheus's scrape in its text format."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        counters = CollectorRegistry()
        MultiProcessCollector(counters)
    else:  # one process (tests, `flask run`): the default registry holds the counters
        counters = REGISTRY
    gauges = CollectorRegistry(auto_describe=False)
    gauges.register(StoreGauges(get_store()))
    try:
        body = generate_latest(counters) + generate_latest(gauges)
    except StoreUnavailable:
        body = generate_latest(counters)
    return current_app.response_class(body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def start_timer() -> None:
    request.environ[STARTED_KEY] = time.perf_counter()


def note_store_unavailable() -> None:
    """Mark this request's 503 as the store's (busy, full, read-only): only those count as unavailable.

    A readiness probe's 503 (an analysis backlog, a missing template) is an answer, not a refused write."""
    request.environ[UNAVAILABLE_KEY] = True


def observe(response):
    """Count the request and its latency under its route's pattern (a bounded label)."""
    started = request.environ.get(STARTED_KEY)
    if started is not None:
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        record_request(route, request.method, response.status_code, time.perf_counter() - started,
                       store_unavailable=request.environ.get(UNAVAILABLE_KEY, False))
    return response


def init_app(app) -> None:
    app.before_request(start_timer)
    app.after_request(observe)
    app.register_blueprint(bp)
