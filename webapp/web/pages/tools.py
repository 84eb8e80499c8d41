"""The tool pages: /tools lists tools.

/tools/<name> shows a contract, its calls, its strip and mappings."""

from flask import Blueprint, abort, jsonify, redirect, render_template, request, url_for

from ...contracts import ContractError, skipped_patterns
from ...inference.hints import map_command
from ...pipeline import mappings as toolmappings
from ...pipeline import observed as toolobserved
from ...pipeline.definitions import traffic_mark
from ...store import stats
from ...store.toolcalls import (
    known_tool,
    recent_calls,
    tool_summaries,
    url_templates,
    way_back_counts,
)
from ..db import get_store
from ..filters import ListQuery
from ..paging import NAMED_PAGE, key_cursor, key_page_args
from ..render import charts
from ..render.pages import page_or_fragment
from ..security import may_change_contracts
from .trace_list import strip_window

bp = Blueprint("tools", __name__)


SCHEMAS = ("arguments_schema", "request_schema", "response_schema", "error_schema", "result_schema")
# what the model got, against the response
WAY_BACK_KINDS = ("error_hidden", "error_invented", "result_large")


@bp.get("/tools")
def tools():
    """List the tools with a contract or calls, 50 a page by name.

    Calls, calls with findings, last seen, open problems, releases, and the busiest tools' hourly
    strips over the window that fits their calls."""
    limit, after = key_page_args(request.args, 1, strict=False)
    found, last = tool_summaries(get_store(), after[0] if after else None, limit)
    next_url = (
        url_for(".tools", limit=_limit_arg(limit), cursor=key_cursor((last,))) if last else None
    )
    return render_template(
        "tools.html", tools=found, next_url=next_url, query=ListQuery(), **_strip_context()
    )


def _limit_arg(limit: int) -> int | None:
    """Return the limit as a link keeps it: None for the default."""
    return None if limit == NAMED_PAGE else limit


def _strip_context(tool: str = "") -> dict:
    """Return the strip's rows over the window that fits the calls, in words.

    The tool's calls, or every tool's."""
    window = strip_window("", "", tool)
    strip = stats.hourly_strip(
        get_store(), tool=tool, since=window["since"], until=window["until"], through=True
    )
    return {
        "strip_rows": charts.strip_rows(strip, list_url=url_for("views.index")),
        "strip_width": charts.strip_width(strip),
        "strip_hours": strip["hours"],
        "strip_more": strip.get("more_tools", 0),
        "window": window,
        # these pages take no range: the trace list's quick links set one
        "window_links": [],
    }


@bp.get("/tools.json")
def tools_json():
    """Return a page of the tool list as JSON.

    With the cursor of the next page (null on the last)."""
    limit, after = key_page_args(request.args, 1)
    found, last = tool_summaries(get_store(), after[0] if after else None, limit)
    return jsonify(tools=found, next_cursor=key_cursor((last,)) if last else None)


def _tool_or_404(name: str) -> None:
    if not known_tool(get_store(), name):
        abort(404, description=f"no tool {name!r}: no contract and no calls")


def tool_data(name: str) -> dict:
    """Return what the tool page shows, as plain data (the page and its JSON twin)."""
    store = get_store()
    contract = store.get_tool(name)
    return {
        "name": name,
        "contract": contract,
        "calls": recent_calls(store, name),
        "mappings": toolmappings.mapping_rows(store, name),
        "request_line": _request(store, name, contract),
        "way_back": way_back_counts(store, name, WAY_BACK_KINDS),
        "observed": toolobserved.observed_view(store, name),
        # the arguments schema came from a definition a model was offered
        "from_traffic": traffic_mark(contract),
        # patterns RE2 cannot run: skipped, never run
        "warnings": skipped_patterns(contract),
    }


def _request(store, name: str, contract) -> dict | None:
    """Return the tool's request line.

    The contract's method and URL template, else the template its calls show."""
    http = (contract or {}).get("http") or {}
    if http.get("path"):
        return {
            "method": http.get("method"),
            "template": http["path"],
            "source": "contract",
            "calls": None,
        }
    seen = url_templates(store, name)
    if not seen:
        return None
    return {"method": None, "template": seen[0][0], "source": "traffic", "calls": seen[0][1]}


@bp.get("/tools/<tool:name>.json")
def tool_json(name):
    """Return the tool page's data as JSON."""
    _tool_or_404(name)
    return jsonify(tool_data(name))


@bp.get("/tools/<tool:name>")
def tool(name):
    """Show one tool: its contract, calls, strip and mappings.

    Recent calls, hourly strip and mappings with their evidence."""
    _tool_or_404(name)
    data = tool_data(name)
    return page_or_fragment(
        "tool.html",
        "partials/mappings.html",
        **data,
        **_mapping_context(name),
        schemas=[(k, data["contract"][k]) for k in SCHEMAS if (data["contract"] or {}).get(k)],
        query=ListQuery(tool=name),
        **_strip_context(name),
    )


def _mapping_context(name: str) -> dict:
    return {
        "can_change": may_change_contracts(),
        "tool_name": name,
        "command": lambda row: map_command(name, [(row["arguments"], row["request"])]),
    }


@bp.post("/tools/<tool:name>/observed/adopt")
def adopt_observed(name):
    """Write a stage's observed schema into the contract.

    From the tool page's form (an admin's)."""
    _tool_or_404(name)
    try:
        toolobserved.adopt(get_store(), name, request.form.get("stage", ""))
    except ContractError as error:
        abort(400, description=str(error))
    return redirect(url_for("tools.tool", name=name) + "#observed", 303)


@bp.post("/tools/<tool:name>/mappings/<action>")
def change_mapping(name, action):
    """Confirm (write into the contract) or reject (keep out of inference) a pair.

    From a form or htmx."""
    if action not in ("confirm", "reject"):
        abort(404)
    arguments, req = request.form.get("arguments", ""), request.form.get("request", "")
    store = get_store()
    try:
        if action == "confirm":
            toolmappings.confirm(store, name, arguments, req)
        else:
            toolmappings.reject(store, name, arguments, req)
    except ContractError as error:
        abort(400, description=str(error))
    back = request.form.get("next", "")
    if request.headers.get("HX-Request") and not back:
        return page_or_fragment(
            "tool.html",
            "partials/mappings.html",
            mappings=toolmappings.mapping_rows(store, name),
            **_mapping_context(name),
        )
    # only our own paths: a form's `next` must not send the browser to another site
    target = (
        back
        if back[:1] == "/" and back[1:2] not in ("/", "\\")
        else url_for("tools.tool", name=name)
    )
    return redirect(target, 303)
