"""Read what GenAI instrumentations record.

The tool calls a model announced, their results, the tools offered.

Three spellings reach us: the GenAI semantic conventions' messages (`gen_ai.output.messages` parts
of type `tool_call`, also on log records), OpenInference's flattened attributes
(`llm.output_messages.{i}.message. tool_calls.{j}.tool_call.*`) and openlit's `gen_ai.tool.*` lists
joined with ", ". Pure functions of attribute dicts: the span tree is otlp_turns.py's business.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from ..common import jsontext
from .model import is_depth_error

_MODEL_OPERATIONS = frozenset(
    ("chat", "text_completion", "generate_content", "completion", "responses")
)
_OI_CALL = re.compile(
    r"llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)\Z"
)
_OI_INPUT = re.compile(r"llm\.input_messages\.(\d+)\.message\.(role|tool_call_id|content)\Z")
# a message's content given as parts: llm.input_messages.N.message.contents.K.message_content.text
_OI_PART = re.compile(
    r"llm\.input_messages\.(\d+)\.message\.contents\.(\d+)\.message_content\.(type|text)\Z"
)
_OI_TOOL = re.compile(r"llm\.tools\.(\d+)\.tool\.json_schema\Z")
_OLD_CALL = re.compile(r"gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)\Z")


@dataclass(frozen=True)
class ToolCall:
    """One tool call a model asked for: its id, the tool's name, the arguments.

    Parsed when they were text."""

    call_id: str
    name: str | None
    arguments: Any = None


@dataclass(frozen=True)
class ToolResult:
    """What the agent sent back to the model for one call."""

    call_id: str
    content: Any


def is_model_span(attrs: dict) -> bool:
    """Tell a span that records one model request (chat, completion).

    Whatever the library."""
    if attrs.get("gen_ai.operation.name") in _MODEL_OPERATIONS:
        return True
    if attrs.get("openinference.span.kind") == "LLM":
        return True
    return attrs.get("traceloop.span.kind") == "llm" or attrs.get("llm.request.type") in (
        "chat",
        "completion",
    )


def provider(attrs: dict) -> str | None:
    """Return the model provider a model span names (openai, anthropic, ...)."""
    for key in ("gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"):
        value = attrs.get(key)
        if type(value) is str and value:
            return value
    return None


def announced_calls(attrs: dict) -> list[ToolCall]:
    """Return the tool calls a model span says the model made, in order.

    A model span, or a log record's attributes."""
    for read in (_semconv_calls, _openinference_calls, _old_openllmetry_calls, _openlit_calls):
        calls = read(attrs)
        if calls:
            return calls
    return []


def calls_in_messages(messages: Any) -> list[ToolCall]:
    """Return the tool calls of output messages.

    Semconv parts, or OpenAI-style `tool_calls` lists."""
    calls = []
    for message in _as_list(parse_value(messages)):
        if type(message) is not dict:
            continue
        for part in _as_list(message.get("parts")):
            if type(part) is dict and part.get("type") == "tool_call":
                calls.append(_call(part.get("id"), part.get("name"), part.get("arguments")))
        for call in _as_list(message.get("tool_calls")):
            if type(call) is dict:
                function = call.get("function") if type(call.get("function")) is dict else call
                calls.append(_call(call.get("id"), function.get("name"), function.get("arguments")))
        # the older gen_ai.choice event's body wraps its message
        inner = message.get("message")
        if type(inner) is dict:
            calls.extend(calls_in_messages([inner]))
    return calls


def results_in_messages(messages: Any) -> list[ToolResult]:
    """Return the tool results of input messages.

    `tool_call_response` parts and `tool` role messages."""
    results = []
    for message in _as_list(parse_value(messages)):
        if type(message) is not dict:
            continue
        for part in _as_list(message.get("parts")):
            if (
                type(part) is dict
                and part.get("type") == "tool_call_response"
                and part.get("id") is not None
            ):
                results.append(
                    ToolResult(
                        str(part["id"]),
                        _text_blocks(parse_value(part.get("response", part.get("result")))),
                    )
                )
        call_id = message.get("tool_call_id", message.get("id"))
        if message.get("role") == "tool" and not message.get("parts") and call_id is not None:
            results.append(
                ToolResult(str(call_id), _text_blocks(parse_value(message.get("content"))))
            )
    return results


