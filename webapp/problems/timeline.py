"""A problem's occurrences over time, in as many bars as fit: the range follows the filters (pure)."""
from datetime import datetime, timedelta, timezone
from functools import lru_cache

from ..times import stamp

MAX_SPAN_DAYS = 31
BARS = 48
_HOUR = "%Y-%m-%dT%H"


EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9000, 1, 1, tzinfo=timezone.utc)


def _parse(text: str) -> datetime:
    """Read a stored or filter time (RFC 3339, a day, or 'YYYY-MM-DDTHH') as UTC, within 1970..9000."""
    moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    # since=999999w reaches year 1: a strip's bars and labels need room on both sides of their range
    return min(max(moment, EARLIEST), LATEST)


def list_range(since: str, until: str, latest: str | None, days: int) -> tuple[str, str]:
    """Return (since, until) of the list's sparklines: the filters' range, else `days` up to the latest seen."""
    end = _parse(until) if until else (_parse(latest) if latest else datetime.now(timezone.utc))
    start = _parse(since) if since else end - timedelta(days=days)
    return stamp(start), stamp(max(end, start + timedelta(hours=1)))


def default_range(first_seen: str | None, last_seen: str | None, since: str = "", until: str = "") -> tuple[str, str]:
    """Return (since, until) for a strip: the filters' range, else the problem's own span (at most a month)."""
    end = _parse(until) if until else (_parse(last_seen) if last_seen else datetime.now(timezone.utc))
    if since:
        start = _parse(since)
    else:
        start = _parse(first_seen) if first_seen else end - timedelta(days=1)
        start = max(start, end - timedelta(days=MAX_SPAN_DAYS))
    start = min(start, end - timedelta(hours=1))
    return stamp(start), stamp(end)


@lru_cache(maxsize=64)
def _layout(since: str, until: str, bars: int) -> tuple[int, int, tuple]:
    """Return (step hours, first hour number, bar (start, end) labels) of a range; shared by every row."""
    start, end = _parse(since).replace(minute=0, second=0, microsecond=0), _parse(until)
    hours = max(1, int((end - start).total_seconds() // 3600) + 1)
    step = max(1, -(-hours // bars))
    labels = []
    for number in range(-(-hours // step)):
        first = start + timedelta(hours=number * step)
        labels.append((first.strftime(_HOUR), (first + timedelta(hours=step)).strftime("%Y-%m-%dT%H:00:00Z")))
    return step, int(start.timestamp()) // 3600, tuple(labels)


@lru_cache(maxsize=1 << 16)
def _hour_number(key: str) -> int:
    """Return the hours since the epoch of a 'YYYY-MM-DDTHH' key (-1 for one that is not)."""
    # Arithmetic, not a table of every hour in the range: a range since 2020 has 60,000 hours.
    try:
        moment = datetime(int(key[:4]), int(key[5:7]), int(key[8:10]), int(key[11:13]), tzinfo=timezone.utc)
    except ValueError:
        return -1
    return int(moment.timestamp()) // 3600


def buckets(counts: dict[str, int], since: str, until: str, bars: int = BARS) -> dict:
    """Group {hour: occurrences} into at most `bars` equal bars from since to until."""
    step, first, labels = _layout(since, until, bars)
    totals = [0] * len(labels)
    for hour, count in counts.items():
        number = _hour_number(hour)
        if number >= first and (number - first) // step < len(totals):
            totals[(number - first) // step] += count
    out = [{"start": start, "end": end, "occurrences": total} for (start, end), total in zip(labels, totals)]
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
