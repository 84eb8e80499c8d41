"""Access tokens, secrets kept out of logs, and the security headers.

Of pages and API."""

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from browsers import chromium, need_chromium
from helpers import TRACE, envelope, ndjson, order_call

from webapp import create_app
from webapp.web import openapi

INGEST_TOKEN = "ingest-7f3a9c2e5b1d4e8f"
READ_TOKEN = "read-0b6e2d9a4c7f1358"
OTHER_TOKEN = "wrong-5d8e1f2a9b3c6047"


@pytest.fixture
def guarded(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "g.db"),
            "ANALYZER": "off",
            "INGEST_TOKENS": f"{INGEST_TOKEN}, second-token-value",
            "READ_TOKENS": READ_TOKEN,
        }
    )
    return app.test_client()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def basic(password: str, user: str = "ann") -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


BASIC_CHALLENGE = 'Basic realm="tracediff", charset="UTF-8"'


def assert_unauthorized(response):
    assert response.status_code == 401
    assert any(
        challenge.startswith("Bearer") for challenge in response.headers.getlist("WWW-Authenticate")
    )
    error = response.get_json()["error"]
    assert error["code"] == "unauthorized" and error["retryable"] is False
    assert set(error) == {"code", "message", "retryable"}


@pytest.mark.parametrize(
    "headers",
    [
        {},
        bearer(OTHER_TOKEN),
        bearer(""),
        bearer(READ_TOKEN),
        {"Authorization": INGEST_TOKEN},
        {"Authorization": f"Basic {INGEST_TOKEN}"},
        bearer(INGEST_TOKEN + "x"),
        bearer(INGEST_TOKEN[:-1]),
        {"Authorization": "Bearer t\u00f6ken-\u00e9\u00e8"},
    ],
)
def test_ingest_without_a_valid_ingest_token_is_refused_with_401_and_stores_nothing(
    guarded, headers
):
    assert_unauthorized(guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=headers))
    assert_unauthorized(
        guarded.post(
            "/v1/traces", data=b"{}", headers={**headers, "Content-Type": "application/json"}
        )
    )
    assert guarded.get(f"/api/v1/traces/{TRACE}", headers=bearer(READ_TOKEN)).status_code == 404


@pytest.mark.parametrize("token", [INGEST_TOKEN, "second-token-value"])
def test_any_configured_ingest_token_is_accepted(guarded, token):
    response = guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(token))
    assert response.status_code == 200 and response.get_json()["accepted"] == 3
    lower_scheme = {"Authorization": f"bearer {token}"}
    assert (
        guarded.post(
            "/api/v1/ingest", data=ndjson(envelope(call_id="c2")), headers=lower_scheme
        ).status_code
        == 200
    )


@pytest.mark.parametrize(
    "path",
    [
        "/",
        f"/traces/{TRACE}",
        "/api/v1/traces",
        f"/api/v1/traces/{TRACE}",
        "/api/v1/tools",
        "/api/v1/finding-kinds",
    ],
)
def test_read_endpoints_need_a_read_token_when_one_is_set(guarded, path):
    guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(INGEST_TOKEN))
    assert guarded.get(path).status_code == 401
    assert guarded.get(path, headers=bearer(INGEST_TOKEN)).status_code == 401
    assert guarded.get(path, headers=bearer(READ_TOKEN)).status_code == 200


def test_writing_contracts_needs_a_token_too(guarded):
    contract = {"arguments_schema": {"type": "object"}}
    assert guarded.put("/api/v1/tools/findOrders", json=contract).status_code == 401
    assert guarded.delete("/api/v1/tools/findOrders").status_code == 401
    assert guarded.post("/api/v1/tools/import", json=[]).status_code == 401


CONTRACT_WRITES = [
    ("put", "/api/v1/tools/findOrders", {"arguments_schema": {"type": "object"}}),
    ("delete", "/api/v1/tools/findOrders", None),
    ("post", "/api/v1/tools/import", [{"name": "planted", "input_schema": {"type": "object"}}]),
]