def tool_results(attrs: dict) -> list[ToolResult]:
    """Return the tool results a model request carried to the model.

    Semconv or OpenInference."""
    results = results_in_messages(attrs.get("gen_ai.input.messages"))
    if results:
        return results
    messages: dict[int, dict] = {}
    parts: dict[int, dict[int, dict]] = {}
    for key, value in attrs.items():
        match = _OI_INPUT.match(key)
        if match:
            messages.setdefault(int(match[1]), {})[match[2]] = value
        match = _OI_PART.match(key)
        if match:
            parts.setdefault(int(match[1]), {}).setdefault(int(match[2]), {})[match[3]] = value
    for n, message in messages.items():
        if "content" not in message and n in parts:
            message["content"] = [part for _, part in sorted(parts[n].items())]
    return [
        ToolResult(str(m["tool_call_id"]), _text_blocks(parse_value(m.get("content"))))
        for _, m in sorted(messages.items())
        if m.get("role") == "tool" and m.get("tool_call_id") is not None
    ]


def tool_definitions(attrs: dict) -> dict[str, dict]:
    """Return {tool name: arguments JSON Schema} of the tools a model request offered."""
    offered = _as_list(parse_value(attrs.get("gen_ai.tool.definitions")))
    offered += [parse_value(v) for k, v in sorted(attrs.items()) if _OI_TOOL.match(k)]
    schemas = {}
    for tool in offered:
        if type(tool) is not dict:
            continue
        spec = tool["function"] if type(tool.get("function")) is dict else tool
        schema = spec.get("parameters", spec.get("input_schema", spec.get("inputSchema")))
        if type(spec.get("name")) is str and type(schema) is dict:
            schemas[spec["name"]] = schema
    return schemas


def listed_tools(attrs: dict) -> dict[str, dict]:
    """Return {tool name: input schema} of a recorded MCP tools/list result.

    As OpenLLMetry's MCP spans record it."""
    for key in ("traceloop.entity.output", "mcp.response.value", "output.value"):
        listed = parse_value(attrs.get(key))
        if type(listed) is dict and type(listed.get("tools")) is list:
            return tool_definitions({"gen_ai.tool.definitions": listed["tools"]})
    return {}


def parse_value(value: Any) -> Any:
    """Parse JSON text.

    Fall back to a Python literal (openlit writes str(dict)); leave other text as it is."""
    if type(value) is not str:
        return value
    text = value.strip()
    if not text or text[0] not in "[{":
        return value
    try:
        return jsontext.loads(text)
    except jsontext.JSONDecodeError as exc:
        if is_depth_error(exc):
            # left as text: the envelope refuses it as too deep, with the limit in its message
            return value
    try:
        # literals only: never eval
        literal = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return value
    return literal if type(literal) in (dict, list) else value


# the keys a keyword-call wrapper may hold beside args and kwargs (smolagents' tool call switch)
CALL_WRAPPER_EXTRAS = {"sanitize_inputs_outputs"}


def unwrap_arguments(value: Any) -> Any:
    """Return the arguments inside a wrapper.

    A Python call's {"args": [], "kwargs": {}} (traceloop; smolagents with its
    "sanitize_inputs_outputs"; LlamaIndex's {"kwargs": {}} alone), MCP {"tool_name",
    "arguments"}."""
    value = parse_value(value)
    if (
        type(value) is dict
        and {"kwargs"} <= set(value) <= {"args", "kwargs", *CALL_WRAPPER_EXTRAS}
        and not value.get("args")
        and type(value["kwargs"]) is dict
    ):
        return value["kwargs"]
    if (
        type(value) is dict
        and "tool_name" in value
        and "arguments" in value
        and set(value) <= {"tool_name", "arguments", "meta"}
    ):
        return parse_value(value["arguments"])
    return value


