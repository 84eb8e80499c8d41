"""The hypermedia pages.

The trace list (what it shows is built in trace_list.py), the trace permalink, its exports, and
compare."""

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    url_for,
)

from ... import pipeline
from ...common.digits import is_digits
from ...common.pointers import MISSING, resolve
from ...common.stages import shown, spelt
from ...problems.grouping import link_problems
from ...reports import exports
from ...store import stats, values
from ...store.codec import paused_collector
from ...store.filters import SEVERITIES, SNAPSHOTS, STATUS_CLASSES
from ...store.listing import SEARCH_CAP
from ..api.traces import strict_query
from ..db import get_store
from ..errors import ApiError
from ..filters import trace_query
from ..render import aligned, ends, tracepage
from ..render.compare import compare_calls
from ..render.pages import page_or_fragment
from ..render.tree import children_tokens, parse_node_id
from ..security import may_change_contracts
from .trace_list import counts_context, facet_counts, list_context

bp = Blueprint("views", __name__)
VIEWS = ("aligned", "raw")
# on the page; the rest through the paged API, so the page stays small
SHOWN_FINDINGS = 200


@bp.get("/")
def index():
    """List traces newest first, filtered, with counts and the hourly strip.

    Filtered by the query string.

    On a big store the counts and the strip arrive out of band (`part=counts`, fetched by htmx on
    load, or followed as a plain link without JavaScript), so the rows never wait for them.
    """
    part = request.args.get("part") == "counts"
    if part and request.headers.get("HX-Request"):
        query = trace_query(request.args)
        return page_or_fragment(
            "index.html", "partials/facets.html", query=query, **counts_context(query, True)
        )
    context = list_context()
    if context["cursor"] and request.headers.get("HX-Request"):
        # "Load more" appends rows after the last one; everything else replaces the list region.
        return page_or_fragment("index.html", "partials/trace_rows.html", **context)
    store = get_store()
    return page_or_fragment(
        "index.html",
        "partials/list.html",
        **context,
        **counts_context(context["query"], part),
        tool_names=values.recent_tools(store),
        kind_names=stats.kind_names(store),
        severities=SEVERITIES,
        status_classes=STATUS_CLASSES,
        snapshot_names=SNAPSHOTS,
    )


@bp.get("/index.json")
def index_json():
    """Return the list page's data.

    Traces, next cursor and counts per filter value.

    Counts stop at count_cap + 1; on a big store they come only with `part=counts`, and
    `counts_url` says where (the same rule as the page).
    """
    # a script gets a 400 for a filter or cursor the page would ignore
    strict_query(request.args)
    context = list_context()
    counts = facet_counts(context["query"], request.args.get("part") == "counts")
    counts_url = (
        url_for("views.index_json", **context["query"].as_args(), part="counts")
        if counts is None
        else None
    )
    return jsonify(
        traces=context["traces"],
        next_cursor=context["next_cursor"],
        counts=counts,
        count_cap=stats.COUNT_CAP,
        counts_url=counts_url,
        search_capped=context["search_capped"],
        search_cap=SEARCH_CAP,
    )


def _trace_or_404(trace_id: str) -> dict:
    found = _trace_or_none(trace_id)
    if found is None:
        abort(404, description=f"no trace with id {trace_id}")
    return found


def _trace_or_none(trace_id: str) -> dict | None:
    found = pipeline.fresh_trace(get_store(), trace_id, current_app.config.get("ANALYSIS_BUDGET"))
    # each finding names its problem (TD-42)
    return None if found is None else link_problems(found, get_store().problem_ids)


def _own_page_or_404(stem: str, suffix: str):
    """Show the page of a trace whose own id is stem + suffix, else 404.

    Trace ids are any printable text: `/traces/export.json` is the page of a trace export.json (the
    list links there) while no trace `export` exists; its twins are one suffix further on."""
    if get_store().get_trace(stem + suffix, catch_up=False) is None:
        abort(404, description=f"no trace with id {stem}")
    return trace(stem + suffix)


def _call_or_404(trace: dict, call_id: str | None) -> dict:
    if call_id is not None and call_id not in {c["call_id"] for c in trace["calls"]}:
        abort(404, description=f"no call {call_id} in trace {trace['trace_id']}")
    return tracepage.select_call(trace, call_id)


@bp.get("/traces/<path:trace_id>")
def trace(trace_id):
    """Show one call of a trace.

    Findings first, then the aligned or the raw view."""
    # The page loads a call's payloads (at 1 MB, up to 270,000 containers) and walks them: the
    # collector's passes over these acyclic trees took half of a deep document's page (0.25 s).
    with paused_collector():
        return _trace_page(trace_id)


def _trace_page(trace_id):
    found = _trace_or_404(trace_id)
    call = _call_or_404(found, request.args.get("call"))
    # a deep link into the raw view
    reveal = parse_node_id(request.args.get("open", ""), ends.WITH_RESULT)
    view = (
        request.args.get("view")
        if request.args.get("view") in VIEWS
        else ("raw" if reveal else "aligned")
    )
    only_diff = request.args.get("only") == "diff"
    context = {
        "trace": found,
        "call": call,
        "view": view,
        "only_diff": only_diff,
        "snapshots": aligned.stages(call),
        "findings": tracepage.findings_view(call)[:SHOWN_FINDINGS],
        "more_findings": max(0, len(call["findings"]) - SHOWN_FINDINGS),
        "validation": tracepage.validation_view(call),
        "http": {
            name: tracepage.http_view(call["snapshots"].get(name)) for name in aligned.stages(call)
        },
        "versions": _earlier_versions(found["trace_id"], call),
        "can_change": may_change_contracts(),
        # each call's in the calls bar: never "clean" for a call missing a stage
        "badge": tracepage.badge,
        "not_received": tracepage.not_received(call),
    }
    if view == "aligned":
        more = request.args.get("more", "")
        context["more"] = int(more) if is_digits(more) else None
        context["rows"], context["hidden_rows"], context["next_more"] = aligned.aligned_rows(
            call, only_diff, context["more"]
        )
        # "load more": the next rows, appended after the last shown
        if context["more"] is not None:
            return page_or_fragment("trace.html", "partials/aligned_rows.html", **context)
    else:
        context["trees"] = tracepage.raw_trees(call, reveal)
    return page_or_fragment("trace.html", "partials/view.html", **context)


