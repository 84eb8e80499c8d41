"""The counters and histograms, kept per process.

Gunicorn workers share them through files.

Imported only once PROMETHEUS_MULTIPROC_DIR is set (`tracediff serve` sets it before any worker
starts), since prometheus_client picks its storage when it is imported.
"""

import re

from prometheus_client import Counter, Histogram

EVENTS = Counter(
    "tracediff_ingest_events",
    "Events received: accepted, duplicate (already stored) or rejected (with its code), by "
    "endpoint and source.",
    ["outcome", "code", "endpoint", "source"],
)
REQUESTS = Counter(
    "tracediff_http_requests",
    "HTTP requests answered, by route, method and status.",
    ["route", "method", "status"],
)
LATENCY = Histogram(
    "tracediff_http_request_duration_seconds",
    "Seconds to answer a request, by route.",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
UNAVAILABLE = Counter(
    "tracediff_unavailable_responses",
    "503 answers because the database was busy, full or read-only, by route (not /api/v1/ready's "
    "not-ready answers).",
    ["route"],
)
RETENTION = Counter(
    "tracediff_retention_deleted_traces", "Traces deleted by TRACEDIFF_RETENTION_DAYS."
)
ANALYSED = Counter("tracediff_analysed_calls", "Calls analysed by the background analyser.")
DELIVERIES = Counter(
    "tracediff_alert_deliveries",
    "Alert message delivery attempts, by outcome: delivered, retrying (a later attempt is due) or "
    "failed (given up).",
    ["outcome"],
)
DATABASE_ERRORS = Counter(
    "tracediff_database_errors",
    "Database operations refused (requests and background loops), by kind: busy, full, read_only, "
    "unreachable.",
    ["kind"],
)

# the methods a client of tracediff sends; anything else (`curl -X M12345`) is one label, not one
# each
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

_LABEL = re.compile(r"[^a-z0-9_.:-]")
# `source` is the sender's word: a bounded label set keeps the series countable
MAX_SOURCES = 50
_seen_sources: set[str] = set()


def source_label(source: str | None) -> str:
    """Return a bounded label for an event source.

    Its first 40 safe characters, or "other"."""
    label = _LABEL.sub("_", (source or "").lower())[:40]
    if label in _seen_sources:
        return label
    if len(_seen_sources) >= MAX_SOURCES:
        return "other"
    _seen_sources.add(label)
    return label


def record_ingest(result, rejected, endpoint: str) -> None:
    """Count a stored batch.

    Accepted and duplicates per source, rejections per code and source."""
    for source, (accepted, duplicates) in result.by_source.items():
        label = source_label(source)
        if accepted:
            EVENTS.labels("accepted", "", endpoint, label).inc(accepted)
        if duplicates:
            EVENTS.labels("duplicate", "", endpoint, label).inc(duplicates)
    for rejection in rejected:
        EVENTS.labels(
            "rejected", rejection.code, endpoint, source_label(rejection.event_source)
        ).inc()


def method_label(method: str) -> str:
    """Return a request method as a bounded label.

    Itself when it is a method tracediff serves, else "other"."""
    return method if method in METHODS else "other"


def error_kind(message: str) -> str:
    """Name what kind of refusal a StoreUnavailable's message tells (a bounded label)."""
    text = message.lower()
    for words, kind in (
        (("locked", "busy"), "busy"),
        (("full", "no space"), "full"),
        (("readonly", "read-only", "read only"), "read_only"),
    ):
        if any(word in text for word in words):
            return kind
    return "unreachable"


def record_database_error(error: Exception) -> None:
    """Count a StoreUnavailable by its kind."""
    DATABASE_ERRORS.labels(error_kind(str(error))).inc()


def record_delivery(outcome: dict) -> None:
    """Count an alert delivery attempt by what came of it."""
    kind = "delivered" if outcome.get("ok") else "retrying" if outcome.get("retry_at") else "failed"
    DELIVERIES.labels(kind).inc()


def record_request(
    route: str, method: str, status: int, seconds: float, store_unavailable: bool = False
) -> None:
    """Count a request and its latency.

    A 503 of the store's (not a readiness probe's) as unavailable too."""
    REQUESTS.labels(route, method_label(method), str(status)).inc()
    LATENCY.labels(route).observe(seconds)
    if store_unavailable and status == 503:
        UNAVAILABLE.labels(route).inc()
