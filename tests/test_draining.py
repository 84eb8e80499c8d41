"""The serving worker and what `tracediff serve` really binds.

webapp/ops/draining.py, webapp/ops/listeners.py."""

import http.client
import json
import os
import socket
import subprocess
import threading
import time

import httpx
import pytest
from click.testing import CliRunner
from conftest import LiveServer, free_port
from test_durability import make_events
from test_serving import dribble, sigterm_under_ingest

from webapp.cli import main
from webapp.ops.listeners import held_by, ignore_new_connections

NO_TOKENS = {
    "TRACEDIFF_INGEST_TOKENS": None,
    "TRACEDIFF_READ_TOKENS": None,
    "TRACEDIFF_ADMIN_TOKENS": None,
}


def probe_fresh(url: str, seconds: float) -> list[float]:
    """Probe /api/v1/health every 0.2 s, each on a new connection as a load balancer does; latencies
    (inf: failed)."""
    host, port = url.removeprefix("http://").split(":")
    latencies = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        connection = http.client.HTTPConnection(host, int(port), timeout=2)
        # http.client, not httpx: a fresh httpx client costs ~0.4 s of CPU on a busy machine
        try:
            connection.request("GET", "/api/v1/health", headers={"Connection": "close"})
            ok = connection.getresponse().status == 200
        except OSError:
            ok = False
        finally:
            connection.close()
        latencies.append(time.monotonic() - began if ok else float("inf"))
        time.sleep(0.2)
    return latencies


@pytest.mark.slow
def test_forty_slow_clients_leave_health_answered_and_each_gets_408_with_connection_close(
    make_server,
):
    # the stock worker queued probes behind threads waiting for bodies: 10 such clients failed
    # probes
    server = make_server("many.db", env={"TRACEDIFF_BODY_TIMEOUT": "10"})
    answers = [[] for _ in range(40)]
    slow = [threading.Thread(target=dribble, args=(server.url, 14, answer)) for answer in answers]
    for thread in slow:
        thread.start()
    # every slow client is in, holding a thread for 10 s
    time.sleep(1)
    latencies = probe_fresh(server.url, 6)
    for thread in slow:
        thread.join(40)
    assert len(latencies) >= 6 and max(latencies) < 2.0, latencies
    for answer in answers:
        head = answer[0].split("\r\n\r\n", 1)[0]
        assert head.startswith("HTTP/1.1 408 "), answer
        # it is closed
        assert "\r\nConnection: close" in head and "keep-alive" not in head, head


@pytest.mark.slow
def test_gunicorn_cmd_args_bind_is_checked_for_tokens_and_named_in_the_start_line(tmp_path):
    port = free_port()
    refused = CliRunner().invoke(
        main,
        ["serve", "--port", str(free_port()), "--db", str(tmp_path / "o.db")],
        env={**NO_TOKENS, "GUNICORN_CMD_ARGS": f"--bind 0.0.0.0:{port}"},
    )
    assert refused.exit_code == 1, refused.output
    assert "refusing to listen on 0.0.0.0 with no token set" in refused.output
    assert not (tmp_path / "o.db").exists()
    # --port names one port, GUNICORN_CMD_ARGS binds another: the start line says the real one
    other = free_port()
    server = LiveServer(
        tmp_path / "bind.db",
        args=["--port", str(other)],
        env={"GUNICORN_CMD_ARGS": f"--bind 127.0.0.1:{port}"},
    ).start(port=port)
    server.stop()
    assert f"tracediff on http://127.0.0.1:{port}/ " in server.logs()
    assert str(other) not in server.logs()


@pytest.mark.slow
def test_json_log_format_writes_every_server_line_as_json(make_server, tmp_path):
    server = make_server(
        "json.db",
        args=["--demo"],
        env={**{k: "" for k in NO_TOKENS}, "TRACEDIFF_LOG_FORMAT": "json"},
    )
    assert httpx.get(server.url + "/api/v1/health", timeout=30).status_code == 200
    server.stop()
    lines = [line for line in server.logs().splitlines() if line.strip()]
    # a plain-text line fails here
    records = [json.loads(line) for line in lines]
    assert all(record["ts"].endswith("Z") and record["level"] for record in records)
    messages = [record["message"] for record in records]
    # the warning, as a WARNING record
    assert any(m.startswith("no tokens are set") for m in messages)
    assert any(m.startswith("demo: loaded") for m in messages)
    assert any(m.startswith(f"tracediff on http://127.0.0.1:{server.port}/") for m in messages)


@pytest.mark.slow
def test_a_sync_worker_class_still_drains_and_one_that_cannot_is_refused_in_one_line(tmp_path):
    server = LiveServer(
        tmp_path / "args.db", env={"GUNICORN_CMD_ARGS": "--worker-class sync --keep-alive 7"}
    )
    server.start()
    server.stop()
    assert "Using worker: webapp.ops.draining.DrainingWorker" in server.logs()
    refused = CliRunner().invoke(
        main,
        ["serve", "--db", str(tmp_path / "g.db")],
        env={"GUNICORN_CMD_ARGS": "--worker-class gevent"},
    )
    assert refused.exit_code == 1 and len(refused.output.strip().splitlines()) == 1, refused.output
    assert "worker class gevent is not supported" in refused.output


@pytest.mark.parametrize("gunicorn_args", ["", "--workers 3 --worker-class sync"])
@pytest.mark.slow
def test_sigterm_under_forty_clients_resets_no_connection(tmp_path, gunicorn_args):
    server = LiveServer(
        tmp_path / "term.db", env={"TRACEDIFF_ANALYZER": "off", "GUNICORN_CMD_ARGS": gunicorn_args}
    )
    server.start()
    kinds, _ = sigterm_under_ingest(server, make_events(8000, "sig"), clients=40, after=60)
    server.stop()
    assert set(kinds) <= {200, 503, "refused"}, kinds


def test_a_listener_that_ignores_new_connections_still_hands_over_the_ones_it_completed():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        # completed before the filter
        early = socket.create_connection(listener.getsockname(), timeout=2)
        assert ignore_new_connections(listener)
        late = socket.socket()
        late.settimeout(0.5)
        # its SYN is dropped: no handshake, so nothing to reset later
        with pytest.raises(socket.timeout):
            late.connect(listener.getsockname())
        accepted, _ = listener.accept()
        early.sendall(b"ping")
        # the filter keeps every segment of a connection it let in
        assert accepted.recv(4) == b"ping"
        for sock in (early, late, accepted):
            sock.close()


@pytest.mark.slow
def test_held_by_tells_whether_a_process_still_holds_a_listening_socket():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        # holds none of our sockets (close_fds)
        other = subprocess.Popen(["sleep", "5"])
        try:
            assert held_by(os.getpid(), listener) and not held_by(other.pid, listener)
        finally:
            other.kill()
            other.wait()
