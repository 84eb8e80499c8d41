"""Tickets: links attached from the CLI and the page.

The Markdown export as a ticket body, and the problem and alert settings pages' forms with tokens
set (the admin token's Basic auth opens them)."""

import base64
import html
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers import ndjson
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import create_app, pipeline
from webapp.store import Store

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
HOSTILE = "a`b``c | <b>x</b> *y* [z](http://evil.example)\n# h"
ADMIN, SHIPPER, READER = "admtok123", "ingtok123", "readtok123"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def loaded(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *call(trace(1), at(0, PAST), broken=False, release="1.4.0", limit=7),
        *call(trace(2), at(30, PAST), release="1.4.2"),
        *call(trace(3), at(40, PAST), release="1.4.2", limit=9),
    )
    pipeline.catch_up(store)
    return client


def basic(password: str, user: str = "qa") -> dict:
    """Send a token as a browser does once it signed in: the password of HTTP Basic auth."""
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def problem_id(client) -> str:
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    return problem["id"]


def tracediff(db_path, *args) -> subprocess.CompletedProcess:
    """Run the real `tracediff` command (this checkout's code) in its own process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TRACEDIFF_DATABASE": str(db_path)}
    return subprocess.run(
        [sys.executable, "-m", "webapp", *args], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.mark.slow
def test_the_cli_links_and_unlinks_tickets_and_redacts_a_secret_in_one(loaded, db_path):
    pid = problem_id(loaded)
    added = tracediff(
        db_path,
        "problems",
        "link",
        pid,
        "https://tracker.example.com/INC-8",
        "https://bot:hunter2@tracker.example.com/INC-9?token=abcdef123456",
    )
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines() == [
        f"{pid}: 2 links",
        "  https://tracker.example.com/INC-8",
        "  https://bot:[REDACTED]@tracker.example.com/INC-9?token=[REDACTED]",
    ]
    assert (
        loaded.get(f"/api/v1/problems/{pid}").get_json()["links"][0]
        == "https://tracker.example.com/INC-8"
    )
    # a link is removed as it was given (its secret redacted the same way) or as it is shown
    removed = tracediff(
        db_path,
        "problems",
        "link",
        pid,
        "--remove",
        "https://bot:hunter2@tracker.example.com/INC-9?token=abcdef123456",
    )
    assert removed.returncode == 0 and removed.stdout.splitlines() == [
        f"{pid}: 1 link",
        "  https://tracker.example.com/INC-8",
    ]
    assert loaded.get(f"/api/v1/problems/{pid}").get_json()["links"] == [
        "https://tracker.example.com/INC-8"
    ]
    assert loaded.get("/api/v1/problems?ticket=linked").get_json()["problems"][0]["id"] == pid
    for bad in (["javascript:alert(1)"], ["--remove", "https://tracker.example.com/INC-404"]):
        refused = tracediff(db_path, "problems", "link", pid, *bad)
        assert refused.returncode == 1 and "Error:" in refused.stderr and refused.stdout == ""
    assert loaded.get(f"/api/v1/problems/{pid}").get_json()["links"] == [
        "https://tracker.example.com/INC-8"
    ]


def test_the_page_links_and_unlinks_tickets_without_js_and_answers_htmx_with_the_fragment(loaded):
    pid = problem_id(loaded)
    page = loaded.get(f"/problems/{pid}").get_data(as_text=True)
    assert 'name="add"' in page and "No ticket linked." in page
    posted = loaded.post(
        f"/problems/{pid}/links",
        data={"add": "https://tracker.example.com/INC-8?token=s3cr3tvalue1"},
    )
    assert posted.status_code == 303 and posted.headers["Location"].endswith(f"/problems/{pid}")
    link = "https://tracker.example.com/INC-8?token=[REDACTED]"
    page = loaded.get(f"/problems/{pid}").get_data(as_text=True)
    assert f'href="{link}"' in page and "s3cr3tvalue1" not in page
    fragment = loaded.post(
        f"/problems/{pid}/links",
        data={"add": "https://tracker.example.com/INC-9"},
        headers={"HX-Request": "true"},
    )
    text = fragment.get_data(as_text=True)
    assert (
        fragment.status_code == 200
        and text.startswith('<section id="problem-links"')
        and "INC-9" in text
    )
    assert fragment.headers["Vary"] == "HX-Request"
    loaded.post(f"/problems/{pid}/links", data={"remove": link})
    assert loaded.get(f"/api/v1/problems/{pid}").get_json()["links"] == [
        "https://tracker.example.com/INC-9"
    ]
    history = loaded.get(f"/api/v1/problems/{pid}").get_json()["state_history"]
    assert all(h["by"] != "api" for h in history)


def test_a_link_the_page_cannot_take_is_refused_with_the_reason_on_the_page(loaded):
    pid = problem_id(loaded)
    refused = loaded.post(f"/problems/{pid}/links", data={"add": "javascript:alert(1)"})
    assert refused.status_code == 400 and refused.mimetype == "text/html"
    assert "links must be http(s) URLs" in refused.get_data(as_text=True)
    # htmx swaps only a 2xx: the reason is in the fragment
    fragment = loaded.post(
        f"/problems/{pid}/links",
        data={"remove": "https://nowhere.example.com/1"},
        headers={"HX-Request": "true"},
    )
    assert fragment.status_code == 200 and "is not linked to this problem" in fragment.get_data(
        as_text=True
    )
    assert loaded.get(f"/api/v1/problems/{pid}").get_json()["links"] == []


# a Stripe live key's shape, written in two so no scanner flags this file
KEY = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
# no scheme: no URL at all
REFUSED = [
    # not http(s)
    f"ftp://tracker.example.com/INC-1?api_key={KEY}",
    # a space
    f"https://tracker.example.com/INC 1?api_key={KEY}",
    f"tracker.example.com/INC-1?note=see {KEY}",
]


def assert_quoted_redacted(text: str) -> None:
    assert KEY not in text and KEY[:16] not in text and "[REDACTED]" in text, text


@pytest.mark.parametrize("link", REFUSED, ids=["not_http", "a_space", "no_scheme"])
@pytest.mark.slow
def test_a_refused_link_is_quoted_in_the_error_with_its_secret_redacted_on_the_page_api_and_cli(
    loaded, db_path, link
):
    pid = problem_id(loaded)
    for headers in ({}, {"HX-Request": "true"}):
        page = loaded.post(f"/problems/{pid}/links", data={"add": link}, headers=headers).get_data(
            as_text=True
        )
        assert "links must be http(s) URLs" in page
        assert_quoted_redacted(page)
    answer = loaded.patch(f"/api/v1/problems/{pid}", json={"links": [link]})
    assert answer.status_code == 400
    assert_quoted_redacted(answer.get_json()["error"]["message"])
    refused = tracediff(db_path, "problems", "link", pid, link)
    assert refused.returncode == 1
    assert_quoted_redacted(refused.stderr)


@pytest.mark.slow
def test_a_link_to_remove_that_is_not_there_is_quoted_with_its_secret_redacted(loaded, db_path):
    pid = problem_id(loaded)
    link = f"https://tracker.example.com/INC-404?api_key={KEY}"
    refused = tracediff(db_path, "problems", "link", pid, "--remove", link)
    assert refused.returncode == 1 and "is not linked to this problem" in refused.stderr
    assert_quoted_redacted(refused.stderr)
    page = loaded.post(f"/problems/{pid}/links", data={"remove": link}).get_data(as_text=True)
    assert "is not linked to this problem" in page
    assert_quoted_redacted(page)


def test_the_markdown_export_is_a_ticket_body(loaded, client, store):
    pid = problem_id(loaded)
    loaded.patch(f"/api/v1/problems/{pid}", json={"links": ["https://tracker.example.com/INC-8"]})
    text = loaded.get(f"/problems/{pid}.md").get_data(as_text=True)
    detail = loaded.get(f"/api/v1/problems/{pid}").get_json()
    latest, clean = detail["examples"]["latest"], detail["last_clean_before"]
    assert text.startswith(
        f"## {pid}: findOrders: /limit sent as string instead of integer (arguments -> request)"
    )
    for line in (
        "- What: type_changed (error), `arguments /limit` -> `request /limit`, transform "
        "`integer>string`",
        "- Since: first seen 2026-11-20",
        "- How many: 2 occurrences in 2 calls and 2 traces",
        "- Releases: `1.4.2`",
        # the clean one came before
        "- Exposure: 2 of 2 calls that had the path broke",
        f"- Failing call: <http://localhost/traces/{latest['trace_id']}?call=call_01>",
        "  - `arguments /limit`: `9`",
        '  - `request /limit`: `"9"`',
        f"- Last clean call before it: <http://localhost/traces/{clean['trace_id']}?call=call_01>",
        "  - `arguments /limit`: `7`",
        "  - `request /limit`: `7`",
        "- <https://tracker.example.com/INC-8>",
        f"Permalink: <http://localhost/problems/{pid}>",
    ):
        assert line in text, line
    assert clean["trace_id"] == trace(1) and latest["trace_id"] == trace(3)


def rendered(markdown: str) -> str:
    """Render Markdown as GitHub-like ticket systems do (CommonMark)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").render(markdown)


