"""The dashboard in a real browser.

Playwright driving Debian's Chromium against `tracediff serve --demo`.

The screenshots in docs/screenshots/ are written only when asked: `python -m pytest tests/test_browser.py
 --screenshots`.
"""

import hashlib
import json
import re
import time

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, SAMPLES, LiveServer
from helpers import ndjson

LIMIT_AS_STRING = hashlib.sha256(b"tracediff-sample/02-orders-limit-as-string.ndjson").hexdigest()[
    :32
]
HOSTILE = "b0571e0000000000000000000000cafe"
BIG = "b1600000000000000000000000000001"
ITEMS = "17e5000000000000000000000000000a"
BROKEN_JSON = "be1272c49b07cc57bb55fb837d749d64"

need_chromium()

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser


def hostile_events() -> list[dict]:
    payload = {
        "<script>alert('key')</script>": "<img src=x onerror=alert('value')>",
        "</script><img src=x onerror=alert(2)>": ["<b>bold</b>", "\u202eevil"],
    }
    return [
        {
            "trace_id": HOSTILE,
            "call_id": "call_01",
            "snapshot": name,
            "tool": "<script>alert(3)</script>",
            "payload": payload,
            "ts": "2026-06-30T10:00:00Z",
        }
        for name in ("arguments", "request")
    ]


def big_events() -> list[dict]:
    items = [
        {"id": f"ord_{i:06d}", "status": "delivered", "note": "x" * 180, "total_cents": i}
        for i in range(4500)
    ]
    base = {
        "trace_id": BIG,
        "call_id": "call_01",
        "tool": "findOrders",
        "ts": "2026-06-30T11:00:00Z",
    }
    return [
        {**base, "snapshot": "arguments", "payload": {"status": "delivered", "limit": 5}},
        {**base, "snapshot": "request", "payload": {"status": "delivered", "limit": "5"}},
        {
            **base,
            "snapshot": "response",
            "payload": {"orders": items, "next_cursor": None},
            "http": {"status_code": 200},
        },
    ]


def items_events() -> list[dict]:
    """3,000 items (330 KB: the raw view opens collapsed), the last one's qty sent as a string:
    a finding far past the aligned view's row limit."""
    items = [{"id": f"i{i}", "qty": i, "note": "n" * 80} for i in range(3000)]
    sent = [dict(item) for item in items]
    sent[-1]["qty"] = "2999"
    base = {
        "trace_id": ITEMS,
        "call_id": "call_01",
        "tool": "putItems",
        "ts": "2026-06-30T12:00:00Z",
    }
    return [
        {**base, "snapshot": "arguments", "payload": {"items": items}},
        {**base, "snapshot": "request", "payload": {"items": sent}},
    ]


def sample_trace_ids() -> set[str]:
    return {
        json.loads(line)["trace_id"]
        for path in SAMPLES.glob("*.ndjson")
        for line in path.read_text().splitlines()
        if line.strip()
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "demo.db"
    live = LiveServer(db, env={"PYTHONPATH": str(ROOT)}, args=["--demo"]).start()
    body = ndjson(*hostile_events(), *big_events(), *items_events())
    assert len(body) > 1_000_000
    assert httpx.post(live.url + "/api/v1/ingest", content=body, timeout=30).status_code == 200
    yield live
    live.stop()


def node(page, node_id: str):
    return page.locator(f'[id="{node_id}"]')


def test_a_type_change_shows_three_columns_and_the_findings_row_marked(page, server):
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}")
    for stage in ("arguments", "request", "response"):
        expect(page.locator(f"table.aligned th.stage-{stage}")).to_be_visible()
    row = page.locator("tr.arow.marked.sev-error")
    expect(row).to_be_visible()
    expect(row).to_contain_text("type_changed · error")
    expect(row.locator('[id="request/limit"]')).to_contain_text('"5"')


def test_clicking_a_finding_highlights_both_ends_in_either_view(page, server, screenshot):
    for view in ("aligned", "raw"):
        page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}?view={view}")
        page.locator(".finding").nth(0).locator(".message").click()
        expect(node(page, "arguments/limit")).to_have_class(has_class("hl"))
        expect(node(page, "request/limit")).to_have_class(has_class("hl"))
        expect(node(page, "request/limit")).to_be_in_viewport()
        screenshot(page, "trace.png" if view == "aligned" else "trace-raw.png")


def has_class(name: str):
    return re.compile(rf"(^|\s){name}(\s|$)")


def test_keyboard_moves_to_the_next_finding(page, server):
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}")
    page.keyboard.press("j")
    expect(page.locator(".finding").nth(0)).to_be_focused()
    page.keyboard.press("j")
    expect(page.locator(".finding").nth(1)).to_be_focused()
    page.keyboard.press("k")
    expect(page.locator(".finding").nth(0)).to_be_focused()


