"""Ingest: turn what shippers, agents and OpenTelemetry send into events.

Validated snapshot events."""

from .body import parse_body
from .envelope import parse_json_string
from .model import Batch, Event, IngestError, Limits, Rejection
from .otlp import otlp_response, parse_otlp
from .otlp_logs import otlp_logs_response, parse_otlp_logs

__all__ = [
    "parse_body",
    "parse_json_string",
    "parse_otlp",
    "otlp_response",
    "parse_otlp_logs",
    "otlp_logs_response",
    "Batch",
    "Event",
    "Rejection",
    "IngestError",
    "Limits",
]
