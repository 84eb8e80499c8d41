"""Scoped, named tokens, the Host allow-list, and what `serve` won't expose.

Scopes: admin > ingest, read."""

import json
import logging

import httpx
import pytest
from click.testing import CliRunner
from helpers import TRACE, ndjson, order_call
from test_security import basic, bearer

from webapp import create_app
from webapp.cli import main
from webapp.common.tokens import Keyring, parse_tokens, startup_warnings
from webapp.config import SettingError, load_settings
from webapp.web.security import admin_only, require_scope

ADMIN, SHIPPER, READER = "adm-4c1e9b7f20d35a68", "shp-91d0c3e5a7b24f6e", "rdr-5e2f8a1c6b9d4307"
SCRAPER = "prm-7a3d5c9e1f0b8264"
CONTRACT = {"arguments_schema": {"type": "object"}}
CONTRACT_WRITES = [
    ("put", "/api/v1/tools/findOrders", CONTRACT),
    ("delete", "/api/v1/tools/findOrders", None),
    ("post", "/api/v1/tools/import", [{"name": "planted", "input_schema": {"type": "object"}}]),
]


@pytest.fixture
def scoped(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "s.db"),
            "ANALYZER": "off",
            "ADMIN_TOKENS": f"ops:{ADMIN}",
            "INGEST_TOKENS": f"shipper-eu:{SHIPPER}, unnamed-secret",
            "READ_TOKENS": READER,
        }
    )
    return app


def test_entries_are_secret_or_name_colon_secret_and_unnamed_ones_are_named_by_position():
    tokens = parse_tokens(f"shipper-eu:{SHIPPER}, plain-secret ,ci.bot@x:s3", "ingest")
    assert [(t.name, t.secret, t.scope) for t in tokens] == [
        ("shipper-eu", SHIPPER, "ingest"),
        ("ingest#2", "plain-secret", "ingest"),
        ("ci.bot@x", "s3", "ingest"),
    ]
    assert SHIPPER not in repr(tokens)


@pytest.mark.parametrize(
    "env",
    [
        {"TRACEDIFF_INGEST_TOKENS": "bad name:secret"},
        {"TRACEDIFF_ADMIN_TOKENS": "ops:"},
        {"TRACEDIFF_ADMIN_TOKENS": "same:a", "TRACEDIFF_READ_TOKENS": "same:b"},
    ],
)
def test_a_token_setting_that_cannot_be_read_stops_the_start(env):
    with pytest.raises(SettingError, match="TRACEDIFF_|unique"):
        load_settings(environ=env)


@pytest.mark.parametrize("method, path, body", CONTRACT_WRITES)
def test_an_ingest_token_gets_403_on_contract_changes_once_admin_tokens_are_set(
    scoped, method, path, body
):
    client = scoped.test_client()
    assert (
        client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(ADMIN)).status_code
        == 200
    )
    before = client.get("/api/v1/tools", headers=bearer(READER)).get_json()
    for token, code in (
        (SHIPPER, "ingest_only_token"),
        ("unnamed-secret", "ingest_only_token"),
        (READER, "read_only_token"),
    ):
        response = getattr(client, method)(path, json=body, headers=bearer(token))
        assert response.status_code == 403
        assert response.get_json()["error"] == {
            "code": code,
            "message": response.get_json()["error"]["message"],
            "retryable": False,
        }
        assert "TRACEDIFF_ADMIN_TOKENS" in response.get_json()["error"]["message"]
    # Basic only reads
    assert getattr(client, method)(path, json=body, headers=basic(ADMIN)).status_code == 401
    assert client.get("/api/v1/tools", headers=bearer(READER)).get_json() == before
    assert getattr(client, method)(path, json=body, headers=bearer(ADMIN)).status_code in (200, 204)


@pytest.mark.parametrize(
    "method, path, token, named",
    [
        ("post", "/api/v1/ingest", READER, "a read token"),
        ("post", "/v1/traces", READER, "a read token"),
        ("get", "/api/v1/traces", SHIPPER, "an ingest token"),
        ("get", "/api/v1/traces", "not-a-token", None),
    ],
)
def test_a_known_token_of_another_scope_is_named_in_its_401(scoped, method, path, token, named):
    # still a 401, which shippers retry (syslog-ng drops a 403): the message says which token came
    client = scoped.test_client()
    response = getattr(client, method)(path, data=b"{}", headers=bearer(token))
    error = response.get_json()["error"]
    assert response.status_code == 401 and error["code"] == "unauthorized"
    if named:
        assert f"(the token sent is {named})" in error["message"]
    else:
        assert "token sent is" not in error["message"]


