"""Hostile contracts and crowds against a real server.

The OWASP ReDoS list's catastrophic patterns arrive by import (an OpenAPI document, an MCP tools
list) and by `PUT`, then calls that trigger them by native ingest, while a small victim (its own
token, its own tool) posts and health is probed. Before patterns ran in RE2, one such call held a
worker's GIL for hours: workers were killed every 30 to 60 s, and health and the victim went
unanswered.

Thirty confirms and three adopts on one tool at once, on several workers and threads: each read the
contract and wrote it back, and 26 to 28 pairs answered 200 were lost. Each is now read and written
as the contract's one writer, on SQLite and PostgreSQL."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import orjson
import pytest
from conftest import LiveServer
from evil_patterns import EVIL, UNRUNNABLE, arguments_with, contract_with

from webapp.store import Store

ADMIN = "ops-secret-0123456789abcdef"
VICTIM = "victim-secret-0123456789abcdef"
TOKENS = {"TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}", "TRACEDIFF_INGEST_TOKENS": f"victim:{VICTIM}"}
# The bound for the victim's posts and health, kept: each answers within it, every time
ANSWER_SECONDS = 1.0
# seconds for every call to be analysed: generous, for a loaded machine
ANALYSED_WITHIN = 180
DOORS = ("api", "mcp", "put")


def _operation(name: str, pattern: str) -> dict:
    """Return an OpenAPI operation holding the pattern in a parameter, the body and the response."""
    text = {"type": "string", "pattern": pattern}
    body = {"type": "object", "properties": {"tags": {"type": "array", "items": text}}}
    answer = {"schema": {"type": "object", "properties": {"id": text}}}
    return {
        "operationId": f"api_{name}",
        "parameters": [{"name": "q", "in": "query", "schema": text}],
        "requestBody": {"content": {"application/json": {"schema": body}}},
        "responses": {"200": {"description": "ok", "content": {"application/json": answer}}},
    }


def _openapi(cases) -> dict:
    paths = {f"/{name}": {"post": _operation(name, pattern)} for name, pattern, _ in cases}
    return {"openapi": "3.0.3", "info": {"title": "evil", "version": "1"}, "paths": paths}


def _call(tool: str, trace: str, arguments: dict, request: dict, response: dict) -> bytes:
    """Return the NDJSON of one call's three snapshots."""
    http = {"method": "POST", "url": "https://api.example.com/x"}
    events = [
        {"snapshot": "arguments", "payload": arguments},
        {"snapshot": "request", "payload": request, "http": http},
        {"snapshot": "response", "payload": response, "http": {"status_code": 200}},
    ]
    head = {"trace_id": trace, "call_id": "c1", "tool": tool}
    return b"".join(orjson.dumps({**head, **event}) + b"\n" for event in events)


class Probe(threading.Thread):
    """Send one request every `every` seconds until stopped, keeping each answer's status and
    seconds."""

    def __init__(self, send, every: float = 0.1):
        super().__init__(daemon=True)
        self.send, self.every = send, every
        self.answers: list[tuple[int, float]] = []
        self.stopped = threading.Event()

    def run(self):
        with httpx.Client(timeout=30) as client:
            while not self.stopped.is_set():
                began = time.monotonic()
                try:
                    status = self.send(client, len(self.answers)).status_code
                except httpx.HTTPError:
                    status = 0
                self.answers.append((status, time.monotonic() - began))
                self.stopped.wait(self.every)

    def stop(self) -> list[tuple[int, float]]:
        self.stopped.set()
        self.join(60)
        return self.answers


def _analysed(db_path, traces) -> dict:
    """Return {trace_id: stored analysis} of the calls analysed so far, read as stored."""
    store = Store.open(db_path)
    try:
        found = {trace: store.call_analysis(trace, "c1") for trace in traces}
    finally:
        store.close()
    return {trace: analysis for trace, analysis in found.items() if analysis is not None}


def _wait_analysed(db_path, traces, deadline: float) -> None:
    while time.monotonic() < deadline and len(_analysed(db_path, traces)) < len(traces):
        time.sleep(0.5)


def _mcp_tool(name: str, pattern: str) -> dict:
    return {"name": name, "inputSchema": contract_with(pattern)["arguments_schema"]}


