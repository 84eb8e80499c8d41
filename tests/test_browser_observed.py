"""Observed schemas in a real browser.

An admin adopts the response schema (and the result schema) learnt from traffic on the tool page,
and the next call that breaks it shows a validation error on its trace page."""

import random
import time

import httpx
import orjson
import pytest
from browsers import chromium, need_chromium
from conftest import ROOT, LiveServer
from observed_traffic import TOOL, mcp_results, order, order_events

pytestmark = pytest.mark.browser
ADMIN = "adm-observed-0b1c2d3e"

need_chromium()

from playwright.sync_api import expect  # noqa: E402


def wait_for(check, what: str, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"PYTHONPATH": str(ROOT), "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}"}
    live = LiveServer(tmp_path_factory.mktemp("observed") / "live.db", env=env)
    live.start(timeout=120)
    rng = random.Random(21)
    events = order_events([order(rng, n) for n in range(60)])
    answer = httpx.post(
        live.url + "/api/v1/ingest",
        content=orjson.dumps(events + mcp_results(events)),
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert answer.status_code == 200
    wait_for(
        lambda: (
            {
                stage["calls"]
                for stage in httpx.get(f"{live.url}/api/v1/tools/{TOOL}/observed", timeout=30)
                .json()
                .values()
            }
            == {60}
        ),
        "the learnt shapes",
    )
    yield live
    live.stop()


def test_an_admin_adopts_the_observed_response_schema_and_the_next_bad_call_breaks_it(server):
    with chromium() as browser:
        page = browser.new_context(
            http_credentials={"username": "ann", "password": ADMIN}
        ).new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{server.url}/signin?next=/tools/{TOOL}")
        observed = page.locator("#observed")
        expect(observed).to_contain_text("learnt from 60 calls")
        observed.locator("[data-stage=response] summary", has_text="observed").click()
        expect(observed.locator("[data-stage=response] .observed-schema pre")).to_contain_text(
            '"total_cents"'
        )
        observed.get_by_role("button", name="adopt as the response schema").click()
        expect(page.locator("#observed [data-stage=response]")).to_contain_text(
            "the contract declares a response schema, which wins"
        )
        expect(page.locator("#observed [data-stage=response] .disagreements")).to_contain_text(
            "nowhere"
        )
        contract = httpx.get(f"{server.url}/api/v1/tools/{TOOL}", timeout=30).json()
        assert contract["response_schema"]["properties"]["total_cents"]["type"] == "integer"

        bad = order_events([order(random.Random(22), 60, changed=True)], start=60)
        headers = {"Authorization": f"Bearer {ADMIN}"}
        assert (
            httpx.post(
                server.url + "/api/v1/ingest", content=orjson.dumps(bad), headers=headers
            ).status_code
            == 200
        )
        page.goto(f"{server.url}/traces/{61:032x}")
        errors = page.locator(".validation-list")
        expect(errors).to_contain_text("/total_cents")


def test_an_admin_adopts_the_observed_result_schema_and_the_next_bad_result_breaks_it(server):
    with chromium() as browser:
        page = browser.new_context(
            http_credentials={"username": "ann", "password": ADMIN}
        ).new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{server.url}/signin?next=/tools/{TOOL}")
        result = page.locator("#observed [data-stage=result]")
        expect(result).to_contain_text(
            "its /structuredContent part, what an MCP outputSchema describes"
        )
        result.get_by_role("button", name="adopt as the result schema").click()
        expect(page.locator("#observed [data-stage=result]")).to_contain_text(
            "the contract declares a result schema, which wins"
        )
        contract = httpx.get(f"{server.url}/api/v1/tools/{TOOL}", timeout=30).json()
        assert contract["result_schema"]["required"] == ["currency", "status", "total"]

        later = order_events([order(random.Random(23), 62)], start=62)
        headers = {"Authorization": f"Bearer {ADMIN}"}
        body = orjson.dumps(later + mcp_results(later, changed_at=0))
        assert (
            httpx.post(server.url + "/api/v1/ingest", content=body, headers=headers).status_code
            == 200
        )
        page.goto(f"{server.url}/traces/{63:032x}")
        expect(page.locator(".validation-list")).to_contain_text("/structuredContent/total")
