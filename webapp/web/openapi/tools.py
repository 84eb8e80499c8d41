"""The tools paths of the document: contracts, their import, each tool's mappings and its observed schemas."""

from .operations import JSON, error, json_body, operation, param
from .schemas import POINTER, STRING, ref


def paths() -> dict:
    """Describe the paths under /api/v1/tools."""
    name = param(
        "name",
        "path",
        {"type": "string"},
        "The tool name, percent-encoded (a `/` in it, as MCP tool names have, may also be sent as is).",
    )
    not_found = error("No contract for this tool.")
    refused = error("The contract or document is refused; the message says why.")
    not_json = error("The body is not JSON.")
    return {
        "/api/v1/tools": {
            "get": operation(
                "List tool contracts.",
                {
                    "200": json_body(
                        {
                            "type": "object",
                            "required": ["tools"],
                            "properties": {"tools": {"type": "array", "items": ref("Tool")}},
                        },
                        "All contracts.",
                    )
                },
                tag="tools",
            )
        },
        "/api/v1/tools/{name}": {
            "get": operation(
                "Return a tool's contract.",
                {"200": json_body(ref("Tool"), "The contract."), "404": not_found},
                tag="tools",
                params=[name],
            ),
            "put": operation(
                "Create or replace a tool's contract.",
                {"200": json_body(ref("Tool"), "The stored contract."), "400": refused, "422": not_json},
                tag="tools",
                params=[name],
                admin=True,
                body={"required": True, "content": {JSON: {"schema": ref("Contract")}}},
            ),
            "delete": operation(
                "Delete a tool's contract.",
                {"204": {"description": "Deleted."}, "404": not_found},
                tag="tools",
                params=[name],
                admin=True,
            ),
        },
        "/api/v1/tools/import": {
            "post": operation(
                "Import tool definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document.",
                {
                    "200": json_body(
                        {
                            "type": "object",
                            "required": ["imported"],
                            "properties": {"imported": {"type": "array", "items": {"type": "string"}}},
                        },
                        "The tools saved.",
                    ),
                    "400": refused,
                    "422": not_json,
                },
                tag="tools",
                admin=True,
                params=[
                    param(
                        "operation",
                        "query",
                        {"type": "array", "items": {"type": "string"}},
                        "`tool=operationId` pairs choosing OpenAPI operations.",
                    )
                ],
                body={"required": True, "content": {JSON: {"schema": {}}}},
            )
        },
        **mapping_paths(name, not_json),
        **observed_paths(name, not_json),
    }


def mapping_paths(name: dict, not_json: dict) -> dict:
    """The mappings of a tool: declared, inferred from traffic, candidates; confirm or reject one."""
    pair = {
        "type": "object",
        "required": ["arguments", "request"],
        "properties": {"arguments": POINTER, "request": POINTER},
    }
    listed = json_body(
        {
            "type": "object",
            "required": ["tool", "declared", "inferred", "candidates", "rejected"],
            "properties": {
                "tool": STRING,
                **{
                    k: {"type": "array", "items": {"type": "object"}}
                    for k in ("declared", "inferred", "candidates", "rejected", "changes")
                },
            },
        },
        "Each pair with its evidence (`equal in 448 of 450 calls`).",
    )
    unknown = error("No contract and no calls for this tool.")
    action = param(
        "action",
        "path",
        {"enum": ["confirm", "reject"]},
        "`confirm` writes the pair into the contract's mapping; `reject` keeps it out of inference.",
    )
    return {
        "/api/v1/tools/{name}/mappings": {
            "get": operation(
                "Return a tool's declared, inferred and candidate mappings with their evidence.",
                {"200": listed, "404": unknown},
                tag="tools",
                params=[name],
            )
        },
        "/api/v1/tools/{name}/mappings/{action}": {
            "post": operation(
                "Confirm or reject a mapping pair.",
                {"200": listed, "400": error("Not a pair of JSON Pointers."), "404": unknown, "422": not_json},
                tag="tools",
                params=[name, action],
                write=True,
                body={"required": True, "content": {JSON: {"schema": pair}}},
            )
        },
    }


STAGES = ("arguments", "request", "response", "result")


def observed_paths(name: dict, not_json: dict) -> dict:
    """A tool's observed schemas (learnt from its traffic: a contract draft) and adopting one into the contract."""
    draft = {
        "type": "object",
        "required": ["schema", "calls"],
        "properties": {
            "schema": {
                "type": ["object", "null"],
                "description": "JSON Schema 2020-12 learnt from the calls (null before any), with `x-tracediff-seen` "
                "counts per property: `{calls, of, types}`.",
            },
            "calls": {"type": "integer", "minimum": 0},
        },
    }
    drafts = {"type": "object", "required": list(STAGES), "properties": {stage: draft for stage in STAGES}}
    unknown = error("No contract and no calls for this tool.")
    stage = {"type": "object", "required": ["stage"], "properties": {"stage": {"enum": list(STAGES)}}}
    return {
        "/api/v1/tools/{name}/observed": {
            "get": operation(
                "Return the schemas learnt from a tool's traffic, per stage, with the calls each was learnt from.",
                {"200": json_body(drafts, "Per stage its observed schema and calls."), "404": unknown},
                tag="tools",
                params=[name],
            )
        },
        "/api/v1/tools/{name}/observed/adopt": {
            "post": operation(
                "Write a stage's observed schema into the tool's contract as its declared schema (enforced from then).",
                {
                    "200": json_body(ref("Tool"), "The stored contract."),
                    "400": error(
                        "Not a stage, nothing learnt of it yet, or results with no structured value to adopt."
                    ),
                    "404": unknown,
                    "422": not_json,
                },
                tag="tools",
                params=[name],
                admin=True,
                body={"required": True, "content": {JSON: {"schema": stage}}},
            )
        },
    }
