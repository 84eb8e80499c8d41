"""Split a decoded body into records, whatever the framing: object, array, NDJSON or concatenated JSON."""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

import orjson

from .model import IngestError, Limits, RecordError, cut_raw

_WS = re.compile(r"[ \t\r\n]*")
_BOM = b"\xef\xbb\xbf"


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constants)


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
        records = _by_lines(body) if b"\n" in body.strip() else []
        if not any(r.error is None for r in records):
            records = _by_stream(body)
        check_depth(records, limits.max_depth)
    else:
        records = _whole(whole, body, limits)
    if len(records) > limits.max_events:
        raise IngestError(422, "too_many_events",
                          f"the body holds {len(records)} records; at most {limits.max_events} per request")
    if not any(r.error is None for r in records) and records:
        raise IngestError(422, "unparseable", f"nothing in the body parses as JSON: {records[0].error.message}")
    return records


def _whole(value: Any, body: bytes, limits: Limits) -> list[Record]:
    if type(value) is list:
        if _brackets(body) <= limits.max_depth + 1:
            return [Record(i, v) for i, v in enumerate(value)]
        # re-serialising is ~30x cheaper than walking a record, and bounds its depth
        return [_checked(i, v, orjson.dumps(v), limits.max_depth) for i, v in enumerate(value)]
    if type(value) is not dict:
        kind = "string" if type(value) is str else "number" if type(value) in (int, float) else "literal"
        raise IngestError(422, "unparseable",
                          f"the body is a JSON {kind}, not an event; send one event object, "
                          "a JSON array of events, or NDJSON")
    deep = _brackets(body) > limits.max_depth
    return [_checked(0, value, body, limits.max_depth if deep else None)]


def _by_lines(body: bytes) -> list[Record]:
    records: list[Record] = []
    for index, line in enumerate(body.split(b"\n")):
        line = line.strip()
        if not line:
            continue
        try:
            records.append(Record(index, orjson.loads(line), line))
        except orjson.JSONDecodeError as exc:
            parts = list(_scan(line, index))
            if all(p.error is None for p in parts):  # several objects on one line
                records.extend(parts)
            else:
                records.append(Record(index, raw=line, error=_json_error(exc, f"line {index + 1}")))
    return records


def _by_stream(body: bytes) -> list[Record]:
    return list(_scan(body, None))


def _scan(chunk: bytes, line_index: int | None) -> Iterator[Record]:
    """Yield the concatenated JSON values of chunk; stop at the first broken one."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Record(line_index or 0, raw=chunk,
                     error=RecordError("not_json", f"the text is not valid UTF-8 (byte {exc.start})"))
        return
    pos = _WS.match(text, 0).end()
    ordinal = 0
    while pos < len(text):
        index = line_index if line_index is not None else ordinal
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            code = "too_deep" if isinstance(exc, RecursionError) else "not_json"
            yield Record(index, raw=text[pos:pos + 4096], error=RecordError(code, f"not valid JSON: {exc}"))
            return
        yield Record(index, value, text[pos:end])
        pos = _WS.match(text, end).end()
        ordinal += 1


def _json_error(exc: orjson.JSONDecodeError, what: str) -> RecordError:
    msg = str(exc)
    if "depth limit" in msg or "recursion" in msg:
        return RecordError("too_deep", f"the {what} nests JSON deeper than we accept")
    if "UTF-8" in msg:
        return RecordError("not_json", f"the {what} is not valid UTF-8")
    return RecordError("not_json", f"the {what} is not valid JSON: {msg}")


def _brackets(raw: bytes | str) -> int:
    if isinstance(raw, str):
        return raw.count("{") + raw.count("[")
    return raw.count(b"{") + raw.count(b"[")


def _checked(index: int, value: Any, raw: bytes, max_depth: int | None) -> Record:
    if max_depth is not None and _brackets(raw) > max_depth and depth_exceeds(value, max_depth):
        return Record(index, raw=raw, value=value,
                      error=RecordError("too_deep", f"the record nests JSON deeper than {max_depth} levels"))
    return Record(index, value, raw)


def check_depth(records: list[Record], max_depth: int) -> None:
    """Mark records nested deeper than max_depth as too_deep (for line and stream framings)."""
    for r in records:
        if r.error is None and r._raw is not None and _brackets(r._raw) > max_depth:
            if depth_exceeds(r.value, max_depth):
                r.error = RecordError("too_deep", f"the record nests JSON deeper than {max_depth} levels")


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
