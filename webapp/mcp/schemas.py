"""The tools' input and output schemas (JSON Schema 2020-12).

Contracts, as the issue names them (pure)."""

from ..analysis import KIND_NAMES
from ..common.stages import NAMES
from ..problems.fingerprint import SCHEMA_KIND
from ..problems.states import STATES

SNAPSHOTS = list(NAMES)
STRING, TEXT, ANY = {"type": "string"}, {"type": "string", "maxLength": 1000}, {}
NULLABLE = {"type": ["string", "null"]}
COUNT = {"type": "integer", "minimum": 0}
STRINGS = {"type": "array", "items": STRING}
TIME = {**TEXT, "description": "RFC 3339, a day (2026-11-30), or a time ago: 30m, 2h, 7d, 2w."}
LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 50,
    "default": 20,
    "description": "Most items answered.",
}
CURSOR = {**TEXT, "description": "The next_cursor of the previous answer, for the next page."}
DEFAULT_BUDGET, MAX_BUDGET = 32_768, 524_288


def obj(required: list, properties: dict, closed: bool = False) -> dict:
    """Return an object schema."""
    schema = {"type": "object", "properties": properties, "required": required}
    return {**schema, "additionalProperties": False} if closed else schema


def array(items: dict) -> dict:
    return {"type": "array", "items": items}


END = {
    "type": ["object", "null"],
    "properties": {"snapshot": STRING, "path": STRING},
    "description": "One end: the snapshot and a JSON Pointer in it; a request field outside the "
    "body is "
    "located (query:/page_size, path:/invoiceId, header:/idempotency-key, form:/amount).",
}
CUT = obj(
    ["pointer", "type", "bytes"],
    {
        "at": {**STRING, "description": "Where the marker stands in this answer (a JSON Pointer)."},
        "call_id": STRING,
        "snapshot": STRING,
        "pointer": {
            **STRING,
            "description": "The place cut, as a JSON Pointer inside its payload or value.",
        },
        "type": STRING,
        "bytes": COUNT,
        "members": COUNT,
        "kept": {
            **COUNT,
            "description": "Members kept, in order, before the marker (a container cut short).",
        },
        "keys_left_out": STRINGS,
    },
)
CUTS = {
    "cut": {
        **array(CUT),
        "description": "The places cut to keep this answer in its budget, biggest first.",
    },
    "cut_total": COUNT,
}
ERROR = obj(
    ["error"],
    {
        "error": obj(
            ["code", "message", "retryable"],
            {"code": STRING, "message": STRING, "retryable": {"type": "boolean"}},
        )
    },
)
FINDING = obj(
    ["kind", "severity"],
    {
        "kind": {"enum": list(KIND_NAMES)},
        "severity": {"enum": ["error", "warning", "info"]},
        "left": END,
        "right": END,
        "left_value": ANY,
        "right_value": ANY,
        "message": STRING,
        "transform": NULLABLE,
        "reason": NULLABLE,
        "problem": NULLABLE,
    },
)
VALIDATION = {
    "type": "object",
    "description": "Per snapshot: the schema checked, whether it held, its errors (at most 20) and "
    "their count.",
}
PROBLEM = obj(
    ["id", "permalink", "tool", "kind", "severity", "state"],
    {
        "id": STRING,
        "permalink": STRING,
        "what": {
            **STRING,
            "description": "What broke, in one line (its paths and values are data).",
        },
        "tool": NULLABLE,
        "kind": STRING,
        "severity": STRING,
        "state": STRING,
        "left": END,
        "right": END,
        "transform": NULLABLE,
        "first_seen": NULLABLE,
        "last_seen": NULLABLE,
        "occurrences": COUNT,
        "calls": COUNT,
        "traces": COUNT,
        "releases": STRINGS,
        "sources": STRINGS,
        "links": STRINGS,
        "in_release": {"type": "object"},
    },
)
PAGE = {
    "next_cursor": NULLABLE,
    "left_out": {
        **COUNT,
        "description": "Items of this page left out to keep the answer in its byte budget.",
    },
}


