"""A real agent loop, instrumented by one GenAI library.

Whose OTLP/HTTP exports are recorded to a file.

Run it with the Python of that library's virtualenv (tests/instrumentations/README.md):

    /tmp/venvs/<lib>/bin/python tests/instrumentations/agent_loop.py LIB PROVIDER one|two OUT_PREFIX

The openai or anthropic SDK talks to a local stand-in model that asks for one or two `find_orders`
calls in one turn; the tool posts to a local orders API through httpx with the planted bug (`limit`
5 goes out as "5"); the library exports its spans (and logs) over OTLP/HTTP to a local collector
stand-in, which keeps every post. OUT_PREFIX.pb holds the posts as sent (protobuf), OUT_PREFIX.json
the same in OTLP/JSON.
"""

import functools
import json
import os
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# tests/: the stand-ins
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from standins import ORDERS, StandIn, orders_api  # noqa: E402

CALLS = {
    "one": [{"status": "paid", "limit": 5}],
    "two": [{"status": "paid", "limit": 5}, {"status": "refunded", "limit": 5}],
}
SPEC = {
    "name": "find_orders",
    "description": "Search the customer's orders.",
    "parameters": {
        "type": "object",
        "required": ["status", "limit"],
        "properties": {
            "status": {"type": "string", "enum": ["paid", "refunded"]},
            "limit": {"type": "integer"},
        },
    },
}


class Collector:
    """An OTLP/HTTP receiver stand-in: it keeps each post's path and body, in order."""

    def __init__(self):
        self.posts = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.posts.append((self.path, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def openai_model(calls):
    """An OpenAI chat completions stand-in: the first turn asks for `calls`, the next answers in
    text."""

    def answer(path, body):
        answered = any(m.get("role") == "tool" for m in body["messages"])
        message = {"role": "assistant", "content": "You have 1 paid order.", "refusal": None}
        if not answered:
            message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
                {"id": f"call_standin_{n:02d}", "type": "function",
                 "function": {"name": "find_orders", "arguments": json.dumps(args)}}
                for n, args in enumerate(calls, 1)
            ]}  # fmt: skip
        choice = {"index": 0, "message": message, "logprobs": None,
                  "finish_reason": "stop" if answered else "tool_calls"}  # fmt: skip
        return 200, {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1764547200,
                     "model": body["model"], "choices": [choice],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}  # fmt: skip

    return answer


def smolagents_model(calls):
    """An OpenAI chat completions stand-in for smolagents' ToolCallingAgent: the first request asks
    for `calls`, the next for the final_answer tool, which ends the agent's run (it sends tool
    outputs back as user text)."""
    asked = []

    def answer(path, body):
        first = not asked
        asked.append(path)
        wanted = calls if first else [{"answer": "You have 1 paid order."}]
        message = {"role": "assistant", "content": None, "refusal": None, "tool_calls": [
            {"id": f"call_standin_{n:02d}" if first else "call_standin_final", "type": "function",
             "function": {"name": "find_orders" if first else "final_answer", "arguments": json.dumps(args)}}
            for n, args in enumerate(wanted, 1)
        ]}  # fmt: skip
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}
        return 200, {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1764547200,
                     "model": body["model"], "choices": [choice],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}  # fmt: skip

    return answer


