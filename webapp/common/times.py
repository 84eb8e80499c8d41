"""The one text form of every stored time.

RFC 3339 in UTC, microseconds, `Z` (`2026-12-01T10:00:07.500000Z`).

Stores compare and sort times as text, so every time they hold has the same width: then text order
is time order. A trimmed fraction broke that within a second ('Z' sorts after '.', so `10:00:07Z`
came after `10:00:07.5Z`). Microseconds, not nanoseconds: Python's datetime, PostgreSQL's timestamps
and JavaScript's Date go no finer; OTLP's nanoseconds are cut (floored, so a time never moves into
the next second), and two events of one call within the same microsecond keep their order by arrival
(the store's seq). Pages show `display()`, the same time with the fraction's trailing zeros dropped.
"""

from datetime import UTC, datetime, timedelta

# len("2026-12-01T10:00:07.500000Z")
WIDTH = 27
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    """Return a datetime (naive means UTC) in the stored form."""
    moment = moment.astimezone(UTC) if moment.tzinfo else moment
    # by hand, not strftime: glibc writes year 1 as "1", not "0001"
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:"
        f"{moment.second:02d}.{moment.microsecond:06d}Z"
    )


def now(hours_ago: float = 0) -> str:
    """Return the time now (or some hours ago; negative: ahead) in the stored form."""
    return stamp(datetime.now(UTC) - timedelta(hours=hours_ago))


def from_ns(ns: int) -> str:
    """Return nanoseconds since the epoch (OTLP's times) in the stored form.

    Cut to the microsecond."""
    return stamp(EPOCH + timedelta(microseconds=ns // 1000))


def parse(text: str) -> datetime:
    """Read an RFC 3339 time or a day as an aware UTC datetime.

    Any fraction width; no offset means UTC.

    ValueError when the text is no such time, or the calendar has none (2026-13-45, year 0 in
    UTC)."""
    # 3.11 cuts a fraction to 6
    moment = datetime.fromisoformat(text.strip().replace("z", "Z").replace("t", "T"))
    try:
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    # 0001-01-01T00:00+01:00 is before the calendar begins in UTC
    except OverflowError as error:
        raise ValueError(f"{text} is out of range") from error


def fixed(text: str) -> str:
    """Return an RFC 3339 time or a day in the stored form.

    A day means its midnight, UTC."""
    if len(text) == WIDTH and text[19] == "." and text[26] == "Z":
        # already stored form: most calls, and cheap to tell
        return text
    return stamp(parse(text))


def display(text: str | None) -> str:
    """Return a stored time as people read it.

    `2026-12-01T10:00:07.5Z`, the fraction's trailing zeros dropped."""
    if not text or len(text) != WIDTH:
        return text or ""
    fraction = text[20:26].rstrip("0")
    return text[:19] + (f".{fraction}" if fraction else "") + "Z"