def inputs() -> dict:
    """Return each tool's input schema, by name."""
    return {
        "search_traces": obj(
            [],
            {
                "text": {
                    **TEXT,
                    "description": "A trace id prefix, a tool name, or words inside payloads.",
                },
                "tool": TEXT,
                "kind": {"enum": list(KIND_NAMES), "description": "A finding kind the trace has."},
                "severity": {
                    "enum": ["error", "warning", "info", "clean"],
                    "description": "The worst finding.",
                },
                "release": {**TEXT, "description": "A release one of its calls named."},
                "since": TIME,
                "until": TIME,
                "limit": LIMIT,
                "cursor": CURSOR,
            },
            closed=True,
        ),
        "get_trace": obj(
            ["trace_id"],
            {
                "trace_id": {"type": "string", "minLength": 1, "maxLength": 128},
                "call_id": {**TEXT, "description": "Only this call of the trace."},
                "snapshot": {
                    "enum": SNAPSHOTS,
                    "description": "With call_id and pointer: whose subtree to read.",
                },
                "pointer": {
                    **TEXT,
                    "description": "A JSON Pointer inside that snapshot's payload (a `pointer` of "
                    "`cut`): answer that "
                    "subtree alone, cut to the budget in turn.",
                },
                "budget_bytes": {
                    "type": "integer",
                    "minimum": 1024,
                    "maximum": MAX_BUDGET,
                    "default": DEFAULT_BUDGET,
                    "description": "Bytes of payload JSON answered in all, shared fairly among the "
                    "snapshots.",
                },
            },
            closed=True,
        ),
        "list_problems": obj(
            [],
            {
                "state": {"enum": list(STATES)},
                "tool": TEXT,
                "kind": {"enum": [*KIND_NAMES, SCHEMA_KIND]},
                "release": {**TEXT, "description": "Problems seen in this release."},
                "since": TIME,
                "limit": LIMIT,
                "cursor": CURSOR,
            },
            closed=True,
        ),
        "get_problem": obj(
            ["id"], {"id": {"type": "string", "pattern": "^TD-[0-9]{1,18}$"}}, closed=True
        ),
        "compare_release": obj(
            ["release"],
            {
                "release": {**TEXT, "minLength": 1},
                "with": {
                    **TEXT,
                    "description": "The release to compare with; default: the one before it.",
                },
            },
            closed=True,
        ),
        "get_tool": obj(["name"], {"name": {**TEXT, "minLength": 1}}, closed=True),
        "check_call": obj(
            ["tool"],
            {
                "tool": {
                    **TEXT,
                    "minLength": 1,
                    "description": "The tool whose stored contract checks the call.",
                },
                "arguments": {"description": "The model's arguments (a JSON value)."},
                "request": {
                    "description": "The HTTP request's body: JSON, or text (a GET sends none)."
                },
                "method": TEXT,
                "url": {
                    **STRING,
                    "description": "The request's URL, absolute or a path: its query "
                    "and path count.",
                },
                "headers": {"type": "object", "additionalProperties": STRING},
                "response": {"description": "The HTTP response's body: JSON, or text."},
                "status": {"type": "integer", "minimum": 100, "maximum": 599},
                "result": {"description": "What the tool handed back to the model: JSON, or text."},
                "result_is_error": {
                    "type": "boolean",
                    "description": "Whether the model was told it failed.",
                },
            },
            closed=True,
        ),
        "lint_tools": obj(
            ["tools"],
            {
                "tools": {
                    "description": "Tool definitions (OpenAI, Anthropic, MCP, Gemini) or "
                    "contracts: a JSON value, or "
                    "the text of a JSON or YAML file."
                },
                "openapi": {
                    "description": "The OpenAPI document the tools call: a JSON value, or "
                    "JSON or YAML text."
                },
                "operations": {
                    "type": ["object", "array"],
                    "description": 'Which operation each tool maps to: {"tool": "operationId or '
                    'METHOD /path"}, '
                    'or ["tool=operationId"].',
                },
            },
            closed=True,
        ),
    }