@pytest.mark.parametrize("method, path, body", CONTRACT_WRITES)
def test_a_read_token_cannot_change_contracts_when_ingest_tokens_are_set(
    guarded, method, path, body
):
    guarded.put(
        "/api/v1/tools/findOrders",
        json={"arguments_schema": {"type": "object"}},
        headers=bearer(INGEST_TOKEN),
    )
    before = guarded.get("/api/v1/tools", headers=bearer(READ_TOKEN)).get_json()
    for headers in (bearer(READ_TOKEN), basic(READ_TOKEN), basic(INGEST_TOKEN)):
        response = getattr(guarded, method)(path, json=body, headers=headers)
        assert response.status_code in (401, 403)
        if headers == bearer(READ_TOKEN):
            assert response.status_code == 403
            assert response.get_json()["error"]["code"] == "read_only_token"
    assert guarded.get("/api/v1/tools", headers=bearer(READ_TOKEN)).get_json() == before
    answer = getattr(guarded, method)(path, json=body, headers=bearer(INGEST_TOKEN))
    assert answer.status_code in (200, 204)


def test_with_only_read_tokens_set_contract_changes_need_a_read_token(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "r.db"),
            "ANALYZER": "off",
            "READ_TOKENS": READ_TOKEN,
        }
    )
    client = app.test_client()
    contract = {"arguments_schema": {"type": "object"}}
    assert_unauthorized(client.put("/api/v1/tools/findOrders", json=contract))
    assert (
        client.put(
            "/api/v1/tools/findOrders", json=contract, headers=bearer(READ_TOKEN)
        ).status_code
        == 200
    )
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).status_code == 200


def test_health_and_static_files_stay_open_for_probes(guarded):
    # no trace count for strangers
    assert guarded.get("/api/v1/health").get_json() == {"status": "ok"}
    assert guarded.get("/static/htmx-2.0.11.min.js").status_code == 200


def test_the_api_document_says_health_is_public_and_every_other_read_needs_a_token():
    paths = openapi.document()["paths"]
    health = paths["/api/v1/health"]["get"]
    assert health["security"] == [] and "401" not in health["responses"]
    assert paths["/api/v1/traces"]["get"]["security"][:2] == [{"readToken": []}, {"adminToken": []}]
    assert paths["/api/v1/ingest"]["post"]["security"][:2] == [
        {"ingestToken": []},
        {"adminToken": []},
    ]
    for method in ("put", "delete"):
        assert paths["/api/v1/tools/{name}"][method]["security"][0] == {"adminToken": []}
    assert paths["/api/v1/tools/import"]["post"]["security"][0] == {"adminToken": []}


PAGES = [
    "/",
    f"/traces/{TRACE}",
    f"/traces/{TRACE}.json",
    f"/traces/{TRACE}.md",
    "/index.json",
    f"/compare?a={TRACE}&b={TRACE}",
]


@pytest.mark.parametrize("path", PAGES)
def test_a_page_without_credentials_asks_the_browser_for_basic_auth(guarded, path):
    response = guarded.get(path)
    assert_unauthorized(response)
    challenges = response.headers.getlist("WWW-Authenticate")
    assert challenges[0] == BASIC_CHALLENGE and challenges[1].startswith("Bearer")


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("user", ["ann", "", "b\u00e9a"])
def test_pages_open_with_basic_auth_whose_password_is_a_read_token(guarded, path, user):
    guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(INGEST_TOKEN))
    assert guarded.get(path, headers=basic(READ_TOKEN, user)).status_code == 200
    # scripts keep Bearer
    assert guarded.get(path, headers=bearer(READ_TOKEN)).status_code == 200
    htmx = {**basic(READ_TOKEN, user), "HX-Request": "true"}
    assert guarded.get("/?q=findOrders", headers=htmx).status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        basic(OTHER_TOKEN),
        basic(INGEST_TOKEN),
        basic(""),
        basic("", user=READ_TOKEN),
        basic(READ_TOKEN + "x"),
        {"Authorization": f"Basic {READ_TOKEN}"},
        {"Authorization": "Basic !!"},
    ],
)
def test_basic_auth_without_a_read_token_as_password_is_refused(guarded, headers):
    response = guarded.get("/", headers=headers)
    assert_unauthorized(response)
    assert BASIC_CHALLENGE in response.headers.getlist("WWW-Authenticate")


@pytest.mark.parametrize(
    "path", ["/api/v1/traces", f"/api/v1/traces/{TRACE}", "/api/v1/openapi.json"]
)
def test_the_api_challenges_with_bearer_only_so_scripts_are_not_sent_to_a_login_prompt(
    guarded, path
):
    response = guarded.get(path)
    assert_unauthorized(response)
    assert response.headers.getlist("WWW-Authenticate") == ['Bearer realm="tracediff"']
    assert guarded.get(path, headers=basic(READ_TOKEN)).status_code in (200, 404)


