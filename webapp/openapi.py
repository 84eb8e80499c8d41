"""The JSON API described as an OpenAPI 3.1 document, served at /api/v1/openapi.json."""
from functools import lru_cache
from importlib import metadata

from flask import Blueprint, jsonify

from .analysis.kinds import KIND_NAMES

bp = Blueprint("openapi", __name__)
SNAPSHOTS = ["arguments", "request", "response"]
JSON = "application/json"


@bp.get("/api/v1/openapi.json")
def openapi_json():
    """Serve the OpenAPI document of the API."""
    return jsonify(document())


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def json_body(schema: dict, description: str) -> dict:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def error(description: str, headers: dict | None = None) -> dict:
    """Return a response in the one error shape."""
    response = json_body(ref("Error"), description)
    if headers:
        response["headers"] = headers
    return response


RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before retrying.",
                               "schema": {"type": "string"}}}
COMMON = {
    "401": {"$ref": "#/components/responses/Unauthorized"},
    "503": {"$ref": "#/components/responses/Unavailable"},
}


CROSS_SITE = {"403": error("Refused: a state-changing request sent by a browser from another site "
                           "(`cross_site_request`), or a read or ingest token used to change contracts (`read_only_token`, "
                           "`ingest_only_token`).")}


SECURITY = {  # each scope's own token first; an admin token opens them all; {} while none is set
    "admin": [{"adminToken": []}, {"ingestToken": []}, {}],  # ingest tokens until admin tokens are set
    "ingest": [{"ingestToken": []}, {"adminToken": []}, {}],
    "read": [{"readToken": []}, {"adminToken": []}, {}],
}


def operation(summary: str, responses: dict, *, tag: str, params=(), body=None, write=False, admin=False) -> dict:
    """Build one operation with the responses every endpoint may give."""
    cross_site = CROSS_SITE if body is not None or summary.startswith("Delete") else {}
    op = {"summary": summary, "tags": [tag], "responses": {**responses, **cross_site, **COMMON},
          "security": SECURITY["admin" if admin else "ingest" if write else "read"]}
    if params:
        op["parameters"] = list(params)
    if body:
        op["requestBody"] = body
    return op


def param(name: str, where: str, schema: dict, description: str, required=False) -> dict:
    return {"name": name, "in": where, "required": required or where == "path",
            "schema": schema, "description": description}