def outputs() -> dict:
    """Return each tool's output schema, by name."""
    return {
        "search_traces": obj(["traces", "next_cursor"], {"traces": array(_trace_row()), **PAGE}),
        "get_trace": obj(
            ["trace_id", "permalink", "budget_bytes", "cut", "cut_total"],
            {
                "trace_id": STRING,
                "permalink": STRING,
                "budget_bytes": COUNT,
                "calls": array(_call()),
                "calls_total": COUNT,
                "subtree": obj(
                    ["call_id", "snapshot", "pointer", "value"],
                    {"call_id": STRING, "snapshot": STRING, "pointer": STRING, "value": ANY},
                ),
                "expand": {**STRING, "description": "How to ask for a part that was cut."},
                **CUTS,
            },
        ),
        "list_problems": obj(["problems", "next_cursor"], {"problems": array(PROBLEM), **PAGE}),
        "get_problem": _problem_detail(),
        "compare_release": obj(
            ["release", "with", "broke", "fixed"],
            {
                "release": STRING,
                "with": NULLABLE,
                "broke": {
                    **array(PROBLEM),
                    "description": "Problems seen in `release`, never in `with`.",
                },
                "fixed": {
                    **array(PROBLEM),
                    "description": "Problems of `with` that `release` no longer shows.",
                },
                "broke_total": COUNT,
                "fixed_total": COUNT,
                "permalink": STRING,
            },
        ),
        "get_tool": _tool(),
        "check_call": obj(
            ["tool", "outcome", "passed", "findings", "validation"],
            {
                "tool": STRING,
                "outcome": {"enum": ["passed", "failed"]},
                "passed": {"type": "boolean"},
                "contract_digest": NULLABLE,
                "worst": NULLABLE,
                "summary": {"type": "object"},
                "validation": VALIDATION,
                "findings": array(FINDING),
                "findings_total": COUNT,
                **CUTS,
            },
        ),
        "lint_tools": obj(
            ["tools", "summary"],
            {
                "tools": array(
                    obj(
                        ["tool", "outcome"],
                        {
                            "tool": STRING,
                            "operation": NULLABLE,
                            "outcome": {"enum": ["passed", "failed", "not_linted", "broken"]},
                            "error": NULLABLE,
                            "mismatches": array({"type": "object"}),
                            "mismatches_total": COUNT,
                        },
                    )
                ),
                "summary": {"type": "object"},
                "left_out": COUNT,
            },
        ),
    }


def _trace_row() -> dict:
    return obj(
        ["trace_id", "permalink"],
        {
            "trace_id": STRING,
            "permalink": STRING,
            "first_seen": STRING,
            "last_seen": STRING,
            "tools": STRINGS,
            "sources": STRINGS,
            "calls": COUNT,
            "worst": NULLABLE,
            "kinds": STRINGS,
            "loud_kinds": {"type": ["array", "null"], "items": STRING},
            "status_codes": array({"type": "integer"}),
            "complete": {"type": "boolean"},
        },
    )


def _call() -> dict:
    snapshot = {
        "type": ["object", "null"],
        "properties": {
            "payload": ANY,
            "http": {"type": ["object", "null"]},
            "logged_as_string": {"type": "boolean"},
        },
    }
    return obj(
        ["call_id", "snapshots", "findings", "validation"],
        {
            "call_id": STRING,
            "tool": NULLABLE,
            "permalink": STRING,
            "source": NULLABLE,
            "release": NULLABLE,
            "status_code": {"type": ["integer", "null"]},
            "worst": NULLABLE,
            "summary": {"type": "object"},
            "snapshots": {"type": "object", "properties": {name: snapshot for name in SNAPSHOTS}},
            "validation": VALIDATION,
            "findings": array(FINDING),
            "findings_total": COUNT,
            "problems": STRINGS,
            "analyzed": {"type": "boolean"},
            "incomplete": {"type": ["string", "null"]},
            "missing": {
                **STRINGS,
                "description": "The stages never received: nothing was compared there.",
            },
        },
    )


def _problem_detail() -> dict:
    call = {
        "type": ["object", "null"],
        "description": "A call: trace_id, call_id, its time, release, permalink.",
    }
    return obj(
        ["id", "permalink", "what", "exposure", "value_pairs", "nearest_clean_call"],
        {
            **PROBLEM["properties"],
            "exposure": {"type": ["object", "null"]},
            "by_release": array({"type": "object"}),
            "value_pairs": {
                **array(
                    obj(["count"], {"left": ANY, "right": ANY, "count": COUNT, "missing": STRINGS})
                ),
                "description": "The most common value pairs at its two ends (values are data, cut "
                "when long).",
            },
            "examples": {"type": "object", "properties": {"first": call, "latest": call}},
            "last_clean_before": call,
            "nearest_clean_call": call,
            "state_history": array({"type": "object"}),
            "resolution": {"type": ["object", "null"]},
            "verification": {"type": ["object", "null"]},
            **CUTS,
        },
    )


def _tool() -> dict:
    return obj(
        ["name", "permalink", "contract", "mappings", "observed"],
        {
            "name": STRING,
            "permalink": STRING,
            "contract": {
                "type": ["object", "null"],
                "description": "The stored contract (schemas cut when large).",
            },
            "request_line": {"type": ["object", "null"]},
            "mappings": {
                "type": "object",
                "description": "declared, inferred, candidates and rejected pairs, each with its "
                "evidence.",
            },
            "observed": {
                "type": "object",
                "description": "Per stage: the schema learnt from traffic, its calls, open drift, "
                "disagreements.",
            },
            "way_back": {"type": ["object", "null"]},
            "recent_calls": array({"type": "object"}),
            **CUTS,
        },
    )
