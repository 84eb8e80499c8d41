"""The problem pages, their twins, the state forms.

The nearest clean call, and `tracediff problems`."""

from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.cli import main

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
EVIL = "<script>alert(1)</script>"


@pytest.fixture
def loaded(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *call(trace(1), at(0, PAST), release="1.4.0"),
        *call(trace(2), at(30, PAST), release="1.4.0", limit=7),
        *call(trace(3), at(40, PAST), broken=False, limit=7),
        *call(trace(4), at(50, PAST), broken=False, limit=500),
        {
            "trace_id": trace(5),
            "call_id": "c",
            "tool": "findOrders",
            "snapshot": "arguments",
            "ts": at(60, PAST),
            "payload": {"status": EVIL, "limit": 1},
        },
        {
            "trace_id": trace(5),
            "call_id": "c",
            "tool": "findOrders",
            "snapshot": "request",
            "ts": at(60, PAST),
            "payload": {"status": EVIL.upper(), "limit": 1},
        },
    )
    pipeline.catch_up(store)
    return client


def ids(client) -> dict:
    return {p["kind"]: p["id"] for p in client.get("/api/v1/problems").get_json()["problems"]}


def test_problems_leads_the_navigation_and_lists_rows_with_counts_sparkline_and_state(loaded):
    html = loaded.get("/problems").get_data(as_text=True)
    nav = html[html.index("<nav>") : html.index("</nav>")]
    assert nav.index("Problems") < nav.index("Traces")
    row = html[html.index(ids(loaded)["type_changed"]) :]
    assert (
        "type_changed" in row
        and "integer&gt;string" in row
        and 'class="spark"' in row
        and "ongoing" in row
    )
    assert "1.4.0" in row


def test_the_list_filters_and_searches_and_answers_htmx_with_the_fragment(loaded):
    html = loaded.get("/problems?kind=enum_changed").get_data(as_text=True)
    assert ids(loaded)["enum_changed"] in html and ids(loaded)["type_changed"] + "<" not in html
    fragment = loaded.get("/problems?q=limit", headers={"HX-Request": "true"})
    text = fragment.get_data(as_text=True)
    assert text.startswith('<div id="problem-list"') and ids(loaded)["type_changed"] in text
    assert fragment.headers["Vary"] == "HX-Request"
    # the page ignores bad values
    assert loaded.get("/problems?state=nonsense&since=soon").status_code == 200