def test_an_admin_token_also_ingests_and_reads(scoped):
    client = scoped.test_client()
    assert (
        client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(ADMIN)).get_json()[
            "accepted"
        ]
        == 3
    )
    assert client.get(f"/api/v1/traces/{TRACE}", headers=bearer(ADMIN)).status_code == 200
    assert client.get(f"/traces/{TRACE}", headers=basic(ADMIN)).status_code == 200
    # ingest does not read
    assert client.get("/api/v1/traces", headers=bearer(SHIPPER)).status_code == 401
    assert (
        client.post(
            "/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(READER)
        ).status_code
        == 401
    )


def test_the_log_names_the_token_that_changed_something_and_never_holds_a_secret(scoped, caplog):
    caplog.set_level(logging.INFO, logger="webapp.web.security")
    client = scoped.test_client()
    client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(SHIPPER))
    client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=bearer("unnamed-secret"))
    client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(ADMIN))
    client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(SHIPPER))
    lines = [r.getMessage() for r in caplog.records if r.name == "webapp.web.security"]
    assert "token shipper-eu (ingest): POST /api/v1/ingest -> 200" in lines
    assert "token ingest#2 (ingest): POST /api/v1/ingest -> 200" in lines
    assert "token ops (admin): PUT /api/v1/tools/findOrders -> 200" in lines
    # a refused token did nothing
    assert not [line for line in lines if "-> 403" in line]
    assert not any(secret in caplog.text for secret in (ADMIN, SHIPPER, READER, "unnamed-secret"))


def test_a_feature_marks_its_admin_views_with_one_helper(scoped):
    @scoped.post("/api/v1/problems/<key>/state")
    @admin_only
    def set_problem_state(key):
        return {"key": key}

    @scoped.post("/api/v1/alerts/rules")
    def add_rule():
        # or called inside a view
        token = require_scope("admin")
        return {"by": token.name}

    client = scoped.test_client()
    assert client.post("/api/v1/problems/p1/state", headers=bearer(SHIPPER)).status_code == 403
    assert client.post("/api/v1/problems/p1/state", headers=bearer(ADMIN)).get_json() == {
        "key": "p1"
    }
    assert client.post("/api/v1/alerts/rules", headers=bearer(ADMIN)).get_json() == {"by": "ops"}


def test_without_admin_tokens_an_ingest_token_still_changes_contracts_and_the_start_says_so(
    tmp_path,
):
    settings = {"INGEST_TOKENS": f"shipper-eu:{SHIPPER}", "READ_TOKENS": READER}
    client = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "l.db"), "ANALYZER": "off", **settings}
    ).test_client()
    assert (
        client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(SHIPPER)).status_code
        == 200
    )
    warnings = startup_warnings(Keyring.from_settings(settings))
    assert any(
        "TRACEDIFF_ADMIN_TOKENS is not set: ingest tokens can change contracts" in w
        for w in warnings
    )
    assert startup_warnings(Keyring.from_settings({**settings, "ADMIN_TOKENS": ADMIN})) == []
    assert "anyone" in startup_warnings(Keyring.from_settings({}))[0]


@pytest.mark.parametrize(
    "host",
    [
        "evil.example",
        "evil.example:8000",
        "127.0.0.1.nip.io",
        "localhost.evil.example",
        "tracediff.example.com.evil.example",
    ],
)
def test_a_foreign_host_header_gets_400_in_the_error_shape(client, host):
    for path in ("/", "/api/v1/traces", f"/traces/{TRACE}"):
        response = client.get(path, headers={"Host": host})
        assert response.status_code == 400
        assert response.get_json()["error"]["code"] == "host_not_allowed"
        assert set(response.get_json()["error"]) == {"code", "message", "retryable"}
    assert (
        client.post(
            "/api/v1/ingest", data=ndjson(*order_call()), headers={"Host": host}
        ).status_code
        == 400
    )
    assert client.get("/api/v1/traces").get_json()["traces"] == []
    # probes keep working
    assert client.get("/api/v1/health", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:8000",
        "LOCALHOST.",
        "127.0.0.1:8000",
        "[::1]:8000",
        "10.1.2.3",
        "[fe80::1]",
        "app.localhost:8000",
    ],
)
def test_addresses_and_loopback_names_are_always_allowed(client, host):
    assert client.get("/api/v1/traces", headers={"Host": host}).status_code == 200


