"""`tracediff ingest`: load files of events straight into the store, in batches."""
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from .ingest import Batch, IngestError, Rejection, parse_body
from .pipeline import store_batch

WHOLE_FILE_BYTES = 4 * 1024 * 1024   # smaller files are parsed in one go (any framing)
MAX_REASONS_SHOWN = 20


@dataclass
class IngestSummary:
    accepted: int = 0
    duplicates: int = 0
    rejected: list = field(default_factory=list)   # (file, record number, code, message)
    failed_files: list = field(default_factory=list)

    def describe(self) -> str:
        """Say what happened, with the first reasons for rejections."""
        lines = [f"accepted {self.accepted}, duplicates {self.duplicates}, rejected {len(self.rejected)}"]
        for name, number, code, message in self.rejected[:MAX_REASONS_SHOWN]:
            lines.append(f"  {name} record {number}: {code}: {message}")
        if len(self.rejected) > MAX_REASONS_SHOWN:
            lines.append(f"  ... and {len(self.rejected) - MAX_REASONS_SHOWN} more (kept in the quarantine table)")
        lines += [f"  {name}: {message}" for name, message in self.failed_files]
        return "\n".join(lines)


def ingest_files(store, names, redactor, batch_size: int = 1000) -> IngestSummary:
    """Ingest every file (or - for stdin) and return the summary."""
    summary = IngestSummary()
    for name in names:
        try:
            for first_index, batch in _batches(name, batch_size):
                _store(store, batch, redactor, summary, name, first_index)
        except (IngestError, OSError) as error:
            summary.failed_files.append((name, getattr(error, "message", str(error))))
    return summary


def _store(store, batch: Batch, redactor, summary, name, first_index) -> None:
    result = store_batch(store, batch, redactor)
    summary.accepted += result.accepted
    summary.duplicates += result.duplicates
    summary.rejected += [(name, first_index + r.index + 1, r.code, r.message) for r in batch.rejected]


def _batches(name: str, batch_size: int):
    """Yield (index of first record, parsed batch) for a file, streaming large NDJSON files."""
    if name == "-":
        yield from _line_batches(sys.stdin.buffer, batch_size, None)
        return
    path = Path(name)
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(64).lstrip()
        handle.seek(0)
        if size <= WHOLE_FILE_BYTES or head.startswith(b"["):
            yield 0, parse_body(handle.read())
            return
        with tqdm(total=size, unit="B", unit_scale=True, desc=path.name, file=sys.stderr) as bar:
            yield from _line_batches(handle, batch_size, bar)


def _line_batches(handle, batch_size: int, bar):
    lines, first_index = [], 0
    for line in handle:
        if bar is not None:
            bar.update(len(line))
        lines.append(line)
        if len(lines) >= batch_size:
            yield first_index, _parse_lines(lines)
            first_index += len(lines)
            lines = []
    if lines:
        yield first_index, _parse_lines(lines)


def _parse_lines(lines) -> Batch:
    """Parse a chunk of NDJSON lines, keeping record numbers aligned with lines."""
    try:
        return parse_body(b"".join(lines))
    except IngestError as error:
        return Batch(events=[], rejected=[
            Rejection(index=i, code=error.code, message=error.message, raw=line[:4096].decode("utf-8", "replace"))
            for i, line in enumerate(lines) if line.strip()])
