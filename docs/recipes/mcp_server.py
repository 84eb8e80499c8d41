"""tracediff recipe: an MCP tool server (streamable HTTP) logging each tools/call as envelope-v1 JSON lines.

pip install mcp httpx; then ORDERS_API=https://... python mcp_server.py (serves http://127.0.0.1:8001/mcp)
and ship tool-calls.ndjson to tracediff (tracediff ingest, or any log shipper in docs/shippers.md).
"""
import contextvars, json, os, secrets
from datetime import datetime, timezone

import httpx
from mcp.server import MCPServer

# --- tracediff: paste from here -------------------------------------------------------------
# O_APPEND: each line is one write, so threads and processes sharing the file never split a line
LOG = os.open(os.environ.get("TRACEDIFF_LOG", "tool-calls.ndjson"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
SOURCE, RELEASE = "mcp", os.environ.get("RELEASE", "dev")  # which chain; which build of your code
CALL = contextvars.ContextVar("tracediff_call", default=None)  # {trace_id, call_id, tool, answered} of a call


def log(snapshot, payload, **http):
    """Write one snapshot of the running tool call as one JSON line; no-op outside a tool call."""
    if (call := CALL.get()) is None:
        return
    os.write(LOG, json.dumps({"trace_id": call["trace_id"], "call_id": call["call_id"], "tool": call["tool"],
                              "snapshot": snapshot, "source": SOURCE, "release": RELEASE, "payload": payload,
                              "http": http or None, "ts": datetime.now(timezone.utc).isoformat()}).encode() + b"\n")


def body(raw):
    """Return a JSON body as JSON, any other body (a form) as text; a GET's empty body as None (none sent)."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


async def on_request(request):  # httpx event hook: the body exactly as the handler built it
    if call := CALL.get():  # W3C trace context, so the API's own logs join the same trace
        request.headers["traceparent"] = f"00-{call['trace_id']}-{secrets.token_hex(8)}-01"
    log("request", body(request.content), method=request.method, url=str(request.url))


async def on_response(response):
    log("response", body(await response.aread()), status_code=response.status_code)
    if call := CALL.get():
        call["answered"] = True


http = httpx.AsyncClient(event_hooks={"request": [on_request], "response": [on_response]}, timeout=30)


def trace_id_from(traceparent):
    """Return the trace id of a W3C traceparent ("00-<32 hex>-<16 hex>-<flags>"), else a new one."""
    parts = (traceparent or "").split("-") if isinstance(traceparent, str) else []
    return parts[1] if len(parts) == 4 and len(parts[1]) == 32 else secrets.token_hex(16)


async def log_tool_calls(ctx, call_next):
    """MCP server middleware: a tools/call's arguments as received, and the CallToolResult the model gets."""
    if ctx.method != "tools/call" or not ctx.params:
        return await call_next(ctx)
    headers = getattr(ctx.request, "headers", None) or {}  # the caller's trace: _meta (SEP-414), else HTTP header
    traceparent = (ctx.meta or {}).get("traceparent") or headers.get("traceparent")
    token = CALL.set({"trace_id": trace_id_from(traceparent), "call_id": str(ctx.request_id),
                      "tool": ctx.params.get("name"), "answered": False})
    try:
        log("arguments", ctx.params.get("arguments", {}))
        result = await call_next(ctx)
        result_json = result if isinstance(result, dict) else result.model_dump(mode="json", by_alias=True,
                                                                                exclude_none=True)
        answered = CALL.get()["answered"]  # the result, else (arguments refused before any HTTP call) the answer
        log("result" if answered else "response", result_json if answered else result_json.get("structuredContent", result_json))
        return result
    finally:
        CALL.reset(token)
# --- tracediff: paste to here ---------------------------------------------------------------


mcp = MCPServer("orders", middleware=[log_tool_calls])


@mcp.tool()
async def find_orders(status: str, limit: int) -> dict:
    """Search the customer's orders."""
    # The planted bug: limit goes out as a string; tracediff reports it as type_changed.
    response = await http.post(f"{os.environ['ORDERS_API']}/orders/search",
                               json={"status": status, "limit": str(limit)})
    return response.json()


if __name__ == "__main__":
    mcp.run("streamable-http", host="127.0.0.1", port=int(os.environ.get("MCP_PORT", "8001")))
