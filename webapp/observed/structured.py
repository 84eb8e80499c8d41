"""The part of a result stage's shape a `result_schema` checks.

MCP's structuredContent, or a JSON result itself.

A result is stored as the agent logged it (analysis/snapshots/result_forms.py reads it): an MCP
CallToolResult, whose `structuredContent` an outputSchema describes; plain JSON, checked whole; or
text and content blocks, which hold no structured value a schema could be learnt for."""

from .shapes import _count

STRUCTURED = "/structuredContent"
# a CallToolResult's, a tool_result block's
_ENVELOPE = ("/content", "/isError", "/is_error", "/error", "/type")


def structured_shape(shape: dict | None) -> tuple[dict, str] | None:
    """Return the structured result's shape and where it sits, or None.

    (the shape, where it sits in the payload); None when the results learnt carry none (text,
    content blocks without structuredContent, tool_result blocks, JSON-RPC errors)."""
    if not shape or not shape["calls"] or "" not in shape["paths"]:
        return None
    paths = shape["paths"]
    if STRUCTURED in paths:
        return _rerooted(shape, STRUCTURED), STRUCTURED
    if set(paths[""]["t"]) - {"object", "array"} or any(key in paths for key in _ENVELOPE):
        return None
    return shape, ""


def _rerooted(shape: dict, prefix: str) -> dict:
    """Return the shape of the subtree at `prefix`, as if it had been learnt alone."""
    paths = {
        path[len(prefix) :]: entry for path, entry in shape["paths"].items() if _under(path, prefix)
    }
    calls = _count(paths[""]["t"], "object") or paths[""]["n"]
    return {**shape, "calls": calls, "paths": paths}


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")
