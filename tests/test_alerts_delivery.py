"""The issue's promise end to end.

A real server, a real receiver that checks every signature and fails at first, the server SIGKILLed
while a delivery is in flight: every alert arrives, none twice under different ids, none for a
backfill or a re-analysis."""

import subprocess
import sys
import time

import httpx
import pytest
from helpers import ndjson
from problem_helpers import CONTRACT, at, call, trace
from receiver import Receiver

from webapp.store.alerts import LEASE_S

pytestmark = pytest.mark.slow
BAD = b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'


def wait_until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_every_alert_arrives_once_per_id_through_a_sigkill_mid_delivery(make_server):
    receiver = Receiver(fail_first=1)
    server = make_server(env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"})
    try:
        assert httpx.put(server.url + "/api/v1/tools/findOrders", json=CONTRACT).status_code == 200
        every = ["new", "regressed", "escalating", "rejected_events"]
        rule = httpx.post(
            server.url + "/api/v1/alerts",
            json={"url": receiver.url, "on": every, "min_interval_s": 0},
        ).json()
        receiver.secret = rule["secret"]
        old = [
            {**e, "tool": "legacyTool"}
            for e in call(trace(1), at(-3 * 24 * 60)) + call(trace(2), at(-3 * 24 * 60))
        ]
        # a backfill: opens a problem quietly
        httpx.post(server.url + "/api/v1/ingest", content=ndjson(*old))
        assert wait_until(lambda: httpx.get(server.url + "/api/v1/problems").json()["problems"], 30)

        # the first accepted delivery gets no answer before the server dies
        receiver.hold_s = 8.0
        httpx.post(server.url + "/api/v1/ingest", content=ndjson(*call(trace(3), at(0))) + BAD)
        assert receiver.holding.wait(60), "no delivery reached the receiver"
        server.kill()
        server.start()

        # the message cut off mid-request comes again, with the id it had, as soon as the server is
        # back: not after its lease (LEASE_S), which only guards against another live sender
        assert wait_until(lambda: len(receiver.accepted) >= 3, LEASE_S / 2), receiver.attempts
        subprocess.run(
            [sys.executable, "-m", "webapp", "reanalyze", "--db", str(server.db_path)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        # anything the re-analysis wrongly wrote would be sent by now
        time.sleep(3)
    finally:
        receiver.close()
    ids: dict[tuple, set] = {}
    for headers, body in receiver.accepted:
        ids.setdefault((body["type"], body["data"].get("tool")), set()).add(headers["webhook-id"])
    # none for legacyTool
    assert ids.keys() == {("problem.new", "findOrders"), ("ingest.rejected", None)}
    assert all(len(each) == 1 for each in ids.values()), ids
    # one of them twice, under its one id
    assert len(receiver.accepted) == 3
