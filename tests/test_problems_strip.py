"""A problem's strip covers exactly the range asked for.

And a bar holds only occurrences inside it.

findOrders sends limit as a string at 09:05, 09:40 and 10:50 (one occurrence each, PAST's day)."""

import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.problems import timeline

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
# webapp/common/times.py's form
FIXED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


@pytest.fixture
def loaded(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *call(trace(1), at(5, PAST)),
        *call(trace(2), at(40, PAST)),
        *call(trace(3), at(110, PAST)),
    )
    pipeline.catch_up(store)
    return client


def strip(client, since: str, until: str = "") -> dict:
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    args = f"since={quote(since)}" + (f"&until={quote(until)}" if until else "")
    response = client.get(f"/api/v1/problems/{problem['id']}?{args}")
    assert response.status_code == 200, response.get_json()
    return response.get_json()["hourly"]


def total(hourly: dict) -> int:
    return sum(bar["occurrences"] for bar in hourly["bars"])


@pytest.mark.parametrize(
    "since, until, occurrences",
    [
        # one hour, half of it asked: 09:05 stays out
        ("2026-11-20T09:30:00Z", "2026-11-20T10:00:00Z", 1),
        # across two clock hours, none inside
        ("2026-11-20T09:50:00Z", "2026-11-20T10:40:00Z", 0),
        # an instant: the call at exactly that time
        ("2026-11-20T09:05:00Z", "2026-11-20T09:05:00Z", 1),
        ("2026-11-20T08:00:00Z", "2026-11-20T12:00:00Z", 3),
    ],
)
def test_the_strip_covers_exactly_the_range_asked_for(loaded, since, until, occurrences):
    hourly = strip(loaded, since, until)
    assert (hourly["since"], hourly["until"]) == (since[:19] + ".000000Z", until[:19] + ".000000Z")
    assert (
        hourly["bars"][0]["start"] == hourly["since"]
        and hourly["bars"][-1]["end"] == hourly["until"]
    )
    assert all(hourly["since"] <= b["start"] <= b["end"] <= hourly["until"] for b in hourly["bars"])
    assert total(hourly) == occurrences and sum(hourly["hours"].values()) == occurrences


def test_a_short_range_gets_bars_under_an_hour_and_each_call_falls_in_its_own(loaded):
    hourly = strip(loaded, "2026-11-20T09:00:00Z", "2026-11-20T11:00:00Z")
    assert hourly["step_seconds"] == 300 and len(hourly["bars"]) == 24 and hourly["step_hours"] < 1
    busy = [(b["start"], b["end"]) for b in hourly["bars"] if b["occurrences"]]
    assert busy == [
        ("2026-11-20T09:05:00.000000Z", "2026-11-20T09:10:00.000000Z"),
        ("2026-11-20T09:40:00.000000Z", "2026-11-20T09:45:00.000000Z"),
        ("2026-11-20T10:50:00.000000Z", "2026-11-20T10:55:00.000000Z"),
    ]
    assert hourly["hours"] == {"2026-11-20T09": 2, "2026-11-20T10": 1}


def test_a_long_range_reads_whole_hours_from_the_rollup_and_its_edge_hours_call_by_call(loaded):
    # 25 hours: hourly bars; 10:50 is in the range's last clock hour but after its end
    hourly = strip(loaded, "2026-11-19T09:30:00Z", "2026-11-20T10:45:00Z")
    assert (
        hourly["step_seconds"] % 3600 == 0
        and hourly["bars"][-1]["end"] == "2026-11-20T10:45:00.000000Z"
    )
    assert total(hourly) == 2 and hourly["hours"] == {"2026-11-20T09": 2}
    # and the first edge: 09:05 is in the range's first clock hour but before its start
    later = strip(loaded, "2026-11-20T09:10:00Z", "2026-11-21T12:00:00Z")
    assert total(later) == 2 and later["hours"] == {"2026-11-20T09": 1, "2026-11-20T10": 1}


