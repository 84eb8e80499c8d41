"""The alerts page in a real browser: a rule made from the form fires, and its delivery shows in the log."""
import time

import httpx
import pytest
from receiver import Receiver

pytestmark = [pytest.mark.browser, pytest.mark.slow]
sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def receiver():
    opened = Receiver(fail_first=1)
    yield opened
    opened.close()


def test_a_rule_made_on_the_page_delivers_and_shows_in_its_log(make_server, receiver):
    server = make_server(env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"})
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"])
        page = browser.new_page()
        page.goto(server.url + "/settings/alerts")
        page.fill("input[name=url]", receiver.url)
        page.check("input[value=rejected_events]")
        page.uncheck("input[value=new]")
        page.click("button:has-text('Add rule')")
        secret = page.locator("code.secret").inner_text()
        assert secret.startswith("whsec_")
        receiver.secret = secret
        httpx.post(server.url + "/api/v1/ingest", content=b'{"trace_id": "t", "snapshot": "nope", "payload": 1}')
        deadline = time.monotonic() + 60
        while not receiver.accepted and time.monotonic() < deadline:
            time.sleep(0.2)
        assert receiver.accepted, "the webhook never arrived"
        page.goto(server.url + "/settings/alerts")
        rows = page.locator("tr.delivery")
        assert rows.count() == 2  # the failed first try, then the delivery
        assert "200" in rows.nth(0).inner_text() and "delivered" in rows.nth(0).inner_text()
        assert "503" in rows.nth(1).inner_text()
        assert secret not in page.content()
        browser.close()
