"""Who a span's snapshots belong to.

Tool spans and their kinds, HTTP spans and their bodies, call identities."""

from __future__ import annotations

from typing import Any

from . import genai, vercel_ai
from .otlp_spans import SPAN_KIND_CLIENT, Span


class Identities:
    """The (tool, call id, source) of each span.

    Its own, its tool ancestor's, or its turn's announced call."""

    def __init__(self, owners: dict, above: dict, hosts: dict | None = None):
        # hosts: id(MCP server span) -> the framework's tool span it ran within (host_tools)
        self.owners, self.above, self.hosts = owners, above, hosts or {}
        # (trace id, call id) of the calls named here for want of the model's call id: the store
        # joins them to the model's call when a span of another export links them (store/rejoin.py)
        self.invented: set[tuple[str, str]] = set()

    def of_tool(self, s: Span) -> tuple[str | None, str, str | None]:
        tool, call_id = _tool_name(s, TOOL_KEYS[tool_kind(s)][0]), own_call_id(s)
        # an MCP server span inside its client's span, or inside the framework's tool span that
        # called it in process: the same call
        parent = self.above.get(id(s)) or self.hosts.get(id(s))
        if not call_id and parent is not None:
            return self.of_tool(parent)
        if tool is not None and framework_of(s) == "claude-agent-sdk":
            tool = mcp_tool_name(tool)
        turn_call = self.owners.get(id(s))
        if turn_call is not None:
            call_id = call_id or turn_call[1].call_id
            tool = tool or turn_call[1].name
        # two calls without ids must never collapse into one
        if not call_id:
            rpc = s.attrs.get("jsonrpc.request.id")
            call_id = f"jsonrpc-{rpc}" if rpc is not None and rpc != "" else s.span_id
            self.invented.add((s.trace_id, call_id))
        return tool, call_id, source_of(s) or (turn_call[0].provider if turn_call else None)

    def of_http(
        self, s: Span, trace_tools: list[Span]
    ) -> tuple[str | None, str, str | None] | None:
        owner = self.above.get(id(s))
        if owner is not None:
            return self.of_tool(owner)
        if id(s) in self.owners:
            turn, call = self.owners[id(s)]
            return call.name, call.call_id, source_of(s) or turn.provider
        if len(trace_tools) == 1:
            return self.of_tool(trace_tools[0])
        around = tool_around(s, trace_tools)
        return self.of_tool(around) if around is not None else None


def own_call_id(s: Span) -> str:
    """Return the model's call id a tool span carries itself, or ""."""
    _, id_key, _, result_key = TOOL_KEYS[tool_kind(s)]
    # OpenInference's newer spelling of the call id (the Claude Agent SDK's tool spans)
    call_id = _call_id(s, id_key) or _call_id(s, "tool.id")
    # LangChain's tool span names no call: the ToolMessage it returns carries the model's
    return call_id or genai.result_call_id(s.attrs.get(result_key))


def tool_around(s: Span, tools: list[Span]) -> Span | None:
    """Return the tool span an HTTP span ran within when its context was lost.

    LangGraph runs sync tools in threads: the one whose time holds it, else among those the one
    whose arguments its request body carries."""
    around = [t for t in tools if t.start_ns <= s.start_ns and s.end_ns <= t.end_ns]
    return _best_by_arguments(around, _leaves(genai.parse_value(body_of(s.attrs, "request"))))


def host_tools(tools: list[Span], below: dict) -> dict[int, Span]:
    """Return {id(MCP server span): the framework tool span it ran within}.

    For MCP `tools/call` spans no context tied to their caller (the Claude Agent SDK's in-process
    MCP server): the tool span of its name whose time holds it, else among those the one whose
    arguments the request bodies beneath it (`below`: id(span) -> its HTTP spans) carry."""
    hosts = {}
    callers = [t for t in tools if "mcp.method.name" not in t.attrs]
    for s in tools:
        if s.attrs.get("mcp.method.name") != "tools/call" or not callers:
            continue
        name = s.attrs.get("gen_ai.tool.name")
        around = [
            t
            for t in callers
            if t.trace_id == s.trace_id
            and t.start_ns <= s.start_ns
            and s.end_ns <= t.end_ns
            and mcp_tool_name(_tool_name(t, TOOL_KEYS[tool_kind(t)][0]) or "") == name
        ]
        sent = set().union(
            *(_leaves(genai.parse_value(body_of(h.attrs, "request"))) for h in below.get(id(s), []))
        )
        host = _best_by_arguments(around, sent)
        if host is not None:
            hosts[id(s)] = host
    return hosts


