"""A request given by its URL or a form body, in a real browser.

The trace page aligns each argument with its query parameter, path segment or form field (Playwright
driving Debian's Chromium against `tracediff serve`)."""

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson

need_chromium()

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser
GET_TRACE = "9e7000000000000000000000000000a1"
FORM_TRACE = "f0e4000000000000000000000000000b"
BAD_TRACE = "9e7000000000000000000000000000a2"


def get_call(trace: str, query: str) -> list[dict]:
    base = {
        "trace_id": trace,
        "call_id": "call_01",
        "tool": "findOrders",
        "ts": "2026-11-20T09:00:00Z",
    }
    return [
        {
            **base,
            "snapshot": "arguments",
            "payload": {"email": "ann@example.com", "status": "paid", "limit": 5},
        },
        {
            **base,
            "snapshot": "request",
            "http": {"method": "GET", "url": f"https://api.example.com/orders?{query}"},
        },
    ]


def form_call() -> list[dict]:
    base = {
        "trace_id": FORM_TRACE,
        "call_id": "call_01",
        "tool": "create_payment_intent",
        "ts": "2026-11-20T09:01:00Z",
    }
    return [
        {
            **base,
            "snapshot": "arguments",
            "payload": {"amount": 2000, "currency": "usd", "order_id": "6735"},
        },
        {
            **base,
            "snapshot": "request",
            "payload": "amount=2000&currency=usd&metadata[order_id]=6735",
            "http": {
                "method": "POST",
                "url": "https://api.stripe.com/v1/payment_intents",
                "headers": {"Content-Type": "application/x-www-form-urlencoded"},
            },
        },
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("wire") / "wire.db", env={"PYTHONPATH": str(ROOT)}
    ).start()
    # the contract says where status goes: one call can tell it lost
    contract = {"mapping": [{"arguments": "/status", "request": "query:/status"}]}
    put = httpx.put(live.url + "/api/v1/tools/findOrders", json=contract, timeout=10)
    assert put.status_code == 200, put.text
    events = [
        *get_call(GET_TRACE, "customer_email=ann%40example.com&status=paid&page_size=5"),
        *form_call(),
        *get_call(BAD_TRACE, "customer_email=ann%40example.com&page_size=5"),
    ]
    assert (
        httpx.post(live.url + "/api/v1/ingest", content=ndjson(*events), timeout=30).status_code
        == 200
    )
    yield live
    live.stop()


def aligned(page, argument: str, request: str):
    """The aligned view's row whose arguments cell shows `argument` and whose request cell shows
    `request`."""
    return (
        page.locator("table.aligned tr.arow")
        .filter(has=page.locator(f'td.stage-arguments[data-ptr="{argument}"]'))
        .filter(has=page.locator(f'td.stage-request[data-ptr="{request}"]'))
    )


def test_a_get_calls_trace_page_aligns_each_argument_with_its_query_parameter(page, server):
    page.goto(f"{server.url}/traces/{GET_TRACE}")
    for argument, parameter, text in (
        ("/email", "query:/customer_email", '"ann@example.com"'),
        ("/status", "query:/status", '"paid"'),
        ("/limit", "query:/page_size", '"5"'),
    ):
        row = aligned(page, argument, parameter)
        expect(row).to_have_count(1)
        expect(row.locator("td.stage-request code.v")).to_have_text(text)
    expect(page.locator("tr.arow.marked.sev-warning")).to_have_count(0)


def test_a_form_encoded_call_aligns_with_its_fields(page, server):
    page.goto(f"{server.url}/traces/{FORM_TRACE}")
    for argument, field, text in (
        ("/amount", "form:/amount", '"2000"'),
        ("/currency", "form:/currency", '"usd"'),
        ("/order_id", "form:/metadata/order_id", '"6735"'),
    ):
        row = aligned(page, argument, field)
        expect(row).to_have_count(1)
        expect(row.locator("td.stage-request code.v")).to_have_text(text)


def test_a_status_missing_from_the_query_is_marked_and_its_finding_highlights_the_argument(
    page, server
):
    page.goto(f"{server.url}/traces/{BAD_TRACE}")
    row = page.locator("tr.arow.marked.sev-warning")
    expect(row).to_have_count(1)
    expect(row.locator('td.stage-arguments[data-ptr="/status"]')).to_have_count(1)
    expect(row).to_contain_text("dropped · warning")
    expect(aligned(page, "/limit", "query:/page_size")).to_have_count(1)
