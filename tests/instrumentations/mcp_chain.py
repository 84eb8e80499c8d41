"""The MCP chain in two processes.

An agent's MCP client and the MCP server that makes the HTTP call, both instrumented by one MCP
library, their OTLP/HTTP exports recorded to a file.

Run it with the Python of that library's virtualenv (tests/instrumentations/README.md, "MCP"):

    /work/wt/venv-mcp2/bin/python tests/instrumentations/mcp_chain.py LIB TRANSPORT one|two OUT_PREFIX

LIB is `openinference-mcp` (the mcp SDK 2.x, openinference-instrumentation-mcp and -openai) or
`otel-mcp` (the mcp SDK 1.x, OpenLLMetry's opentelemetry-instrumentation-mcp and -openai); TRANSPORT
`stdio` (the client starts the server as its child) or `http` (Streamable HTTP: the server runs on
its own, the client connects to it). The agent (service `orders-agent`) asks a local stand-in model,
which asks for one or two `find_orders` calls in one turn, calls the tool over MCP and hands the
`CallToolResult`'s content parts back to the model as the tool message. The server (service
`orders-mcp`) posts to a local orders API through httpx with the planted bug (`limit` 5 goes out as
"5"), its bodies captured by async event hooks. Both export to one collector stand-in in the agent's
process. OUT_PREFIX.pb and OUT_PREFIX.json as agent_loop.py writes them.
"""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# tests/: the stand-ins
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agent_loop import CALLS, SPEC, Collector, openai_model, otel_sdk, save  # noqa: E402
from standins import ORDERS, StandIn, orders_api  # noqa: E402

PROMPT = "Show me my last 5 paid and refunded orders."


def instrument(lib: str, endpoint: str, service: str) -> list:
    """Set up the OpenTelemetry SDK as `service` and `lib`'s MCP and OpenAI instrumentations."""
    os.environ["OTEL_SERVICE_NAME"] = service
    flushes = otel_sdk(endpoint, service=service)
    if lib == "openinference-mcp":
        from openinference.instrumentation.mcp import MCPInstrumentor
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        MCPInstrumentor().instrument()
    elif lib == "otel-mcp":
        from opentelemetry.instrumentation.mcp import McpInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        McpInstrumentor().instrument()
    else:
        raise SystemExit(f"unknown MCP library {lib!r}")
    return flushes


