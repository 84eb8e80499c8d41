"""A person with the admin token signs in from a browser where reading is open.

In Chromium against a real `tracediff serve --demo` with admin and ingest tokens set and no read
token.

No page challenges such a browser, so it never sends a password on its own: the problem page offers
"Sign in", /signin challenges with Basic, the browser answers with the credentials it was given
(Playwright's `http_credentials` answers a Basic challenge as a person at the browser's password
dialog does), lands back on the page, sees who is signed in and uses the resolve form.
"""

import re
import time

import httpx
import pytest
from browsers import need_chromium
from conftest import ROOT, LiveServer

ADMIN, SHIPPER = "adm-3c9e1a7f5b2d4086", "ing-8f2a6c0e4b1d3957"
ACCESS = re.compile(
    r'access: \S+ (?P<request>"[A-Z]+ \S+") (?P<status>\d{3}) .*?(?: token=(?P<token>\S+))?$', re.M
)
need_chromium()

from playwright.sync_api import expect  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {
        "PYTHONPATH": str(ROOT),
        "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}",
        "TRACEDIFF_INGEST_TOKENS": f"ship:{SHIPPER}",
    }
    live = LiveServer(
        tmp_path_factory.mktemp("signin") / "demo.db", env=env, args=["--demo"]
    ).start()
    yield live
    live.stop()


def open_problem(server) -> str:
    """The findOrders type_changed problem of the demo data (regressed until the first test resolves
    it), read without a token: reading is open."""
    problems = httpx.get(
        server.url + "/api/v1/problems?tool=findOrders&kind=type_changed", timeout=10
    ).json()
    [problem] = problems["problems"]
    return problem["id"]


def access_lines(server, *paths, wait_for_ops=True) -> list[str]:
    """The server's access log lines for these paths: request, status and the token's name (or
    -)."""
    deadline = time.monotonic() + 5
    # a worker writes its line just after it answers
    while True:
        found = [
            f"{m['request']} {m['status']} {m['token'] or '-'}"
            for m in ACCESS.finditer(server.logs())
            if m["request"].split()[1].rstrip('"') in paths
        ]
        if (
            found
            and (found[-1].endswith(" ops") or not wait_for_ops)
            or time.monotonic() > deadline
        ):
            return found
        time.sleep(0.1)


@pytest.mark.browser
def test_a_person_signs_in_from_the_problem_page_and_resolves_it(server, browser):
    problem_id = open_problem(server)
    context = browser.new_context(http_credentials={"username": "ann", "password": ADMIN})
    page = context.new_page()
    page.set_default_timeout(20_000)
    answers = []
    page.on("response", lambda r: answers.append((r.url.removeprefix(server.url), r.status)))

    problem_url = f"{server.url}/problems/{problem_id}?since=30d"
    page.goto(problem_url)
    expect(page.locator("h1")).to_contain_text("type_changed")
    expect(page.locator(".state").first).to_have_text("regressed")
    # open reading: no challenge, so no form yet
    expect(page.locator("form.state-form")).to_have_count(0)
    expect(page.locator(".actions .note")).to_contain_text("TRACEDIFF_ADMIN_TOKENS")
    expect(page.locator("header .who")).not_to_contain_text("signed in")
    assert access_lines(server, f"/problems/{problem_id}", wait_for_ops=False) == [
        f'"GET /problems/{problem_id}" 200 -'
    ]

    page.locator("header a.signin").click()
    page.wait_for_url(problem_url)
    # /signin challenged, the browser answered it (the network layer does, so the page sees only the
    # 303), and the redirect brought it back to the same page; the server's access log shows all
    # three
    assert (f"/signin?next=/problems/{problem_id}?since%3D30d", 303) in answers
    assert access_lines(server, "/signin", f"/problems/{problem_id}")[-3:] == [
        '"GET /signin" 401 -',
        '"GET /signin" 303 ops',
        f'"GET /problems/{problem_id}" 200 ops',
    ]
    expect(page.locator("header .who .token-name")).to_have_text("ops")
    expect(page.locator("header .who")).to_contain_text("(admin)")
    expect(page.locator("header a.signin")).to_have_count(0)
    assert ADMIN not in page.content()

    page.select_option("select[name=resolve]", "now")
    page.click("button.resolve")
    expect(page.locator(".state").first).to_have_text("resolved")
    expect(page.locator("ol.history li").first).to_contain_text("resolved")
    stored = httpx.get(f"{server.url}/api/v1/problems/{problem_id}", timeout=10).json()
    assert stored["state"] == "resolved"

    # every other page of the site gets the credential too: the alert settings' form shows at once
    page.goto(server.url + "/settings/alerts")
    expect(page.locator("form.alert-form")).to_be_visible()
    expect(page.locator("header .who .token-name")).to_have_text("ops")
    context.close()


@pytest.mark.browser
def test_a_browser_given_a_wrong_token_is_refused_and_sees_no_form(server, browser):
    problem_id = open_problem(server)
    context = browser.new_context(http_credentials={"username": "ann", "password": SHIPPER})
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{server.url}/problems/{problem_id}")
    page.locator("header a.signin").click()
    # the browser gave up: the 401 page says what is needed
    expect(page.locator("h1")).to_have_text("Sign in")
    expect(page.locator("main")).to_contain_text("TRACEDIFF_ADMIN_TOKENS")
    page.locator("main a", has_text="back").click()
    expect(page.locator("h1")).to_contain_text("type_changed")
    expect(page.locator("form.state-form")).to_have_count(0)
    context.close()