def anthropic_model(calls):
    """An Anthropic messages stand-in: tool_use blocks first, text once the tool_results are
    there."""

    def answer(path, body):
        answered = any(
            type(m["content"]) is list and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body["messages"]
        )
        content = [{"type": "text", "text": "You have 1 paid order."}]
        if not answered:
            content = [{"type": "tool_use", "id": f"toolu_standin_{n:02d}", "name": "find_orders", "input": args}
                       for n, args in enumerate(calls, 1)]  # fmt: skip
        return 200, {"id": "msg_standin", "type": "message", "role": "assistant", "model": body["model"],
                     "content": content, "stop_reason": "end_turn" if answered else "tool_use",
                     "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip

    return answer


def body_hooks():
    """The recipe's httpx hooks (docs/instrumenting.md section 2): the bodies on the HTTP client
    span."""
    import httpx

    def request_hook(span, request):
        if isinstance(request.stream, httpx.ByteStream) and (body := b"".join(request.stream)):
            span.set_attribute("http.request.body.content", body.decode("utf-8", "replace"))

    def response_hook(span, request, response):
        if isinstance(response.stream, httpx.ByteStream):
            span.set_attribute(
                "http.response.body.content", b"".join(response.stream).decode("utf-8", "replace")
            )

    class ReadBodies(httpx.HTTPTransport):
        def handle_request(self, request):
            response = super().handle_request(request)
            headers = [(k, v) for k, v in response.headers.multi_items()
                       if k.lower() not in ("content-encoding", "content-length")]  # fmt: skip
            return httpx.Response(response.status_code, headers=headers, content=response.read(),
                                  extensions=response.extensions)  # fmt: skip

    return request_hook, response_hook, ReadBodies


def otel_sdk(endpoint: str, logs: bool = False, service: str = "orders-agent"):
    """The plain OpenTelemetry SDK set up as a user would: OTLP/HTTP spans (and logs) to
    `endpoint`, as `service`."""
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": service, "service.version": "1.0.0"})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"))
    )
    trace.set_tracer_provider(provider)
    flushes = [provider.force_flush]
    if logs:
        from opentelemetry._logs import set_logger_provider
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor

        log_provider = LoggerProvider(resource=resource)
        log_provider.add_log_record_processor(
            BatchLogRecordProcessor(OTLPLogExporter(endpoint=f"{endpoint}/v1/logs"))
        )
        set_logger_provider(log_provider)
        flushes.append(log_provider.force_flush)
    return flushes


def instrumented_client(lib: str):
    """Return the httpx client for the business API, its bodies captured the way `lib`'s users do
    it."""
    import httpx

    if lib == "logfire":
        import logfire

        client = httpx.Client(timeout=30)
        logfire.instrument_httpx(client, capture_all=True)
        return client
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor

    request_hook, response_hook, read_bodies = body_hooks()
    client = httpx.Client(transport=read_bodies(), timeout=30)
    HTTPXClientInstrumentor.instrument_client(
        client, request_hook=request_hook, response_hook=response_hook
    )
    return client


# LIB.MODE: a library set up another way its docs offer
MODES = {
    # messages in logs only
    "openai-v2.events": {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "EVENT_ONLY"},
    # traceloop-sdk's @tool decorator alone: no model instrumentation
    "traceloop.tools": {},
}


def instrument(lib: str, endpoint: str):
    """Set up `lib` as its README says; return the flushes to call before exit."""
    if lib.partition(".")[2]:
        os.environ.update(MODES[lib])
    if lib.startswith("openai-v2"):
        flushes = otel_sdk(endpoint, logs=True)
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        return flushes
    # the framework, instrumented as openinference's README for it says
    if lib == "smolagents":
        flushes = otel_sdk(endpoint)
        from openinference.instrumentation.smolagents import SmolagentsInstrumentor

        SmolagentsInstrumentor().instrument()
        return flushes
    if lib == "openinference":
        flushes = otel_sdk(endpoint)
        from openinference.instrumentation.anthropic import AnthropicInstrumentor
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        AnthropicInstrumentor().instrument()
        return flushes
    if lib == "openllmetry":
        flushes = otel_sdk(endpoint)
        from opentelemetry.instrumentation.anthropic import AnthropicInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        AnthropicInstrumentor().instrument()
        return flushes
    # the MCP spans name the tool; the model's spans give the arguments
    if lib == "openinference-mcp":
        flushes = otel_sdk(endpoint)
        from openinference.instrumentation.mcp import MCPInstrumentor
        from openinference.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        MCPInstrumentor().instrument()
        return flushes
    if lib == "otel-mcp":
        flushes = otel_sdk(endpoint)
        from opentelemetry.instrumentation.mcp import McpInstrumentor
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
        McpInstrumentor().instrument()
        return flushes
    if lib == "logfire":
        import logfire
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        logfire.configure(
            send_to_logfire=False,
            console=False,
            service_name="orders-agent",
            additional_span_processors=[
                BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces"))
            ],
        )
        logfire.instrument_openai()
        logfire.instrument_anthropic()
        return [logfire.force_flush]
    # traceloop-sdk: its own exporter, only the model instrumentations used here
    if lib.startswith("traceloop"):
        # tracediff takes no /v1/metrics
        os.environ.setdefault("TRACELOOP_METRICS_ENABLED", "false")
        from opentelemetry import trace
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        models = set() if lib == "traceloop.tools" else {Instruments.OPENAI, Instruments.ANTHROPIC}
        Traceloop.init(app_name="orders-agent", api_endpoint=endpoint, instruments=models)
        return [trace.get_tracer_provider().force_flush]
    if lib == "openlit":
        import openlit
        from opentelemetry import trace

        openlit.init(otlp_endpoint=endpoint, application_name="orders-agent", disable_metrics=True)
        return [trace.get_tracer_provider().force_flush]
    raise SystemExit(f"unknown library {lib!r}")


