"""Durability: concurrent writers, SIGKILL, read-only and full disks, pruning.

SIGKILL mid-stream; pruning under load."""

import multiprocessing
import os
import random
import shutil
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import UTC, datetime

import httpx
import orjson
import pytest
from conftest import ROOT, LiveServer

from webapp.store import Store
from webapp.web.db import REQUEST_WAIT_MS

# printed at the end of the module with -s, for the closing note
FIGURES: dict = {}


def make_events(count: int, prefix: str, traces: int = 60, ts: str | None = None) -> list[dict]:
    """Return events with explicit ids; some share a (trace, call, snapshot) as later versions."""
    events = []
    for i in range(count):
        trace = f"{prefix}{i % traces:030d}"
        snapshot = ("arguments", "request", "response")[i % 3]
        events.append(
            {
                "event_id": f"{prefix}-{i}",
                "trace_id": trace,
                "call_id": f"c{(i // 3) % 4}",
                "snapshot": snapshot,
                "tool": "findOrders",
                "payload": {"n": i, "status": "paid"},
                "ts": ts or f"2026-08-20T09:{(i // 60) % 60:02d}:{i % 60:02d}Z",
            }
        )
    return events


def chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def body(batch: list[dict]) -> bytes:
    return b"".join(orjson.dumps(event) + b"\n" for event in batch)


def post_until_acknowledged(http: httpx.Client, batch: list[dict], statuses: Counter) -> dict:
    """Post a batch, retrying 503s and broken connections as a shipper does; return the 200 body.

    A shipper retries for minutes: the deadline is time, not a count of tries, so a prune that holds
    the write lock longer on a loaded machine (the suite runs on every core) is waited out as a
    shipper would."""
    deadline, response = time.monotonic() + 120, None
    while time.monotonic() < deadline:
        try:
            response = http.post("/api/v1/ingest", content=body(batch))
        except httpx.TransportError:
            statuses["transport_error"] += 1
            time.sleep(0.05)
            continue
        statuses[response.status_code] += 1
        if response.status_code == 200:
            return response.json()
        assert response.status_code == 503, f"{response.status_code}: {response.text[:500]}"
        assert response.headers["Retry-After"].isdigit()
        time.sleep(min(float(response.headers["Retry-After"]), 0.2))
    raise AssertionError(f"a batch was never acknowledged: {statuses}, last {response.text[:300]}")


def send_batches(url: str, batches: list[list[dict]]) -> tuple[dict, int, int]:
    """Post batches from one process; return statuses seen, accepted and duplicates."""
    statuses, accepted, duplicates = Counter(), 0, 0
    with httpx.Client(base_url=url, timeout=60) as http:
        for batch in batches:
            result = post_until_acknowledged(http, batch, statuses)
            accepted += result["accepted"]
            duplicates += result["duplicates"]
    return dict(statuses), accepted, duplicates


def stored_state(db_path) -> tuple[set[str], int]:
    store = Store.open(db_path, create=False)
    try:
        return store.event_ids(), store.count_events()
    finally:
        store.close()


