"""Read the Vercel AI SDK's own spans as GenAI semantic convention attributes.

The attributes they mean.

The `ai` package with experimental_telemetry (or @ai-sdk/otel's legacy integration) writes them:
`ai.toolCall` is a tool span (`ai.toolCall.name`, `.id`, `.args`, `.result`); a provider call
(`ai.generateText.doGenerate`, `ai.streamText.doStream`) is a model span whose
`ai.response.toolCalls` are the calls the model announced and whose `ai.prompt.messages` carry the
tool results sent back to it. Pure functions of attribute dicts.
"""

from __future__ import annotations

from typing import Any

from .genai import parse_value

_MODEL_CALLS = frozenset(
    (
        "ai.generateText.doGenerate",
        "ai.streamText.doStream",
        "ai.generateObject.doGenerate",
        "ai.streamObject.doStream",
    )
)


def semconv_attrs(attrs: dict) -> dict:
    """Return the semconv attributes an AI SDK span means, by its `ai.operationId`.

    {} for any other span."""
    operation = attrs.get("ai.operationId")
    if operation == "ai.toolCall":
        return _tool_attrs(attrs)
    if operation in _MODEL_CALLS:
        return _model_attrs(attrs)
    return {}


def _tool_attrs(attrs: dict) -> dict:
    found = {"gen_ai.operation.name": "execute_tool"}
    for key, semconv in (
        ("ai.toolCall.name", "gen_ai.tool.name"),
        ("ai.toolCall.id", "gen_ai.tool.call.id"),
        ("ai.toolCall.args", "gen_ai.tool.call.arguments"),
        ("ai.toolCall.result", "gen_ai.tool.call.result"),
    ):
        if key in attrs:
            found[semconv] = attrs[key]
    return found


def _model_attrs(attrs: dict) -> dict:
    """Return a provider call's semconv attributes.

    Its announced calls as output messages, the tool results of its prompt as input messages,
    its tools as definitions."""
    calls = [
        {
            "type": "tool_call",
            "id": call.get("toolCallId"),
            "name": call.get("toolName"),
            # `input` since ai 5, `args` before
            "arguments": call.get("input", call.get("args")),
        }
        for call in _dicts(parse_value(attrs.get("ai.response.toolCalls")))
    ]
    answers = [
        {"type": "tool_call_response", "id": part.get("toolCallId"), "response": _output(part)}
        for message in _dicts(parse_value(attrs.get("ai.prompt.messages")))
        if message.get("role") == "tool"
        for part in _dicts(message.get("content"))
        if part.get("type") == "tool-result" and part.get("toolCallId") is not None
    ]
    tools = [parse_value(tool) for tool in _as_list(attrs.get("ai.prompt.tools"))]
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": [{"role": "assistant", "parts": calls}],
        "gen_ai.input.messages": [{"role": "tool", "parts": answers}],
        "gen_ai.tool.definitions": [t for t in tools if type(t) is dict],
    }


def _output(part: dict) -> Any:
    """Return a tool-result part's output.

    {"type": "json"|"text"|..., "value"} since ai 5, `result` before."""
    output = part.get("output")
    if type(output) is dict and "value" in output:
        return parse_value(output["value"])
    return parse_value(part.get("result", output))


def _dicts(value: Any) -> list[dict]:
    return [v for v in _as_list(value) if type(v) is dict]


def _as_list(value: Any) -> list:
    return value if type(value) is list else []