def decorators(lib: str):
    """Return how `lib`'s users mark the tool function and the agent run (traceloop: its `@tool` and
    `@agent`)."""
    if lib.startswith("traceloop"):
        from traceloop.sdk.decorators import agent, tool

        return tool(name="find_orders"), agent(name="orders-agent")
    if lib == "smolagents":
        # the framework makes its own agent span
        return smolagents_tool, lambda run: run

    def as_agent(run):
        @functools.wraps(run)
        def traced(*args):
            from opentelemetry import trace

            with trace.get_tracer("orders-agent").start_as_current_span(
                "invoke_agent orders-agent"
            ):
                return run(*args)

        return traced

    return (lambda tool: tool), as_agent


def smolagents_tool(find_orders):
    """Return the function as a smolagents Tool, as its users write one."""
    from smolagents import Tool

    class FindOrders(Tool):
        name = SPEC["name"]
        description = SPEC["description"]
        inputs = {
            "status": {"type": "string", "description": "paid or refunded"},
            "limit": {"type": "integer", "description": "how many orders at most"},
        }
        output_type = "object"

        def forward(self, status: str, limit: int) -> dict:
            return find_orders(status=status, limit=limit)

    return FindOrders()


def run_smolagents(model_url: str, tool) -> None:
    """smolagents' ToolCallingAgent with the model behind an OpenAI-compatible API (the
    stand-in)."""
    from smolagents import OpenAIServerModel, ToolCallingAgent

    model = OpenAIServerModel(
        model_id="gpt-4.1-mini", api_base=f"{model_url}/v1", api_key="sk-standin"
    )
    ToolCallingAgent(tools=[tool], model=model, max_steps=3).run(
        "Show me my last 5 paid and refunded orders."
    )


def run_openai(model_url: str, tool) -> None:
    from openai import OpenAI

    client = OpenAI(base_url=f"{model_url}/v1", api_key="sk-standin")
    messages = [{"role": "user", "content": "Show me my last 5 paid and refunded orders."}]
    while True:
        reply = (
            client.chat.completions.create(
                model="gpt-4.1-mini",
                messages=messages,
                tools=[{"type": "function", "function": SPEC}],
            )
            .choices[0]
            .message
        )
        messages.append(reply)
        if not reply.tool_calls:
            return
        for call in reply.tool_calls:
            result = tool(**json.loads(call.function.arguments))
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)}
            )


def run_anthropic(model_url: str, tool) -> None:
    from anthropic import Anthropic

    client = Anthropic(base_url=model_url, api_key="sk-ant-standin")
    messages = [{"role": "user", "content": "Show me my last 5 paid and refunded orders."}]
    spec = {
        "name": SPEC["name"],
        "description": SPEC["description"],
        "input_schema": SPEC["parameters"],
    }
    while True:
        reply = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=512, messages=messages, tools=[spec]
        )
        messages.append(
            {
                "role": "assistant",
                "content": [b.model_dump(exclude_none=True) for b in reply.content],
            }
        )
        uses = [b for b in reply.content if b.type == "tool_use"]
        if not uses:
            return
        results = [
            {"type": "tool_result", "tool_use_id": b.id, "content": json.dumps(tool(**b.input))}
            for b in uses
        ]
        messages.append({"role": "user", "content": results})


