"""The problems API under /api/v1/problems.

Thin adapters over the store and the state rules."""

import base64

from flask import Blueprint, current_app, g, jsonify, redirect, request, url_for

from ...common import jsontext
from ...common.digits import is_digits
from ...pipeline.changes import change_problem
from ...pipeline.problems import find_problems, read_problem
from ...pipeline.strips import strip
from ...problems.states import BadChange, parse_change
from ...problems.timeline import default_range
from ...store.errors import ChangeRefused
from .. import security
from ..db import get_store
from ..errors import ApiError
from ..filters import absolute_time, bad_range, bad_time
from ..problem_filters import ProblemQuery

bp = Blueprint("problems_api", __name__)
# a change the body asks wrongly, or one the stored problem cannot take
REFUSED = (BadChange, ChangeRefused)
TRACES_LIMIT = 50


def encode(cursor: tuple | None) -> str | None:
    """Encode a keyset position as an opaque string."""
    return None if cursor is None else base64.urlsafe_b64encode("\n".join(cursor).encode()).decode()


def decode(text: str | None, parts: int) -> tuple | None:
    """Decode an opaque cursor of `parts` fields.

    A 400 when it is not one of ours."""
    if not text:
        return None
    try:
        values = tuple(base64.urlsafe_b64decode(text.encode()).decode().split("\n"))
    except (ValueError, UnicodeDecodeError):
        values = ()
    if len(values) != parts:
        raise ApiError(400, "bad_cursor", f"cursor {text[:40]!r} is not one this server gave out")
    return values


def with_links(problem: dict) -> dict:
    """Add the permalink (and the API address) to a problem from the store."""
    problem["permalink"] = url_for(
        "problems_pages.problem_page", problem_id=problem["id"], _external=True
    )
    return problem


def problem_or_404(problem_id: str) -> dict:
    """Return the problem a `TD-42` id names; 404 when there is none."""
    store = get_store()
    number = store.resolve_problem_id(problem_id)
    problem = read_problem(store, number) if number is not None else None
    if problem is None:
        raise ApiError(404, "problem_not_found", f"no problem with id {problem_id[:40]!r}")
    return problem


def moved(endpoint: str, problem: dict):
    """Answer 301 to the same address of the problem a merged one went into.

    Its query string kept."""
    return redirect(
        url_for(endpoint, problem_id=problem["merged_into"], **request.args.to_dict(flat=False)),
        301,
    )


def link_cleaner():
    """Return what redacts a ticket link before it is stored.

    None when redaction is off."""
    redactor = current_app.extensions["tracediff.redactor"]
    return redactor.url if redactor else None


def changed_by(via: str = "api") -> str:
    """Name who changes a problem for its history.

    The token's name ("ops (admin token)"), never its secret.

    A Basic auth user name is typed freely and proves nothing, so only a configured token names
    someone; on a server without tokens the change is by `via` ("api", or "web" for a page form)."""
    token = (
        g.get("token")
        or security.keyring().find(security.bearer_token())
        or security.keyring().find(security.basic_password())
    )
    return f"{token.name} ({token.scope} token)" if token is not None else via


@bp.get("/api/v1/problems")
def list_problems():
    """List problems newest last seen first, filtered, with a keyset cursor."""
    message = ProblemQuery.bad_value(request.args)
    if message:
        raise ApiError(400, "bad_parameter", message)
    cursor = decode(request.args.get("cursor"), 2)
    if cursor and not is_digits(cursor[1]):
        raise ApiError(400, "bad_cursor", "cursor is not one this server gave out")
    problems, next_cursor = find_problems(
        get_store(), ProblemQuery.from_args(request.args).filters(), cursor
    )
    return jsonify(problems=[with_links(p) for p in problems], next_cursor=encode(next_cursor))


@bp.get("/api/v1/problems/<problem_id>")
def get_problem(problem_id):
    """Return one problem with hourly counts.

    Examples, value pairs, exposure and state history."""
    problem = problem_or_404(problem_id)
    if "merged_into" in problem:
        return moved("problems_api.get_problem", problem)
    problem["hourly"] = hourly(problem, request.args)
    return jsonify(with_links(problem))


def hourly(problem: dict, args) -> dict:
    """Return a problem's occurrences per bar over the asked range.

    Default: its own span, up to a month."""
    message = bad_time(args) or bad_range(args)
    if message:
        raise ApiError(400, "bad_parameter", message)
    since, until = (absolute_time((args.get(name) or "").strip()) for name in ("since", "until"))
    try:
        since, until = default_range(problem["first_seen"], problem["last_seen"], since, until)
    except ValueError as error:
        raise ApiError(400, "bad_parameter", f"since/until: {error}") from error
    return strip(get_store(), int(problem["id"][3:]), since, until)


@bp.patch("/api/v1/problems/<problem_id>")
def patch_problem(problem_id):
    """Resolve, archive or reopen a problem, set its links, or merge it into another."""
    problem = problem_or_404(problem_id)
    if "merged_into" in problem:
        raise ApiError(
            409, "problem_merged", f"{problem['id']} was merged into {problem['merged_into']}"
        )
    try:
        body = jsontext.loads(request.get_data(cache=False))
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error
    try:
        change = parse_change(body, link_cleaner())
        change_problem(get_store(), int(problem["id"][3:]), change, changed_by())
    except REFUSED as error:
        raise ApiError(400, "bad_change", str(error)) from error
    if "merged_into" not in change:
        return get_problem(problem["id"])
    # a PATCH answers JSON, never a redirect: the problem that took the calls, saying where the
    # merge went
    into = problem_or_404(problem["id"])["merged_into"]
    target = problem_or_404(into)
    target["hourly"] = hourly(target, request.args)
    target["merge"] = {
        "problem": problem["id"],
        "asked": change["merged_into"],
        "merged_into": into,
        "followed": get_store().resolve_problem_id(change["merged_into"]) != int(into[3:]),
    }
    return jsonify(with_links(target))


@bp.get("/api/v1/problems/<problem_id>/traces")
def problem_traces(problem_id):
    """Page through the calls a problem was seen in, newest first."""
    problem = problem_or_404(problem_id)
    if "merged_into" in problem:
        return moved("problems_api.problem_traces", problem)
    limit = request.args.get("limit", str(TRACES_LIMIT))
    if not (is_digits(limit) and 1 <= int(limit) <= 500):
        raise ApiError(
            400, "bad_parameter", f"limit must be a whole number from 1 to 500; got {limit[:40]!r}"
        )
    rows, next_cursor = get_store().problem_traces(
        int(problem["id"][3:]), int(limit), decode(request.args.get("cursor"), 3)
    )
    for row in rows:
        row["url"] = url_for(
            "views.trace", trace_id=row["trace_id"], call=row["call_id"], _external=True
        )
    return jsonify(traces=rows, next_cursor=encode(next_cursor))
