"""The meta paths of the document: health, readiness, the quarantine, finding kinds and this document."""

from .operations import BAD_HOST, COMMON, RETRY_AFTER, error, json_body, operation, param
from .schemas import obj, ref


def paths() -> dict:
    """Describe the paths about the server itself."""
    return {
        "/api/v1/health": {
            "get": {
                "summary": "Tell that the server and its database answer (no token needed).",
                "tags": ["meta"],
                "security": [],
                "responses": {"200": json_body(ref("Health"), "Healthy."), "503": COMMON["503"]},
            }
        },
        "/api/v1/ready": {
            "get": {
                "summary": "Tell whether the database can be written, the templates and static "
                "files are there, disk space is left and analysis keeps up; 503 "
                "names what failed (no token needed).",
                "tags": ["meta"],
                "security": [],
                "responses": {
                    "200": json_body(ref("Ready"), "Ready."),
                    "503": {**json_body(ref("Error"), "Not ready: the error, with `checks`."), "headers": RETRY_AFTER},
                },
            }
        },
        "/api/v1/quarantine": {
            "get": operation(
                "List rejected records newest first, redacted as stored.",
                {
                    "200": json_body(
                        obj(
                            ["records", "next_cursor", "counts"],
                            {
                                "records": {"type": "array", "items": ref("QuarantinedRecord")},
                                "next_cursor": {"type": ["string", "null"]},
                                "counts": ref("QuarantineCounts"),
                            },
                        ),
                        "A page.",
                    ),
                    "400": error(
                        "A limit outside 1-500 (`bad_parameter`) or a cursor not from next_cursor (`bad_cursor`)."
                    ),
                },
                tag="meta",
                params=[
                    param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Records per page."),
                    param("cursor", "query", {"type": "string"}, "next_cursor of the page before."),
                ],
            )
        },
        "/api/v1/finding-kinds": {
            "get": operation(
                "List the kinds of finding.",
                {
                    "200": json_body(
                        {
                            "type": "object",
                            "required": ["kinds"],
                            "properties": {
                                "kinds": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["kind", "description"],
                                        "properties": {"kind": {"type": "string"}, "description": {"type": "string"}},
                                    },
                                }
                            },
                        },
                        "The closed list of finding kinds.",
                    )
                },
                tag="meta",
            )
        },
        "/api/v1/openapi.json": {
            "get": {
                "summary": "This document.",
                "tags": ["meta"],
                "responses": {"200": json_body({"type": "object"}, "OpenAPI 3.1."), **BAD_HOST, **COMMON},
            }
        },
    }
