"""A new user's path through Problems.

In Chromium against `tracediff serve --demo`.

Open Problems, filter, open the regressed findOrders problem, see its sparkline, releases and
traces, compare with the nearest clean call, resolve it; send a later failing call; see it regressed
again. The screenshots docs/screenshots/problems.png and problem.png are written only when asked:
`python -m pytest tests/test_browser_problems.py --screenshots`.
"""

import re
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson

need_chromium()

from playwright.sync_api import expect  # noqa: E402

VIEWPORT = {"width": 1400, "height": 1000}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("problems") / "demo.db",
        env={"PYTHONPATH": str(ROOT)},
        args=["--demo"],
    ).start()
    yield live
    live.stop()


def later_failing_call(trace_id: str) -> bytes:
    """A findOrders call from release 1.4.3 that sends limit as a string, timed after any
    resolution."""
    ts = (datetime.now(UTC) + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    common = {
        "trace_id": trace_id,
        "call_id": "call_01",
        "tool": "findOrders",
        "source": "foundation_models",
        "release": "1.4.3",
        "ts": ts,
    }
    return ndjson(
        {
            **common,
            "snapshot": "arguments",
            "payload": {"customerEmail": "kai@example.com", "limit": 3},
        },
        {
            **common,
            "snapshot": "request",
            "payload": {"customer_email": "kai@example.com", "limit": "3"},
            "http": {"method": "POST", "url": "https://api.example.com/v1/orders/search"},
        },
        {
            **common,
            "snapshot": "response",
            "payload": {"orders": [], "next_cursor": None},
            "http": {"status_code": 200},
        },
    )


@pytest.mark.browser
def test_a_new_user_finds_resolves_and_sees_a_problem_regress(server, page, screenshot):
    page.goto(server.url + "/")
    # the navigation leads with Problems
    page.locator("nav a").first.click()
    expect(page).to_have_url(re.compile(r"/problems$"))
    expect(page.locator("h1")).to_have_text("Problems")
    expect(page.locator("tr.problem-row svg.spark rect").first).to_be_attached()
    screenshot(page, "problems.png")

    page.fill("#problem-filters input[name=tool]", "findOrders")
    # htmx swaps the list
    page.press("#problem-filters input[name=tool]", "Enter")
    expect(page).to_have_url(re.compile(r"tool=findOrders"))
    rows = page.locator("tr.problem-row")
    expect(rows.first).to_contain_text("findOrders")
    assert all("findOrders" in text for text in rows.all_inner_texts())

    row = rows.filter(has_text="type_changed").filter(has_text="regressed")
    expect(row).to_have_count(1)
    expect(row.locator("svg.spark rect").first).to_be_attached()
    row.locator("a.problem-id").click()

    expect(page.locator("h1")).to_contain_text("type_changed")
    expect(page.locator(".state").first).to_have_text("regressed")
    expect(page.locator("dd.releases")).to_contain_text("1.4.0")
    expect(page.locator("dd.releases")).to_contain_text("1.4.2")
    assert page.locator("svg.hourly-strip rect").count() > 0
    expect(page.locator("table.problem-calls tbody tr").first).to_be_visible()
    expect(page.locator(".grouped-by")).to_contain_text("grouped by tool findOrders")
    problem_url = page.url
    screenshot(page, "problem.png")

    page.click("a.compare-nearest")
    expect(page).to_have_url(re.compile(r"/compare\?a=.*&b="))
    expect(page.locator(".nearest-note")).to_contain_text("nearest clean call of findOrders")
    # the clean call A sends limit as a number, the failing call B as a string: that row is marked
    limit = page.locator(
        ".compare-stage.stage-request tr.arow.marked", has=page.locator("td.ptr", has_text="/limit")
    )
    expect(limit).to_contain_text("type changed")

    page.goto(problem_url)
    page.select_option("select[name=resolve]", "now")
    page.click("button.resolve")
    expect(page.locator(".state").first).to_have_text("resolved")
    expect(page.locator(".verified")).to_have_text("verified: 0 calls, 0 broke")
    expect(page.locator("ol.history li").first).to_contain_text("resolved")

    # the incident's ticket, linked from the page (htmx swaps the links in place; its token is not
    # kept)
    page.fill("input[name=add]", "https://tracker.example.com/INC-8?token=s3cr3tvalue1")
    page.click("button.link")
    expect(page.locator("#problem-links a")).to_have_text(
        "https://tracker.example.com/INC-8?token=[REDACTED]"
    )
    page.fill("input[name=add]", "https://tracker.example.com/INC-9")
    page.click("button.link")
    # swapped in before the next click
    expect(page.locator("#problem-links a")).to_have_count(2)
    page.locator("#problem-links li", has_text="INC-8").locator("button.unlink").click()
    # a text check of two links fails at once
    expect(page.locator("#problem-links a")).to_have_count(1)
    expect(page.locator("#problem-links a")).to_have_text("https://tracker.example.com/INC-9")

    response = httpx.post(
        server.url + "/api/v1/ingest", content=later_failing_call("5ca1ab1e" * 4), timeout=10
    )
    assert response.status_code == 200 and response.json()["accepted"] == 3
    # the background analyser picks the call up within about a second
    for _ in range(40):
        page.reload()
        if page.locator(".state").first.inner_text() == "regressed":
            break
        page.wait_for_timeout(500)
    expect(page.locator(".state").first).to_have_text("regressed")
    expect(page.locator("dd.releases")).to_contain_text("1.4.3")
    expect(page.locator("ol.history li").first).to_contain_text("broke again")
