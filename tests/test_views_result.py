"""The trace page with a fourth snapshot.

The result in its own aligned column and its own raw tree."""

import re

import pytest
from helpers import TRACE, envelope, ndjson, order_call

RESPONSE = {"orders": [{"id": "ord_1", "status": "unpaid", "total_cents": 1250}], "total": 1}
RENAMED = {"items": [{"orderId": "ord_1", "state": "unpaid", "totalCents": 1250}], "count": 1}


def with_result(client, result, response=RESPONSE, status=200, trace_id=TRACE):
    calls = order_call(trace_id)
    calls[2] = envelope(
        "response", response, trace_id, ts="2026-11-20T09:00:02Z", http={"status_code": status}
    )
    calls.append(envelope("result", result, trace_id, ts="2026-11-20T09:00:03Z", source="mcp"))
    assert client.post("/api/v1/ingest", data=ndjson(*calls)).status_code == 200


def headers(html: str) -> list[str]:
    return re.findall(r'<th class="stage-(\w+)">', html)


def cells(html: str, snapshot: str) -> list[str]:
    return re.findall(rf'data-snap="{snapshot}" data-ptr="([^"]*)"', html)


def test_a_call_with_a_result_shows_four_aligned_columns_following_the_renames(client):
    with_result(
        client, {"content": [{"type": "text", "text": "1 order"}], "structuredContent": RENAMED}
    )
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    assert headers(html) == ["arguments", "request", "response", "result"]
    rows = re.findall(r'<tr class="arow.*?</tr>', html, re.S)
    status_row = next(r for r in rows if 'data-ptr="/orders/0/status"' in r)
    assert 'data-snap="result" data-ptr="/structuredContent/items/0/state"' in status_row
    assert "/structuredContent/count" in cells(html, "result")


def test_a_changed_value_on_the_way_back_is_marked_in_the_result_column(client):
    paid = {**RENAMED, "items": [{**RENAMED["items"][0], "state": "paid"}]}
    with_result(client, {"content": [], "structuredContent": paid})
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    row = next(
        r for r in re.findall(r'<tr class="arow.*?</tr>', html, re.S) if "/items/0/state" in r
    )
    assert "value_changed" in row and "sev-warning" in row
    data = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"][0]
    [found] = [f for f in data["findings"] if f["severity"] != "info"]
    assert found["right"] == {"snapshot": "result", "path": "/structuredContent/items/0/state"}


def test_a_text_result_gets_one_row_and_an_error_hidden_shows_at_its_ends(client):
    rate_limited = {
        "error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}
    }
    with_result(client, "No orders found.", rate_limited, 503)
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    assert "error_hidden" in html and "No orders found." in html
    assert cells(html, "result") == [""]


RATE_LIMITED = {
    "error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}
}


@pytest.mark.parametrize(
    "result,prefix",
    [
        (
            {
                "content": [{"type": "text", "text": "rate_limited"}],
                "structuredContent": RATE_LIMITED,
                "isError": True,
            },
            "/structuredContent/error",
        ),
        (
            {"error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}},
            "/error",
        ),
        (
            {
                "content": [],
                "structuredContent": {"errorCode": "rate_limited", "canRetry": True},
                "isError": True,
            },
            "/structuredContent",
        ),
    ],
)
def test_a_structured_error_result_aligns_with_the_error_envelope_field_by_field(
    client, result, prefix
):
    with_result(client, result, RATE_LIMITED, 503)
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    rows = re.findall(r'<tr class="arow.*?</tr>', html, re.S)
    code_row = next(r for r in rows if 'data-snap="response" data-ptr="/error/code"' in r)
    retry_row = next(r for r in rows if 'data-snap="response" data-ptr="/error/retryable"' in r)
    code, retry = (
        ("/errorCode", "/canRetry") if prefix == "/structuredContent" else ("/code", "/retryable")
    )
    assert f'data-snap="result" data-ptr="{prefix}{code}"' in code_row
    assert f'data-snap="result" data-ptr="{prefix}{retry}"' in retry_row
    # on the response's row, not on a row of its own
    assert cells(html, "result").count(prefix + code) == 1


def test_the_raw_view_shows_the_result_as_a_fourth_tree(client):
    with_result(client, {"content": [], "structuredContent": RENAMED})
    html = client.get(f"/traces/{TRACE}?view=raw").get_data(as_text=True)
    assert re.findall(r'<ul class="tree" data-snap="(\w+)"', html) == [
        "arguments",
        "request",
        "response",
        "result",
    ]


def test_a_call_without_a_result_keeps_its_three_columns(client):
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).status_code == 200
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    assert headers(html) == ["arguments", "request", "response"]
    raw = client.get(f"/traces/{TRACE}?view=raw").get_data(as_text=True)
    assert re.findall(r'<ul class="tree" data-snap="(\w+)"', raw) == [
        "arguments",
        "request",
        "response",
    ]


def test_pairs_repeated_across_array_items_are_stored_once_and_still_align_every_item(
    client, store
):
    orders = [{"id": f"ord_{i}", "status": "paid", "total_cents": i} for i in range(12)]
    items = [
        {"orderId": o["id"], "state": o["status"], "totalCents": o["total_cents"]} for o in orders
    ]
    with_result(
        client,
        {"content": [], "structuredContent": {"items": items, "count": 12}},
        {"orders": orders, "total": 12},
    )
    html = client.get(f"/traces/{TRACE}?view=aligned").get_data(as_text=True)
    row = next(
        r
        for r in re.findall(r'<tr class="arow.*?</tr>', html, re.S)
        if 'data-ptr="/orders/11/status"' in r
    )
    assert 'data-snap="result" data-ptr="/structuredContent/items/11/state"' in row
    returned = store.call_analysis(TRACE, "call_01")["returned"]
    assert ["/orders/*/status", "/items/*/state"] in returned["patterns"]
    # folded, not one pair per item
    assert not any(path.startswith("/orders/1") for path in returned["pairs"])
