"""The schemas of the OpenAPI document: errors, events, traces, contracts and the rest."""

from ...analysis.kinds import KIND_NAMES

SNAPSHOTS = ["arguments", "request", "response", "result"]
MAPPED = SNAPSHOTS[:3]  # always answered, and what a mapping names; `result` only where a call has one


def ref(name: str) -> dict:
    """Point at one of the document's schemas."""
    return {"$ref": f"#/components/schemas/{name}"}


def obj(required: list, properties: dict, **extra) -> dict:
    """Return an object schema with its required fields."""
    return {"type": "object", "required": required, "properties": properties, **extra}


STRING, NULLABLE_STRING = {"type": "string"}, {"type": ["string", "null"]}
SECRET_PARTS = {
    "type": "array",
    "maxItems": 20,
    "items": {
        "oneOf": [
            {"type": "string", "minLength": 1, "maxLength": 100},
            {"type": "integer", "minimum": 1, "maximum": 100},
        ]
    },
    "description": "Query parameter names, and path segment numbers (1 is the first), of the URL"
    " that hold a secret besides those found by themselves (user info, secret-named parameters,"
    " webhook keys): all shown as [REDACTED].",
}
POINTER = {"type": "string", "description": "A JSON Pointer such as /amount."}
CONTRACT_PARTS = {
    "description": STRING,
    **{
        part: {"type": ["object", "boolean"], "description": "A JSON Schema (draft 7 unless $schema says)."}
        for part in ("arguments_schema", "request_schema", "response_schema", "error_schema", "result_schema")
    },
    "result_budget_bytes": {
        "type": "integer",
        "minimum": 1,
        "description": "Bytes of result the tool may hand the model before result_large (default 8192).",
    },
    "mapping": {
        "type": "array",
        "description": "Which field of one snapshot becomes which of another.",
        "items": {
            "type": "object",
            "minProperties": 2,
            "maxProperties": 3,
            "additionalProperties": False,
            "properties": {
                **{name: POINTER for name in MAPPED},
                "transform": {
                    "type": "string",
                    "description": "A change the mapping makes on purpose: x100, integer>string, lower>UPPER...",
                },
            },
        },
    },
    "consumed": {
        "type": "array",
        "items": POINTER,
        "description": "Arguments the mapping layer consumes itself (a selector, a projection): never "
        "on the wire, so never reported dropped.",
    },
}
SCHEMAS = {
    "Error": obj(
        ["error"],
        {
            "error": obj(
                ["code", "message", "retryable"], {"code": STRING, "message": STRING, "retryable": {"type": "boolean"}}
            )
        },
    ),
    "Event": obj(
        ["trace_id", "snapshot", "payload"],
        {
            "trace_id": {"type": "string", "minLength": 1, "maxLength": 128},
            "call_id": {"type": "string", "default": ""},
            "snapshot": {"enum": SNAPSHOTS},
            "tool": STRING,
            "source": STRING,
            "release": {"type": "string", "description": "App version, git sha or deploy id (OTLP service.version)."},
            "payload": {"description": "Any JSON value; a string holding JSON is parsed."},
            "http": obj(
                [], {"method": STRING, "url": STRING, "status_code": {"type": "integer"}, "headers": {"type": "object"}}
            ),
            "ts": {"type": "string", "description": "RFC 3339; default: receive time."},
            "event_id": {"type": "string", "description": "Idempotency key; default: a content hash."},
        },
    ),
    "IngestResult": obj(
        ["accepted", "duplicates", "rejected"],
        {
            "accepted": {"type": "integer"},
            "duplicates": {"type": "integer"},
            "rejected": {
                "type": "array",
                "items": obj(
                    ["index", "code", "message", "retryable"],
                    {"index": {"type": "integer"}, "code": STRING, "message": STRING, "retryable": {"type": "boolean"}},
                ),
            },
        },
    ),
    "TraceSummary": obj(
        ["trace_id", "tools", "snapshots", "last_seen"],
        {
            "trace_id": STRING,
            "tools": {"type": "array", "items": STRING},
            "last_seen": STRING,
            "snapshots": obj(MAPPED, {name: {"type": "boolean"} for name in SNAPSHOTS}),
        },
    ),
    "TraceList": obj(
        ["traces", "next_cursor"],
        {"traces": {"type": "array", "items": ref("TraceSummary")}, "next_cursor": NULLABLE_STRING},
    ),
    "Snapshot": obj(
        ["payload", "ts", "http"],
        {
            "payload": {},
            "ts": STRING,
            "http": {"type": ["object", "null"]},
            "logged_as_string": {"type": "boolean"},
            "event_id": STRING,
        },
    ),
    "Call": obj(
        ["call_id", "tool", "snapshots", "validation", "findings"],
        {
            "call_id": STRING,
            "tool": NULLABLE_STRING,
            "snapshots": obj(MAPPED, {name: {"oneOf": [ref("Snapshot"), {"type": "null"}]} for name in SNAPSHOTS}),
            "validation": {"type": "object"},
            "findings": {
                "type": "array",
                "items": obj(["kind"], {"kind": {"enum": list(KIND_NAMES)}, "problem": NULLABLE_STRING}),
            },
            "problems": {"type": "array", "items": STRING, "description": "The problems its findings belong to."},
        },
    ),
    "FindingPage": obj(
        ["trace_id", "call_id", "offset", "limit", "total", "next_offset"],
        {
            "trace_id": STRING,
            "call_id": STRING,
            "offset": {"type": "integer"},
            "limit": {"type": "integer"},
            "total": {"type": "integer"},
            "next_offset": {"type": ["integer", "null"]},
            "analyzed": {"type": "boolean"},
            "incomplete": NULLABLE_STRING,
            "findings": {"type": "array", "items": {"type": "object"}},
            "finding": {
                "type": "object",
                "description": "The finding paged through; a folded one has "
                "`occurrences` and `examples`, its paths hold `*`.",
            },
            "occurrences": {
                "type": "array",
                "items": obj(
                    ["left", "right"],
                    {
                        "left": {"type": ["object", "null"]},
                        "right": {"type": ["object", "null"]},
                        "left_value": {},
                        "right_value": {},
                    },
                ),
            },
        },
    ),
    "Trace": obj(["trace_id", "calls"], {"trace_id": STRING, "calls": {"type": "array", "items": ref("Call")}}),
    "Contract": obj([], CONTRACT_PARTS, additionalProperties=False),
    "Tool": obj(["name"], {"name": STRING, "updated_at": STRING, **CONTRACT_PARTS}),
    "Health": obj(
        ["status"],
        {
            "status": {"enum": ["ok", "degraded"]},
            "traces": {"type": "integer"},
            "problems": {"type": "array", "items": STRING},
            "quarantine": {"$ref": "#/components/schemas/QuarantineCounts"},
        },
    ),
    "Ready": obj(
        ["status", "checks"],
        {
            "status": {"const": "ready"},
            "checks": {
                "type": "object",
                "additionalProperties": obj(["ok", "detail"], {"ok": {"type": "boolean"}, "detail": STRING}),
            },
        },
    ),
    "AlertRule": obj(
        ["id", "url", "format", "on", "min_interval_s", "paused"],
        {
            "id": {"type": "integer"},
            "url": {**STRING, "description": "Its secrets (user info, keys...) as [REDACTED]."},
            "format": {"enum": ["webhook", "slack"]},
            "on": {"type": "array", "items": {"enum": ["new", "regressed", "escalating", "rejected_events"]}},
            "tool": NULLABLE_STRING,
            "kind": NULLABLE_STRING,
            "min_severity": NULLABLE_STRING,
            "source": NULLABLE_STRING,
            "min_interval_s": {"type": "integer"},
            "secret_parts": SECRET_PARTS,
            "paused": {"type": "boolean"},
            "paused_at": NULLABLE_STRING,
            "pause_reason": NULLABLE_STRING,
            "failures": {"type": "integer"},
            "failing_since": NULLABLE_STRING,
            "held": {"type": "integer", "description": "Messages written while the rule is paused, sent on resume."},
            "created_at": STRING,
            "secret": STRING,
        },
    ),
    "AlertDelivery": obj(
        ["id", "message_id", "at", "attempt", "state", "message_state"],
        {
            "id": {"type": "integer"},
            "message_id": STRING,
            "at": STRING,
            "attempt": {"type": "integer"},
            "status_code": {"type": ["integer", "null"]},
            "latency_ms": {"type": ["number", "null"]},
            "error": NULLABLE_STRING,
            "type": STRING,
            "state": {
                "enum": ["delivered", "failed", "dropped"],
                "description": "This attempt's own outcome (`dropped`: not sent, no call shows its problem any more).",
            },
            "message_state": {
                "enum": ["pending", "sending", "delivered", "failed", "dropped"],
                "description": "Where its message is now.",
            },
            "problem": {
                "type": ["object", "null"],
                "description": "The problem the message is about: `id` (null for a "
                "summary) and `title`; null for a message about no problem.",
                "properties": {"id": NULLABLE_STRING, "title": NULLABLE_STRING},
            },
        },
    ),
    "AlertMessage": obj(
        ["type", "timestamp", "data"],
        {
            "type": {
                "enum": ["problem.new", "problem.regressed", "problem.escalating", "ingest.rejected", "tracediff.test"],
                "description": "`tracediff.test` is a test send (`data.id` is `TD-TEST`): no problem is behind it.",
            },
            "timestamp": STRING,
            "data": {
                "type": "object",
                "description": (
                    "The problem as GET /api/v1/problems/{id} lists it; for ingest.rejected `count`, `window_s`, "
                    "`sources` "
                    "([{source, count}], most first), `source` (the latest batch's), `code`, `message`, `permalink`."
                ),
            },
        },
    ),
    "AlertRuleInput": obj(
        ["url"],
        {
            "url": STRING,
            "format": {"enum": ["webhook", "slack"]},
            "on": {"type": "array", "items": {"enum": ["new", "regressed", "escalating", "rejected_events"]}},
            "tool": NULLABLE_STRING,
            "kind": {**NULLABLE_STRING, "description": "A finding kind, or schema_violation."},
            "min_severity": {"enum": ["warning", "error", None]},
            "source": NULLABLE_STRING,
            "min_interval_s": {"type": "integer", "minimum": 0, "maximum": 604800},
            "secret_parts": SECRET_PARTS,
        },
        additionalProperties=False,
    ),
    "QuarantineCounts": obj(["total", "last_hour"], {"total": {"type": "integer"}, "last_hour": {"type": "integer"}}),
    "QuarantinedRecord": obj(
        ["id", "received_at", "code", "message", "source", "raw"],
        {
            "id": {"type": "integer"},
            "received_at": {"type": "string"},
            "code": {"type": "string"},
            "message": {"type": "string"},
            "source": {"type": ["string", "null"]},
            "raw": {"type": ["string", "null"]},
        },
    ),
}

# What alert rules send (OpenAPI 3.1 `webhooks`): signed as Standard Webhooks says (see docs/alerts.md).
WEBHOOKS = {
    "alert": {
        "post": {
            "summary": "An alert message, or a test message (type tracediff.test), sent to a rule's URL.",
            "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/AlertMessage"}}}},
            "responses": {"200": {"description": "Any 2xx: delivered. 408, 429 (Retry-After) and 5xx are retried."}},
        }
    }
}