def ingest_paths() -> dict:
    body = {"required": True, "description": (
        "One event, a JSON array of events, or NDJSON; gzip, deflate, zstd or br by Content-Encoding. "
        "The raw body is read whatever the Content-Type says."), "content": {
        JSON: {"schema": {"oneOf": [ref("Event"), {"type": "array", "items": ref("Event")}]}},
        "application/x-ndjson": {"schema": {"type": "string"}}}}
    too_large = error("The body, sent or decompressed, is larger than the configured limit.")
    ingest = operation("Store snapshot events; bad events are rejected one by one.", {
        "200": json_body(ref("IngestResult"), "Committed: accepted, duplicates and per-event rejections."),
        "413": too_large,
        "415": error("An unsupported Content-Encoding."),
        "422": error("Nothing in the body parses (not JSON, empty, too many events)."),
    }, tag="ingest", write=True, body=body, params=[
        param("trace_id", "query", {"type": "string"}, "Trace id for events that carry none.")])
    otlp_body = {"required": True, "description": "An OTLP/HTTP ExportTraceServiceRequest.", "content": {
        "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}},
        JSON: {"schema": {"type": "object"}}}}
    otlp = operation("Accept an OpenTelemetry trace export; tool spans become snapshots.", {
        "200": {"description": "ExportTraceServiceResponse with partial_success, encoded like the request.",
                "content": {JSON: {"schema": {"type": "object"}},
                            "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}}}},
        "413": too_large, "415": error("An unsupported Content-Encoding."),
        "422": error("The body is not an OTLP export."),
    }, tag="ingest", write=True, body=otlp_body)
    return {"/api/v1/ingest": {"post": ingest}, "/v1/traces": {"post": otlp}}


def trace_paths() -> dict:
    filters = [
        param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Page size (default 50)."),
        param("cursor", "query", {"type": "string"}, "The next_cursor of the previous page."),
        param("q", "query", {"type": "string"}, "Trace id prefix, tool name or words in payloads."),
        param("tool", "query", {"type": "string"}, "Only traces calling this tool."),
        param("severity", "query", {"enum": ["error", "warning", "info", "clean"]}, "Worst finding."),
        param("kind", "query", {"type": "string"}, "A finding kind, see /api/v1/finding-kinds."),
        param("status", "query", {"enum": ["2xx", "3xx", "4xx", "5xx"]}, "An HTTP status class."),
        param("missing", "query", {"enum": SNAPSHOTS}, "A snapshot that has not arrived."),
        param("since", "query", {"type": "string"}, "Lower bound of last seen: RFC 3339, a day, or 2h / 7d ago."),
        param("until", "query", {"type": "string"}, "Upper bound of last seen: RFC 3339, a day, or 2h / 7d ago."),
        param("problem", "query", {"type": "string"}, "Only traces a problem (TD-42) was seen in."),
    ]
    trace_id = param("trace_id", "path", {"type": "string"},
                     "The trace id, percent-encoded (a `/` in it may also be sent as is).")
    return {
        "/api/v1/traces": {"get": operation("List traces newest first.", {
            "200": json_body(ref("TraceList"), "A page of traces."),
            "400": error("A filter value the list cannot use (`bad_parameter`), or a cursor this server "
                         "did not give out (`bad_cursor`).")},
            tag="traces", params=filters)},
        "/api/v1/traces/{trace_id}": {"get": operation("Return one trace with snapshots and findings.", {
            "200": json_body(ref("Trace"), "The trace."),
            "404": error("No trace with this id.")}, tag="traces", params=[trace_id])},
        "/api/v1/traces/{trace_id}/findings": {"get": operation(
            "Page through one call's findings, or through every place of one folded finding.", {
                "200": json_body(ref("FindingPage"), "One page."),
                "400": error("An offset, limit or finding number that is not a whole number in range "
                             "(`bad_parameter`)."),
                "404": error("No such trace (`trace_not_found`), call (`call_not_found`) or finding "
                             "(`finding_not_found`).")}, tag="traces", params=[
                trace_id, param("call", "query", {"type": "string"}, "The call id (default: the first call)."),
                param("finding", "query", {"type": "integer", "minimum": 1},
                      "The finding's number (its anchor finding-N): page through its places instead."),
                param("offset", "query", {"type": "integer", "minimum": 0}, "Items to skip (default 0)."),
                param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 1000},
                      "Page size (default 100).")])},
        "/api/v1/traces/{trace_id}/calls/{call_id}/{snapshot}/versions": {"get": operation(
            "Return every version of one snapshot, newest first.", {
                "200": json_body({"type": "object", "required": ["versions"], "properties": {
                    "versions": {"type": "array", "items": ref("Snapshot")}}}, "The versions."),
                "404": error("No such snapshot.")}, tag="traces", params=[
                trace_id, param("call_id", "path", {"type": "string"}, "The call id."),
                param("snapshot", "path", {"enum": SNAPSHOTS}, "Which snapshot.")])},
    }


