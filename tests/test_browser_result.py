"""The way back in a real browser.

The trace page's four aligned columns, the result following the response through renames (Playwright
driving Debian's Chromium against `tracediff serve`)."""

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson

need_chromium()

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser
RENAMED = "4e5017000000000000000000000000a1"
CHANGED = "4e5017000000000000000000000000a2"
FAILED = "4e5017000000000000000000000000a3"
# a tool span whose HTTP span never came: arguments and result
UNANSWERED = "4e5017000000000000000000000000a4"
RATE_LIMITED = {
    "error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}
}
RESPONSE = {"orders": [{"id": "ord_1", "status": "unpaid", "total_cents": 1250}], "total": 1}


VIEWPORT = {"width": 1600, "height": 900}


def call(trace: str, state: str, response=RESPONSE, status=200, result=None) -> list[dict]:
    base = {
        "trace_id": trace,
        "call_id": "call_01",
        "tool": "findOrders",
        "ts": "2026-11-20T09:00:00Z",
    }
    result = result or {
        "content": [{"type": "text", "text": "1 order"}],
        "structuredContent": {
            "items": [{"orderId": "ord_1", "state": state, "totalCents": 1250}],
            "count": 1,
        },
        "isError": False,
    }
    return [
        {**base, "snapshot": "arguments", "payload": {"email": "ann@example.com"}},
        {
            **base,
            "snapshot": "request",
            "payload": {"customer_email": "ann@example.com"},
            "http": {"method": "POST", "url": "https://api.example.com/orders/search"},
        },
        {**base, "snapshot": "response", "payload": response, "http": {"status_code": status}},
        {**base, "snapshot": "result", "payload": result, "source": "mcp"},
    ]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("result") / "result.db", env={"PYTHONPATH": str(ROOT)}
    ).start()
    failed = {
        "content": [{"type": "text", "text": "rate_limited"}],
        "structuredContent": RATE_LIMITED,
        "isError": True,
    }
    unanswered = [e for e in call(UNANSWERED, "unpaid") if e["snapshot"] in ("arguments", "result")]
    events = [
        *call(RENAMED, "unpaid"),
        *call(CHANGED, "paid"),
        *call(FAILED, "", RATE_LIMITED, 503, failed),
    ]
    events += unanswered
    assert (
        httpx.post(live.url + "/api/v1/ingest", content=ndjson(*events), timeout=30).status_code
        == 200
    )
    yield live
    live.stop()


def row_of(page, response: str, result: str):
    """The aligned row whose response cell shows `response` and whose result cell shows `result`."""
    return (
        page.locator("table.aligned tr.arow")
        .filter(has=page.locator(f'td.stage-response[data-ptr="{response}"]'))
        .filter(has=page.locator(f'td.stage-result[data-ptr="{result}"]'))
    )


def test_four_columns_align_each_response_field_with_its_renamed_place_in_the_result(page, server):
    page.goto(f"{server.url}/traces/{RENAMED}")
    expect(page.locator("table.aligned thead th")).to_have_text(
        ["arguments", "request", "response", "result", "finding"]
    )
    for response, result, text in (
        ("/orders/0/id", "/structuredContent/items/0/orderId", '"ord_1"'),
        ("/orders/0/status", "/structuredContent/items/0/state", '"unpaid"'),
        ("/orders/0/total_cents", "/structuredContent/items/0/totalCents", "1250"),
        ("/total", "/structuredContent/count", "1"),
    ):
        row = row_of(page, response, result)
        expect(row).to_have_count(1)
        expect(row.locator("td.stage-result code.v")).to_have_text(text)
    # the result column sits in the fourth place, level with the other three in every row
    boxes = [page.locator("table.aligned thead th").nth(i).bounding_box() for i in range(4)]
    assert [b["x"] for b in boxes] == sorted(b["x"] for b in boxes)
    cell = (
        row_of(page, "/total", "/structuredContent/count").locator("td.stage-result").bounding_box()
    )
    assert abs(cell["x"] - boxes[3]["x"]) < 2
    expect(page.locator("tr.arow.marked.sev-warning")).to_have_count(0)


def test_a_value_changed_on_the_way_back_is_marked_in_the_result_column(page, server):
    page.goto(f"{server.url}/traces/{CHANGED}")
    row = page.locator("tr.arow.marked.sev-warning")
    expect(row).to_have_count(1)
    expect(
        row.locator('td.stage-result[data-ptr="/structuredContent/items/0/state"]')
    ).to_have_count(1)
    expect(row).to_contain_text("value_changed · warning")


def test_the_raw_view_shows_the_result_as_a_fourth_tree(page, server):
    page.goto(f"{server.url}/traces/{RENAMED}?view=raw")
    expect(page.locator(".raw.columns .stage-title")).to_have_text(
        ["arguments", "request", "response", "result"]
    )


def test_a_structured_error_result_sits_on_the_rows_of_the_error_envelope(page, server):
    page.goto(f"{server.url}/traces/{FAILED}")
    for field in ("code", "message", "retryable"):
        expect(row_of(page, f"/error/{field}", f"/structuredContent/error/{field}")).to_have_count(
            1
        )


def test_a_call_whose_request_and_response_never_came_is_badged_and_never_said_to_agree(
    page, server
):
    page.goto(f"{server.url}/traces/{UNANSWERED}")
    expect(page.locator(".summary-bar .badge.sev-incomplete")).to_have_text("incomplete")
    expect(page.locator("#findings .not-received")).to_have_text(
        "request and response not received: nothing to compare"
    )
    expect(page.locator("section.call")).not_to_contain_text("agree")
    page.goto(f"{server.url}/?q={UNANSWERED}")
    expect(page.locator("tr.trace-row .badge")).to_have_text("◌ incomplete")
