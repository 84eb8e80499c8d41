"""The values the ingest layer hands to the store: events, rejections, limits, errors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SNAPSHOTS = ("arguments", "request", "response")
RAW_CUT = 4096


@dataclass(frozen=True)
class Limits:
    max_body_bytes: int = 32 * 1024 * 1024  # decompressed body
    max_depth: int = 64  # JSON nesting depth of any record
    max_events: int = 10_000  # records per body


@dataclass
class Event:
    event_id: str
    trace_id: str
    call_id: str
    snapshot: str
    payload: Any
    tool: str | None = None
    source: str | None = None
    logged_as_string: bool = False
    http: dict | None = None
    ts: str = ""
    meta: dict | None = None


@dataclass
class Rejection:
    index: int
    code: str
    message: str
    raw: str
    retryable: bool = False


@dataclass
class Batch:
    events: list[Event] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


class IngestError(Exception):
    """The whole body is refused; status, code and message go to the client as they are."""

    def __init__(self, status: int, code: str, message: str, retryable: bool = False):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retryable = retryable


class RecordError(Exception):
    """One record is refused; becomes a Rejection with this code and message."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def cut_raw(raw: bytes | str) -> str:
    """Return a record's text cut at 4 KiB, for the quarantine."""
    if isinstance(raw, bytes):
        raw = raw[:RAW_CUT].decode("utf-8", errors="replace")
    return raw[:RAW_CUT]