def as_html_text(text: str) -> str:
    """Write text as the CommonMark renderer writes literal text (&, <, > and " escaped)."""
    return html.escape(text, quote=False).replace('"', "&quot;")


def test_hostile_payload_text_stays_code_in_the_markdown_export(client, store):
    store.put_tool("findOrders", CONTRACT)
    events = call(trace(1), at(0, PAST), broken=False, release=HOSTILE.replace("\n", " "))
    events[0]["payload"]["status"], events[1]["payload"]["status"] = HOSTILE, HOSTILE.upper()
    send(client, *events)
    pipeline.catch_up(store)
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    text = client.get(f"/problems/{problem['id']}.md").get_data(as_text=True)
    html_text = rendered(text)
    # each value is one code span on one line that renders as the literal value
    codes = re.findall(r"<code>(.*?)</code>", html_text)
    # the release
    for value in (
        '"a`b``c | <b>x</b> *y* [z](http://evil.example)\\n# h"',
        '"A`B``C | <B>X</B> *Y* [Z](HTTP://EVIL.EXAMPLE)\\n# H"',
        "a`b``c | <b>x</b> *y* [z](http://evil.example) # h",
    ):
        assert as_html_text(value) in codes, value
    assert "<b>" not in html_text.lower() and "<h1>" not in html_text and "<em>" not in html_text
    assert 'href="http://evil' not in html_text.lower()
    assert "- How many: 1 occurrence in 1 call and 1 trace" in text


