"""Read OTLP/HTTP trace exports into plain spans with Python values.

Protobuf or JSON; attribute values as Python values."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ..common import jsontext
from ..common.digits import is_digits
from . import otlp_wire
from .model import IngestError, RecordError, too_deep

SPAN_KIND_CLIENT = 3
_KINDS = {
    "SPAN_KIND_UNSPECIFIED": 0,
    "SPAN_KIND_INTERNAL": 1,
    "SPAN_KIND_SERVER": 2,
    "SPAN_KIND_CLIENT": 3,
    "SPAN_KIND_PRODUCER": 4,
    "SPAN_KIND_CONSUMER": 5,
}


class TooDeep(Exception):
    """An attribute value nests deeper than the limit."""


# spans are keyed by identity: two equal-looking spans are two spans
@dataclass(eq=False)
class Span:
    index: int
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attrs: dict = field(default_factory=dict)
    service: str | None = None
    # the resource's service.version
    release: str | None = None
    # the instrumentation scope's name: which library or framework made the span
    scope: str = ""
    # (name, attributes) of its span events, in order
    events: list = field(default_factory=list)
    # set by otlp.map_spans: its ancestors' span ids as far as its export knows them, nearest first
    # (the last may be in another export), and for a tool span the span ids under it that carry no
    # snapshot (an MCP client's transport span, whose child the server in another process sends)
    ancestors: list = field(default_factory=list)
    covers: list = field(default_factory=list)
    error: RecordError | None = None


def spans_from_protobuf(body: bytes, max_depth: int) -> list[Span]:
    """Decode an ExportTraceServiceRequest in protobuf into spans."""
    spans: list[Span] = []
    # (service, release) per resource, read once for all its spans
    services: dict[int, tuple] = {}
    for resource, scope, s, deep in _protobuf_spans(body):
        if id(resource) not in services:
            attributes = _pb_attrs(resource.attributes, max_depth, None)
            services[id(resource)] = (_service(attributes), _release(attributes))
        service, release = services[id(resource)]
        span = Span(
            len(spans),
            s.trace_id.hex(),
            s.span_id.hex(),
            s.parent_span_id.hex(),
            s.name,
            s.kind,
            s.start_time_unix_nano,
            s.end_time_unix_nano,
            service=service,
            release=release,
            scope=scope.name,
        )
        span.attrs = _pb_attrs(s.attributes, max_depth, span)
        span.events = [(e.name, _pb_attrs(e.attributes, max_depth, span)) for e in s.events]
        if deep is not None:
            _read_deep(span, deep, max_depth)
        span.error = span.error or bad_ids(span.trace_id, span.span_id, span.parent_id)
        spans.append(span)
    return spans


def _protobuf_spans(body: bytes) -> Iterator[tuple]:
    """Yield (resource, scope, span, None) of each span of an export in protobuf.

    An export the runtime refuses as too deep is read span by span (otlp_wire.py): then the last
    is the WireSpan, with what was too deep for the runtime."""
    req = ExportTraceServiceRequest()
    try:
        req.ParseFromString(body)
    except (DecodeError, RecursionError) as exc:
        try:
            wire_spans = otlp_wire.export_spans(body) if otlp_wire.is_too_deep(exc) else None
        except DecodeError:
            wire_spans = None
        if wire_spans is None:
            raise IngestError(
                422,
                "unparseable",
                f"the body is not an OTLP ExportTraceServiceRequest in protobuf: {exc}",
            ) from None
        for one in wire_spans:
            yield one.resource, one.scope, one.span, one
        return
    for rs in req.resource_spans:
        for ss in rs.scope_spans:
            for s in ss.spans:
                yield rs.resource, ss.scope, s, None


def _read_deep(span: Span, deep: otlp_wire.WireSpan, max_depth: int) -> None:
    """Read by hand what was too deep for the protobuf runtime, to the event's limit."""
    span.attrs.update(_wire_attrs(deep.deep_attributes, max_depth, span))
    for place, raw in deep.deep_events:
        name, attributes = otlp_wire.event(raw)
        span.events.insert(place, (name, _wire_attrs(attributes, max_depth, span)))


def _wire_attrs(kvs: list, max_depth: int, span: Span) -> dict:
    out = {}
    for key, value in kvs:
        # a value becomes a payload, one level inside its event
        try:
            out[key] = otlp_wire.any_value(value, max_depth - 1, _room_inside, _finite)
        except TooDeep:
            _too_deep(span, key, max_depth)
    return out


