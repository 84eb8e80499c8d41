"""Signing a browser in where reading is open.

The pages' "Sign in" link, `/signin`'s Basic challenge and its redirect back (never off the site),
and who the pages say is signed in."""

import base64
import html
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from helpers import ndjson
from problem_helpers import CONTRACT, at, call, trace

from webapp import create_app, pipeline
from webapp.store import Store

ADMIN, SHIPPER, READER, OTHER = (
    "adm-5e1f9c0a7b",
    "ing-2d8c4a6f1e",
    "rd-9b3e7a1c5d",
    "wrong-0c4d8e2f6a",
)


def basic(password: str, user: str = "qa") -> dict:
    """What a browser sends once it was given a user name and password for the site."""
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def make_client(tmp_path, **tokens):
    """An app on a real SQLite file with the given token settings, one problem and one alert
    rule."""
    db = tmp_path / "signin.db"
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            **tokens,
        }
    )
    client = app.test_client()
    # the token that changes contracts: admin, else (as before admin tokens existed) ingest
    writer = next(
        (
            {"Authorization": f"Bearer {token}"}
            for setting, token in (("ADMIN_TOKENS", ADMIN), ("INGEST_TOKENS", SHIPPER))
            if tokens.get(setting)
        ),
        {},
    )
    assert client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=writer).status_code == 200
    shipper = {"Authorization": f"Bearer {SHIPPER}"} if tokens.get("INGEST_TOKENS") else {}
    assert (
        client.post(
            "/api/v1/ingest", data=ndjson(*call(trace(1), at(-5))), headers=shipper
        ).status_code
        == 200
    )
    store = Store.open(db)
    pipeline.catch_up(store)
    store.close()
    assert (
        client.post(
            "/api/v1/alerts", json={"url": "http://127.0.0.1:9/hook"}, headers=writer
        ).status_code
        == 201
    )
    return client


@pytest.fixture
def reading_open(tmp_path):
    """Admin and ingest tokens set, no read token: anyone reads, so no page ever asks a browser for
    a password."""
    return make_client(tmp_path, ADMIN_TOKENS=f"ops:{ADMIN}", INGEST_TOKENS=f"ship:{SHIPPER}")


def problem_path(client) -> str:
    [problem] = client.get("/api/v1/problems").get_json()["problems"]
    return f"/problems/{problem['id']}"


def header_of(page: str) -> str:
    return re.search(r'<header class="top">.*?</header>', page, re.S).group(0)


def signin_link(page: str) -> str:
    return html.unescape(re.search(r'<a class="signin" href="([^"]+)">Sign in</a>', page).group(1))


def signin_next(page: str) -> str:
    """Where a page's "Sign in" link comes back to."""
    link = urlsplit(signin_link(page))
    assert link.path == "/signin"
    [target] = parse_qs(link.query)["next"]
    return target


def test_without_a_credential_the_form_pages_answer_200_and_offer_sign_in_back_to_themselves(
    reading_open,
):
    path = problem_path(reading_open)
    for page_path, form in (
        (f"{path}?since=30d", 'name="resolve"'),
        ("/settings/alerts", 'class="alert-form"'),
    ):
        response = reading_open.get(page_path)
        page = response.get_data(as_text=True)
        # the defect: no challenge
        assert response.status_code == 200 and "WWW-Authenticate" not in response.headers
        assert form not in page
        assert signin_next(header_of(page)) == page_path
        assert reading_open.get(signin_link(header_of(page))).status_code == 401
        assert "signed in as" not in page
    # pages without admin forms offer no sign in
    assert 'class="signin"' not in reading_open.get("/").get_data(as_text=True)


def test_signin_challenges_with_basic_until_the_admin_token_then_303s_to_next(reading_open):
    target = problem_path(reading_open) + "?since=30d"
    url = "/signin?next=" + target.replace("?", "%3F").replace("=", "%3D")
    challenged = reading_open.get(url)
    assert challenged.status_code == 401 and challenged.mimetype == "text/html"
    assert challenged.headers.getlist("WWW-Authenticate") == [
        'Basic realm="tracediff", charset="UTF-8"'
    ]
    assert "TRACEDIFF_ADMIN_TOKENS" in challenged.get_data(as_text=True)
    for wrong in (OTHER, ADMIN + "x", ADMIN[:-1], ""):
        assert reading_open.get(url, headers=basic(wrong)).status_code == 401
    # a token, but not one that changes things
    shipper = reading_open.get(url, headers=basic(SHIPPER))
    assert (
        shipper.status_code == 401
        and "<b>ship</b> (ingest), which cannot change things" in shipper.get_data(as_text=True)
    )
    signed = reading_open.get(url, headers=basic(ADMIN, user="anyone"))
    assert signed.status_code == 303 and signed.headers["Location"] == target
    assert reading_open.get(url, headers={"Authorization": f"Bearer {ADMIN}"}).status_code == 303


