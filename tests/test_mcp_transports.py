"""Both transports of the MCP server.

Driven by the official MCP client SDK against a real `tracediff serve` on SQLite and on PostgreSQL:
stdio (`tracediff mcp --url`, a process the client starts) and Streamable HTTP (`/mcp`), in both
protocol eras the SDK speaks (the 2025 `initialize` handshake, and 2026-07-28's per-request
envelope)."""

import anyio
import httpx
import pytest
from conftest import LiveServer
from mcp_helpers import (
    LIMIT_BUG,
    ON_THE_SAMPLES,
    big_call,
    check_sample_answer,
    limit_problem,
    mcp_client,
    sample_arguments,
)

from webapp.mcp.cutting import size
from webapp.mcp.tools import INPUTS, OUTPUTS

pytestmark = pytest.mark.slow
READ, INGEST, ADMIN = "rd-4f5e6d7c8b", "ing-1a2b3c4d5e", "adm-9f8e7d6c5b"
WAYS = [("stdio", "legacy"), ("http", "legacy"), ("stdio", "auto"), ("http", "auto")]
RPC = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
JSON_RPC = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture
def server(db_path, samples, tmp_path):
    """`tracediff serve` on the sample traces, with read, ingest and admin tokens set."""
    env = {
        "TRACEDIFF_READ_TOKENS": f"agent:{READ}",
        "TRACEDIFF_INGEST_TOKENS": f"shipper:{INGEST}",
        "TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}",
    }
    live = LiveServer(db_path, env=env, log_path=tmp_path / "live.log").start()
    yield live
    live.stop()


def test_every_transport_lists_the_tools_with_their_schemas_and_each_answers_on_the_samples(server):
    async def session(transport: str, mode: str) -> None:
        async with mcp_client(transport, server.url, READ, mode) as client:
            listed = (await client.list_tools()).tools
            assert [tool.name for tool in listed] == list(ON_THE_SAMPLES)
            for tool in listed:
                assert (tool.input_schema, tool.output_schema) == (
                    INPUTS[tool.name],
                    OUTPUTS[tool.name],
                )
                assert "Untrusted data" in tool.description and tool.annotations.read_only_hint
            found = (
                await client.call_tool("list_problems", {"tool": "findOrders"})
            ).structured_content
            problem_id = limit_problem(found["problems"])["id"]
            for name in ON_THE_SAMPLES:
                # the SDK client also checks each answer against the tool's output schema
                result = await client.call_tool(name, sample_arguments(name, problem_id))
                assert not result.is_error, (transport, mode, name, result.structured_content)
                check_sample_answer(name, result.structured_content)
                assert result.content[0].text and result.content[1].text.startswith("{")
            trace = (
                await client.call_tool("get_trace", {"trace_id": LIMIT_BUG})
            ).structured_content
            assert trace["permalink"] == f"{server.url}/traces/{LIMIT_BUG}"
            # bad arguments are a tool error, and the session goes on
            bad = await client.call_tool("search_traces", {"limit": 0, "colour": "red"})
            assert bad.is_error and bad.structured_content["error"]["code"] == "bad_parameter"
            missing = await client.call_tool("get_trace", {"trace_id": "f" * 32})
            assert (
                missing.is_error
                and missing.structured_content["error"]["code"] == "trace_not_found"
            )
            assert not (await client.call_tool("get_problem", {"id": problem_id})).is_error

    for transport, mode in WAYS:
        anyio.run(session, transport, mode)


def test_a_5_mb_payload_comes_back_within_its_budget_with_the_pointers_cut(server):
    body = big_call("5" * 32, 5_000_000)
    shipper = {"Authorization": f"Bearer {INGEST}"}
    sent = httpx.post(f"{server.url}/api/v1/ingest", json=body, headers=shipper, timeout=60)
    assert sent.status_code == 200 and sent.json()["accepted"] == 3

    async def session(transport: str) -> None:
        async with mcp_client(transport, server.url, READ) as client:
            asked = {"trace_id": "5" * 32, "budget_bytes": 65_536}
            answer = (await client.call_tool("get_trace", asked)).structured_content
            payloads = {
                name: snap["payload"]
                for name, snap in answer["calls"][0]["snapshots"].items()
                if snap
            }
            assert size(payloads) <= 65_536
            [orders] = [place for place in answer["cut"] if place["snapshot"] == "response"]
            assert (
                orders["pointer"] == "/orders"
                and orders["bytes"] > 4_000_000
                and 0 < orders["kept"]
            )
            last = f"/orders/{orders['members'] - 1}"
            asked = {
                "trace_id": "5" * 32,
                "call_id": "call_01",
                "snapshot": "response",
                "pointer": last,
            }
            item = (await client.call_tool("get_trace", asked)).structured_content
            assert item["subtree"]["value"]["id"] == f"ord_{orders['members'] - 1:06d}"

    for transport in ("stdio", "http"):
        anyio.run(session, transport)


@pytest.mark.sqlite_only
def test_mcp_takes_a_read_token_and_refuses_none_a_wrong_one_or_another_scopes(server):
    url = f"{server.url}/mcp"
    for token, status in ((None, 401), ("wrong", 401), (INGEST, 401), (READ, 200), (ADMIN, 200)):
        headers = {**JSON_RPC, **({"Authorization": f"Bearer {token}"} if token else {})}
        answer = httpx.post(url, json=RPC, headers=headers, timeout=30)
        assert answer.status_code == status, (token, answer.text)
        if status == 401:
            assert answer.json()["error"]["code"] == "unauthorized"
            assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        else:
            assert len(answer.json()["result"]["tools"]) == 8

    async def refused() -> None:
        with pytest.raises(Exception):  # noqa: B017 (the SDK raises its transport's error for a 401)
            async with mcp_client("http", server.url, "wrong") as client:
                await client.list_tools()
        # stdio starts; each read is refused
        async with mcp_client("stdio", server.url, "wrong") as client:
            result = await client.call_tool("list_problems", {})
            assert result.is_error and result.structured_content["error"]["code"] == "unauthorized"

    anyio.run(refused)


@pytest.mark.sqlite_only
def test_mcp_checks_host_and_origin_and_answers_post_only(server):
    url, auth = f"{server.url}/mcp", {"Authorization": f"Bearer {READ}"}
    foreign = httpx.post(
        url, json=RPC, headers={**JSON_RPC, **auth, "Host": "rebind.attacker.example"}, timeout=30
    )
    assert foreign.status_code == 400 and foreign.json()["error"]["code"] == "host_not_allowed"
    for method in ("POST", "GET"):
        other = httpx.request(
            method, url, json=RPC, headers={**JSON_RPC, **auth, "Origin": "https://evil.example"}
        )
        assert other.status_code == 403 and other.json()["error"]["code"] == "cross_site_request"
    own = httpx.post(url, json=RPC, headers={**JSON_RPC, **auth, "Origin": server.url}, timeout=30)
    assert own.status_code == 200
    for method in ("GET", "DELETE"):
        assert (
            httpx.request(method, url, headers={**auth, "Accept": "text/event-stream"}).status_code
            == 405
        )


def test_mcp_help_starts_without_the_sdk_http_clients_or_flask():
    """`tracediff mcp --help` stays fast by importing nothing heavy (the figures:
    bench/mcp_tools.py)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom webapp.cli.main import main\n"
        "try:\n    main(['mcp', '--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = ('mcp', 'mcp_types', 'httpx', 'httpx2', 'anyio', 'starlette', 'pydantic', "
        "'flask', 'werkzeug')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))"
    )
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "Usage:" in shown and shown.splitlines()[-1] == "[]", shown
