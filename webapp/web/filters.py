"""What the lists can be filtered by, parsed from a URL's query string (or the CLI's options): leniently for the
pages, strictly for the API, into the filters the store runs (webapp/store/filters.py)."""

from dataclasses import fields

from ..common import times
from ..common.digits import is_digits, problem_number
from ..store.filters import CHOICES, DAY_OR_TIME, MAX_LIMIT, RELATIVE, TraceQuery


def trace_query(args) -> TraceQuery:
    """Build a trace query from request args, ignoring values it does not know."""
    values = {f.name: _printable(args.get(f.name) or "") for f in fields(TraceQuery) if f.name != "limit"}
    for name, choices in CHOICES.items():
        if values[name] not in choices:
            values[name] = ""
    if problem_number(values["problem"]) is None:
        values["problem"] = ""
    try:
        limit = min(max(int(args.get("limit", 50)), 1), MAX_LIMIT)
    except ValueError:
        limit = 50
    return TraceQuery(limit=limit, **values)


def bad_trace_filter(args, kinds) -> str | None:
    """Say what is wrong with the first bad filter value in args (the API's strict way)."""
    if args.get("problem") and problem_number(args["problem"]) is None:
        return f"problem must be a problem id like TD-42; got {args['problem'][:40]!r}"
    return bad_filter(args, {**CHOICES, "kind": kinds})


def is_time(text: str) -> bool:
    """Say whether a since/until value is a real day, an RFC 3339 time or a relative time (2h, 7d)."""
    if RELATIVE.match(text):
        return True
    if not DAY_OR_TIME.match(text):
        return False
    try:  # the pattern lets 2026-13-45 or 25:00 through; the calendar does not
        times.parse(text)
    except ValueError:
        return False
    return True


def bad_filter(args, choices: dict) -> str | None:
    """Say what is wrong with the first bad choice, time or limit in args, or None (lists share these)."""
    for name, allowed in choices.items():
        value = (args.get(name) or "").strip()
        if value and value not in allowed:
            return f"{name} must be one of {', '.join(allowed)}; got {value[:40]!r}"
    bad = bad_time(args)
    if bad:
        return bad
    limit = args.get("limit")
    if limit is not None and not (is_digits(limit) and 1 <= int(limit) <= MAX_LIMIT):
        return f"limit must be a whole number from 1 to {MAX_LIMIT}; got {limit[:40]!r}"
    return None


def bad_time(args) -> str | None:
    """Say what is wrong with a since or until in args that is no time (2026-13-45 included), or None."""
    for name in ("since", "until"):
        value = (args.get(name) or "").strip()
        if value and not is_time(value):
            return (
                f"{name} must be a date, an RFC 3339 time like 2026-11-30T09:00:00Z or a time ago "
                f"like 2h or 7d; got {value[:40]!r}"
            )
    return None


def _printable(text: str) -> str:
    """Drop control characters (a NUL would end SQLite's reading of the search) and outer spaces."""
    return "".join(ch for ch in text if ch.isprintable() or ch == " ").strip()
