"""Wrong tokens slowed.

After AUTH_FAILURES wrong Bearer or Basic tokens from one client, its requests with a token get 429
with Retry-After (a page for a browser), logged once with the client, never the secret; other
clients go on as before; `serve` warns about short tokens by name."""

import logging

import httpx
import pytest
from test_security import basic, bearer

from webapp import create_app
from webapp.common.tokens import Keyring, startup_warnings
from webapp.web.throttle import FailureWindow

ADMIN, SHIPPER, READER = "adm-1f6b3e9d2c7a4058", "shp-6d2a9f4c1e8b3057", "rdr-2b7e4c9a5f1d6038"
WRONG = [f"wrong-guess-{n:02d}" for n in range(20)]
GUESSER, NEIGHBOUR = "203.0.113.7", "198.51.100.4"
LIMIT = 5
INGEST, SIGNIN = "/api/v1/ingest", "/signin?next=/"


@pytest.fixture
def app(tmp_path):
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "t.db"),
            "ANALYZER": "off",
            "ADMIN_TOKENS": f"ops:{ADMIN}",
            "INGEST_TOKENS": f"shipper:{SHIPPER}",
            "READ_TOKENS": f"team:{READER}",
            "AUTH_FAILURES": LIMIT,
            "AUTH_FAILURE_WINDOW_S": 60,
        }
    )


