"""Storage faults heal by themselves.

A disk remounted read-write or freed takes writes again, with no restart.

The database lives on a tmpfs mounted for the test (root only: skipped with the reason elsewhere).
"""

import subprocess
import time
from pathlib import Path

import httpx
import pytest
from conftest import LiveServer
from helpers import TRACE, ndjson, order_call

from webapp import create_app
from webapp.store import Store

NDJSON = {"Content-Type": "application/x-ndjson"}
HEAL_WITHIN_S = 15


@pytest.fixture
def mount(tmp_path):
    """A tmpfs of its own for the database; unmounted at the end (servers are stopped first)."""
    target = tmp_path / "disk"
    target.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=160m", "tmpfs", str(target)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or 'mount refused'}")
    servers = []
    yield target, servers
    for server in servers:
        server.stop()
    subprocess.run(["umount", "-l", str(target)], check=False)


def remount(target: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(target)], check=True)


def fill(target: Path) -> Path:
    """Write a file until the disk is full; return it (delete it to free the disk)."""
    filler = target / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * (1 << 20))
                out.flush()
        except OSError:
            pass
    return filler


def serve(mount, log_path) -> LiveServer:
    target, servers = mount
    server = LiveServer(
        target / "t.db",
        log_path=log_path,
        env={"TRACEDIFF_READY_MIN_FREE_MB": "0", "TRACEDIFF_MIN_FREE_MB": "0"},
    )
    servers.append(server)
    return server.start()


def gone(server) -> None:
    """Wait until every process of a killed server has exited (its workers hold the files open a
    moment)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if (
            subprocess.run(["pgrep", "-g", str(server.process.pid)], capture_output=True).returncode
            != 0
        ):
            return
        time.sleep(0.1)


def post(server, trace=TRACE, http=httpx) -> httpx.Response:
    return http.post(
        server.url + "/api/v1/ingest",
        content=ndjson(*order_call(trace)),
        headers=NDJSON,
        timeout=10,
    )


def states(server, http=httpx) -> tuple[int, int, str]:
    """Return (ingest status, readiness status, health's status) once each."""
    health = http.get(server.url + "/api/v1/health", timeout=5).json()
    ingest = post(server, f"{time.time_ns():032x}"[-32:], http).status_code
    return ingest, http.get(server.url + "/api/v1/ready", timeout=5).status_code, health["status"]


def healed_within(server, seconds: float) -> float:
    """Poll until ingest and readiness answer 200 and health says ok on every worker; return the
    seconds taken."""
    # one client made before the clock starts (a new one per request took 0.1-0.75 s of CPU on a
    # loaded machine, twelve of them a round); each request on a new connection, which either
    # worker may take
    with httpx.Client(headers={"Connection": "close"}) as http:
        began = time.monotonic()
        while time.monotonic() - began < seconds:
            # 4 tries: each worker answers one
            if all(states(server, http) == (200, 200, "ok") for _ in range(4)):
                return time.monotonic() - began
            time.sleep(0.5)
    pytest.fail(f"not healed within {seconds} s: {states(server)}; log: {server.logs()[-1500:]}")


@pytest.mark.slow
def test_a_server_started_on_a_read_only_disk_takes_writes_once_it_is_remounted_read_write(
    mount, tmp_path
):
    target, _ = mount
    first = serve(mount, tmp_path / "first.log")
    assert post(first).status_code == 200
    # the -wal and -shm files stay, as after a crash: a read-only start can read them
    first.kill()
    gone(first)
    # (Linux refuses to remount a disk read-only while a process has a file open to write)
    remount(target, "ro")
    server = serve(mount, tmp_path / "second.log")
    ingest, ready, health = states(server)
    # health and readiness agree
    assert (ingest, ready, health) == (503, 503, "degraded")
    remount(target, "rw")
    assert healed_within(server, HEAL_WITHIN_S) < HEAL_WITHIN_S
    assert "SIGHUP" not in server.logs() and "Booting worker" in server.logs()


@pytest.mark.slow
def test_a_running_server_takes_writes_again_once_its_full_disk_has_room(mount, tmp_path):
    target, _ = mount
    server = serve(mount, tmp_path / "live.log")
    filler = fill(target)
    assert states(server)[:2] == (503, 503)
    filler.unlink()
    healed_within(server, HEAL_WITHIN_S)


@pytest.mark.slow
def test_a_trace_read_on_a_full_disk_answers_200_while_its_analysis_is_pending(mount):
    target, _ = mount
    app = create_app(
        {"TESTING": True, "DATABASE": str(target / "t.db"), "ANALYZER": "off", "MIN_FREE_MB": 0}
    )
    client = app.test_client()
    assert (
        client.post("/api/v1/ingest", data=ndjson(*order_call()), headers=NDJSON).status_code == 200
    )
    # kept open as a server's analyser keeps it (the -shm file stays)
    store = Store.open(target / "t.db")
    # folded into a call, not analysed yet
    store.project_all()
    assert store.pending_calls(TRACE)
    fill(target)
    answer = client.get(f"/api/v1/traces/{TRACE}")
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["trace_id"] == TRACE
    assert client.get(f"/traces/{TRACE}").status_code == 200
    # still pending: the background analyser does it once there is room
    assert store.pending_calls(TRACE)
    store.close()
