"""Read dates, epochs, numbers and booleans written as text.

To tell a format change from a new value."""

import math
import re
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

_DATE_FORMATS = (
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y",
    "%Y/%m/%d %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
    "%d-%m-%Y",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%Y%m%dT%H%M%SZ",
)
# Each format's shape as a regular expression: strptime costs ~50 us a call, a match ~0.3 us, so
# strptime runs only on the formats a text could be written in (one or two, not eighteen). The
# shapes are looser than strptime (it still decides); a space stands for any whitespace, as there.
_FIELDS = {
    "%d": r"\s?\d{1,2}",
    "%m": r"\s?\d{1,2}",
    "%Y": r"\d{4}",
    "%H": r"\s?\d{1,2}",
    "%M": r"\s?\d{1,2}",
    "%S": r"\s?\d{1,2}",
    "%b": r"[^\W\d_]{3,}",
    "%B": r"[^\W\d_]{3,}",
    " ": r"\s+",
}
# strptime's own field patterns (CPython's _strptime): a format of these fields alone is read by
# matching them and building the datetime, ~20x cheaper than strptime and the same readings.
_EXACT = {
    "%d": r"(?P<d>3[01]|[12]\d|0[1-9]|[1-9]| [1-9])",
    "%m": r"(?P<m>1[0-2]|0[1-9]|[1-9])",
    "%Y": r"(?P<Y>\d\d\d\d)",
    "%H": r"(?P<H>2[0-3]|[01]\d|\d)",
    "%M": r"(?P<M>[0-5]\d|\d)",
    "%S": r"(?P<S>6[01]|[0-5]\d|\d)",
    " ": r"\s+",
}


def _pattern(fmt: str, fields: dict) -> str | None:
    parts = re.split(r"(%[a-zA-Z]| )", fmt)
    if any(part.startswith("%") and part not in fields for part in parts):
        return None
    return "".join(fields.get(part) or re.escape(part) for part in parts)


def _exact_reader(fmt: str):
    pattern = _pattern(fmt, _EXACT)
    return re.compile(pattern, re.I) if pattern else None


_SHAPES = tuple(
    (fmt, re.compile(_pattern(fmt, _FIELDS) + r"\Z", re.I), _exact_reader(fmt))
    for fmt in _DATE_FORMATS
)
# One match tells whether any format could read a text (most texts: none, and 18 matches saved).
_ANY_SHAPE = re.compile("|".join(f"(?:{shape.pattern})" for _, shape, _ in _SHAPES), re.I)
_TWO_RUNS = re.compile(r"\d\D+\d")
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")
_US_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_EU_GROUPED = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$|^[+-]?\d+,\d+$")
# A time of day: 14:30, 14:30:00, 14:30:00.250, 2:30 PM, 2:30pm, 2 p.m. (the hour alone needs
# AM/PM).
_TIME = re.compile(
    r"^(\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(?:([ap])\.?\s?m\.?)?$", re.I
)
# seconds in a day: a date's last second is its first one plus DAY - 1
DAY = 86400
_TRUTH = {
    "true": True,
    "yes": True,
    "on": True,
    "1": True,
    "false": False,
    "no": False,
    "off": False,
    "0": False,
}


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def read_dates(text: str) -> list[tuple[datetime, bool]]:
    """Return every (instant, has_time) reading of a date or date-time string."""
    text = text.strip()
    if not 6 <= len(text) <= 40 or not any(map(str.isdigit, text[:4])) and not text[:1].isalpha():
        return []
    if _NUMBER.match(text) or not _TWO_RUNS.search(text):
        # every reading below has two runs of digits at least (a day and a year)
        return []
    readings = []
    try:
        readings.append((_utc(datetime.fromisoformat(text)), "T" in text or ":" in text))
    except ValueError:
        pass
    if _ANY_SHAPE.match(text):
        readings += _formatted(text)
    if not readings and ("," in text or text.endswith(("GMT", "UTC"))):
        try:
            readings.append((_utc(parsedate_to_datetime(text)), True))
        except (TypeError, ValueError, IndexError):
            pass
    return readings


def _formatted(text: str) -> list[tuple[datetime, bool]]:
    """Return the readings of text in each of _DATE_FORMATS that reads it.

    In their order."""
    readings = []
    for fmt, shape, exact in _SHAPES:
        if not shape.match(text):
            continue
        try:
            moment = _numeric(exact, text) if exact else datetime.strptime(text, fmt)
        except ValueError:
            continue
        if moment is not None:
            readings.append((_utc(moment), "%H" in fmt))
    return readings


def _numeric(exact, text: str) -> datetime | None:
    """Read text as strptime would with a format of numeric fields.

    A whole match, or nothing."""
    found = exact.match(text)
    if found is None or found.end() != len(text):
        return None
    fields = found.groupdict()
    return datetime(
        int(fields["Y"]),
        int(fields["m"]),
        int(fields["d"]),
        int(fields.get("H") or 0),
        int(fields.get("M") or 0),
        int(fields.get("S") or 0),
    )