def alert_paths() -> dict:
    rule_id = param("rule_id", "path", {"type": "integer"}, "The rule id.")
    missing = error("No such rule or message.")
    bad_rule = error("A rule that cannot be made (`bad_rule`): the message names the field, or why the URL is refused.")
    written = {"200": json_body(ref("AlertRule"), "The rule."), "404": missing}
    return {
        "/api/v1/alerts": {
            "get": operation("List alert rules (never their secrets).", {"200": json_body(_object(["rules"], {
                "rules": {"type": "array", "items": ref("AlertRule")}}), "The rules.")}, tag="alerts"),
            "post": operation("Create an alert rule; the answer carries its signing secret, shown this once only.", {
                "201": json_body({**ref("AlertRule"), "description": "With `secret`."}, "Created."),
                "400": bad_rule, "422": error("The body is not JSON.")}, tag="alerts", write=True,
                body={"required": True, "content": {JSON: {"schema": ref("AlertRuleInput")}}})},
        "/api/v1/alerts/{rule_id}": {"delete": operation("Delete an alert rule and its pending messages.", {
            "204": {"description": "Deleted."}, "404": missing}, tag="alerts", params=[rule_id], write=True)},
        "/api/v1/alerts/{rule_id}/deliveries": {"get": operation("The rule's delivery log and messages, newest first.", {
            "200": json_body(_object(["deliveries", "next_cursor", "messages"], {
                "deliveries": {"type": "array"}, "next_cursor": {"type": ["string", "null"]},
                "messages": {"type": "array"}}), "A page of the log, and the rule's newest `limit` messages."),
            "400": error("A limit outside 1-500 (`bad_parameter`) or a cursor not from next_cursor (`bad_cursor`)."),
            "404": missing}, tag="alerts", params=[rule_id,
                param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Attempts per page (100)."),
                param("cursor", "query", {"type": "string"}, "next_cursor of the page before.")])},
        "/api/v1/alerts/{rule_id}/test": {"post": operation("Send a signed test message to the rule's URL now.", {
            "200": json_body(_object(["ok"], {"ok": {"type": "boolean"}}), "What came back."), "404": missing},
            tag="alerts", params=[rule_id], write=True, body={"required": False, "content": {}})},
        "/api/v1/alerts/{rule_id}/resume": {"post": operation("Resume a paused rule.", written, tag="alerts",
                                                              params=[rule_id], write=True,
                                                              body={"required": False, "content": {}})},
        "/api/v1/alerts/messages/{message_id}/redeliver": {"post": operation(
            "Send a message again, with the same webhook-id.", {
                "200": json_body(_object(["redelivering"], {"redelivering": STRING}), "Queued."), "404": missing},
            tag="alerts", params=[param("message_id", "path", {"type": "string"}, "The message id.")], write=True,
            body={"required": False, "content": {}})},
    }


def tool_paths() -> dict:
    name = param("name", "path", {"type": "string"}, "The tool name.")
    not_found = error("No contract for this tool.")
    refused = error("The contract or document is refused; the message says why.")
    not_json = error("The body is not JSON.")
    return {
        "/api/v1/tools": {"get": operation("List tool contracts.", {"200": json_body(
            {"type": "object", "required": ["tools"], "properties": {
                "tools": {"type": "array", "items": ref("Tool")}}}, "All contracts.")}, tag="tools")},
        "/api/v1/tools/{name}": {
            "get": operation("Return a tool's contract.", {
                "200": json_body(ref("Tool"), "The contract."), "404": not_found}, tag="tools", params=[name]),
            "put": operation("Create or replace a tool's contract.", {
                "200": json_body(ref("Tool"), "The stored contract."), "400": refused, "422": not_json},
                tag="tools", params=[name], admin=True,
                body={"required": True, "content": {JSON: {"schema": ref("Contract")}}}),
            "delete": operation("Delete a tool's contract.", {
                "204": {"description": "Deleted."}, "404": not_found}, tag="tools", params=[name], admin=True),
        },
        "/api/v1/tools/import": {"post": operation(
            "Import tool definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document.", {
                "200": json_body({"type": "object", "required": ["imported"], "properties": {
                    "imported": {"type": "array", "items": {"type": "string"}}}}, "The tools saved."),
                "400": refused, "422": not_json}, tag="tools", admin=True, params=[
                param("operation", "query", {"type": "array", "items": {"type": "string"}},
                      "`tool=operationId` pairs choosing OpenAPI operations.")],
            body={"required": True, "content": {JSON: {"schema": {}}}})},
        **mapping_paths(name, not_json),
    }