def _import_and_put(url: str, admin: dict) -> None:
    """Bring every pattern in by each door; the unrunnable ones are told, the others run."""
    document = orjson.dumps(_openapi(EVIL + UNRUNNABLE))
    answer = httpx.post(url + "/api/v1/tools/import", content=document, headers=admin)
    assert answer.status_code == 200, answer.text
    warned = answer.json()["warnings"]
    assert sorted(warned) == sorted(f"api_{name}" for name, _, _ in UNRUNNABLE)
    # the parameter, the body and the response
    assert all(len(warnings) == 3 for warnings in warned.values())
    tools = [_mcp_tool(f"mcp_{name}", pattern) for name, pattern, _ in EVIL]
    body = orjson.dumps({"tools": tools})
    answer = httpx.post(url + "/api/v1/tools/import", content=body, headers=admin)
    assert answer.status_code == 200 and "warnings" not in answer.json(), answer.text
    for case in EVIL + UNRUNNABLE:
        name, pattern, _ = case
        where = f"{url}/api/v1/tools/put_{name}"
        answer = httpx.put(where, json=contract_with(pattern), headers=admin)
        assert answer.status_code == 200, answer.text
        assert len(answer.json().get("warnings", [])) == (3 if case in UNRUNNABLE else 0)


def _attack(url: str, admin: dict) -> dict:
    """Post two calls per pattern and door that trigger it; return {trace_id: (door, name)}."""
    attack = {}
    for round_ in range(2):
        for i, (name, _, value) in enumerate(EVIL):
            for d, door in enumerate(DOORS):
                trace = f"{0xA0000 + round_ * 1000 + i * 10 + d:032x}"
                attack[trace] = (door, name)
                arguments = arguments_with(value) if door != "api" else {"q": value}
                request = {"tags": [value, value]} if door == "api" else arguments_with(value)
                body = _call(f"{door}_{name}", trace, arguments, request, {"id": value})
                answer = httpx.post(url + "/api/v1/ingest", content=body, headers=admin, timeout=30)
                assert answer.status_code == 200, answer.text
    return attack


def _assert_refused(result: dict, door: str, value: str) -> None:
    """Assert the call was analysed whole and its evil values refused where the contract says."""
    assert "incomplete" not in result, result.get("incomplete")
    validation = result["validation"].items()
    refused = {(stage, e["path"]) for stage, v in validation for e in v["errors"]}
    if door == "api":
        expected = {("request", "/tags/0"), ("request", "/tags/1"), ("response", "/id")}
    else:
        expected = {("arguments", path) for path in ("/q", "/tags/1", f"/labels/{value}")}
    assert expected <= refused, (door, refused)


@pytest.mark.slow
def test_catastrophic_patterns_from_every_door_stop_neither_the_server_nor_a_victim(make_server):
    server = make_server(env=TOKENS)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    victim_traces = []

    def victim_post(client, n):
        victim_traces.append(f"{0xF00000 + n:032x}")
        body = _call("victimTool", victim_traces[-1], {"limit": n}, {"limit": n}, {"items": []})
        token = {"Authorization": f"Bearer {VICTIM}"}
        return client.post(server.url + "/api/v1/ingest", content=body, headers=token)

    health = Probe(lambda client, n: client.get(server.url + "/api/v1/health"))
    victim = Probe(victim_post)
    health.start()
    victim.start()
    _import_and_put(server.url, admin)
    attack = _attack(server.url, admin)
    deadline = time.monotonic() + ANALYSED_WITHIN
    _wait_analysed(server.db_path, attack, deadline)
    posted = list(victim_traces)
    _wait_analysed(server.db_path, posted, deadline)
    health_answers, victim_answers = health.stop(), victim.stop()

    analysed = _analysed(server.db_path, attack)
    assert len(analysed) == len(attack), f"{len(attack) - len(analysed)} calls not analysed"
    values = {name: value for name, _, value in EVIL}
    for trace, (door, name) in attack.items():
        _assert_refused(analysed[trace], door, values[name])
    assert len(_analysed(server.db_path, posted)) == len(posted) > 10
    assert all(status == 200 for status, _ in victim_answers), victim_answers
    assert all(status == 200 for status, _ in health_answers)
    victim_slowest = max(seconds for _, seconds in victim_answers)
    health_slowest = max(seconds for _, seconds in health_answers)
    print(f"slowest of {len(victim_answers)} victim posts {victim_slowest:.3f} s")
    print(f"slowest of {len(health_answers)} health answers {health_slowest:.3f} s")
    assert victim_slowest < ANSWER_SECONDS and health_slowest < ANSWER_SECONDS
    assert "WORKER TIMEOUT" not in server.logs()


