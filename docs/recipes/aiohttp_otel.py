"""tracediff recipe: recipe 2 for aiohttp: the request and response bodies on the aiohttp client's spans.

pip install openai aiohttp opentelemetry-sdk opentelemetry-exporter-otlp-proto-http \\
    opentelemetry-instrumentation-aiohttp-client
OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:8000/v1/traces OPENAI_API_KEY=... ORDERS_API=https://... \\
    python aiohttp_otel.py
"""
import asyncio, json, os

import aiohttp
from openai import AsyncOpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.aiohttp_client import AioHttpClientInstrumentor
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


async def on_request_chunk_sent(session, context, params):  # the body exactly as aiohttp writes it
    context.sent = getattr(context, "sent", b"") + params.chunk[:MAX_BODY + 1]


async def on_request_end(session, context, params):  # runs while the request's span is still current
    span = trace.get_current_span()
    if 0 < len(sent := getattr(context, "sent", b"")) <= MAX_BODY:
        span.set_attribute("http.request.body.content", sent.decode("utf-8", "replace"))
    # read the response whole before the span ends (decompressed); the caller's read() gets it again
    if len(body := await params.response.read()) <= MAX_BODY:
        span.set_attribute("http.response.body.content", body.decode("utf-8", "replace"))


read_bodies = aiohttp.TraceConfig()
read_bodies.on_request_chunk_sent.append(on_request_chunk_sent)
read_bodies.on_request_end.append(on_request_end)
# its own trace config (the span) goes after the session's: read_bodies sees the span before it ends
AioHttpClientInstrumentor().instrument()


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
    """The tool: search orders through your API with a session that reads the bodies."""
    # The planted bug: limit goes out as a string; tracediff reports it as type_changed.
    async with aiohttp.ClientSession(trace_configs=[read_bodies]) as http:
        async with http.post(f"{os.environ['ORDERS_API']}/orders/search",
                             json={"status": status, "limit": str(limit)}) as response:
            return await response.json()


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
    provider.force_flush()  # BatchSpanProcessor sends in the background; flush before a short script exits
    print(reply.content)
    trace_id = format(root.get_span_context().trace_id, "032x")
    print(f"{os.environ.get('TRACEDIFF_URL', 'http://127.0.0.1:8000')}/traces/{trace_id}")


if __name__ == "__main__":
    asyncio.run(main())
