"""A real syslog-ng tails an NDJSON file into a running tracediff.

Every event arrives once, intact.

Runs the configuration that docs/shippers.md shows (tests/fixtures/syslog-ng.conf.tmpl), in the
foreground, against `tracediff serve`. Skipped where syslog-ng is not installed, except on CI.
"""

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import httpx
import orjson
import pytest
from helpers import envelope

from webapp.store import Store

TEMPLATE = Path(__file__).parent / "fixtures" / "syslog-ng.conf.tmpl"
SNAPSHOTS = ("arguments", "request", "response")
# Line lengths past syslog-ng's default log-msg-size (65,536), up to past batch-bytes (1 MiB).
LONG_LINES = {17: 65_537, 61: 100_000, 140: 262_144, 205: 70_000, 233: 1_200_000, 290: 65_600}
DEADLINE = 60.0


def syslog_ng_binary() -> str:
    """Return the syslog-ng executable; skip without it, but fail on CI, which must have it."""
    found = shutil.which(
        "syslog-ng", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin"])
    )
    if found:
        return found
    message = (
        "syslog-ng is not installed (Debian: apt-get install syslog-ng-core syslog-ng-mod-http)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run this test")
    pytest.skip(message)


def make_events(count: int = 300) -> list[dict]:
    """Return envelopes with explicit ids, one per (trace, call, snapshot), some with long lines."""
    events = []
    for i in range(count):
        payload = {
            "seq": i,
            "limit": i % 7,
            "ratio": i / 8,
            "paid": i % 2 == 0,
            "refunded": False,
            "note": None,
            "big": 123456789012 + i,
            "tags": [i, str(i), True, 1.5e-3],
            "text": 'café ✓ "quoted" back\\slash tab\t line\nbreak',
        }
        event = envelope(
            SNAPSHOTS[i % 3],
            payload,
            trace_id=f"5e5106{i // 30:026x}",
            call_id=f"call_{i // 3:03d}",
            event_id=f"syslog-ng-{i:04d}",
        )
        if i in LONG_LINES:
            pad = LONG_LINES[i] - len(orjson.dumps(event)) - len(',"blob":""')
            payload["blob"] = ("abcdefghij" * (pad // 10 + 1))[:pad]
            assert len(orjson.dumps(event)) == LONG_LINES[i]
        events.append(event)
    return events


def append(path: Path, events: list[dict], pause: float = 0.0) -> None:
    """Append events as NDJSON lines, flushing each so the tailer sees partial progress."""
    with path.open("ab") as out:
        for event in events:
            out.write(orjson.dumps(event) + b"\n")
            out.flush()
            time.sleep(pause)


class SyslogNg:
    """syslog-ng in the foreground, with its persist, pid and control files in one folder."""

    def __init__(self, binary: str, folder: Path, input_file: Path, url: str):
        self.binary, self.folder = binary, folder
        self.conf = folder / "syslog-ng.conf"
        self.conf.write_text(
            TEMPLATE.read_text().replace("{input_file}", str(input_file)).replace("{url}", url)
        )
        self.log_path = folder / "syslog-ng.log"
        self.process = None

    def start(self) -> "SyslogNg":
        command = [
            self.binary,
            "-F",
            "--no-caps",
            "--stderr",
            "-f",
            str(self.conf),
            "-R",
            str(self.folder / "persist"),
            "-p",
            str(self.folder / "pid"),
            "-c",
            str(self.folder / "ctl"),
        ]
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        return self

    def written(self) -> int:
        """Return how many messages the http destination has delivered in this run."""
        stats = subprocess.run(
            [self.binary + "-ctl", "stats", "-c", str(self.folder / "ctl")],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
        counters = [
            int(line.rsplit(";", 1)[1])
            for line in stats.splitlines()
            if line.startswith("dst.http;") and ";written;" in line
        ]
        assert counters, f"no http destination in syslog-ng-ctl stats:\n{stats}"
        return sum(counters)

    def settled_written(self, at_least: int, deadline: float) -> int:
        """Return the delivered count once it reaches `at_least` and holds still for a second."""
        last, since = self.written(), time.monotonic()
        while (last < at_least or time.monotonic() - since < 1.0) and time.monotonic() < deadline:
            time.sleep(0.2)
            current = self.written()
            if current != last:
                last, since = current, time.monotonic()
        return last

    def stop(self, signum: int = signal.SIGTERM) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signum)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)

    def assert_running(self) -> None:
        assert self.process.poll() is None, f"syslog-ng exited:\n{self.logs()}"

    def logs(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


@pytest.fixture
def syslog_ng(tmp_path, live_server):
    daemon = SyslogNg(
        syslog_ng_binary(), tmp_path, tmp_path / "events.ndjson", f"{live_server.url}/api/v1/ingest"
    )
    yield daemon
    daemon.stop()


def count_events(db_path: Path) -> int:
    store = Store.open(db_path, create=False)
    try:
        return store.count_events()
    finally:
        store.close()


def wait_for_events(db_path: Path, count: int, daemon: SyslogNg, deadline: float) -> int:
    """Poll the server's database until it holds `count` events or the deadline passes."""
    store = Store.open(db_path, create=False)
    try:
        while True:
            stored = store.count_events()
            if stored >= count or time.monotonic() > deadline:
                return stored
            daemon.assert_running()
            time.sleep(0.2)
    finally:
        store.close()


def assert_payloads_intact(url: str, events: list[dict]) -> None:
    """Check through the API that every event's payload is stored exactly as it was logged."""
    found = {}
    for trace_id in sorted({e["trace_id"] for e in events}):
        response = httpx.get(f"{url}/api/v1/traces/{trace_id}", timeout=30)
        assert response.status_code == 200, response.text
        for call in response.json()["calls"]:
            found.update((s["event_id"], s["payload"]) for s in call["snapshots"].values() if s)
    assert found.keys() == {e["event_id"] for e in events}
    for event in events:
        # Compare the serialised form: 1 == True and 5 == 5.0 in Python, but not in JSON.
        assert orjson.dumps(found[event["event_id"]], option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            event["payload"], option=orjson.OPT_SORT_KEYS
        ), event["event_id"]


@pytest.mark.slow
def test_syslog_ng_delivers_every_event_once_and_intact_across_a_kill_and_restart(
    syslog_ng, live_server, tmp_path
):
    started = time.monotonic()
    deadline = started + DEADLINE
    events, input_file = make_events(), tmp_path / "events.ndjson"

    # written before syslog-ng starts
    append(input_file, events[:100])
    syslog_ng.start()
    append(input_file, events[100:180], pause=0.01)
    assert wait_for_events(live_server.db_path, 100, syslog_ng, deadline) >= 100, syslog_ng.logs()
    append(input_file, events[180:210], pause=0.01)
    # SIGKILL, not SIGTERM: on SIGTERM syslog-ng first delivers all it has read, so nothing is in
    # flight.
    syslog_ng.stop(signal.SIGKILL)
    stored_at_restart = count_events(live_server.db_path)

    assert (tmp_path / "persist").exists()
    # written while syslog-ng is down
    append(input_file, events[210:240])
    syslog_ng.start()
    append(input_file, events[240:], pause=0.01)
    # an agent logging events twice: same ids, sent again
    relogged = events[5:245:12]
    append(input_file, relogged)
    lines = len(events) + len(relogged)
    stored = wait_for_events(live_server.db_path, len(events), syslog_ng, deadline)
    written_after_restart = syslog_ng.settled_written(lines - stored_at_restart, deadline)
    seconds = round(time.monotonic() - started, 1)

    store = Store(live_server.db_path, create=False)
    sent_ids = {e["event_id"] for e in events}
    assert store.event_ids() == sent_ids, (
        sorted(sent_ids - store.event_ids())[:10],
        syslog_ng.logs(),
    )
    assert stored == store.count_events() == len(events)
    # no line was split into broken halves
    assert store.quarantine() == []
    store.close()
    # The persist file made the second run resume where the first stopped, not from the top.
    assert written_after_restart < lines
    assert_payloads_intact(live_server.url, events)
    print(
        f"\nsyslog-ng: {len(events)} events in {lines} lines, {stored} stored, "
        f"{stored_at_restart} stored when killed, {written_after_restart} sent after restart "
        f"({written_after_restart - (lines - stored_at_restart)} re-sent), {seconds} s"
    )


@pytest.mark.slow
def test_after_an_outage_syslog_ng_delivers_the_backlog_within_seconds_thanks_to_time_reopen(
    tmp_path,
):
    """tracediff is down while events are logged: with time-reopen(2) the backlog arrives within
    seconds of tracediff coming back (syslog-ng's default of 60 s held it back a minute)."""
    from conftest import LiveServer, free_port

    port = free_port()
    events, input_file = make_events(120), tmp_path / "events.ndjson"
    daemon = SyslogNg(
        syslog_ng_binary(), tmp_path, input_file, f"http://127.0.0.1:{port}/api/v1/ingest"
    )
    server = LiveServer(tmp_path / "outage.db")
    try:
        daemon.start()
        append(input_file, events[:60])
        # syslog-ng has tried and failed: nothing listens on the port
        time.sleep(3)
        append(input_file, events[60:])
        server.start(port=port)
        back = time.monotonic()
        stored = wait_for_events(server.db_path, len(events), daemon, back + 30)
        waited = time.monotonic() - back
    finally:
        daemon.stop()
        server.stop()
    assert stored == len(events), daemon.logs()
    print(
        f"\nsyslog-ng backlog of {len(events)} events stored {waited:.1f} s after tracediff came "
        "back"
    )
    assert waited < 12
