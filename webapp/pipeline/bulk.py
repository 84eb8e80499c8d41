"""`tracediff ingest`.

Load files of events into the store (webapp/cli/demo.py loads the sample folder with them).

A file (or stdin) is decompressed first (gzip, zstd: sniffed from its first bytes), then read as
NDJSON one line at a time when its first non-empty line is a whole JSON value, else parsed whole as
one document (an object, a pretty-printed array, concatenated JSON). Either way the events are
committed `batch_size` at a time: the per-request limits of the HTTP API do not apply here.
"""

import gzip
import io
import sys
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from itertools import chain
from pathlib import Path

import zstandard
from tqdm import tqdm

from ..common import jsontext
from ..ingest import Batch, IngestError, Limits, Rejection, parse_body
from ..ingest.decode import sniff_encoding
from ..ingest.extents import array_items
from ..ingest.model import cut_raw, json_reason
from ..store import StoreUnavailable
from . import store_batch

# larger files show a progress bar
PROGRESS_BYTES = 4 * 1024 * 1024
MAX_REASONS_SHOWN = 20
FILE_LIMITS = Limits(max_body_bytes=sys.maxsize, max_events=sys.maxsize)


def file_limits(settings: dict) -> Limits:
    """The limits of files.

    No size or count limit (they go in batches), the settings' depth and clock skew."""
    return replace(
        FILE_LIMITS, max_depth=settings["MAX_DEPTH"], max_clock_skew_s=settings["MAX_CLOCK_SKEW_S"]
    )


DECODE_ERRORS = (EOFError, zlib.error, zstandard.ZstdError)
_BOM = b"\xef\xbb\xbf"


@dataclass
class IngestSummary:
    accepted: int = 0
    duplicates: int = 0
    # (file, record number, line or None, code, message)
    rejected: list = field(default_factory=list)
    failed_files: list = field(default_factory=list)
    # (file, StoreUnavailable) when the database refused a batch: nothing after it ran
    stopped: tuple | None = None

    def stopped_line(self) -> str:
        """Say where the database stopped the load and what it had stored.

        In one line."""
        name, error = self.stopped
        return (
            f"stopped at {name}: {error}. {self.accepted} event(s) were stored before it stopped "
            f"({self.duplicates} duplicate(s), {len(self.rejected)} rejected); run the same "
            "command again "
            "once there is room: what is stored already counts as duplicates"
        )

    def describe(self) -> str:
        """Say what happened, with the first reasons for rejections."""
        lines = [
            f"accepted {self.accepted}, duplicates {self.duplicates}, rejected {len(self.rejected)}"
        ]
        for name, number, line, code, message in self.rejected[:MAX_REASONS_SHOWN]:
            where = f"record {number}" if line is None else f"record {number} (line {line})"
            lines.append(f"  {name} {where}: {code}: {message}")
        if len(self.rejected) > MAX_REASONS_SHOWN:
            lines.append(
                f"  ... and {len(self.rejected) - MAX_REASONS_SHOWN} more (kept in the quarantine "
                "table)"
            )
        lines += [f"  {name}: {message}" for name, message in self.failed_files]
        return "\n".join(lines)


@dataclass
class Chunk:
    """Parsed events and rejections.

    With (record number, line) in the file of each rejection."""

    batch: Batch = field(default_factory=Batch)
    places: list = field(default_factory=list)

    def extend(self, other: "Chunk") -> None:
        self.batch.events += other.batch.events
        self.batch.rejected += other.batch.rejected
        self.places += other.places

    def __len__(self) -> int:
        return len(self.batch.events) + len(self.batch.rejected)


def ingest_files(
    store,
    names,
    redactor,
    batch_size: int = 1000,
    limits: Limits = FILE_LIMITS,
    shift_days: int = 0,
) -> IngestSummary:
    """Ingest every file (or - for stdin) and return the summary.

    `shift_days` moves every event's time."""
    summary = IngestSummary()
    for name in names:
        try:
            _ingest_file(store, name, redactor, (batch_size, limits), summary, shift_days)
        # full, read-only, locked: every later batch would fail the same way
        except StoreUnavailable as error:
            summary.stopped = (name, error)
            break
    return summary


def shifted(ts: str, days: int) -> str:
    """Move an RFC 3339 time by whole days, keeping how it is written.

    Its time of day does not change."""
    if not days or not ts:
        return ts
    return (date.fromisoformat(ts[:10]) + timedelta(days=days)).isoformat() + ts[10:]


def _ingest_file(
    store, name, redactor, batching: tuple[int, Limits], summary, days: int = 0
) -> None:
    stored_before, rejected_before = summary.accepted + summary.duplicates, len(summary.rejected)
    try:
        with _opened(name) as stream:
            for chunk in _chunks(stream, *batching):
                for event in chunk.batch.events if days else ():
                    event.ts = shifted(event.ts, days)
                _store(store, chunk, redactor, summary, name)
    except (IngestError, OSError) as error:
        # parse_body speaks of a request body; here it is a file
        message = getattr(error, "message", str(error)).replace("the body", "the file")
        summary.failed_files.append((name, message))
    except DECODE_ERRORS as error:
        summary.failed_files.append(
            (name, f"the compressed data is broken: {error or 'it ends early'}")
        )
    rejected = len(summary.rejected) - rejected_before
    if rejected and summary.accepted + summary.duplicates == stored_before:
        summary.failed_files.append(
            (name, f"every record was rejected ({rejected}); nothing stored")
        )