def tool_result(value: Any) -> Any:
    """Return what a tool handed back to the model.

    Out of its {"result": "<JSON text>"} wrappers and a LangChain ToolMessage. An MCP CallToolResult
    stays whole: its isError and structuredContent are what the model was told."""
    value = parse_value(value)
    message = langchain_tool_message(value)
    if message is not None:
        value = parse_value(message.get("content"))
    value = _text_blocks(llama_index_tool_output(value))
    while type(value) is dict and set(value) == {"result"}:
        value = parse_value(value["result"])
    return value


def unwrap_result(value: Any) -> Any:
    """Return the data a tool's result holds.

    Out of its wrappers, an MCP CallToolResult's content."""
    value = tool_result(value)
    if (
        type(value) is dict
        and "content" in value
        and set(value) <= {"content", "isError", "structuredContent", "meta", "_meta"}
    ):
        if value.get("structuredContent") is not None:
            return value["structuredContent"]
        texts = [
            c.get("text")
            for c in _as_list(value["content"])
            if type(c) is dict and c.get("type") == "text"
        ]
        if len(texts) == 1:
            return parse_value(texts[0])
    return value


def llama_index_tool_output(value: Any) -> Any:
    """Return the content blocks of a LlamaIndex ToolOutput, else the value.

    The blocks are what the model got."""
    if (
        type(value) is dict
        and {"blocks", "tool_name", "raw_output"} <= set(value)
        and type(value["blocks"]) is list
    ):
        return value["blocks"]
    return value


def _text_blocks(value: Any) -> Any:
    """Return the text of a result given as content blocks, parsed.

    Strands' [{"text": ...}], MCP's and the Claude Agent SDK's [{"type": "text", "text": ...}]
    (an OpenAI tool message's content parts too); else the value."""
    if type(value) is list and value and all(_is_text_block(b) for b in value):
        return parse_value("".join(b["text"] for b in value))
    return value


def _is_text_block(block: Any) -> bool:
    return (
        type(block) is dict
        and type(block.get("text")) is str
        and set(block) <= {"type", "text", "annotations", "meta", "_meta"}
        and block.get("type", "text") == "text"
    )


def strands_tool_events(events: list) -> dict:
    """Return the semconv attributes Strands' execute_tool span events stand for.

    The arguments of its `gen_ai.tool.message` event, the result of its `gen_ai.choice` event
    (content blocks)."""
    attrs = {}
    for name, event in events:
        if name == "gen_ai.tool.message" and "content" in event:
            attrs["gen_ai.tool.call.arguments"] = event["content"]
        elif name == "gen_ai.choice" and "message" in event:
            attrs["gen_ai.tool.call.result"] = event["message"]
    return attrs


def strands_turn_events(events: list) -> dict:
    """Return `gen_ai.output.messages` for a Strands chat span's tool uses.

    The `toolUse` blocks of its `gen_ai.choice` event."""
    parts = []
    for name, event in events:
        if name != "gen_ai.choice":
            continue
        for block in _as_list(parse_value(event.get("message"))):
            use = block.get("toolUse") if type(block) is dict else None
            if type(use) is dict:
                call = {"type": "tool_call", "id": use.get("toolUseId"), "name": use.get("name")}
                parts.append({**call, "arguments": use.get("input")})
    return {"gen_ai.output.messages": [{"role": "assistant", "parts": parts}]} if parts else {}


def adk_tool_attrs(attrs: dict) -> dict:
    """Return the semconv attributes of Google ADK 1.x's execute_tool span.

    What its gcp.vertex.agent.* attributes stand for."""
    found = {}
    if "gcp.vertex.agent.tool_call_args" in attrs:
        found["gen_ai.tool.call.arguments"] = attrs["gcp.vertex.agent.tool_call_args"]
    if "gcp.vertex.agent.tool_response" in attrs:
        found["gen_ai.tool.call.result"] = attrs["gcp.vertex.agent.tool_response"]
    return found


