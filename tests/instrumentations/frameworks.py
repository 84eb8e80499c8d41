"""A real agent of one framework, exporting OTLP/HTTP as its docs say.

Recorded to a file.

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
                whole = answer(self.path, body)[1]
                if not body.get("stream"):
                    return self.answer_whole(whole)
                message = whole["choices"][0]["message"]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in outer.chunks(message, body["model"]):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            # a framework that asks for no stream (CrewAI) gets the whole answer
            def answer_whole(self, whole):
                data = json.dumps(whole).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def chunks(message: dict, model: str) -> list[dict]:
        calls = [{"index": n, **call} for n, call in enumerate(message.get("tool_calls") or [])]
        # one tool call a chunk, as OpenAI streams them (LlamaIndex reads one call per delta)
        deltas = [{"role": "assistant", "content": message["content"]}]
        deltas += [{"tool_calls": [call]} for call in calls]
        base = {
            "id": "chatcmpl-standin",
            "object": "chat.completion.chunk",
            "created": 1764547200,
            "model": model,
        }
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return [
            *(
                {**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
                for d in deltas
            ),
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


def gemini_model(calls, ids: bool = True):
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
            # the Gemini API names no call (ADK gives each an id of its own)
            for part in parts if not ids else ():
                del part["functionCall"]["id"]
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


def run_llamaindex(endpoint: str, model_url: str, find_orders) -> list:
    flushes = otel_sdk(endpoint)
    import asyncio

    from llama_index.core.agent.workflow import FunctionAgent
    from llama_index.core.tools import FunctionTool
    from llama_index.llms.openai import OpenAI
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    LlamaIndexInstrumentor().instrument()

    def find_orders_tool(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return find_orders(status, limit)

    agent = FunctionAgent(
        tools=[FunctionTool.from_defaults(fn=find_orders_tool, name="find_orders")],
        llm=OpenAI(model="gpt-4.1-mini", api_base=f"{model_url}/v1", api_key="sk-standin"),
        system_prompt="Find orders.",
    )

    async def run():
        await agent.run(user_msg=PROMPT)

    asyncio.run(run())
    return flushes


def run_crewai(endpoint: str, model_url: str, find_orders) -> list:
    # CrewAI's own telemetry and tracing go to its servers: off, as a user without them sets it
    os.environ.update({"CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_TRACING_ENABLED": "false"})
    flushes = otel_sdk(endpoint)
    from crewai import LLM, Agent, Crew, Task
    from crewai.tools import tool
    from openinference.instrumentation.crewai import CrewAIInstrumentor
    from openinference.instrumentation.openai import OpenAIInstrumentor

    CrewAIInstrumentor().instrument()
    OpenAIInstrumentor().instrument()

    @tool("find_orders")
    def find_orders_tool(status: str, limit: int) -> dict:
        """Search the customer's orders."""
        return find_orders(status, limit)

    llm = LLM(model="openai/gpt-4.1-mini", base_url=f"{model_url}/v1", api_key="sk-standin")
    agent = Agent(
        role="Orders assistant",
        goal="Answer questions about the customer's orders.",
        backstory="You look orders up with find_orders.",
        tools=[find_orders_tool],
        llm=llm,
        max_iter=3,
    )
    task = Task(description=PROMPT, expected_output="The orders.", agent=agent)
    Crew(agents=[agent], tasks=[task]).kickoff()
    return flushes