def _store(store, chunk: Chunk, redactor, summary, name) -> None:
    result = store_batch(store, chunk.batch, redactor, source=f"tracediff ingest {name}")
    summary.accepted += result.accepted
    summary.duplicates += result.duplicates
    summary.rejected += [
        (name, number, line, r.code, r.message)
        for r, (number, line) in zip(chunk.batch.rejected, chunk.places)
    ]


@contextmanager
def _opened(name: str):
    """Yield the decompressed byte stream of a file (- for stdin).

    With a progress bar for large files."""
    if name == "-":
        yield _decompressed(sys.stdin.buffer)
        return
    path = Path(name)
    size = path.stat().st_size
    with path.open("rb") as raw:
        if size <= PROGRESS_BYTES:
            yield _decompressed(raw)
            return
        # disable=None: a bar only on a terminal (cron, systemd and scripts get the summary and
        # errors alone)
        with tqdm(
            total=size, unit="B", unit_scale=True, desc=path.name, file=sys.stderr, disable=None
        ) as bar:
            yield Tracked(_decompressed(raw), raw, bar)


def _decompressed(raw):
    # stdin replaced by an in-memory stream
    if not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)
    encoding = sniff_encoding(raw.peek(4)[:4])
    if encoding == "gzip":
        return gzip.GzipFile(fileobj=raw)
    if encoding == "zstd":
        return io.BufferedReader(
            zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        )
    return raw


class Tracked:
    """A decompressed stream that moves a progress bar by the bytes read from the file."""

    def __init__(self, stream, raw, bar):
        self.stream, self.raw, self.bar = stream, raw, bar

    def __iter__(self):
        for line in self.stream:
            self.bar.update(self.raw.tell() - self.bar.n)
            yield line

    def read(self) -> bytes:
        data = self.stream.read()
        self.bar.update(self.raw.tell() - self.bar.n)
        return data


def _chunks(stream, batch_size: int, limits: Limits):
    """Yield chunks of at most batch_size records of a stream.

    Line by line for NDJSON, else parsed whole."""
    lines = iter(stream)
    head = []
    for line in lines:
        head.append(line)
        if line.strip():
            break
    if head and _is_json(head[-1]):
        pieces = _line_pieces(chain(head, lines), batch_size, limits)
    else:
        pieces = _document_pieces(b"".join(head) + stream.read(), batch_size, limits)
    yield from _rebatched(pieces, batch_size)


def _rebatched(pieces, batch_size: int):
    """Merge pieces of at most batch_size records into batch_size chunks.

    Chunks of batch_size records, the last one smaller."""
    chunk = Chunk()
    for piece in pieces:
        if len(chunk) + len(piece) > batch_size:
            yield chunk
            chunk = Chunk()
        chunk.extend(piece)
    if len(chunk):
        yield chunk


def _pieces(parsed: Batch, places: list, size: int):
    """Cut a parsed batch into pieces of at most size records.

    Rejections, then events."""
    for start in range(0, len(parsed.rejected), size):
        yield Chunk(
            Batch(rejected=parsed.rejected[start : start + size]), places[start : start + size]
        )
    for start in range(0, len(parsed.events), size):
        yield Chunk(Batch(parsed.events[start : start + size]))


def _is_json(line: bytes) -> bool:
    try:
        jsontext.loads(line.removeprefix(_BOM))
    except jsontext.JSONDecodeError:
        return False
    return True


def _line_pieces(lines, batch_size: int, limits: Limits):
    """Parse NDJSON one line (one record) at a time.

    Numbering records and lines in the file."""
    record = 0
    for number, line in enumerate(lines, 1):
        if line.strip():
            record += 1
            parsed = _parse_line(line, limits)
            yield from _pieces(parsed, [(record, number)] * len(parsed.rejected), batch_size)


def _parse_line(line: bytes, limits: Limits) -> Batch:
    try:
        return parse_body(line, limits=limits)
    except IngestError as error:
        return Batch(rejected=[Rejection(0, *_line_reason(line, error), raw=cut_raw(line))])


def _line_reason(line: bytes, error: IngestError) -> tuple[str, str]:
    """Say why a line was refused whole, in terms of the line.

    parse_body speaks of a body."""
    if error.code != "unparseable":
        return error.code, error.message
    try:
        # without its line end, whose "line 2, column 1" would hide the column the line broke at
        jsontext.loads(line.rstrip(b"\r\n"))
    except jsontext.JSONDecodeError as exc:
        return "not_json", f"not valid JSON: {json_reason(exc)}"
    return "bad_type", "each record must be a JSON object"


def _document_pieces(body: bytes, batch_size: int, limits: Limits):
    """Parse a whole document (any framing, any number of records)."""
    body = body.removeprefix(_BOM)
    try:
        parsed = parse_body(body, limits=limits)
    except IngestError as error:
        first = getattr(error, "first", None)
        if first is None:
            raise
        # refused whole, it still counts (and is quarantined) as a rejected record
        reason = (
            "no record of the file can be taken"
            if first.code == "too_deep"
            else ("nothing in the file parses as JSON")
        )
        rejection = Rejection(0, first.code, f"{reason}: {first.message}", raw=cut_raw(body))
        yield Chunk(Batch(rejected=[rejection]), [(1, None)])
        return
    yield from _pieces(parsed, _document_places(body, parsed.rejected), batch_size)


def _document_places(body: bytes, rejected: list) -> list:
    """Return (record number, line) of each rejection.

    The line is known for the items of an array."""
    items = array_items(body) if rejected and body.lstrip()[:1] == b"[" else None
    if items is None:
        return [(r.index + 1, None) for r in rejected]
    return [(r.index + 1, body.count(b"\n", 0, items[r.index][0]) + 1) for r in rejected]
