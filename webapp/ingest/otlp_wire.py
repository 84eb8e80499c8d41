"""Read an OTLP protobuf trace export span by span, past the runtime's depth limit.

The runtime (upb) refuses a message nesting past 100 levels and gives up on the whole export. A
key-value list costs three of those levels a level, so one deeply nested attribute lost every span
beside it, and a nesting OTLP/JSON takes (30 levels) was refused. Here such an export is walked by
its wire format: each span parsed alone, an attribute still too deep for the runtime read by hand,
as deep as the event's depth limit allows, so only the span that breaks the limit is rejected."""

from __future__ import annotations

import base64
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

# field numbers of the trace protocol (opentelemetry/proto/trace/v1/trace.proto)
RESOURCE_SPANS, RESOURCE, SCOPE_SPANS, SCOPE, SPANS = 1, 1, 2, 1, 2
SPAN_ATTRIBUTES, SPAN_EVENTS, EVENT_NAME, EVENT_ATTRIBUTES = 9, 11, 2, 3
VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5


@dataclass
class WireSpan:
    """A span read alone, its attributes too deep for the runtime still as wire bytes."""

    resource: Resource
    scope: InstrumentationScope
    span: Span
    # (key, AnyValue bytes) of each attribute the runtime could not parse
    deep_attributes: list = field(default_factory=list)
    # (its place among the span's events, its wire bytes) of each event the runtime could not parse
    deep_events: list = field(default_factory=list)


def is_too_deep(error: Exception) -> bool:
    """Tell whether the runtime gave up on a message for its nesting alone."""
    return isinstance(error, RecursionError) or "depth" in str(error).lower()


def export_spans(body: bytes) -> list[WireSpan]:
    """Return every span of an ExportTraceServiceRequest, each parsed alone.

    Its fields: resource_spans (1) of resource (1) and scope_spans (2), each of scope (1) and spans
    (2), as opentelemetry/proto/trace/v1/trace.proto numbers them.

    Raise DecodeError when the body is not such a message at all."""
    spans = []
    for resource_spans in submessages(body, RESOURCE_SPANS):
        resource = _parsed(Resource, first(resource_spans, RESOURCE)) or Resource()
        for scope_spans in submessages(resource_spans, SCOPE_SPANS):
            scope = _parsed(InstrumentationScope, first(scope_spans, SCOPE))
            spans.extend(
                _span(resource, scope or InstrumentationScope(), raw)
                for raw in submessages(scope_spans, SPANS)
            )
    return spans


def _span(resource: Resource, scope: InstrumentationScope, raw: bytes) -> WireSpan:
    span = _parsed(Span, raw)
    if span is not None:
        return WireSpan(resource, scope, span)
    # keep every field the runtime can parse; set the too-deep attributes and events apart
    kept, deep, deep_events, events = bytearray(), [], [], 0
    for number, wire, value, chunk in fields(raw):
        if number == SPAN_ATTRIBUTES and wire == LENGTH and _parsed(KeyValue, value) is None:
            deep.append(key_value(value))
            continue
        if number == SPAN_EVENTS and wire == LENGTH:
            events += 1
            if _parsed(Span.Event, value) is None:
                deep_events.append((events - 1, value))
                continue
        kept += chunk
    span = _parsed(Span, bytes(kept))
    if span is None:
        raise DecodeError("a span that is not an OTLP Span")
    return WireSpan(resource, scope, span, deep, deep_events)


def _parsed(message: type[Message], data: bytes | None) -> Message | None:
    """Parse data as the message, or None where the runtime cannot (too deep, broken)."""
    if data is None:
        return None
    parsed = message()
    try:
        parsed.ParseFromString(data)
    except (DecodeError, RecursionError):
        return None
    return parsed


def any_value(data: bytes, room: int, inside: Callable[[int], int], finite) -> object:
    """Convert an AnyValue's wire bytes as the runtime would, within `room` levels.

    `inside(room)` returns the room inside one more list or raises (too deep); `finite` turns a
    double JSON cannot hold into its text."""
    value = None
    for number, wire, raw, _ in fields(data):
        if number == 1 and wire == LENGTH:
            value = _text(raw)
        elif number == 2 and wire == VARINT:
            value = bool(raw)
        elif number == 3 and wire == VARINT:
            value = raw - (1 << 64) if raw >= 1 << 63 else raw
        elif number == 4 and wire == FIXED64:
            value = finite(struct.unpack("<d", raw)[0])
        elif number == 5 and wire == LENGTH:
            room_inside = inside(room)
            value = [any_value(item, room_inside, inside, finite) for item in submessages(raw, 1)]
        elif number == 6 and wire == LENGTH:
            room_inside = inside(room)
            value = {
                key: any_value(item, room_inside, inside, finite)
                for key, item in map(key_value, submessages(raw, 1))
            }
        elif number == 7 and wire == LENGTH:
            value = base64.b64encode(raw).decode()
    return value


def event(data: bytes) -> tuple[str, list]:
    """Return a span event's name and the (key, AnyValue bytes) of its attributes."""
    name = first(data, EVENT_NAME)
    return _text(name or b""), [key_value(kv) for kv in submessages(data, EVENT_ATTRIBUTES)]


def key_value(data: bytes) -> tuple[str, bytes]:
    """Return a KeyValue's key and its AnyValue's wire bytes."""
    key, value = "", b""
    for number, wire, raw, _ in fields(data):
        if number == 1 and wire == LENGTH:
            key = _text(raw)
        elif number == 2 and wire == LENGTH:
            value = raw
    return key, value


def _text(raw: bytes) -> str:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        raise DecodeError("a string field that is not UTF-8") from None


def submessages(data: bytes, number: int) -> list[bytes]:
    """Return the bytes of each length-delimited field `number` of a message, in order."""
    return [raw for n, wire, raw, _ in fields(data) if n == number and wire == LENGTH]


def first(data: bytes, number: int) -> bytes | None:
    """Return the bytes of a message's field `number`, or None when it is not there."""
    found = submessages(data, number)
    return found[-1] if found else None


def fields(data: bytes) -> Iterator[tuple[int, int, object, bytes]]:
    """Yield (number, wire type, value, own bytes) of a message's top-level fields."""
    pos = 0
    while pos < len(data):
        start = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value, pos = _varint(data, pos)
        elif wire == LENGTH:
            size, pos = _varint(data, pos)
            value, pos = data[pos : pos + size], pos + size
        elif wire in (FIXED64, FIXED32):
            size = 8 if wire == FIXED64 else 4
            value, pos = data[pos : pos + size], pos + size
        else:
            raise DecodeError(f"wire type {wire} is not one OTLP uses")
        if number == 0 or pos > len(data):
            raise DecodeError("a truncated or broken field")
        yield number, wire, value, data[start:pos]


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
    raise DecodeError("a truncated or overlong varint")
