"""A scripted agent loop over MCP.

A real MCP client whose "model" is a fixed script, against a real server holding a fresh database
with one planted bug. From list_problems alone it finds the argument and the request field of the
bug, reads the evidence (get_problem, get_trace), writes the fix, and check_call passes on the
corrected call."""

import copy
import time

import anyio
import httpx
import pytest
from conftest import LiveServer
from mcp_helpers import mcp_client

from webapp.common.pointers import resolve, tokens

pytestmark = pytest.mark.slow
READ, ADMIN = "rd-0a1b2c3d4e", "adm-5f6e7d8c9b"
TOOL = "searchOrders"
CONTRACT = {
    "description": "Search a customer's orders.",
    "arguments_schema": {
        "type": "object",
        "properties": {
            "customerEmail": {"type": "string"},
            "status": {"type": "string"},
            "limit": {"type": "integer"},
        },
    },
    "request_schema": {
        "type": "object",
        "properties": {
            "customer_email": {"type": "string"},
            "status": {"type": "string"},
            "page_size": {"type": "integer"},
        },
    },
}
# 1.1.0's request builder writes the page size as a string
PLANTED = ("/limit", "/page_size")


def calls(release: str, count: int, offset: int, bug: bool) -> list[dict]:
    """Return the events of `count` searchOrders calls of a release; with `bug`, page_size goes out
    as text."""
    events = []
    for n in range(offset, offset + count):
        arguments = {
            "customerEmail": f"c{n}@example.com",
            "status": ("paid", "open")[n % 2],
            "limit": 5 + n % 20,
        }
        request = {"customer_email": arguments["customerEmail"], "status": arguments["status"]}
        request["page_size"] = str(arguments["limit"]) if bug else arguments["limit"]
        common = {
            "trace_id": f"{n:032x}",
            "call_id": "call_01",
            "tool": TOOL,
            "release": release,
            "ts": f"2026-11-20T{9 + n // 60:02d}:{n % 60:02d}:00Z",
        }
        events += [
            {**common, "snapshot": "arguments", "payload": arguments},
            {
                **common,
                "snapshot": "request",
                "payload": request,
                "http": {"method": "POST", "url": "/orders"},
            },
            {
                **common,
                "snapshot": "response",
                "payload": {"orders": [], "total": 0},
                "http": {"status_code": 200},
            },
        ]
    return events


@pytest.fixture
def planted(db_path, tmp_path):
    """A server on a fresh database: the tool's contract, 30 clean calls of 1.0.0, then 12 of 1.1.0
    with the bug."""
    env = {"TRACEDIFF_READ_TOKENS": f"agent:{READ}", "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}"}
    live = LiveServer(db_path, env=env, log_path=tmp_path / "live.log").start()
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert (
        httpx.put(f"{live.url}/api/v1/tools/{TOOL}", json=CONTRACT, headers=admin).status_code
        == 200
    )
    for events in (calls("1.0.0", 30, 0, bug=False), calls("1.1.0", 12, 30, bug=True)):
        assert httpx.post(
            f"{live.url}/api/v1/ingest", json=events, headers=admin, timeout=30
        ).json()["accepted"]
    # the background analyser groups the findings into problems
    deadline = time.monotonic() + 120
    while not httpx.get(f"{live.url}/api/v1/problems", headers=admin).json()["problems"]:
        assert time.monotonic() < deadline, live.logs()[-2000:]
        time.sleep(0.5)
    yield live
    live.stop()


def set_at(document, pointer: str, value):
    """Return a copy of a JSON document with the value at a JSON Pointer set."""
    fixed = copy.deepcopy(document)
    *parents, key = tokens(pointer)
    node = fixed
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    node[int(key) if isinstance(node, list) else key] = value
    return fixed


async def scripted_agent(client) -> dict:
    """The "model": one fixed line of reasoning, reading only what the tools answer."""
    found = (await client.call_tool("list_problems", {})).structured_content["problems"]
    problem = next(
        p for p in found if p["severity"] in ("error", "warning") and p["left"] and p["right"]
    )
    # what broke, from the list alone
    argument, field = problem["left"]["path"], problem["right"]["path"]
    evidence = (await client.call_tool("get_problem", {"id": problem["id"]})).structured_content
    latest = evidence["examples"]["latest"]
    trace = await client.call_tool(
        "get_trace", {"trace_id": latest["trace_id"], "call_id": latest["call_id"]}
    )
    snapshots = trace.structured_content["calls"][0]["snapshots"]
    arguments, request = snapshots["arguments"]["payload"], snapshots["request"]["payload"]
    # the fix: the request builder writes the argument's value as it is into the request field
    fixed = set_at(request, field, resolve(arguments, argument))
    broken = await client.call_tool(
        "check_call", {"tool": problem["tool"], "arguments": arguments, "request": request}
    )
    checked = await client.call_tool(
        "check_call", {"tool": problem["tool"], "arguments": arguments, "request": fixed}
    )
    return {
        "found": (argument, field),
        "tool": problem["tool"],
        "release": evidence["releases"],
        "broken": broken.structured_content["passed"],
        "fixed": checked.structured_content["passed"],
        "fixed_request": fixed,
    }


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_scripted_agent_finds_the_planted_bug_and_checks_its_fix(planted, transport):
    async def run() -> dict:
        async with mcp_client(transport, planted.url, READ) as client:
            return await scripted_agent(client)

    outcome = anyio.run(run)
    assert (
        outcome["found"] == PLANTED and outcome["tool"] == TOOL and outcome["release"] == ["1.1.0"]
    )
    assert outcome["broken"] is False and outcome["fixed"] is True
    assert isinstance(outcome["fixed_request"]["page_size"], int)
