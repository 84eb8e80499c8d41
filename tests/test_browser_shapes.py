"""The trace page of the corpus' worst shapes at 1 MB is usable in Chromium.

Time to the first finding highlighted.

    python -m pytest tests/test_browser_shapes.py -s                              # the worst shapes for the page
    TRACEDIFF_BROWSER_SHAPES=all python -m pytest tests/test_browser_shapes.py -s  # every shape (~10 min here)
    TRACEDIFF_BROWSER_SHAPES=echo_with_changes,deep_nesting python -m pytest tests/test_browser_shapes.py -s

Per shape it prints the time until usable, the server's time for the same page over plain HTTP, and
Chromium's navigation timings (last byte, DOM parsed, loaded): which of server and DOM the time is.
"""

import os
import re
import sys
import time

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer

SIZE = 1_000_000
pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]
need_chromium()

from playwright.sync_api import expect  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from corpus import SHAPES  # noqa: E402
from trace_page import WORST, build  # noqa: E402  (WORST: the heaviest pages)

_ASKED = os.environ.get("TRACEDIFF_BROWSER_SHAPES", "")
CHOSEN = (
    list(SHAPES)
    if _ASKED == "all"
    else [n for n in _ASKED.split(",") if n in SHAPES] or list(WORST)
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real server on a database holding the shapes at 1 MB, analysed in full beforehand by the
    CLI."""
    db = tmp_path_factory.mktemp("shapes") / "shapes.db"
    # `tracediff ingest` analyses with no budget: the page is timed on complete analyses
    build(db, CHOSEN, SIZE)
    live = LiveServer(db, env={"PYTHONPATH": str(ROOT)}).start()
    assert all(
        c["analyzed"] and "incomplete" not in c
        for name in CHOSEN
        for c in httpx.get(f"{live.url}/api/v1/traces/shape-{name}", timeout=60).json()["calls"]
    )
    yield live
    live.stop()


def usable_after(browser, url: str) -> tuple[float, int, int, dict]:
    """Open a trace page; return the seconds until its first finding is clicked and highlighted,
    bytes, elements, and the browser's own timings (ms from navigation: last byte received, DOM
    parsed, loaded)."""
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    page = context.new_page()
    try:
        started = time.perf_counter()
        response = page.goto(url)
        first = page.locator("#finding-1")
        if first.count():
            first.locator(".message").click()
            ends = [first.get_attribute(side) for side in ("data-left", "data-right")]
            shown = [end for end in ends if end and page.locator(f'[id="{end}"]').count()]
            # a finding about a whole document (keys converted at the root) has no cell to light
            if shown:
                expect(page.locator(f'[id="{shown[0]}"]').first).to_have_class(
                    re.compile(r"\bhl\b")
                )
            expect(page.locator("table.aligned")).to_be_visible()
        else:
            expect(page.locator("table.aligned, .clean").first).to_be_visible()
        seconds = time.perf_counter() - started
        timing = page.evaluate(
            "(() => { const n = performance.getEntriesByType('navigation')[0]; return "
            "{response: n.responseEnd, parsed: n.domContentLoadedEventEnd, loaded: "
            "n.loadEventEnd}; })()"
        )
        return (
            seconds,
            len(response.body()),
            page.evaluate("document.getElementsByTagName('*').length"),
            timing,
        )
    finally:
        context.close()


def server_seconds(url: str) -> float:
    """Return the seconds the server takes to answer the page (plain HTTP, no browser): its part of
    the time."""
    started = time.perf_counter()
    assert httpx.get(url, timeout=60).status_code == 200
    return time.perf_counter() - started


def test_the_worst_shapes_at_1mb_are_usable_within_a_second(server, browser):
    lines, worst = [], (0.0, "", 0.0)
    for name in CHOSEN:
        url = f"{server.url}/traces/shape-{name}"
        # a first load warms the server's caches
        usable_after(browser, url)
        answered = server_seconds(url)
        seconds, size, elements, timing = usable_after(browser, url)
        worst = max(worst, (seconds, name, answered))
        lines.append(
            f"{name:24s} usable after {seconds * 1000:5.0f} ms (server alone "
            f"{answered * 1000:5.0f} ms; in "
            f"Chromium: last byte {timing['response']:5.0f}, DOM parsed {timing['parsed']:5.0f}, "
            "loaded "
            f"{timing['loaded']:5.0f} ms), {size / 1000:6.0f} KB, {elements} elements"
        )
    load = os.getloadavg()[0]
    print(
        "\n"
        + "\n".join(lines)
        + f"\nworst: {worst[1]} usable after {worst[0] * 1000:.0f} ms, of which the "
        f"server {worst[2] * 1000:.0f} ms (1-minute load average {load:.1f} on {os.cpu_count()} "
        "cores)"
    )
    # Generous on a machine shared with other test runs; the printed figure is the one to read.
    assert worst[0] < 5, lines
