"""What the trace list page shows.

Its rows and cursors, the facet counts and the hourly strip."""

from flask import current_app, request, url_for

from ... import pipeline
from ...common.digits import problem_number
from ...store import stats
from ...store.listing import SEARCH_CAP
from ..db import get_store
from ..filters import ListQuery, decode_cursor, encode_cursor, trace_query
from ..render import charts
from ..render.ranges import quick_links, shown_window

# list filters the hourly strip does not follow
UNFOLLOWED = ("severity", "kind", "status", "missing", "q")


def list_context() -> dict:
    """Return the list's rows, cursors and rejections, as the query asks."""
    query = trace_query(request.args)
    try:
        cursor = decode_cursor(request.args.get("cursor"))
    except ValueError:
        cursor = None
    store, filters = get_store(), query.filters()
    traces, next_cursor = store.find_traces(filters, cursor)
    # after a contract change, the rows shown are re-analysed now, as a trace page would be
    if pipeline.fresh_list(
        store, [t["trace_id"] for t in traces], budget=current_app.config.get("ANALYSIS_BUDGET")
    ):
        traces, next_cursor = store.find_traces(filters, cursor)
    next_url = (
        url_for("views.index", **query.as_args(), cursor=encode_cursor(next_cursor))
        if next_cursor
        else None
    )
    return {
        "traces": traces,
        "query": query,
        "next_url": next_url,
        "cursor": cursor,
        "next_cursor": encode_cursor(next_cursor),
        "refresh": request.args.get("refresh") == "on",
        "search_capped": stats.search_capped(store, query.q),
        "search_cap": SEARCH_CAP,
        "rejections": store.quarantine_counts(),
    }


def facet_counts(query: ListQuery, wanted: bool) -> dict | None:
    """Return the capped counts per filter value when asked for or cheap.

    None means "ask with part=counts"."""
    store = get_store()
    # a small store counts everything while the page waits
    cheap = stats.counts_are_cheap(store)
    if not (wanted or cheap):
        return None
    config = current_app.config
    budget_s = None if cheap else config.get("COUNT_BUDGET_S", stats.COUNT_BUDGET_S)
    timeout_s = config.get("COUNT_TIMEOUT_S", stats.COUNT_TIMEOUT_S)
    return stats.filter_counts(store, query.filters(), budget_s, timeout_s)


def counts_context(query: ListQuery, wanted: bool) -> dict:
    """Return the facet counts and the hourly strip, or only where to fetch them."""
    counts = facet_counts(query, wanted)
    context = {
        "count_cap": stats.COUNT_CAP,
        "counts": counts,
        "strip_rows": None,
        "counts_url": url_for("views.index", **query.as_args(), part="counts"),
    }
    if counts is not None:
        problem = problem_number(query.problem) if query.problem else None
        window = strip_window(query.since, query.until, query.tool, problem)
        strip = stats.hourly_strip(
            get_store(),
            tool=query.tool,
            until=window["until"],
            since=window["since"],
            problem=problem,
            through=window["fitted"],
        )
        context["window"] = window
        context["window_links"] = quick_links(
            "views.index", (query.since, query.until), query.as_args()
        )
        filters = query.as_args(tool=None, since=None, until=None)
        # the hourly rollup knows tools, hours and problems; the strip says which filters it cannot
        # follow
        context["strip_unfollowed"] = [name for name in UNFOLLOWED if getattr(query, name)]
        context["strip_problem"] = f"TD-{problem_number(query.problem)}" if query.problem else None
        context.update(
            strip_rows=charts.strip_rows(strip, filters, url_for("views.index")),
            strip_width=charts.strip_width(strip),
            strip_hours=strip["hours"],
            strip_more=strip.get("more_tools", 0),
            counts_incomplete=any(c is None for values in counts.values() for c in values.values()),
        )
    return context


def strip_window(since: str, until: str, tool: str = "", problem: int | None = None) -> dict:
    """Return the window an hourly strip shows.

    The range asked for, else the one that fits the calls it counts."""
    oldest, newest = (None, None) if since or until else stats.call_span(get_store(), tool, problem)
    return shown_window(since, until, oldest, newest)
