"""Inferred mappings in a real browser.

Quiet correct calls, confirming a pair, a swap made loud."""

import re
import time

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson
from renames import TOOL, events, traffic

CORRECT = "c0" * 16
SWAPPED = "5a" * 16
pytestmark = pytest.mark.browser

need_chromium()

from playwright.sync_api import expect  # noqa: E402

VIEWPORT = {"width": 1300, "height": 900}


def wait_for(check, what: str, timeout: float = 30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("mappings") / "live.db", env={"PYTHONPATH": str(ROOT)}
    )
    # a loaded machine boots gunicorn's workers slowly
    live.start(timeout=120)
    # 25 correct calls with small, repeated values: the renames are learnt from them in the
    # background
    assert (
        httpx.post(
            live.url + "/api/v1/ingest", content=ndjson(*traffic(25)), timeout=30
        ).status_code
        == 200
    )
    wait_for(
        lambda: any(
            m["arguments"] == "/seats"
            for m in httpx.get(f"{live.url}/api/v1/tools/{TOOL}/mappings", timeout=30)
            .json()
            .get("inferred", [])
        ),
        "the inferred mappings",
        timeout=120,
    )
    yield live
    live.stop()


def post(server, arguments, request, trace_id):
    assert (
        httpx.post(
            server.url + "/api/v1/ingest",
            content=ndjson(*events(arguments, request, trace_id, 40)),
            timeout=30,
        ).status_code
        == 200
    )


def test_inferred_renames_quiet_a_correct_call_and_confirming_one_makes_a_swap_loud(page, server):
    # a correct call whose values repeat (2 seats, 2 children): only the learnt mapping tells them
    # apart
    arguments = {
        "seats": 2,
        "child_count": 2,
        "store_id": "st_1001",
        "date": "2026-12-03",
        "notes": "",
    }
    request = {
        "quantity": 2,
        "minors": 2,
        "locationId": "st_1001",
        "day": "2026-12-03",
        "comment": "",
        "channel": "agent",
    }
    post(server, arguments, request, CORRECT)
    page.goto(f"{server.url}/traces/{CORRECT}")
    expect(page.locator(".summary-bar")).to_contain_text("0 warnings")
    expect(page.locator(".finding.sev-warning, .finding.sev-error")).to_have_count(0)

    page.goto(f"{server.url}/tools/{TOOL}")
    row = page.locator('.mapping-list.inferred li[data-arguments="/seats"]')
    expect(row).to_contain_text(re.compile(r"equal in (\d+) of \1 calls"))
    # htmx swaps the mappings region
    row.locator("button.confirm").click()
    expect(page.locator('.mapping-list.declared li[data-arguments="/seats"]')).to_contain_text(
        "quantity"
    )
    contract = wait_for(
        lambda: httpx.get(f"{server.url}/api/v1/tools/{TOOL}").json().get("mapping"), "the contract"
    )
    assert {"arguments": "/seats", "request": "/quantity"} in contract

    swapped = {**request, "quantity": 3, "minors": 5}
    post(server, {**arguments, "seats": 5, "child_count": 3}, swapped, SWAPPED)
    page.goto(f"{server.url}/traces/{SWAPPED}")
    finding = page.locator('[id="f-value_changed-arguments/seats-request/quantity"]')
    expect(finding).to_be_visible()
    expect(finding).to_have_class(re.compile(r"(^|\s)sev-warning(\s|$)"))
    # a link pasted before anchors had names still lands on the same finding, under its stable name
    first_id = page.locator(".finding").nth(0).get_attribute("id")
    page.goto(f"{server.url}/traces/{SWAPPED}#finding-1")
    expect(page.locator(f'[id="{first_id}"]')).to_be_focused()
    assert page.url.endswith("#" + first_id)
