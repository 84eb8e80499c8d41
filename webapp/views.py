"""The hypermedia pages: the trace list and the trace permalink."""
import json

from flask import Blueprint, abort, render_template, request, url_for

from . import pipeline
from .db import get_store
from .store.filters import TraceQuery, decode_cursor, encode_cursor

bp = Blueprint("views", __name__)
SNAPSHOTS = ("arguments", "request", "response")


@bp.app_template_filter("pretty_json")
def pretty_json(value) -> str:
    """Indent a JSON value as plain text; autoescaping makes it safe in HTML."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def page_or_fragment(page: str, fragment: str, **context):
    """Render the whole page, or only the fragment for an htmx request."""
    template = fragment if request.headers.get("HX-Request") else page
    response = render_template(template, **context)
    return response, 200, {"Vary": "HX-Request"}


@bp.get("/")
def index():
    """List traces newest first, filtered by the query string."""
    query = TraceQuery.from_args(request.args)
    try:
        cursor = decode_cursor(request.args.get("cursor"))
    except ValueError:
        cursor = None
    traces, next_cursor = get_store().find_traces(query, cursor)
    next_url = (url_for("views.index", **query.as_args(), cursor=encode_cursor(next_cursor))
                if next_cursor else None)
    return page_or_fragment("index.html", "partials/trace_rows.html",
                            traces=traces, query=query, next_url=next_url)


@bp.get("/traces/<trace_id>")
def trace(trace_id):
    """Show one trace: each call's three snapshots side by side."""
    found = pipeline.fresh_trace(get_store(), trace_id)
    if found is None:
        abort(404, description=f"no trace with id {trace_id}")
    return render_template("trace.html", trace=found, snapshots=SNAPSHOTS)
