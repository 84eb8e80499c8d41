"""Commands that write, on a nearly full and on a full disk.

One line, exit 1, and what was done before."""

import contextlib
import os
import sqlite3

import pytest
from conftest import SAMPLES
from helpers import ndjson, order_call
from test_durability import body
from test_upkeep import MB, batch_of, fill_to_the_last_byte, free_bytes, small_disk, tracediff  # noqa: F401 (fixture)

from webapp.store import Store

WRITES = [
    ("reanalyze",),
    ("tools", "map", "findOrders", "limit=limit"),
    ("tools", "import", str(SAMPLES / "contracts" / "findOrders.json")),
    ("problems", "resolve", "TD-1"),
    ("problems", "archive", "TD-1"),
    ("alerts", "add", "http://127.0.0.1:9/tracediff"),
    ("alerts", "remove", "1"),
]


def one_error_line(answer) -> str:
    assert answer.returncode == 1, (answer.stdout, answer.stderr)
    assert "Traceback" not in answer.stderr and answer.stderr.strip().count("\n") == 0, (
        answer.stderr
    )
    assert answer.stderr.startswith("Error: ")
    return answer.stderr.strip()


@pytest.mark.slow
def test_ingest_on_a_nearly_full_disk_stops_in_one_line_saying_how_many_events_it_stored(
    small_disk, tmp_path
):
    # 1,000 events of ~5 KB: more than the disk has room for
    events = tmp_path / "events.ndjson"
    events.write_bytes(b"".join(body(batch_of(n, old=True)) for n in range(50)))
    database = small_disk / "stops.db"
    # leave about 3 MB
    with open(small_disk / "other-program.log", "wb") as other:
        other.write(b"\0" * (free_bytes(small_disk) - 3 * MB))
    # TRACEDIFF_MIN_FREE_MB defaults to 64
    headroom = tracediff("ingest", str(events), "--db", str(database))
    assert (
        "nearly full" in one_error_line(headroom)
        and "0 event(s) were stored before it stopped" in headroom.stderr
    )
    full = tracediff(
        "ingest",
        str(events),
        "--batch-size",
        "50",
        "--db",
        str(database),
        env={"TRACEDIFF_MIN_FREE_MB": "0"},
    )
    line = one_error_line(full)
    assert "database or disk is full" in line
    stored = int(line.split(" event(s) were stored before it stopped")[0].rsplit(" ", 1)[1])
    (small_disk / "other-program.log").unlink()
    store = Store(database, create=False)
    # what it says it stored is what is there
    assert 0 < stored < 1000 and store.count_events() == stored
    store.close()
    again = tracediff(
        "ingest",
        str(events),
        "--batch-size",
        "50",
        "--db",
        str(database),
        env={"TRACEDIFF_MIN_FREE_MB": "0"},
    )
    assert (
        again.returncode == 0 and f"accepted {1000 - stored}, duplicates {stored}" in again.stdout
    ), again.stderr


@pytest.mark.slow
def test_every_command_that_writes_says_in_one_line_that_the_disk_is_full(small_disk, tmp_path):
    database = small_disk / "full.db"
    calls = tmp_path / "calls.ndjson"
    calls.write_bytes(ndjson(*order_call(limit_sent="5")))
    env = {"TRACEDIFF_MIN_FREE_MB": "0", "TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
    # TD-1, to resolve
    assert tracediff("ingest", str(calls), "--db", str(database), env=env).returncode == 0
    assert (
        tracediff(
            "alerts", "add", "http://127.0.0.1:9/first", "--db", str(database), env=env
        ).returncode
        == 0
    )
    store = Store(database)
    fill_to_the_last_byte(small_disk, store)
    store.close()
    # a WAL file already grown takes small transactions in place: empty it (with room lent for the
    # checkpoint), then fill the disk again to the last byte
    os.truncate(small_disk / "other-program.log", 0)
    with sqlite3.connect(database) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    other = os.open(small_disk / "other-program.log", os.O_WRONLY | os.O_APPEND)
    # ENOSPC: not one byte left
    with contextlib.suppress(OSError):
        while os.write(other, b"x" * 4096):
            pass
    os.close(other)
    assert free_bytes(small_disk) < 64 * 1024
    for command in WRITES:
        line = one_error_line(tracediff(*command, "--db", str(database), env=env))
        assert "disk is full" in line and "Free some space" in line, (command, line)
    # with room again, they work
    os.unlink(small_disk / "other-program.log")
    for command in WRITES:
        answer = tracediff(*command, "--db", str(database), env=env)
        assert answer.returncode == 0, (command, answer.stderr)
