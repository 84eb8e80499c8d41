"""Ingest is never starved by catch-up.

The analyser's batches stop after a bounded time of work, and a request waiting for a write turn
goes before a background writer."""

import fcntl
import gzip
import os
import sqlite3
import threading
import time

import httpx
import pytest
from helpers import envelope, ndjson

from webapp import pipeline
from webapp.store.sqlite.turns import WriterTurns


def wide_call(n: int, keys: int) -> list[dict]:
    fields = {f"field{k}": f"value_{n}_{k}" for k in range(keys)}
    trace_id = f"{n + 1:032x}"
    request = {"http": {"method": "POST", "url": "https://api.example.com/exports"}}
    return [
        envelope("arguments", fields, trace_id, tool="wideExport"),
        envelope(
            "request",
            {k.upper(): v for k, v in fields.items()},
            trace_id,
            tool="wideExport",
            **request,
        ),
        envelope("response", {"id": n}, trace_id, tool="wideExport", http={"status_code": 200}),
    ]


def test_a_batch_past_its_time_saves_what_it_did_and_releases_the_rest(client, store):
    assert (
        client.post(
            "/api/v1/ingest", data=ndjson(*[e for n in range(6) for e in wide_call(n, 50)])
        ).status_code
        == 200
    )
    # one call at least, then the time is up
    assert pipeline.analyze_pending(store, limit=6, seconds=0) == 1
    waiting = store.db.execute(
        "SELECT count(*) FROM calls WHERE analyzed_version < version"
    ).fetchone()[0]
    claimed = store.db.execute(
        "SELECT count(*) FROM calls WHERE claimed_at IS NOT NULL"
    ).fetchone()[0]
    # the five it did not reach are free for the next batch at once
    assert (waiting, claimed) == (5, 0)
    assert pipeline.analyze_pending(store, limit=6) == 5


def test_a_request_waiting_for_its_turn_goes_before_a_background_writer(tmp_path):
    path = tmp_path / "turns.db"
    holder, request, background = (WriterTurns.beside(path) for _ in range(3))
    holder.take(1)
    order = []

    def take(turns, name, **options):
        turns.take(5, **options)
        order.append(name)
        time.sleep(0.05)
        turns.give_back()

    waiting = threading.Thread(target=take, args=(request, "request"))
    waiting.start()
    # the request waits first ...
    deadline = time.monotonic() + 30
    while not request_waits(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert request_waits(path), "the request never marked itself waiting"
    polite = threading.Thread(
        target=take, args=(background, "background"), kwargs={"background": True}
    )
    polite.start()
    time.sleep(0.05)
    # ... and both try from here on
    holder.give_back()
    waiting.join()
    polite.join()
    assert order == ["request", "background"]
    for turns in (holder, request, background):
        turns.close()


def request_waits(path) -> bool:
    """Say whether a request holds its mark on `<database>.waiting`.

    Read as a background writer reads it."""
    fd = os.open(f"{path}.waiting", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_background_writer_is_not_starved_by_a_stream_of_requests(tmp_path, monkeypatch):
    from webapp.store.sqlite import turns as turns_module

    monkeypatch.setattr(turns_module, "YIELD_SECONDS", 0.1)
    path = tmp_path / "turns.db"
    request, background = WriterTurns.beside(path), WriterTurns.beside(path)
    # a request seems to wait forever
    fcntl.flock(request.waiting_fd, fcntl.LOCK_SH)
    began = time.monotonic()
    background.take(5, background=True)
    assert 0.1 <= time.monotonic() - began < 2
    background.give_back()
    request.close()
    background.close()


def waiting_calls(path) -> int:
    with sqlite3.connect(path, timeout=30) as conn:
        return conn.execute(
            "SELECT count(*) FROM calls WHERE analyzed_version < version"
        ).fetchone()[0]


@pytest.mark.slow
def test_small_ingest_posts_get_no_5xx_while_a_wide_backlog_drains(make_server):
    server = make_server()
    # 1,200 events, ~33 MB
    body = gzip.compress(ndjson(*[e for n in range(400) for e in wide_call(n, 560)]))
    answer = httpx.post(
        server.url + "/api/v1/ingest",
        content=body,
        headers={"Content-Encoding": "gzip"},
        timeout=120,
    )
    assert answer.status_code == 200 and answer.json()["accepted"] == 1200
    statuses, waits, n = [], [], 0
    began = time.monotonic()
    # one client made before the clock starts (a new one took 0.1-0.75 s of CPU on a loaded
    # machine); each post on a new connection, as a shipper's may come
    with httpx.Client(base_url=server.url, timeout=30) as http:
        while time.monotonic() - began < 25:
            n += 1
            small = ndjson(*[envelope(payload={"limit": n}, trace_id=f"{10_000 + n:032x}")])
            sent = time.monotonic()
            statuses.append(
                http.post(
                    "/api/v1/ingest", content=small, headers={"Connection": "close"}
                ).status_code
            )
            waits.append(time.monotonic() - sent)
            time.sleep(0.1)
    # a post that waited 5 s for the writer's turn gives up with a 503 (web/db.py REQUEST_WAIT_MS):
    # no 5xx is the contract; how long they took is bench/'s to measure, not a bound here (the max
    # of ~200 posts took 3.1-5.0 s with the machine at load 11-20)
    assert statuses and all(200 <= status < 300 for status in statuses), (
        statuses,
        f"the longest small post took {max(waits):.1f} s",
    )
    assert waiting_calls(server.db_path) < 400 + n, "the backlog drained meanwhile"
