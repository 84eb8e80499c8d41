"""Normalise and validate records into Events.

Our envelope v1 and the fields every shape shares."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..common import jsontext, times
from ..common.stages import NAMES, spelt
from .model import Event, Limits, RecordError, is_depth_error, too_deep
from .records import depth_exceeds, refuse_nul_keys

# \d is 0-9 only, as int() and times read them
_RFC3339 = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})\Z", re.ASCII
)
# offsets that are UTC already: no conversion needed
_UTC_OFFSETS = frozenset(("Z", "z", "+00:00"))
_HEX32 = re.compile(r"[0-9a-fA-F]{32}\Z")
ENVELOPE_KEYS = frozenset(
    (
        "trace_id",
        "traceId",
        "call_id",
        "snapshot",
        "tool",
        "source",
        "payload",
        "http",
        "ts",
        "event_id",
        "release",
    )
)
_MAX_NAME = 256
_FLAG_TEXTS = {"true": True, "false": False}


@dataclass
class Context:
    """What every record of one body shares.

    Limits, receive time, trace id fallbacks."""

    limits: Limits
    now: str
    fallback_trace_id: str | None = None
    # why a traceparent header sent gave no trace id ("" when none was sent, or it gave one)
    traceparent_problem: str = ""
    # the latest `ts` kept as sent (seconds precision), from now and the allowed skew
    latest: str = ""

    def __post_init__(self):
        if not self.latest:
            skew = timedelta(seconds=self.limits.max_clock_skew_s)
            self.latest = (datetime.fromisoformat(self.now.replace("Z", "+00:00")) + skew).strftime(
                "%Y-%m-%dT%H:%M:%S"
            )

    def stamp(self, ts: Any, meta: dict | None) -> tuple[str, dict | None]:
        """Return the event's time and meta.

        A time too far ahead becomes the receive time, `sent_ts` kept."""
        if ts is None:
            return self.now, meta
        sent = normalise_ts(ts)
        # both UTC and zero-padded: the text orders as the time does
        if sent[:19] <= self.latest:
            return sent, meta
        # a clock far ahead would keep the trace atop the list and out of retention's reach
        return self.now, {**(meta or {}), "sent_ts": sent}


def format_ts(dt: datetime) -> str:
    """Format a datetime as the store writes times.

    webapp/common/times.py: UTC, microseconds, fixed width."""
    return times.stamp(dt if dt.tzinfo else dt.replace(tzinfo=UTC))


def normalise_ts(value: Any) -> str:
    """Return an RFC 3339 timestamp in the stored form.

    UTC, `Z`, the fraction cut or padded to microseconds."""
    if type(value) is not str:
        raise RecordError("bad_type", f"ts must be an RFC 3339 string, got {_json_type(value)}")
    m = _RFC3339.match(value)
    if not m:
        raise RecordError(
            "bad_value", f"ts {value[:64]!r} is not an RFC 3339 time like 2026-08-20T09:00:00Z"
        )
    day, clock, frac, offset = m.groups()
    utc = offset in _UTC_OFFSETS
    try:
        dt = datetime.fromisoformat(f"{day}T{clock}" if utc else f"{day}T{clock}{offset}")
    except ValueError:
        raise RecordError("bad_value", f"ts {value[:64]!r} is not a valid date and time") from None
    # nanoseconds are cut, never rounded into the next second
    fraction = (frac or "")[:6].ljust(6, "0")
    if utc:
        # most senders write UTC: the stored form is the text itself, the fraction made six digits
        return f"{day}T{clock}.{fraction}Z"
    micro = int(fraction)
    try:
        return times.stamp(dt.astimezone(UTC).replace(microsecond=micro))
    # 0001-01-01T00:00:00+01:00 is before the calendar begins in UTC
    except OverflowError:
        raise RecordError("bad_value", f"ts {value[:64]!r} is out of range") from None


def check_trace_id(value: Any) -> str:
    """Return a valid trace id (hex ids lower-cased) or raise bad_trace_id."""
    if type(value) is not str:
        raise RecordError("bad_trace_id", f"trace_id must be a string, got {_json_type(value)}")
    if not 1 <= len(value) <= 128 or not value.isprintable() or not value.strip():
        raise RecordError("bad_trace_id", "trace_id must be 1-128 printable characters")
    # browsers resolve /traces/.. to /, so its permalink could not work
    if value in (".", ".."):
        raise RecordError(
            "bad_trace_id", f"trace_id {value!r} cannot be a page address; use another id"
        )
    return canonical_trace_id(value)


def canonical_trace_id(value: str) -> str:
    """Return the id a trace is stored under.

    A W3C (32-hex) id in lower case, others as given."""
    return value.lower() if _HEX32.match(value) else value


def record_trace_id(rec: dict, ctx: Context) -> Any:
    """Return the record's trace id.

    Else the body's fallback (header or query), else None."""
    value = rec.get("trace_id")
    if value is None:
        value = rec.get("traceId")
    return ctx.fallback_trace_id if value is None else value


