"""Escalating: a problem whose hourly rate is well above its 7-day baseline.

Its own baseline. Pure: no database, no clock.

The rate is the occurrences in one clock hour of the calls' own time; the baseline is the hours
before it, back seven days or to the problem's first sighting. "Well above" must beat both the mean
(a steady problem that doubles is news) and the peak (a nightly batch that peaks at the same height
every night is not), and a floor, so a problem seen twice a week does not escalate on its fifth
occurrence. An hour escalates once: when a batch takes its count over the line, not on every call
after.
"""

from datetime import UTC, datetime, timedelta

BASELINE_HOURS = 7 * 24
# younger problems are new, not escalating
MIN_HISTORY_HOURS = 24
MIN_BURST = 10
MEAN_FACTOR = 4
PEAK_FACTOR = 1.5
# a call older than this by its own time is a backfill: it never escalates
RECENT = timedelta(hours=1)


def hour_of(ts: str) -> str:
    """Return the hour key the store counts a time under ("2026-12-01T17")."""
    return ts[:13]


def baseline_range(hour: str) -> tuple[str, str]:
    """Return the first and last hour keys of the baseline of an hour.

    The 7 days before it."""
    start = _hour(hour)
    return _key(start - timedelta(hours=BASELINE_HOURS)), _key(start - timedelta(hours=1))


def is_recent(ts: str, now: str) -> bool:
    """Say whether a call's own time is recent enough to escalate a problem.

    Backfills are not."""
    try:
        return _parse(now) - _parse(ts) <= RECENT
    except (TypeError, ValueError):
        return False


def threshold(history: dict[str, int], hour: str, first_seen: str | None) -> float | None:
    """Return the count an hour must reach to escalate, else None.

    None when the problem is too young to have a baseline."""
    if not first_seen:
        return None
    covered = min(
        BASELINE_HOURS, int((_hour(hour) - _hour(hour_of(first_seen))).total_seconds() // 3600)
    )
    if covered < MIN_HISTORY_HOURS:
        return None
    first, last = baseline_range(hour)
    counts = [n for h, n in history.items() if first <= h <= last and n > 0]
    mean = sum(counts) / covered
    return max(MIN_BURST, MEAN_FACTOR * mean, PEAK_FACTOR * max(counts, default=0))


def escalation(
    history: dict[str, int], hour: str, before: int, after: int, first_seen: str | None
) -> str | None:
    """Say why an hour's count escalates the problem, or None when it does not.

    The count went from `before` to `after`."""
    line = threshold(history, hour, first_seen)
    if line is None or not before < line <= after:
        return None
    first, last = baseline_range(hour)
    total = sum(n for h, n in history.items() if first <= h <= last)
    return (
        f"escalating: {after} occurrences in the hour from {hour}:00Z, {total} in the 7 days "
        f"before (line at {line:g})"
    )


def _hour(key: str) -> datetime:
    return datetime.strptime(key, "%Y-%m-%dT%H").replace(tzinfo=UTC)


def _key(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H")


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))
