"""Records of concatenated JSON.

Values side by side, read by the standard library's decoder, which says where each ends."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from .extents import container_extent
from .model import RecordError, json_reason, too_deep
from .records import Record, lone_surrogate, surrogate_error

_WS = re.compile(r"[ \t\r\n]*")


def no_constants(name: str) -> Any:
    """Refuse NaN and Infinity, which Python's decoder takes and JSON has not."""
    raise ValueError(f"{name} is not valid JSON")


def finite_float(text: str) -> float:
    """Read a JSON number as a double, refusing one past its range.

    1e400 would be stored as null."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is past what a double holds")
    return value


# past this many characters an integer cannot be a double's (309 digits at most)
_WIDEST_INT = 320


def finite_int(text: str) -> int:
    """Read a JSON integer exactly, refusing one past a double's range.

    The codec reads stored payloads as orjson does, and orjson refuses such an integer: stored, it
    would make its trace unreadable."""
    if len(text) <= _WIDEST_INT:
        value = int(text)
        try:
            float(value)
            return value
        except OverflowError:
            pass
    raise ValueError(f"the number {text[:40]} is past what a double holds")


_DECODER = json.JSONDecoder(
    parse_constant=no_constants, parse_float=finite_float, parse_int=finite_int
)


def by_stream(body: bytes, max_depth: int) -> list[Record]:
    """Return the records of a body of JSON values side by side."""
    return list(scan(body, None, max_depth))


def scan(chunk: bytes, line_index: int | None, max_depth: int) -> Iterator[Record]:
    """Yield the concatenated JSON values of chunk.

    Stop at the first broken one."""
    try:
        text = chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Record(
            line_index or 0,
            raw=chunk,
            error=RecordError(
                "not_json", f"the text is not valid UTF-8 at byte offset {exc.start}"
            ),
        )
        return
    pos = _WS.match(text, 0).end()
    ordinal = 0
    while pos < len(text):
        record, end = _decode_at(
            text, pos, ordinal if line_index is None else line_index, max_depth
        )
        yield record
        # broken JSON: where the next value starts is unknown
        if end is None:
            return
        pos = _WS.match(text, end).end()
        ordinal += 1


def _decode_at(text: str, pos: int, index: int, max_depth: int) -> tuple[Record, int | None]:
    """Decode the value at text[pos].

    One too deep to decode is skipped whole as too_deep."""
    try:
        value, end = _DECODER.raw_decode(text, pos)
        if lone_surrogate(value, text[pos:end]):
            return Record(index, raw=text[pos:end], error=surrogate_error()), end
        return Record(index, value, text[pos:end]), end
    except RecursionError:
        extent = container_extent(text, pos)
        end = extent[0] if extent else None
        error = too_deep("the record", max_depth)
    except ValueError as exc:
        end, error = None, RecordError("not_json", f"not valid JSON: {json_reason(exc)}")
    return Record(index, raw=text[pos : end if end else pos + 4096], error=error), end
