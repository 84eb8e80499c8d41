"""Problems in a time window and merged problems.

What the QA pass of issue 13 found, kept fixed."""

from datetime import UTC, datetime

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)


def status_call(n: int, minutes: float, **extra) -> list:
    """A findOrders call whose request upper-cases the status (an enum_changed problem)."""
    common = {
        "trace_id": trace(n),
        "call_id": "c",
        "tool": "findOrders",
        "ts": at(minutes, PAST),
        **extra,
    }
    return [
        {**common, "snapshot": "arguments", "payload": {"status": "paid", "limit": 5}},
        {**common, "snapshot": "request", "payload": {"status": "PAID", "limit": 5}},
    ]


def dropped_call(n: int, minutes: float, tool: str = "findOrders") -> list:
    """A call whose request drops the status (a dropped problem)."""
    common = {"trace_id": trace(n), "call_id": "c", "tool": tool, "ts": at(minutes, PAST)}
    return [
        {**common, "snapshot": "arguments", "payload": {"status": "paid", "limit": 5}},
        {**common, "snapshot": "request", "payload": {"limit": 5}},
    ]


@pytest.fixture
def loaded(client, store):
    """findOrders: limit as a string at 0, 30, 200, 300 and 3000 minutes; status upper-cased at 120;
    status dropped at 150;
    sendEmail: status dropped at 160."""
    store.put_tool("findOrders", CONTRACT)
    # its request schema names status: one call can tell it lost
    store.put_tool("sendEmail", CONTRACT)
    send(
        client,
        *call(trace(1), at(0, PAST)),
        *call(trace(2), at(30, PAST)),
        *call(trace(3), at(300, PAST)),
        *call(trace(8), at(200, PAST)),
        *call(trace(9), at(3000, PAST)),
        *status_call(5, 120),
        *dropped_call(6, 150),
        *dropped_call(7, 160, tool="sendEmail"),
    )
    pipeline.catch_up(store)
    return client


def ids(client, url: str) -> dict:
    """Return {kind or tool:kind: id} of the problems a list URL answers."""
    response = client.get(url)
    assert response.status_code == 200, response.get_json()
    return {(p["tool"], p["kind"]): p["id"] for p in response.get_json()["problems"]}


def test_a_window_keeps_problems_that_broke_in_it_though_seen_again_after(loaded):
    # the limit problem broke at 0 and 30 minutes, and again at 300
    until = at(60, PAST)
    assert set(ids(loaded, f"/api/v1/problems?until={until}")) == {("findOrders", "type_changed")}
    window = f"since={at(10, PAST)}&until={until}"
    assert set(ids(loaded, f"/api/v1/problems?{window}")) == {("findOrders", "type_changed")}
    # seen before and after a window, but not in it: out
    assert ids(loaded, f"/api/v1/problems?since={at(40, PAST)}&until={at(100, PAST)}") == {}
    assert set(ids(loaded, f"/api/v1/problems?since={at(110, PAST)}&until={at(155, PAST)}")) == {
        ("findOrders", "enum_changed"),
        ("findOrders", "dropped"),
    }
    limit = {("findOrders", "type_changed")}
    # an hour wholly inside the window decides; in an edge hour, the calls' own times do
    assert (
        set(ids(loaded, f"/api/v1/problems?since={at(170, PAST)}&until={at(250, PAST)}")) == limit
    )
    assert ids(loaded, f"/api/v1/problems?since={at(170, PAST)}&until={at(190, PAST)}") == {}
    assert (
        set(ids(loaded, f"/api/v1/problems?since={at(190, PAST)}&until={at(210, PAST)}")) == limit
    )
    # past a day, every problem seen before and after is probed
    assert (
        set(ids(loaded, f"/api/v1/problems?since={at(40, PAST)}&until={at(1700, PAST)}")) >= limit
    )
    assert ids(loaded, f"/api/v1/problems?since={at(310, PAST)}&until={at(2900, PAST)}") == {}
    page = loaded.get(f"/problems?{window}").get_data(as_text=True)
    assert "type_changed" in page and "No problems match" not in page


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/problems?since=1h&until=2h",
        "/api/v1/problems/TD-1?since=1h&until=2h",
        "/api/v1/problems?since=2026-11-24&until=2026-11-23T10:00:00Z",
        "/api/v1/traces?since=1h&until=2h",
        "/index.json?since=2026-11-24&until=2026-11-23",
    ],
)
def test_a_window_that_ends_before_it_begins_is_400_on_the_api(loaded, url):
    response = loaded.get(url)
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_parameter"
    assert "later than until" in response.get_json()["error"]["message"]


@pytest.mark.parametrize(
    "url",
    [
        "/problems?since=1h&until=2h",
        "/problems/TD-1?since=1h&until=2h",
        "/problems.json?since=1h&until=2h",
    ],
)
def test_a_window_that_ends_before_it_begins_is_400_on_the_pages(loaded, url):
    response = loaded.get(url)
    assert response.status_code == 400 and "later than until" in response.get_data(as_text=True)


