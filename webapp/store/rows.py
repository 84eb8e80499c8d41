"""The rows the store writes.

An event as stored, an analysis with its summary columns."""

import itertools

from ..common.times import fixed
from .codec import dumps


def runs_by_source(rows: list[tuple]):
    """Yield (source, rows) for each run of rows with one source (column 5).

    In the batch's order."""
    for source, run in itertools.groupby(rows, key=lambda row: row[5] or ""):
        yield source, list(run)


def event_row(event, received: str) -> tuple:
    return (
        event.event_id,
        event.trace_id,
        event.call_id,
        event.snapshot,
        event.tool,
        event.source,
        event.release,
        dumps(event.payload),
        int(bool(event.logged_as_string)),
        None if event.http is None else dumps(event.http),
        # ingest makes the fixed form already; an Event built by other code is brought to it here
        None if not event.meta else dumps(event.meta),
        fixed(event.ts) if event.ts else received,
        received,
    )


def analysis_row(trace_id, call_id, version, analysis: dict) -> dict:
    summary = analysis.get("summary") or {}
    kinds = sorted({f["kind"] for f in analysis.get("findings", [])})
    loud = sorted(
        {f["kind"] for f in analysis.get("findings", []) if f["severity"] in ("error", "warning")}
    )
    return {
        "analysis": dumps(analysis),
        "version": version,
        "worst": analysis.get("worst"),
        "errors": summary.get("error", 0),
        "warnings": summary.get("warning", 0),
        "infos": summary.get("info", 0),
        "kinds": ",".join(kinds),
        "loud_kinds": ",".join(loud),
        "contract_digest": analysis.get("contract_digest"),
        "trace_id": trace_id,
        "call_id": call_id,
    }
