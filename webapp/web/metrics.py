"""Prometheus metrics at /metrics, read from memory only.

Counters from every worker, the gauges workers sampled (ops/gauges.py), the answering worker's
process and the build. A scrape never touches the database."""

import os
import platform
import time

from flask import Blueprint, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from ..ops.counters import ANALYSED, RETENTION, record_database_error, record_ingest, record_request
from ..version import __version__

__all__ = ["ANALYSED", "RETENTION", "bp", "init_app", "record_ingest", "note_store_unavailable"]
bp = Blueprint("metrics", __name__)
STARTED_KEY = "tracediff.started"
UNAVAILABLE_KEY = "tracediff.store_unavailable"


class BuildInfo:
    """tracediff_build_info{version, python} 1.

    Which build answers, for dashboards and upgrades."""

    def collect(self):
        family = GaugeMetricFamily(
            "tracediff_build_info",
            "The tracediff build serving (always 1).",
            labels=["version", "python"],
        )
        family.add_metric([__version__, platform.python_version()], 1)
        yield family


def scrape_registry() -> CollectorRegistry:
    """Return what a scrape reads.

    Every worker's files (multiprocess), or this process's registry."""
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # one process (tests, `flask run`): it holds the process collector already
        return REGISTRY
    registry = CollectorRegistry()
    MultiProcessCollector(registry)
    # multiprocess mode registers no process collector: report the worker answering (RSS, CPU, open
    # files)
    ProcessCollector(registry=registry)
    return registry


@bp.get("/metrics")
def metrics():
    """Answer Prometheus's scrape in its text format."""
    info = CollectorRegistry(auto_describe=False)
    info.register(BuildInfo())
    body = generate_latest(scrape_registry()) + generate_latest(info)
    return current_app.response_class(body, headers={"Content-Type": CONTENT_TYPE_LATEST})


def start_timer() -> None:
    request.environ[STARTED_KEY] = time.perf_counter()


def note_store_unavailable(error: Exception | None = None) -> None:
    """Mark this request's 503 as the store's (busy, full, read-only).

    Only those count as unavailable.

    A readiness probe's 503 (an analysis backlog, a missing template) is an answer, not a refused
    write."""
    request.environ[UNAVAILABLE_KEY] = True
    if error is not None:
        record_database_error(error)


def observe(response):
    """Count the request and its latency under its route's pattern.

    A bounded label; no rule: "unmatched"."""
    started = request.environ.get(STARTED_KEY)
    if started is not None:
        route = request.url_rule.rule if request.url_rule is not None else "unmatched"
        record_request(
            route,
            request.method,
            response.status_code,
            time.perf_counter() - started,
            store_unavailable=request.environ.get(UNAVAILABLE_KEY, False),
        )
    return response


def init_app(app) -> None:
    app.before_request(start_timer)
    app.after_request(observe)
    app.register_blueprint(bp)
