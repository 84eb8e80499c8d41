"""The check path of the document: one call analysed under its tool's stored contract, stored nowhere."""

from .operations import JSON, error, json_body, operation
from .schemas import KIND_NAMES, STRING, obj

NULLABLE = {"type": ["string", "null"]}
ANY = {"description": "Any JSON value, or text: an HTTP body that is not JSON is checked as text."}
CHECK = obj(
    ["tool"],
    {
        "tool": {**STRING, "description": "The tool whose stored contract (and inferred pairs) checks the call."},
        "arguments": {**ANY, "description": "The model's arguments."},
        "request": {**ANY, "description": "The HTTP request's body (a GET sends none: give `url`)."},
        "method": STRING,
        "url": {**STRING, "description": "The request's URL, absolute or a path: its path and query are checked."},
        "headers": {"type": "object", "additionalProperties": STRING},
        "response": {**ANY, "description": "The HTTP response's body."},
        "status": {"type": "integer", "minimum": 100, "maximum": 599, "description": "Unknown when left out."},
        "result": {**ANY, "description": "What the tool handed back to the model."},
        "result_is_error": {"type": ["boolean", "null"], "description": "What a flagless result told the model."},
    },
    additionalProperties=False,
)
CHECKED = obj(
    ["tool", "outcome", "contract_digest", "validation", "findings", "summary", "worst"],
    {
        "tool": STRING,
        "outcome": {"enum": ["passed", "failed"], "description": "failed: a warning, an error or a schema violation."},
        "contract_digest": {**NULLABLE, "description": "The contract checked under (null: the tool has none)."},
        "validation": {"type": "object"},
        "findings": {"type": "array", "items": obj(["kind"], {"kind": {"enum": list(KIND_NAMES)}})},
        "summary": {"type": "object"},
        "worst": NULLABLE,
    },
)


def paths() -> dict:
    """Describe POST /api/v1/check."""
    return {
        "/api/v1/check": {
            "post": operation(
                "Analyse one call under its tool's stored contract, as `tracediff check` does for fixture files; "
                "nothing is stored.",
                {
                    "200": json_body(CHECKED, "The analysis, and whether the call passes."),
                    "400": error("A field the check cannot use, or nothing to check (`bad_parameter`)."),
                    "404": error("A tool with no contract and no calls (`tool_not_found`)."),
                    "422": error("The body is not JSON (`not_json`)."),
                },
                tag="traces",
                body={"required": True, "content": {JSON: {"schema": CHECK}}},
            )
        }
    }
