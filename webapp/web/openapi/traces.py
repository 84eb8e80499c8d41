"""The traces paths of the document: the list, one trace, its findings and snapshot versions."""

from .operations import error, json_body, operation, param
from .schemas import SNAPSHOTS, ref


def paths() -> dict:
    """Describe the paths under /api/v1/traces."""
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
        param("release", "query", {"type": "string"}, "Only traces with a call that named this release."),
    ]
    trace_id = param(
        "trace_id", "path", {"type": "string"}, "The trace id, percent-encoded (a `/` in it may also be sent as is)."
    )
    return {
        "/api/v1/traces": {
            "get": operation(
                "List traces newest first.",
                {
                    "200": json_body(ref("TraceList"), "A page of traces."),
                    "400": error(
                        "A filter value the list cannot use (`bad_parameter`), or a cursor this server "
                        "did not give out (`bad_cursor`)."
                    ),
                },
                tag="traces",
                params=filters,
            )
        },
        "/api/v1/traces/{trace_id}": {
            "get": operation(
                "Return one trace with snapshots and findings.",
                {"200": json_body(ref("Trace"), "The trace."), "404": error("No trace with this id.")},
                tag="traces",
                params=[trace_id],
            )
        },
        "/api/v1/traces/{trace_id}/findings": {
            "get": operation(
                "Page through one call's findings, or through every place of one folded finding.",
                {
                    "200": json_body(ref("FindingPage"), "One page."),
                    "400": error(
                        "An offset, limit or finding number that is not a whole number in range (`bad_parameter`)."
                    ),
                    "404": error(
                        "No such trace (`trace_not_found`), call (`call_not_found`) or finding (`finding_not_found`)."
                    ),
                },
                tag="traces",
                params=[
                    trace_id,
                    param("call", "query", {"type": "string"}, "The call id (default: the first call)."),
                    param(
                        "finding",
                        "query",
                        {"type": "integer", "minimum": 1},
                        "The finding's number (its anchor finding-N): page through its places instead.",
                    ),
                    param("offset", "query", {"type": "integer", "minimum": 0}, "Items to skip (default 0)."),
                    param(
                        "limit", "query", {"type": "integer", "minimum": 1, "maximum": 1000}, "Page size (default 100)."
                    ),
                ],
            )
        },
        "/api/v1/traces/{trace_id}/calls/{call_id}/{snapshot}/versions": {
            "get": operation(
                "Return every version of one snapshot, newest first.",
                {
                    "200": json_body(
                        {
                            "type": "object",
                            "required": ["versions"],
                            "properties": {"versions": {"type": "array", "items": ref("Snapshot")}},
                        },
                        "The versions.",
                    ),
                    "404": error("No such snapshot."),
                },
                tag="traces",
                params=[
                    trace_id,
                    param("call_id", "path", {"type": "string"}, "The call id."),
                    param("snapshot", "path", {"enum": SNAPSHOTS}, "Which snapshot."),
                ],
            )
        },
    }
