"""tracediff recipe: recipe 2 for async code (an MCP server, an async agent): httpx.AsyncClient's bodies on its spans.

pip install openai httpx opentelemetry-sdk opentelemetry-exporter-otlp-proto-http \\
    opentelemetry-instrumentation-httpx
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:8000/v1/traces OPENAI_API_KEY=... ORDERS_API=https://... \\
    python httpx_async_otel.py
"""
import asyncio, json, os

import httpx
from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

# --- tracediff: paste from here -------------------------------------------------------------
MAX_BODY = 1_000_000  # a larger body is left off its span rather than cut into broken JSON
provider = TracerProvider(resource=Resource.create({"service.name": "orders-agent",
                                                    "service.version": os.environ.get("RELEASE", "dev")}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # endpoint from OTEL_EXPORTER_OTLP_*
trace.set_tracer_provider(provider)
tracer = trace.get_tracer("orders-agent")


async def request_hook(span, request):  # async def: an AsyncClient never calls a plain def hook
    if isinstance(request.stream, httpx.ByteStream) and 0 < len(body := b"".join(request.stream)) <= MAX_BODY:
        span.set_attribute("http.request.body.content", body.decode("utf-8", "replace"))


async def response_hook(span, request, response):
    if isinstance(response.stream, httpx.ByteStream) and len(body := b"".join(response.stream)) <= MAX_BODY:
        span.set_attribute("http.response.body.content", body.decode("utf-8", "replace"))


class AsyncReadBodies(httpx.AsyncHTTPTransport):
    """Read each response whole before its span ends, so response_hook sees the body (the client gets a copy)."""

    async def handle_async_request(self, request):
        response = await super().handle_async_request(request)
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-encoding", "content-length")]  # aread() decoded gzip already
        return httpx.Response(response.status_code, headers=headers, content=await response.aread(),
                              extensions=response.extensions)


http = httpx.AsyncClient(transport=AsyncReadBodies(), timeout=30)
HTTPXClientInstrumentor.instrument_client(http, request_hook=request_hook, response_hook=response_hook)


async def run_tool(tool_call, tools):
    """Run one tool call of the model inside a GenAI execute_tool span that holds its arguments."""
    name, arguments = tool_call.function.name, tool_call.function.arguments
    with tracer.start_as_current_span(f"execute_tool {name}", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": tool_call.id, "gen_ai.tool.call.arguments": arguments,
            "tracediff.source": "openai"}) as span:
        result = await tools[name](**json.loads(arguments))
        span.set_attribute("gen_ai.tool.call.result", json.dumps(result))
        return result
# --- tracediff: paste to here ---------------------------------------------------------------


async def find_orders(status: str, limit: int) -> dict:
    """The tool: search orders through your API with the instrumented async client."""
    # The planted bug: limit goes out as a string; tracediff reports it as type_changed.
    response = await http.post(f"{os.environ['ORDERS_API']}/orders/search",
                               json={"status": status, "limit": str(limit)})
    return response.json()


TOOLS = {"find_orders": find_orders}
SPEC = [{"type": "function", "function": {
    "name": "find_orders", "description": "Search the customer's orders.",
    "parameters": {"type": "object", "required": ["status", "limit"], "properties": {
        "status": {"type": "string", "enum": ["paid", "refunded"]}, "limit": {"type": "integer"}}}}}]


async def main():
    caller = extract({"traceparent": os.environ.get("TRACEPARENT", "")})  # the caller's trace, else a new one
    with tracer.start_as_current_span("invoke_agent orders-agent", context=caller) as root:
        client = AsyncOpenAI()
        messages = [{"role": "user", "content": "Show me my last 5 paid orders."}]
        while True:
            reply = (await client.chat.completions.create(model=os.environ.get("MODEL", "gpt-4.1-mini"),
                                                          messages=messages, tools=SPEC)).choices[0].message
            messages.append(reply)
            if not reply.tool_calls:
                break
            for tool_call in reply.tool_calls:
                result = await run_tool(tool_call, TOOLS)
                messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": json.dumps(result)})
    await http.aclose()
    provider.force_flush()  # BatchSpanProcessor sends in the background; flush before a short script exits
    print(reply.content)
    trace_id = format(root.get_span_context().trace_id, "032x")
    print(f"{os.environ.get('TRACEDIFF_URL', 'http://127.0.0.1:8000')}/traces/{trace_id}")


if __name__ == "__main__":
    asyncio.run(main())
