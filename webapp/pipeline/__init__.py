"""The one way data moves.

Parsed events -> redaction -> store -> analysis -> store.

The HTTP endpoints, the CLI and the background analyser all call these functions.
"""

import dataclasses
import logging
import time
from collections.abc import Callable

from ..analysis import analyze_call, wall_clock
from ..common import jsontext
from ..inference import hint_renames
from ..inference.way_back import way_back_changes
from ..ingest import Batch, Event
from ..ingest.envelope import canonical_trace_id
from ..ingest.model import RAW_CUT, Rejection
from ..problems.grouping import call_documents, call_problems, contract_digest
from ..redaction.redactor import Redactor
from ..store import IngestResult, Store, StoreUnavailable
from ..store.codec import utc_now
from .aside import BATCH_FAILED, each_alone, whole_or_each
from .contracts import analysis_contract, tool_reads
from .definitions import learn_definitions
from .history import judged_by_history, tool_history
from .learning import learn
from .observed import Observer, with_drift
from .rules import RULES
from .telling import tell, tell_each_rule

log = logging.getLogger(__name__)
# a rejection alert counts the records rejected in the last ten minutes
REJECTION_WINDOW_S = 600
CONTROLS = {code: f"\\x{code:02x}" for code in range(32) if chr(code) not in "\t\n\r"}


def preparer(redactor: Redactor | None) -> Callable[[Event], Event]:
    """Return what readies one parsed event for the store as soon as it is made.

    Redacted, then its payload and meta written as the JSON text the store keeps (a fraction of
    their parsed size).

    Batches parsed with it are stored with `store_batch(..., prepared=True)`."""

    def prepare(event: Event) -> Event:
        text = None
        if redactor:
            # a clean event's payload text is the one its scan read: written once
            event, text = redactor.event_and_payload_text(event)
        # as str: orjson's bytes keep a large spare capacity (128 KiB for a 6 KB payload)
        try:
            text = jsontext.dumps(event.payload) if text is None else text
            event.payload = jsontext.Fragment(text.decode())
            if event.meta:
                event.meta = jsontext.Fragment(jsontext.dumps(event.meta).decode())
        # what orjson cannot write: left for the store to write
        except TypeError:
            pass
        return event

    return prepare


def store_batch(
    store: Store, batch: Batch, redactor: Redactor | None, source: str = "", prepared: bool = False
) -> IngestResult:
    """Redact a parsed batch (quarantined text too) and commit it.

    Return what was accepted.

    `source` says who sent the batch; its rejected records are quarantined under that name.
    `prepared`: the events went through `preparer(redactor)` already."""
    # a User-Agent may carry a token too
    clean = redactor.value if redactor else (lambda text: text)
    source = clean(source[:200])
    rejected = [
        dataclasses.replace(
            r,
            raw=redactor.text(r.raw) if redactor else r.raw,
            source=clean(r.source[:200]) if r.source else source,
        )
        for r in batch.rejected
    ]
    events = batch.events
    if redactor and not prepared:
        # in place: each original goes as its redacted copy comes
        for i, event in enumerate(events):
            events[i] = redactor.event(event)
    result = store.add_events(
        events, rejected, also=_rejection_alerts(store, rejected, source) if rejected else None
    )
    if batch.tool_definitions:
        learn_definitions(store, batch.tool_definitions)
    return result


def refuse_body(
    store: Store, raw: bytes, code: str, message: str, redactor: Redactor | None, source: str = ""
) -> Rejection | None:
    """Quarantine the start of a body refused whole, as one rejected record.

    Not JSON at all, a broken gzip...

    It counts and alerts as any rejection does; bytes that are not UTF-8, and control characters (a
    text column cannot hold NUL on every engine), are kept as \\x escapes.
    A database that cannot take it changes nothing of the refusal's answer."""
    text = raw[:RAW_CUT].decode("utf-8", "backslashreplace").translate(CONTROLS)[:RAW_CUT]
    if len(raw) > RAW_CUT:
        text += f"… ({len(raw)} bytes in all)"
    rejection = Rejection(index=0, code=code, message=message, raw=text)
    try:
        store_batch(store, Batch(rejected=[rejection]), redactor, source)
    except StoreUnavailable:
        return None
    return rejection


