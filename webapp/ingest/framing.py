"""Split a decoded body into records, whatever the framing.

Object, array, NDJSON or concatenated JSON.

Each framing has its module: whole.py (one JSON value), ndjson.py and concatenated.py; records.py
holds the record and the checks they share.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..common import jsontext
from . import concatenated, ndjson
from .model import IngestError, Limits, RecordError
from .records import Record, check_depth
from .whole import items_by_extent, whole_records

_BOM = b"\xef\xbb\xbf"


def split_records(body: bytes, limits: Limits) -> list[Record]:
    """Return the records of a body, or raise IngestError when nothing in it parses."""
    if body.startswith(_BOM):
        body = body[len(_BOM) :]
    if not body.strip():
        raise IngestError(
            422,
            "unparseable",
            "the body is empty; send one event, a JSON array of events, or NDJSON",
        )
    try:
        whole = jsontext.loads(body)
    except jsontext.JSONDecodeError:
        records = _unparsed(body, limits.max_depth)
    else:
        records = whole_records(whole, body, limits)
    if len(records) > limits.max_events:
        raise IngestError(
            422,
            "too_many_events",
            f"the body holds {len(records)} records; at most {limits.max_events} per request",
        )
    if not any(r.error is None for r in records) and records:
        raise refused_whole(records[0].error, all(r.error.code == "too_deep" for r in records))
    return records


def refused_whole(first: RecordError, all_too_deep: bool) -> IngestError:
    """The refusal of a body none of whose records can be taken.

    By its first record's error."""
    if all_too_deep:
        error = IngestError(422, "too_deep", f"no record of the body can be taken: {first.message}")
    else:
        error = IngestError(
            422, "unparseable", f"nothing in the body parses as JSON: {first.message}"
        )
    # a file loader counts it as one rejected record
    error.first = first
    return error


def within_event_limit(records: Iterable[Record], max_events: int) -> Iterator[Record]:
    """Pass a streamed body's records on.

    Refuse the body at record max_events + 1 (nothing past it is parsed), or at its end when none of
    its records can be taken."""
    good, first_error, all_too_deep = 0, None, True
    for count, record in enumerate(records, 1):
        if count > max_events:
            raise IngestError(
                422,
                "too_many_events",
                f"the body holds more than {max_events} records; send at most {max_events} per "
                "request",
            )
        if record.error is None:
            good += 1
        else:
            first_error = first_error or record.error
            all_too_deep = all_too_deep and record.error.code == "too_deep"
        yield record
    if not good and first_error is not None:
        raise refused_whole(first_error, all_too_deep)


def _unparsed(body: bytes, max_depth: int) -> list[Record]:
    """Find the records of a body that does not parse whole.

    An array too deep for orjson, NDJSON or concatenated JSON."""
    records = items_by_extent(body, max_depth) if body.lstrip()[:1] == b"[" else None
    if records is None:
        records = ndjson.by_lines(body, max_depth) if b"\n" in body.strip() else []
        if not any(r.error is None for r in records):
            records = concatenated.by_stream(body, max_depth)
    check_depth(records, max_depth)
    return records