def test_allowed_hosts_lists_names_suffixes_or_anything(tmp_path):
    def status(setting, host, serving="127.0.0.1"):
        app = create_app(
            {
                "TESTING": True,
                "DATABASE": str(tmp_path / "h.db"),
                "ANALYZER": "off",
                "ALLOWED_HOSTS": setting,
                "HOST": serving,
            }
        )
        return app.test_client().get("/api/v1/traces", headers={"Host": host}).status_code

    assert status("tracediff.example.com", "tracediff.example.com:443") == 200
    assert status("tracediff.example.com", "other.example.com") == 400
    assert (
        status(".example.com", "a.b.example.com") == 200
        and status(".example.com", "example.org") == 400
    )
    assert status("*", "anything.example") == 200
    # the name it serves on
    assert status("", "box.internal", serving="box.internal") == 200


def test_serve_refuses_a_network_address_with_no_token_set(tmp_path):
    runner = CliRunner()
    refused = runner.invoke(
        main,
        ["serve", "--host", "0.0.0.0", "--db", str(tmp_path / "o.db")],
        env={
            "TRACEDIFF_INGEST_TOKENS": None,
            "TRACEDIFF_READ_TOKENS": None,
            "TRACEDIFF_ADMIN_TOKENS": None,
        },
    )
    assert refused.exit_code == 1
    assert "refusing to listen on 0.0.0.0 with no token set" in refused.output
    assert "--allow-open" in refused.output and not (tmp_path / "o.db").exists()


@pytest.mark.parametrize(
    "tokens",
    [
        {"TRACEDIFF_READ_TOKENS": "team:rd-1"},
        {"TRACEDIFF_READ_TOKENS": "team:rd-1", "TRACEDIFF_ADMIN_TOKENS": "ops:adm-1"},
    ],
)
def test_serve_refuses_a_network_address_where_ingest_would_be_open(tmp_path, tokens):
    env = {
        "TRACEDIFF_INGEST_TOKENS": None,
        "TRACEDIFF_READ_TOKENS": None,
        "TRACEDIFF_ADMIN_TOKENS": None,
        **tokens,
    }
    refused = CliRunner().invoke(
        main, ["serve", "--host", "0.0.0.0", "--db", str(tmp_path / "o.db")], env=env
    )
    assert refused.exit_code == 1, refused.output
    assert (
        "refusing to listen on 0.0.0.0 with ingest open" in refused.output
        and "TRACEDIFF_INGEST_TOKENS" in refused.output
    )
    assert not (tmp_path / "o.db").exists()


@pytest.mark.slow
def test_a_server_on_all_addresses_with_named_tokens_checks_hosts_and_scopes(make_server):
    server = make_server(
        args=["--host", "0.0.0.0"],
        env={
            "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}",
            "TRACEDIFF_INGEST_TOKENS": f"shipper-eu:{SHIPPER}",
        },
    )
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert (
            http.post(
                "/api/v1/ingest", content=ndjson(*order_call()), headers=bearer(SHIPPER)
            ).status_code
            == 200
        )
        refused = http.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(SHIPPER))
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "ingest_only_token"
        assert (
            http.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(ADMIN)).status_code
            == 200
        )
        rebound = http.get("/api/v1/traces", headers={"Host": "attacker.example"})
        assert rebound.status_code == 400 and rebound.json()["error"]["code"] == "host_not_allowed"
    server.stop()
    logs = server.logs()
    assert (
        "TRACEDIFF_READ_TOKENS is not set" in logs
        and "TRACEDIFF_ADMIN_TOKENS is not set" not in logs
    )
    assert ADMIN not in logs and SHIPPER not in logs


