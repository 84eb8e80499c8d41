"""Summaries: a re-analysis or a burst sends one message per rule.

A burst of new problems; each message holds the problems that rule wants."""

import subprocess
import sys
import time

import httpx
import pytest
from conftest import LiveServer
from helpers import ndjson
from problem_helpers import CONTRACT, at, call, send, trace
from receiver import Receiver

from webapp import pipeline
from webapp.ops.sender import deliver_due
from webapp.store import Store

STRICTER = {
    **CONTRACT,
    "request_schema": {
        "type": "object",
        "required": ["limit", "status", "region"],
        "properties": {
            "limit": {"type": "integer"},
            "status": {"type": "string"},
            "region": {"type": "string"},
        },
    },
}


def wait_until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def settled(store) -> bool:
    """Say whether no event waits for projection and no call for analysis, at two looks half a
    second apart (one look can fall between a projection's commit and the count of calls it
    made)."""

    def idle():
        backlog = store.backlog()
        return not backlog["calls_waiting"] and not backlog["events_waiting"]

    return idle() and not time.sleep(0.5) and idle()


@pytest.fixture
def app(alerting_app):
    # rules may point at the local receiver
    return alerting_app


def add_rule(client, receiver, **fields) -> dict:
    rule = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": ["new", "regressed"], "min_interval_s": 0, **fields},
    ).get_json()
    receiver.secret = rule["secret"]
    return rule


def tools_calls(tools: int, per_tool: int, broken: bool, first: int = 1) -> list:
    """`per_tool` calls of each of `tools` tools, tool after tool, in the last hour."""
    events = []
    for t in range(tools):
        for n in range(per_tool):
            number = first + t * per_tool + n
            events += [
                {**e, "tool": f"tool{t}"}
                for e in call(trace(number), at(-50 + number * 0.001), broken=broken)
            ]
    return events


# A call of each tool: the re-analysis takes three batches, and each opens problems of its own. The
# quick set sees three batches of 20 (45 tools), the run marked slow the analyser's own 200 (420).
@pytest.mark.parametrize(
    "tools, batch",
    [
        pytest.param(45, 20, id="quick"),
        pytest.param(420, 200, id="thorough", marks=pytest.mark.slow),
    ],
)
def test_a_reanalysis_of_many_batches_sends_one_summary(client, app, store, receiver, tools, batch):
    rule = add_rule(client, receiver)
    for t in range(tools):
        store.put_tool(f"tool{t}", CONTRACT)
    send(client, *tools_calls(tools, 1, broken=False))
    pipeline.catch_up(store)
    assert client.get("/api/v1/problems").get_json()["problems"] == []
    for t in range(tools):
        # each tool's calls now lack a region
        store.put_tool(f"tool{t}", STRICTER)
    store.invalidate_tool(None)
    store.project_all()
    batches = []
    while analysed := pipeline.analyze_pending(store, limit=batch):
        batches.append(analysed)
    assert len(batches) == 3 and sum(batches) == tools
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["data"]["summary"] and body["data"]["reanalysis"] and body["data"]["count"] == tools
    listed = {p["id"] for p in client.get("/api/v1/problems?limit=500").get_json()["problems"]}
    assert (
        len(listed) == tools
        and len(body["data"]["problems"]) == 20
        and {p["id"] for p in body["data"]["problems"]} <= listed
    )
    assert len(client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["messages"]) == 1


def test_a_burst_that_the_analyser_takes_in_several_batches_sends_one_summary(
    client, app, store, receiver
):
    add_rule(client, receiver)
    # twelve tools, each with its own new mapping bug
    send(client, *tools_calls(12, 1, broken=True))
    store.project_all()
    # four batches of three new problems
    while pipeline.analyze_pending(store, limit=3):
        pass
    assert len(client.get("/api/v1/problems").get_json()["problems"]) == 12
    assert deliver_due(store, app.config) == 6
    singles = [body for _, body in receiver.accepted if not body["data"].get("summary")]
    [summary] = [body for _, body in receiver.accepted if body["data"].get("summary")]
    assert len(singles) == 5 and summary["data"]["count"] == 7 and not summary["data"]["reanalysis"]
    assert {b["data"]["id"] for b in singles} | {p["id"] for p in summary["data"]["problems"]} == {
        p["id"] for p in client.get("/api/v1/problems").get_json()["problems"]
    }


