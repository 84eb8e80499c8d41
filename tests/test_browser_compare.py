"""The compare page in a real browser.

A long value wraps in its own column and never squeezes a short one beside it (Playwright driving
Debian's Chromium against `tracediff serve`)."""

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from helpers import ndjson

need_chromium()

pytestmark = pytest.mark.browser
VIEWPORT = {"width": 1000, "height": 800}
LONG = "https://example.com/" + "a1b2c3d4" * 60
A, B = "c0ffee00000000000000000000000a01", "c0ffee00000000000000000000000a02"


def event(trace: str, memo) -> dict:
    return {
        "trace_id": trace,
        "call_id": "call_01",
        "tool": "findOrders",
        "snapshot": "arguments",
        "payload": {"memo": memo, "limit": 5},
    }


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(
        tmp_path_factory.mktemp("compare") / "compare.db", env={"PYTHONPATH": str(ROOT)}
    ).start()
    sent = httpx.post(
        live.url + "/api/v1/ingest", content=ndjson(event(A, LONG), event(B, None)), timeout=30
    )
    assert sent.status_code == 200
    yield live
    live.stop()


def lines_of(page, text: str) -> list[int]:
    """How many lines each value cell starting with `text` takes (a long one is cut short)."""
    return page.eval_on_selector_all(
        "table.compare code.v",
        """(codes, text) => codes.filter(c => c.textContent.startsWith(text)).map(c => {
            const range = document.createRange();
            range.selectNodeContents(c);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
        })""",
        text,
    )


def test_a_long_value_wraps_and_the_short_one_beside_it_stays_whole(page, server):
    page.goto(f"{server.url}/compare?a={A}&b={B}")
    # B's null sits beside A's long URL: one line, not "nul|l"
    assert lines_of(page, "null") == [1]
    assert lines_of(page, "5") == [1, 1]
    (long_lines,) = lines_of(page, '"https://example.com/a1b2')
    assert long_lines > 1
    # wrapped, not pushed past the window
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