def test_a_merged_problems_id_leads_to_its_traces_and_keeps_the_query(loaded):
    problems = ids(loaded, "/api/v1/problems")
    old, new = problems[("findOrders", "enum_changed")], problems[("findOrders", "type_changed")]
    loaded.patch(f"/api/v1/problems/{old}", json={"links": ["https://tickets.example.com/T-9"]})
    loaded.patch(f"/api/v1/problems/{new}", json={"links": ["https://tickets.example.com/T-1"]})
    assert loaded.patch(f"/api/v1/problems/{old}", json={"merged_into": new}).status_code == 200
    moved = loaded.get(f"/api/v1/problems/{old}/traces?limit=2")
    assert moved.status_code == 301 and moved.headers["Location"].endswith(
        f"/api/v1/problems/{new}/traces?limit=2"
    )
    assert (
        loaded.get(f"/api/v1/problems/{old}?since=3650d")
        .headers["Location"]
        .endswith(f"/{new}?since=3650d")
    )
    assert (
        loaded.get(f"/problems/{old}?since=2h")
        .headers["Location"]
        .endswith(f"/problems/{new}?since=2h")
    )
    listed = loaded.get(f"/api/v1/traces?problem={old}").get_json()["traces"]
    assert sorted(t["trace_id"] for t in listed) == [trace(n) for n in (1, 2, 3, 5, 8, 9)]
    target = loaded.get(f"/api/v1/problems/{new}").get_json()
    assert target["links"] == ["https://tickets.example.com/T-1", "https://tickets.example.com/T-9"]


def test_merging_into_a_merged_problem_answers_json_saying_where_it_went(loaded):
    problems = ids(loaded, "/api/v1/problems")
    limit, status, dropped = (
        problems[("findOrders", k)] for k in ("type_changed", "enum_changed", "dropped")
    )
    assert (
        loaded.patch(f"/api/v1/problems/{status}", json={"merged_into": limit}).status_code == 200
    )
    response = loaded.patch(f"/api/v1/problems/{dropped}", json={"merged_into": status})
    assert response.status_code == 200 and response.mimetype == "application/json"
    body = response.get_json()
    assert body["id"] == limit and body["calls"] == 7
    assert body["merge"] == {
        "problem": dropped,
        "asked": status,
        "merged_into": limit,
        "followed": True,
    }


def test_problems_of_different_tools_do_not_merge(loaded):
    problems = ids(loaded, "/api/v1/problems")
    orders, email = problems[("findOrders", "dropped")], problems[("sendEmail", "dropped")]
    response = loaded.patch(f"/api/v1/problems/{email}", json={"merged_into": orders})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_change"
    assert "sendEmail" in response.get_json()["error"]["message"]
    assert "findOrders" in response.get_json()["error"]["message"]
    # not merged
    assert loaded.get(f"/api/v1/problems/{email}").status_code == 200


def test_the_trace_lists_hourly_strip_follows_the_problem_filter_and_says_what_it_does_not_follow(
    loaded,
):
    problems = ids(loaded, "/api/v1/problems")
    email, status = problems[("sendEmail", "dropped")], problems[("findOrders", "enum_changed")]
    everything = loaded.get("/?part=counts").get_data(as_text=True)
    assert (
        'class="strip-tool" href="/?tool=findOrders' in everything
        and "strip-unfollowed" not in everything
    )
    one = loaded.get(f"/?problem={email}&part=counts").get_data(as_text=True)
    assert (
        one.count('class="strip-tool"') == 1 and "?tool=sendEmail" in one and f"with {email}" in one
    )
    # findOrders had 7 calls, one of them with the upper-cased status: the bars say 1 with it, not 6
    # with findings
    orders = loaded.get(f"/?problem={status}&part=counts").get_data(as_text=True)
    assert orders.count('class="strip-tool"') == 1 and f"7 calls, 1 with {status}" in orders
    severity = loaded.get("/?severity=error&part=counts").get_data(as_text=True)
    assert "it does not follow the severity filter" in severity


def test_hourly_bars_start_and_end_as_rfc_3339_in_the_fixed_form(loaded):
    problems = ids(loaded, "/api/v1/problems")
    bars = loaded.get(f"/api/v1/problems/{problems[('findOrders', 'dropped')]}").get_json()[
        "hourly"
    ]["bars"]
    for bar in bars:
        for end in ("start", "end"):
            assert datetime.strptime(bar[end], "%Y-%m-%dT%H:%M:%S.%fZ") and len(bar[end]) == 27, bar


def test_one_call_reads_as_one_call_and_a_release_without_a_name_links_nowhere(loaded, db_path):
    from click.testing import CliRunner

    from webapp.cli import main

    problem = ids(loaded, "/api/v1/problems")[("findOrders", "dropped")]
    page = loaded.get(f"/problems/{problem}").get_data(as_text=True)
    assert (
        "<b>1</b> occurrence in <b>1</b> call and <b>1</b> trace</dd>" in page
        and "1 calls" not in page
    )
    assert 'href="#"' not in page and "(none named)" in page
    shown = CliRunner().invoke(
        main, ["problems", "show", problem, "--db", str(db_path)], catch_exceptions=False
    )
    assert "1 occurrence, 1 call, 1 trace;" in shown.output and "1 calls" not in shown.output
    assert 'placeholder="now"' not in loaded.get("/").get_data(as_text=True)


@pytest.mark.parametrize(
    "twin", ["/problems.json", "/index.json", "/api/v1/problems", "/api/v1/traces"]
)
def test_every_json_list_refuses_a_since_that_is_no_time_and_the_pages_ignore_it(loaded, twin):
    response = loaded.get(f"{twin}?since=garbage")
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_parameter"
    page = (
        twin.removesuffix(".json").replace("/index", "/") if not twin.startswith("/api") else None
    )
    if page:
        assert loaded.get(f"{page}?since=garbage").status_code == 200


def test_a_time_ago_of_more_than_six_digits_is_refused_as_too_far_back(loaded):
    message = loaded.get("/api/v1/traces?since=99999999d").get_json()["error"]["message"]
    assert "too far" in message and "99999999d" in message
