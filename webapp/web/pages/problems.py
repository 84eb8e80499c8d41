"""The problem pages.

/problems, /problems/<id> with .json and .md twins, state forms, nearest clean call."""

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup, escape

from ...common.digits import is_digits
from ...common.stages import missing, spelt
from ...pipeline.changes import change_problem
from ...pipeline.problems import find_problems, read_problem
from ...pipeline.strips import strip, strips
from ...problems.exercised import argument_path, response_class
from ...problems.fingerprint import grouped_by
from ...problems.nearest import nearest
from ...problems.states import (
    RESOLVE_MODES,
    STATES,
    links_change,
    parse_change,
    pending_text,
    verified_text,
)
from ...problems.timeline import MAX_SPAN_DAYS, default_range, list_range, sparkline, step_words
from ...problems.words import counted
from ...reports.problems import problem_markdown
from ..api import problems as api
from ..db import get_store
from ..errors import ApiError
from ..filters import bad_range
from ..problem_filters import ProblemQuery
from ..render.pages import page_or_fragment
from ..render.ranges import quick_links, shown_window
from ..security import change_hint, may_change_contracts

bp = Blueprint("problems_pages", __name__)
LIST_DAYS = 7
CLEAN_CANDIDATES = 300


bp.app_template_filter("counted")(counted)


@bp.app_template_filter("spark_rects")
def spark_rects(bars: list[dict], height: int) -> Markup:
    """Render a sparkline's bars as SVG rects.

    Numbers made numbers, the time label escaped."""
    # One f-string per bar, not six template expressions: a list page draws hundreds of bars.
    return Markup(
        "".join(
            f'<rect x="{float(b["x"])}" y="{height - int(b["h"])}" width="{float(b["w"])}" '
            f'height="{int(b["h"])}">'
            f"<title>{escape(_minute(b['start']))}: {int(b['occurrences'])}</title></rect>"
            for b in bars
        )
    )


def _minute(text: str) -> str:
    """Write a bar's start to the minute, or to the second when it starts within one."""
    return text[:19].replace("T", " ").removesuffix(":00")


def _refuse_a_backwards_range() -> None:
    """Answer 400 to a since later than until.

    A shifted window would show what was not asked."""
    message = bad_range(request.args)
    if message:
        abort(400, description=message)


def _list_context() -> dict:
    _refuse_a_backwards_range()
    query = ProblemQuery.from_args(request.args)
    try:
        cursor = api.decode(request.args.get("cursor"), 2)
    # a stale or edited cursor: the page starts from the newest
    except Exception:
        cursor = None
    store = get_store()
    problems, next_cursor = find_problems(
        store, query.filters(), cursor if cursor and is_digits(cursor[1]) else None
    )
    window = shown_window(
        query.since,
        query.until,
        min((p["first_seen"] for p in problems if p["first_seen"]), default=None),
        max((p["last_seen"] for p in problems if p["last_seen"]), default=None),
        LIST_DAYS,
    )
    since, until = list_range(window["since"], window["until"], None, LIST_DAYS)
    drawn = strips(store, [int(p["id"][3:]) for p in problems], since, until, bars=28)
    for problem in problems:
        problem["spark"] = sparkline(drawn[int(problem["id"][3:])])
    next_url = (
        url_for(".problems_page", **query.as_args(), cursor=api.encode(next_cursor))
        if next_cursor
        else None
    )
    return {
        "problems": problems,
        "query": query,
        "next_url": next_url,
        "next_cursor": api.encode(next_cursor),
        "range": (since, until),
        "window": window,
        "window_links": quick_links(
            ".problems_page", (query.since, query.until), query.as_args(cursor=None)
        ),
        "counts": query.counts(store),
        "facets": store.problem_facets(),
        "states": STATES,
        # each row's links are this plus a suffix: a url_for per row costs more than the row's SQL
        "problems_url": url_for(".problems_page"),
    }


@bp.get("/problems")
def problems_page():
    """List problems by last seen, with filters.

    Search, counts, a sparkline and the state of each."""
    return page_or_fragment("problems.html", "partials/problem_list.html", **_list_context())


@bp.get("/problems.json")
def problems_json():
    """Return the problem list page's data."""
    # a script gets a 400 for a filter the page would ignore
    message = ProblemQuery.bad_value(request.args)
    if message:
        raise ApiError(400, "bad_parameter", message)
    context = _list_context()
    for problem in context["problems"]:
        api.with_links(problem)
    return jsonify(
        problems=context["problems"], next_cursor=context["next_cursor"], counts=context["counts"]
    )