def test_typing_in_the_search_box_narrows_the_list(page, server):
    page.goto(server.url + "/")
    rows = page.locator("#trace-rows tr.trace-row")
    before = rows.count()
    page.locator('input[name="q"]').press_sequentially("findOrders", delay=20)
    # the list of the whole word: htmx pushes its URL once it swapped it in (on a loaded machine a
    # pause in the typing sent "find" first, and its list has as many rows)
    expect(page).to_have_url(re.compile(r"[?&]q=findOrders(&|$)"), timeout=30_000)
    # ten sample traces name findOrders, and the big trace
    expect(rows).to_have_count(11)
    assert before > 10
    page.locator('input[name="q"]').fill("")
    page.locator('input[name="q"]').press_sequentially("dana.whitfield", delay=20)
    expect(page.locator("#trace-rows")).to_contain_text(LIMIT_AS_STRING)


def test_a_deep_link_lands_on_the_path_highlighted(browser, server):
    context = browser.new_context(viewport={"width": 1200, "height": 500})
    page = context.new_page()
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}?call=call_01&view=raw#request/limit")
    target = node(page, "request/limit")
    expect(target).to_be_in_viewport()
    expect(target).to_have_class(has_class("hl"))
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}?call=call_01#finding-1")
    expect(node(page, "request/limit")).to_have_class(has_class("hl"))
    context.close()


def test_a_deep_link_into_a_collapsed_subtree_far_past_the_first_page_lands(page, server):
    page.goto(f"{server.url}/traces/{BIG}?call=call_01&view=raw#response/orders/2500/status")
    target = node(page, "response/orders/2500/status")
    expect(target).to_be_in_viewport()
    expect(target).to_have_class(has_class("hl"))
    expect(target).to_contain_text('"delivered"')
    # a reload renders it open at once
    assert "open=response%2Forders%2F2500%2Fstatus" in page.url
    page.evaluate("location.hash = 'response/orders/4400/id'")
    expect(node(page, "response/orders/4400/id")).to_be_in_viewport()
    expect(node(page, "response/orders/4400/id")).to_have_class(has_class("hl"))
    assert page.locator('[id="response/orders/4400"]').count() == 1


def test_a_deep_link_to_a_node_that_does_not_exist_says_so(page, server):
    page.goto(f"{server.url}/traces/{BIG}?call=call_01&view=raw#response/orders/99999/status")
    expect(page.locator("#view .deep-link-note")).to_contain_text(
        "No node response/orders/99999/status"
    )


def test_hostile_keys_and_values_render_as_inert_text(page, server):
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for view in ("aligned", "raw"):
        page.goto(f"{server.url}/traces/{HOSTILE}?view={view}")
        expect(page.locator("#view")).to_contain_text("<img src=x onerror=alert('value')>")
        page.locator("#view [data-ptr]").first.hover()
    expect(page.locator(".tree .key").first).to_have_text("<script>alert('key')</script>")
    page.goto(server.url + "/?q=onerror")
    expect(page.locator("#trace-rows")).to_contain_text("<script>alert(3)</script>")
    assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    assert dialogs == []


def test_a_trace_with_a_1mb_response_is_usable_within_a_second(page, server):
    figures = []
    for attempt in ("first load", "second load"):
        started = time.perf_counter()
        page.goto(f"{server.url}/traces/{BIG}")
        page.locator(".finding").nth(0).locator(".message").click()
        expect(node(page, "request/limit")).to_have_class(has_class("hl"))
        usable = time.perf_counter() - started
        ready = float(page.evaluate("document.documentElement.dataset.ready"))
        figures.append(
            f"{attempt}: script ready at {ready:.0f} ms (performance.now), "
            f"first finding clicked and highlighted after {usable * 1000:.0f} ms"
        )
    nodes = page.evaluate("document.getElementsByTagName('*').length")
    print("\n1 MB response, " + "; ".join(figures) + f"; {nodes} elements")
    assert usable < 5, "generous bound; the target is 1 s"


def test_screenshot_of_the_list(page, server, screenshot):
    # the sample traces (serve --demo moves them to the last days), not this module's extras of June
    page.goto(server.url + "/?since=2026-07-01&limit=100")
    expect(page.locator("#trace-rows tr.trace-row")).to_have_count(len(sample_trace_ids()))
    screenshot(page, "list.png")


