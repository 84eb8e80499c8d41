"""The one way data moves: parsed events -> redaction -> store -> analysis -> store.

The HTTP endpoints, the CLI and the background analyzer all call these functions.
"""
import dataclasses
from pathlib import Path

import orjson

from . import alerts
from .analysis import analyze_call
from .ingest import Batch
from .ingest.envelope import canonical_trace_id
from .problems.grouping import call_problems, contract_digest
from .redact import Redactor
from .store import IngestResult, Store
from .store.codec import utc_now

REJECTION_WINDOW_S = 600  # a rejection alert counts the records rejected in the last ten minutes


def store_batch(store: Store, batch: Batch, redactor: Redactor | None, source: str = "") -> IngestResult:
    """Redact a parsed batch (quarantined text too) and commit it; return what was accepted.

    `source` says who sent the batch; its rejected records are quarantined under that name."""
    rejected = [dataclasses.replace(r, raw=redactor.text(r.raw) if redactor else r.raw,
                                    source=r.source or source[:200]) for r in batch.rejected]
    events = [redactor.event(e) for e in batch.events] if redactor else batch.events
    return store.add_events(events, rejected, also=_rejection_alerts(store, rejected, source) if rejected else None)


def _rejection_alerts(store: Store, rejected, source: str):
    """Return what writes the `rejected_events` alerts of a batch, in the batch's own transaction."""
    def write(conn):
        count = store.rejected_since(conn, utc_now(hours_ago=REJECTION_WINDOW_S / 3600), None)
        data = {"count": count, "window_s": REJECTION_WINDOW_S, "source": source[:200] or None,
                "code": rejected[0].code, "message": rejected[0].message, "permalink_path": "/quarantine"}
        store.enqueue_alerts(conn, "rejected_events", "ingest", data, alerts.matches)
    return write


def _contract(store: Store, tool: str | None, cache: dict):
    if not tool:
        return None
    if tool not in cache:
        cache[tool] = store.get_tool(tool)
    return cache[tool]


def analyze_calls(store: Store, calls) -> int:
    """Analyse calls ({trace_id, call_id}) and save the results, and their part in problems, in one transaction."""
    contracts: dict = {}
    digests: dict = {}
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    results, groupings = [], {}
    for key, call in inputs.items():
        contract = _contract(store, call["tool"], contracts)
        analysis = analyze_call(call["snapshots"], contract)
        if call["tool"] not in digests:
            digests[call["tool"]] = contract_digest(contract)
        analysis["contract_digest"] = digest = digests[call["tool"]]
        results.append((*key, call["version"], analysis))
        arguments = call["snapshots"].get("arguments")
        groupings[key] = {"version": call["version"], "digest": digest,
                          "problems": call_problems(call["tool"], analysis),
                          "arguments": arguments["payload"] if arguments else None}
    return store.save_analyses(results, groupings, alerts.matches)


def analyze_pending(store: Store, limit: int = 200) -> int:
    """Analyse calls whose analysis is out of date; return how many were claimed."""
    claimed = store.claim_pending(limit)
    analyze_calls(store, claimed)
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
    trace_id = canonical_trace_id(trace_id)  # an upper-case W3C id pasted from a log finds its trace
    analyze_calls(store, store.pending_calls(trace_id))
    return store.get_trace(trace_id)


def load_folder(store: Store, folder: Path, redactor: Redactor | None):
    """Load the contracts and NDJSON traces of a folder such as sample_traces/; return the summary.

    A `story.json` beside the traces names state changes people made between files (resolve a
    problem before a later file), each at its own time, so the demo tells a problem's history.
    """
    from .bulk import IngestSummary, ingest_files
    from .contracts import import_contract_files

    import_contract_files(store, sorted((folder / "contracts").glob("*.json")))
    files = sorted(folder.glob("*.ndjson"))
    story = orjson.loads((folder / "story.json").read_bytes()) if (folder / "story.json").is_file() else []
    total, start = IngestSummary(), 0
    for step in [*story, None]:
        names = [f.name for f in files]
        stop = len(files) if step is None else names.index(step["before"])
        summary = ingest_files(store, [str(path) for path in files[start:stop]], redactor)
        total.accepted += summary.accepted
        total.duplicates += summary.duplicates
        total.rejected += summary.rejected
        catch_up(store)
        if step is not None:
            _story_step(store, step)
        start = stop
    return total


def _story_step(store: Store, step: dict) -> None:
    """Apply one state change of a folder's story to the problem it names (tool, kind, argument path)."""
    from .problems.states import parse_change
    from .store.problem_filters import ProblemQuery

    found, _ = store.find_problems(ProblemQuery(tool=step["tool"], kind=step["kind"], limit=500))
    for problem in found:
        if (problem["left"] or {}).get("path") == step["path"]:
            store.change_problem(int(problem["id"][3:]), parse_change(step["change"]), step["by"], at=step["at"])