def _best_by_arguments(around: list[Span], sent: set[str]) -> Span | None:
    """Return the span of `around` whose arguments share most with `sent`.

    The only one when there is one."""
    if len(around) <= 1:
        return around[0] if around else None
    scores = [
        len(sent & _leaves(genai.unwrap_arguments(t.attrs.get(TOOL_KEYS[tool_kind(t)][2]))))
        for t in around
    ]
    best = max(scores)
    return around[scores.index(best)] if best and scores.count(best) == 1 else None


def mcp_tool_name(name: str) -> str:
    """Return an MCP tool's own name out of Claude Code's `mcp__<server>__<tool>`."""
    parts = name.split("__", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "mcp" and parts[2] else name


def _leaves(value: Any) -> set[str]:
    """The scalar values inside a payload, as text.

    A renamed field or a number sent as text still matches."""
    if type(value) is dict:
        return set().union(*map(_leaves, value.values())) if value else set()
    if type(value) is list:
        return set().union(*map(_leaves, value)) if value else set()
    return {str(value)}


def read_framework_events(spans: list[Span]) -> None:
    """Give a framework's spans the semconv attributes its own spelling means.

    Strands records a call in span events, Google ADK 1.x in gcp.vertex.agent.* attributes, the
    Vercel AI SDK in ai.* attributes."""
    for s in spans:
        system, operation = s.attrs.get("gen_ai.system"), s.attrs.get("gen_ai.operation.name")
        found = {}
        if system == "strands-agents" and s.events:
            is_tool = operation == "execute_tool"
            found = (
                genai.strands_tool_events(s.events)
                if is_tool
                else genai.strands_turn_events(s.events)
            )
        elif system == "gcp.vertex.agent":
            is_tool = operation == "execute_tool"
            found = genai.adk_tool_attrs(s.attrs) if is_tool else {}
            found = found or (genai.adk_model_attrs(s.attrs) if s.name == "call_llm" else {})
        elif "ai.operationId" in s.attrs:
            found = vercel_ai.semconv_attrs(s.attrs)
        for key, value in found.items():
            s.attrs.setdefault(key, value)


def adopt_read_bodies(spans: list[Span], by_id: dict) -> None:
    """Give a response body logfire read in a child span to its HTTP span.

    Logfire reads a response body in a child span `Reading response body`."""
    for s in spans:
        text = s.attrs.get("http.response.body.text")
        parent = by_id.get((s.trace_id, s.parent_id))
        if parent is not None and text is not None and not is_http(s):
            parent.attrs.setdefault("http.response.body.text", text)


def is_http(s: Span) -> bool:
    return s.kind == SPAN_KIND_CLIENT and http_method(s) is not None and not tool_kind(s)


def body_of(attrs: dict, side: str) -> Any:
    """Return an HTTP span's request or response body.

    The recipe's `.content`, logfire's `.text`."""
    content = attrs.get(f"http.{side}.body.content")
    return attrs.get(f"http.{side}.body.text") if content is None else content


def has_body(s: Span) -> bool:
    return body_of(s.attrs, "request") is not None or body_of(s.attrs, "response") is not None


def tool_kind(s: Span) -> str | None:
    a = s.attrs
    # ADK 1.x's summary of parallel calls: none of its own
    if a.get("gen_ai.tool.name") == "(merged tools)":
        return None
    if s.name.startswith("execute_tool") or a.get("gen_ai.operation.name") == "execute_tool":
        return "genai"
    # the mcp SDK's client span of a tools/call ("MCP send tools/call find_orders"): the server's
    # span, in another process, sits under it
    if s.kind == SPAN_KIND_CLIENT and a.get("mcp.method.name") == "tools/call":
        return "genai"
    if a.get("openinference.span.kind") == "TOOL":
        return "openinference"
    if a.get("traceloop.span.kind") == "tool":
        return "openllmetry"
    return None


# kind: (tool name, call id, arguments, result)
TOOL_KEYS = {
    "genai": (
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
    ),
    "openinference": ("tool.name", "tool_call.id", "input.value", "output.value"),
    "openllmetry": (
        "traceloop.entity.name",
        "gen_ai.tool.call.id",
        "traceloop.entity.input",
        "traceloop.entity.output",
    ),
}


def tool_ancestor(s: Span, by_id: dict) -> Span | None:
    """Return the nearest tool-span ancestor."""
    parent_id, hops = s.parent_id, 0
    while parent_id and hops < 256:
        parent = by_id.get((s.trace_id, parent_id))
        if parent is None:
            break
        if tool_kind(parent):
            return parent
        parent_id, hops = parent.parent_id, hops + 1
    return None


# The agent frameworks a span's instrumentation scope names (a prefix of it), as sources: a
# framework's call is named by the framework, not by the model provider under it. Instrumentations
# of a provider's plain SDK (openinference.instrumentation.openai,
# opentelemetry.instrumentation.anthropic...) are not here: their calls keep the provider's name.
FRAMEWORK_SCOPES = (
    ("openinference.instrumentation.openai_agents", "openai-agents"),
    ("openai.agents", "openai-agents"),
    ("openinference.instrumentation.langchain", "langchain"),
    ("openinference.instrumentation.smolagents", "smolagents"),
    ("openinference.instrumentation.crewai", "crewai"),
    ("openinference.instrumentation.llama_index", "llama-index"),
    ("openinference.instrumentation.google_adk", "google-adk"),
    ("openinference.instrumentation.pydantic_ai", "pydantic-ai"),
    ("openinference.instrumentation.agno", "agno"),
    ("openinference.instrumentation.autogen", "autogen"),
    ("openinference.instrumentation.claude_agent_sdk", "claude-agent-sdk"),
    ("opentelemetry.instrumentation.langchain", "langchain"),
    ("opentelemetry.instrumentation.crewai", "crewai"),
    ("opentelemetry.instrumentation.llamaindex", "llama-index"),
    ("pydantic-ai", "pydantic-ai"),
    ("pydantic_ai", "pydantic-ai"),
    ("gcp.vertex.agent", "google-adk"),
    ("google.adk", "google-adk"),
    ("strands", "strands"),
    ("crewai", "crewai"),
    ("llama_index", "llama-index"),
    ("smolagents", "smolagents"),
    # @mastra/otel-bridge, @mastra/otel-exporter
    ("@mastra", "mastra"),
    ("mastra", "mastra"),
    # the Vercel AI SDK's tracer is named "ai"; @ai-sdk/otel's (ai 7) "gen_ai"
    ("ai", "vercel-ai"),
    ("gen_ai", "vercel-ai"),
)
# attributes only a framework writes, where its scope says nothing
FRAMEWORK_PREFIXES = (
    ("gcp.vertex.agent.", "google-adk"),
    ("ai.toolCall.", "vercel-ai"),
    ("ai.operationId", "vercel-ai"),
)


def source_of(s: Span | None) -> str | None:
    """Return the chain that made the call.

    `tracediff.source` on the span, mcp for an MCP span, else the agent framework its
    instrumentation scope or attributes name."""
    if s is None:
        return None
    value = s.attrs.get("tracediff.source")
    if type(value) is str:
        return value
    return "mcp" if "mcp.method.name" in s.attrs else framework_of(s)


def framework_of(s: Span) -> str | None:
    """Return the agent framework that made a span, None for anything else.

    openai-agents, pydantic-ai..."""
    scope = s.scope
    for prefix, name in FRAMEWORK_SCOPES:
        if scope == prefix or scope.startswith((prefix + ".", prefix + "/")):
            return name
    for prefix, name in FRAMEWORK_PREFIXES:
        if any(key.startswith(prefix) for key in s.attrs):
            return name
    return None


def http_method(s: Span) -> str | None:
    m = s.attrs.get("http.request.method", s.attrs.get("http.method"))
    return m if type(m) is str else None


def _tool_name(s: Span, key: str) -> str | None:
    v = s.attrs.get(key)
    if type(v) is str:
        return v
    # an MCP span names its tool only in its name: "MCP send tools/call find_orders"
    if s.attrs.get("mcp.method.name") == "tools/call" and "tools/call " in s.name:
        return s.name.rpartition("tools/call ")[2].strip() or None
    return None


def _call_id(s: Span, key: str) -> str:
    v = s.attrs.get(key)
    return v if type(v) is str else ("" if v is None else str(v))