def test_a_finding_past_the_aligned_row_limit_is_highlighted_by_click_key_and_deep_link(
    page, server
):
    ends = ("arguments/items/2999/qty", "request/items/2999/qty")
    for how in ("click", "key", "link"):
        page.goto(f"{server.url}/traces/{ITEMS}" + ("#finding-1" if how == "link" else ""))
        if how == "click":
            page.locator(".finding").nth(0).locator(".message").click()
        if how == "key":
            page.keyboard.press("j")
        for end in ends:
            expect(node(page, end)).to_have_class(has_class("hl"))
        expect(node(page, ends[1])).to_be_in_viewport()


def test_clicking_an_invalid_json_finding_highlights_the_broken_request(page, server):
    page.goto(f"{server.url}/traces/{BROKEN_JSON}")
    page.locator(".finding").nth(0).locator(".message").click()
    expect(node(page, "request")).to_have_class(has_class("hl"))
    expect(node(page, "request")).to_contain_text('"query": "quarterly board minutes"')


def test_collapse_all_closes_loaded_subtrees_and_expand_all_opens_only_loaded_ones(page, server):
    page.goto(f"{server.url}/traces/{ITEMS}?view=raw")
    # open: a finding lies below it
    orders = page.locator('[id="arguments/items"] > details')
    lazy = orders.locator("details.lazy")
    loaded, never = lazy.nth(0), lazy.nth(1)
    loaded.locator("> summary").click()
    expect(loaded.locator(".node").first).to_be_visible()
    expect(loaded.locator(".lazy-link")).to_have_count(0)
    page.locator('button[data-tree="collapse"]').click()
    assert not orders.evaluate("d => d.open") and not loaded.evaluate("d => d.open")
    page.locator('button[data-tree="expand"]').click()
    assert orders.evaluate("d => d.open") and loaded.evaluate("d => d.open")
    assert not never.evaluate("d => d.open")
    # never opened: not fetched
    expect(never.locator(".lazy-link")).to_have_count(1)


def test_auto_refresh_pauses_while_older_traces_are_shown(page, server):
    page.goto(f"{server.url}/?limit=5&refresh=on")
    rows = page.locator("#trace-rows tr.trace-row")
    expect(rows).to_have_count(5)
    page.locator(".more-row a").click()
    expect(rows).to_have_count(10)
    expect(page.locator("#refresh-paused")).to_be_visible()
    # past one 5 s refresh
    page.wait_for_timeout(6000)
    expect(rows).to_have_count(10)
    page.locator("#refresh-paused a").click()
    expect(rows).to_have_count(5)


def test_back_refills_the_search_and_filters_from_the_url(page, server):
    page.goto(server.url + "/")
    search = page.locator('input[name="q"]')
    search.press_sequentially("findOrders", delay=20)
    page.wait_for_url(re.compile(r"q=findOrders"))
    page.locator('select[name="severity"]').select_option("error")
    page.wait_for_url(re.compile(r"severity=error"))
    page.go_back()
    page.wait_for_url(lambda url: "q=findOrders" in url and "severity=error" not in url)
    expect(search).to_have_value("findOrders")
    expect(page.locator('select[name="severity"]')).to_have_value("")
    page.locator('input[name="tool"]').fill("findOrders")
    page.locator('input[name="tool"]').press("Enter")
    page.wait_for_url(re.compile(r"tool=findOrders"))
    assert "q=findOrders" in page.url


def test_copy_value_copies_exactly_the_json_text(browser, server):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}")
    cell = node(page, "request/limit")
    cell.hover()
    cell.locator("button.copy-value").click()
    expect(cell.locator("button.copy-value")).to_have_text("copied")
    assert page.evaluate("navigator.clipboard.readText()") == '"5"'
    context.close()


def test_clicking_an_end_link_highlights_both_ends_of_its_finding(page, server):
    for view in ("aligned", "raw"):
        page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}?view={view}")
        page.locator(".finding").nth(0).locator(".ends a").last.click()
        expect(node(page, "arguments/limit")).to_have_class(has_class("hl"))
        expect(node(page, "request/limit")).to_have_class(has_class("hl"))
        assert page.url.endswith("#request/limit")


def test_a_deep_link_to_a_missing_path_clears_the_highlighted_finding(page, server):
    page.goto(f"{server.url}/traces/{LIMIT_AS_STRING}")
    page.locator(".finding").nth(0).focus()
    expect(page.locator(".finding").nth(0)).to_have_class(has_class("hl"))
    page.evaluate("location.hash = 'request/nope'")
    expect(page.locator("#view .deep-link-note")).to_contain_text("No node request/nope")
    expect(page.locator(".finding").nth(0)).not_to_have_class(has_class("hl"))
    expect(page.locator(".finding").nth(0)).not_to_be_focused()
    assert page.locator(".hl").count() == 0


def test_pages_load_without_a_favicon_404(page, server):
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(server.url + "/")
    page.wait_for_load_state("networkidle")
    assert missing == []