def _rejection_alerts(store: Store, rejected, source: str):
    """Return what writes the `rejected_events` alerts of a batch.

    In the batch's own transaction."""

    def write(conn):
        by_source = store.rejected_by_source(conn, utc_now(hours_ago=REJECTION_WINDOW_S / 3600))
        data = {
            "count": sum(each["count"] for each in by_source),
            "sources": by_source[:20],
            "window_s": REJECTION_WINDOW_S,
            "source": source[:200] or None,
            "code": rejected[0].code,
            "message": rejected[0].message,
            "permalink_path": "/quarantine",
        }
        tell_each_rule(store, conn, "rejected_events", "ingest", data)

    return write


def _contract(store: Store, tool: str | None, cache: dict, reads: dict):
    """Return a tool's contract with its inferred pairs added to `mapping`.

    As mapping entries, read once per batch (from the tool's `reads`, which its history shares)."""
    if tool not in cache:
        cache[tool] = analysis_contract(store, tool, _reads(store, tool, reads))
    return cache[tool]


def _reads(store: Store, tool: str | None, reads: dict):
    """Return a tool's learnt state, read once per batch (None without a tool)."""
    if tool and tool not in reads:
        reads[tool] = tool_reads(store, tool)
    return reads.get(tool)


def analyze_one(call: dict, contract, budget: float | None = None) -> dict:
    """Analyse one call's inputs within `budget` seconds of CPU.

    Dropped fields that look like a missed rename get a hint."""
    analysis = analyze_call(call["snapshots"], contract, budget=budget)
    hint_renames(analysis.get("findings", []), call["tool"])
    return analysis


def analyze_calls(
    store: Store, calls, budget: float | None = None, seconds: float | None = None
) -> int:
    """Analyse calls and save them in one transaction; return how many saved.

    Calls as {trace_id, call_id}, each within `budget`; the results and their part in problems are
    saved together, and mappings learnt from them.

    With `seconds`, the batch stops after that much work (one call at least) and saves what it
    did: the calls it did not reach are released for the next batch, so that its transaction
    stays short."""
    return _analyzed(store, calls, budget, seconds).save()


def _analyzed(store: Store, calls, budget: float | None, seconds: float | None) -> "_Batch":
    """Return a batch of calls analysed (within `seconds` of work, when given).

    Ready to save. Work is this thread's CPU time: on a busy machine the clock on the wall runs
    several times faster, and batches cut by it shrank to a few calls, each paying the batch's fixed
    cost."""
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    batch = _Batch(store, inputs)
    began, reached = time.thread_time(), {}
    for key, call in _in_time_order(inputs):
        if seconds is not None and reached and time.thread_time() - began > seconds:
            break
        # A call's analysis and observed shape build acyclic dicts: the cyclic collector's passes
        # over a big call's payloads cost more than they free, and run once the call is done.
        with jsontext.paused_collector():
            batch.add(key, call, analyze_one(call, batch.contract(call["tool"]), budget))
        reached[key] = call
    # learnt before saving: when this batch's evidence changes the tool's inferred mapping, its
    # calls are queued again (the save then keeps none of them) and analysed under the new one
    # before any problem is told
    learn(store, reached, batch.dropped, batch.changed, batch.requests, batch.words)
    batch.left = [key for key in inputs if key not in reached]
    return batch


def _in_time_order(inputs: dict):
    """Return a batch's (key, call) items oldest first.

    The order their shapes learn them in."""
    return sorted(inputs.items(), key=lambda item: _first_ts(item[1]))


def _first_ts(call: dict) -> str:
    return min((s.get("ts") or "" for s in call["snapshots"].values() if s), default="")