HOSTILE_TOOL = "R&amp;D <b>x</b> *y* [z](javascript:alert(1)) _i_ `t` &lt;"


def test_a_hostile_tool_name_renders_as_its_literal_text_and_plain_words_stay_unescaped(
    client, store
):
    store.put_tool(HOSTILE_TOOL, CONTRACT)
    send(client, *call(trace(1), at(0, PAST), tool=HOSTILE_TOOL))
    pipeline.catch_up(store)
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    text = client.get(f"/problems/{problem['id']}.md").get_data(as_text=True)
    html_text = rendered(text)
    heading = re.search(r"<h2>(.*?)</h2>", html_text).group(1)
    assert heading == as_html_text(
        f"{problem['id']}: {HOSTILE_TOOL}: /limit sent as string instead of integer (arguments -> "
        "request)"
    )
    grouped = next(
        li for li in re.findall(r"<li>(.*?)</li>", html_text) if li.startswith("grouped by")
    )
    assert grouped.startswith(as_html_text(f"grouped by tool {HOSTILE_TOOL}, kind type_changed"))
    # in no attribute: only as text
    assert "javascript:" not in re.sub(r">[^<]*<", "><", html_text)
    assert "<b>" not in html_text and "<em>" not in html_text and "<strong>" not in html_text
    # the raw ticket stays readable: our own words and plain paths are not escaped
    assert "/limit sent as string instead of integer (arguments -> request)" in text.splitlines()[0]


