"""What the browser tests share.

Debian's Chromium (required on CI), launched the one way this machine allows, and the fixtures
conftest.py hands every browser test (`browser`, `page`, `screenshot`)."""

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-dev-shm-usage",
]


# how long expect() waits for a state: its own default is 5 s, whatever page.set_default_timeout
# says, and a page of a loaded machine (the suite runs on every core of two) can take longer
EXPECT_WAIT_MS = 30_000


def need_chromium() -> None:
    """Skip the calling test module without Chromium; fail it on CI, which must run the browser
    tests."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(
            f"{CHROMIUM} is missing; CI must run the browser tests (.ci/run installs chromium)",
            pytrace=False,
        )
    pytest.skip(
        f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests",
        allow_module_level=True,
    )


def launch(playwright):
    """Start Debian's Chromium (Playwright's own download does not work here).

    Every browser test launches it here, so here expect() gets its wait for the whole suite."""
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_WAIT_MS)
    return playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)


@contextmanager
def chromium():
    """Run Debian's Chromium for the length of a `with` block (a module's browser fixture)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a test module."""
    with chromium() as running:
        yield running


@pytest.fixture
def page(browser, request):
    """A fresh page the size of the module's VIEWPORT (default 1400x800); a script error on it fails
    the test."""
    context = browser.new_context(
        viewport=getattr(request.module, "VIEWPORT", {"width": 1400, "height": 800})
    )
    opened = context.new_page()
    errors = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, errors


@pytest.fixture
def screenshot(request, tmp_path):
    """Save a page as docs/screenshots/NAME with --screenshots, else in the test's own temporary
    folder."""
    folder = SCREENSHOTS if request.config.getoption("--screenshots") else tmp_path
    return lambda page, name: page.screenshot(path=str(folder / name), full_page=True)