def _problem_or_redirect(problem_id: str, endpoint: str):
    number = get_store().resolve_problem_id(problem_id)
    problem = read_problem(get_store(), number) if number is not None else None
    if problem is None:
        abort(404, description=f"no problem with id {problem_id}")
    if "merged_into" in problem:
        return None, api.moved(endpoint, problem)
    return problem, None


def _detail_context(problem: dict) -> dict:
    _refuse_a_backwards_range()
    store = get_store()
    number = int(problem["id"][3:])
    asked = [(request.args.get(n) or "").strip() for n in ("since", "until")]
    window = shown_window(*asked, problem["first_seen"], problem["last_seen"], MAX_SPAN_DAYS)
    try:
        since, until = default_range(
            problem["first_seen"], problem["last_seen"], window["since"], window["until"]
        )
    # a since that is no time: the window that fits the problem, said so
    except ValueError:
        window = shown_window("", "", problem["first_seen"], problem["last_seen"], MAX_SPAN_DAYS)
        since, until = window["since"], window["until"]
    shown = strip(store, number, since, until, bars=72)
    try:
        cursor = api.decode(request.args.get("cursor"), 3)
    except Exception:
        cursor = None
    calls, next_cursor = store.problem_traces(number, 20, cursor)
    verification = problem.get("verification")
    # the token that changes contracts changes problems too
    can_change = may_change_contracts()
    return {
        "problem": problem,
        "can_change": can_change,
        "change_hint": None if can_change else change_hint(),
        "strip": shown,
        "window": window,
        "window_links": quick_links(".problem_page", tuple(asked), {"problem_id": problem["id"]}),
        "bar_words": step_words(shown["step_seconds"]),
        "bars": sparkline(shown, width=576, height=40),
        "calls": calls,
        "cursor": cursor,
        "next_url": url_for(
            ".problem_page",
            problem_id=problem["id"],
            cursor=api.encode(next_cursor),
            since=request.args.get("since"),
            until=request.args.get("until"),
        )
        if next_cursor
        else None,
        "grouped_by": grouped_by(problem),
        "resolve_modes": RESOLVE_MODES,
        "verified": verified_text(verification["calls"], verification["broke"])
        if verification
        else None,
        "pending": pending_text(problem["resolution"], problem["state"]),
        "has_clean_call": _has_clean_call(problem),
    }


def _has_clean_call(problem: dict) -> bool:
    """Say whether the problem's tool has a clean call to compare with.

    Else the link 404s."""
    return bool(problem.get("tool") and get_store().clean_calls(problem["tool"], 1))


@bp.get("/problems/<problem_id>")
def problem_page(problem_id):
    """Show one problem.

    Its reach, history, value pairs, releases, traces and state."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_page")
    if moved:
        return moved
    context = _detail_context(problem)
    if request.headers.get("HX-Request") and request.args.get("cursor"):
        return page_or_fragment("problem.html", "partials/problem_calls.html", **context)
    return page_or_fragment("problem.html", "partials/problem_body.html", **context)


@bp.get("/problems/<problem_id>.json")
def problem_json(problem_id):
    """Return the problem page's data as JSON (the API's document)."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_json")
    if moved:
        return moved
    problem["hourly"] = api.hourly(problem, request.args)
    return jsonify(api.with_links(problem))


@bp.get("/problems/<problem_id>.md")
def problem_md(problem_id):
    """Return a Markdown ticket summary of the problem."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_md")
    if moved:
        return moved
    return Response(
        problem_markdown(api.with_links(problem), _ticket_examples(problem)),
        mimetype="text/markdown",
    )


def _ticket_examples(problem: dict) -> dict:
    """Fetch the latest failing and the last clean call before the problem.

    With their permalinks."""
    store, found = get_store(), {}
    calls = {
        "failing": (problem.get("examples") or {}).get("latest"),
        "clean": problem.get("last_clean_before"),
    }
    for name, call in calls.items():
        if call:
            inputs = store.call_inputs(call["trace_id"], call["call_id"])
            found[name] = {
                "snapshots": inputs["snapshots"] if inputs else None,
                "link": url_for(
                    "views.trace", trace_id=call["trace_id"], call=call["call_id"], _external=True
                ),
            }
    if _has_clean_call(problem):
        found["nearest_link"] = url_for(
            ".problem_nearest", problem_id=problem["id"], _external=True
        )
    return found


@bp.post("/problems/<problem_id>/state")
def change_state(problem_id):
    """Apply the page's resolve, archive or reopen form, then show the problem again."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_page")
    if moved:
        return moved
    form = request.form
    body: dict = {"state": form.get("state", "")}
    if body["state"] == "resolved":
        mode = form.get("resolve", "now")
        body["resolve"] = (
            {"after_clean_calls": int(form.get("n") or 0)}
            if mode == "after_clean_calls" and is_digits(form.get("n") or "")
            else mode
        )
    elif body["state"] == "archived":
        body["until"] = form.get("until") or None
    try:
        change_problem(
            get_store(), int(problem["id"][3:]), parse_change(body), api.changed_by("web")
        )
    except api.REFUSED as error:
        abort(400, description=str(error))
    return redirect(url_for(".problem_page", problem_id=problem["id"]), 303)


