"""The alerts page in a real browser.

A rule made from the form fires on a regression; its delivery shows in the log.

A findOrders call sends limit as a string; the problem is resolved on its page; a later call breaks
the same way. The server's own analyser and sender do the rest, against a receiver that fails once
and checks every signature.
"""

import time

import httpx
import pytest
from browsers import launch
from helpers import ndjson
from problem_helpers import CONTRACT, at, call, trace
from receiver import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]
sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright


@pytest.fixture
def receiver():
    opened = Receiver(fail_first=1)
    yield opened
    opened.close()


def wait_for(what, seconds=60):
    """Poll until `what()` is truthy; return it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"still nothing after {seconds} s")


def problems(server, **query):
    """Return the server's problem list."""
    return httpx.get(server.url + "/api/v1/problems", params=query).json()["problems"]


def test_a_rule_made_on_the_page_fires_on_a_regression_and_shows_in_its_log(make_server, receiver):
    server = make_server(env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"})
    assert httpx.put(server.url + "/api/v1/tools/findOrders", json=CONTRACT).status_code in (
        200,
        201,
    )
    httpx.post(server.url + "/api/v1/ingest", content=ndjson(*call(trace(1), at(-2))))
    [problem] = wait_for(lambda: problems(server))
    with sync_playwright() as p:
        browser = launch(p)
        page = browser.new_page()
        page.goto(server.url + "/settings/alerts")
        page.fill("input[name=url]", receiver.url)
        page.check("input[value=regressed]")
        page.uncheck("input[value=new]")
        page.fill("input[name=min_interval_s]", "0")
        page.click("button:has-text('Add rule')")
        secret = page.locator("code.secret").inner_text()
        assert secret.startswith("whsec_")
        receiver.secret = secret

        page.goto(server.url + f"/problems/{problem['id']}")
        page.click("button.resolve")
        wait_for(lambda: problems(server, state="resolved"))
        # the failing call comes back, by its own time after the resolution, in a new release
        httpx.post(
            server.url + "/api/v1/ingest",
            content=ndjson(*call(trace(2), at(0.02), release="1.4.2")),
        )
        wait_for(lambda: receiver.accepted)

        def delivery_rows():
            page.goto(server.url + "/settings/alerts")
            rows = page.locator("tr.delivery")
            # the sender logs a delivery once the receiver's answer is back, after it was recorded
            return rows if rows.count() and "delivered" in rows.nth(0).inner_text() else None

        rows = wait_for(delivery_rows)
        # the failed first try, then the delivery, newest first
        assert rows.count() == 2
        assert "regressed" in rows.nth(0).inner_text() and "200" in rows.nth(0).inner_text()
        assert "delivered" in rows.nth(0).inner_text() and "503" in rows.nth(1).inner_text()
        assert secret not in page.content()
        browser.close()
    [(headers, body)] = receiver.accepted
    assert body["type"] == "problem.regressed" and body["data"]["id"] == problem["id"]
    assert body["data"]["state"] == "regressed" and body["data"]["releases"] == ["1.4.2"]
    assert {h["webhook-id"] for h, _ in receiver.attempts} == {headers["webhook-id"]}