def test_basic_auth_with_a_read_token_opens_nothing_but_reading(guarded):
    assert_unauthorized(
        guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=basic(READ_TOKEN))
    )
    assert_unauthorized(
        guarded.post("/api/v1/ingest", data=ndjson(*order_call()), headers=basic(INGEST_TOKEN))
    )
    assert guarded.get("/api/v1/traces", headers=bearer(READ_TOKEN)).get_json()["traces"] == []


def test_basic_auth_reads_the_json_api_as_the_security_page_says(guarded):
    doc = " ".join((Path(__file__).parent.parent / "docs" / "security.md").read_text().split())
    # the API challenges with Bearer only, yet a browser's Basic sign-in reads it: one JSON twin
    assert "takes `Bearer` tokens only" not in doc
    assert "a read token as the password of Basic auth reads it (`GET`) and writes nothing" in doc
    read = guarded.get("/api/v1/traces", headers=basic(READ_TOKEN))
    assert read.status_code == 200 and read.get_json()["traces"] == []
    assert_unauthorized(guarded.post("/api/v1/alerts", json={}, headers=basic(READ_TOKEN)))


def test_without_tokens_configured_everything_is_open(client):
    assert client.post("/api/v1/ingest", data=ndjson(*order_call())).status_code == 200
    assert client.get("/api/v1/traces").status_code == 200


def csp_directives(response) -> dict:
    policy = response.headers["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}


@pytest.mark.parametrize(
    "path",
    [
        "/",
        f"/traces/{TRACE}",
        "/traces/unknown",
        "/api/v1/traces",
        f"/api/v1/traces/{TRACE}",
        "/api/v1/nope",
        "/static/htmx-2.0.11.min.js",
    ],
)
def test_pages_and_api_carry_csp_nosniff_and_frame_denial(client, path):
    client.post("/api/v1/ingest", data=ndjson(*order_call()))
    response = client.get(path)
    directives = csp_directives(response)
    scripts = directives.get("script-src", directives.get("default-src"))
    assert scripts == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in response.headers["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response.headers["Content-Security-Policy"]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"


class PageAudit(HTMLParser):
    """Collect what a CSP without inline script and style would block, and the forms."""

    def __init__(self):
        super().__init__()
        self.inline_scripts, self.handlers, self.styles, self.forms = [], [], [], []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.handlers += [(tag, name) for name in attributes if name.startswith("on")]
        if "style" in attributes or tag == "style":
            self.styles.append(tag)
        if tag == "script":
            src = attributes.get("src") or ""
            if not src.startswith("/static/") and attributes.get("type") != "application/json":
                self.inline_scripts.append(attrs)
        if tag == "form":
            self.forms.append(attributes)
        if any(
            str(value).lower().lstrip().startswith("javascript:") for value in attributes.values()
        ):
            self.handlers.append((tag, "javascript: url"))


@pytest.mark.parametrize("path", ["/", f"/traces/{TRACE}"])
def test_pages_need_no_inline_script_or_style_and_post_no_form_without_csrf(client, path):
    client.post("/api/v1/ingest", data=ndjson(*order_call()))
    response = client.get(path)
    assert response.status_code == 200
    audit = PageAudit()
    audit.feed(response.get_data(as_text=True))
    assert audit.inline_scripts == [] and audit.handlers == [] and audit.styles == []
    for form in audit.forms:
        assert (form.get("method") or "get").lower() == "get" or "csrf" in response.get_data(
            as_text=True
        )


def test_static_scripts_referenced_by_pages_exist(client):
    html = client.get("/").get_data(as_text=True)
    sources = re.findall(r'<script[^>]*\ssrc="([^"]+)"', html)
    assert sources
    for src in sources:
        assert client.get(src).status_code == 200, src


@pytest.mark.slow
def test_tokens_never_reach_the_server_log_nor_the_database(make_server):
    server = make_server(
        env={"TRACEDIFF_INGEST_TOKENS": INGEST_TOKEN, "TRACEDIFF_READ_TOKENS": READ_TOKEN}
    )
    with httpx.Client(base_url=server.url, timeout=10) as http:
        for token in (INGEST_TOKEN, OTHER_TOKEN):
            http.post("/api/v1/ingest", content=ndjson(*order_call()), headers=bearer(token))
            http.post("/api/v1/ingest", content=b"not json", headers=bearer(token))
        for token in (READ_TOKEN, OTHER_TOKEN):
            http.get("/api/v1/traces", headers=bearer(token))
            http.get(f"/traces/{TRACE}", headers=bearer(token))
            http.get(f"/traces/{TRACE}", auth=("ann", token))
        assert http.get("/api/v1/traces", headers=bearer(READ_TOKEN)).json()["traces"]
    server.stop()
    logs = server.logs()
    # the access log is on, so the absence below means something
    assert "/api/v1/ingest" in logs
    database = (
        server.db_path.read_bytes()
        + server.db_path.with_name(server.db_path.name + "-wal").read_bytes()
        if server.db_path.with_name(server.db_path.name + "-wal").exists()
        else server.db_path.read_bytes()
    )
    for token in (INGEST_TOKEN, READ_TOKEN, OTHER_TOKEN):
        assert token not in logs
        assert token.encode() not in database


@pytest.mark.slow
def test_a_browser_signs_in_once_with_basic_auth_and_htmx_requests_carry_it(make_server):
    need_chromium()
    from playwright.sync_api import expect

    server = make_server(
        env={"TRACEDIFF_INGEST_TOKENS": INGEST_TOKEN, "TRACEDIFF_READ_TOKENS": READ_TOKEN}
    )
    other = envelope(trace_id="0" * 31 + "1", tool="refundOrder", ts="2026-11-20T09:00:00Z")
    httpx.post(
        server.url + "/api/v1/ingest",
        content=ndjson(*order_call(), other),
        headers=bearer(INGEST_TOKEN),
    )
    with chromium() as browser:
        context = browser.new_context(http_credentials={"username": "ann", "password": READ_TOKEN})
        page, answers = context.new_page(), []
        page.on("response", lambda response: answers.append((response.url, response.status)))
        page.goto(server.url + "/")
        rows = page.locator("#trace-rows tr.trace-row")
        expect(rows).to_have_count(2)
        page.locator('input[name="q"]').press_sequentially("refundOrder", delay=20)
        # the htmx request was let in
        expect(rows).to_have_count(1)
        page.goto(f"{server.url}/traces/{TRACE}")
    assert any("q=refundOrder" in url and status == 200 for url, status in answers)
    assert [url for url, status in answers if status == 401 and "q=" in url] == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "null"},
    ],
)
def test_a_cross_site_browser_post_is_refused_and_changes_nothing(client, headers):
    tools = [{"name": "planted", "input_schema": {"type": "object"}}]
    response = client.post("/api/v1/tools/import", json=tools, headers=headers)
    assert response.status_code == 403
    assert response.get_json()["error"]["code"] == "cross_site_request"
    ingest = client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=headers)
    assert ingest.status_code == 403
    assert client.get("/api/v1/tools").get_json()["tools"] == []
    assert client.get("/api/v1/traces").get_json()["traces"] == []