@pytest.mark.parametrize("log_format", ["text", "json"])
@pytest.mark.slow
def test_a_real_server_logs_which_named_token_did_what_in_the_access_and_app_lines(
    make_server, log_format
):
    server = make_server(
        env={
            "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}",
            "TRACEDIFF_LOG_FORMAT": log_format,
            "TRACEDIFF_INGEST_TOKENS": f"shipper-eu:{SHIPPER}",
            "TRACEDIFF_READ_TOKENS": READER,
            "TRACEDIFF_METRICS_TOKENS": f"prom:{SCRAPER}",
        }
    )
    with httpx.Client(base_url=server.url, timeout=30) as http:
        assert (
            http.post(
                "/api/v1/ingest", content=ndjson(*order_call()), headers=bearer(SHIPPER)
            ).status_code
            == 200
        )
        assert (
            http.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(SHIPPER)).status_code
            == 403
        )
        assert (
            http.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(ADMIN)).status_code
            == 200
        )
        assert http.get("/api/v1/traces", headers=bearer(READER)).status_code == 200
        assert http.get("/metrics", headers=bearer(SCRAPER)).status_code == 200
    server.stop()
    lines = server.logs().splitlines()
    access = [
        line for line in lines if ("/api/v1/" in line or "/metrics" in line) and ("access" in line)
    ]
    if log_format == "json":
        found = [
            (f["method"], f["path"], f["status"], f.get("token")) for f in map(json.loads, access)
        ]
        app = [
            json.loads(line)["message"]
            for line in lines
            if '"logger": "webapp.web.security"' in line
        ]
    else:
        found = [
            (
                line.split('"')[1].split()[0],
                line.split('"')[1].split()[1],
                int(line.split('"')[2].split()[0]),
                line.split("token=")[1] if "token=" in line else None,
            )
            for line in access
        ]
        app = [
            line.split("webapp.web.security: ", 1)[1]
            for line in lines
            if "webapp.web.security: " in line
        ]
    assert ("POST", "/api/v1/ingest", 200, "shipper-eu") in found
    # who tried, refused
    assert ("PUT", "/api/v1/tools/findOrders", 403, "shipper-eu") in found
    assert ("PUT", "/api/v1/tools/findOrders", 200, "ops") in found
    assert ("GET", "/api/v1/traces", 200, "read#1") in found
    # a metrics token is named as the others are
    assert ("GET", "/metrics", 200, "prom") in found
    assert "token shipper-eu (ingest): POST /api/v1/ingest -> 200" in app
    assert "token ops (admin): PUT /api/v1/tools/findOrders -> 200" in app
    assert not any(secret in line for line in lines for secret in (ADMIN, SHIPPER, READER, SCRAPER))


@pytest.mark.parametrize("read_tokens", ["", READER])
def test_metrics_tokens_are_name_colon_secret_entries_as_the_other_scopes(tmp_path, read_tokens):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "m.db"),
            "ANALYZER": "off",
            "METRICS_TOKENS": f"prom:{SCRAPER}, {SHIPPER}",
            "READ_TOKENS": read_tokens,
            "ADMIN_TOKENS": f"ops:{ADMIN}",
        }
    )
    client = app.test_client()
    assert client.get("/metrics", headers=bearer(SCRAPER)).status_code == 200
    # unnamed: metrics#2
    assert client.get("/metrics", headers=bearer(SHIPPER)).status_code == 200
    # the name is not the secret
    assert client.get("/metrics", headers=bearer(f"prom:{SCRAPER}")).status_code == 401
    # an admin token also reads
    assert client.get("/metrics", headers=bearer(ADMIN)).status_code == 200
    assert client.get("/metrics").status_code == 401
    # a metrics token opens /metrics only
    assert client.get("/api/v1/traces", headers=bearer(SCRAPER)).status_code == (
        401 if read_tokens else 200
    )
    assert (
        client.post(
            "/api/v1/ingest", data=ndjson(*order_call()), headers=bearer(SCRAPER)
        ).status_code
        == 200
    )
    assert (
        client.put("/api/v1/tools/findOrders", json=CONTRACT, headers=bearer(SCRAPER)).status_code
        == 401
    )
    keyring = Keyring.from_settings({"METRICS_TOKENS": f"prom:{SCRAPER}"})
    # not a token set for `serve`'s checks
    assert [t.name for t in keyring.tokens] == ["prom"] and keyring.empty
    with pytest.raises(SettingError, match="unique"):
        load_settings({"METRICS_TOKENS": f"ops:{SCRAPER}", "ADMIN_TOKENS": f"ops:{ADMIN}"})
