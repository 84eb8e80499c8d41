"""tracediff recipe: an OpenAI tool call, its snapshots (and the result the model got) as envelope-v1 JSON lines.

pip install openai httpx; then OPENAI_API_KEY=... ORDERS_API=https://... python openai_logs.py
and ship tool-calls.ndjson to tracediff (tracediff ingest, or any log shipper in docs/shippers.md).
"""
import contextvars, json, os, secrets
from datetime import datetime, timezone

import httpx
from openai import OpenAI

# --- tracediff: paste from here -------------------------------------------------------------
# O_APPEND: each line is one write, so threads and processes sharing the file never split a line
LOG = os.open(os.environ.get("TRACEDIFF_LOG", "tool-calls.ndjson"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
SOURCE, RELEASE = "openai", os.environ.get("RELEASE", "dev")  # which chain; which build of your code
CALL = contextvars.ContextVar("tracediff_call", default=None)  # (trace id, call id, tool) of a tool run


def log(snapshot, payload, **http):
    """Write one snapshot of the running tool call as one JSON line; no-op outside a tool call."""
    if (call := CALL.get()) is None:
        return
    os.write(LOG, json.dumps({"trace_id": call[0], "call_id": call[1], "tool": call[2], "snapshot": snapshot,
                              "source": SOURCE, "release": RELEASE, "payload": payload, "http": http or None,
                              "ts": datetime.now(timezone.utc).isoformat()}).encode() + b"\n")


def body(raw):
    """Return a JSON body as JSON, any other body (a form) as text; a GET's empty body as None (none sent)."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def on_request(request):  # httpx event hook: the body exactly as your code built it
    if call := CALL.get():  # W3C trace context, so the API's own logs join the same trace
        request.headers["traceparent"] = f"00-{call[0]}-{secrets.token_hex(8)}-01"
    log("request", body(request.content), method=request.method, url=str(request.url))


def on_response(response):
    log("response", body(response.read()), status_code=response.status_code)


http = httpx.Client(event_hooks={"request": [on_request], "response": [on_response]}, timeout=30)


def trace_id_from(traceparent):
    """Return the trace id of a W3C traceparent ("00-<32 hex>-<16 hex>-<flags>"), else a new one."""
    parts = (traceparent or "").split("-")
    return parts[1] if len(parts) == 4 and len(parts[1]) == 32 else secrets.token_hex(16)


def run_tool(trace_id, tool_call, tools):
    """Run one tool call of the model with its snapshots logged under its trace and call id; return the
    text the model gets back (the role=tool message's content), logged as the call's result."""
    token = CALL.set((trace_id, tool_call.id, tool_call.function.name))
    try:
        log("arguments", tool_call.function.arguments)  # the model's JSON text, as it sent it
        content = json.dumps(tools[tool_call.function.name](**json.loads(tool_call.function.arguments)))
        log("result", content)  # what the model reads: tracediff checks it against the response
        return content
    finally:
        CALL.reset(token)
# --- tracediff: paste to here ---------------------------------------------------------------


def find_orders(status: str, limit: int) -> dict:
    """The tool: search orders through your API with the client that logs."""
    # The planted bug: limit goes out as a string; tracediff reports it as type_changed.
    return http.post(f"{os.environ['ORDERS_API']}/orders/search",
                     json={"status": status, "limit": str(limit)}).json()


TOOLS = {"find_orders": find_orders}
SPEC = [{"type": "function", "function": {
    "name": "find_orders", "description": "Search the customer's orders.",
    "parameters": {"type": "object", "required": ["status", "limit"], "properties": {
        "status": {"type": "string", "enum": ["paid", "refunded"]}, "limit": {"type": "integer"}}}}}]


def main():
    trace_id = trace_id_from(os.environ.get("TRACEPARENT"))  # the caller's trace, else a new one
    client = OpenAI()
    messages = [{"role": "user", "content": "Show me my last 5 paid orders."}]
    while True:
        reply = client.chat.completions.create(model=os.environ.get("MODEL", "gpt-4.1-mini"),
                                               messages=messages, tools=SPEC).choices[0].message
        messages.append(reply)
        if not reply.tool_calls:
            break
        for tool_call in reply.tool_calls:
            content = run_tool(trace_id, tool_call, TOOLS)
            messages.append({"role": "tool", "tool_call_id": tool_call.id, "content": content})
    print(reply.content)
    print(f"{os.environ.get('TRACEDIFF_URL', 'http://127.0.0.1:8000')}/traces/{trace_id}")


if __name__ == "__main__":
    main()
