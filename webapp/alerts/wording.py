"""Say in one line what broke and how often: "findOrders: /limit sent as string instead of integer, 83 calls
in 10 min since 1.4.2 (new, TD-42)" (pure: the facts come with the message, counted when it was written)."""
from datetime import datetime

STATES = {"problem.new": "new", "problem.regressed": "regressed", "problem.escalating": "escalating"}


def problem_line(event_type: str, problem: dict, facts: dict | None) -> str:
    """Return the one line of a problem's alert; `facts` are the calls its event counts (see store/alert_facts.py)."""
    facts = facts or {"calls": problem.get("calls", 0), "first": problem.get("first_seen"),
                      "last": problem.get("last_seen"), "since": _newest(problem.get("releases"))}
    calls = facts.get("calls") or 0
    if facts.get("mean_per_hour") is not None:  # escalating: this hour against the days before
        how = (f"{calls} call{'s' * (calls != 1)} in the last hour "
               f"({facts.get('days', 7)}-day mean {_rate(facts['mean_per_hour'])}/h)")
    else:
        how = f"{calls} call{'s' * (calls != 1)}{_span(facts.get('first'), facts.get('last'))}"
    since = f" since {facts['since']}" if facts.get("since") else ""
    state, tool = STATES.get(event_type, event_type), problem.get("tool") or "(no tool)"
    return f"{tool}: {what_broke(problem)}, {how}{since} ({state}, {problem.get('id', '')})"


def what_broke(problem: dict) -> str:
    """Say what a problem is in words: "/limit sent as string instead of integer"."""
    if problem.get("title"):
        return problem["title"]
    left, right = problem.get("left") or {}, problem.get("right") or {}
    paths = [end["path"] for end in (left, right) if end.get("path") is not None]
    where = (paths[0] or "/") if paths else "?"
    kind, transform = problem.get("kind") or "problem", problem.get("transform")
    before, _, after = (transform or "").partition(">")
    if len(paths) == 2 and paths[0] != paths[1]:  # renamed, moved, case_changed
        change = f" ({after} instead of {before})" if after else ""
        return f"{paths[0] or '/'} sent as {paths[1] or '/'}{change}"
    if after and kind in ("type_changed", "format_changed", "enum_changed", "case_changed"):
        return f"{where} sent as {after} instead of {before}"
    phrases = {
        "scaled": f"{where} sent {_scale(transform)}",
        "value_changed": f"{where} sent with another value",
        "dropped": f"{where} dropped on the way to the {str(problem.get('stages') or 'request').split('>')[-1]}",
        "added": f"{where} sent but given by no argument",
        "echo_mismatch": f"the response echoes {where} with another value",
        "error_shape": f"an error response breaks the error schema at {where}",
        "status_mismatch": f"the status and the body disagree at {where}",
        "invalid_json": f"the {(left or right).get('snapshot', 'snapshot')} is a string that is not valid JSON",
        "schema_violation": f"{(left or right).get('snapshot', '')} {where} breaks the schema"
                            f"{' (' + problem['keyword'] + ')' if problem.get('keyword') else ''}".strip(),
    }
    return phrases.get(kind, f"{kind} at {where}")


def _scale(transform: str | None) -> str:
    if transform and transform[0] in "x/":
        return f"{'multiplied' if transform[0] == 'x' else 'divided'} by {transform[1:]}"
    return "scaled by a power of ten"


def _rate(per_hour: float) -> str:
    """Write a rate short: 3, 0.4, 12 ("<0.1" for a rare problem)."""
    if per_hour >= 10:
        return str(round(per_hour))
    text = f"{per_hour:.1f}".rstrip("0").rstrip(".")
    return "<0.1" if text == "0" and per_hour > 0 else text


def _span(first: str | None, last: str | None) -> str:
    """Say over how long the calls were seen: " in 10 min", " in 3 h", " in 2 days" (by the calls' own times)."""
    try:
        seconds = (datetime.fromisoformat(last[:19]) - datetime.fromisoformat(first[:19])).total_seconds()
    except (TypeError, ValueError):
        return ""
    minutes = max(1, round(seconds / 60))
    if minutes < 120:
        return f" in {minutes} min"
    return f" in {round(minutes / 60)} h" if minutes < 48 * 60 else f" in {round(minutes / 1440)} days"


def _newest(releases) -> str | None:
    """Return the newest of some release names, numbers compared as numbers (1.10.0 after 1.9.2)."""
    if not releases:
        return None
    return max(releases, key=lambda name: [(0, int(part), "") if part.isdigit() else (1, 0, part)
                                           for part in name.replace("-", ".").split(".")])