def from_address(app, address: str):
    """A test client whose requests come from `address`."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def test_wrong_bearer_and_basic_tokens_from_one_client_get_429_with_retry_after(app, caplog):
    caplog.set_level(logging.INFO)
    guesser = from_address(app, GUESSER)
    refused = [guesser.post(INGEST, data=b"", headers=bearer(guess)) for guess in WRONG[:3]]
    refused += [guesser.get("/api/v1/traces", headers=basic(guess)) for guess in WRONG[3:LIMIT]]
    assert [response.status_code for response in refused] == [401] * LIMIT
    slowed = guesser.post("/api/v1/ingest", data=b"", headers=bearer(WRONG[LIMIT]))
    assert slowed.status_code == 429 and 1 <= int(slowed.headers["Retry-After"]) <= 60
    error = slowed.get_json()["error"]
    assert error["code"] == "too_many_failed_tokens" and error["retryable"] is True
    assert GUESSER in error["message"] and "ingest" in error["message"]
    # its right token is not even compared while it is slowed: no answer tells right from wrong
    assert guesser.get("/api/v1/traces", headers=bearer(READER)).status_code == 429
    # a request with no token is no guess
    assert guesser.get("/api/v1/health").status_code == 200
    neighbour = from_address(app, NEIGHBOUR)
    assert neighbour.get("/api/v1/traces", headers=bearer(READER)).status_code == 200
    assert neighbour.get("/api/v1/traces", headers=bearer(WRONG[0])).status_code == 401
    lines = [r.getMessage() for r in caplog.records if "wrong tokens" in r.getMessage()]
    assert len(lines) == 1 and GUESSER in lines[0] and "(Basic, for read" in lines[0], lines
    assert not [secret for secret in (*WRONG, READER, ADMIN, SHIPPER) if secret in caplog.text]


def test_a_browser_is_told_on_a_page_and_the_page_says_no_one_is_signed_in(app):
    guesser = from_address(app, GUESSER)
    for guess in WRONG[:LIMIT]:
        assert guesser.get("/", headers=basic(guess)).status_code == 401
    page = guesser.get("/", headers={**basic(ADMIN), "Accept": "text/html"})
    text = page.get_data(as_text=True)
    assert page.status_code == 429 and page.mimetype == "text/html" and page.headers["Retry-After"]
    assert "Too many wrong tokens" in text and "signed in as" not in text


def test_guesses_where_reading_is_open_count_too(tmp_path):
    # reading is open, but a page says who is signed in and /signin lets a right admin token through
    settings = {"TESTING": True, "ANALYZER": "off", "ADMIN_TOKENS": ADMIN}
    app = create_app({**settings, "DATABASE": str(tmp_path / "o.db")})
    guesser = from_address(app, GUESSER)
    answers = [guesser.get(SIGNIN, headers=basic(guess)).status_code for guess in WRONG[:5]]
    answers += [guesser.get("/", headers=basic(guess)).status_code for guess in WRONG[5:10]]
    assert answers == [401] * 5 + [200] * 5
    assert guesser.get(SIGNIN, headers=basic(ADMIN)).status_code == 429


def test_the_client_is_the_address_the_proxy_policy_resolves(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "p.db"),
            "ANALYZER": "off",
            "INGEST_TOKENS": SHIPPER,
            "TRUSTED_PROXIES": "10.0.0.1",
            "AUTH_FAILURES": 2,
        }
    )
    proxy, direct = from_address(app, "10.0.0.1"), from_address(app, GUESSER)

    def post(client, token, forwarded):
        headers = {**bearer(token), "X-Forwarded-For": forwarded}
        return client.post("/api/v1/ingest", data=b"", headers=headers).status_code

    # behind the trusted proxy, each forwarded client has its own count
    assert [post(proxy, WRONG[0], "192.0.2.1") for _ in range(3)] == [401, 401, 429]
    assert post(proxy, WRONG[0], "192.0.2.2") == 401
    # a client reaching the port directly cannot spread its guesses over made-up addresses
    assert [post(direct, WRONG[0], f"192.0.2.{n}") for n in range(10, 13)] == [401, 401, 429]


def test_a_slowed_client_gets_in_again_once_its_failures_leave_the_window():
    now = [1000.0]
    window = FailureWindow(limit=3, window_s=60, clock=lambda: now[0])
    logged = [window.fail("a") for _ in range(3)]
    assert logged == [False, False, True] and window.wait("a") == 60 and window.wait("b") == 0
    now[0] += 59.5
    assert window.wait("a") == pytest.approx(0.5)
    # a fourth, still in the window: logged once per window
    assert not window.fail("a")
    now[0] += 0.5
    # the first three left the window
    assert window.wait("a") == 0
    # slowed again, in a new window: logged again
    assert [window.fail("a"), window.fail("a")] == [False, True]
    assert window.wait("a") == pytest.approx(59.5)
    # 0 turns slowing off
    assert FailureWindow(limit=0, window_s=60).fail("a") is False


def test_the_clients_remembered_are_bounded():
    window = FailureWindow(limit=2, window_s=60, max_clients=100)
    for n in range(1000):
        window.fail(f"10.0.{n // 256}.{n % 256}")
    assert len(window.failures) == 100 and len(window.logged) <= 100
    # asking remembers no one
    assert all(window.wait(f"192.168.0.{n}") == 0 for n in range(200))
    assert len(window.failures) == 100


def test_serve_warns_about_short_tokens_by_name_never_by_secret():
    settings = {"ADMIN_TOKENS": ADMIN, "INGEST_TOKENS": "shipper:sh0rt-t0ken, s3cr3t"}
    warnings = startup_warnings(Keyring.from_settings(settings))
    short = [line for line in warnings if "shorter than 16 characters" in line]
    assert len(short) == 2 and "token shipper " in short[0] and "token ingest#2 " in short[1]
    assert "TRACEDIFF_INGEST_TOKENS" in short[0]
    assert not [line for line in warnings if "sh0rt" in line or "s3cr3t" in line]


@pytest.mark.slow
def test_a_real_server_slows_a_guesser_logs_it_once_and_warns_of_a_short_token(make_server):
    server = make_server(
        workers=1,
        env={
            "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}",
            "TRACEDIFF_INGEST_TOKENS": "shipper:tiny-token",
            "TRACEDIFF_READ_TOKENS": READER,
            "TRACEDIFF_AUTH_FAILURES": "4",
        },
    )
    with httpx.Client(base_url=server.url, timeout=30) as http:
        answers = [http.post(INGEST, content=b"", headers=bearer(g)).status_code for g in WRONG[:6]]
        assert answers == [401] * 4 + [429] * 2
        assert http.get("/api/v1/health").status_code == 200
    server.stop()
    logs = server.logs()
    assert logs.count("wrong tokens from 127.0.0.1") == 1
    assert "token shipper is shorter than 16 characters" in logs
    assert not [secret for secret in (*WRONG, "tiny-token", ADMIN, READER) if secret in logs]
