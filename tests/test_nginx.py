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
from pgcluster import cluster  # noqa: F401 (a fixture)
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
    server = make_server(
        "behind.db", env={"TRACEDIFF_TRUSTED_PROXIES": "127.0.0.1", "TRACEDIFF_LOG_FORMAT": "text"}
    )
    folder, port = tmp_path / "nginx", free_port()
    folder.mkdir()
    site = SITE.read_text()
    assert "server 127.0.0.1:8000;" in site and "listen 80; " in site
    (folder / "site.conf").write_text(
        site.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{server.port};").replace(
            "listen 80; ", f"listen 127.0.0.1:{port}; "
        )
    )
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


@pytest.mark.slow
def test_ingest_through_nginx_keeps_the_client_address_and_the_request_id(proxied):
    server, url = proxied
    transport = httpx.HTTPTransport(local_address="127.0.0.2")
    with httpx.Client(base_url=url, transport=transport, timeout=30) as http:
        # a client's claim: replaced
        answer = http.post(
            "/api/v1/ingest",
            content=body(make_events(5, "ng")),
            headers={"X-Forwarded-For": "198.51.100.7"},
        )
    assert answer.status_code == 200 and answer.json()["accepted"] == 5
    request_id = answer.headers["X-Request-Id"]
    # nginx's $request_id, passed on
    assert len(request_id) == 32
    server.stop()
    line = next(line for line in server.logs().splitlines() if request_id in line)
    assert line.split(" INFO access: ")[1].startswith('127.0.0.2 "POST /api/v1/ingest" 200')


@pytest.mark.slow
def test_a_syslog_ng_sized_batch_passes_and_one_over_the_limit_gets_413_in_the_error_shape(proxied):
    _, url = proxied
    events = make_events(1, "big")[0]
    batch = []
    # what batch-bytes(1048576) made syslog-ng send
    while len(body(batch)) < 1_059_520:
        batch.append({**events, "event_id": f"big-{len(batch)}", "payload": {"blob": "x" * 10_000}})
    with httpx.Client(base_url=url, timeout=60) as http:
        assert http.post("/api/v1/ingest", content=body(batch)).status_code == 200
        refused = http.post("/api/v1/ingest", content=b" " * (16 * 1024 * 1024 + 1))
    assert refused.status_code == 413
    assert (
        refused.json()["error"]["code"] == "too_large"
        and refused.json()["error"]["retryable"] is False
    )


@pytest.mark.slow
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


NODES_SITE = ROOT / "docs" / "nginx" / "tracediff-nodes.conf"


def start_nginx(folder, site: str) -> subprocess.Popen:
    """Run nginx with a site configuration in a folder of its own; return once it answers."""
    (folder / "site.conf").write_text(site)
    (folder / "nginx.conf").write_text(MAIN.format(folder=folder))
    command = [nginx_binary(), "-p", str(folder), "-c", str(folder / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)


def nodes_site(folder, nodes, https_port: int, http_port: int) -> str:
    """docs/nginx/tracediff-nodes.conf for these nodes, on local ports, with a self-signed
    certificate."""
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=tracediff.example.com",
            "-keyout",
            str(folder / "key.pem"),
            "-out",
            str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )
    site = NODES_SITE.read_text()
    listed = "".join(
        f"server 127.0.0.1:{node.port} max_fails=3 fail_timeout=5s;\n    " for node in nodes
    )
    documented = (
        "server 10.0.0.11:8000 max_fails=3 fail_timeout=5s;\n    "
        "server 10.0.0.12:8000 max_fails=3 fail_timeout=5s;\n    "
    )
    for old, new in (
        (documented, listed),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https_port} ssl http2;"),
        ("listen 80;", f"listen 127.0.0.1:{http_port};"),
        ("/etc/ssl/tracediff/fullchain.pem", str(folder / "cert.pem")),
        ("/etc/ssl/tracediff/privkey.pem", str(folder / "key.pem")),
    ):
        assert old in site, old
        site = site.replace(old, new)
    return site


@pytest.fixture
def two_nodes(cluster, tmp_path):
    """Two nodes on a PostgreSQL cluster of the test's own, behind nginx with the documented
    several-nodes file."""
    from conftest import LiveServer

    nodes = [
        LiveServer(
            cluster.url,
            log_path=tmp_path / f"node{n}.log",
            env={"TRACEDIFF_TRUSTED_PROXIES": "127.0.0.1"},
        ).start()
        for n in range(2)
    ]
    folder, https_port, http_port = tmp_path / "nginx", free_port(), free_port()
    folder.mkdir()
    process = start_nginx(folder, nodes_site(folder, nodes, https_port, http_port))
    url = f"https://127.0.0.1:{https_port}"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            httpx.get(url + "/api/v1/health", timeout=1, verify=False)
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    yield nodes, url, f"http://127.0.0.1:{http_port}"
    process.send_signal(signal.SIGQUIT)
    process.wait(10)
    for node in nodes:
        node.stop()


def outage_traffic(url: str, seconds: float, writers: int = 4) -> tuple[list, list]:
    """Send ingest from `writers` threads and health checks every 0.2 s for `seconds`; return both's
    answers."""
    health, ingest, stop = [], [], time.monotonic() + seconds

    def write(n):
        with httpx.Client(base_url=url, verify=False, timeout=30) as http:
            while time.monotonic() < stop:
                answer = http.post(
                    "/api/v1/ingest", content=body(make_events(1, f"w{n}x{len(ingest)}"))
                )
                ingest.append(answer.json()["error"]["code"] if answer.status_code != 200 else "ok")

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    with httpx.Client(base_url=url, verify=False, timeout=30) as http:
        while time.monotonic() < stop:
            health.append(http.get("/api/v1/health").status_code)
            time.sleep(0.2)
    for thread in threads:
        thread.join()
    return health, ingest


@pytest.mark.slow
def test_a_database_outage_behind_nginx_leaves_health_answered_and_ingest_503_from_the_nodes(
    two_nodes, cluster
):
    nodes, url, plain = two_nodes
    events = make_events(3, "outage")
    with httpx.Client(base_url=url, verify=False, timeout=15) as http:
        assert http.post("/api/v1/ingest", content=body(events)).status_code == 200
        cluster.stop()
        # an 8 s outage, as in the report
        health, ingest = outage_traffic(url, 8)
        cluster.start()
        assert set(health) == {200}, health
        # the nodes' own answer (with Retry-After), never nginx's "no live upstream"
        assert "store_unavailable" in ingest and set(ingest) <= {"store_unavailable", "ok"}, ingest
        deadline = time.monotonic() + 20
        while http.post("/api/v1/ingest", content=body(events)).status_code != 200:
            assert time.monotonic() < deadline, "ingest did not come back after the outage"
            time.sleep(0.5)
        assert http.get("/api/v1/health").headers["Strict-Transport-Security"] == "max-age=31536000"
    redirect = httpx.get(plain + "/api/v1/health")
    assert redirect.status_code == 301 and redirect.headers["Location"].startswith("https://")