@pytest.fixture
def guarded(db_path):
    settings = {
        "ADMIN_TOKENS": f"ops:{ADMIN}",
        "INGEST_TOKENS": f"ship:{SHIPPER}",
        "READ_TOKENS": f"rd:{READER}",
    }
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            **settings,
        }
    )
    client = app.test_client()
    client.put(
        "/api/v1/tools/findOrders", json=CONTRACT, headers={"Authorization": f"Bearer {ADMIN}"}
    )
    send_as = {"Authorization": f"Bearer {SHIPPER}"}
    for event_list in (call(trace(1), at(0, PAST)), call(trace(2), at(5, PAST))):
        assert (
            client.post("/api/v1/ingest", data=ndjson(*event_list), headers=send_as).status_code
            == 200
        )
    pipeline.catch_up(Store.open(db_path))
    client.post(
        "/api/v1/alerts",
        json={"url": "http://127.0.0.1:9/hook"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    return client


def test_with_tokens_the_admin_tokens_basic_auth_shows_and_uses_the_settings_and_problem_forms(
    guarded,
):
    admin = basic(ADMIN, user="qa")
    page = guarded.get("/settings/alerts", headers=admin).get_data(as_text=True)
    assert 'class="alert-form"' in page and ">test</button>" in page and ">delete</button>" in page
    created = guarded.post(
        "/settings/alerts", data={"url": "http://127.0.0.1:9/other", "on": "new"}, headers=admin
    )
    assert created.status_code == 200 and "shown this once only" in created.get_data(as_text=True)
    tested = guarded.post("/settings/alerts/1/test", headers=admin)
    assert (
        tested.status_code == 200
        and tested.mimetype == "text/html"
        and "Test message:" in tested.get_data(as_text=True)
    )
    assert guarded.post("/settings/alerts/2/delete", headers=admin).status_code == 303
    pid = guarded.get("/api/v1/problems", headers={"Authorization": f"Bearer {READER}"}).get_json()[
        "problems"
    ][0]["id"]
    problem_page = guarded.get(f"/problems/{pid}", headers=admin).get_data(as_text=True)
    assert 'name="resolve"' in problem_page and 'name="add"' in problem_page
    assert (
        guarded.post(
            f"/problems/{pid}/links",
            data={"add": "https://tracker.example.com/INC-8"},
            headers=admin,
        ).status_code
        == 303
    )
    assert (
        guarded.post(
            f"/problems/{pid}/state", data={"state": "resolved"}, headers=admin
        ).status_code
        == 303
    )


@pytest.mark.parametrize("token", [READER, SHIPPER])
def test_with_tokens_other_tokens_see_no_forms_the_right_hint_and_a_refused_post_answers_a_page(
    guarded, token
):
    page = guarded.get("/settings/alerts", headers=basic(READER, user="qa")).get_data(as_text=True)
    assert (
        'class="alert-form"' not in page
        and ">delete</button>" not in page
        and ">redeliver</button>" not in page
    )
    assert "TRACEDIFF_ADMIN_TOKENS" in page and "with an ingest token" not in page
    pid = guarded.get("/api/v1/problems", headers={"Authorization": f"Bearer {READER}"}).get_json()[
        "problems"
    ][0]["id"]
    problem_page = guarded.get(f"/problems/{pid}", headers=basic(READER)).get_data(as_text=True)
    assert 'name="resolve"' not in problem_page and 'name="add"' not in problem_page
    assert (
        "TRACEDIFF_ADMIN_TOKENS" in problem_page
        and f"tracediff problems link {pid} URL" in problem_page
    )
    for path, form in (
        ("/settings/alerts/1/test", {}),
        ("/settings/alerts", {"url": "http://127.0.0.1:9/x"}),
        (f"/problems/{pid}/links", {"add": "https://tracker.example.com/INC-8"}),
        (f"/problems/{pid}/state", {"state": "resolved"}),
    ):
        refused = guarded.post(path, data=form, headers=basic(token, user="qa"))
        assert refused.status_code == 401 and refused.mimetype == "text/html", path
        assert "TRACEDIFF_ADMIN_TOKENS" in refused.get_data(as_text=True)
        assert refused.headers.getlist("WWW-Authenticate")[0].startswith("Basic")
    assert (
        guarded.get(
            f"/api/v1/problems/{pid}", headers={"Authorization": f"Bearer {READER}"}
        ).get_json()["links"]
        == []
    )
    assert (
        len(
            guarded.get("/api/v1/alerts", headers={"Authorization": f"Bearer {READER}"}).get_json()[
                "rules"
            ]
        )
        == 1
    )
    # the API keeps its JSON refusals
    api = guarded.post(
        "/api/v1/alerts",
        json={"url": "http://127.0.0.1:9/x"},
        headers={"Authorization": f"Bearer {SHIPPER}"},
    )
    assert api.status_code == 403 and api.get_json()["error"]["code"] == "ingest_only_token"
