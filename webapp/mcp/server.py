"""The MCP server on the official SDK.

The tools listed with their schemas and called through `tools.call`, served on stdio (`tracediff
mcp`) or one Streamable HTTP request at a time (`/mcp` of `tracediff serve`).

Over HTTP it runs stateless, answering JSON: gunicorn's workers are processes that share no session,
so each POST carries all it needs; a fresh session manager serves it in an event loop of the
request's own thread, and nothing outlives the request (no loop thread to keep alive across forks,
reloads and drains).
"""

import contextlib
import contextvars

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from ..version import __version__
from .tools import INPUTS, INSTRUCTIONS, OUTPUTS, TOOLS, UNTRUSTED, call

# the SDK needs neither: the app checked the token already
DROPPED_HEADERS = {b"authorization", b"cookie"}


def listed_tools() -> list[types.Tool]:
    """Return every tool with its input and output schema.

    Each read-only, on tracediff's data alone."""
    return [
        types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description + UNTRUSTED,
            input_schema=INPUTS[tool.name],
            output_schema=OUTPUTS[tool.name],
            annotations=types.ToolAnnotations(
                title=tool.title, read_only_hint=True, idempotent_hint=True, open_world_hint=False
            ),
        )
        for tool in TOOLS.values()
    ]


async def _list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=listed_tools())


async def _call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    source = ctx.lifespan_context["source"]
    # the tools block on the API (HTTP, or the app in this process): off the event loop
    answer = await anyio.to_thread.run_sync(call, source, params.name, params.arguments)
    return types.CallToolResult(
        content=[types.TextContent(text=answer.text), types.TextContent(text=answer.json())],
        structured_content=answer.structured,
        is_error=answer.is_error,
    )


def build(source) -> Server:
    """Return the server whose tools read from `source`."""

    @contextlib.asynccontextmanager
    async def lifespan(_server):
        yield {"source": source}

    return Server(
        "tracediff",
        version=__version__,
        title="tracediff",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )


def run_stdio(source) -> None:
    """Serve the tools on stdin and stdout until the client closes them."""

    async def serve() -> None:
        server = build(source)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def serve_http(
    source, scope: dict, body: bytes, max_body: int
) -> tuple[int, list[tuple[str, str]], bytes]:
    """Answer one Streamable HTTP request (stateless, JSON).

    Return its status, headers and body.

    It runs in an empty context: the event loop's tasks and threads must not see the Flask request
    around it."""
    reply: dict = {"status": 500, "headers": [], "body": []}
    scope = {
        **scope,
        "headers": [pair for pair in scope["headers"] if pair[0] not in DROPPED_HEADERS],
    }

    async def receive() -> dict:
        nonlocal body
        chunk, body = body, b""
        return {"type": "http.request", "body": chunk, "more_body": False}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.start":
            reply["status"], reply["headers"] = message["status"], message.get("headers", [])
        elif message["type"] == "http.response.body":
            reply["body"].append(message.get("body", b""))

    async def serve() -> None:
        manager = StreamableHTTPSessionManager(
            build(source), json_response=True, stateless=True, max_request_body_size=max_body
        )
        async with manager.run():
            await manager.handle_request(scope, receive, send)

    contextvars.Context().run(anyio.run, serve)
    headers = [
        (name.decode("latin-1"), value.decode("latin-1")) for name, value in reply["headers"]
    ]
    return (
        reply["status"],
        [(n, v) for n, v in headers if n.lower() != "content-length"],
        b"".join(reply["body"]),
    )
