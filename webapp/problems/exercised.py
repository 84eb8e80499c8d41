"""Which clean calls exercised what broke.

The problem's argument path and, for a response problem, a response of the same class (pure). The
last clean call before a problem and the nearest clean call both prefer them."""

from .grouping import exercises


def status_class(status) -> str | None:
    """Return "error" for a 4xx/5xx status, "success" for any other number.

    None when the status is unknown."""
    return None if not isinstance(status, int) else "error" if status >= 400 else "success"


def response_class(problem: dict, failing_status=None) -> str | None:
    """Return the response class a clean call must have had, for a response problem.

    To say anything about it: an error for an error-envelope problem, else the failing call's; None
    for a problem of the arguments and request."""
    ends = [end for end in (problem.get("left"), problem.get("right")) if end]
    if problem.get("kind") == "error_shape":
        return "error"
    if any(end.get("snapshot") == "response" for end in ends) or "response" in str(
        problem.get("stages") or ""
    ):
        return status_class(failing_status)
    return None


def argument_path(problem: dict) -> str | None:
    """Return the problem's argument path.

    The path a clean call must carry to have exercised it (or None)."""
    left = problem.get("left") or {}
    return left.get("path") if left.get("snapshot") == "arguments" else None


def preferred(
    candidates: list[dict], path: str | None = None, wanted: str | None = None
) -> tuple[list[dict], dict]:
    """Return the candidates that exercised the problem best and what they share.

    Those that carry the argument path and a response of the wanted class, else those with the path,
    else those with the class, else all.

    Each candidate has `arguments` and `status_code`; the flags say which preference the pool
    met."""
    has_path = [c for c in candidates if path is None or exercises(c.get("arguments"), path)]
    same = [c for c in has_path if wanted is None or status_class(c.get("status_code")) == wanted]
    for pool, flags in (
        (same, (True, True)),
        (has_path, (True, False)),
        (
            [
                c
                for c in candidates
                if wanted is None or status_class(c.get("status_code")) == wanted
            ],
            (False, True),
        ),
        (candidates, (False, False)),
    ):
        if pool:
            return pool, {
                "has_path": flags[0] and path is not None and bool(has_path),
                "same_response": flags[1] and wanted is not None,
            }
    return [], {"has_path": False, "same_response": False}
