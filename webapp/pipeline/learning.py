"""What a tool's calls teach: evidence, path counts, releases, the mapping.

A tool's learning runs as its one learner, in one transaction (store.learning): it counts each
call against the tool's state as read in it, writes, infers, and compares what the tool's verdicts
read before and after. When that changed, its newest calls are queued again in the same
transaction. So the same calls leave the same state and the same findings, whatever the batches,
their order and the workers that learnt them.
"""

from typing import NamedTuple
from urllib.parse import urlsplit

from ..analysis import external, template_of, unread_parts
from ..common.jsontext import paused_collector
from ..inference import leaves, observe
from ..inference.epochs import established, folded, presence_of, release_state
from ..inference.error_fields import SIDE as ERROR_SIDE
from ..inference.error_fields import error_presence
from ..inference.evidence import merge
from ..inference.item_keys import item_counts
from ..inference.leaves import (
    in_several_items,
    item_leaves,
    item_values,
    item_views,
    plucked,
)
from ..inference.relations import reached_nowhere
from ..inference.segments import segment_texts
from ..inference.way_back import way_back_presence
from ..store.mappings import AWAITING, LEARNT, MAX_PAIRS_PER_TOOL, RETURNING, UNLEARNT
from .contracts import ToolReads, analysis_contract, tool_reads
from .history import tool_history
from .mappings import external_leaves, read_request, update_inference


def learn(
    store,
    inputs: dict,
    dropped: dict | None = None,
    paired: dict | None = None,
    requests: dict | None = None,
    words: dict | None = None,
) -> None:
    """Count the evidence of calls not learnt from yet ({(trace_id, call_id): inputs}).

    Update inference.

    `dropped` ({key: argument pointers}) says what each call's analysis found in no request,
    `paired` ({key: pairs}) which argument it paired with a request field holding another value;
    `requests` ({key: (URL template, request document)}) the documents read already; `words`
    ({key: changes}) the answer's values each handed over as another (webapp/inference/way_back.py).
    """
    complete = {
        key: call
        for key, call in inputs.items()
        if call["tool"] and call["snapshots"].get("arguments") and call["snapshots"].get("request")
    }
    # read before the lock: most calls analysed again were learnt whole long ago
    unlearnt = store.unlearnt(list(complete)) if complete else {}
    by_tool: dict = {}
    for key, call in complete.items():
        if _to_learn(unlearnt.get(key, LEARNT), call):
            by_tool.setdefault(call["tool"], {})[key] = call
    for tool, calls in by_tool.items():
        _learn_tool(store, tool, calls, (dropped or {}, paired or {}, requests or {}, words or {}))


def judged_by(store, tool: str, read: ToolReads | None = None) -> tuple:
    """Return what a tool's verdicts read of its learnt state.

    The contract its calls are analysed under (inferred pairs, their relations, separators,
    consumed arguments) and its history (webapp/pipeline/history.py). Both from one read of the
    state (`read` when given: read in the same transaction)."""
    read = read or tool_reads(store, tool)
    return analysis_contract(store, tool, read), tool_history(store, tool, read)


class _State(NamedTuple):
    """What a tool's learning counts its calls against."""

    # {key: calls.observed} of the calls it has something to learn from
    unlearnt: dict
    releases: dict
    evidence: dict
    paths: dict
    template: object
    # the contract stored, as read with the rest (`judged_by` reads it too)
    stored: object


def _state(store, tool: str, calls: dict, conn=None) -> _State:
    """Read a tool's learnt state, and which of these calls it has yet to learn."""
    found = store.unlearnt_in(conn, list(calls)) if conn else store.unlearnt(list(calls))
    read = tool_reads(store, tool)
    return _State(
        {key: observed for key, observed in found.items() if _to_learn(observed, calls[key])},
        read.releases,
        read.evidence,
        read.paths,
        template_of(read.stored),
        read.stored,
    )


def _reads(state: _State) -> ToolReads:
    """Return the reads a state was made of, for `judged_by`."""
    return ToolReads(state.releases, state.evidence, state.paths, state.stored)


