"""Split a body into records as its decompressed pieces arrive.

NDJSON line by line, other framings whole.

NDJSON and JSON arrays are what shippers send, and what can be large: their lines or items are
parsed one at a time, so a worker holds one record's parsed value, not the whole body's. A body
whose first line is not a JSON object on its own (a pretty-printed object, concatenated JSON) is
gathered and split whole by framing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .arrays import array_records
from .extents import container_extent
from .framing import split_records, within_event_limit
from .model import Limits
from .ndjson import line_records
from .records import Record

_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\r\n"
_BLANKS = re.compile(rb"[ \t\r\n]*")


def stream_records(pieces: Iterable[bytes], limits: Limits) -> Iterator[Record]:
    """Yield a body's records as its pieces come.

    Raise IngestError when it is refused whole."""
    pieces = iter(pieces)
    head = bytearray()
    lead = first = None
    # where the body's first byte that is not blank is; how far a newline was sought
    start = searched = 0
    for piece in pieces:
        head += piece
        if lead is None:
            lead, start = _lead(head, start)
        if lead == b"[":
            break
        if lead is not None:
            first, searched = _first_line(head, start, searched)
            if first is not None:
                break
    if lead == b"[":
        yield from array_records(bytes(head[start:]), pieces, limits)
    elif first is None or not _one_object(first):
        yield from _whole(head, pieces, limits)
    else:
        yield from _by_lines(head, pieces, limits)


def _lead(head: bytearray, start: int) -> tuple[bytes | None, int]:
    """Return the first byte of the body that is not blank, and where it is.

    After a byte order mark; or (None, how far the body is blank). Each piece is looked at once,
    however many blank ones come first."""
    if start == 0:
        if len(head) < len(_BOM) and _BOM.startswith(head):
            # a byte order mark may be coming
            return None, 0
        start = len(_BOM) if head.startswith(_BOM) else 0
    start = _BLANKS.match(head, start).end()
    return (bytes(head[start : start + 1]), start) if start < len(head) else (None, start)


def _first_line(head: bytearray, start: int, searched: int) -> tuple[bytes | None, int]:
    """Return the first line once its newline came, and how far one was sought.

    It starts at `start`, not blank."""
    end = head.find(b"\n", max(start, searched))
    if end < 0:
        return None, len(head)
    return bytes(head[start:end]).strip(_BLANK), end


def _one_object(line: bytes) -> bool:
    """Tell whether a line is one whole object by its brackets (so NDJSON).

    Parsed or not, even too deep."""
    if line[:1] != b"{":
        return False
    extent = container_extent(line, 0)
    return extent is not None and extent[0] == len(line)


def _whole(head: bytearray, pieces: Iterator[bytes], limits: Limits) -> Iterator[Record]:
    for piece in pieces:
        head += piece
    records = split_records(bytes(head), limits)
    del head[:]
    records.reverse()
    # each record's parsed value goes as soon as its events are made
    while records:
        yield records.pop()


def _by_lines(head: bytearray, pieces: Iterator[bytes], limits: Limits) -> Iterator[Record]:
    if head.startswith(_BOM):
        del head[: len(_BOM)]
    return within_event_limit(_line_records(head, pieces, limits.max_depth), limits.max_events)


def _line_records(head: bytearray, pieces: Iterator[bytes], max_depth: int) -> Iterator[Record]:
    for index, line in enumerate(_lines(head, pieces)):
        if line:
            yield from line_records(index, line, max_depth)


def _lines(buffer: bytearray, pieces: Iterator[bytes]) -> Iterator[bytes]:
    """Yield each line as soon as its newline arrives, then the last one.

    Stripped; blank ones empty."""
    while True:
        cut = buffer.rfind(b"\n")
        if cut >= 0:
            block = bytes(buffer[:cut])
            del buffer[: cut + 1]
            # one piece's worth of lines at a time (1 MiB)
            for line in block.split(b"\n"):
                yield line.strip(_BLANK)
            del block
        piece = next(pieces, None)
        if piece is None:
            break
        buffer += piece
    yield bytes(buffer).strip(_BLANK)
