"""Tools lists derived from an OpenAPI document.

For `tracediff lint`'s tests and bench: the tool an engineer would write for each operation (its
arguments are the request's body and parameters), and bugs planted in it."""

import copy

from webapp.contracts import tools_from_openapi
from webapp.contracts.openapi import form_schema, operation_ids


def derived_tool(contract: dict, form=None) -> dict:
    """Return the arguments schema of a tool that sends exactly what an operation's contract takes
    (and the fields of its form body, when it has one)."""
    params = [p for p in contract["http"]["parameters"] if p["in"] in ("path", "query")]
    extra = {p["name"]: copy.deepcopy(p.get("schema") or {}) for p in params}
    needed = [p["name"] for p in params if p["in"] == "path" or p.get("required")]
    body = copy.deepcopy(contract.get("request_schema") or form)
    if body is not None:
        body.pop("$schema", None)
    if body is None:
        return {"type": "object", "properties": extra, **({"required": needed} if needed else {})}
    if isinstance(body.get("properties"), dict) and not set(extra) & set(body["properties"]):
        body["properties"].update(extra)
        body["required"] = (
            [*body.get("required", []), *needed] if body.get("required") or needed else []
        )
        if not body["required"]:
            del body["required"]
        return body
    return {
        "allOf": [
            body,
            {"type": "object", "properties": extra, **({"required": needed} if needed else {})},
        ]
    }


def derived_tools(openapi: dict, only=None) -> list[dict]:
    """Return an OpenAI tools list with one derived tool per operation (or per operation in
    `only`)."""
    out = []
    for op in only or operation_ids(openapi):
        contract = tools_from_openapi(openapi, {op: op})[op]
        form = form_schema(openapi, op)
        out.append(
            {
                "type": "function",
                "function": {"name": op, "parameters": derived_tool(contract, form)},
            }
        )
    return out