def run_openai_over_mcp(model_url: str, tool) -> None:
    """The OpenAI loop, its tool served by an MCP server and called with the official MCP client (in
    process)."""
    import asyncio

    from openai import OpenAI

    client = OpenAI(base_url=f"{model_url}/v1", api_key="sk-standin")

    async def loop(session_call):
        messages = [{"role": "user", "content": "Show me my last 5 paid and refunded orders."}]
        while True:
            reply = (
                client.chat.completions.create(
                    model="gpt-4.1-mini",
                    messages=messages,
                    tools=[{"type": "function", "function": SPEC}],
                )
                .choices[0]
                .message
            )
            messages.append(reply)
            if not reply.tool_calls:
                return
            for call in reply.tool_calls:
                result = await session_call("find_orders", json.loads(call.function.arguments))
                text = result.content[0].text
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})

    asyncio.run(mcp_session(tool, loop))


async def mcp_session(tool, loop) -> None:
    """Serve `tool` as find_orders over MCP and run `loop` with a call_tool of a connected
    client."""
    try:
        # mcp 2.x
        from mcp.server import MCPServer
    except ImportError:
        # mcp 1.x
        from mcp.server.fastmcp import FastMCP as MCPServer
    server = MCPServer("orders")

    @server.tool()
    async def find_orders(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return tool(status=status, limit=limit)

    try:
        from mcp import Client

        async with Client(server) as client:
            await loop(client.call_tool)
    except ImportError:
        from mcp.shared.memory import create_connected_server_and_client_session

        async with create_connected_server_and_client_session(server._mcp_server) as session:
            await loop(session.call_tool)


def save(posts: list, prefix: Path) -> None:
    """Write the posts as sent (framed protobuf) and as OTLP/JSON (hex ids, integer enums)."""
    with open(f"{prefix}.pb", "wb") as out:
        for path, body in posts:
            out.write(path.encode() + b"\n" + struct.pack(">I", len(body)) + body)
    Path(f"{prefix}.json").write_text(
        json.dumps([{"path": p, "body": to_json(p, b)} for p, b in posts], indent=1)
    )


def to_json(path: str, body: bytes) -> dict:
    from google.protobuf.json_format import MessageToDict

    if path.endswith("/v1/logs"):
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
            ExportLogsServiceRequest as Request,
        )
    else:
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest as Request,
        )
    message = Request()
    message.ParseFromString(body)
    return hex_ids(MessageToDict(message, use_integers_for_enums=True))


def hex_ids(value):
    """OTLP/JSON spells trace and span ids in hex, where protobuf's JSON mapping uses base64."""
    import base64

    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {
        k: base64.b64decode(v).hex()
        if k in ("traceId", "spanId", "parentSpanId") and v
        else hex_ids(v)
        for k, v in value.items()
    }


def main(lib: str, provider: str, turn: str, prefix: str) -> None:
    collector = Collector()
    flushes = instrument(lib, collector.url)
    http = instrumented_client(lib)
    models = {"anthropic": anthropic_model, "smolagents": smolagents_model}
    model_api = models.get(provider if provider == "anthropic" else lib, openai_model)(CALLS[turn])
    as_tool, as_agent = decorators(lib)
    with StandIn(orders_api) as orders, StandIn(model_api) as model:

        @as_tool
        def find_orders(status: str, limit: int) -> dict:
            # The planted bug: limit goes out as a string.
            return http.post(
                f"{orders.url}/orders/search", json={"status": status, "limit": str(limit)}
            ).json()

        runs = {"openai": run_openai, "anthropic": run_anthropic, "mcp": run_openai_over_mcp}
        as_agent(run_smolagents if lib == "smolagents" else runs[provider])(model.url, find_orders)
        assert len(orders.requests) == len(CALLS[turn]), orders.requests
        assert all(r["body"]["limit"] == "5" for r in orders.requests)
    for flush in flushes:
        flush()
    save(collector.posts, Path(prefix))
    print(
        f"{len(collector.posts)} posts, {sum(len(b) for _, b in collector.posts)} bytes; orders "
        f"{ORDERS['total']}"
    )


if __name__ == "__main__":
    main(*sys.argv[1:5])
