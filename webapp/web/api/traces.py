"""The traces API under /api/v1.

The list, one trace, its findings, snapshot versions and the finding kinds."""

import re

from flask import Blueprint, current_app, jsonify, request

from ... import pipeline
from ...analysis import FINDING_KINDS, occurrences
from ...common.digits import is_digits
from ...common.stages import NAMES, spelt
from ...ingest.envelope import canonical_trace_id
from ...problems.grouping import link_problems
from ..db import get_store
from ..errors import ApiError
from ..filters import ListQuery, bad_trace_filter, decode_cursor, encode_cursor, trace_query

bp = Blueprint("api", __name__)


@bp.get("/api/v1/traces")
def list_traces():
    """List traces newest first, filtered, with a keyset cursor."""
    query, cursor = strict_query(request.args)
    traces, next_cursor = get_store().find_traces(query.filters(), cursor)
    return jsonify(traces=traces, next_cursor=encode_cursor(next_cursor))


def strict_query(args) -> tuple[ListQuery, tuple | None]:
    """Return the list query and cursor of args.

    A value the list cannot use is a 400."""
    problem = bad_trace_filter(args, [kind for kind, _ in FINDING_KINDS])
    if problem:
        raise ApiError(400, "bad_parameter", problem)
    try:
        return trace_query(args), decode_cursor(args.get("cursor"))
    except ValueError as error:
        raise ApiError(400, "bad_cursor", str(error)) from error


@bp.get("/api/v1/traces/<path:trace_id>")
def get_trace(trace_id):
    """Return one trace with its snapshots, validation and findings."""
    trace = pipeline.fresh_trace(get_store(), trace_id, current_app.config.get("ANALYSIS_BUDGET"))
    if trace is None:
        # the versions route of a call whose id is empty (`/calls//arguments/versions`) or whose
        # snapshot part no route matched lands here
        if VERSIONS_TAIL.search(trace_id):
            return _versions_of(trace_id)
        raise ApiError(404, "trace_not_found", f"no trace with id {trace_id!r}")
    return jsonify(link_problems(trace, get_store().problem_ids))


@bp.get("/api/v1/traces/<path:trace_id>/findings")
def list_findings(trace_id):
    """Page through one call's findings, or one folded finding's places.

    With `finding=N` through every place of its N-th (folded) finding."""
    offset, limit = _page_parameter("offset", 0, 0, None), _page_parameter("limit", 100, 1, 1000)
    trace = pipeline.fresh_trace(get_store(), trace_id, current_app.config.get("ANALYSIS_BUDGET"))
    if trace is None:
        # a trace whose own id ends in /findings (ids are any printable text) has no shorter twin
        try:
            return get_trace(f"{trace_id}/findings")
        except ApiError:
            raise ApiError(404, "trace_not_found", f"no trace with id {trace_id!r}") from None
    call_id = request.args.get("call", trace["calls"][0]["call_id"])
    call = next((c for c in trace["calls"] if c["call_id"] == call_id), None)
    if call is None:
        raise ApiError(404, "call_not_found", f"no call {call_id!r} in trace {trace['trace_id']!r}")
    page = {
        "trace_id": trace["trace_id"],
        "call_id": call_id,
        "offset": offset,
        "limit": limit,
        "analyzed": call["analyzed"],
        "incomplete": call.get("incomplete"),
    }
    if request.args.get("finding") is None:
        items = call["findings"]
        page["findings"] = items[offset : offset + limit]
    else:
        number = _page_parameter("finding", 1, 1, None)
        if number > len(call["findings"]):
            raise ApiError(404, "finding_not_found", f"call {call_id!r} has no finding {number}")
        found = call["findings"][number - 1]
        items = (
            (get_store().call_analysis(trace["trace_id"], call_id) or {}).get("places") or {}
        ).get(str(number - 1)) or [None]
        docs = {name: (snap or {}).get("payload") for name, snap in call["snapshots"].items()}
        page["finding"] = found
        page["occurrences"] = occurrences(
            found, [] if items == [None] else items, docs, offset, limit
        )
    page["total"] = len(items)
    page["next_offset"] = offset + limit if offset + limit < len(items) else None
    return jsonify(page)


def _page_parameter(name: str, default: int, lowest: int, highest: int | None) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not is_digits(raw) or int(raw) < lowest or (highest is not None and int(raw) > highest):
        bounds = f"{lowest}-{highest}" if highest is not None else f"{lowest} or more"
        raise ApiError(400, "bad_parameter", f"{name} must be a whole number {bounds}, not {raw!r}")
    return int(raw)


@bp.get("/api/v1/traces/<path:trace_id>/calls/<path:call_id>/<snapshot>/versions")
def snapshot_versions(trace_id, call_id, snapshot):
    """Return every version of one snapshot, newest first."""
    return _versions_of(f"{trace_id}/calls/{call_id}/{snapshot}/versions")


# `<trace id>/calls/<call id>/<snapshot>/versions`, either id holding `/` and the call's maybe empty
VERSIONS_TAIL = re.compile(r"/calls/.*/([^/]*)/versions$", re.S)
CALLS = "/calls/"


def _versions_of(address: str):
    """Answer the versions of the snapshot a versions address names.

    Ids may hold `/` (even `/calls/`): each split of the address at a `/calls/` is tried in turn,
    the first naming a snapshot with versions answers."""
    snapshot = VERSIONS_TAIL.search(address).group(1)
    # a name no snapshot has is the caller's mistake, as a list's unknown snapshot filter is
    if snapshot not in NAMES:
        raise ApiError(400, "bad_parameter", f"snapshot must be {spelt()}, got {snapshot[:40]!r}")
    ids = address[: -len(f"/{snapshot}/versions")]
    splits = [
        (ids[:at], ids[at + len(CALLS) :])
        for at in range(len(ids))
        if ids.startswith(CALLS, at) and at > 0
    ]
    for trace_id, call_id in splits:
        versions = get_store().snapshot_versions(canonical_trace_id(trace_id), call_id, snapshot)
        if versions:
            return jsonify(versions=versions)
    call_id = splits[0][1] if splits else ""
    raise ApiError(404, "snapshot_not_found", f"no {snapshot!r} snapshot for call {call_id!r}")


@bp.get("/api/v1/finding-kinds")
def finding_kinds():
    return jsonify(kinds=[{"kind": kind, "description": text} for kind, text in FINDING_KINDS])
