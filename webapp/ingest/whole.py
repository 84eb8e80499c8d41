"""Records of a body that is one JSON value.

An event object, or an array whose items are the records."""

from __future__ import annotations

from typing import Any

from ..common import jsontext
from .extents import array_items
from .model import IngestError, Limits, too_deep
from .records import Record, brackets, depth_exceeds, json_error


def whole_records(value: Any, body: bytes, limits: Limits) -> list[Record]:
    """Return the records of a body orjson parsed whole into value.

    The array's items, or the one object."""
    if type(value) is list:
        if brackets(body) <= limits.max_depth + 1:
            return [Record(i, v) for i, v in enumerate(value)]
        # re-serialising is ~30x cheaper than walking a record, and bounds its depth
        try:
            return [
                _checked(i, v, jsontext.dumps(v), limits.max_depth) for i, v in enumerate(value)
            ]
        # an item nests deeper than orjson writes (255 levels)
        except jsontext.JSONEncodeError:
            return items_by_extent(body, limits.max_depth)
    if type(value) is not dict:
        kind = (
            "string"
            if type(value) is str
            else "number"
            if type(value) in (int, float)
            else "literal"
        )
        raise IngestError(
            422,
            "unparseable",
            f"the body is a JSON {kind}, not an event; send one event object, a JSON array of "
            "events, or NDJSON",
        )
    deep = brackets(body) > limits.max_depth
    return [_checked(0, value, body, limits.max_depth if deep else None)]


def items_by_extent(body: bytes, max_depth: int) -> list[Record] | None:
    """Return the items of a top-level JSON array one record each.

    Whatever their depth, without parsing the whole; None when body is not one complete array."""
    items = array_items(body)
    if items is None:
        return None
    return [
        _item_record(i, body[start:end], depth, max_depth)
        for i, (start, end, depth) in enumerate(items)
    ]


def _item_record(index: int, raw: bytes, depth: int, max_depth: int) -> Record:
    if depth > max_depth:
        return Record(index, raw=raw, error=too_deep("the record", max_depth))
    try:
        return Record(index, jsontext.loads(raw), raw)
    except jsontext.JSONDecodeError as exc:
        return Record(index, raw=raw, error=json_error(exc, f"item {index + 1}", max_depth, raw))


def _checked(index: int, value: Any, raw: bytes, max_depth: int | None) -> Record:
    """Return a parsed value's record, too_deep past max_depth (None: not checked)."""
    if max_depth is not None and brackets(raw) > max_depth and depth_exceeds(value, max_depth):
        return Record(index, raw=raw, value=value, error=too_deep("the record", max_depth))
    return Record(index, value, raw)