def db_problems(db_path) -> list[str]:
    """List what is inconsistent in a database: corruption, bad JSON, calls pointing nowhere."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check") if row[0] != "ok"]
        for seq, payload, http in conn.execute("SELECT seq, payload, http FROM events"):
            try:
                orjson.loads(payload)
                orjson.loads(http) if http is not None else None
            except orjson.JSONDecodeError:
                problems.append(f"event {seq} holds invalid JSON")
        for name in ("arguments", "request", "response"):
            problems += [
                f"call {row} points at a missing {name} event"
                for row in conn.execute(
                    f"SELECT trace_id, call_id FROM calls WHERE {name}_seq IS NOT NULL "
                    f"AND {name}_seq NOT IN (SELECT seq FROM events)"
                )
            ]
        problems += [
            f"call {row} has no trace row"
            for row in conn.execute(
                "SELECT trace_id, call_id FROM calls WHERE trace_id NOT IN (SELECT trace_id FROM "
                "traces)"
            )
        ]
        return problems
    finally:
        conn.close()


@pytest.mark.slow
def test_four_processes_with_overlapping_resends_store_the_sent_set_exactly(live_server):
    events = make_events(2400, "hammer")
    batches = chunks(events, 20)
    plans = [[] for _ in range(4)]
    # every batch is sent by two processes
    for i, batch in enumerate(batches):
        plans[i % 4].append(batch)
        plans[(i + 1) % 4].append(batch)
    for seed, plan in enumerate(plans):
        random.Random(seed).shuffle(plan)
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.starmap(send_batches, [(live_server.url, plan) for plan in plans])
    statuses = sum((Counter(s) for s, _, _ in results), Counter())
    accepted = sum(a for _, a, _ in results)
    duplicates = sum(d for _, _, d in results)
    sent = {e["event_id"] for e in events}
    stored, rows = stored_state(live_server.db_path)
    FIGURES["hammer"] = dict(
        sent=2 * len(events), unique=len(sent), stored=rows, statuses=dict(statuses)
    )
    assert set(statuses) <= {200, 503, "transport_error"}
    assert stored == sent and rows == len(sent)
    assert accepted == len(sent) and duplicates == len(events)
    assert db_problems(live_server.db_path) == []


def stream_until_killed(server: LiveServer, batches, acked: list, after: int) -> None:
    """Send batches one after another; SIGKILL the server group once `after` are acknowledged."""

    def stream():
        with httpx.Client(base_url=server.url, timeout=10) as http:
            for i, batch in enumerate(batches):
                try:
                    if http.post("/api/v1/ingest", content=body(batch)).status_code == 200:
                        acked.append(i)
                except httpx.TransportError:
                    pass

    sender = threading.Thread(target=stream)
    sender.start()
    while len(acked) < after and sender.is_alive():
        time.sleep(0.005)
    server.kill()
    sender.join(60)


@pytest.mark.slow
def test_sigkill_mid_stream_keeps_every_acknowledged_batch_and_resends_fill_the_rest(make_server):
    server = make_server("killed.db")
    events = make_events(4000, "kill")
    batches = chunks(events, 25)
    acked: list[int] = []
    stream_until_killed(server, batches, acked, after=40)
    assert 40 <= len(acked) < len(batches)
    # the same database file, after the crash
    server.start()
    stored, rows = stored_state(server.db_path)
    for i, batch in enumerate(batches):
        ids = {e["event_id"] for e in batch}
        if i in acked:
            assert ids <= stored, f"acknowledged batch {i} was lost"
        else:
            assert ids <= stored or not ids & stored, f"batch {i} is half stored"
    statuses = Counter()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for i, batch in enumerate(batches):
            if i not in acked:
                post_until_acknowledged(http, batch, statuses)
        again = [post_until_acknowledged(http, batch, statuses) for batch in batches]
    sent = {e["event_id"] for e in events}
    stored, rows = stored_state(server.db_path)
    FIGURES["sigkill"] = dict(batches=len(batches), acked_before_kill=len(acked), stored=rows)
    assert stored == sent and rows == len(sent)
    assert sum(r["accepted"] for r in again) == 0
    assert sum(r["duplicates"] for r in again) == len(events)
    assert db_problems(server.db_path) == []


def without_root_override() -> list[str]:
    """Return a wrapper that makes root obey file permissions (drops CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return []
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def assert_unavailable(response):
    assert response.status_code == 503, response.text[:300]
    assert response.headers["Retry-After"].isdigit()
    assert response.json()["error"]["retryable"] is True


def writable_again(db_path):
    # SQLite creates -wal and -shm with the database file's mode, so they were made read-only too.
    for path in (db_path, *db_path.parent.glob(db_path.name + "-*")):
        path.chmod(0o644)


@pytest.mark.slow
def test_a_database_turned_read_only_answers_503_with_retry_after_then_recovers(tmp_path):
    server = LiveServer(
        tmp_path / "ro.db", wrapper=without_root_override(), env={"TRACEDIFF_ANALYZER": "off"}
    ).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            assert (
                http.post("/api/v1/ingest", content=body(make_events(3, "before"))).status_code
                == 200
            )
            server.db_path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
            assert_unavailable(http.post("/api/v1/ingest", content=body(make_events(3, "during"))))
            assert http.get("/api/v1/traces").status_code == 200
            writable_again(server.db_path)
            assert (
                http.post("/api/v1/ingest", content=body(make_events(3, "after"))).status_code
                == 200
            )
    finally:
        writable_again(server.db_path)
        server.stop()
    stored, _ = stored_state(server.db_path)
    assert {e["event_id"] for e in make_events(3, "during")}.isdisjoint(stored)
    assert "Traceback" not in server.logs()


def fill_until_refused(http: httpx.Client, limit: int = 400) -> tuple[list[dict], httpx.Response]:
    """Post 64 KiB events until the server refuses one; return the acknowledged ones and the
    refusal."""
    acked = []
    for i in range(limit):
        event = {**make_events(1, f"fill{i}-")[0], "payload": {"blob": os.urandom(32768).hex()}}
        response = http.post("/api/v1/ingest", content=body([event]))
        if response.status_code != 200:
            return acked, response
        acked.append(event)
    raise AssertionError("the disk never filled")


def full_disk_case(tmp_path, how: str) -> tuple[LiveServer, object]:
    if how == "tmpfs":
        mount = tmp_path / "small"
        mount.mkdir()
        if (
            os.geteuid() != 0
            or subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True
            ).returncode
        ):
            pytest.skip("mounting a small tmpfs is not permitted here")
        # no headroom kept, so that SQLite itself meets the full disk
        return LiveServer(
            mount / "full.db", env={"TRACEDIFF_ANALYZER": "off", "TRACEDIFF_MIN_FREE_MB": "0"}
        ), mount
    # RLIMIT_FSIZE: the kernel refuses writes past 2 MiB with EFBIG (Python ignores SIGXFSZ).
    return LiveServer(
        tmp_path / "full.db",
        wrapper=["prlimit", f"--fsize={2 * 1024 * 1024}"],
        env={"TRACEDIFF_ANALYZER": "off"},
    ), None