ADOPTED = ("arguments", "request", "response")
PAIRS = [(f"/field{i}", f"/sent{i}") for i in range(30)]


def _wait_observed(url: str, tool: str) -> None:
    """Wait until the tool's traffic was learnt at every stage an adopt takes."""
    deadline = time.monotonic() + ANALYSED_WITHIN
    while time.monotonic() < deadline:
        shapes = httpx.get(f"{url}/api/v1/tools/{tool}/observed").json()
        if all(shapes[stage]["calls"] for stage in ADOPTED):
            return
        time.sleep(0.3)
    raise AssertionError(f"no observed shapes for {tool}: {shapes}")


def _changes(url: str, tool: str) -> list:
    """Return the 33 requests (a confirm per pair, an adopt per stage), as functions of a client."""
    confirm = f"{url}/api/v1/tools/{tool}/mappings/confirm"
    adopt = f"{url}/api/v1/tools/{tool}/observed/adopt"
    pairs = [{"arguments": a, "request": r} for a, r in PAIRS]
    sends = [lambda client, body=body: client.post(confirm, json=body) for body in pairs]
    adopts = [lambda client, s=stage: client.post(adopt, json={"stage": s}) for stage in ADOPTED]
    return sends + adopts


@pytest.mark.slow
def test_thirty_confirms_and_three_adopts_at_once_are_all_kept(db_path, tmp_path):
    server = LiveServer(db_path, log_path=tmp_path / "server.log", workers=3).start()
    try:
        trace = f"{0xC0:032x}"
        body = _call("bookTable", trace, {"seats": 2}, {"quantity": 2}, {"booking": {"guests": 2}})
        assert httpx.post(server.url + "/api/v1/ingest", content=body).status_code == 200
        _wait_observed(server.url, "bookTable")
        sends = _changes(server.url, "bookTable")
        start = threading.Barrier(len(sends))

        def send(change):
            with httpx.Client(timeout=60) as client:
                start.wait()
                return change(client).status_code

        with ThreadPoolExecutor(len(sends)) as pool:
            statuses = list(pool.map(send, sends))
        contract = httpx.get(server.url + "/api/v1/tools/bookTable").json()
    finally:
        server.stop()
    assert set(statuses) <= {200, 409, 412}, statuses
    mapping = {(m["arguments"], m["request"]) for m in contract.get("mapping", [])}
    kept = [pair for pair, status in zip(PAIRS, statuses) if status == 200]
    assert sorted(set(kept) - mapping) == [], f"{len(set(kept) - mapping)} confirmed pairs lost"
    adopted = [stage for stage, status in zip(ADOPTED, statuses[len(PAIRS) :]) if status == 200]
    assert [stage for stage in adopted if f"{stage}_schema" not in contract] == []
    # nobody had to lose: each change waited its turn
    assert statuses.count(200) == 33


@pytest.mark.slow
def test_a_put_based_on_an_old_version_is_refused_with_the_current_one(live_server):
    url = live_server.url + "/api/v1/tools/bookTable"
    first = httpx.put(url, json={"arguments_schema": {"type": "object"}})
    version = first.headers["ETag"]
    assert httpx.get(url).headers["ETag"] == version
    confirm = {"arguments": "/seats", "request": "/quantity"}
    assert httpx.post(url + "/mappings/confirm", json=confirm).status_code == 200
    stale = httpx.put(url, json={"arguments_schema": {}}, headers={"If-Match": version})
    assert stale.status_code == 412
    assert stale.json()["error"]["code"] == "contract_changed"
    current = httpx.get(url)
    assert stale.headers["ETag"] == current.headers["ETag"] != version
    assert current.headers["ETag"].strip('"') in stale.json()["error"]["message"]
    # the confirm made meanwhile is kept
    assert current.json()["mapping"] == [confirm]
    again = {"If-Match": current.headers["ETag"]}
    fresh = httpx.put(url, json={"arguments_schema": {}}, headers=again)
    assert fresh.status_code == 200 and fresh.headers["ETag"] != current.headers["ETag"]