def test_once_signed_in_the_page_names_the_token_never_its_secret_and_its_forms_work(reading_open):
    path = problem_path(reading_open)
    page = reading_open.get(path, headers=basic(ADMIN)).get_data(as_text=True)
    assert 'name="resolve"' in page and 'class="signin"' not in page
    assert (
        'signed in as <b class="token-name">ops</b> (admin)' in header_of(page)
        and ADMIN not in page
    )
    resolved = reading_open.post(
        f"{path}/state", data={"state": "resolved", "resolve": "now"}, headers=basic(ADMIN)
    )
    assert resolved.status_code == 303
    assert reading_open.get("/api" + "/v1" + path).get_json()["state"] == "resolved"
    alerts = reading_open.get("/settings/alerts", headers=basic(ADMIN)).get_data(as_text=True)
    assert (
        'class="alert-form"' in alerts
        and '<b class="token-name">ops</b>' in alerts
        and ADMIN not in alerts
    )


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example/x",
        "///evil.example",
        "http://evil.example/",
        "https:evil.example",
        "HTTP://evil.example",
        "javascript:alert(1)",
        "/\\evil.example",
        "\\\\evil.example",
        "/\t/evil.example",
        "/\n/evil.example",
        "/\r//evil.example",
        " //evil.example",
        "evil.example",
        "problems/TD-1",
        pytest.param("/" + "a" * 3000, id="3001-characters"),
    ],
)
def test_signin_refuses_a_next_that_leaves_the_site_before_asking_for_anything(
    reading_open, target
):
    # signed in or not: never a redirect off the site
    for headers in ({}, basic(ADMIN)):
        response = reading_open.get("/signin", query_string={"next": target}, headers=headers)
        assert response.status_code == 400 and "Location" not in response.headers
        assert "WWW-Authenticate" not in response.headers
        assert response.get_json()["error"]["code"] == "bad_parameter"


def test_signin_without_next_goes_home_and_a_local_path_with_odd_characters_stays_local(
    reading_open,
):
    assert reading_open.get("/signin", headers=basic(ADMIN)).headers["Location"] == "/"
    odd = reading_open.get(
        "/signin", query_string={"next": "/problems?q=a//b:c@d"}, headers=basic(ADMIN)
    )
    assert odd.status_code == 303 and odd.headers["Location"] == "/problems?q=a//b:c@d"


def test_a_refused_form_post_offers_sign_in_back_to_the_page_it_came_from(reading_open):
    path = problem_path(reading_open)
    refused = reading_open.post(
        f"{path}/state",
        data={"state": "resolved"},
        headers={"Referer": f"http://localhost{path}?since=30d"},
    )
    assert refused.status_code == 401 and refused.mimetype == "text/html"
    assert signin_next(refused.get_data(as_text=True)) == f"{path}?since=30d"
    foreign = reading_open.post(
        f"{path}/state",
        data={"state": "resolved"},
        headers={"Referer": "http://evil.example/problems/x"},
    )
    assert signin_next(foreign.get_data(as_text=True)) == "/"


def test_with_read_tokens_a_reader_is_named_and_signin_asks_again_for_the_admin_token(tmp_path):
    client = make_client(
        tmp_path, ADMIN_TOKENS=ADMIN, INGEST_TOKENS=SHIPPER, READ_TOKENS=f"team:{READER}"
    )
    # reading itself needs a token here
    assert client.get("/signin?next=/settings/alerts").status_code == 401
    page = client.get("/settings/alerts", headers=basic(READER)).get_data(as_text=True)
    assert (
        'signed in as <b class="token-name">team</b> (read)' in page
        and 'class="signin"' in header_of(page)
    )
    again = client.get("/signin?next=/settings/alerts", headers=basic(READER))
    assert again.status_code == 401 and again.headers["WWW-Authenticate"].startswith(
        'Basic realm="tracediff"'
    )
    signed = client.get("/signin?next=/settings/alerts", headers=basic(ADMIN))
    assert signed.status_code == 303 and signed.headers["Location"] == "/settings/alerts"
    admin_page = client.get("/settings/alerts", headers=basic(ADMIN)).get_data(as_text=True)
    # an unnamed token, named by its place
    assert '<b class="token-name">admin#1</b> (admin)' in admin_page


def test_with_no_tokens_there_is_nothing_to_sign_in_to(tmp_path):
    client = make_client(tmp_path)
    page = client.get(problem_path(client)).get_data(as_text=True)
    assert 'name="resolve"' in page and 'class="signin"' not in page and "signed in as" not in page
    assert client.get("/signin?next=/settings/alerts").headers["Location"] == "/settings/alerts"


def test_the_json_api_and_json_pages_are_unchanged_by_signing_in(reading_open):
    path = problem_path(reading_open)
    assert (
        reading_open.get("/api/v1" + path).get_json()
        == reading_open.get("/api/v1" + path, headers=basic(ADMIN)).get_json()
    )
    assert (
        reading_open.get(path + ".json").get_json()
        == reading_open.get(path + ".json", headers=basic(ADMIN)).get_json()
    )
    # Basic auth still opens no write to the API
    api = reading_open.post(
        "/api/v1/alerts", json={"url": "http://127.0.0.1:9/x"}, headers=basic(ADMIN)
    )
    assert api.status_code == 401 and api.get_json()["error"]["code"] == "unauthorized"


def test_without_admin_tokens_signin_asks_for_the_token_that_changes_contracts_then(tmp_path):
    # as before admin tokens: an ingest token
    client = make_client(tmp_path, INGEST_TOKENS=f"ship:{SHIPPER}")
    page = client.get("/settings/alerts").get_data(as_text=True)
    assert "TRACEDIFF_INGEST_TOKENS" in page and signin_next(header_of(page)) == "/settings/alerts"
    challenged = client.get("/signin?next=/settings/alerts", headers=basic(OTHER))
    assert challenged.status_code == 401 and "TRACEDIFF_INGEST_TOKENS" in challenged.get_data(
        as_text=True
    )
    assert client.get("/signin?next=/settings/alerts", headers=basic(SHIPPER)).status_code == 303
