"""The one way data moves: parsed events -> redaction -> store -> analysis -> store.

The HTTP endpoints, the CLI and the background analyzer all call these functions.
"""
import dataclasses
from pathlib import Path

from .analysis import analyze_call
from .ingest import Batch, parse_body
from .redact import Redactor
from .store import IngestResult, Store


def store_batch(store: Store, batch: Batch, redactor: Redactor | None) -> IngestResult:
    """Redact a parsed batch (quarantined text too) and commit it; return what was accepted."""
    if not redactor:
        return store.add_events(batch.events, batch.rejected)
    events = [redactor.event(e) for e in batch.events]
    rejected = [dataclasses.replace(r, raw=redactor.text(r.raw)) for r in batch.rejected]
    return store.add_events(events, rejected)


def analyze_one(store: Store, trace_id: str, call_id: str, contracts: dict | None = None) -> bool:
    """Analyse one call with its tool's contract and store the result."""
    inputs = store.call_inputs(trace_id, call_id)
    if inputs is None:
        return False
    contract = _contract(store, inputs["tool"], contracts)
    result = analyze_call(inputs["snapshots"], contract)
    return store.save_analysis(trace_id, call_id, inputs["version"], result)


def _contract(store: Store, tool: str | None, cache: dict | None):
    if not tool:
        return None
    if cache is None:
        return store.get_tool(tool)
    if tool not in cache:
        cache[tool] = store.get_tool(tool)
    return cache[tool]


def analyze_pending(store: Store, limit: int = 200) -> int:
    """Analyse calls whose analysis is out of date; return how many were analysed."""
    claimed = store.claim_pending(limit)
    contracts: dict = {}
    for call in claimed:
        analyze_one(store, call["trace_id"], call["call_id"], contracts)
    return len(claimed)


def analyze_all(store: Store) -> int:
    """Analyse every out-of-date call, batch after batch; return the total."""
    total = 0
    while count := analyze_pending(store):
        total += count
    return total


def catch_up(store: Store) -> int:
    """Project new events and analyse every out-of-date call; return the calls analysed."""
    store.project_all()
    return analyze_all(store)


def fresh_trace(store: Store, trace_id: str) -> dict | None:
    """Return a trace after analysing any call of it that is out of date."""
    for call in store.pending_calls(trace_id):
        analyze_one(store, call["trace_id"], call["call_id"])
    return store.get_trace(trace_id)


def load_folder(store: Store, folder: Path, redactor: Redactor | None) -> IngestResult:
    """Load the contracts and NDJSON traces of a folder such as sample_traces/."""
    from .contracts import import_contract_files

    import_contract_files(store, sorted((folder / "contracts").glob("*.json")))
    total = IngestResult()
    for path in sorted(folder.glob("*.ndjson")):
        result = store_batch(store, parse_body(path.read_bytes()), redactor)
        total.accepted += result.accepted
        total.duplicates += result.duplicates
    catch_up(store)
    return total
