"""The values the ingest layer hands to the store.

Events, rejections, limits, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

RAW_CUT = 4096


@dataclass(frozen=True)
class Limits:
    # decompressed body
    max_body_bytes: int = 32 * 1024 * 1024
    # JSON nesting depth of any record
    max_depth: int = 64
    # records per body
    max_events: int = 10_000
    # an event stamped later than receipt plus this is stored at receipt
    max_clock_skew_s: int = 300


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
    # app version, git sha or deploy id (OTLP service.version)
    release: str | None = None


@dataclass
class Rejection:
    index: int
    code: str
    message: str
    raw: str
    retryable: bool = False
    # who sent it (a shipper's User-Agent, a file name), for the quarantine page
    source: str = ""
    # the `source` the record itself names, when it can be read (/metrics counts by it)
    event_source: str = ""


@dataclass
class Batch:
    events: list[Event] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    # {tool: arguments schema} the traffic offered a model
    tool_definitions: dict = field(default_factory=dict)


class IngestError(Exception):
    """The whole body is refused.

    Status, code and message go to the client as they are."""

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


def too_deep(what: str, limit: int) -> RecordError:
    """The one too_deep rejection.

    Every depth message names the event's limit (the event object is level 1)."""
    return RecordError(
        "too_deep",
        f"{what} nests deeper than {limit} levels, the most an event may have (the event object "
        "itself is level 1)",
    )


def is_depth_error(exc: Exception) -> bool:
    """Tell whether a JSON parser gave up on nesting.

    Orjson's depth limit, Python's recursion limit."""
    return (
        isinstance(exc, RecursionError)
        or "depth limit" in str(exc)
        or "recursion" in str(exc).lower()
    )


def too_large(limit: int, what: str = "the request body") -> IngestError:
    """The one 413: every size refusal has the code too_large."""
    return IngestError(
        413, "too_large", f"{what} is larger than {limit} bytes; send smaller batches"
    )


def cut_raw(raw: bytes | str) -> str:
    """Return a record's text cut at 4 KiB, for the quarantine."""
    if isinstance(raw, bytes):
        raw = raw[:RAW_CUT].decode("utf-8", errors="replace")
    return raw[:RAW_CUT]


# orjson's and json's wording for text that starts no JSON value at all
_PAST_DOUBLE = "number is infinity when parsed as double"
_NO_VALUE = ("invalid literal", "expecting value", "unexpected character, expected a json value")


def json_reason(exc: ValueError) -> str:
    """Say why text is not JSON, in plain words, with the column it broke at.

    The parser's own "line 1 column 14 (char 13)" is left out: the caller names the record."""
    msg = getattr(exc, "msg", None) or str(exc)
    reason = "expected a JSON value" if msg.lower().startswith(_NO_VALUE) else msg
    # orjson's words for any number past a double's range, a 309-digit integer as much as 1e400
    if msg.startswith(_PAST_DOUBLE):
        reason = (
            "a number past a double's range, which tracediff cannot keep (an integer of 309 "
            "digits or more, or a float such as 1e400: send it as a string)"
        )
    reason = reason[:1].lower() + reason[1:]
    line, column = getattr(exc, "lineno", None), getattr(exc, "colno", None)
    if column is None:
        return reason
    if line and line > 1:
        return f"{reason} at line {line}, column {column}"
    return f"{reason} at column {column}"
