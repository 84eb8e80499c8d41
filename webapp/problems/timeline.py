"""A problem's occurrences over time.

In as many bars as fit over exactly the range asked for (pure).

A bar holds only occurrences inside the range: a short range is counted from the calls' own times in
bars finer than an hour; a long one from the hourly rollup, its two partial edge hours from the
calls' times.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from ..common.times import stamp

MAX_SPAN_DAYS = 31
BARS = 48
# a range up to this long gets bars under an hour, counted from its calls' own times
FINE_HOURS = 6
# seconds a bar under an hour can span
FINE_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800)
HOUR = 3600
# past this many in a short range, hourly bars: fine bars read every call
FINE_MAX_OCCURRENCES = 20_000
# until is inclusive: reads stop just after it
TICK = timedelta(microseconds=1)

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _parse(text: str) -> datetime:
    """Read a stored or filter time as UTC, within 1970..9000.

    RFC 3339, a day, or 'YYYY-MM-DDTHH'."""
    moment = datetime.fromisoformat(text.strip().replace("z", "Z"))
    moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    # since=999999w reaches year 1: a strip's bars and labels need room on both sides of their range
    return min(max(moment, EARLIEST), LATEST)


def list_range(since: str, until: str, latest: str | None, days: int) -> tuple[str, str]:
    """Return (since, until) of the list's sparklines.

    The filters' range (a since alone runs to now), else `days` up to the latest seen."""
    now = datetime.now(UTC)
    end = _parse(until) if until else (now if since or not latest else _parse(latest))
    start = _parse(since) if since else end - timedelta(days=days)
    return stamp(start), stamp(max(end, start))


def default_range(
    first_seen: str | None, last_seen: str | None, since: str = "", until: str = ""
) -> tuple[str, str]:
    """Return (since, until) for a strip.

    The filters' range as asked (a since alone runs to now), else the problem's own span (at most a
    month; an hour at least, as no call of it came before its first)."""
    if since:
        start = _parse(since)
        end = _parse(until) if until else max(datetime.now(UTC), start)
        return stamp(start), stamp(end)
    end = _parse(until) if until else (_parse(last_seen) if last_seen else datetime.now(UTC))
    start = _parse(first_seen) if first_seen else end - timedelta(days=1)
    start = max(start, end - timedelta(days=MAX_SPAN_DAYS))
    start = min(start, end - timedelta(hours=1))
    return stamp(start), stamp(end)


@dataclass(frozen=True)
class Layout:
    """Where a strip's bars fall.

    `count` bars of `step` seconds from `origin`, clipped to since..until."""

    since: datetime
    until: datetime
    origin: datetime
    step: int
    count: int

    @property
    def fine(self) -> bool:
        return self.step < HOUR

    def reads(self) -> tuple[tuple[str, str] | None, list[tuple[str, str]], int]:
        """Return what to read.

        (first, last hour key of the rollup, or None), the [from, to) time ranges to count from the
        calls, and how many characters of a call's time key its bar (16: minute, 13: hour)."""
        end = self.until + TICK
        if self.fine:
            return None, [(stamp(self.since), stamp(end))], 19 if self.step < 60 else 16
        first = _floor(self.since, HOUR)
        # the first hour wholly inside
        first += timedelta(hours=0 if first == self.since else 1)
        # the hour after the last one wholly inside
        after = _floor(end, HOUR)
        if after <= first:
            return None, [(stamp(self.since), stamp(end))], 13
        edges = [(stamp(a), stamp(b)) for a, b in ((self.since, first), (after, end)) if a < b]
        return (stamp(first)[:13], stamp(after - timedelta(hours=1))[:13]), edges, 13


def _floor(moment: datetime, seconds: int) -> datetime:
    """Round a time down to a multiple of `seconds` since the epoch."""
    whole = (moment - EARLIEST) // timedelta(seconds=seconds)
    return EARLIEST + timedelta(seconds=whole * seconds)


