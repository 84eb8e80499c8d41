"""Problems as people read them (the pages, the API, the CLI).

The store's rows with the state a person reads (an open problem is new or ongoing) and, for one
problem, the last clean call before it."""

from datetime import UTC, datetime

from ..problems import exercised
from ..problems.states import shown

# clean calls read (newest first) for one that exercised the problem's path
CLEAN_BEFORE_CANDIDATES = 100


def find_problems(store, filters, cursor: tuple | None = None) -> tuple[list[dict], tuple | None]:
    """Return the problems the filters (webapp/store/problem_filters.py) keep.

    As a person reads them."""
    problems, next_cursor = store.find_problems(filters, cursor)
    now = datetime.now(UTC)
    return [shown(problem, now) for problem in problems], next_cursor


def read_problem(store, number: int) -> dict | None:
    """Return one problem with its details.

    As a person reads it, and the last clean call before it."""
    problem = shown(store.get_problem(number))
    if problem is not None and "merged_into" not in problem:
        problem["last_clean_before"] = last_clean_before(store, problem)
    return problem


def last_clean_before(store, problem: dict) -> dict | None:
    """Return the newest clean call before the problem that exercised what broke.

    Its argument path and, for a response problem, a response of the same class (an error for an
    error-envelope problem), when one did."""
    if not problem["tool"] or not problem["first_seen"]:
        return None
    candidates = store.clean_calls(
        problem["tool"], CLEAN_BEFORE_CANDIDATES, before=problem["first_seen"]
    )
    latest = (problem.get("examples") or {}).get("latest")
    status = store.call_status(latest["trace_id"], latest["call_id"]) if latest else None
    pool, flags = exercised.preferred(
        candidates, exercised.argument_path(problem), exercised.response_class(problem, status)
    )
    if not pool:
        return None
    # newest first
    best = pool[0]
    return {
        "trace_id": best["trace_id"],
        "call_id": best["call_id"],
        "ts": best["last_ts"],
        "release": best["release"],
        "status_code": best["status_code"],
        **flags,
    }
