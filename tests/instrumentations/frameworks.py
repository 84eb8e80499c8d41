"""A real agent of one framework, exporting OTLP/HTTP as its docs say, recorded to a file.

Run it with the Python of that framework's virtualenv (tests/instrumentations/README.md,
"Frameworks"):

    /tmp/venvs/<framework>/bin/python tests/instrumentations/frameworks.py FRAMEWORK one|two OUT_PREFIX

The framework's agent talks to a local stand-in model (OpenAI chat completions, or Gemini for ADK)
that asks for one or two `find_orders` calls in one turn; the tool posts to a local orders API
through httpx with the planted bug (`limit` 5 goes out as "5"), its bodies captured by the recipe's
hooks; the spans go to a local collector stand-in. OUT_PREFIX.pb and OUT_PREFIX.json as
agent_loop.py writes them.
"""

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# tests/: the stand-ins
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agent_loop import CALLS, Collector, instrumented_client, openai_model, otel_sdk, save  # noqa: E402
from standins import ORDERS, StandIn, orders_api  # noqa: E402

PROMPT = "Show me my last 5 paid and refunded orders."


def root_span(name: str):
    """The agent run's root span: LangGraph runs sync tools in a thread without it
    (docs/instrumenting.md)."""
    from opentelemetry import trace

    return trace.get_tracer("orders-agent").start_as_current_span(name)


def run_langgraph(endpoint: str, model_url: str, find_orders) -> list:
    flushes = otel_sdk(endpoint)
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.prebuilt import create_react_agent
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument()

    @tool
    def find_orders_tool(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return find_orders(status, limit)

    find_orders_tool.name = "find_orders"
    model = ChatOpenAI(model="gpt-4.1-mini", base_url=f"{model_url}/v1", api_key="sk-standin")
    agent = create_react_agent(model, [find_orders_tool])
    with root_span("invoke_agent orders-agent"):
        agent.invoke({"messages": [("user", PROMPT)]})
    return flushes


def run_strands(endpoint: str, model_url: str, find_orders) -> list:
    os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    from opentelemetry import trace
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel
    from strands.telemetry import StrandsTelemetry

    StrandsTelemetry().setup_otlp_exporter()

    @tool(name="find_orders")
    def find_orders_tool(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return find_orders(status, limit)

    model = OpenAIModel(
        client_args={"base_url": f"{model_url}/v1", "api_key": "sk-standin"},
        model_id="gpt-4.1-mini",
    )
    Agent(model=model, tools=[find_orders_tool], name="orders-agent", callback_handler=None)(PROMPT)
    return [trace.get_tracer_provider().force_flush]


class StreamingModel:
    """An OpenAI chat completions stand-in that streams (Strands always asks for a stream):
    server-sent chunks."""

    def __init__(self, calls):
        answer = openai_model(calls)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                message = answer(self.path, body)[1]["choices"][0]["message"]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in outer.chunks(message, body["model"]):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def chunks(message: dict, model: str) -> list[dict]:
        calls = [{"index": n, **call} for n, call in enumerate(message.get("tool_calls") or [])]
        delta = {"role": "assistant", "content": message["content"]}
        if calls:
            delta["tool_calls"] = calls
        base = {
            "id": "chatcmpl-standin",
            "object": "chat.completion.chunk",
            "created": 1764547200,
            "model": model,
        }
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {
                **base,
                "choices": [
                    {"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}
                ],
            },
            {**base, "choices": [], "usage": usage},
        ]

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def gemini_model(calls):
    """A Gemini generateContent stand-in: functionCall parts first, text once the functionResponses
    are there."""

    def answer(path, body):
        answered = any(
            "functionResponse" in p for c in body["contents"] for p in c.get("parts", [])
        )
        parts = [{"text": "You have 1 paid order."}]
        if not answered:
            parts = [{"functionCall": {"id": f"adk-standin-{n:02d}", "name": "find_orders", "args": args}}
                     for n, args in enumerate(calls, 1)]  # fmt: skip
        return 200, {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                     "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                     "modelVersion": "gemini-2.5-flash"}  # fmt: skip

    return answer


def run_adk(endpoint: str, model_url: str, find_orders) -> list:
    flushes = otel_sdk(endpoint)
    os.environ.update({"GOOGLE_GEMINI_BASE_URL": model_url, "GOOGLE_API_KEY": "standin"})
    import asyncio

    from google.adk.agents import Agent
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    def find_orders_tool(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return find_orders(status, limit)

    find_orders_tool.__name__ = "find_orders"
    agent = Agent(
        name="orders_agent",
        model="gemini-2.5-flash",
        instruction="Find orders.",
        tools=[find_orders_tool],
    )

    async def run():
        runner = InMemoryRunner(agent=agent, app_name="orders")
        session = await runner.session_service.create_session(app_name="orders", user_id="u1")
        message = types.Content(role="user", parts=[types.Part(text=PROMPT)])
        async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
            pass

    asyncio.run(run())
    return flushes


FRAMEWORKS = {"langgraph": run_langgraph, "strands": run_strands, "adk": run_adk}


def main(framework: str, turn: str, prefix: str) -> None:
    collector = Collector()
    if framework == "strands":
        model_server = StreamingModel(CALLS[turn])
    else:
        model_server = StandIn((gemini_model if framework == "adk" else openai_model)(CALLS[turn]))
    with StandIn(orders_api) as orders, model_server as model:
        # its spans reach the provider the framework sets up later
        http = instrumented_client(framework)

        def find_orders(status: str, limit: int) -> dict:
            # The planted bug: limit goes out as a string.
            return http.post(
                f"{orders.url}/orders/search", json={"status": status, "limit": str(limit)}
            ).json()

        flushes = FRAMEWORKS[framework](collector.url, model.url, find_orders)
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
    main(*sys.argv[1:4])