def _bars_from(since: datetime, until: datetime, step: int, align: int) -> tuple[datetime, int]:
    origin = _floor(since, align)
    return origin, max(1, -(-(until - origin) // timedelta(seconds=step)))


@lru_cache(maxsize=64)
def layout(since: str, until: str, bars: int = BARS, fine: bool = True) -> Layout:
    """Lay out at most `bars` bars over since..until.

    The finest step that fits (whole hours past FINE_HOURS, or when `fine` is off), aligned to the
    clock so a bar reads 10:05-10:10; the end bars are clipped."""
    start, end = _parse(since), _parse(until)
    if fine and end - start <= timedelta(hours=FINE_HOURS):
        for step in FINE_STEPS:
            origin, count = _bars_from(start, end, step, step)
            if count <= bars:
                return Layout(start, end, origin, step, count)
    hours = max(1, -(-(end - start) // timedelta(hours=bars)))
    # once more at most: the hour the range starts in can add a bar
    while True:
        origin, count = _bars_from(start, end, hours * HOUR, HOUR)
        if count <= bars:
            return Layout(start, end, origin, hours * HOUR, count)
        hours += 1


@lru_cache(maxsize=1 << 16)
def _key_seconds(key: str) -> int | None:
    """Return the seconds since the epoch of a time key, or None.

    'YYYY-MM-DDTHH', '...:MM' or '...:MM:SS'."""
    # Arithmetic, not a table of every hour in the range: a range since 2020 has 60,000 hours.
    try:
        moment = datetime(
            int(key[:4]),
            int(key[5:7]),
            int(key[8:10]),
            int(key[11:13]),
            int(key[14:16] or 0),
            int(key[17:19] or 0),
            tzinfo=UTC,
        )
    except ValueError:
        return None
    return int((moment - EARLIEST).total_seconds())


@lru_cache(maxsize=64)
def _labels(plan: Layout) -> tuple[tuple[str, str], ...]:
    """Return each bar's (start, end) in the fixed form, clipped to the range.

    Shared by every row of a list."""
    out = []
    for number in range(plan.count):
        first = plan.origin + timedelta(seconds=number * plan.step)
        out.append(
            (
                stamp(max(first, plan.since)),
                stamp(min(first + timedelta(seconds=plan.step), plan.until)),
            )
        )
    return tuple(out)


def buckets(counts: dict[str, int], plan: Layout) -> dict:
    """Group {time key: occurrences} into the layout's bars.

    Keys inside the range only."""
    totals = [0] * plan.count
    origin = int((plan.origin - EARLIEST).total_seconds())
    for key, count in counts.items():
        seconds = _key_seconds(key)
        if seconds is not None and seconds >= origin:
            totals[min((seconds - origin) // plan.step, plan.count - 1)] += count
    out = [
        {"start": start, "end": end, "occurrences": total}
        for (start, end), total in zip(_labels(plan), totals)
    ]
    step_hours = plan.step // HOUR if plan.step % HOUR == 0 else round(plan.step / HOUR, 6)
    return {
        "since": stamp(plan.since),
        "until": stamp(plan.until),
        "step_hours": step_hours,
        "step_seconds": plan.step,
        "bars": out,
        "peak": max(totals, default=0),
    }


def per_hour(counts: dict[str, int]) -> dict[str, int]:
    """Sum {time key: occurrences} into {'YYYY-MM-DDTHH': occurrences}."""
    hours: dict[str, int] = {}
    for key, count in counts.items():
        hours[key[:13]] = hours.get(key[:13], 0) + count
    return dict(sorted(hours.items()))


def step_words(seconds: int) -> str:
    """Say how long a bar is: "30 s", "5 min", "1 h", "2 d"."""
    for unit, size in (("d", 86400), ("h", HOUR), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def sparkline(strip: dict, width: int = 120, height: int = 20) -> list[dict]:
    """Return SVG bar geometry for a strip.

    X, width, height and the bar's count and time."""
    bars = strip["bars"]
    if not bars:
        return []
    slot = width / len(bars)
    peak = strip["peak"] or 1
    # empty bars draw nothing, so they are left out (a list page draws 50 of these)
    return [
        {
            "x": round(i * slot, 2),
            "w": max(1.0, round(slot - 1, 2)),
            "h": max(2, round(height * b["occurrences"] / peak)),
            "occurrences": b["occurrences"],
            "start": b["start"],
            "end": b["end"],
        }
        for i, b in enumerate(bars)
        if b["occurrences"]
    ]


def too_many_for_fine(hourly: dict[int, dict[str, int]]) -> bool:
    """Say whether a range's hours hold too many occurrences to read call by call.

    `hourly` is {problem: {hour key: occurrences}}, as the hourly rollup reads it."""
    return sum(sum(hours.values()) for hours in hourly.values()) > FINE_MAX_OCCURRENCES


def drawn(counts: dict[str, int], plan: Layout) -> dict:
    """Return one problem's strip: its counts in the plan's bars, and `hours`.

    `counts` is {time key: occurrences}: hour keys from the rollup, finer keys from the calls."""
    return {**buckets(counts, plan), "hours": per_hour(counts)}
