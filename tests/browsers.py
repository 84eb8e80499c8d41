"""What the browser tests share: Debian's Chromium (required on CI), launched the one way this machine allows."""

import os
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-dev-shm-usage"]


def need_chromium() -> None:
    """Skip the calling test module without Chromium; fail it on CI, which must run the browser tests."""
    if Path(CHROMIUM).exists():
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{CHROMIUM} is missing; CI must run the browser tests (.ci/run installs chromium)", pytrace=False)
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium to run the browser tests", allow_module_level=True)


def launch(playwright):
    """Start Debian's Chromium (Playwright's own download does not work here)."""
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
