"""Ranges that fit the data (issue 25, item 3).

With no range given, the problems list's trend, the trace list's strip and a problem page's
occurrences show the last 24 hours when they hold calls, else the span that has them, and say which
window that is; quick links set since=1h, 6h, 24h or 7d. On both stores."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from problem_helpers import send
from release_helpers import CONTRACT, incident, order_call, stamp

from webapp import pipeline
from webapp.problems.windows import fitting_window

NOW = datetime(2026, 12, 3, 18, 30, tzinfo=UTC)


def window_line(html: str) -> str:
    """Return the text of the first line that says which window a region shows."""
    found = re.search(r'<p class="window">(.*?)</p>', html, re.S)
    assert found, "no window line"
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split())


def quick_links(html: str) -> list[str]:
    region = html[html.index('class="quick-links"') :]
    return re.findall(r'href="([^"]+)"', region[: region.index("</span>")])


def legend_hours(html: str) -> tuple[str, str]:
    """Return the first and last hour the trace list's strip draws, as its legend says them."""
    found = re.search(
        r"per hour \(each tool on its own scale\), (\S+ \S+):00 to (\S+ \S+):59 UTC", html
    )
    assert found, "no strip legend"
    return found.group(1), found.group(2)


def problem_ids(client, **filters) -> dict:
    query = "&".join(f"{k}={v}" for k, v in filters.items())
    return {
        p["kind"]: p["id"] for p in client.get(f"/api/v1/problems?{query}").get_json()["problems"]
    }


@pytest.fixture
def old_incident(client, store):
    """The four-hour incident of tests/release_helpers.py, ten days ago, from a whole hour (18:00 to
    21:56)."""
    base = (datetime.now(UTC) - timedelta(days=10)).replace(minute=0, second=0, microsecond=0)
    store.put_tool("findOrders", CONTRACT)
    send(client, *incident(base))
    pipeline.catch_up(store)
    return client, base


def hours(base: datetime, *offsets: int) -> list[str]:
    return [(base + timedelta(hours=n)).strftime("%Y-%m-%d %H") for n in offsets]


def test_the_window_that_fits_is_the_last_day_the_span_since_the_first_call_or_the_span_that_has_calls():
    assert fitting_window(None, None, NOW).words == "the last 24 hours"
    recent = fitting_window("2026-11-20T10:00:00Z", "2026-12-03T17:00:00Z", NOW)
    assert (recent.since, recent.until, recent.words) == (
        "2026-12-02T18:30:00.000000Z",
        "2026-12-03T18:30:00.000000Z",
        "the last 24 hours",
    )
    began = fitting_window("2026-12-03T14:40:00Z", "2026-12-03T18:20:00Z", NOW)
    assert (
        began.since == "2026-12-03T14:00:00.000000Z"
        and began.words == "the last 4 h 30 min, since the first call"
    )
    old = fitting_window("2026-11-23T18:00:00Z", "2026-11-23T21:56:00Z", NOW)
    assert (old.since, old.until) == ("2026-11-23T18:00:00.000000Z", "2026-11-23T22:00:00.000000Z")
    assert old.words == "4 h up to the newest call, 2026-11-23 21:56"
    # a long span that ended days ago: a week up to the newest call, never more
    long = fitting_window("2026-10-01T00:00:00Z", "2026-11-23T21:56:00Z", NOW)
    assert long.since == "2026-11-16T22:00:00.000000Z" and long.words.startswith(
        "7 d up to the newest call"
    )


def test_a_four_hour_incident_ten_days_ago_is_shown_over_its_hours_not_a_week_ending_now(
    old_incident,
):
    client, base = old_incident
    first, _, _, last, end = hours(base, 0, 1, 2, 3, 4)
    newest = stamp(base, 236)[:16].replace("T", " ")
    # the trace list's strip: the four hours that have calls, 18:00 to 21:59, and it says so
    page = client.get("/").get_data(as_text=True)
    assert legend_hours(page) == (first, last)
    assert window_line(page) == (
        f"Calls per hour: 4 h up to the newest call, {newest} (no range asked: the window that "
        "fits the data)."
        " Show the last 1 h, 6 h, 24 h, 7 d"
    )
    # the problems list's trend: the same hours (its newest occurrence came at 21:40)
    listed = client.get("/problems").get_data(as_text=True)
    assert f"Occurrences from {first}:00 to {end}:00 UTC" in listed
    assert window_line(listed).startswith("Trend: 4 h up to the newest call")
    spark = listed[listed.index('class="spark"') :]
    # the occurrences spread over the bars
    assert len(re.findall(r"<rect ", spark[: spark.index("</svg>")])) > 3
    # a problem page: its own hours, in bars of minutes
    kinds = problem_ids(client)
    old, status = (
        client.get(f"/problems/{kinds[k]}").get_data(as_text=True)
        for k in ("type_changed", "enum_changed")
    )
    assert f"<h2>Occurrences <small>{first}:00 to {end}:00 UTC, 5 min per bar</small></h2>" in old
    assert window_line(old).startswith("Occurrences: 4 h up to the newest call")
    # 1.1.0's calls: 19:04 to 20:56
    assert window_line(status).startswith("Occurrences: 2 h up to the newest call")
    assert f"<small>{hours(base, 1)[0]}:00 to {hours(base, 3)[0]}:00 UTC" in status