def test_same_origin_pages_and_scripts_without_browser_headers_can_still_write(client):
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    assert (
        client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=same).status_code == 200
    )
    assert (
        client.put(
            "/api/v1/tools/findOrders", json={"arguments_schema": {"type": "object"}}
        ).status_code
        == 200
    )


def test_a_foreign_origin_on_mcp_is_refused_in_words_for_an_mcp_client(client):
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = client.post("/mcp", json=rpc, headers={"Origin": "https://evil.example"})
    error = response.get_json()["error"]
    assert response.status_code == 403 and error["code"] == "cross_site_request"
    assert "MCP client" in error["message"] and "log shipper" not in error["message"]
    api = client.post("/api/v1/ingest", data=b"{}", headers={"Origin": "https://evil.example"})
    assert "log shipper" in api.get_json()["error"]["message"]


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_an_mcp_request_that_is_not_json_gets_the_one_error_shape(client, content_type):
    rpc = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    headers = {"Accept": "application/json, text/event-stream"}
    if content_type:
        headers["Content-Type"] = content_type
    response = client.post("/mcp", data=rpc, headers=headers)
    assert response.status_code == 415 and response.mimetype == "application/json"
    assert response.get_json()["error"] == {
        "code": "unsupported_media_type",
        "message": "an MCP request is JSON-RPC: send it with Content-Type: application/json",
        "retryable": False,
    }
    sent = client.post("/mcp", data=rpc, headers={**headers, "Content-Type": "application/json"})
    assert sent.status_code == 200 and sent.get_json()["result"]["tools"]