def test_every_bar_time_is_in_the_fixed_form_and_pastes_back_as_a_bound(loaded):
    for hourly in (
        strip(loaded, "2026-11-20T09:00:00Z", "2026-11-20T11:00:00Z"),
        strip(loaded, "2026-11-19T09:00:00+02:00", "2026-11-20T11:00:00Z"),
    ):
        times = [hourly["since"], hourly["until"]] + [
            b[end] for b in hourly["bars"] for end in ("start", "end")
        ]
        assert all(FIXED.match(t) for t in times), times
        busy = next(b for b in hourly["bars"] if b["occurrences"])
        again = strip(loaded, busy["start"], busy["end"])
        assert total(again) == busy["occurrences"]
        # hour keys, documented
        assert all(re.match(r"^\d{4}-\d\d-\d\dT\d\d$", hour) for hour in hourly["hours"])


def test_a_time_ago_runs_to_now_and_counts_only_the_calls_inside(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-100)), *call(trace(2), at(-70)), *call(trace(3), at(-5)))
    pipeline.catch_up(store)
    began = datetime.now(UTC)
    hourly = strip(client, "30m")
    since, until = (
        datetime.fromisoformat(hourly[k].replace("Z", "+00:00")) for k in ("since", "until")
    )
    assert abs(since - (began - timedelta(minutes=30))) < timedelta(seconds=30)
    assert abs(until - began) < timedelta(seconds=30) and total(hourly) == 1
    assert total(strip(client, "60m", "30m")) == 0 and total(strip(client, "45m", "15m")) == 0
    assert total(strip(client, "90m", "60m")) == 1 and total(strip(client, "2h")) == 3


def test_the_problem_page_draws_the_range_asked_for_and_only_its_occurrences(loaded):
    [problem] = loaded.get("/api/v1/problems").get_json()["problems"]
    html = loaded.get(
        f"/problems/{problem['id']}?since=2026-11-20T09:30:00Z&until=2026-11-20T10:00:00Z"
    ).get_data(as_text=True)
    assert "2026-11-20 09:30 to 2026-11-20 10:00 UTC, 30 s per bar" in html
    strip_svg = html[
        html.index('class="hourly-strip"') : html.index(
            "</svg>", html.index('class="hourly-strip"')
        )
    ]
    assert re.findall(r"<title>([^<]*)</title>", strip_svg) == ["2026-11-20 09:40: 1"]


def test_the_list_sparklines_cover_the_range_asked_for(loaded):
    html = loaded.get("/problems?since=2026-11-20T09:30:00Z&until=2026-11-20T10:00:00Z").get_data(
        as_text=True
    )
    assert "Occurrences from 2026-11-20 09:30 to 2026-11-20 10:00 UTC" in html
    spark = html[html.index('class="spark"') : html.index("</svg>", html.index('class="spark"'))]
    assert sum(int(n) for n in re.findall(r": (\d+)</title>", spark)) == 1


def test_a_range_past_the_fine_limit_or_a_heavy_one_gets_whole_hour_bars():
    fine = timeline.FINE_HOURS
    assert timeline.layout("2026-11-20T00:00:00Z", f"2026-11-20T{fine:02d}:00:00Z").step < 3600
    assert timeline.layout("2026-11-20T00:00:00Z", f"2026-11-20T{fine:02d}:00:01Z").step == 3600
    hourly = timeline.layout("2026-11-20T00:30:00Z", "2026-11-20T02:00:00Z", fine=False)
    assert (hourly.step, hourly.count) == (3600, 2)
    assert hourly.reads() == (
        ("2026-11-20T01", "2026-11-20T01"),
        [
            ("2026-11-20T00:30:00.000000Z", "2026-11-20T01:00:00.000000Z"),
            ("2026-11-20T02:00:00.000000Z", "2026-11-20T02:00:00.000001Z"),
        ],
        13,
    )
