"""A PostgreSQL outage, on a cluster of the test's own.

The server's log keeps its line format."""

import re
import time

import httpx
import pytest
from conftest import LiveServer
from pgcluster import cluster  # noqa: F401 (a fixture)

LINE = re.compile(
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+: "
)


@pytest.mark.slow
def test_psycopg_pool_lines_during_an_outage_have_a_time_and_a_level(cluster, tmp_path):
    server = LiveServer(cluster.url, log_path=tmp_path / "serve.log").start()
    try:
        cluster.stop()
        # requests that need a connection make the pool try to reconnect
        for _ in range(6):
            httpx.get(server.url + "/api/v1/ready", timeout=15)
        time.sleep(2)
        # the pool logs its failed reconnections from a thread of its own, in its own time: 2 s of
        # them, and one at least
        deadline = time.monotonic() + 60
        while not pool_lines(server) and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        server.stop()
    assert pool_lines(server), server.logs()[-2000:]
    assert all(LINE.match(line) for line in pool_lines(server)), pool_lines(server)[:5]


def pool_lines(server) -> list[str]:
    """Return the server's log lines about the pool's connections."""
    return [
        line
        for line in server.logs().splitlines()
        if "pool" in line.lower() and "connect" in line.lower()
    ]


@pytest.mark.slow
def test_metrics_answer_within_a_second_while_postgresql_is_stopped_and_say_the_database_is_down(
    cluster, tmp_path
):
    server = LiveServer(cluster.url, log_path=tmp_path / "serve.log").start()
    try:
        assert "tracediff_database_up 1.0" in wait_for(server, "tracediff_database_up 1.0")
        cluster.stop()
        # the analyser's next look, within seconds (a minute allowed: in a loaded full run its look
        # waited past 20 s on a connection to the stopping server)
        text = wait_for(server, "tracediff_database_up 0.0", seconds=60)
        # every worker answers from memory, well within the 5 s a look at the database may wait
        # (3 s: a loaded machine's scrape took up to ~1 s); the client is made before the clock
        # starts (a new httpx client took 0.1-0.75 s of CPU on a loaded machine), and each scrape
        # is a new connection, which either worker may take
        with httpx.Client(base_url=server.url, timeout=5) as http:
            for _ in range(5):
                began = time.monotonic()
                answer = http.get("/metrics", headers={"Connection": "close"})
                assert answer.status_code == 200 and time.monotonic() - began < 3.0
                assert (
                    "process_resident_memory_bytes" in answer.text
                    and "tracediff_build_info" in answer.text
                )
        assert 'tracediff_database_errors_total{kind="unreachable"}' in text
        assert "tracediff_database_pool_connections" in text
        cluster.start()
        wait_for(server, "tracediff_database_up 1.0")
    finally:
        server.stop()


def wait_for(server, line: str, seconds: float = 20) -> str:
    """Scrape until a line shows; return that scrape."""
    deadline = time.monotonic() + seconds
    while True:
        text = httpx.get(server.url + "/metrics", timeout=5).text
        if line in text.splitlines() or time.monotonic() > deadline:
            assert line in text.splitlines(), text[-3000:]
            return text
        time.sleep(0.5)
