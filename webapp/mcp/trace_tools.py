"""search_traces and get_trace.

The trace list and one trace's calls, payloads cut to a stated budget (pure over a `Source`)."""

from urllib.parse import quote

from ..common.pointers import is_pointer, resolve
from .bounds import (
    ERRORS,
    FINDINGS,
    MAX_ANSWER_BYTES,
    VALUE_BYTES,
    cut_together,
    cut_value,
    first,
    fit,
    short,
    with_cuts,
)
from .cutting import size
from .schemas import DEFAULT_BUDGET
from .source import Source, SourceError, link

TRACE_FIELDS = (
    "first_seen",
    "last_seen",
    "tools",
    "sources",
    "calls",
    "worst",
    "kinds",
    "loud_kinds",
    "status_codes",
)
# calls answered per trace; `call_id` reaches any other
MAX_CALLS = 20
# a snapshot's method, URL, status and headers
HTTP_BYTES = 2_048
EXPAND = (
    'A payload cut to the budget holds {"tracediff_cut": {...}} markers; `cut` lists each place '
    "with its call_id, "
    "snapshot and pointer. Ask get_trace again with those three (and budget_bytes) for that "
    "subtree alone."
)


def search_traces(source: Source, args: dict) -> dict:
    """Return trace summaries, newest first, with permalinks."""
    params = {
        name: args.get(name)
        for name in ("tool", "kind", "severity", "release", "since", "until", "cursor")
    }
    page = source.get(
        "/api/v1/traces", {**params, "q": args.get("text"), "limit": args.get("limit", 20)}
    )
    rows = [
        {
            "trace_id": row["trace_id"],
            "permalink": link(source, "traces", row["trace_id"]),
            **_fields(row),
        }
        for row in page["traces"]
    ]
    answer = fit({"traces": rows, "next_cursor": page.get("next_cursor")}, "traces")
    if answer["left_out"]:
        # the page's cursor would skip what was left out: narrow the filters instead
        answer["next_cursor"] = None
    return answer


def _fields(row: dict) -> dict:
    return {name: row[name] for name in TRACE_FIELDS if name in row} | {
        "complete": bool(row.get("complete"))
    }


def get_trace(source: Source, args: dict) -> dict:
    """Return one trace's calls, or one subtree of a payload.

    Calls with snapshots cut to the budget, findings, validation."""
    trace = source.get(f"/api/v1/traces/{_segment(args['trace_id'])}")
    budget = args.get("budget_bytes", DEFAULT_BUDGET)
    calls = trace["calls"]
    if args.get("call_id") is not None:
        calls = [call for call in calls if call["call_id"] == args["call_id"]]
        if not calls:
            raise SourceError("call_not_found", f"no call {args['call_id'][:80]!r} in this trace")
    answer = {"trace_id": trace["trace_id"], "permalink": link(source, "traces", trace["trace_id"])}
    answer["budget_bytes"] = budget
    cuts: list[dict] = []
    if args.get("pointer") is not None:
        if args.get("call_id") is None or args.get("snapshot") is None:
            raise SourceError(
                "bad_parameter",
                "a pointer needs call_id and snapshot: whose payload it points into",
            )
        answer["subtree"] = _subtree(calls[0], args, budget, cuts)
    else:
        shown, answer["calls_total"] = first(calls, MAX_CALLS)
        answer["calls"] = _calls(source, trace["trace_id"], shown, budget, cuts)
        _trim(answer, budget + MAX_ANSWER_BYTES)
        cuts = [place for place in cuts if resolve(answer, place["at"], None) is not None]
    answer["expand"] = EXPAND
    return with_cuts(answer, cuts)


