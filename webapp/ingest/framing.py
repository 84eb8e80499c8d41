"""Split a decoded body into records, whatever the framing: object, array, NDJSON or concatenated JSON."""
from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, Iterator

import orjson

from .extents import array_items, container_extent
from .model import IngestError, Limits, RecordError, cut_raw, is_depth_error, too_deep

_WS = re.compile(r"[ \t\r\n]*")
_WS_BYTES = re.compile(rb"[ \t\r\n]*")
_BOM = b"\xef\xbb\xbf"


def no_constants(name: str) -> Any:
    """Refuse NaN and Infinity, which Python's decoder takes and JSON has not."""
    raise ValueError(f"{name} is not valid JSON")


def finite_float(text: str) -> float:
    """Read a JSON number as a double, refusing one past its range (1e400 would be stored as null)."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is past what a double holds")
    return value


_DECODER = json.JSONDecoder(parse_constant=no_constants, parse_float=finite_float)


class Record:
    """One record of a body: its position, its parsed value or why it failed, and its text."""

    __slots__ = ("index", "value", "error", "_raw")

    def __init__(self, index: int, value: Any = None, raw: bytes | str | None = None,
                 error: RecordError | None = None):
        self.index = index
        self.value = value
        self.error = error
        self._raw = raw

    def raw(self) -> str:
        """Return the record's text cut at 4 KiB."""
        if self._raw is None:
            try:
                self._raw = orjson.dumps(self.value)
            except TypeError:
                self._raw = json.dumps(self.value, ensure_ascii=False)
        return cut_raw(self._raw)


def split_records(body: bytes, limits: Limits) -> list[Record]:
    """Return the records of a body, or raise IngestError when nothing in it parses."""
    if body.startswith(_BOM):
        body = body[len(_BOM):]
    if not body.strip():
        raise IngestError(422, "unparseable", "the body is empty; send one event, a JSON array of events, or NDJSON")
    try:
        whole = orjson.loads(body)
    except orjson.JSONDecodeError:
        records = _unparsed(body, limits.max_depth)
    else:
        records = _whole(whole, body, limits)
    if len(records) > limits.max_events:
        raise IngestError(422, "too_many_events",
                          f"the body holds {len(records)} records; at most {limits.max_events} per request")
    if not any(r.error is None for r in records) and records:
        raise refused_whole(records[0].error, all(r.error.code == "too_deep" for r in records))
    return records


def refused_whole(first: RecordError, all_too_deep: bool) -> IngestError:
    """The refusal of a body none of whose records can be taken, by its first record's error."""
    if all_too_deep:
        return IngestError(422, "too_deep", f"no record of the body can be taken: {first.message}")
    return IngestError(422, "unparseable", f"nothing in the body parses as JSON: {first.message}")


def counted(records: Iterable[Record], max_events: int) -> Iterator[Record]:
    """Pass a streamed body's records on; refuse the body at record max_events + 1 (nothing past it is
    parsed), or at its end when none of its records can be taken."""
    good, first_error, all_too_deep = 0, None, True
    for count, record in enumerate(records, 1):
        if count > max_events:
            raise IngestError(422, "too_many_events",
                              f"the body holds more than {max_events} records; send at most {max_events} per request")
        if record.error is None:
            good += 1
        else:
            first_error = first_error or record.error
            all_too_deep = all_too_deep and record.error.code == "too_deep"
        yield record
    if not good and first_error is not None:
        raise refused_whole(first_error, all_too_deep)


def _unparsed(body: bytes, max_depth: int) -> list[Record]:
    """Find the records of a body that does not parse whole: an array too deep for orjson, NDJSON or
    concatenated JSON."""
    records = _array_records(body, max_depth) if body.lstrip()[:1] == b"[" else None
    if records is None:
        records = _by_lines(body, max_depth) if b"\n" in body.strip() else []
        if not any(r.error is None for r in records):
            records = _by_stream(body, max_depth)
    check_depth(records, max_depth)
    return records


def _whole(value: Any, body: bytes, limits: Limits) -> list[Record]:
    if type(value) is list:
        if _brackets(body) <= limits.max_depth + 1:
            return [Record(i, v) for i, v in enumerate(value)]
        try:  # re-serialising is ~30x cheaper than walking a record, and bounds its depth
            return [_checked(i, v, orjson.dumps(v), limits.max_depth) for i, v in enumerate(value)]
        except orjson.JSONEncodeError:  # an item nests deeper than orjson writes (255 levels)
            return _array_records(body, limits.max_depth)
    if type(value) is not dict:
        kind = "string" if type(value) is str else "number" if type(value) in (int, float) else "literal"
        raise IngestError(422, "unparseable",
                          f"the body is a JSON {kind}, not an event; send one event object, "
                          "a JSON array of events, or NDJSON")
    deep = _brackets(body) > limits.max_depth
    return [_checked(0, value, body, limits.max_depth if deep else None)]


def _array_records(body: bytes, max_depth: int) -> list[Record] | None:
    """Return the items of a top-level JSON array one record each, whatever their depth, without parsing
    the whole; None when body is not one complete array."""
    items = array_items(body)
    if items is None:
        return None
    return [_item_record(i, body[start:end], depth, max_depth) for i, (start, end, depth) in enumerate(items)]


def _item_record(index: int, raw: bytes, depth: int, max_depth: int) -> Record:
    if depth > max_depth:
        return Record(index, raw=raw, error=too_deep("the record", max_depth))
    try:
        return Record(index, orjson.loads(raw), raw)
    except orjson.JSONDecodeError as exc:
        return Record(index, raw=raw, error=_json_error(exc, f"item {index + 1}", max_depth, raw))


