"""Reading dates and scales from text.

The fast readers give what strptime and a plain search give."""

import itertools
from datetime import UTC, datetime

import pytest

from webapp.analysis.values.classify import classify
from webapp.analysis.values.readings import _DATE_FORMATS, power_of_ten, read_dates

# ١ is an Arabic-Indic 1: strptime reads it
DAYS = ("1", " 5", "29", "31", "32", "0", "١")
MONTHS = ("02", "12", "13", "0")
YEARS = ("2024", "0000")


def _strptime_readings(text: str) -> list:
    """What read_dates gave before: every format strptime accepts, in the formats' order."""
    found = []
    for fmt in _DATE_FORMATS:
        try:
            found.append((datetime.strptime(text, fmt).replace(tzinfo=UTC), "%H" in fmt))
        except ValueError:
            continue
    return found


def _texts(fmt: str):
    for day, month, year in itertools.product(DAYS, MONTHS, YEARS):
        base = fmt.replace("%d", day).replace("%m", month).replace("%Y", year)
        for hour, minute, second in (("10", "30", "00"), ("24", "00", "00"), ("7", "5", "60")):
            yield base.replace("%H", hour).replace("%M", minute).replace("%S", second)


@pytest.mark.parametrize("fmt", [f for f in _DATE_FORMATS if "%b" not in f and "%B" not in f])
def test_a_numeric_date_format_is_read_as_strptime_reads_it(fmt):
    for text in _texts(fmt):
        for variant in (text, text.replace(" ", "   "), text + "x", text.lower()):
            if 6 <= len(variant.strip()) <= 40 and variant == variant.strip():
                assert read_dates(variant) == _iso(variant) + _strptime_readings(variant), variant


def _iso(text: str) -> list:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return []
    return [
        (
            moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment,
            "T" in text or ":" in text,
        )
    ]


def test_a_day_month_date_reads_both_ways_and_an_iso_date_reads_once():
    both = read_dates("03/04/2026 10:30:00")
    assert [moment.month for moment, _ in both] == [4, 3]
    assert read_dates("2026-04-03T10:30:00Z") == [(datetime(2026, 4, 3, 10, 30, tzinfo=UTC), True)]
    # no such day in either order
    assert read_dates("31/02/2026") == []


@pytest.mark.parametrize("a", [1, 3, 7, 1500, -42, 0.5, 123.456, 10**12])
def test_power_of_ten_finds_the_one_power_a_number_was_scaled_by(a):
    for k in range(-11, 12):
        b = a * 10.0**k
        expected = next(
            (n for n in range(-9, 10) if n and abs(b / a - 10.0**n) <= 1e-9 * 10.0**n), None
        )
        assert power_of_ten(a, b) == expected
        assert power_of_ten(a, b * 1.001) is None
    assert power_of_ten(a, 0) is None and power_of_ten(0, a) is None


@pytest.mark.parametrize(
    "a, b",
    [
        # Google Calendar's freeBusy, a Berlin morning written in UTC
        ("2026-11-15T09:00:00", "2026-11-15T08:00:00Z"),
        ("2026-11-15T08:00:00.000Z", "2026-11-15T09:00:00"),
        # India's half hour, Nepal's quarter
        ("2026-03-01T12:00:00", "2026-03-01T06:30:00+00:00"),
        ("2026-03-01T12:00:00", "2026-03-01T06:15:00Z"),
    ],
)
def test_a_time_without_an_offset_read_in_a_zone_is_the_same_local_time(a, b):
    assert classify(a, b)[0] == "format_changed"
    assert "local time" in classify(a, b)[1]


@pytest.mark.parametrize(
    "a, b",
    [
        # no zone is 20 hours off, nor 7 minutes
        ("2026-11-15T09:00:00", "2026-11-14T13:00:00Z"),
        ("2026-11-15T09:00:00", "2026-11-15T08:53:00Z"),
        # both without an offset, or both with one: another time
        ("2026-11-15T09:00:00", "2026-11-15T08:00:00"),
        ("2026-11-15T09:00:00+01:00", "2026-11-15T09:00:00Z"),
    ],
)
def test_another_time_is_no_local_reading(a, b):
    assert classify(a, b)[0] == "value_changed"


def test_an_id_written_with_a_colon_for_a_dash_changed_only_its_separators():
    # Figma's node ids: `1234-5678` in a URL, `1234:5678` in the API
    assert classify("1234-5678", "1234:5678")[0] == "enum_changed"
    assert classify("1234-5678", "1234:5679")[0] == "value_changed"