def _trim(answer: dict, limit: int) -> None:
    """Halve every call's findings and schema errors until the answer fits.

    Their totals stay said: many calls, each with many findings, would pass any byte bound at 50 a
    call."""
    while size(answer) > limit:
        lists = [call["findings"] for call in answer["calls"]]
        lists += [
            checked["errors"] for call in answer["calls"] for checked in call["validation"].values()
        ]
        longer = [items for items in lists if len(items) > 1]
        if not longer:
            return
        for items in longer:
            del items[len(items) // 2 :]


def _segment(text: str) -> str:
    return quote(text, safe="")


def _calls(
    source: Source, trace_id: str, calls: list[dict], budget: int, cuts: list[dict]
) -> list[dict]:
    """Return each call's answer.

    Their payloads cut together, so the budget is shared fairly among them."""
    payloads = {
        (index, name): snapshot.get("payload")
        for index, call in enumerate(calls)
        for name, snapshot in call["snapshots"].items()
        if snapshot is not None
    }
    kept, cut_in = cut_together(payloads, budget)
    for (index, name), places in cut_in.items():
        at, call_id = f"/calls/{index}/snapshots/{name}/payload", calls[index]["call_id"]
        cuts += [
            {**place, "at": at + place.pop("marker"), "call_id": call_id, "snapshot": name}
            for place in places
        ]
    return [_call(source, trace_id, index, call, kept, cuts) for index, call in enumerate(calls)]


def _call(
    source: Source, trace_id: str, index: int, call: dict, payloads: dict, cuts: list[dict]
) -> dict:
    at = f"/calls/{index}"
    snapshots = {}
    for name, snapshot in call["snapshots"].items():
        if snapshot is None:
            snapshots[name] = None
            continue
        http = cut_value(
            snapshot.get("http"),
            HTTP_BYTES,
            f"{at}/snapshots/{name}/http",
            cuts,
            call_id=call["call_id"],
        )
        snapshots[name] = {
            "payload": payloads[(index, name)],
            "http": http,
            "logged_as_string": bool(snapshot.get("logged_as_string")),
            "ts": snapshot.get("ts"),
        }
    findings, total = first(call.get("findings") or [], FINDINGS)
    return {
        "call_id": call["call_id"],
        "tool": call.get("tool"),
        "permalink": link(source, "traces", trace_id) + f"?call={_segment(call['call_id'])}",
        **{
            name: call.get(name)
            for name in ("source", "release", "status_code", "worst", "summary")
        },
        "analyzed": bool(call.get("analyzed")),
        "incomplete": call.get("incomplete"),
        # the stages that never came: no finding there means nothing was compared, not clean
        "missing": call.get("missing") or [],
        "problems": call.get("problems") or [],
        "snapshots": snapshots,
        "validation": validation(call.get("validation") or {}),
        "findings": [finding(f, f"{at}/findings/{n}", cuts) for n, f in enumerate(findings)],
        "findings_total": total,
    }


def _subtree(call: dict, args: dict, budget: int, cuts: list[dict]) -> dict:
    """Return the subtree of one snapshot's payload a JSON Pointer names.

    Cut to the budget."""
    name, pointer = args.get("snapshot"), args["pointer"]
    if not is_pointer(pointer):
        raise SourceError(
            "bad_parameter", f'pointer {pointer[:200]!r} is no JSON Pointer ("" or /key/0/...)'
        )
    snapshot = call["snapshots"].get(name)
    if snapshot is None:
        raise SourceError(
            "snapshot_not_found", f"call {call['call_id'][:80]!r} has no {name} snapshot"
        )
    missing = object()
    value = resolve(snapshot.get("payload"), pointer, missing)
    if value is missing:
        raise SourceError(
            "pointer_not_found", f"{pointer[:200]!r} names nothing in the {name} payload"
        )
    kept = cut_value(value, budget, "/subtree/value", cuts, call_id=call["call_id"], snapshot=name)
    for place in cuts:
        place["pointer"] = pointer + place["pointer"]
    return {"call_id": call["call_id"], "snapshot": name, "pointer": pointer, "value": kept}


def validation(checked: dict) -> dict:
    """Return each snapshot's validation with at most ERRORS errors, and their count."""
    out = {}
    for name, result in checked.items():
        errors, total = first((result or {}).get("errors") or [], ERRORS)
        errors = [{**error, "message": short(error.get("message"), 500)} for error in errors]
        out[name] = {**(result or {}), "errors": errors, "errors_total": total}
    return out


def finding(found: dict, at: str, cuts: list[dict]) -> dict:
    """Return one finding with its values and message cut.

    Values to VALUE_BYTES each, the message to a few lines."""
    out = {**found, "message": short(found.get("message"), 1000)}
    for side in ("left_value", "right_value"):
        if side in found:
            out[side] = cut_value(found[side], VALUE_BYTES, f"{at}/{side}", cuts)
    if "examples" in found:
        out["examples"] = cut_value(found["examples"], VALUE_BYTES * 3, f"{at}/examples", cuts)
    return out