def test_data_of_the_last_day_is_shown_over_the_last_24_hours(client, store):
    store.put_tool("findOrders", CONTRACT)
    now = datetime.now(UTC)
    # calls three days ago and in the last two hours, every fifth with the old bug
    events = [
        e
        for n in range(10)
        for e in order_call(n, stamp(now, -3 * 24 * 60 + n), "1.0.0", old_bug=n % 5 == 0)
    ]
    events += [
        e
        for n in range(10, 20)
        for e in order_call(n, stamp(now, -220 + 10 * n), "1.0.0", old_bug=n % 5 == 0)
    ]
    send(client, *events)
    pipeline.catch_up(store)
    page = client.get("/").get_data(as_text=True)
    assert window_line(page).startswith("Calls per hour: the last 24 hours (no range asked")
    first, last = legend_hours(page)
    assert first == (now - timedelta(hours=24)).strftime("%Y-%m-%d %H") and last == now.strftime(
        "%Y-%m-%d %H"
    )
    listed = client.get("/problems").get_data(as_text=True)
    assert window_line(listed).startswith("Trend: the last 24 hours")
    shown = re.search(r"Occurrences from (\S+ \S+) to (\S+ \S+) UTC", listed)
    since = datetime.strptime(shown.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC)
    assert abs(since - (now - timedelta(hours=24))) < timedelta(minutes=2)
    problem = problem_ids(client)["type_changed"]
    assert window_line(client.get(f"/problems/{problem}").get_data(as_text=True)).startswith(
        "Occurrences: the last 24 hours"
    )


def test_data_that_began_hours_ago_is_shown_since_its_first_call(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *incident(datetime.now(UTC) - timedelta(hours=4)))
    pipeline.catch_up(store)
    for url, what in (("/", "Calls per hour"), ("/problems", "Trend")):
        line = window_line(client.get(url).get_data(as_text=True))
        assert re.match(
            rf"{what}: the last (\d+ h )?\d+ (h|min), since the first call \(no range asked", line
        ), line


def test_quick_links_set_since_keep_the_filters_and_the_window_says_what_was_asked(old_incident):
    client, _ = old_incident
    listed = client.get("/problems?tool=findOrders").get_data(as_text=True)
    assert quick_links(listed) == [
        f"/problems?tool=findOrders&amp;since={s}" for s in ("1h", "6h", "24h", "7d")
    ]
    traces = client.get("/?tool=findOrders").get_data(as_text=True)
    assert quick_links(traces) == [
        f"/?tool=findOrders&amp;since={s}" for s in ("1h", "6h", "24h", "7d")
    ]
    problem = problem_ids(client)["type_changed"]
    page = client.get(f"/problems/{problem}?since=2026-01-01&until=2026-01-02").get_data(
        as_text=True
    )
    assert quick_links(page) == [
        f"/problems/{problem}?since={s}" for s in ("1h", "6h", "24h", "7d")
    ]
    assert window_line(page).startswith("Occurrences: 2026-01-01 to 2026-01-02.")
    # following one: the list is the problems of that window (none: the incident was ten days ago),
    # said so
    week = client.get("/problems?tool=findOrders&since=7d").get_data(as_text=True)
    assert window_line(week) == "Trend: the last 7 d. Show the last 1 h, 6 h, 24 h, 7 d"
    assert (
        '<a href="/problems?tool=findOrders&amp;since=7d" class="current" aria-current="true">7 '
        "d</a>" in week
    )
    assert "No problems match" in week
