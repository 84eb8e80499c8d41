"""Connection limits that hold without a proxy.

Idle connections cost no thread and are closed, headers have a deadline, open connections per worker
are bounded, and health is answered ahead of idle connections."""

import socket
import time

import pytest
from test_serving import probe_health

pytestmark = pytest.mark.slow


def open_idle(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]


def closed_by_server(sockets: list[socket.socket]) -> int:
    """Count the connections the server has closed (reading them gives the end of the stream)."""
    closed = 0
    for sock in sockets:
        sock.setblocking(False)
        try:
            closed += sock.recv(1) == b""
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
    return closed


def test_400_idle_connections_for_20_s_leave_health_under_2_s_and_are_closed(make_server):
    server = make_server("idle.db")
    idle = open_idle(server.port, 400)
    try:
        latencies = probe_health(server.url, 20)
        assert max(latencies) < 2, sorted(latencies)[-5:]
        # each after `keepalive` (5 s) without a request
        assert closed_by_server(idle) == 400
    finally:
        for sock in idle:
            sock.close()
    print(
        f"\n400 idle connections for 20 s: {len(latencies)} health probes, the slowest "
        f"{max(latencies):.2f} s"
    )


def test_past_the_cap_on_open_connections_the_idlest_is_closed_and_health_still_answers(
    make_server,
):
    server = make_server("cap.db", env={"GUNICORN_CMD_ARGS": "--worker-connections 40"})
    idle = open_idle(server.port, 200)
    try:
        # well inside `keepalive`: only the cap can have closed them yet
        time.sleep(1)
        latencies = probe_health(server.url, 3)
        assert max(latencies) < 2
        # two workers keep at most 40 each
        assert closed_by_server(idle) >= 200 - 2 * 40
    finally:
        for sock in idle:
            sock.close()


def test_headers_dribbled_a_byte_at_a_time_are_cut_off_after_the_header_deadline(make_server):
    from webapp.ops.draining import HEADER_SECONDS

    server = make_server("dribble.db")
    with socket.create_connection(("127.0.0.1", server.port), timeout=HEADER_SECONDS + 10) as sock:
        began = time.monotonic()
        header = b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        answer = b""
        # a byte every 0.5 s: no single read waits long, the whole never ends
        for byte in header:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            time.sleep(0.5)
            if time.monotonic() - began > HEADER_SECONDS + 5:
                break
        try:
            answer = sock.recv(100)
        except OSError:
            pass
        took = time.monotonic() - began
    assert took < HEADER_SECONDS + 4 and not answer.startswith(b"HTTP/1.1 200"), (took, answer)