def normalise_envelope(rec: dict, ctx: Context, meta: dict | None) -> Event:
    """Validate one envelope v1 record and return its Event."""
    trace_id = record_trace_id(rec, ctx)
    if trace_id is None:
        raise RecordError(
            "missing_field",
            "trace_id is required (in the record, a traceparent or X-Trace-Id header, or the "
            f"trace_id query parameter){ctx.traceparent_problem}",
        )
    snapshot = rec.get("snapshot")
    if snapshot is None:
        raise RecordError(
            "missing_field", "snapshot is required: arguments, request, response or result"
        )
    if "payload" not in rec and not _url_given(rec, snapshot):
        raise RecordError(
            "missing_field",
            "payload is required (the snapshot itself, any JSON value; a request "
            "given by its http.url may leave it out)",
        )
    extra = {k: v for k, v in rec.items() if k not in ENVELOPE_KEYS}
    # what the model was told of a result: read by the way back, so never guessed
    if "is_error" in extra:
        extra["is_error"] = _flag("is_error", extra["is_error"])
    if extra:
        meta = {**(meta or {}), **extra}
    return make_event(
        ctx,
        trace_id=trace_id,
        call_id=rec.get("call_id"),
        snapshot=snapshot,
        payload=rec.get("payload"),
        tool=rec.get("tool"),
        source=rec.get("source"),
        http=rec.get("http"),
        ts=rec.get("ts"),
        event_id=rec.get("event_id"),
        meta=meta,
        release=rec.get("release"),
    )


def _flag(field: str, value: Any) -> bool | None:
    """Return a true/false field.

    A boolean, or the text "true" or "false" a shipper that writes every value as a string sends
    ("True" from Python's str()); null says nothing. Anything else would be a guess."""
    if value is None or type(value) is bool:
        return value
    if type(value) is str and value.lower() in _FLAG_TEXTS:
        return _FLAG_TEXTS[value.lower()]
    shown = jsontext.dumps(value).decode()
    shown = shown if len(shown) <= 40 else shown[:40] + "..."
    raise RecordError(
        "bad_type", f'{field} must be true or false (or the text "true" or "false"), got {shown}'
    )


def _url_given(rec: dict, snapshot) -> bool:
    """Tell whether a request event says what was sent by its URL.

    A GET sends no body."""
    http = rec.get("http")
    return (
        snapshot == "request"
        and type(http) is dict
        and type(http.get("url")) is str
        and bool(http["url"])
    )