def _earlier_versions(trace_id: str, call: dict) -> dict:
    store = get_store()
    return {
        name: store.snapshot_versions(trace_id, call["call_id"], name)[1:]
        for name, count in call["versions"].items()
        if count > 1
    }


@bp.get("/traces/<path:trace_id>.json")
def trace_json(trace_id):
    """Return the trace page's data as JSON."""
    found = _trace_or_none(trace_id)
    return jsonify(found) if found is not None else _own_page_or_404(trace_id, ".json")


@bp.get("/traces/<path:trace_id>.md")
def trace_markdown(trace_id):
    """Return a Markdown ticket summary of the trace."""
    found = _trace_or_none(trace_id)
    if found is None:
        return _own_page_or_404(trace_id, ".md")
    permalink = url_for("views.trace", trace_id=trace_id, _external=True)
    problem_url = lambda pid: url_for("problems_pages.problem_page", problem_id=pid, _external=True)  # noqa: E731
    return Response(exports.trace_markdown(found, permalink, problem_url), mimetype="text/markdown")


@bp.get("/traces/<path:trace_id>/fixtures.zip")
def fixtures(trace_id):
    """Download one call's snapshots as fixture files for `tracediff check`.

    With the contract the analysis uses (the stored one plus the inferred pairs), so the replay
    pairs the same fields."""
    found = _trace_or_none(trace_id)
    if found is None:
        return _own_page_or_404(trace_id, "/fixtures.zip")
    call = _call_or_404(found, request.args.get("call"))
    contract = pipeline.analysis_contract(get_store(), call.get("tool"))
    name = f"{trace_id[:32]}-{call['call_id'] or 'call'}-fixtures.zip".replace('"', "")
    return Response(
        exports.fixtures_zip(call, contract),
        mimetype="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _node_or_404(found: dict):
    call = _call_or_404(found, request.args.get("call"))
    name = request.args.get("snapshot")
    # a missing or unknown snapshot name is the link's mistake, as on the API's routes
    if name not in ends.WITH_RESULT:
        got = f"got {name[:40]!r}" if name is not None else "got none"
        raise ApiError(400, "bad_parameter", f"snapshot must be {spelt(ends.WITH_RESULT)}; {got}")
    if call["snapshots"].get(name) is None:
        abort(404, description=f"no snapshot {name} in this call")
    pointer = request.args.get("pointer", "")
    value = resolve(call["snapshots"][name]["payload"], pointer)
    if value is MISSING:
        abort(404, description=f"no node at {pointer} in {name}")
    return call, name, pointer, value


@bp.get("/traces/<path:trace_id>/tree")
def subtree(trace_id):
    """Render the children of one node of the raw view.

    For a lazy expand or "show more"."""
    found = _trace_or_none(trace_id)
    if found is None:
        return _own_page_or_404(trace_id, "/tree")
    call, name, pointer, value = _node_or_404(found)
    offset = request.args.get("offset", "0")
    reveal = parse_node_id(request.args.get("open", ""), (name,))
    options = tracepage.tree_options(call, name, reveal=reveal[1] if reveal else None)
    shown = request.args.get("shown", "")
    options.shown = int(shown) if is_digits(shown) else 0
    tokens = children_tokens(value, options, pointer, int(offset) if is_digits(offset) else 0)
    return page_or_fragment(
        "subtree.html",
        "partials/tree.html",
        tokens=tokens,
        trace_id=trace_id,
        call=call,
        snapshot=name,
        pointer=pointer,
    )


@bp.get("/traces/<path:trace_id>/value")
def node_value(trace_id):
    """Return the JSON value of one node, for "copy value" on big subtrees."""
    found = _trace_or_none(trace_id)
    if found is None:
        return _own_page_or_404(trace_id, "/value")
    return jsonify(_node_or_404(found)[3])


@bp.get("/compare")
def compare():
    """Put the same stage of two calls side by side with the differences marked."""
    a_id, b_id = request.args.get("a", "").strip(), request.args.get("b", "").strip()
    context = {"a": a_id, "b": b_id, "stages": None}
    if a_id and b_id:
        call_a = _call_or_404(_trace_or_404(a_id), request.args.get("ca") or None)
        call_b = _call_or_404(_trace_or_404(b_id), request.args.get("cb") or None)
        context.update(
            call_a=call_a,
            call_b=call_b,
            stages=compare_calls(call_a, call_b, _compared_stages(call_a, call_b)),
        )
    return render_template("compare.html", **context)


def _compared_stages(call_a: dict, call_b: dict) -> tuple:
    """Compare the core stages, and each other one either call has."""
    return shown({*call_a["snapshots"], *call_b["snapshots"]})
