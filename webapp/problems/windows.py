"""The window a page shows when none is asked for: one that fits the data (pure).

A fixed week made a four-hour incident a sliver at the right edge. So with no range given, the
problems list's trend, the trace list's strip and a problem page's occurrences show the last 24
hours when the data has calls in them (starting at the first call when that came later), else the
span that has calls (up to `max_days`, ending at the newest); and they say in words which window
that is. The quick links set a range of their own.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..common.times import parse as _parse
from ..common.times import stamp

RECENT = timedelta(hours=24)
# a window is never narrower: a single call still shows in a readable bar
LEAST = timedelta(hours=1)
# label, `since` value
QUICK = (("1 h", "1h"), ("6 h", "6h"), ("24 h", "24h"), ("7 d", "7d"))


@dataclass(frozen=True)
class Window:
    since: str
    until: str
    # "the last 24 hours", "the last 4 h, since the first call", "6 h up to the newest call"
    words: str


def fitting_window(
    oldest: str | None, newest: str | None, now: datetime | None = None, max_days: int = 7
) -> Window:
    """Return the window that shows the data whose calls span oldest..newest.

    None: no data yet."""
    now = now or datetime.now(UTC)
    if not newest:
        return Window(stamp(now - RECENT), stamp(now), "the last 24 hours")
    last, first = _parse(newest), _parse(oldest or newest)
    if last >= now - RECENT:
        start = max(now - RECENT, _hour(first))
        start = min(start, now - LEAST)
        if start <= now - RECENT:
            return Window(stamp(start), stamp(now), "the last 24 hours")
        return Window(
            stamp(start), stamp(now), f"the last {_span(now - start)}, since the first call"
        )
    end = _hour(last) + timedelta(hours=1)
    start = min(max(_hour(first), end - timedelta(days=max_days)), end - LEAST)
    return Window(
        stamp(start),
        stamp(end),
        f"{_span(end - start)} up to the newest call, {newest[:16].replace('T', ' ')}",
    )


def asked_window(since: str, until: str, now: datetime | None = None) -> str:
    """Say in words the window a range asked for shows.

    "since 6h", "2026-12-01 10:00 to 12:00"."""
    if since and not until and since[:-1].isdigit():
        return (
            f"the last {since[:-1]} "
            f"{dict(m='min', h='h', d='d', w='weeks').get(since[-1], since[-1])}"
        )
    shown = [text[:16].replace("T", " ") for text in (since, until)]
    return f"{shown[0] or 'the start'} to {shown[1] or 'now'}"


def _hour(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def _span(length: timedelta) -> str:
    """Say a length in the unit that reads best.

    "45 min", "4 h 30 min", "4 h", "3 d"."""
    minutes = round(length.total_seconds() / 60)
    if minutes < 60 or (minutes < 120 and minutes % 60):
        return f"{minutes} min"
    # an incident's hours read to the minute
    if minutes < 12 * 60 and minutes % 60:
        return f"{minutes // 60} h {minutes % 60} min"
    hours = round(minutes / 60)
    return f"{hours} h" if hours < 72 else f"{round(hours / 24)} d"
