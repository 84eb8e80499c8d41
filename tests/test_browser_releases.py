"""After a deploy, in Chromium against a real `tracediff serve`.

What did this release break, and did the fix hold?

Four hours of findOrders calls (tests/release_helpers.py release_day): 1.0.0 correct, 1.1.0 with
three mapping bugs, 1.1.1 the fix (its problems resolved), then 1.1.2 upper-cases status again (a
regression). Open /releases, a release, its new problems, and the comparison of 1.0.0 with 1.1.0.
The screenshots docs/screenshots/releases.png, release-compare.png and problems-incident.png are
written only when asked: `python -m pytest tests/test_browser_releases.py --screenshots`.
"""

import re
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson
from release_helpers import CONTRACT, regression_calls, release_day

need_chromium()

from playwright.sync_api import expect  # noqa: E402

VIEWPORT = {"width": 1400, "height": 900}


def wait_for(read, ready, timeout: float = 60):
    """Poll `read()` until `ready(value)`: the background analyser folds and analyses the calls."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if ready(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.3)


def problems(url: str) -> list[dict]:
    return httpx.get(url + "/api/v1/problems?limit=100", timeout=10).json()["problems"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The incident sent to a real server, 1.1.0's problems resolved once 1.1.1 ran clean, then
    1.1.2's calls."""
    live = LiveServer(
        tmp_path_factory.mktemp("releases") / "releases.db", env={"PYTHONPATH": str(ROOT)}
    ).start()
    try:
        url = live.url
        # the API takes the mapping as pairs (the store's put_tool also reads the older {from: to}
        # form)
        contract = {
            **CONTRACT,
            "mapping": [{"arguments": "/customerId", "request": "/customer_id"}],
        }
        assert (
            httpx.put(url + "/api/v1/tools/findOrders", json=contract, timeout=10).status_code
            == 200
        )
        base = datetime.now(UTC) - timedelta(hours=4)
        sent = httpx.post(url + "/api/v1/ingest", content=ndjson(*release_day(base)), timeout=30)
        assert sent.status_code == 200 and not sent.json()["rejected"]
        opened = wait_for(lambda: problems(url), lambda found: len(found) == 3)
        assert sorted(p["kind"] for p in opened) == ["dropped", "enum_changed", "type_changed"], (
            opened
        )
        # the team saw 1.1.1 run clean and resolved them
        for problem in opened:
            changed = httpx.patch(
                f"{url}/api/v1/problems/{problem['id']}", json={"state": "resolved"}, timeout=10
            )
            assert changed.status_code == 200, changed.text
        again = httpx.post(
            url + "/api/v1/ingest", content=ndjson(*regression_calls(datetime.now(UTC))), timeout=10
        )
        assert again.status_code == 200
        states = wait_for(
            lambda: {p["kind"]: p["state"] for p in problems(url)},
            lambda s: s.get("enum_changed") == "regressed",
        )
        assert states == {
            "enum_changed": "regressed",
            "dropped": "resolved",
            "type_changed": "resolved",
        }, states
        yield live
    finally:
        live.stop()


@pytest.mark.browser
def test_a_team_opens_the_releases_a_release_and_the_problems_it_brought(server, page, screenshot):
    page.goto(server.url + "/")
    page.locator("nav a", has_text="Releases").click()
    expect(page).to_have_url(re.compile(r"/releases$"))
    expect(page.locator("h1")).to_have_text("Releases")
    rows = page.locator("tr.release-row")
    # newest first seen first; 1.1.0 brought the three problems, 1.1.2 broke one again
    expect(rows.locator("a.release")).to_have_text(["1.1.2", "1.1.1", "1.1.0", "1.0.0"])
    expect(rows.nth(2).locator("a.new-problems")).to_have_text("3 new problems")
    expect(rows.nth(0).locator(".state-regressed")).to_have_text("1")
    # 1.0.0 was correct
    expect(rows.nth(3)).to_contain_text("0")
    screenshot(page, "releases.png")

    # one release: its own row, its links
    rows.nth(2).locator("a.release").click()
    expect(page).to_have_url(re.compile(r"/releases\?release=1\.1\.0$"))
    expect(page.locator("tr.release-row")).to_have_count(1)
    page.locator("tr.release-row a", has_text="compare with 1.0.0").click()
    expect(page).to_have_url(re.compile(r"release=1\.0\.0&compare=1\.1\.0"))
    broke = page.locator("section.comparison table").first
    expect(broke.locator("tr.problem-row")).to_have_count(3)
    for kind in ("enum_changed", "dropped", "type_changed"):
        expect(broke).to_contain_text(kind)
    expect(page.locator("section.comparison table").nth(1)).to_contain_text("Nothing")
    screenshot(page, "release-compare.png")

    page.goto(server.url + "/releases?release=1.1.0")
    page.locator("a.new-problems").click()
    expect(page).to_have_url(re.compile(r"/problems\?new_in=1\.1\.0$"))
    listed = page.locator("tr.problem-row")
    expect(listed).to_have_count(3)
    expect(page.locator("input[name=new_in]")).to_have_value("1.1.0")
    expect(listed.filter(has_text="enum_changed")).to_contain_text("regressed")
    expect(listed.filter(has_text="enum_changed")).to_contain_text("1.1.2")
    # the trend shows the incident's hours, and says so, rather than a week ending now
    expect(page.locator("p.window")).to_contain_text("since the first call")
    expect(listed.first.locator("svg.spark rect").first).to_be_attached()

    # the regression, and whether the fix held: 1.1.1 against 1.1.2
    page.goto(server.url + "/releases?release=1.1.1&compare=1.1.2")
    expect(page.locator("section.comparison table").first.locator("tr.problem-row")).to_have_count(
        1
    )
    expect(page.locator("section.comparison table").first).to_contain_text("enum_changed")

    page.goto(server.url + "/problems")
    expect(page.locator("tr.problem-row")).to_have_count(3)
    expect(page.locator("p.window .quick-links a")).to_have_text(["1 h", "6 h", "24 h", "7 d"])
    screenshot(page, "problems-incident.png")