def spans_from_json(body: bytes, max_depth: int) -> list[Span]:
    """Decode an ExportTraceServiceRequest in OTLP/JSON into spans.

    Hex ids, lowerCamelCase keys."""
    doc = json_export(body, "ExportTraceServiceRequest")
    spans: list[Span] = []
    for rs in _items(doc, "resourceSpans", "resource_spans"):
        resource = _get(rs, "resource", "resource") or {}
        resource = _json_attrs(_items(resource, "attributes", "attributes"), max_depth, None)
        service, release = _service(resource), _release(resource)
        for ss in _items(rs, "scopeSpans", "scope_spans"):
            for s in _items(ss, "spans", "spans"):
                span = Span(
                    len(spans),
                    _hex_id(_get(s, "traceId", "trace_id")),
                    _hex_id(_get(s, "spanId", "span_id")),
                    _hex_id(_get(s, "parentSpanId", "parent_span_id")),
                    str(s.get("name") or ""),
                    _kind(s.get("kind")),
                    _int(_get(s, "startTimeUnixNano", "start_time_unix_nano")),
                    _int(_get(s, "endTimeUnixNano", "end_time_unix_nano")),
                    service=service,
                    release=release,
                    scope=_scope_name(ss),
                )
                span.attrs = _json_attrs(_items(s, "attributes", "attributes"), max_depth, span)
                span.events = [
                    (
                        str(e.get("name") or ""),
                        _json_attrs(_items(e, "attributes", "attributes"), max_depth, span),
                    )
                    for e in _items(s, "events", "events")
                ]
                span.error = span.error or bad_ids(span.trace_id, span.span_id, span.parent_id)
                spans.append(span)
    return spans


def _scope_name(scope_spans: dict) -> str:
    name = (
        (_get(scope_spans, "scope", "scope") or {}).get("name")
        if type(scope_spans) is dict
        else None
    )
    return name if type(name) is str else ""


def json_export(body: bytes, message: str) -> dict:
    """Read an OTLP/JSON export's object, or refuse the body (422 unparseable)."""
    try:
        doc = jsontext.loads(body)
    except jsontext.JSONDecodeError as exc:
        raise IngestError(422, "unparseable", f"the body is not valid OTLP/JSON: {exc}") from None
    if type(doc) is not dict:
        raise IngestError(422, "unparseable", f"the body is not an OTLP/JSON {message} object")
    return doc


def _pb_attrs(kvs: Any, max_depth: int, span: Span | None) -> dict:
    out = {}
    for kv in kvs:
        # a value becomes a payload, one level inside its event
        try:
            out[kv.key] = _pb_value(kv.value, max_depth - 1)
        except TooDeep:
            _too_deep(span, kv.key, max_depth)
    return out


def _too_deep(span: Span | None, key: str, max_depth: int) -> None:
    if span is not None:
        span.error = too_deep(f"attribute {key!r}", max_depth)


def _room_inside(room: int) -> int:
    """Return the room left inside one more array or key-value list, or raise TooDeep."""
    if room <= 0:
        raise TooDeep
    return room - 1