def make_event(
    ctx: Context,
    *,
    trace_id: Any,
    call_id: Any,
    snapshot: Any,
    payload: Any,
    tool: Any = None,
    source: Any = None,
    http: Any = None,
    ts: Any = None,
    event_id: Any = None,
    meta: dict | None = None,
    text_by_definition: bool = False,
    release: Any = None,
) -> Event:
    """Check every field, parse a payload logged as a JSON string, and build the Event.

    `text_by_definition`: the payload's carrier holds JSON only as text (an OTLP attribute), so
    parsing it is not worth a "logged as a string" mark.
    """
    trace_id = check_trace_id(trace_id)
    if snapshot not in NAMES:
        raise RecordError(
            "bad_snapshot",
            f"snapshot must be {spelt()}, got {str(snapshot)[:40]!r}",
        )
    call_id = "" if call_id is None else _name("call_id", call_id)
    # the record around the payload was depth-checked already; only parsed strings are new
    payload, as_string = parse_json_string(payload, ctx.limits.max_depth)
    ts, meta = ctx.stamp(ts, meta)
    if event_id is None:
        url = http.get("url") if type(http) is dict and payload in (None, "") else None
        # A request given by its URL alone (a GET) is told from another by the URL, not by its empty
        # body.
        canonical = canonical_json(
            trace_id, call_id, snapshot, payload if url is None else {"http.url": url}
        )
        # the ids around the payload are printable: a NUL in the text is the payload's
        refuse_nul_keys(payload, canonical)
        event_id = hashlib.sha256(canonical).hexdigest()[:32]
    else:
        event_id = _name("event_id", event_id)
        if not event_id:
            raise RecordError("bad_value", "event_id must not be empty")
        refuse_nul_keys(payload)
    return Event(
        event_id=event_id,
        trace_id=trace_id,
        call_id=call_id,
        snapshot=snapshot,
        payload=payload,
        tool=None if tool is None else _name("tool", tool),
        source=None if source is None else _name("source", source),
        logged_as_string=as_string and not text_by_definition,
        http=None if http is None else normalise_http(http),
        ts=ts,
        meta=meta or None,
        release=None if release is None else _name("release", release),
    )


def parse_json_string(value: Any, max_depth: int) -> tuple[Any, bool]:
    """Parse a string holding a JSON object or array.

    Keep any other string as it is.

    The parsed value is a payload, one level inside its event, so it may nest max_depth - 1 levels.
    """
    if type(value) is not str:
        return value, False
    head = value.lstrip()[:1]
    if head != "{" and head != "[":
        return value, False
    try:
        parsed = jsontext.loads(value)
    except jsontext.JSONDecodeError as exc:
        # orjson stops at 1024 levels, far past the limit
        if is_depth_error(exc):
            raise too_deep("the JSON in the payload string", max_depth) from None
        # kept as text; the analysis reports invalid_json
        return value, False
    if type(parsed) is not dict and type(parsed) is not list:
        return value, False
    if depth_exceeds(parsed, max_depth - 1):
        raise too_deep("the JSON in the payload string", max_depth)
    return parsed, True


def normalise_http(value: Any) -> dict:
    """Keep method, url, status_code and headers of an http object.

    Checking their types."""
    if type(value) is not dict:
        raise RecordError("bad_type", f"http must be an object, got {_json_type(value)}")
    out: dict[str, Any] = {}
    for key in ("method", "url"):
        v = value.get(key)
        if v is not None:
            if type(v) is not str:
                raise RecordError("bad_type", f"http.{key} must be a string, got {_json_type(v)}")
            out[key] = v.upper() if key == "method" else v
    status = value.get("status_code")
    if status is not None:
        if type(status) is not int:
            raise RecordError(
                "bad_type", f"http.status_code must be an integer, got {_json_type(status)}"
            )
        if not 100 <= status <= 599:
            raise RecordError("bad_value", f"http.status_code {status} is not between 100 and 599")
        out["status_code"] = status
    headers = value.get("headers")
    if headers is not None:
        out["headers"] = _headers(headers)
    return out


def _headers(value: Any) -> dict:
    if type(value) is not dict:
        raise RecordError("bad_type", f"http.headers must be an object, got {_json_type(value)}")
    out = {}
    for k, v in value.items():
        if type(v) is list and all(type(x) is str for x in v):
            v = ", ".join(v)
        if type(v) is not str:
            raise RecordError(
                "bad_type", f"http.headers[{k[:40]!r}] must be a string, got {_json_type(v)}"
            )
        out[k] = v
    return out


def canonical_json(trace_id: str, call_id: str, snapshot: str, payload: Any) -> bytes:
    """Return the JSON of (trace_id, call_id, snapshot, payload), keys sorted."""
    doc = [trace_id, call_id, snapshot, payload]
    return jsontext.dumps(doc, option=jsontext.OPT_SORT_KEYS)


def _name(field: str, value: Any) -> str:
    if type(value) is not str:
        raise RecordError("bad_type", f"{field} must be a string, got {_json_type(value)}")
    if len(value) > _MAX_NAME or not value.isprintable():
        raise RecordError("bad_value", f"{field} must be at most {_MAX_NAME} printable characters")
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "a boolean"
    if type(value) in (int, float):
        return "a number"
    if type(value) is str:
        return "a string"
    return "an array" if type(value) is list else "an object"
