"""Read a `result` snapshot in the forms agents log it.

The result is what the tool handed back to the model.

An MCP `CallToolResult` (`content`, `structuredContent`, `isError`), an Anthropic `tool_result`
block (`content`, `is_error`), the error of a JSON-RPC answer (`{"error": {...}}` as ingest keeps
it, or the whole answer with its `jsonrpc` and `id`), or the text or JSON itself. What it says
about failure is its flag when the form has one; plain text and JSON have none, unless the envelope
said `"is_error"` (kept in the event's meta).
"""

from dataclasses import dataclass
from typing import Any

from ...common import jsontext
from ...common.pointers import MISSING

_TEXT_TYPES = ("text", "output_text", "input_text")
_ANTHROPIC_KEYS = frozenset(("type", "content", "is_error", "tool_use_id", "cache_control"))


@dataclass
class Reading:
    """What the model got.

    Whether it was told the call failed, the text it read, the structured value."""

    # None: the form carries no flag
    is_error: bool | None
    text: str | None
    # structuredContent, a JSON result, or the JSON a text holds
    structured: Any = MISSING
    # where `structured` sits in the stored payload; None when parsed from text
    prefix: str | None = ""
    # the flag's name: isError, is_error, error, or "" when there is none
    flagged: str = ""
    # the flag was set (an MCP `isError` left out is false by default, not said)
    flag_given: bool = False
    # bytes of what the model got
    size: int = 0


def read_result(snapshot: dict | None) -> Reading | None:
    """Return the reading of a call's result snapshot, or None when the call has none."""
    if not snapshot:
        return None
    payload = snapshot.get("payload")
    told = (snapshot.get("meta") or {}).get("is_error")
    told = told if isinstance(told, bool) else None
    if isinstance(payload, dict) and _mcp_like(payload):
        reading = _mcp(payload)
    elif (
        isinstance(payload, dict)
        and payload.get("type") == "tool_result"
        and payload.keys() <= _ANTHROPIC_KEYS
    ):
        reading = _anthropic(payload)
    elif _rpc_error(payload):
        reading = Reading(
            True, _error_text(payload["error"]), payload["error"], "/error", "error", True
        )
    elif isinstance(payload, str):
        reading = _from_text(payload, told)
    else:
        reading = Reading(told, None, payload, "")
    if told is not None and reading.is_error is None:
        reading.is_error = told
    if told is not None and reading.is_error is told and not reading.flagged:
        # the envelope's flag told it
        reading.flagged = "is_error"
    reading.flag_given = reading.flag_given or told is not None
    reading.size = _size(payload, reading)
    return reading


def _rpc_error(payload) -> bool:
    """Tell an error answer as a JSON-RPC client reads it.

    `{"error": {...}}`, with `jsonrpc` and `id` when kept whole: the MCP client's answer when a tool
    handler threw."""
    return (
        isinstance(payload, dict)
        and isinstance(payload.get("error"), dict)
        and payload.keys() <= {"error", "jsonrpc", "id"}
    )


def _mcp_like(payload: dict) -> bool:
    """Tell a CallToolResult from a body that has a `content`.

    SDKs add keys of their own: `_meta`, `resultType`."""
    content = payload.get("content")
    blocks = isinstance(content, list) and all(isinstance(b, dict) and "type" in b for b in content)
    return (
        "structuredContent" in payload
        or isinstance(payload.get("isError"), bool)
        or (blocks and bool(content))
    )


def _mcp(payload: dict) -> Reading:
    text = joined_text(payload.get("content"))
    # absent means success (MCP's default)
    is_error = payload.get("isError") is True
    given = isinstance(payload.get("isError"), bool)
    if "structuredContent" in payload:
        return Reading(
            is_error, text, payload["structuredContent"], "/structuredContent", "isError", given
        )
    return _with_json(Reading(is_error, text, MISSING, None, "isError", given))


def _anthropic(payload: dict) -> Reading:
    content = payload.get("content")
    text = content if isinstance(content, str) else joined_text(content)
    given = isinstance(payload.get("is_error"), bool)
    return _with_json(
        Reading(payload.get("is_error") is True, text, MISSING, None, "is_error", given)
    )


def _from_text(text: str, told: bool | None) -> Reading:
    return _with_json(Reading(told, text, MISSING, None))


def _with_json(reading: Reading) -> Reading:
    """Read the JSON a text holds as the structured result.

    A tool that answers with the body as text."""
    text = (reading.text or "").strip()
    if text[:1] in ("{", "["):
        try:
            reading.structured = jsontext.loads(text)
        except jsontext.JSONDecodeError:
            pass
    return reading


def joined_text(content) -> str | None:
    """Join a content list's text blocks (what the model read).

    None when there are none."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") in _TEXT_TYPES]
    return "\n".join(t for t in texts if isinstance(t, str)) if texts else None


def _error_text(error: dict) -> str:
    return " ".join(str(error[k]) for k in ("code", "message") if k in error)


def _size(payload, reading: Reading) -> int:
    if isinstance(payload, str) or (reading.text is not None and reading.prefix is None):
        return len((reading.text or "").encode("utf-8"))
    try:
        return len(jsontext.dumps(payload))
    except TypeError:
        return len(str(payload).encode("utf-8"))