@bp.post("/problems/<problem_id>/links")
def change_links(problem_id):
    """Add a ticket link (`add`) or remove one (`remove`) from the page.

    Htmx gets the links' fragment."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_page")
    if moved:
        return moved
    add, remove = request.form.get("add", "").strip(), request.form.get("remove", "")
    error = None
    try:
        change = links_change(
            problem["links"], [add] if add else (), [remove] if remove else (), api.link_cleaner()
        )
        change_problem(get_store(), int(problem["id"][3:]), change, api.changed_by("web"))
    except api.REFUSED as refused:
        error = str(refused)
    htmx = bool(request.headers.get("HX-Request"))
    if not htmx and error is None:
        return redirect(url_for(".problem_page", problem_id=problem["id"]), 303)
    problem = read_problem(get_store(), int(problem["id"][3:]))
    # htmx swaps only a 2xx answer: the refusal is said in the fragment
    if htmx:
        return page_or_fragment(
            "problem.html",
            "partials/problem_links.html",
            problem=problem,
            can_change=True,
            links_error=error,
        )
    page, _, headers = page_or_fragment(
        "problem.html", "", **_detail_context(problem), links_error=error
    )
    return page, 400, headers


@bp.get("/problems/<problem_id>/nearest")
def problem_nearest(problem_id):
    """Compare the problem's latest failing call with the nearest clean call.

    The nearest clean call of the same tool."""
    problem, moved = _problem_or_redirect(problem_id, ".problem_nearest")
    if moved:
        return moved
    latest = (problem.get("examples") or {}).get("latest")
    if not latest:
        abort(404, description=f"{problem['id']} has no calls left to compare")
    status = get_store().call_status(latest["trace_id"], latest["call_id"])
    return _compare_with_nearest(
        problem["tool"],
        latest["trace_id"],
        latest["call_id"],
        argument_path(problem),
        response_class(problem, status),
    )


@bp.get("/nearest")
def nearest_clean():
    """Compare one failing call with the nearest clean call of the same tool.

    The call is given as ?trace=&call=."""
    trace_id, call_id = request.args.get("trace", "").strip(), request.args.get("call", "")
    absent = [name for name in ("trace", "call") if not request.args.get(name, "").strip()]
    if absent:
        told = "parameters are" if len(absent) > 1 else "parameter is"
        abort(400, description=f"the {spelt(absent, 'and')} {told} missing: give ?trace=&call=")
    call = get_store().call_inputs(trace_id, call_id)
    if call is None:
        abort(404, description=f"no call {call_id!r} in trace {trace_id!r}")
    if not get_store().call_broke(trace_id, call_id):
        # a call missing a stage was compared with nothing: it is incomplete, not clean
        lacking = missing({name for name, snap in call["snapshots"].items() if snap})
        return render_template(
            "nearest_none.html",
            tool=call["tool"],
            trace_id=trace_id,
            call_id=call_id,
            clean=True,
            lacking=spelt(lacking, "and"),
        )
    return _compare_with_nearest(call["tool"], trace_id, call_id, None)


def _compare_with_nearest(
    tool: str | None, trace_id: str, call_id: str, path: str | None, wanted: str | None = None
):
    store = get_store()
    call = store.call_inputs(trace_id, call_id)
    if call is None or not tool:
        abort(404, description="the failing call is gone or names no tool")
    digest = store.call_digest(trace_id, call_id)
    arguments = (call["snapshots"].get("arguments") or {}).get("payload")
    candidates = (
        digest and store.clean_calls(tool, CLEAN_CANDIDATES, digest)
    ) or store.clean_calls(tool, CLEAN_CANDIDATES)
    # the call itself is never its own nearest clean call (distance 0 says nothing)
    best = nearest(
        arguments,
        [c for c in candidates if (c["trace_id"], c["call_id"]) != (trace_id, call_id)],
        path,
        wanted,
    )
    if best is None:
        return render_template(
            "nearest_none.html", tool=tool, trace_id=trace_id, call_id=call_id
        ), 404
    # the compare page reads A as the good call and B as the bad one
    return redirect(
        url_for(
            "views.compare",
            a=best["trace_id"],
            ca=best["call_id"],
            b=trace_id,
            cb=call_id,
            distance=best["distance"],
            method=best["method"],
        ),
        303,
    )
