"""Recognise the tool-call objects agents already log as snapshots.

Anthropic, OpenAI, Gemini, MCP.

What a tool handed back to the model (a `role: tool` message, an Anthropic `tool_result` block, an
MCP `CallToolResult`) is the call's `result` snapshot; the HTTP exchange behind it, when logged, is
request and response.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..common import jsontext

# {"snapshot", "payload", "tool", "call_id", "source"}
Call = dict
_TEXT_TYPES = ("text", "output_text", "input_text")


def extract_calls(rec: dict) -> list[Call] | None:
    """Return the snapshots a known shape holds, else None.

    None when the record is no shape we know."""
    for detect in _DETECTORS:
        calls = detect(rec)
        if calls is not None:
            return calls
    return None


def _call(
    snapshot: str, payload: Any, tool: Any = None, call_id: Any = None, source: Any = None
) -> Call:
    return {
        "snapshot": snapshot,
        "payload": payload,
        "tool": tool,
        "call_id": call_id,
        "source": source,
    }


def _anthropic_block(rec: dict) -> list[Call] | None:
    kind = rec.get("type")
    if kind == "tool_use" and "input" in rec:
        return [_call("arguments", rec["input"], rec.get("name"), rec.get("id"))]
    if kind == "tool_result" and "tool_use_id" in rec:
        # the whole block: its is_error says whether the model was told of a failure
        block = {k: v for k, v in rec.items() if k in ("type", "content", "is_error")}
        return [_call("result", block, None, rec["tool_use_id"])]
    return None


def _openai_tool_call(rec: dict) -> list[Call] | None:
    fn = rec.get("function")
    if rec.get("type") == "function" and type(fn) is dict and "arguments" in fn:
        return [_call("arguments", fn["arguments"], fn.get("name"), rec.get("id"))]
    return None


def _responses_item(rec: dict) -> list[Call] | None:
    kind = rec.get("type")
    if kind == "function_call" and "arguments" in rec:
        return [_call("arguments", rec["arguments"], rec.get("name"), rec.get("call_id"))]
    if kind == "function_call_output" and "output" in rec:
        return [_call("result", _text_content(rec["output"]), None, rec.get("call_id"))]
    return None


def _message(rec: dict) -> list[Call] | None:
    """A whole chat message.

    Assistant tool_calls, a role=tool reply, or Anthropic content blocks."""
    if rec.get("role") == "tool" and "tool_call_id" in rec:
        return [
            _call("result", _text_content(rec.get("content")), rec.get("name"), rec["tool_call_id"])
        ]
    calls: list[Call] = []
    tool_calls = rec.get("tool_calls")
    if type(tool_calls) is list:
        calls += _each(tool_calls, _openai_tool_call)
    content = rec.get("content")
    if "role" in rec and type(content) is list:
        calls += _each(content, _anthropic_block)
    parts = rec.get("parts")
    if type(parts) is list:
        calls += _each(parts, _gemini_part)
    return calls or None


def _containers(rec: dict) -> list[Call] | None:
    """Whole API responses.

    OpenAI choices, Responses output items, Gemini candidates."""
    calls: list[Call] = []
    for choice in _list(rec.get("choices")):
        if type(choice) is dict and type(choice.get("message")) is dict:
            calls += _message(choice["message"]) or []
    if rec.get("object") == "response" or "output" in rec and type(rec.get("output")) is list:
        calls += _each(_list(rec.get("output")), _responses_item)
    for cand in _list(rec.get("candidates")):
        if type(cand) is dict and type(cand.get("content")) is dict:
            calls += _message(cand["content"]) or []
    return calls or None


def _gemini_part(rec: dict) -> list[Call] | None:
    fc = rec.get("functionCall")
    if type(fc) is dict:
        return [_call("arguments", fc.get("args", {}), fc.get("name"), fc.get("id"))]
    fr = rec.get("functionResponse")
    if type(fr) is dict:
        return [_call("result", fr.get("response"), fr.get("name"), fr.get("id"))]
    return None


def _mcp(rec: dict) -> list[Call] | None:
    if "jsonrpc" not in rec or "id" not in rec:
        return None
    rpc_id = rec["id"]
    call_id = rpc_id if type(rpc_id) is str else jsontext.dumps(rpc_id).decode()
    params = rec.get("params")
    if rec.get("method") == "tools/call" and type(params) is dict:
        return [_call("arguments", params.get("arguments", {}), params.get("name"), call_id, "mcp")]
    result = rec.get("result")
    if type(result) is dict and ("content" in result or "structuredContent" in result):
        # the CallToolResult as the model got it: content, structuredContent and isError
        return [_call("result", result, None, call_id, "mcp")]
    if type(rec.get("error")) is dict:
        return [_call("result", {"error": rec["error"]}, None, call_id, "mcp")]
    return None


def _text_content(content: Any) -> Any:
    """Join a list of text blocks into one string (parsed later if it holds JSON).

    Keep other content."""
    if type(content) is not list or not content:
        return content
    texts = []
    for block in content:
        if (
            type(block) is not dict
            or block.get("type") not in _TEXT_TYPES
            or type(block.get("text")) is not str
        ):
            return content
        texts.append(block["text"])
    return "".join(texts)


def _each(items: list, detect: Callable[[dict], list[Call] | None]) -> list[Call]:
    calls: list[Call] = []
    for item in items:
        if type(item) is dict:
            calls += detect(item) or []
    return calls


def _list(value: Any) -> list:
    return value if type(value) is list else []


_DETECTORS = (
    _mcp,
    _anthropic_block,
    _openai_tool_call,
    _responses_item,
    _gemini_part,
    _message,
    _containers,
)