class AnthropicStreamingModel(StreamingModel):
    """An Anthropic messages stand-in that streams (Claude Code asks for a stream): tool_use blocks
    for `calls` (named as Claude Code names an SDK MCP server's tool), text once the tool_results
    are there; any other request (a title, a quota check) gets text."""

    def __init__(self, calls, tool_name: str):
        self.calls, self.tool_name, outer = calls, tool_name, self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.requests.append(body)
                blocks = outer.blocks(body)
                if not body.get("stream"):
                    return self.answer_whole(body, blocks)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in outer.events(blocks, body.get("model", "claude-sonnet-4-5")):
                    self.wfile.write(
                        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
                    )

            def answer_whole(self, body, blocks):
                data = json.dumps(
                    outer.message(blocks, body.get("model", "claude-sonnet-4-5"))
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.requests = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def blocks(self, body: dict) -> list[dict]:
        offered = any(t.get("name") == self.tool_name for t in body.get("tools") or [])
        answered = any(
            type(m.get("content")) is list
            and any(b.get("type") == "tool_result" for b in m["content"])
            for m in body.get("messages") or []
        )
        if not offered or answered:
            return [{"type": "text", "text": "You have 1 paid order."}]
        return [{"type": "tool_use", "id": f"toolu_standin_{n:02d}", "name": self.tool_name,
                 "input": args} for n, args in enumerate(self.calls, 1)]  # fmt: skip

    @staticmethod
    def message(blocks: list[dict], model: str) -> dict:
        stop = "tool_use" if blocks[0]["type"] == "tool_use" else "end_turn"
        return {"id": "msg_standin", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}  # fmt: skip

    def events(self, blocks: list[dict], model: str) -> list[dict]:
        whole = self.message(blocks, model)
        start = {**whole, "content": [], "stop_reason": None}
        events = [{"type": "message_start", "message": start}]
        for n, block in enumerate(blocks):
            if block["type"] == "text":
                opened, delta = {**block, "text": ""}, {"type": "text_delta", "text": block["text"]}
            else:
                opened = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [
                {"type": "content_block_start", "index": n, "content_block": opened},
                {"type": "content_block_delta", "index": n, "delta": delta},
                {"type": "content_block_stop", "index": n},
            ]
        ending = {"stop_reason": whole["stop_reason"], "stop_sequence": None}
        events.append({"type": "message_delta", "delta": ending, "usage": {"output_tokens": 5}})
        return [*events, {"type": "message_stop"}]


def run_claude_agent(endpoint: str, model_url: str, find_orders) -> list:
    flushes = otel_sdk(endpoint)
    os.environ.update(
        {
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": "sk-ant-standin",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # MCP tools are deferred behind ToolSearch by default: offer them to the model at once
            "ENABLE_TOOL_SEARCH": "false",
        }
    )
    import asyncio

    from openinference.instrumentation.claude_agent_sdk import ClaudeAgentSDKInstrumentor

    ClaudeAgentSDKInstrumentor().instrument()
    from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, query, tool

    @tool("find_orders", "Search the customer's orders.", {"status": str, "limit": int})
    async def find_orders_tool(args: dict) -> dict:
        found = find_orders(args["status"], args["limit"])
        return {"content": [{"type": "text", "text": json.dumps(found)}]}

    options = ClaudeAgentOptions(
        mcp_servers={"orders": create_sdk_mcp_server("orders", tools=[find_orders_tool])},
        allowed_tools=[CLAUDE_TOOL],
        model="claude-sonnet-4-5",
        max_turns=3,
    )

    async def run():
        async for _ in query(prompt=PROMPT, options=options):
            pass

    asyncio.run(run())
    return flushes


# the name Claude Code gives find_orders on the SDK MCP server "orders"
CLAUDE_TOOL = "mcp__orders__find_orders"


def run_adk2(endpoint: str, model_url: str, find_orders) -> list:
    """ADK 2.x: the same agent; its semconv spans carry the arguments, results and messages only
    with the GenAI content switch set to a span mode."""
    os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    return run_adk(endpoint, model_url, find_orders)


FRAMEWORKS = {
    "langgraph": run_langgraph,
    "strands": run_strands,
    "adk": run_adk,
    "adk2": run_adk2,
    "claude-agent": run_claude_agent,
    "llamaindex": run_llamaindex,
    "crewai": run_crewai,
}


def main(framework: str, turn: str, prefix: str) -> None:
    collector = Collector()
    if framework in ("strands", "llamaindex", "crewai"):
        model_server = StreamingModel(CALLS[turn])
    elif framework == "claude-agent":
        model_server = AnthropicStreamingModel(CALLS[turn], CLAUDE_TOOL)
    else:
        model_server = StandIn(
            gemini_model(CALLS[turn], ids=framework == "adk")
            if framework.startswith("adk")
            else openai_model(CALLS[turn])
        )
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