def dropped_arguments(analysis: dict) -> set[str]:
    """Return the argument pointers an analysis found in no request.

    Dropped, consumed included."""
    return {
        f["left"]["path"]
        for f in analysis.get("findings") or ()
        if f["kind"] == "dropped" and f.get("left") and f["left"]["snapshot"] == "arguments"
    }


def changed_pairs(analysis: dict) -> set[tuple[str, str]]:
    """Return the (argument, request field) pairs found holding a changed value.

    Found by an analysis."""
    return {
        (f["left"]["path"], f["right"]["path"])
        for f in analysis.get("findings") or ()
        if f["kind"] == "value_changed"
        and f.get("left")
        and f.get("right")
        and f["left"]["snapshot"] == "arguments"
        and f["right"]["snapshot"] == "request"
    }


class _Batch:
    """Analyses on their way to the store.

    Each with its part in problems, its contract's digest and its drift from the shapes its tool's
    traffic showed."""

    def __init__(self, store: Store, inputs: dict):
        self.store, self.contracts, self.digests, self.histories = store, {}, {}, {}
        # {tool: its learnt state as read once (ToolReads)}: its contract and history share it
        self.reads: dict = {}
        self.results, self.groupings, self.left = [], {}, []
        # {key: argument pointers its analysis found in no request}, for inference
        self.dropped: dict = {}
        # {key: (argument, request) pairs its analysis found holding another value}, for inference
        self.changed: dict = {}
        # {key: (URL template, request document)} as grouping read it: inference reads it again
        self.requests: dict = {}
        # {key: the words its answer was handed over in (webapp/inference/way_back.py)}
        self.words: dict = {}
        self.observer = Observer(store, inputs)

    def contract(self, tool):
        return _contract(self.store, tool, self.contracts, self.reads)

    def add(self, key, call, analysis) -> None:
        tool = call["tool"]
        # the digest of the very contract the batch analysed with
        if tool not in self.digests:
            self.digests[tool] = contract_digest(self.contract(tool))
        analysis["contract_digest"] = digest = self.digests[tool]
        if tool not in self.histories:
            self.histories[tool] = tool_history(
                self.store, tool, _reads(self.store, tool, self.reads)
            )
        judged_by_history(analysis, call, self.histories[tool])
        self.dropped[key] = dropped_arguments(analysis)
        self.changed[key] = changed_pairs(analysis)
        self.words[key] = way_back_changes(analysis.get("findings"))
        with_drift(analysis, self.observer.drift(key, call, analysis), self.contract(tool))
        self.results.append((*key, call["version"], analysis))
        arguments = call["snapshots"].get("arguments")
        template = analysis.get("request_template") or call.get("request_template")
        docs = call_documents(call, template)
        self.requests[key] = (template, docs.get("request"))
        self.groupings[key] = {
            "version": call["version"],
            "digest": digest,
            "problems": call_problems(tool, analysis, docs),
            "arguments": arguments["payload"] if arguments else None,
        }

    def save(self) -> int:
        store = self.store
        return store.save_analyses(
            self.results,
            self.groupings,
            RULES,
            lambda conn, grouped: tell(store, conn, grouped),
            also=self.also,
        )

    def also(self, conn) -> None:
        """Write the shapes learnt and release the claims the batch did not reach.

        In its transaction."""
        self.observer.write(conn)
        if self.left:
            self.store.release_claims_in(conn, self.left)


def analyze_pending(
    store: Store,
    limit: int = 200,
    budget: float | None = None,
    seconds: float | None = None,
    projecting: float | None = None,
) -> int:
    """Analyse calls whose analysis is out of date.

    For about `seconds` of work when given (see analyze_calls), after projecting new events for
    about `projecting` seconds (None: all of them); return how many were claimed and not
    released."""
    claimed = store.claim_pending(limit, projecting=projecting)
    # The cyclic collector stays on: paused for the batch, it saved ~10% of the CPU a call, but
    # its pass after a batch of wide calls stalled the worker's threads long enough that a small
    # ingest post waited 4.5 s (tests/test_analyser_yields.py, issue 36)
    try:
        batch = _analyzed(store, claimed, budget, seconds)
        batch.save()
    except StoreUnavailable:
        raise
    # retried call by call, a call that fails alone is set aside (aside.py)
    except Exception:
        log.exception(BATCH_FAILED, len(claimed))
        return each_alone(store, claimed, lambda calls: analyze_calls(store, calls, budget))
    return len(claimed) - len(batch.left)


