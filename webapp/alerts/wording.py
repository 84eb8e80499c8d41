"""Say in one line what broke and how often.

"findOrders: /limit sent as string instead of integer, 83 calls in 10 min since 1.4.2 (new, TD-42)"
(pure: the facts come with the message, counted when it was written)."""

from datetime import datetime

from ..problems.words import problem_phrase

STATES = {
    "problem.new": "new",
    "problem.regressed": "regressed",
    "problem.escalating": "escalating",
}


def problem_line(event_type: str, problem: dict, facts: dict | None) -> str:
    """Return the one line of a problem's alert.

    `facts` are the calls its event counts (see store/alert_facts.py)."""
    facts = facts or {
        "calls": problem.get("calls", 0),
        "first": problem.get("first_seen"),
        "last": problem.get("last_seen"),
        "since": _newest(problem.get("releases")),
    }
    calls = facts.get("calls") or 0
    # escalating: this hour against the days before
    if facts.get("mean_per_hour") is not None:
        how = (
            f"{calls} call{'s' * (calls != 1)} in the last hour "
            f"({facts.get('days', 7)}-day mean {_rate(facts['mean_per_hour'])}/h)"
        )
    else:
        how = f"{calls} call{'s' * (calls != 1)}{_span(facts.get('first'), facts.get('last'))}"
    since = f" since {facts['since']}" if facts.get("since") else ""
    state, tool = STATES.get(event_type, event_type), problem.get("tool") or "(no tool)"
    return (
        f"{tool}: {problem_title(problem, facts.get('pair'))}, {how}{since} ({state}, "
        f"{problem.get('id', '')})"
    )


def problem_title(problem: dict, pair: dict | None = None) -> str:
    """Return the title an alert gives a problem.

    A summary's own title, else the phrase of what broke."""
    return problem["title"] if problem.get("title") else problem_phrase(problem, pair)


def message_problem(subject: str, data) -> dict | None:
    """Name the problem a message is about.

    {"id": "TD-7", "title": "/limit sent as string instead of integer"} (a summary: id null and its
    own title, "6 new problems at once"); None for a message about no problem."""
    if not isinstance(data, dict):
        return None
    if data.get("summary"):
        return {"id": None, "title": data.get("title")}
    if subject.startswith("TD-") and data.get("id") == subject:
        return {"id": subject, "title": problem_phrase(data)}
    return None


def _rate(per_hour: float) -> str:
    """Write a rate short: 3, 0.4, 12 ("<0.1" for a rare problem)."""
    if per_hour >= 10:
        return str(round(per_hour))
    text = f"{per_hour:.1f}".rstrip("0").rstrip(".")
    return "<0.1" if text == "0" and per_hour > 0 else text


def _span(first: str | None, last: str | None) -> str:
    """Say over how long the calls were seen.

    " in 10 min", " in 3 h", " in 2 days" (by the calls' own times)."""
    try:
        seconds = (
            datetime.fromisoformat(last[:19]) - datetime.fromisoformat(first[:19])
        ).total_seconds()
    except (TypeError, ValueError):
        return ""
    minutes = max(1, round(seconds / 60))
    if minutes < 120:
        return f" in {minutes} min"
    return (
        f" in {round(minutes / 60)} h" if minutes < 48 * 60 else f" in {round(minutes / 1440)} days"
    )


def _newest(releases) -> str | None:
    """Return the newest of some release names, numbers compared as numbers.

    1.10.0 after 1.9.2."""
    if not releases:
        return None
    return max(
        releases,
        key=lambda name: [
            (0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in name.replace("-", ".").split(".")
        ],
    )
