"""The JSON API described as an OpenAPI 3.1 document, served at /api/v1/openapi.json."""
from functools import lru_cache
from importlib import metadata

from flask import Blueprint, jsonify

from .openapi_schemas import POINTER, SCHEMAS, SNAPSHOTS, STRING, WEBHOOKS, obj, ref

bp = Blueprint("openapi", __name__)
JSON = "application/json"


@bp.get("/api/v1/openapi.json")
def openapi_json():
    """Serve the OpenAPI document of the API."""
    return jsonify(document())


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
# every path but health and readiness (probes reach them by any name)
HOST_NOT_ALLOWED = ("A Host header that names no address or allowed name of this server (`host_not_allowed`, "
                    "DNS rebinding; TRACEDIFF_ALLOWED_HOSTS).")
BAD_HOST = {"400": {"$ref": "#/components/responses/HostNotAllowed"}}
TOO_LARGE = error("The body is larger than TRACEDIFF_MAX_BODY_BYTES (`too_large`).")


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
    sized = {"413": TOO_LARGE} if body and body.get("content") else {}  # only a body that is read
    op = {"summary": summary, "tags": [tag], "responses": {**BAD_HOST, **sized, **with_bad_host(responses),
                                                           **cross_site, **COMMON},
          "security": SECURITY["admin" if admin else "ingest" if write else "read"]}
    if params:
        op["parameters"] = list(params)
    if body:
        op["requestBody"] = body
    return op


def with_bad_host(responses: dict) -> dict:
    """Add host_not_allowed to an operation's own 400, which every operation may answer."""
    if "400" not in responses:
        return responses
    own = responses["400"]
    return {**responses, "400": {**own, "description": f"{own['description']} Or: {HOST_NOT_ALLOWED}"}}


def param(name: str, where: str, schema: dict, description: str, required=False) -> dict:
    return {"name": name, "in": where, "required": required or where == "path",
            "schema": schema, "description": description}


