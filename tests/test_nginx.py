"""docs/nginx/tracediff.conf in a real nginx in front of a real `tracediff serve`.

Skipped where nginx is not installed, except on CI (.ci/run installs nginx-light).
"""
import os
import shutil
import signal
import subprocess
import threading
import time

import httpx
import pytest

from conftest import ROOT, free_port
from test_durability import body, make_events
from test_serving import dribble, probe_health

SITE = ROOT / "docs" / "nginx" / "tracediff.conf"
MAIN = """user root;
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log {folder}/access.log;
  client_body_temp_path {folder}/body;
  proxy_temp_path {folder}/proxy;
  include {folder}/site.conf;
}}
"""


def nginx_binary() -> str:
    found = shutil.which("nginx", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"]))
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("nginx is not installed (apt-get install nginx-light); CI must run this test")
    pytest.skip("nginx is not installed (Debian: apt-get install nginx-light)")


@pytest.fixture
def proxied(make_server, tmp_path):
    """tracediff trusting 127.0.0.1, behind nginx running the documented site configuration."""
    binary = nginx_binary()
    server = make_server("behind.db", env={"TRACEDIFF_TRUSTED_PROXIES": "127.0.0.1",
                                           "TRACEDIFF_LOG_FORMAT": "text"})
    folder, port = tmp_path / "nginx", free_port()
    folder.mkdir()
    site = SITE.read_text()
    assert "server 127.0.0.1:8000;" in site and "listen 80; " in site
    (folder / "site.conf").write_text(site.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{server.port};")
                                      .replace("listen 80; ", f"listen 127.0.0.1:{port}; "))
    (folder / "nginx.conf").write_text(MAIN.format(folder=folder))
    command = [binary, "-p", str(folder), "-c", str(folder / "nginx.conf")]
    subprocess.run([*command, "-t"], check=True, capture_output=True)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/api/v1/health", timeout=1)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    yield server, url
    process.send_signal(signal.SIGQUIT)
    process.wait(10)


def test_ingest_through_nginx_keeps_the_client_address_and_the_request_id(proxied):
    server, url = proxied
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=url, transport=transport, timeout=30) as http:
        answer = http.post("/api/v1/ingest", content=body(make_events(5, "ng")),
                           headers={"X-Forwarded-For": "198.51.100.7"})  # a client's claim: replaced
    assert answer.status_code == 200 and answer.json()["accepted"] == 5
    request_id = answer.headers["X-Request-Id"]
    assert len(request_id) == 32  # nginx's $request_id, passed on
    server.stop()
    line = next(line for line in server.logs().splitlines() if request_id in line)
    assert line.split(" INFO access: ")[1].startswith('127.0.0.2 "POST /api/v1/ingest" 200')


def test_a_syslog_ng_sized_batch_passes_and_one_over_the_limit_gets_413_in_the_error_shape(proxied):
    _, url = proxied
    events = make_events(1, "big")[0]
    batch = []
    while len(body(batch)) < 1_059_520:  # what batch-bytes(1048576) made syslog-ng send
        batch.append({**events, "event_id": f"big-{len(batch)}", "payload": {"blob": "x" * 10_000}})
    with httpx.Client(base_url=url, timeout=60) as http:
        assert http.post("/api/v1/ingest", content=body(batch)).status_code == 200
        refused = http.post("/api/v1/ingest", content=b" " * (16 * 1024 * 1024 + 1))
    assert refused.status_code == 413
    assert refused.json()["error"]["code"] == "too_large" and refused.json()["error"]["retryable"] is False


def test_slow_clients_behind_nginx_cost_nothing_and_a_stopped_tracediff_is_a_503(proxied):
    server, url = proxied
    answers = [[] for _ in range(6)]
    slow = [threading.Thread(target=dribble, args=(url, 5, answers[i])) for i in range(6)]
    for thread in slow:
        thread.start()
    latencies = probe_health(url, 4)
    for thread in slow:
        thread.join(30)
    assert max(latencies) < 1.0, latencies
    server.stop()
    down = httpx.post(url + "/api/v1/ingest", content=body(make_events(1, "down")), timeout=30)
    assert down.status_code == 503 and down.headers["Retry-After"] == "5"
    assert down.json()["error"]["retryable"] is True
