"""Serving a real `tracediff serve`.

Slow clients, SIGTERM, SIGHUP, metrics, access logs, proxies."""

import json
import os
import select
import signal
import socket
import threading
import time
from collections import Counter

import httpx
import orjson
import pytest
from test_durability import body, make_events, stored_state


def dribble(url: str, seconds: float, results: list, path: str = "/api/v1/ingest") -> None:
    """Send headers promising a 1,000-byte body, then one byte a second; record the answer or
    silence."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=seconds + 10) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1000\r\n\r\n".encode()
        )
        began = time.monotonic()
        try:
            while time.monotonic() - began < seconds:
                # an early answer, as curl reads it
                if select.select([sock], [], [], 0)[0]:
                    break
                sock.sendall(b" ")
                time.sleep(1)
            results.append(sock.recv(4096).decode(errors="replace"))
        except OSError as error:
            results.append(f"{type(error).__name__}")
        results.append(round(time.monotonic() - began, 1))


def probe_health(url: str, seconds: float) -> list[float]:
    """Probe /api/v1/health every 0.2 s for `seconds`; return each answer's latency (inf on
    failure)."""
    latencies = []
    with httpx.Client(base_url=url, timeout=2) as http:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            began = time.monotonic()
            try:
                ok = http.get("/api/v1/health").status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append(time.monotonic() - began if ok else float("inf"))
            time.sleep(0.2)
    return latencies


@pytest.mark.slow
def test_two_slow_clients_do_not_make_health_fail_and_their_bodies_time_out(make_server):
    server = make_server("slow.db", env={"TRACEDIFF_BODY_TIMEOUT": "4"})
    answers = [[], []]
    slow = [threading.Thread(target=dribble, args=(server.url, 8, answers[i])) for i in range(2)]
    for thread in slow:
        thread.start()
    latencies = probe_health(server.url, 6)
    for thread in slow:
        thread.join(30)
    assert len(latencies) >= 20 and max(latencies) < 1.0, latencies
    # cut off at the body deadline with a 408 in the error shape
    for answer in answers:
        assert answer and "408" in answer[0].split("\r\n", 1)[0], answer
        assert '"code":"body_timeout"' in answer[0].replace(" ", "")
    assert '"POST /api/v1/ingest" 408' in server.logs()


def metric_values(text: str, name: str) -> dict:
    """Return {labels: value} of one metric family from the Prometheus text format."""
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            labels, value = line.rsplit(" ", 1)
            found[labels.removeprefix(name)] = float(value)
    return found


@pytest.mark.slow
def test_serve_on_ipv6_loopback_starts_and_answers(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT, free_port

    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError as error:
        pytest.skip(f"no IPv6 loopback here: {error}")
    port = free_port()
    log = tmp_path / "v6.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "webapp",
                "serve",
                "--host",
                "::1",
                "--port",
                str(port),
                "--db",
                str(tmp_path / "v6.db"),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )
    try:
        deadline, answer = time.monotonic() + 30, None
        while answer is None and time.monotonic() < deadline and process.poll() is None:
            try:
                answer = httpx.get(f"http://[::1]:{port}/api/v1/health", timeout=1)
            except httpx.HTTPError:
                time.sleep(0.2)
        assert answer is not None and answer.status_code == 200, log.read_text()[-2000:]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(20)
    assert (
        "Traceback" not in log.read_text()
        and f"tracediff on http://[::1]:{port}/" in log.read_text()
    )


@pytest.mark.slow
def test_metrics_count_what_was_sent_across_both_workers(make_server):
    server = make_server("metrics.db", env={"TRACEDIFF_METRICS_TOKENS": "scrape-me"})
    sent = Counter()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        # new connections, so both workers take some
        for i in range(12):
            source = ("mcp", "app_intent")[i % 2]
            events = [{**e, "source": source} for e in make_events(5, f"m{i}-")]
            batch = body(events) + b'{"bad": true}\n' + b"not json\n"
            response = http.post("/api/v1/ingest", content=batch, headers={"Connection": "close"})
            assert response.status_code == 200
            sent[("accepted", source)] += 5
            resend = http.post(
                "/api/v1/ingest", content=body(events[:2]), headers={"Connection": "close"}
            )
            assert resend.json()["duplicates"] == 2
            sent[("duplicate", source)] += 2
        assert http.get("/metrics").status_code == 401
        scraped = http.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert scraped.status_code == 200 and scraped.headers["Content-Type"].startswith("text/plain")
    events = metric_values(scraped.text, "tracediff_ingest_events_total")
    for (outcome, source), count in sent.items():
        assert (
            events[f'{{code="",endpoint="ingest",outcome="{outcome}",source="{source}"}}'] == count
        )
    assert events['{code="unknown_shape",endpoint="ingest",outcome="rejected",source=""}'] == 12
    assert events['{code="not_json",endpoint="ingest",outcome="rejected",source=""}'] == 12
    requests = metric_values(scraped.text, "tracediff_http_requests_total")
    assert requests['{method="POST",route="/api/v1/ingest",status="200"}'] == 24
    assert requests['{method="GET",route="/metrics",status="401"}'] == 1
    latency = metric_values(scraped.text, "tracediff_http_request_duration_seconds_count")
    assert latency['{route="/api/v1/ingest"}'] == 24
    # the database's gauges are sampled by the analysers every few seconds
    deadline = time.monotonic() + 15
    while (
        metric_values(scraped.text, "tracediff_quarantine_records") != {"": 24.0}
        and time.monotonic() < deadline
    ):
        time.sleep(0.5)
        scraped = httpx.get(server.url + "/metrics", headers={"Authorization": "Bearer scrape-me"})
    assert metric_values(scraped.text, "tracediff_quarantine_records") == {"": 24.0}
    assert metric_values(scraped.text, "tracediff_database_bytes")[""] > 0
    assert "tracediff_analysis_oldest_waiting_seconds" in scraped.text
    assert (
        len({line.split()[-1] for line in server.logs().splitlines() if "Booting worker" in line})
        == 2
    )


@pytest.mark.slow
def test_access_lines_have_a_timestamp_and_request_id_but_no_search_terms(make_server):
    server = make_server(
        "logs.db", env={"TRACEDIFF_LOG_FORMAT": "json", "TRACEDIFF_RETENTION_DAYS": "30"}
    )
    with httpx.Client(base_url=server.url, timeout=30) as http:
        listed = http.get(
            "/api/v1/traces",
            params={"q": "customer-secret-term"},
            headers={"X-Request-Id": "rq-42"},
        )
        assert listed.headers["X-Request-Id"] == "rq-42"
        minted = http.get("/api/v1/health").headers["X-Request-Id"]
    server.stop()
    lines = [json.loads(line) for line in server.logs().splitlines() if line.startswith("{")]
    access = {line["request_id"]: line for line in lines if line["logger"] == "access"}
    assert access["rq-42"]["path"] == "/api/v1/traces" and "query" not in access["rq-42"]
    assert access["rq-42"]["ts"].endswith("Z") and access["rq-42"]["status"] == 200
    assert access[minted]["client"] == "127.0.0.1"
    assert "customer-secret-term" not in server.logs()
    assert any(
        line["logger"] == "webapp.ops.analyser" and "worker started" in line["message"]
        for line in lines
    )


@pytest.mark.slow
def test_forwarded_headers_are_honoured_from_a_trusted_proxy_only(make_server):
    server = make_server("proxy.db", env={"TRACEDIFF_TRUSTED_PROXIES": "127.0.0.2/32"})
    ids = {}
    # the proxy, then a client claiming an address
    for source in ("127.0.0.2", "127.0.0.3"):
        transport = httpx.HTTPTransport(local_address=source)
        with httpx.Client(base_url=server.url, transport=transport, timeout=30) as http:
            answer = http.get("/api/v1/health", headers={"X-Forwarded-For": "203.0.113.9"})
            ids[source] = answer.headers["X-Request-Id"]
    server.stop()
    logs = server.logs()
    assert '203.0.113.9 "GET /api/v1/health" 200' in logs and ids["127.0.0.2"] in logs
    assert '127.0.0.3 "GET /api/v1/health" 200' in logs


def post_once(url: str, batch: list[dict], outcomes: list) -> None:
    """Post a batch on a fresh connection; record (outcome, event ids)."""
    ids = [e["event_id"] for e in batch]
    try:
        response = httpx.post(
            url + "/api/v1/ingest", content=body(batch), timeout=30, headers={"Connection": "close"}
        )
        outcomes.append((response.status_code, ids))
    # refused: the listener is closed; a shipper retries
    except httpx.ConnectError:
        outcomes.append(("refused", ids))
    # reset or cut after the connection was accepted
    except httpx.HTTPError as error:
        outcomes.append((type(error).__name__, ids))


def sigterm_under_ingest(server, events: list, clients: int, after: int) -> tuple[Counter, float]:
    """Post events in batches of 20 from `clients` threads; SIGTERM the server after `after`
    answers.

    Return the answers by kind (status, "refused" or an error name) and the seconds the stop took,
    having checked that every acknowledged batch is stored."""
    batches = [events[i : i + 20] for i in range(0, len(events), 20)]
    outcomes: list = []

    def client(mine):
        for batch in mine:
            post_once(server.url, batch, outcomes)

    threads = [threading.Thread(target=client, args=(batches[i::clients],)) for i in range(clients)]
    for thread in threads:
        thread.start()
    while len(outcomes) < after:
        time.sleep(0.01)
    server.signal(signal.SIGTERM)
    stopped = time.monotonic()
    server.process.wait(40)
    stop_seconds = time.monotonic() - stopped
    for thread in threads:
        thread.join(60)
    stored, _ = stored_state(server.db_path)
    assert all(set(ids) <= stored for kind, ids in outcomes if kind == 200), (
        "an acknowledged batch was lost"
    )
    return Counter(kind for kind, _ in outcomes), stop_seconds


@pytest.mark.slow
def test_sigterm_during_ingest_loses_nothing_acknowledged_and_answers_or_refuses_every_connection(
    make_server,
):
    server = make_server("term.db", env={"TRACEDIFF_ANALYZER": "off"})
    kinds, stop_seconds = sigterm_under_ingest(
        server, make_events(6000, "term"), clients=24, after=40
    )
    print(f"\nSIGTERM under 24 ingest clients: {dict(kinds)}, stopped in {stop_seconds:.1f} s")
    assert set(kinds) <= {200, 503, "refused"}, kinds
    assert kinds[200] >= 40 and stop_seconds < 35


@pytest.mark.slow
def test_sighup_rereads_the_settings_file_and_new_workers_use_it(make_server, tmp_path):
    settings = tmp_path / "tracediff.env"
    settings.write_text("# tokens a shipper uses\nTRACEDIFF_INGEST_TOKENS=first-token\n")
    server = make_server("hup.db", env={"TRACEDIFF_SETTINGS_FILE": str(settings)})
    event = orjson.dumps(make_events(1, "hup")[0])

    def status(token):
        return httpx.post(
            server.url + "/api/v1/ingest",
            content=event,
            timeout=30,
            headers={"Authorization": f"Bearer {token}", "Connection": "close"},
        ).status_code

    assert (status("first-token"), status("second-token")) == (200, 401)
    settings.write_text("TRACEDIFF_INGEST_TOKENS=second-token\n")
    # the master only, as systemd's ExecReload does
    server.process.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 20
    while status("second-token") != 200 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [status("second-token") for _ in range(6)] == [200] * 6
    assert [status("first-token") for _ in range(6)] == [401] * 6
    # a typo: refused, the server keeps running
    settings.write_text("TRACEDIFF_NOT_A_SETTING=1\n")
    server.process.send_signal(signal.SIGHUP)
    # a loaded master may take seconds to read the signal: wait for its answer, not a fixed time
    deadline = time.monotonic() + 30
    while "reload refused" not in server.logs() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert server.process.poll() is None and status("second-token") == 200
    assert "reload refused, keeping the running settings" in server.logs()
    assert "Exception in worker" not in server.logs()


def test_a_bad_trusted_proxies_setting_stops_serve_with_one_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from webapp.cli import main

    monkeypatch.setenv("TRACEDIFF_TRUSTED_PROXIES", "127.0.0.1, nginx.local")
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "p.db")])
    assert result.exit_code == 1
    assert "TRACEDIFF_TRUSTED_PROXIES: 'nginx.local' is not an address or network" in result.output


def test_forwarded_scheme_and_host_count_only_from_a_trusted_peer(tmp_path):
    from webapp import create_app

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "f.db"),
            "ANALYZER": "off",
            "TRUSTED_PROXIES": "10.0.0.0/8",
        }
    )
    from flask import request

    app.add_url_rule(
        "/whoami", "whoami", lambda: {"client": request.remote_addr, "scheme": request.scheme}
    )
    headers = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    for peer, client, scheme in (
        ("10.1.2.3", "203.0.113.9", "https"),
        ("192.0.2.1", "192.0.2.1", "http"),
    ):
        answer = app.test_client().get(
            "/whoami", headers=headers, environ_base={"REMOTE_ADDR": peer}
        )
        assert answer.get_json() == {"client": client, "scheme": scheme}


@pytest.mark.slow
def test_requests_gunicorn_refuses_and_bodies_it_cannot_frame_get_the_json_error_shape(live_server):
    long_line = httpx.get(f"{live_server.url}/?q={'x' * 5000}")
    assert long_line.status_code == 414 and long_line.headers["content-type"] == "application/json"
    assert (
        long_line.json()["error"]["code"] == "uri_too_long"
        and long_line.json()["error"]["retryable"] is False
    )
    headers = {f"x-extra-{n}": "1" for n in range(120)}
    too_many = httpx.get(f"{live_server.url}/api/v1/health", headers=headers)
    assert too_many.status_code == 431
    assert too_many.json()["error"]["code"] == "request_header_fields_too_large"
    bad_chunk = raw_request(
        live_server.url,
        b"POST /api/v1/ingest HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: "
        b"chunked\r\n\r\nzz\r\n",
    )
    assert bad_chunk.startswith("HTTP/1.1 400 ") and '"code":"bad_body"' in bad_chunk
    cut_short = raw_request(
        live_server.url,
        b'POST /api/v1/ingest HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{"a": 1}',
        half_close=True,
    )
    assert cut_short.startswith("HTTP/1.1 400 ") and '"code":"bad_body"' in cut_short
    # the worker carried on
    assert httpx.get(f"{live_server.url}/api/v1/health").status_code == 200


def raw_request(url: str, data: bytes, half_close: bool = False) -> str:
    """Send bytes as they are and read the whole answer (`half_close`: then say nothing more
    follows)."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return answer.decode(errors="replace")
