"""Liveness and readiness tell the truth.

A read-only database, a missing template, a backlog."""

import shutil
import stat

import httpx
import pytest
from conftest import ROOT, LiveServer
from helpers import envelope
from test_durability import body, make_events, without_root_override, writable_again

from webapp import create_app


def test_a_healthy_server_is_live_and_ready_with_every_check_named(client):
    assert client.get("/api/v1/health").get_json() == {
        "status": "ok",
        "traces": 0,
        "quarantine": {"total": 0, "last_hour": 0},
    }
    response = client.get("/api/v1/ready")
    assert response.status_code == 200
    found = response.get_json()
    assert found["status"] == "ready"
    assert set(found["checks"]) == {"templates", "static", "disk", "database", "analyser"}
    assert all(check["ok"] for check in found["checks"].values())


def broken_install(tmp_path, missing: str):
    """Return an app whose template folder is a copy of the real one without `missing`."""
    folder = tmp_path / "templates"
    shutil.copytree(ROOT / "templates", folder)
    (folder / missing).unlink()
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.db"), "ANALYZER": "off"})
    app.template_folder = str(folder)
    return app


def test_a_missing_template_makes_health_degraded_and_readiness_503_naming_it(tmp_path):
    client = broken_install(tmp_path, "partials/findings.html").test_client()
    health = client.get("/api/v1/health")
    # alive: restarting would not bring the file back
    assert health.status_code == 200
    assert health.get_json()["status"] == "degraded"
    assert "partials/findings.html" in health.get_json()["problems"][0]
    ready = client.get("/api/v1/ready")
    assert ready.status_code == 503 and ready.headers["Retry-After"].isdigit()
    error = ready.get_json()["error"]
    assert error["code"] == "not_ready" and error["retryable"] is True
    assert "templates: missing" in error["message"] and "partials/findings.html" in error["message"]
    assert ready.get_json()["checks"]["database"]["ok"] is True


def test_a_missing_static_file_makes_readiness_503(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "s.db"), "ANALYZER": "off"})
    folder = tmp_path / "static"
    shutil.copytree(ROOT / "static", folder)
    (folder / "app.js").unlink()
    app.static_folder = str(folder)
    ready = app.test_client().get("/api/v1/ready")
    assert ready.status_code == 503
    assert (
        "static: missing" in ready.get_json()["error"]["message"]
        and "app.js" in ready.get_json()["error"]["message"]
    )


def test_an_analysis_backlog_older_than_the_limit_makes_readiness_503(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "b.db"),
            "ANALYZER": "background",
            "READY_MAX_LAG": 0,
        }
    )
    # testing: no analyser thread runs, so the call waits
    client = app.test_client()
    assert client.post("/api/v1/ingest", json=envelope("request", {"a": 1})).status_code == 200
    ready = client.get("/api/v1/ready")
    assert ready.status_code == 503
    assert ready.get_json()["checks"]["analyser"]["ok"] is False
    assert "1 event(s) waiting" in ready.get_json()["checks"]["analyser"]["detail"]


@pytest.mark.slow
def test_a_read_only_database_is_reported_by_health_and_readiness_of_a_live_server(tmp_path):
    server = LiveServer(
        tmp_path / "ro.db", wrapper=without_root_override(), env={"TRACEDIFF_ANALYZER": "off"}
    ).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            assert (
                http.post("/api/v1/ingest", content=body(make_events(3, "before"))).status_code
                == 200
            )
            assert http.get("/api/v1/ready").status_code == 200
            for path in (server.db_path, *tmp_path.glob("ro.db-*")):
                path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
            health = http.get("/api/v1/health")
            assert health.status_code == 200 and health.json()["status"] == "degraded"
            assert "read-only" in health.json()["problems"][0]
            ready = http.get("/api/v1/ready")
            assert ready.status_code == 503
            assert ready.json()["checks"]["database"]["ok"] is False
            assert "database: cannot be written" in ready.json()["error"]["message"]
            writable_again(server.db_path)
            assert http.get("/api/v1/ready").status_code == 200
            assert http.get("/api/v1/health").json()["status"] == "ok"
    finally:
        writable_again(server.db_path)
        server.stop()
    assert "Traceback" not in server.logs()
