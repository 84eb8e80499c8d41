"""A problem's occurrences over time, in as many bars as fit: the range follows the filters (pure)."""
from datetime import datetime, timedelta, timezone
from functools import lru_cache

MAX_SPAN_DAYS = 31
BARS = 48
_HOUR = "%Y-%m-%dT%H"


def _parse(text: str) -> datetime:
    """Read a stored or filter time (RFC 3339, a day, or 'YYYY-MM-DDTHH') as UTC."""
    moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


def default_range(first_seen: str | None, last_seen: str | None, since: str = "", until: str = "") -> tuple[str, str]:
    """Return (since, until) for a strip: the filters' range, else the problem's own span (at most a month)."""
    end = _parse(until) if until else (_parse(last_seen) if last_seen else datetime.now(timezone.utc))
    if since:
        start = _parse(since)
    else:
        start = _parse(first_seen) if first_seen else end - timedelta(days=1)
        start = max(start, end - timedelta(days=MAX_SPAN_DAYS))
    start = min(start, end - timedelta(hours=1))
    return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")


@lru_cache(maxsize=64)
def _layout(since: str, until: str, bars: int) -> tuple[int, tuple, dict]:
    """Return (step hours, bar (start, end) labels, {hour key: bar index}) of a range; shared by every row."""
    start, end = _parse(since).replace(minute=0, second=0, microsecond=0), _parse(until)
    hours = max(1, int((end - start).total_seconds() // 3600) + 1)
    step = max(1, -(-hours // bars))
    labels, index = [], {}
    for number in range(-(-hours // step)):
        first = start + timedelta(hours=number * step)
        labels.append((first.strftime(_HOUR), (first + timedelta(hours=step)).strftime("%Y-%m-%dT%H:00:00Z")))
        for h in range(step):
            index[(first + timedelta(hours=h)).strftime(_HOUR)] = number
    return step, tuple(labels), index


def buckets(counts: dict[str, int], since: str, until: str, bars: int = BARS) -> dict:
    """Group {hour: occurrences} into at most `bars` equal bars from since to until."""
    step, labels, index = _layout(since, until, bars)
    totals = [0] * len(labels)
    for hour, count in counts.items():
        if hour in index:
            totals[index[hour]] += count
    out = [{"start": first, "end": last, "occurrences": total} for (first, last), total in zip(labels, totals)]
    return {"since": since, "until": until, "step_hours": step, "bars": out, "peak": max(totals, default=0)}


def sparkline(strip: dict, width: int = 120, height: int = 20) -> list[dict]:
    """Return SVG bar geometry for a strip: x, width, height and the bar's count and time."""
    bars = strip["bars"]
    if not bars:
        return []
    slot = width / len(bars)
    peak = strip["peak"] or 1
    # empty bars draw nothing, so they are left out (a list page draws 50 of these)
    return [{"x": round(i * slot, 2), "w": max(1.0, round(slot - 1, 2)),
             "h": max(2, round(height * b["occurrences"] / peak)),
             "occurrences": b["occurrences"], "start": b["start"], "end": b["end"]}
            for i, b in enumerate(bars) if b["occurrences"]]
