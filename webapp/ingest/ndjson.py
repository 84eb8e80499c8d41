"""Records of an NDJSON body.

One a line, or several objects side by side on one line."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..common import jsontext
from .concatenated import scan
from .model import is_depth_error, too_deep
from .records import Record, brackets, check_depth, depth_exceeds, json_error

_WS_BYTES = re.compile(rb"[ \t\r\n]*")


def _lines(body: bytes) -> Iterator[tuple[int, bytes]]:
    """Yield (index, stripped line) of the non-blank lines, one copy at a time.

    Not a list of them all."""
    start, index = 0, 0
    while start <= len(body):
        end = body.find(b"\n", start)
        end = len(body) if end < 0 else end
        if _WS_BYTES.match(body, start).end() < end:
            yield index, body[start:end].strip()
        start, index = end + 1, index + 1


def by_lines(body: bytes, max_depth: int) -> list[Record]:
    """Return the records of an NDJSON body, line by line."""
    records: list[Record] = []
    for index, line in _lines(body):
        records.extend(line_records(index, line, max_depth))
    return records


def line_records(index: int, line: bytes, max_depth: int) -> list[Record]:
    """Return the records of one stripped NDJSON line.

    One, several objects side by side, or one broken."""
    try:
        # a good line's text is not kept (Record.raw re-serialises it if it is ever rejected):
        # holding every line beside its parsed value doubled a large body's memory
        return [_line_record(index, jsontext.loads(line), line, max_depth)]
    except jsontext.JSONDecodeError as exc:
        parts = [] if is_depth_error(exc) else list(scan(line, index, max_depth))
        # several objects on one line
        if parts and all(p.error is None for p in parts):
            check_depth(parts, max_depth)
            return parts
        return [
            Record(index, raw=line, error=json_error(exc, f"line {index + 1}", max_depth, line))
        ]


def _line_record(index: int, value: Any, line: bytes, max_depth: int) -> Record:
    if brackets(line) > max_depth and depth_exceeds(value, max_depth):
        return Record(index, raw=line, value=value, error=too_deep("the record", max_depth))
    return Record(index, value)
