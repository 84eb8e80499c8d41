"""The counters and histograms, kept per process; gunicorn workers share them through files.

Imported only once PROMETHEUS_MULTIPROC_DIR is set (`tracediff serve` sets it before any worker starts),
since prometheus_client picks its storage when it is imported.
"""
import re

from prometheus_client import Counter, Histogram

EVENTS = Counter("tracediff_ingest_events", "Events received: accepted, duplicate (already stored) or rejected "
                 "(with its code), by endpoint and source.", ["outcome", "code", "endpoint", "source"])
REQUESTS = Counter("tracediff_http_requests", "HTTP requests answered, by route, method and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("tracediff_http_request_duration_seconds", "Seconds to answer a request, by route.",
                    ["route"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
UNAVAILABLE = Counter("tracediff_unavailable_responses", "503 answers because the database was busy, full or "
                      "read-only, by route (not /api/v1/ready's not-ready answers).", ["route"])
RETENTION = Counter("tracediff_retention_deleted_traces", "Traces deleted by TRACEDIFF_RETENTION_DAYS.")
ANALYSED = Counter("tracediff_analysed_calls", "Calls analysed by the background analyser.")

_LABEL = re.compile(r"[^a-z0-9_.:-]")
MAX_SOURCES = 50  # `source` is the sender's word: a bounded label set keeps the series countable
_seen_sources: set[str] = set()


def source_label(source: str | None) -> str:
    """Return a bounded label for an event source: its first 40 safe characters, or "other"."""
    label = _LABEL.sub("_", (source or "").lower())[:40]
    if label in _seen_sources:
        return label
    if len(_seen_sources) >= MAX_SOURCES:
        return "other"
    _seen_sources.add(label)
    return label


def record_ingest(result, rejected, endpoint: str) -> None:
    """Count a stored batch: accepted and duplicates per source, rejections per code and source."""
    for source, (accepted, duplicates) in result.by_source.items():
        label = source_label(source)
        if accepted:
            EVENTS.labels("accepted", "", endpoint, label).inc(accepted)
        if duplicates:
            EVENTS.labels("duplicate", "", endpoint, label).inc(duplicates)
    for rejection in rejected:
        EVENTS.labels("rejected", rejection.code, endpoint, source_label(rejection.event_source)).inc()


def record_request(route: str, method: str, status: int, seconds: float, store_unavailable: bool = False) -> None:
    """Count a request and its latency; a 503 of the store's (not a readiness probe's) as unavailable too."""
    REQUESTS.labels(route, method, str(status)).inc()
    LATENCY.labels(route).observe(seconds)
    if store_unavailable and status == 503:
        UNAVAILABLE.labels(route).inc()