def orders_client():
    """An httpx.AsyncClient whose HTTP spans carry the request and response bodies: the recipe's
    hooks made async, over a transport that reads each response before the hook sees it."""
    import httpx
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    async def request_hook(span, request):
        if isinstance(request.stream, httpx.ByteStream) and (body := b"".join(request.stream)):
            span.set_attribute("http.request.body.content", body.decode("utf-8", "replace"))

    async def response_hook(span, request, response):
        if isinstance(response.stream, httpx.ByteStream):
            body = b"".join(response.stream)
            span.set_attribute("http.response.body.content", body.decode("utf-8", "replace"))

    class ReadBodies(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request):
            response = await super().handle_async_request(request)
            headers = [(k, v) for k, v in response.headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length")]  # fmt: skip
            return httpx.Response(response.status_code, headers=headers,
                                  content=await response.aread(), extensions=response.extensions)  # fmt: skip

    client = httpx.AsyncClient(transport=ReadBodies(), timeout=30)
    HTTPXClientInstrumentor.instrument_client(
        client, request_hook=request_hook, response_hook=response_hook
    )
    return client


def serve(lib: str, transport: str, port: str) -> None:
    """The MCP server process: find_orders posts to ORDERS_URL with the planted bug."""
    flushes = instrument(lib, os.environ["COLLECTOR_URL"], "orders-mcp")
    http, orders_url = orders_client(), os.environ["ORDERS_URL"]
    try:
        # mcp 2.x
        from mcp.server import MCPServer
    except ImportError:
        # mcp 1.x
        from mcp.server.fastmcp import FastMCP as MCPServer
    options = {} if transport == "stdio" else {"host": "127.0.0.1", "port": int(port)}
    legacy = MCPServer.__module__.startswith("mcp.server.fastmcp")
    server = MCPServer("orders", **(options if legacy else {}))

    @server.tool()
    async def find_orders(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        # The planted bug: limit goes out as a string.
        sent = {"status": status, "limit": str(limit)}
        return (await http.post(f"{orders_url}/orders/search", json=sent)).json()

    try:
        if transport == "stdio":
            server.run("stdio")
        else:
            server.run("streamable-http", **({} if legacy else options))
    except KeyboardInterrupt:
        pass
    finally:
        for flush in flushes:
            flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, server: subprocess.Popen) -> None:
    """Wait until the server process listens on `port` (or died)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and server.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the MCP server did not listen on {port} (exit {server.poll()})")


async def agent(model_url: str, call_tool) -> None:
    """The OpenAI loop: each tool call goes over MCP, its content parts go back as the tool
    message."""
    from openai import OpenAI

    client = OpenAI(base_url=f"{model_url}/v1", api_key="sk-standin")
    messages = [{"role": "user", "content": PROMPT}]
    tools = [{"type": "function", "function": SPEC}]
    while True:
        reply = client.chat.completions.create(model="gpt-4.1-mini", messages=messages, tools=tools)
        message = reply.choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return
        for call in message.tool_calls:
            result = await call_tool(call.function.name, json.loads(call.function.arguments))
            parts = [{"type": "text", "text": c.text} for c in result.content if c.type == "text"]
            messages.append({"role": "tool", "tool_call_id": call.id, "content": parts})


async def connect_and_run(transport: str, target, model_url: str) -> None:
    """Connect the official MCP client over `transport` to `target` (server parameters or URL)
    and run the agent with its call_tool."""
    try:
        # mcp 2.x
        from mcp import Client

        async with Client(target) as client:
            await agent(model_url, client.call_tool)
        return
    except ImportError:
        pass
    from mcp import ClientSession

    if transport == "stdio":
        from mcp.client.stdio import stdio_client

        opened = stdio_client(target)
    else:
        from mcp.client.streamable_http import streamablehttp_client

        opened = streamablehttp_client(target)
    async with opened as streams, ClientSession(streams[0], streams[1]) as session:
        await session.initialize()
        await agent(model_url, session.call_tool)


def main(lib: str, transport: str, turn: str, prefix: str) -> None:
    collector = Collector()
    with StandIn(orders_api) as orders, StandIn(openai_model(CALLS[turn])) as model:
        env = {**os.environ, "COLLECTOR_URL": collector.url, "ORDERS_URL": orders.url}
        flushes = instrument(lib, collector.url, "orders-agent")
        command = [sys.executable, __file__, "--serve", lib, transport]
        server = None
        if transport == "stdio":
            from mcp import StdioServerParameters

            target = StdioServerParameters(command=command[0], args=[*command[1:], "0"], env=env)
        else:
            port = free_port()
            server = subprocess.Popen([*command, str(port)], env=env)
            wait_for(port, server)
            target = f"http://127.0.0.1:{port}/mcp"
        from opentelemetry import trace

        with trace.get_tracer("orders-agent").start_as_current_span("invoke_agent orders-agent"):
            asyncio.run(connect_and_run(transport, target, model.url))
        if server is not None:
            # uvicorn shuts down on SIGINT and raises it again (KeyboardInterrupt); the server
            # flushes its spans on the way out (on SIGTERM the process would die before that)
            server.send_signal(signal.SIGINT)
            server.wait(timeout=60)
        assert len(orders.requests) == len(CALLS[turn]), orders.requests
        assert all(r["body"]["limit"] == "5" for r in orders.requests)
    for flush in flushes:
        flush()
    # the server's last export may still be on its way
    time.sleep(0.5)
    save(collector.posts, Path(prefix))
    print(
        f"{len(collector.posts)} posts, {sum(len(b) for _, b in collector.posts)} bytes; orders "
        f"{ORDERS['total']}"
    )


if __name__ == "__main__":
    if sys.argv[1] == "--serve":
        serve(*sys.argv[2:5])
    else:
        main(*sys.argv[1:5])