def mapping_paths(name: dict, not_json: dict) -> dict:
    """The mappings of a tool: declared, inferred from traffic, candidates; confirm or reject one."""
    pair = {"type": "object", "required": ["arguments", "request"],
            "properties": {"arguments": POINTER, "request": POINTER}}
    listed = json_body({"type": "object", "required": ["tool", "declared", "inferred", "candidates", "rejected"],
                        "properties": {"tool": STRING, **{k: {"type": "array", "items": {"type": "object"}}
                                                          for k in ("declared", "inferred", "candidates", "rejected")}}},
                       "Each pair with its evidence (`equal in 448 of 450 calls`).")
    unknown = error("No contract and no calls for this tool.")
    action = param("action", "path", {"enum": ["confirm", "reject"]},
                   "`confirm` writes the pair into the contract's mapping; `reject` keeps it out of inference.")
    return {
        "/api/v1/tools/{name}/mappings": {"get": operation(
            "Return a tool's declared, inferred and candidate mappings with their evidence.",
            {"200": listed, "404": unknown}, tag="tools", params=[name])},
        "/api/v1/tools/{name}/mappings/{action}": {"post": operation(
            "Confirm or reject a mapping pair.", {"200": listed, "400": error("Not a pair of JSON Pointers."),
                                                  "404": unknown, "422": not_json},
            tag="tools", params=[name, action], write=True,
            body={"required": True, "content": {JSON: {"schema": pair}}})},
    }


def meta_paths() -> dict:
    return {
        "/api/v1/health": {"get": {"summary": "Tell that the server and its database answer (no token needed).",
                                   "tags": ["meta"], "security": [], "responses": {
                                       "200": json_body(ref("Health"), "Healthy."), "503": COMMON["503"]}}},
        "/api/v1/ready": {"get": {"summary": "Tell whether the database can be written, the templates and static "
                                             "files are there, disk space is left and analysis keeps up; 503 "
                                             "names what failed (no token needed).",
                                  "tags": ["meta"], "security": [], "responses": {
                                      "200": json_body(ref("Ready"), "Ready."),
                                      "503": json_body(ref("Error"), "Not ready: the error, with `checks`.")}}},
        "/api/v1/quarantine": {"get": operation("List rejected records newest first, redacted as stored.", {
            "200": json_body(_object(["records", "next_cursor", "counts"], {
                "records": {"type": "array", "items": ref("QuarantinedRecord")},
                "next_cursor": {"type": ["string", "null"]}, "counts": ref("QuarantineCounts")}), "A page."),
            "400": error("A limit outside 1-500 (`bad_parameter`) or a cursor not from next_cursor (`bad_cursor`)."),
        }, tag="meta", params=[
                param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Records per page."),
                param("cursor", "query", {"type": "string"}, "next_cursor of the page before.")])},
        "/api/v1/finding-kinds": {"get": operation("List the kinds of finding.", {"200": json_body(
            {"type": "object", "required": ["kinds"], "properties": {"kinds": {"type": "array", "items": {
                "type": "object", "required": ["kind", "description"], "properties": {
                    "kind": {"type": "string"}, "description": {"type": "string"}}}}}},
            "The closed list of finding kinds.")}, tag="meta")},
        "/api/v1/openapi.json": {"get": {"summary": "This document.", "tags": ["meta"],
                                         "responses": {"200": json_body({"type": "object"}, "OpenAPI 3.1."),
                                                       **COMMON}}},
    }


def _object(required: list, properties: dict, **extra) -> dict:
    return {"type": "object", "required": required, "properties": properties, **extra}


