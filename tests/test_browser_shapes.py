"""The trace page of the corpus' worst shapes at 1 MB is usable in Chromium: time to the first finding highlighted.

    python -m pytest tests/test_browser_shapes.py -s                              # the worst shapes for the page
    TRACEDIFF_BROWSER_SHAPES=all python -m pytest tests/test_browser_shapes.py -s  # every shape (~10 min here)
"""
import os
import sys
import time
from pathlib import Path

import httpx
import orjson
import pytest
from conftest import ROOT, LiveServer

CHROMIUM = "/usr/bin/chromium"
SIZE = 1_000_000
# The heaviest pages: most rows, longest keys (unicode_long_keys: 600-character keys), echoes, deep paths.
WORST = ("unicode_long_keys", "echo_with_changes", "records_enum", "keys_case_converted", "deep_nesting")
pytestmark = [pytest.mark.browser, pytest.mark.timeout(1800)]
if not Path(CHROMIUM).exists():
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is missing; CI must run the browser tests", pytrace=False)
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests",
                allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from corpus import SHAPES  # noqa: E402

CHOSEN = list(SHAPES) if os.environ.get("TRACEDIFF_BROWSER_SHAPES") == "all" else list(WORST)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A real server holding every shape at 1 MB, each call analysed in full before the pages are timed."""
    db = tmp_path_factory.mktemp("shapes") / "shapes.db"
    # No budget: the page is timed on complete analyses, the heaviest case for it.
    live = LiveServer(db, env={"PYTHONPATH": str(ROOT), "TRACEDIFF_ANALYSIS_BUDGET": "0"}).start()
    for name in CHOSEN:
        snapshots, _ = SHAPES[name](SIZE)
        events = [{"trace_id": f"shape-{name}", "call_id": "c1", "snapshot": stage, "tool": "shapeTool",
                   "payload": snap["payload"], "http": snap["http"]} for stage, snap in snapshots.items() if snap]
        for _ in range(30):   # a shipper retries a 503 (the analyser holds the database) after Retry-After
            answer = httpx.post(live.url + "/api/v1/ingest", content=orjson.dumps(events), timeout=60)
            if answer.status_code != 503:
                break
            time.sleep(float(answer.headers.get("Retry-After", 1)))
        assert answer.status_code == 200, answer.text
    deadline = time.monotonic() + 600
    for name in CHOSEN:
        while not all(c["analyzed"] for c in httpx.get(f"{live.url}/api/v1/traces/shape-{name}",
                                                       timeout=600).json()["calls"]):
            assert time.monotonic() < deadline, "the analyser did not finish the corpus"
            time.sleep(0.5)
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"])
        yield chromium
        chromium.close()


def usable_after(browser, url: str) -> tuple[float, int, int]:
    """Open a trace page; return the seconds until its first finding is clicked and highlighted, bytes, elements."""
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    page = context.new_page()
    try:
        started = time.perf_counter()
        response = page.goto(url)
        first = page.locator("#finding-1")
        if first.count():
            first.locator(".message").click()
            end = first.get_attribute("data-left") or first.get_attribute("data-right")
            expect(page.locator(f'[id="{end}"]').first).to_have_class(__import__("re").compile(r"\bhl\b"))
        else:
            expect(page.locator("table.aligned, .clean").first).to_be_visible()
        seconds = time.perf_counter() - started
        return seconds, len(response.body()), page.evaluate("document.getElementsByTagName('*').length")
    finally:
        context.close()


def test_the_worst_shapes_at_1mb_are_usable_within_a_second(server, browser):
    lines, worst = [], (0.0, "")
    for name in CHOSEN:
        usable_after(browser, f"{server.url}/traces/shape-{name}")   # a first load warms the server's caches
        seconds, size, elements = usable_after(browser, f"{server.url}/traces/shape-{name}")
        worst = max(worst, (seconds, name))
        lines.append(f"{name:24s} usable after {seconds * 1000:5.0f} ms, {size / 1000:6.0f} KB, {elements} elements")
    print("\n" + "\n".join(lines) + f"\nworst: {worst[1]} at {worst[0] * 1000:.0f} ms")
    # Generous on a machine shared with other test runs; the printed figure is the one to read.
    assert worst[0] < 5, lines
