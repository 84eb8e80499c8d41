"""The MCP server recipe of docs/instrumenting.md.

Called by the official MCP client, read from tracediff."""

import asyncio
import json
import sys

import httpx
import pytest
from conftest import free_port
from recipe_runs import (
    ARGUMENTS,
    CALLER_TRACE,
    RECIPES,
    TRACEPARENT,
    RecipeProcess,
    assert_planted_bug,
    assert_release,
    assert_result_passed_on,
    orders,  # noqa: F401 (a fixture)
    read_trace,
    tracediff_ingest,
)


@pytest.fixture
def mcp_server(orders, tmp_path):
    """The MCP recipe serving streamable HTTP on a free port, logging to tool-calls.ndjson."""
    port, log_file = free_port(), tmp_path / "tool-calls.ndjson"
    server = RecipeProcess(
        [sys.executable, str(RECIPES / "mcp_server.py")],
        {
            "ORDERS_API": orders.url,
            "TRACEDIFF_LOG": str(log_file),
            "MCP_PORT": str(port),
            "RELEASE": "2.0.1",
        },
        tmp_path / "mcp-server.log",
    )
    try:
        server.wait_listening(port)
        server.url, server.log_file = f"http://127.0.0.1:{port}/mcp", log_file
        yield server
    finally:
        server.stop()


async def call_tools_as_a_client(url: str) -> list:
    """Call find_orders with the official MCP client: traced by _meta (two at once), refused, by
    header."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(url) as client:
        # two calls in flight at once keep their own ids
        traced, parallel = await asyncio.gather(
            client.call_tool("find_orders", ARGUMENTS, meta={"traceparent": TRACEPARENT}),
            client.call_tool(
                "find_orders",
                ARGUMENTS,
                meta={"traceparent": f"00-{PARALLEL_TRACE}-00f067aa0ba902b7-01"},
            ),
        )
        assert not parallel.is_error
        refused = await client.call_tool("find_orders", {"status": "paid", "limit": "five"})
    header = {"traceparent": f"00-{HEADER_TRACE}-00f067aa0ba902b7-01"}
    async with httpx2.AsyncClient(headers=header, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            by_header = await client.call_tool("find_orders", ARGUMENTS)
    return [traced, refused, by_header]


HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c"
PARALLEL_TRACE = "5e5106aa5e5106aa5e5106aa5e5106aa"


@pytest.mark.slow
def test_the_mcp_server_recipe_logs_each_tools_call_under_the_callers_trace(
    live_server, mcp_server, orders
):
    # the official client
    traced, refused, by_header = asyncio.run(call_tools_as_a_client(mcp_server.url))
    assert not traced.is_error and not by_header.is_error and refused.is_error
    tracediff_ingest(live_server.db_path, mcp_server.log_file)

    # The trace context in the request's _meta (SEP-414, what the SDK sends when OpenTelemetry is
    # on).
    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    assert_release(call, "2.0.1")
    # The CallToolResult the model got is the call's result: its text restates the response as JSON.
    result = call["snapshots"]["result"]["payload"]
    assert result["isError"] is False
    assert json.loads(result["content"][0]["text"]) == call["snapshots"]["response"]["payload"]
    assert_result_passed_on(call, result)
    [call] = read_trace(live_server, PARALLEL_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    # ... or, from a client that sets none there, in the HTTP traceparent header.
    [call] = read_trace(live_server, HEADER_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    sent = sorted(r["headers"]["traceparent"].split("-")[1] for r in orders.requests)
    assert sent == sorted([CALLER_TRACE, PARALLEL_TRACE, HEADER_TRACE])
    # Refused arguments never reach the API: the tools/call error result is the call's response.
    lines = [json.loads(line) for line in mcp_server.log_file.read_text().splitlines()]
    [refused_trace] = {e["trace_id"] for e in lines} - {CALLER_TRACE, PARALLEL_TRACE, HEADER_TRACE}
    [call] = httpx.get(f"{live_server.url}/api/v1/traces/{refused_trace}", timeout=10).json()[
        "calls"
    ]
    assert call["snapshots"]["arguments"]["payload"] == {"status": "paid", "limit": "five"}
    assert call["snapshots"].get("request") is None
    assert call["snapshots"]["response"]["payload"]["isError"] is True
    # one line per snapshot (a result where the API answered)
    assert len(lines) == 4 + 4 + 4 + 2