def analyze_all(store: Store, budget: float | None = None) -> int:
    """Analyse every out-of-date call, batch after batch; return the total."""
    total = 0
    while count := analyze_pending(store, budget=budget):
        total += count
    return total


def catch_up(store: Store, budget: float | None = None) -> int:
    """Project new events and analyse every out-of-date call.

    Return the calls analysed."""
    store.project_all()
    return analyze_all(store, budget)


def patiently(step: Callable, tries: int = 5):
    """Run a command's step, again after a pause while the database is locked.

    Locked past its busy timeout (a running server's analyser holds the rows): a batch that failed
    changed nothing, its calls stay pending."""
    for attempt in range(tries):
        try:
            return step()
        except StoreUnavailable:
            if attempt == tries - 1:
                raise
            time.sleep(1 + attempt)


def fresh_trace(store: Store, trace_id: str, budget: float | None = None) -> dict | None:
    """Return a trace after analysing the calls of it that are out of date.

    Within `budget` seconds in all.

    A read never analyses past the budget: a call the time left cannot finish stays pending for
    the background analyser (the page and the API say "analysis pending")."""
    # an upper-case W3C id pasted from a log finds its trace
    trace_id = canonical_trace_id(trace_id)
    # a batch whose evidence changed its tool's learnt mapping is queued again whole: a second pass
    # analyses it under the new mapping, so a first read does not show it pending for that alone
    for _ in range(2):
        pending = store.pending_calls(trace_id)
        if not pending:
            break
        _analyze_for_read(store, pending, budget)
    # pending_calls caught up already: a second wait would only delay the read under load
    return store.get_trace(trace_id, catch_up=False)


def _analyze_for_read(store: Store, calls, budget: float | None) -> None:
    """Analyse for a read what the database can take.

    On a full or read-only disk the calls stay pending and the read is answered without them (a
    reader is not refused for a write it did not ask for). A call whose analysis fails alone is
    set aside, as the analyser does (aside.py), and read as such."""
    try:
        whole_or_each(store, calls, lambda some: _analyze_within(store, some, budget))
    except StoreUnavailable:
        pass


def _analyze_within(store: Store, calls, budget: float | None) -> int:
    """Analyse calls on a request thread within `budget` seconds in all.

    Seconds of the clock on the wall.

    A read never waits long for an analysis: what the budget cannot finish, or finishes incomplete,
    is not saved and stays pending for the background analyser, which has a budget of its own."""
    if not budget or budget <= 0:
        return analyze_calls(store, calls)
    inputs = store.calls_inputs([(c["trace_id"], c["call_id"]) for c in calls])
    batch, reached = _Batch(store, inputs), {}
    began = time.monotonic()
    with wall_clock():
        for key, call in _in_time_order(inputs):
            left = budget - (time.monotonic() - began)
            if left <= 0:
                break
            result = analyze_one(call, batch.contract(call["tool"]), left)
            if not result.get("incomplete"):
                batch.add(key, call, result)
                reached[key] = call
    # a call a read analysed first teaches as one the analyser did: saved, it is never pending again
    learn(store, reached, batch.dropped, batch.changed, batch.requests, batch.words)
    return batch.save()


def fresh_list(store: Store, trace_ids, limit: int = 100, budget: float | None = None) -> bool:
    """Analyse the out-of-date calls of listed traces (at most `limit`).

    So a list shows the severities a trace page would; say whether any call was analysed."""
    pending = store.pending_calls_of(trace_ids, limit)
    if pending:
        _analyze_for_read(store, pending, budget)
    return bool(pending)