def test_the_list_has_a_ticket_filter_for_linked_and_unlinked_problems(loaded):
    linked, unlinked = ids(loaded)["type_changed"], ids(loaded)["enum_changed"]
    loaded.patch(f"/api/v1/problems/{linked}", json={"links": ["https://tickets.example.com/T-9"]})
    page = loaded.get("/problems").get_data(as_text=True)
    assert '<select name="ticket">' in page and "<option>linked</option>" in page
    html = loaded.get("/problems?ticket=linked").get_data(as_text=True)
    assert (
        linked + "<" in html
        and unlinked + "<" not in html
        and "<option selected>linked</option>" in html
    )
    html = loaded.get("/problems?ticket=unlinked", headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert unlinked + "<" in html and linked + "<" not in html


def test_payload_values_on_problem_pages_stay_text(loaded):
    pid = ids(loaded)["enum_changed"]
    html = loaded.get(f"/problems/{pid}").get_data(as_text=True)
    # the value pair is shown...
    assert "alert(1)" in html and "ALERT(1)" in html
    # ...as text
    assert EVIL not in html and EVIL.upper() not in html


def test_the_problem_page_shows_grouping_reach_releases_traces_and_forms(loaded):
    pid = ids(loaded)["type_changed"]
    html = loaded.get(f"/problems/{pid}").get_data(as_text=True)
    for text in (
        "grouped by tool findOrders, kind type_changed",
        "2</b> calls",
        "1.4.0",
        trace(1),
        trace(2),
        'class="hourly-strip"',
        'name="resolve"',
        'value="archived"',
        "first seen",
        "2 in 5 calls that had <code>/limit</code> broke",
    ):
        assert text in html, text
    table = html[html.index('class="problem-calls"') :]
    # newest first
    assert table.index(trace(2)) < table.index(trace(1))


def test_the_hourly_strip_follows_the_chosen_range(loaded):
    pid = ids(loaded)["type_changed"]
    wide = loaded.get(f"/api/v1/problems/{pid}?since=2026-11-01&until=2026-11-21").get_json()[
        "hourly"
    ]
    narrow = loaded.get(
        f"/api/v1/problems/{pid}?since=2026-11-20T08:00:00Z&until=2026-11-20T12:00:00Z"
    ).get_json()["hourly"]
    # 4 h in 5-minute bars
    assert wide["step_hours"] > 1 > narrow["step_hours"] and narrow["step_seconds"] == 300
    assert sum(b["occurrences"] for b in narrow["bars"]) == 2
    assert loaded.get(f"/api/v1/problems/{pid}?since=nope").status_code == 400


def test_json_and_markdown_twins(loaded):
    pid = ids(loaded)["type_changed"]
    assert loaded.get(f"/problems/{pid}.json").get_json()["id"] == pid
    markdown = loaded.get(f"/problems/{pid}.md")
    assert markdown.mimetype == "text/markdown"
    text = markdown.get_data(as_text=True)
    assert (
        text.startswith(f"## {pid}: findOrders: /limit sent as string instead of integer")
        and '`5` -> `"5"` x 1' in text
    )
    assert loaded.get("/problems/TD-999.json").get_json()["error"]["code"] == "not_found"
    assert len(loaded.get("/problems.json").get_json()["problems"]) == 2


def test_the_resolve_form_resolves_and_the_page_says_who_and_when(loaded):
    pid = ids(loaded)["type_changed"]
    response = loaded.post(f"/problems/{pid}/state", data={"state": "resolved", "resolve": "now"})
    assert response.status_code == 303
    html = loaded.get(f"/problems/{pid}").get_data(as_text=True)
    assert (
        "state-resolved" in html
        and "by <b>web</b>: resolved" in html
        and "verified: 0 calls, 0 broke" in html
    )
    assert loaded.post(f"/problems/{pid}/state", data={"state": "bogus"}).status_code == 400


def test_the_trace_page_links_each_finding_to_its_problem_and_to_the_nearest_clean_call(loaded):
    pid = ids(loaded)["type_changed"]
    html = loaded.get(f"/traces/{trace(2)}").get_data(as_text=True)
    assert f'href="/problems/{pid}"' in html and "Compare with the nearest clean call" in html
    assert 'name="problem"' in loaded.get("/").get_data(as_text=True)


def test_the_nearest_clean_call_is_the_most_similar_one(loaded):
    pid = ids(loaded)["type_changed"]
    # the latest failing call sent limit 7: the clean call with limit 7 is nearer than the one with
    # 500
    response = loaded.get(f"/problems/{pid}/nearest")
    assert response.status_code == 303
    location = response.headers["Location"]
    assert (
        f"b={trace(2)}" in location
        and f"a={trace(3)}" in location
        and "method=deep_distance" in location
    )
    from_trace = loaded.get(f"/nearest?trace={trace(1)}&call=call_01").headers["Location"]
    assert f"b={trace(1)}" in from_trace and (
        f"a={trace(3)}" in from_trace or f"a={trace(4)}" in from_trace
    )
    assert "A is the nearest clean call of findOrders" in loaded.get(location).get_data(
        as_text=True
    )
    assert loaded.get("/nearest?trace=nope&call=x").status_code == 404


@pytest.mark.parametrize(
    "query, absent",
    [
        (f"trace={trace(1)}", "call parameter is"),
        ("call=call_01", "trace parameter is"),
        ("", "trace and call parameters are"),
    ],
)
def test_the_nearest_clean_call_without_a_parameter_says_which_is_missing(loaded, query, absent):
    page = loaded.get(f"/nearest?{query}")
    assert page.status_code == 400
    assert f"the {absent} missing" in page.get_data(as_text=True)
    answer = loaded.get(f"/nearest?{query}", headers={"Accept": "application/json"})
    error = answer.get_json()["error"]
    assert answer.status_code == 400 and f"the {absent} missing" in error["message"]


def test_the_nearest_clean_call_of_a_clean_call_says_it_has_no_problem(loaded):
    response = loaded.get(f"/nearest?trace={trace(3)}&call=call_01")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "This call has no problem" in html
    assert "Location" not in response.headers and "the failing call" not in html


def test_the_nearest_clean_call_of_an_incomplete_call_says_what_never_arrived(loaded, store):
    # arguments alone: nothing was compared, so the call is not clean and not "without a problem"
    only = {"trace_id": trace(6), "call_id": "c", "tool": "findOrders", "snapshot": "arguments"}
    send(loaded, {**only, "ts": at(70, PAST), "payload": {"status": "paid", "limit": 5}})
    pipeline.catch_up(store)
    response = loaded.get(f"/nearest?trace={trace(6)}&call=c")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "This call has no problem" not in html
    assert "This call is incomplete" in html and "request and response not received" in html


def run(db, *args):
    return CliRunner().invoke(main, [*args, "--db", str(db)], catch_exceptions=False)


def test_the_cli_lists_shows_resolves_archives_and_merges(loaded, db_path):
    pid = ids(loaded)
    listed = run(db_path, "problems", "list")
    assert (
        listed.exit_code == 0
        and pid["type_changed"] in listed.output
        and "integer>string" in listed.output
    )
    assert run(db_path, "problems", "list", "--kind", "enum_changed").output.count("TD-") == 1
    shown = run(db_path, "problems", "show", pid["type_changed"])
    assert "2 occurrences, 2 calls, 2 traces" in shown.output and '5 -> "5" x 1' in shown.output
    assert (
        run(db_path, "problems", "resolve", pid["type_changed"], "--next-release").output.strip()
        == f"{pid['type_changed']} resolved"
    )
    assert (
        run(db_path, "problems", "archive", pid["enum_changed"]).output.strip()
        == f"{pid['enum_changed']} archived"
    )
    merged = run(db_path, "problems", "merge", pid["enum_changed"], "--into", pid["type_changed"])
    assert f"merged into {pid['type_changed']}" in merged.output
    missing = CliRunner().invoke(main, ["problems", "show", "TD-999", "--db", str(db_path)])
    assert missing.exit_code == 1 and "no problem" in missing.output


def test_the_trace_lists_hourly_strip_follows_the_range(loaded):
    from webapp.web.render import charts

    fitted = loaded.get("/").get_data(as_text=True)
    hours = loaded.get("/?since=2026-11-20T06:00:00Z&until=2026-11-20T11:00:00Z").get_data(
        as_text=True
    )
    week = loaded.get("/?since=2026-11-14T10:00:00Z").get_data(as_text=True)
    width = lambda html: int(html.split('<svg class="bars" width="', 1)[1].split('"', 1)[0])  # noqa: E731
    # no range asked: the two hours that have calls, 09:00 to 10:59, not a week ending at the newest
    # call
    assert width(fitted) == 2 * 40 and "2 h up to the newest call, 2026-11-20 10:00" in fitted
    assert width(week) == 145 * (charts.BAR_WIDTH + charts.BAR_GAP)
    # the hours from since to the newest call get the widest bars rather than a sliver of the week
    assert 'width="39"' in hours and 'width="39"' not in week
    assert width(hours) in (4 * 40, 5 * 40)
    assert 'placeholder="e.g. 2h, 7d"' in week


def test_a_tool_with_no_clean_call_offers_no_comparison_with_one(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST)), *call(trace(2), at(30, PAST), limit=7))
    pipeline.catch_up(store)
    pid = ids(client)["type_changed"]
    assert client.get(f"/problems/{pid}/nearest").status_code == 404
    html = client.get(f"/problems/{pid}").get_data(as_text=True)
    assert f"/problems/{pid}/nearest" not in html and "its traces in the list" in html
    markdown = client.get(f"/problems/{pid}.md").get_data(as_text=True)
    assert "/nearest" not in markdown and "Last clean call: none" in markdown
    # once the tool has a clean call, both offer it
    send(client, *call(trace(3), at(40, PAST), broken=False, limit=7))
    pipeline.catch_up(store)
    assert f"/problems/{pid}/nearest" in client.get(f"/problems/{pid}").get_data(as_text=True)
    assert "/nearest" in client.get(f"/problems/{pid}.md").get_data(as_text=True)