def ingest_paths() -> dict:
    body = {"required": True, "description": (
        "One event, a JSON array of events, or NDJSON; gzip, deflate or zstd by Content-Encoding. "
        "The raw body is read whatever the Content-Type says."), "content": {
        JSON: {"schema": {"oneOf": [ref("Event"), {"type": "array", "items": ref("Event")}]}},
        "application/x-ndjson": {"schema": {"type": "string"}}}}
    too_large = error("The body, sent (TRACEDIFF_MAX_BODY_BYTES) or decompressed "
                      "(TRACEDIFF_MAX_DECOMPRESSED_BYTES), is larger than its limit (`too_large`).")
    slow = error("The body did not arrive within TRACEDIFF_BODY_TIMEOUT (`body_timeout`, retryable).")
    cut = error("The body ended before its Content-Length or its chunked framing is broken (`bad_body`); "
                "nothing in it was acknowledged.")
    ingest = operation("Store snapshot events; bad events are rejected one by one.", {
        "200": json_body(ref("IngestResult"), "Committed: accepted, duplicates and per-event rejections."),
        "400": cut, "408": slow, "413": too_large,
        "415": error("An unsupported Content-Encoding (`unsupported_encoding`)."),
        "422": error("Nothing in the body can be taken: not JSON or empty (`unparseable`), only records nested "
                     "too deep (`too_deep`), or more records than TRACEDIFF_MAX_EVENTS (`too_many_events`, 10,000 "
                     "by default); retrying the same body cannot help."),
    }, tag="ingest", write=True, body=body, params=[
        param("trace_id", "query", {"type": "string"}, "Trace id for events that carry none.")])
    otlp_body = {"required": True, "description": "An OTLP/HTTP ExportTraceServiceRequest.", "content": {
        "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}},
        JSON: {"schema": {"type": "object"}}}}
    otlp = operation("Accept an OpenTelemetry trace export; tool spans become snapshots.", {
        "200": {"description": "ExportTraceServiceResponse with partial_success, encoded like the request.",
                "content": {JSON: {"schema": {"type": "object"}},
                            "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}}}},
        "400": cut, "408": slow, "413": too_large,
        "415": error("An unsupported Content-Encoding (`unsupported_encoding`)."),
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
            "get": operation("List alert rules (never their secrets).", {"200": json_body(obj(["rules"], {
                "rules": {"type": "array", "items": ref("AlertRule")}}), "The rules.")}, tag="alerts"),
            "post": operation("Create an alert rule; the answer carries its signing secret, shown this once only.", {
                "201": json_body({**ref("AlertRule"), "description": "With `secret`."}, "Created."),
                "400": bad_rule, "422": error("The body is not JSON.")}, tag="alerts", write=True,
                body={"required": True, "content": {JSON: {"schema": ref("AlertRuleInput")}}})},
        "/api/v1/alerts/{rule_id}": {"delete": operation(
            "Delete an alert rule with its messages and delivery log (its id is never reused).", {
            "204": {"description": "Deleted."}, "404": missing}, tag="alerts", params=[rule_id], write=True)},
        "/api/v1/alerts/{rule_id}/deliveries": {"get": operation("The rule's delivery log and messages, newest first.", {
            "200": json_body(obj(["deliveries", "next_cursor", "messages"], {
                "deliveries": {"type": "array", "items": ref("AlertDelivery")}, "next_cursor": {"type": ["string", "null"]},
                "messages": {"type": "array"}}), "A page of the log, and the rule's newest `limit` messages."),
            "400": error("A limit outside 1-500 (`bad_parameter`) or a cursor not from next_cursor (`bad_cursor`)."),
            "404": missing}, tag="alerts", params=[rule_id,
                param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Attempts per page (100)."),
                param("cursor", "query", {"type": "string"}, "next_cursor of the page before.")])},
        "/api/v1/alerts/{rule_id}/test": {"post": operation("Send a signed test message to the rule's URL now.", {
            "200": json_body(obj(["ok"], {"ok": {"type": "boolean"}}),
                             "What came back. The message's type is `tracediff.test`."), "404": missing},
            tag="alerts", params=[rule_id], write=True, body={"required": False, "content": {}})},
        "/api/v1/alerts/{rule_id}/resume": {"post": operation("Resume a paused rule.", written, tag="alerts",
                                                              params=[rule_id], write=True,
                                                              body={"required": False, "content": {}})},
        "/api/v1/alerts/messages/{message_id}/redeliver": {"post": operation(
            "Send a message again, with the same webhook-id.", {
                "200": json_body(obj(["redelivering"], {"redelivering": STRING}), "Queued."), "404": missing},
            tag="alerts", params=[param("message_id", "path", {"type": "string"}, "The message id.")], write=True,
            body={"required": False, "content": {}})},
    }


def tool_paths() -> dict:
    name = param("name", "path", {"type": "string"}, "The tool name, percent-encoded (a `/` in it, as MCP tool names have, may also be sent as is).")
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
                                       "200": json_body(ref("Health"), "Healthy."),
                                       "503": COMMON["503"]}}},
        "/api/v1/ready": {"get": {"summary": "Tell whether the database can be written, the templates and static "
                                             "files are there, disk space is left and analysis keeps up; 503 "
                                             "names what failed (no token needed).",
                                  "tags": ["meta"], "security": [], "responses": {
                                      "200": json_body(ref("Ready"), "Ready."),
                                      "503": {**json_body(ref("Error"), "Not ready: the error, with `checks`."),
                                              "headers": RETRY_AFTER}}}},
        "/api/v1/quarantine": {"get": operation("List rejected records newest first, redacted as stored.", {
            "200": json_body(obj(["records", "next_cursor", "counts"], {
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
                                                       **BAD_HOST, **COMMON}}},
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
        "webhooks": WEBHOOKS,
        "components": {
            "schemas": {**SCHEMAS, **problems.SCHEMAS},
            "responses": {
                "Unauthorized": {**error("A token is required (TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS or TRACEDIFF_READ_TOKENS)."),
                                 "headers": {"WWW-Authenticate": {"schema": STRING}}},
                "Unavailable": error("The database cannot take writes now (busy, read-only, or the disk below "
                                     "TRACEDIFF_MIN_FREE_MB): retry after Retry-After seconds.", RETRY_AFTER),
                "HostNotAllowed": error(HOST_NOT_ALLOWED),
            },
            "securitySchemes": {
                "adminToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_ADMIN_TOKENS"},
                "ingestToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_INGEST_TOKENS"},
                "readToken": {"type": "http", "scheme": "bearer", "description": "TRACEDIFF_READ_TOKENS"},
            },
        },
    }