def test_a_summary_waits_for_the_rules_interval_and_loses_nothing(client, app, store, receiver):
    rule = add_rule(client, receiver, min_interval_s=600)
    send(client, *tools_calls(6, 1, broken=True))
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 1 and receiver.accepted[0][1]["data"]["count"] == 6
    send(
        client,
        *[{**e, "tool": f"other{t}"} for t in range(7) for e in call(trace(200 + t), at(-1))],
    )
    pipeline.catch_up(store)
    # held until ten minutes after the first summary, not dropped
    assert deliver_due(store, app.config) == 0
    [waiting] = [
        m
        for m in client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["messages"]
        if m["state"] == "pending"
    ]
    assert waiting["subject"] == "summary"
    # as a sender will, ten minutes on
    [held] = store.claim_due("9999", "9999", summaries_before="9999")
    assert held["id"] == waiting["id"] and held["data"]["count"] == 7
    assert {p["tool"] for p in held["data"]["problems"]} == {f"other{t}" for t in range(7)}


def test_a_rule_filtered_by_tool_or_kind_gets_a_summary_of_its_own_problems(
    client, app, store, receiver
):
    by_tool, other_tool, by_kind, every = receiver, Receiver(), Receiver(), Receiver()
    try:
        add_rule(client, by_tool, tool="tool3")
        add_rule(client, other_tool, tool="noSuchTool")
        add_rule(client, by_kind, kind="dropped")
        add_rule(client, every, min_severity="warning")
        # eight new problems at once: a summary
        send(client, *tools_calls(8, 1, broken=True))
        pipeline.catch_up(store)
        deliver_due(store, app.config)
        [(_, mine)] = by_tool.accepted
        assert (
            mine["data"]["summary"]
            and mine["data"]["count"] == 1
            and mine["data"]["tool"] == "tool3"
        )
        assert [p["tool"] for p in mine["data"]["problems"]] == ["tool3"]
        # no problem of theirs: nothing at all
        assert not other_tool.attempts and not by_kind.attempts
        [(_, all_of_them)] = every.accepted
        assert all_of_them["data"]["count"] == 8 and all_of_them["data"]["tool"] is None
    finally:
        for extra in (other_tool, by_kind, every):
            extra.close()


@pytest.mark.slow
def test_tracediff_reanalyze_beside_a_running_server_sends_one_summary(db_path, tmp_path):
    """The CLI and the server's analyser re-analyse 420 calls in batches of their own, in two
    processes; the server is SIGKILLed and started again before the summary's wait is over: the
    receiver, which checks every signature, gets one summary of every problem the run opened."""
    receiver = Receiver()
    server = LiveServer(
        db_path,
        log_path=tmp_path / "server.log",
        env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1", "TRACEDIFF_ALERT_SUMMARY_WAIT": "600"},
    )
    store = Store.open(db_path)
    tools = 420
    try:
        server.start()
        rule = httpx.post(
            server.url + "/api/v1/alerts",
            json={"url": receiver.url, "on": ["new"], "min_interval_s": 0},
        ).json()
        receiver.secret = rule["secret"]
        for t in range(tools):
            store.put_tool(f"tool{t}", CONTRACT)
        assert (
            httpx.post(
                server.url + "/api/v1/ingest", content=ndjson(*tools_calls(tools, 1, broken=False))
            ).status_code
            == 200
        )
        # every call analysed once, as news
        assert wait_until(lambda: settled(store), 60)
        for t in range(tools):
            # the server's analyser starts on them at once
            store.put_tool(f"tool{t}", STRICTER)
        done = subprocess.run(
            [sys.executable, "-m", "webapp", "reanalyze", "--db", str(db_path)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert wait_until(lambda: settled(store), 60)
        # the summary waits
        assert not receiver.attempts, (
            receiver.attempts[0][1][:300],
            httpx.get(server.url + "/api/v1/problems/TD-1").text[-3000:],
            server.logs()[-3000:],
        )
        server.kill()
        server.env["TRACEDIFF_ALERT_SUMMARY_WAIT"] = "1"
        server.start()
        assert wait_until(lambda: receiver.accepted, 60), server.logs()[-2000:]
        # a second summary would be on its way by now
        time.sleep(3)
    finally:
        store.close()
        server.stop()
        receiver.close()
    [(_, body)] = receiver.accepted
    assert body["data"]["summary"] and body["data"]["reanalysis"] and body["data"]["count"] == tools