def _pb_value(v: Any, room: int) -> Any:
    """Convert an AnyValue that may open `room` more levels.

    Levels of arrays and key-value lists."""
    kind = v.WhichOneof("value")
    if kind == "array_value":
        inner = _room_inside(room)
        return [_pb_value(x, inner) for x in v.array_value.values]
    if kind == "kvlist_value":
        inner = _room_inside(room)
        return {kv.key: _pb_value(kv.value, inner) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return base64.b64encode(v.bytes_value).decode()
    if kind == "double_value":
        return _finite(v.double_value)
    return getattr(v, kind) if kind else None


def _json_attrs(kvs: list, max_depth: int, span: Span | None) -> dict:
    out = {}
    for kv in kvs:
        if type(kv) is not dict or type(kv.get("key")) is not str:
            continue
        # a value becomes a payload, one level inside its event
        try:
            out[kv["key"]] = _json_value(kv.get("value"), max_depth - 1)
        except TooDeep:
            _too_deep(span, kv["key"], max_depth)
    return out


def _json_value(v: Any, room: int) -> Any:
    """Convert an OTLP/JSON AnyValue that may open `room` more levels.

    Levels of arrays and key-value lists."""
    if type(v) is not dict:
        return None
    for key, convert in _JSON_SCALARS:
        if key in v:
            return convert(v[key])
    arr = _get(v, "arrayValue", "array_value")
    if type(arr) is dict:
        inner = _room_inside(room)
        return [_json_value(x, inner) for x in _items(arr, "values", "values")]
    kvl = _get(v, "kvlistValue", "kvlist_value")
    if type(kvl) is dict:
        inner = _room_inside(room)
        return {
            kv["key"]: _json_value(kv.get("value"), inner)
            for kv in _items(kvl, "values", "values")
            if type(kv) is dict and type(kv.get("key")) is str
        }
    return None


def _float(x: Any) -> Any:
    try:
        return _finite(float(x))
    except (TypeError, ValueError):
        return None


def _finite(x: float) -> float | str:
    """A double as JSON can hold it.

    proto3's "Infinity", "-Infinity" and "NaN" stay the text they were sent as."""
    return x if math.isfinite(x) else {math.inf: "Infinity", -math.inf: "-Infinity"}.get(x, "NaN")


_JSON_SCALARS = (
    ("stringValue", lambda x: x),
    ("string_value", lambda x: x),
    ("boolValue", bool),
    ("bool_value", bool),
    ("intValue", lambda x: _int_value(x)),
    ("int_value", lambda x: _int_value(x)),
    ("doubleValue", _float),
    ("double_value", _float),
    ("bytesValue", lambda x: x),
    ("bytes_value", lambda x: x),
)


def _hex_id(value: Any) -> str:
    """Return a trace or span id as lower-case hex.

    Tolerate base64 from generic protobuf JSON encoders."""
    if type(value) is not str or not value:
        return ""
    try:
        int(value, 16)
        if len(value) in (16, 32):
            return value.lower()
    except ValueError:
        pass
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return value
    return raw.hex() if len(raw) in (8, 16) else value


def bad_ids(trace_id: str, *span_ids: str) -> RecordError | None:
    """Say why a span's or log record's ids cannot name it.

    An id given that is neither hex nor base64 of its size."""
    if trace_id and not _HEX_ID.fullmatch(trace_id):
        return RecordError("bad_trace_id", f"traceId {trace_id[:64]!r} is not 32 hex digits")
    for span_id in span_ids:
        if span_id and not _HEX_ID.fullmatch(span_id):
            return RecordError("bad_span_id", f"span id {span_id[:64]!r} is not 16 hex digits")
    return None


_HEX_ID = re.compile(r"[0-9a-f]{16}|[0-9a-f]{32}")


def _service(attrs: dict) -> str | None:
    name = attrs.get("service.name")
    return name if type(name) is str else None


def _release(attrs: dict) -> str | None:
    version = attrs.get("service.version")
    return version[:256] if type(version) is str and version.isprintable() and version else None


def _kind(value: Any) -> int:
    if type(value) is str:
        return _KINDS.get(value, 0)
    return value if type(value) is int else 0


INT64 = range(-(2**63), 2**63)
# fixed64 in OTLP; past 2262 no time is real, and datetime cannot hold it
UNIX_NANOS = range(0, 2**63)


def _int(value: Any) -> int:
    """Return a time in nanoseconds (JSON gives it as a string of digits).

    0, read as "not given", otherwise."""
    number = _exact_int(value)
    return number if number is not None and number in UNIX_NANOS else 0


def _int_value(value: Any) -> Any:
    """Return an attribute's intValue as an int64, or its text when it is none.

    Nothing is silently made 0."""
    number = _exact_int(value)
    return number if number is not None and number in INT64 else str(value)


def _exact_int(value: Any) -> int | None:
    if type(value) is int:
        return value
    if type(value) is str and is_digits(value.removeprefix("-")):
        return int(value)
    return None


def _get(d: Any, camel: str, snake: str) -> Any:
    if type(d) is not dict:
        return None
    v = d.get(camel)
    return d.get(snake) if v is None else v


def _items(d: Any, camel: str, snake: str) -> list:
    """The objects of a repeated field (null or absent: none).

    Any other value makes the body unreadable."""
    v = _get(d, camel, snake)
    if v is None:
        return []
    if type(v) is not list:
        raise IngestError(
            422, "unparseable", f"the body is not valid OTLP/JSON: {camel} is not a list"
        )
    return [x for x in v if type(x) is dict]