STRING, NULLABLE_STRING = {"type": "string"}, {"type": ["string", "null"]}
POINTER = {"type": "string", "description": "A JSON Pointer such as /amount."}
CONTRACT_PARTS = {
    "description": STRING,
    **{part: {"type": ["object", "boolean"], "description": "A JSON Schema (draft 7 unless $schema says)."}
       for part in ("arguments_schema", "request_schema", "response_schema", "error_schema")},
    "mapping": {"type": "array", "description": "Which field of one snapshot becomes which of another.",
                "items": {"type": "object", "minProperties": 2, "maxProperties": 3,
                          "additionalProperties": False,
                          "properties": {**{name: POINTER for name in SNAPSHOTS}, "transform": {
                              "type": "string", "description": "A change the mapping makes on purpose: x100, "
                                                               "integer>string, lower>UPPER..."}}}},
}
SCHEMAS = {
    "Error": _object(["error"], {"error": _object(["code", "message", "retryable"], {
        "code": STRING, "message": STRING, "retryable": {"type": "boolean"}})}),
    "Event": _object(["trace_id", "snapshot", "payload"], {
        "trace_id": {"type": "string", "minLength": 1, "maxLength": 128},
        "call_id": {"type": "string", "default": ""},
        "snapshot": {"enum": SNAPSHOTS},
        "tool": STRING, "source": STRING,
        "release": {"type": "string", "description": "App version, git sha or deploy id (OTLP service.version)."},
        "payload": {"description": "Any JSON value; a string holding JSON is parsed."},
        "http": _object([], {"method": STRING, "url": STRING, "status_code": {"type": "integer"},
                             "headers": {"type": "object"}}),
        "ts": {"type": "string", "description": "RFC 3339; default: receive time."},
        "event_id": {"type": "string", "description": "Idempotency key; default: a content hash."},
    }),
    "IngestResult": _object(["accepted", "duplicates", "rejected"], {
        "accepted": {"type": "integer"}, "duplicates": {"type": "integer"},
        "rejected": {"type": "array", "items": _object(["index", "code", "message", "retryable"], {
            "index": {"type": "integer"}, "code": STRING, "message": STRING,
            "retryable": {"type": "boolean"}})}}),
    "TraceSummary": _object(["trace_id", "tools", "snapshots", "last_seen"], {
        "trace_id": STRING, "tools": {"type": "array", "items": STRING}, "last_seen": STRING,
        "snapshots": _object(SNAPSHOTS, {name: {"type": "boolean"} for name in SNAPSHOTS})}),
    "TraceList": _object(["traces", "next_cursor"], {
        "traces": {"type": "array", "items": ref("TraceSummary")}, "next_cursor": NULLABLE_STRING}),
    "Snapshot": _object(["payload", "ts", "http"], {
        "payload": {}, "ts": STRING, "http": {"type": ["object", "null"]},
        "logged_as_string": {"type": "boolean"}, "event_id": STRING}),
    "Call": _object(["call_id", "tool", "snapshots", "validation", "findings"], {
        "call_id": STRING, "tool": NULLABLE_STRING,
        "snapshots": _object(SNAPSHOTS, {name: {"oneOf": [ref("Snapshot"), {"type": "null"}]}
                                         for name in SNAPSHOTS}),
        "validation": {"type": "object"},
        "findings": {"type": "array", "items": _object(["kind"], {"kind": {"enum": list(KIND_NAMES)},
                                                                  "problem": NULLABLE_STRING})},
        "problems": {"type": "array", "items": STRING, "description": "The problems its findings belong to."}}),
    "FindingPage": _object(["trace_id", "call_id", "offset", "limit", "total", "next_offset"], {
        "trace_id": STRING, "call_id": STRING, "offset": {"type": "integer"}, "limit": {"type": "integer"},
        "total": {"type": "integer"}, "next_offset": {"type": ["integer", "null"]},
        "analyzed": {"type": "boolean"}, "incomplete": NULLABLE_STRING,
        "findings": {"type": "array", "items": {"type": "object"}},
        "finding": {"type": "object", "description": "The finding paged through; a folded one has "
                                                     "`occurrences` and `examples`, its paths hold `*`."},
        "occurrences": {"type": "array", "items": _object(["left", "right"], {
            "left": {"type": ["object", "null"]}, "right": {"type": ["object", "null"]},
            "left_value": {}, "right_value": {}})}}),
    "Trace": _object(["trace_id", "calls"], {"trace_id": STRING,
                                             "calls": {"type": "array", "items": ref("Call")}}),
    "Contract": _object([], CONTRACT_PARTS, additionalProperties=False),
    "Tool": _object(["name"], {"name": STRING, "updated_at": STRING, **CONTRACT_PARTS}),
    "Health": _object(["status"], {"status": {"enum": ["ok", "degraded"]}, "traces": {"type": "integer"},
                                   "problems": {"type": "array", "items": STRING},
                                   "quarantine": {"$ref": "#/components/schemas/QuarantineCounts"}}),
    "Ready": _object(["status", "checks"], {"status": {"const": "ready"}, "checks": {
        "type": "object", "additionalProperties": _object(["ok", "detail"], {
            "ok": {"type": "boolean"}, "detail": STRING})}}),
    "AlertRule": _object(["id", "url", "format", "on", "min_interval_s", "paused"], {
        "id": {"type": "integer"}, "url": STRING, "format": {"enum": ["webhook", "slack"]},
        "on": {"type": "array", "items": {"enum": ["new", "regressed", "escalating", "rejected_events"]}},
        "tool": NULLABLE_STRING, "kind": NULLABLE_STRING, "min_severity": NULLABLE_STRING, "source": NULLABLE_STRING,
        "min_interval_s": {"type": "integer"}, "paused": {"type": "boolean"}, "paused_at": NULLABLE_STRING,
        "pause_reason": NULLABLE_STRING, "failures": {"type": "integer"}, "created_at": STRING, "secret": STRING}),
    "AlertRuleInput": _object(["url"], {
        "url": STRING, "format": {"enum": ["webhook", "slack"]},
        "on": {"type": "array", "items": {"enum": ["new", "regressed", "escalating", "rejected_events"]}},
        "tool": NULLABLE_STRING, "kind": NULLABLE_STRING, "min_severity": {"enum": ["warning", "error", None]},
        "source": NULLABLE_STRING, "min_interval_s": {"type": "integer", "minimum": 0, "maximum": 604800}},
        additionalProperties=False),
    "QuarantineCounts": _object(["total", "last_hour"], {"total": {"type": "integer"},
                                                         "last_hour": {"type": "integer"}}),
    "QuarantinedRecord": _object(["id", "received_at", "code", "message", "source", "raw"], {
        "id": {"type": "integer"}, "received_at": {"type": "string"}, "code": {"type": "string"},
        "message": {"type": "string"}, "source": {"type": ["string", "null"]}, "raw": {"type": ["string", "null"]}}),
}