def _lines(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (index, stripped line) of the non-blank lines, one copy at a time (not a list of them all)."""
    start, index = 0, 0
    while start <= len(body):
        end = body.find(b"\n", start)
        end = len(body) if end < 0 else end
        if _WS_BYTES.match(body, start).end() < end:
            yield index, body[start:end].strip()
        start, index = end + 1, index + 1


def _by_lines(body: bytes, max_depth: int) -> list[Record]:
    records: list[Record] = []
    for index, line in _lines(body):
        records.extend(line_records(index, line, max_depth))
    return records


def line_records(index: int, line: bytes, max_depth: int) -> list[Record]:
    """Return the records of one stripped NDJSON line: one, several objects side by side, or one broken."""
    try:
        # a good line's text is not kept (Record.raw re-serialises it if it is ever rejected):
        # holding every line beside its parsed value doubled a large body's memory
        return [_line_record(index, orjson.loads(line), line, max_depth)]
    except orjson.JSONDecodeError as exc:
        parts = [] if is_depth_error(exc) else list(_scan(line, index, max_depth))
        if parts and all(p.error is None for p in parts):  # several objects on one line
            check_depth(parts, max_depth)
            return parts
        return [Record(index, raw=line, error=_json_error(exc, f"line {index + 1}", max_depth, line))]


def _line_record(index: int, value: Any, line: bytes, max_depth: int) -> Record:
    if _brackets(line) > max_depth and depth_exceeds(value, max_depth):
        return Record(index, raw=line, value=value, error=too_deep("the record", max_depth))
    return Record(index, value)


def _by_stream(body: bytes, max_depth: int) -> list[Record]:
    return list(_scan(body, None, max_depth))


def _scan(chunk: bytes, line_index: int | None, max_depth: int) -> Iterator[Record]:
    """Yield the concatenated JSON values of chunk; stop at the first broken one."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Record(line_index or 0, raw=chunk,
                     error=RecordError("not_json", f"the text is not valid UTF-8 at byte offset {exc.start}"))
        return
    pos = _WS.match(text, 0).end()
    ordinal = 0
    while pos < len(text):
        record, end = _decode_at(text, pos, ordinal if line_index is None else line_index, max_depth)
        yield record
        if end is None:  # broken JSON: where the next value starts is unknown
            return
        pos = _WS.match(text, end).end()
        ordinal += 1


def _decode_at(text: str, pos: int, index: int, max_depth: int) -> tuple[Record, int | None]:
    """Decode the value at text[pos]; one too deep to decode is skipped whole as too_deep."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
        if _lone_surrogate(value, text[pos:end]):
            return Record(index, raw=text[pos:end], error=_surrogate_error()), end
        return Record(index, value, text[pos:end]), end
    except RecursionError:
        extent = container_extent(text, pos)
        end = extent[0] if extent else None
        error = too_deep("the record", max_depth)
    except ValueError as exc:
        end, error = None, RecordError("not_json", f"not valid JSON: {exc}")
    return Record(index, raw=text[pos:end if end else pos + 4096], error=error), end


def _lone_surrogate(value: Any, raw: str) -> bool:
    # orjson refuses "\ud800" on its own; this decoder (concatenated JSON, big integers) takes it,
    # and text holding it could be neither hashed nor stored
    if "\\ud" not in raw.lower():
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogate_error(value: Any, raw: str) -> RecordError | None:
    """Return the error of a record holding a lone UTF-16 surrogate escape, else None."""
    return _surrogate_error() if _lone_surrogate(value, raw) else None


def _surrogate_error() -> RecordError:
    return RecordError("bad_value", "the record holds a lone UTF-16 surrogate escape such as \\ud800, "
                                    "which is not text; fix the encoder that wrote it")


def _json_error(exc: orjson.JSONDecodeError, what: str, max_depth: int, raw=b"") -> RecordError:
    msg = str(exc)
    if is_depth_error(exc):
        return too_deep(f"the {what}", max_depth)
    if "low surrogate" in msg or "high surrogate" in msg:  # an escape, not a byte sequence
        return _surrogate_error()
    if "UTF-8" in msg:
        return RecordError("not_json", f"the {what} is not valid UTF-8{_bad_byte(raw)}")
    return RecordError("not_json", f"the {what} is not valid JSON: {msg}")


def _bad_byte(raw) -> str:
    """Say where the first byte that is not UTF-8 sits, counted from the record's start."""
    try:
        bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        return f" at byte offset {exc.start} of the record"
    except TypeError:
        pass
    return ""


def _brackets(raw: bytes | str) -> int:
    if isinstance(raw, str):
        return raw.count("{") + raw.count("[")
    return raw.count(b"{") + raw.count(b"[")


def _checked(index: int, value: Any, raw: bytes, max_depth: int | None) -> Record:
    if max_depth is not None and _brackets(raw) > max_depth and depth_exceeds(value, max_depth):
        return Record(index, raw=raw, value=value, error=too_deep("the record", max_depth))
    return Record(index, value, raw)


def check_depth(records: list[Record], max_depth: int) -> None:
    """Mark records nested deeper than max_depth as too_deep (for line and stream framings)."""
    for r in records:
        if r.error is None and r._raw is not None and _brackets(r._raw) > max_depth:
            if depth_exceeds(r.value, max_depth):
                r.error = too_deep("the record", max_depth)


def depth_exceeds(value: Any, limit: int) -> bool:
    """Tell whether value nests containers deeper than limit (a flat object has depth 1)."""
    t = type(value)
    if t is not dict and t is not list:
        return False
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        for c in (v.values() if type(v) is dict else v):
            tc = type(c)
            if tc is dict or tc is list:
                stack.append((c, d + 1))
    return False