def _learn_tool(store, tool: str, calls: dict, read: tuple) -> None:
    """Learn a tool's calls as its one learner.

    Counted outside the tool's `learning` transaction (the long part), against the state it
    reads; in it, the state is read again, and counted against again only when another learner
    changed it meanwhile. `read` is what their analysis read: learn's `dropped`, `paired`,
    `requests`, `words`."""
    outside = _state(store, tool, calls)
    counted = _counted(outside, calls, read) if outside.unlearnt else None
    with store.learning(tool) as conn:
        state = _state(store, tool, calls, conn)
        if not state.unlearnt:
            return
        if state != outside:
            counted = _counted(state, calls, read)
        # the state read in this transaction is what the verdicts read before it writes
        before, errors = judged_by(store, tool, _reads(state)), _errors(store, tool)
        per_call, paths, learnt, releases = counted
        store.add_evidence_in(
            conn, tool, per_call, paths=paths, releases=releases, fold=folded, learnt=learnt
        )
        if not update_inference(store, tool, conn) and judged_by(store, tool) != before:
            # what the tool's verdicts read changed (a newer release came, an older one's calls
            # came late, a relation or a place settled): its newest calls are judged again
            store.reanalyse_recent_in(conn, tool)
        _join_services(store, conn, tool, paths, errors)


def _errors(store, tool: str) -> dict:
    """Return what a tool's earlier error answers teach its service: their counts."""
    return {k: established(c) for k, c in store.side_counts(tool, ERROR_SIDE).items()}


def _join_services(store, conn, tool: str, paths: dict, errors: dict) -> None:
    """Note a tool's services; queue their other tools when it taught them.

    The services are the hosts its calls went to. Each tool of a service judges its error answers
    by what every tool's earlier ones carried where its own are too few
    (webapp/pipeline/history.py): when this tool's earlier error answers changed, the others'
    newest calls are judged again."""
    hosts = sorted({path for counts in paths.values() for side, path in counts if side == "host"})
    for host in hosts:
        store.add_service_tool_in(conn, host, tool)
    if _errors(store, tool) == errors:
        return
    known = {host for _, host in store.side_counts(tool, "host")}
    for other in sorted({t for host in known for t in store.service_tools(host)} - {tool}):
        store.reanalyse_recent_in(conn, other)


def _once(counts: dict) -> dict:
    """Return a call's counts of one pair, each at most 1 (the call showed it, or not)."""
    return {name: min(n, 1) for name, n in counts.items()}


