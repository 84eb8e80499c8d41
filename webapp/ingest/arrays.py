"""A JSON array body split item by item as it is decompressed.

So only one item's parsed value is held.

Vector, Fluent Bit and Logstash send arrays; parsed whole, 63 MiB of one took a worker to 672 MiB.
Each item is parsed by orjson on a window of the text, which says where the item ends by refusing
what follows it; what that cannot settle (an item cut at the end of what has arrived, broken, too
deep, not UTF-8) goes to the standard library's scanner, tried again once more of the body has
arrived.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator

from ..common import jsontext
from .concatenated import finite_float, finite_int, no_constants
from .extents import container_extent
from .framing import within_event_limit
from .model import IngestError, Limits, RecordError, json_reason, too_deep
from .records import Record, check_depth, lone_surrogate_error

_WS = re.compile(r"[ \t\r\n]*")
_SCALAR = re.compile(r'"(?:[^"\\]|\\.)*"|[^,\]\s]+', re.S)
# bytes that are not UTF-8, kept by surrogateescape
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
_DROP_AFTER = 1 << 20
# a window this long is parsed with the collector paused
BIG_TEXT = 100_000
_WINDOW = 1 << 16


# an item that runs past the end of the text read so far
_CUT = object()
_DECODER = json.JSONDecoder(
    parse_constant=no_constants, parse_float=finite_float, parse_int=finite_int
)


class _Text:
    """The decoded text of a body, read ahead a piece at a time.

    What was consumed is dropped."""

    def __init__(self, head: bytes, pieces: Iterator[bytes]):
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.pieces, self.text, self.ended = pieces, self.decoder.decode(head), False

    def more(self, until: int = 0) -> bool:
        """Read pieces until the text is `until` long (at least one piece).

        False when none is left."""
        read = False
        while not self.ended and (not read or len(self.text) < until):
            piece = next(self.pieces, None)
            if piece is None:
                self.ended = True
                self.text += self.decoder.decode(b"", final=True)
            else:
                self.text += self.decoder.decode(piece)
                read = True
        return read

    def skip_blanks(self, pos: int) -> int:
        while True:
            pos = _WS.match(self.text, pos).end()
            if pos < len(self.text) or not self.more():
                return pos


def array_records(head: bytes, pieces: Iterator[bytes], limits: Limits) -> Iterator[Record]:
    """Yield the items of a top-level JSON array body one record each.

    Raise IngestError when the body is not one array, holds too many items or none of its items can
    be taken."""
    return within_event_limit(_array_items(head, pieces, limits.max_depth), limits.max_events)


def _array_items(head: bytes, pieces: Iterator[bytes], max_depth: int) -> Iterator[Record]:
    text = _Text(head, pieces)
    # past the "["
    pos = text.skip_blanks(text.skip_blanks(0) + 1)
    index = 0
    closed = text.text[pos : pos + 1] == "]"
    while not closed:
        if pos > _DROP_AFTER:
            text.text, pos = text.text[pos:], 0
        record, pos = _item(text, pos, index, max_depth)
        index += 1
        yield record
        pos = text.skip_blanks(pos)
        separator = text.text[pos : pos + 1]
        if separator not in (",", "]"):
            raise _not_an_array(f"expected ',' or ']' after item {index}")
        closed = separator == "]"
        pos = text.skip_blanks(pos + 1) if not closed else pos
        if not closed and text.text[pos : pos + 1] == "]":
            # [a, b,]: the items before the comma are whole; the comma alone is refused
            yield _trailing_comma(index)
            closed = True
    if text.skip_blanks(pos + 1) < len(text.text):
        raise _not_an_array("something follows the array's closing ']'")


def _item(text: _Text, pos: int, index: int, max_depth: int) -> tuple[Record, int]:
    """Parse the item at pos, reading more of the body while it may be cut short.

    Return it and its end."""
    found = _by_orjson(text.text, pos)
    # an item longer than what has arrived: orjson again once the rest has (the scanner below
    # took 25 ms for a 0.8 MB item cut at a piece's end)
    while found is _CUT and text.more(2 * len(text.text)):
        found = _by_orjson(text.text, pos)
    if found is not None and found is not _CUT:
        record = Record(index, found[0], text.text[pos : found[1]])
        check_depth([record], max_depth)
        return record, found[1]
    # the standard library's scanner says where a value ends whatever follows it
    while True:
        try:
            value, end = _DECODER.raw_decode(text.text, pos)
        except RecursionError:
            if text.more(2 * len(text.text)):
                continue
            return _skipped(text.text, pos, index, too_deep("the record", max_depth))
        # broken, or only cut short: with more of the body it may parse
        except ValueError as exc:
            if text.more(2 * len(text.text)):
                continue
            return _skipped(
                text.text,
                pos,
                index,
                RecordError("not_json", f"item {index + 1} is not valid JSON: {json_reason(exc)}"),
            )
        if end == len(text.text) and text.text[pos] not in '{["' and text.more():
            # a number or literal that ends where the text does may go on
            continue
        return _checked(index, value, text.text[pos:end], max_depth), end


def _by_orjson(text: str, pos: int) -> tuple[object, int] | object | None:
    """Parse the container at pos with orjson.

    Which says where it ends by refusing what follows; _CUT when the item runs past the end of the
    text, None when a window of the text does not settle it (broken, too deep, not UTF-8, a
    scalar)."""
    if text[pos : pos + 1] not in ("{", "["):
        return None
    size = _WINDOW
    while True:
        window = text[pos : pos + size]
        try:
            return _loaded(window), pos + len(window)
        except jsontext.JSONDecodeError as exc:
            if exc.msg.startswith("unexpected content after document"):
                # in characters, as the text is indexed
                end = pos + exc.pos
                return _loaded(text[pos:end]), end
            if "end of data" not in exc.msg:
                return None
            if len(window) < size:
                return _CUT
            # the item is longer than the window
            size *= 4


def _loaded(window: str):
    """Parse a window of the text; a big one with the collector paused.

    Its passes over a 1 MB item of 60-level chains being built took 0.2 s of a 0.25 s parse."""
    if len(window) < BIG_TEXT:
        return jsontext.loads(window)
    with jsontext.paused_collector():
        return jsontext.loads(window)


def _skipped(text: str, pos: int, index: int, error: RecordError) -> tuple[Record, int]:
    """Step over an item that cannot be parsed.

    By its brackets, or by its extent as a scalar."""
    if text[pos : pos + 1] in ("{", "["):
        extent = container_extent(text, pos)
        end = extent[0] if extent else None
    else:
        scalar = _SCALAR.match(text, pos)
        end = scalar.end() if scalar else None
    if end is None:
        raise _not_an_array(f"item {index + 1} never ends")
    return Record(index, raw=text[pos:end], error=error), end


def _checked(index: int, value, raw: str, max_depth: int) -> Record:
    if _NOT_UTF8.search(raw):
        return Record(
            index,
            raw=raw.encode("utf-8", "surrogateescape"),
            error=RecordError("not_json", f"the item {index + 1} is not valid UTF-8"),
        )
    surrogate = lone_surrogate_error(value, raw)
    if surrogate is not None:
        return Record(index, raw=raw, error=surrogate)
    record = Record(index, value, raw)
    check_depth([record], max_depth)
    return record


def _trailing_comma(index: int) -> Record:
    """The rejection of a ',' right before the array's closing ']'."""
    return Record(
        index,
        raw=",",
        error=RecordError(
            "not_json",
            f"a trailing comma after item {index}: JSON allows none before ']' (the items before "
            "it were taken)",
        ),
    )


def _not_an_array(detail: str) -> IngestError:
    return IngestError(
        422, "unparseable", f"the body starts as a JSON array but is not one: {detail}"
    )