def adk_model_attrs(attrs: dict) -> dict:
    """Return the semconv attributes of Google ADK 1.x's call_llm span.

    The function calls of its llm_response as output messages, the function responses of its
    llm_request as input messages."""
    response, request = (
        parse_value(attrs.get("gcp.vertex.agent.llm_response")),
        parse_value(attrs.get("gcp.vertex.agent.llm_request")),
    )
    if type(response) is not dict and type(request) is not dict:
        return {}
    calls = [
        {"type": "tool_call", "id": c.get("id"), "name": c.get("name"), "arguments": c.get("args")}
        for c in _gemini_parts(
            [(response or {}).get("content")] if type(response) is dict else [], "function_call"
        )
    ]
    answers = [
        {"type": "tool_call_response", "id": r.get("id"), "response": r.get("response")}
        for r in _gemini_parts(
            (request or {}).get("contents") if type(request) is dict else [], "function_response"
        )
        if r.get("id") is not None
    ]
    return {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.output.messages": [{"role": "assistant", "parts": calls}],
        "gen_ai.input.messages": [{"role": "tool", "parts": answers}],
    }


def _gemini_parts(contents: Any, kind: str) -> list[dict]:
    """The `kind` parts (function_call, function_response) of Gemini contents.

    Either spelling of the key."""
    camel = "functionCall" if kind == "function_call" else "functionResponse"
    found = []
    for content in _as_list(contents):
        for part in _as_list(content.get("parts")) if type(content) is dict else []:
            inner = part.get(kind, part.get(camel)) if type(part) is dict else None
            if type(inner) is dict:
                found.append(inner)
    return found


def langchain_tool_message(value: Any) -> dict | None:
    """Return the fields of a serialized LangChain ToolMessage, else None.

    OpenInference's tool output."""
    value = parse_value(value)
    if type(value) is dict and value.get("type") == "tool" and type(value.get("data")) is dict:
        return value["data"]
    return None


def result_call_id(value: Any) -> str:
    """Return the model's call id a tool's result carries, or "".

    A LangChain ToolMessage's tool_call_id."""
    message = langchain_tool_message(value)
    call_id = message.get("tool_call_id") if message is not None else None
    return call_id if type(call_id) is str else ""


def _call(call_id: Any, name: Any, arguments: Any) -> ToolCall:
    return ToolCall(
        "" if call_id is None else str(call_id),
        name if type(name) is str else None,
        parse_value(arguments),
    )


def _semconv_calls(attrs: dict) -> list[ToolCall]:
    return calls_in_messages(attrs.get("gen_ai.output.messages"))


def _openinference_calls(attrs: dict) -> list[ToolCall]:
    found: dict[tuple[int, int], dict] = {}
    for key, value in attrs.items():
        match = _OI_CALL.match(key)
        if match:
            found.setdefault((int(match[1]), int(match[2])), {})[match[3]] = value
    return [
        _call(c.get("id"), c.get("function.name"), c.get("function.arguments"))
        for _, c in sorted(found.items())
    ]


def _old_openllmetry_calls(attrs: dict) -> list[ToolCall]:
    found: dict[tuple[int, int], dict] = {}
    for key, value in attrs.items():
        match = _OLD_CALL.match(key)
        if match:
            found.setdefault((int(match[1]), int(match[2])), {})[match[3]] = value
    return [_call(c.get("id"), c.get("name"), c.get("arguments")) for _, c in sorted(found.items())]


def _openlit_calls(attrs: dict) -> list[ToolCall]:
    names = attrs.get("gen_ai.tool.name")
    if type(names) is not str or not names:
        return []
    names = _split_joined(names)
    ids = _split_joined(str(attrs.get("gen_ai.tool.call.id") or ""))
    args = _split_joined(str(attrs.get("gen_ai.tool.args") or ""))
    return [
        _call(ids[n] if n < len(ids) else "", name, args[n] if n < len(args) else None)
        for n, name in enumerate(names)
    ]


def _split_joined(text: str) -> list[str]:
    """Split values openlit joined with ", ", never inside brackets or quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        elif depth == 0 and text.startswith(", ", i):
            parts.append(text[start:i])
            start, i = i + 2, i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _as_list(value: Any) -> list:
    return value if type(value) is list else []