@lru_cache(maxsize=1)
def document() -> dict:
    """Return the OpenAPI 3.1 document of the API."""
    from .problems import openapi as problems  # it builds on this module's helpers
    try:
        version = metadata.version("tracediff")
    except metadata.PackageNotFoundError:
        version = "0"
    return {
        "openapi": "3.1.0",
        "info": {"title": "tracediff API", "version": version, "description": (
            "Collect the arguments, request and response snapshots of LLM tool calls, and read "
            "them back with validation and mapping-aware findings. Every error has the shape "
            '{"error": {"code", "message", "retryable"}}.')},
        "paths": {**ingest_paths(), **trace_paths(), **tool_paths(), **alert_paths(), **problems.paths(
            operation, param, ref, json_body, error), **meta_paths()},
        "components": {
            "schemas": {**SCHEMAS, **problems.SCHEMAS},
            "responses": {
                "Unauthorized": {**error("A token is required (TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS or TRACEDIFF_READ_TOKENS)."),
                                 "headers": {"WWW-Authenticate": {"schema": STRING}}},
                "Unavailable": error("The database cannot take writes now; retry later.", RETRY_AFTER),
            },
            "securitySchemes": {
                "adminToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_ADMIN_TOKENS"},
                "ingestToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_INGEST_TOKENS"},
                "readToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_READ_TOKENS"},
            },
        },
    }
