"""The ingest paths of the document: snapshot events, and OpenTelemetry trace exports."""

from .operations import JSON, error, json_body, operation, param
from .schemas import ref


def paths() -> dict:
    """Describe POST /api/v1/ingest, POST /v1/traces and POST /v1/logs."""
    body = {
        "required": True,
        "description": (
            "One event, a JSON array of events, or NDJSON; gzip, deflate or zstd by Content-Encoding. "
            "The raw body is read whatever the Content-Type says."
        ),
        "content": {
            JSON: {"schema": {"oneOf": [ref("Event"), {"type": "array", "items": ref("Event")}]}},
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    }
    too_large = error(
        "The body, sent (TRACEDIFF_MAX_BODY_BYTES) or decompressed "
        "(TRACEDIFF_MAX_DECOMPRESSED_BYTES), is larger than its limit (`too_large`)."
    )
    slow = error("The body did not arrive within TRACEDIFF_BODY_TIMEOUT (`body_timeout`, retryable).")
    cut = error(
        "The body ended before its Content-Length or its chunked framing is broken (`bad_body`); "
        "nothing in it was acknowledged."
    )
    ingest = operation(
        "Store snapshot events; bad events are rejected one by one.",
        {
            "200": json_body(ref("IngestResult"), "Committed: accepted, duplicates and per-event rejections."),
            "400": cut,
            "408": slow,
            "413": too_large,
            "415": error("An unsupported Content-Encoding (`unsupported_encoding`)."),
            "422": error(
                "Nothing in the body can be taken: not JSON or empty (`unparseable`), only records nested "
                "too deep (`too_deep`), or more records than TRACEDIFF_MAX_EVENTS (`too_many_events`, 10,000 "
                "by default); retrying the same body cannot help."
            ),
        },
        tag="ingest",
        write=True,
        body=body,
        params=[param("trace_id", "query", {"type": "string"}, "Trace id for events that carry none.")],
    )
    otlp_body = {
        "required": True,
        "description": "An OTLP/HTTP ExportTraceServiceRequest.",
        "content": {
            "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}},
            JSON: {"schema": {"type": "object"}},
        },
    }

    def export(what: str, summary: str):
        return operation(
            summary,
            {
                "200": {
                    "description": f"Export{what}ServiceResponse with partial_success, encoded like the request.",
                    "content": {
                        JSON: {"schema": {"type": "object"}},
                        "application/x-protobuf": {"schema": {"type": "string", "format": "binary"}},
                    },
                },
                "400": cut,
                "408": slow,
                "413": too_large,
                "415": error("An unsupported Content-Encoding (`unsupported_encoding`)."),
                "422": error("The body is not an OTLP export."),
            },
            tag="ingest",
            write=True,
            body={**otlp_body, "description": f"An OTLP/HTTP Export{what}ServiceRequest."},
        )

    otlp = export("Trace", "Accept an OpenTelemetry trace export; tool spans become snapshots.")
    logs = export(
        "Logs",
        "Accept an OpenTelemetry log export; GenAI event records (gen_ai.client.inference.operation.details, "
        "gen_ai.choice, gen_ai.tool.message) become arguments and result snapshots, joined to spans by trace "
        "and span id.",
    )
    return {"/api/v1/ingest": {"post": ingest}, "/v1/traces": {"post": otlp}, "/v1/logs": {"post": logs}}