def _host(request: dict) -> str | None:
    """Return the host a request went to, lower-cased; None without a URL."""
    url = (request.get("http") or {}).get("url")
    if not isinstance(url, str):
        return None
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _counted(state: _State, calls: dict, read: tuple) -> tuple:
    """Count a tool's calls against its state.

    A call's arguments and request once; its answer when it has come (an error's fields).
    Return (pair counts, path counts, `observed` each call gets, release state after them)."""
    dropped, paired, requests, words = read
    # oldest first, as the calls were made (the key orders calls of one time, whatever the batch)
    items = sorted(((_when(calls[key]["snapshots"]), key) for key in state.unlearnt), key=_made)
    releases = release_state(state.releases, [when for when, _ in items])
    # copies: the state read stays as read, to compare with the one read under the lock
    known = {pair: dict(counts) for pair, counts in state.evidence.items()}
    presence = {path: dict(counts) for path, counts in state.paths.items()}
    if releases.get("newest") != state.releases.get("newest"):
        presence = {k: folded(c) for k, c in presence.items()}
    per_call, paths, learnt = {}, {}, {}
    for (_, release), key in items:
        snaps = calls[key]["snapshots"]
        newest = bool(release) and release == releases.get("newest")
        answered, returned = bool(snaps.get("response")), bool(snaps.get("result"))
        learnt[key] = LEARNT if answered and returned else RETURNING if answered else AWAITING
        # its answer's error fields once, and the words its answer was handed over in once both
        # came: a call learnt before they came is learnt again for them
        paths[key] = (
            error_presence(snaps.get("response"), newest)
            if state.unlearnt[key] != RETURNING
            else {}
        )
        if answered and returned:
            paths[key].update(way_back_presence(words.get(key, ()), newest, presence))
        per_call[key] = {}
        if state.unlearnt[key] == UNLEARNT:
            document = read_request(snaps, state.template, requests.get(key))
            # a big call's leaves are many small acyclic tuples: no collector passes over them
            with paused_collector():
                payload = snaps["arguments"]["payload"]
                # a list of objects through one field of its items counts as a list of values
                arguments = {**leaves(payload), **plucked(payload)}
                request = external_leaves(leaves(document, wrapped=True))
                per_call[key] = _observed(
                    arguments, request, known, presence, newest, paired.get(key)
                )
                # the leaves of lists' items, paired item by item
                views = item_views(
                    item_values(snaps["arguments"]["payload"]),
                    external_leaves(item_values(document)),
                )
                by_item: dict = {}
                for items, sent_items in views:
                    merge(by_item, _observed(items, sent_items, known, presence, newest, None))
                # a call counts once for its items' pairs, however many items it sent: one call
                # of 30 items is no history of 30 calls (it taught pairs, and was analysed twice)
                merge(per_call[key], {pair: _once(counts) for pair, counts in by_item.items()})
                # the leaves of lists' items are counted under their starred paths too
                listed = item_leaves(snaps["arguments"]["payload"])
                sent = set(external_leaves(dict.fromkeys(item_leaves(document))))
                several = in_several_items(payload)
                # the URL's word segments and the secret headers: no argument's, compared by
                # history alone
                unread = unread_parts(snaps.get("request"), document)
                paths[key].update(
                    presence_of(
                        [*arguments, *listed],
                        [*request, *sent, *unread],
                        newest,
                        dropped.get(key, ()),
                        several,
                        _reached_nowhere(payload, document) if several else (),
                    )
                )
                # how many of each list's items held each of their leaves (item_keys.py)
                merge(paths[key], item_counts(document, newest, sent, external))
                # the text each URL path segment and field held (segments.py)
                merge(paths[key], segment_texts({**request, **unread}, newest))
            host = _host(snaps["request"])
            if host:
                # the service its requests go to (webapp/pipeline/history.py pools its errors)
                paths[key][("host", host)] = {"calls": 1}
        merge(presence, paths[key])
    return per_call, paths, learnt, releases


def _reached_nowhere(payload, document) -> set[str]:
    """Return the item leaves one of whose values no request value relates to.

    Whatever the call's analysis paired: read from the values, the same in any batch."""
    sent = [*leaves(document, wrapped=True).values(), *item_values(document).values()]
    return reached_nowhere(item_values(payload), sent)


def _observed(arguments: dict, request: dict, known: dict, presence: dict, newest, paired) -> dict:
    """Return one call's pair counts, and add them to `known`.

    So the next call of the batch is counted as if it came alone, after this one."""
    counts = observe(
        arguments, request, known, MAX_PAIRS_PER_TOOL - len(known), presence, newest, paired or ()
    )
    merge(known, counts)
    return counts


def _to_learn(observed: int, call: dict) -> bool:
    """Tell whether a call has something to teach.

    All of it, the answer it waited for, or the result handed back."""
    snaps = call["snapshots"]
    return (
        observed == UNLEARNT
        or (observed == AWAITING and bool(snaps.get("response")))
        or (observed == RETURNING and bool(snaps.get("result")))
    )


def _made(item: tuple) -> tuple:
    (ts, _), key = item
    return ts, key


def _when(snaps: dict) -> tuple:
    """Return (ts, release) of a call.

    The time that orders it and the release it came from."""
    mine = [s for s in (snaps.get("request"), snaps.get("arguments")) if s]
    return (
        min(s.get("ts") or "" for s in mine),
        next((s.get("release") for s in mine if s.get("release")), None),
    )