@pytest.mark.parametrize("how", ["tmpfs", "fsize"])
@pytest.mark.slow
def test_a_full_disk_answers_503_with_retry_after_and_keeps_what_was_acknowledged(tmp_path, how):
    server, mount = full_disk_case(tmp_path, how)
    # the log must not be the file that fills up
    server.log_path = tmp_path / f"{how}.log"
    try:
        server.start()
        with httpx.Client(base_url=server.url, timeout=30) as http:
            acked, refusal = fill_until_refused(http)
            assert_unavailable(refusal)
            assert http.get("/api/v1/health").status_code == 200
            # the connection is not left inside a transaction
            _, second = fill_until_refused(http)
            assert_unavailable(second)
        server.stop()
        stored, _ = stored_state(server.db_path)
        assert {e["event_id"] for e in acked} <= stored
        assert "Traceback" not in server.logs()
    finally:
        server.stop()
        if mount:
            subprocess.run(["umount", str(mount)], check=False)


@pytest.mark.slow
def test_prune_deletes_old_traces_in_small_transactions_while_ingest_goes_on(live_server):
    old = make_events(6000, "old", traces=2000, ts="2020-01-01T00:00:00Z")
    with httpx.Client(base_url=live_server.url, timeout=60) as http:
        for batch in chunks(old, 1000):
            post_until_acknowledged(http, batch, Counter())
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    fresh = make_events(3000, "fresh", traces=300, ts=now)
    statuses, slowest = Counter(), [0.0]

    def ingest():
        with httpx.Client(base_url=live_server.url, timeout=60) as http:
            for batch in chunks(fresh, 10):
                started = time.monotonic()
                post_until_acknowledged(http, batch, statuses)
                slowest[0] = max(slowest[0], time.monotonic() - started)

    ingester = threading.Thread(target=ingest)
    ingester.start()
    tracediff = shutil.which("tracediff") or sys.executable
    command = [tracediff] if tracediff != sys.executable else [sys.executable, "-m", "webapp"]
    pruned = subprocess.run(
        [*command, "prune", "--days", "30", "--db", str(live_server.db_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    ingester.join(120)
    assert pruned.returncode == 0, pruned.stderr
    assert "deleted 2000 traces" in pruned.stdout
    FIGURES["prune"] = dict(
        pruned_traces=2000,
        ingest_statuses=dict(statuses),
        slowest_ingest_ms=round(slowest[0] * 1000),
    )
    assert set(statuses) == {200}
    stored, rows = stored_state(live_server.db_path)
    assert stored == {e["event_id"] for e in fresh} and rows == len(fresh)
    assert db_problems(live_server.db_path) == []


@pytest.fixture(autouse=True, scope="module")
def print_figures():
    yield
    for name, figures in FIGURES.items():
        print(f"\n[durability] {name}: {figures}")


@pytest.mark.slow
def test_a_database_locked_by_another_program_answers_503_within_the_request_budget(live_server):
    with httpx.Client(base_url=live_server.url, timeout=30) as http:
        assert (
            http.post("/api/v1/ingest", content=body(make_events(3, "before"))).status_code == 200
        )
        holder = sqlite3.connect(live_server.db_path, isolation_level=None)
        # another program keeps the write lock
        holder.execute("BEGIN IMMEDIATE")
        try:
            # writers queued behind the analyser share the budget, they do not add up
            for _ in range(3):
                began = time.monotonic()
                assert_unavailable(
                    http.post("/api/v1/ingest", content=body(make_events(3, "during")))
                )
                assert time.monotonic() - began < REQUEST_WAIT_MS / 1000 + 3
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert post_until_acknowledged(http, make_events(3, "after"), Counter())["accepted"] == 3


@pytest.mark.slow
def test_a_server_started_on_a_read_only_database_serves_reads_and_answers_writes_503(tmp_path):
    db_path = tmp_path / "started-ro.db"
    # kept open, so the -wal and -shm files stay and are made read-only too
    holder = Store.open(db_path)
    for path in (db_path, *tmp_path.glob("started-ro.db-*")):
        path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    server = LiveServer(
        db_path, wrapper=without_root_override(), env={"TRACEDIFF_ANALYZER": "off"}
    ).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            assert http.get("/api/v1/traces").status_code == 200
            assert_unavailable(http.post("/api/v1/ingest", content=body(make_events(3, "ro"))))
    finally:
        writable_again(db_path)
        server.stop()
        holder.close()
    assert "Traceback" not in server.logs()