def same_moment(a: str, b: str) -> str | None:
    """Tell whether two strings name the same date ("date") or instant ("date-time")."""
    for left, left_time in read_dates(a):
        for right, right_time in read_dates(b):
            if left_time and right_time and left == right:
                return "date-time"
            if not (left_time and right_time) and left.date() == right.date():
                return "date"
    return None


# the widest offset a time zone has (UTC-12 to UTC+14), and the step every zone's offset is a
# multiple of
_MAX_OFFSET = timedelta(hours=14)
_OFFSET_STEP = timedelta(minutes=15)


def same_local_time(a: str, b: str) -> str | None:
    """Tell whether a date-time without an offset was read in a zone and given one.

    `2026-11-15T09:00:00` sent as `2026-11-15T08:00:00Z` (Berlin): the first names no zone, so
    any whole offset a zone has is a reading of it, not another time."""
    try:
        left, right = datetime.fromisoformat(a.strip()), datetime.fromisoformat(b.strip())
    except ValueError:
        return None
    if (left.tzinfo is None) == (right.tzinfo is None):
        return None
    (naive, text), aware = ((left, a), right) if left.tzinfo is None else ((right, b), left)
    # a date alone names a day, not a time of it (`2026-03-01` sent at 09:00 is another time)
    if ":" not in text:
        return None
    shift = naive.replace(tzinfo=UTC) - aware
    if abs(shift) <= _MAX_OFFSET and not shift % _OFFSET_STEP:
        return "local time, read in a time zone"
    return None


def read_time(text: str) -> tuple[int, int, int, str] | None:
    """Read a time of day as (hour 0-23, minute, second, fraction digits), else None."""
    match = _TIME.match(text.strip())
    if not match:
        return None
    hour, minute, second, fraction, meridiem = match.groups()
    if minute is None and meridiem is None:
        return None
    hour, minute, second = int(hour), int(minute or 0), int(second or 0)
    if meridiem:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if meridiem.lower() == "p" else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return hour, minute, second, (fraction or "").rstrip("0")


def same_time(a: str, b: str) -> bool:
    """Tell whether two strings name the same time of day (14:30 and 2:30 PM)."""
    left = read_time(a)
    return left is not None and left == read_time(b)


def _epoch_readings(number):
    """Yield (unit, seconds) of each reading of a number as a Unix time.

    Those that fall between 1973 and 2286."""
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        return
    for unit, scale in (("seconds", 1), ("milliseconds", 1000)):
        seconds = number / scale
        if 1e8 <= abs(seconds) <= 1e10:
            yield unit, seconds


def epoch_unit(number, text: str) -> str | None:
    """Tell whether a number is a date-time string's epoch seconds or milliseconds."""
    for unit, seconds in _epoch_readings(number):
        for moment, has_time in read_dates(text):
            if abs(moment.timestamp() - seconds) < 1 or (
                not has_time and moment.date() == datetime.fromtimestamp(seconds, UTC).date()
            ):
                return unit
    return None


def unix_time_of(number, text: str) -> str | None:
    """Tell whether a number is a date text's Unix time, in seconds or milliseconds.

    Exactly its instant, or for a date alone (`15/11/2026`) its day's first or last second in UTC
    (a layer sends a range's end as 23:59:59): "seconds" or "milliseconds", else None."""
    for unit, seconds in _epoch_readings(number):
        for moment, has_time in read_dates(text):
            offset = seconds - moment.timestamp()
            if abs(offset) < 1e-3 or (not has_time and DAY - 1 <= offset < DAY):
                return unit
    return None


def read_number(text: str) -> int | float | None:
    """Read a number written as text, with 1,999.00 and 1.999,00 groupings.

    Whole numbers come back as exact integers: a float would make 9007199254740993 (2**53 + 1)
    equal to its neighbour and unequal to itself."""
    text = text.strip()
    if _NUMBER.match(text):
        return _exact(text)
    if _US_GROUPED.match(text):
        return _exact(text.replace(",", ""))
    if _EU_GROUPED.match(text):
        return _exact(text.replace(".", "").replace(",", "."))
    return None


def _exact(digits: str) -> int | float:
    if _INTEGER.match(digits):
        try:
            return int(digits)
        # beyond Python's digit limit for int(): no exact reading to give
        except ValueError:
            pass
    return float(digits)


def read_truth(value) -> bool | None:
    """Read a boolean written as a string or as 0/1, else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _TRUTH.get(value.strip().lower())
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    return None


def power_of_ten(a, b) -> int | None:
    """Return k when b == a * 10**k for a small non-zero k, else None."""
    if not a or not b or (a < 0) != (b < 0):
        return None
    try:
        ratio = b / a
    # exact integers too far apart for a float ratio
    except OverflowError:
        return None
    if not 1e-10 < ratio < 1e10:
        return None
    # The only candidate is the nearest power (the tolerance is far below the gap between two).
    k = round(math.log10(ratio))
    if k and -9 <= k <= 9 and abs(ratio - 10.0**k) <= 1e-9 * 10.0**k:
        return k
    return None
