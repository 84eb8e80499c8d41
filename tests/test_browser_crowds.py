"""The tool filter among 3,000 tools, in Chromium.

Typing part of a rare tool's name offers it (htmx refills the datalist from /values/tool), and the
filter takes it; without JavaScript it is a plain text field that does too."""

import re

import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer
from crowds import RARE, tool_name

need_chromium()

from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(built_databases, tmp_path_factory):
    path = tmp_path_factory.mktemp("crowd") / "crowd.db"
    built_databases.copy_file("crowd", path)
    live = LiveServer(path, env={"PYTHONPATH": str(ROOT), "TRACEDIFF_ANALYZER": "off"}).start()
    yield live
    live.stop()


def test_typing_part_of_a_rare_tool_offers_it_and_the_filter_takes_it(page, server):
    page.goto(server.url + "/")
    field = page.locator('#filters input[name="tool"]')
    options = page.locator("#filters datalist#tool-values option")
    # the busiest tools, offered before anything is typed
    expect(options).to_have_count(50)
    expect(options.first).to_have_attribute("value", tool_name(0))
    field.press_sequentially(str(RARE), delay=30)
    expect(options).to_have_count(1)
    expect(options.first).to_have_attribute("value", tool_name(RARE))
    field.fill(tool_name(RARE))
    field.press("Enter")
    page.wait_for_url(re.compile(rf"tool={tool_name(RARE)}"))
    expect(page.locator("#list tbody tr")).to_have_count(1)
    expect(page.locator("#list tbody tr")).to_contain_text(tool_name(RARE))


def test_without_javascript_the_tool_filter_is_a_text_field_that_filters(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + "/")
    page.locator('#filters input[name="tool"]').fill(tool_name(RARE))
    page.locator("#filters button[type=submit]").click()
    page.wait_for_url(re.compile(rf"tool={tool_name(RARE)}"))
    expect(page.locator("#list tbody tr")).to_have_count(1)
    context.close()
