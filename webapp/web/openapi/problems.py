"""The problems API in the OpenAPI document (webapp/web/openapi/ adds these paths and schemas)."""

from ...analysis import KIND_NAMES
from ...problems.fingerprint import SCHEMA_KIND
from ...problems.states import STATES

JSON = "application/json"
STRING, NULLABLE_STRING = {"type": "string"}, {"type": ["string", "null"]}
TIME = {"type": "string", "description": "RFC 3339, a day, or a time ago such as 2h, 30m, 7d, 2w."}
END = {
    "oneOf": [
        {"type": "null"},
        {
            "type": "object",
            "required": ["snapshot", "path"],
            "properties": {
                "snapshot": {"enum": ["arguments", "request", "response"]},
                "path": {
                    "type": "string",
                    "description": "Normalised JSON Pointer: indexes as *, id-like keys as {id}.",
                },
            },
        },
    ]
}


def _object(required: list, properties: dict) -> dict:
    return {"type": "object", "required": required, "properties": properties}


SCHEMAS = {
    "Problem": _object(
        [
            "id",
            "permalink",
            "tool",
            "kind",
            "severity",
            "state",
            "left",
            "right",
            "transform",
            "first_seen",
            "last_seen",
            "occurrences",
            "calls",
            "traces",
            "releases",
            "links",
        ],
        {
            "id": {"type": "string", "pattern": "^TD-[0-9]+$"},
            "permalink": STRING,
            "tool": NULLABLE_STRING,
            "kind": {"enum": [*KIND_NAMES, SCHEMA_KIND]},
            "severity": {"enum": ["error", "warning"]},
            "state": {"enum": list(STATES)},
            "left": END,
            "right": END,
            "transform": NULLABLE_STRING,
            "first_seen": NULLABLE_STRING,
            "last_seen": NULLABLE_STRING,
            "occurrences": {"type": "integer"},
            "calls": {"type": "integer"},
            "traces": {"type": "integer"},
            "releases": {"type": "array", "items": STRING},
            "sources": {"type": "array", "items": STRING},
            "contract_digests": {"type": "array", "items": STRING},
            "links": {"type": "array", "items": STRING},
            "stages": STRING,
            "keyword": NULLABLE_STRING,
            "fingerprint": STRING,
            "fingerprint_version": {"type": "integer"},
        },
    ),
    "ProblemList": _object(
        ["problems", "next_cursor"],
        {
            "problems": {"type": "array", "items": {"$ref": "#/components/schemas/Problem"}},
            "next_cursor": NULLABLE_STRING,
        },
    ),
    "ProblemDetail": {
        "allOf": [
            {"$ref": "#/components/schemas/Problem"},
            _object(
                ["hourly", "examples", "value_pairs", "exposure", "state_history"],
                {
                    "hourly": _object(
                        ["since", "until", "step_hours", "step_seconds", "bars", "hours"],
                        {
                            "since": STRING,
                            "until": STRING,
                            "step_hours": {"type": "number"},
                            "step_seconds": {"type": "integer"},
                            "peak": {"type": "integer"},
                            "bars": {
                                "type": "array",
                                "items": _object(
                                    ["start", "end", "occurrences"],
                                    {"start": STRING, "end": STRING, "occurrences": {"type": "integer"}},
                                ),
                            },
                            "hours": {"type": "object", "additionalProperties": {"type": "integer"}},
                        },
                    ),
                    "examples": {"type": "object"},
                    "value_pairs": {
                        "type": "array",
                        "items": _object(
                            ["left", "right", "count", "missing"],
                            {
                                "left": {},
                                "right": {},
                                "count": {"type": "integer"},
                                "missing": {"type": "array", "items": {"enum": ["left", "right"]}},
                            },
                        ),
                    },
                    "exposure": _object(
                        ["calls", "calls_with_path", "rate"],
                        {
                            "calls": {"type": "integer"},
                            "calls_with_path": {"type": "integer"},
                            "rate": {"type": "number"},
                        },
                    ),
                    "state_history": {
                        "type": "array",
                        "items": _object(
                            ["at", "state", "by", "detail"],
                            {"at": STRING, "state": STRING, "by": STRING, "detail": STRING},
                        ),
                    },
                    "verification": {"type": ["object", "null"]},
                    "last_clean_before": {"type": ["object", "null"]},
                    "merge": _object(
                        ["problem", "asked", "merged_into", "followed"],
                        {"problem": STRING, "asked": STRING, "merged_into": STRING, "followed": {"type": "boolean"}},
                    ),
                },
            ),
        ]
    },
    "ProblemChange": {
        "type": "object",
        "minProperties": 1,
        "additionalProperties": False,
        "properties": {
            "state": {"enum": ["resolved", "archived", "open"]},
            "resolve": {
                "oneOf": [
                    {"enum": ["now", "next_release", "contract_change"]},
                    _object(
                        ["after_clean_calls"],
                        {"after_clean_calls": {"type": "integer", "minimum": 1, "maximum": 1000000}},
                    ),
                ]
            },
            "until": {"enum": ["escalating", None]},
            "links": {"type": "array", "maxItems": 50, "items": {"type": "string", "pattern": "^https?://"}},
            "merged_into": {"type": "string", "description": "Merge this problem into another (TD-7)."},
        },
    },
    "ProblemCalls": _object(
        ["traces", "next_cursor"],
        {
            "traces": {
                "type": "array",
                "items": _object(
                    ["trace_id", "call_id", "ts"],
                    {
                        "trace_id": STRING,
                        "call_id": STRING,
                        "ts": STRING,
                        "source": NULLABLE_STRING,
                        "release": NULLABLE_STRING,
                        "digest": NULLABLE_STRING,
                        "occurrences": {"type": "integer"},
                        "url": STRING,
                    },
                ),
            },
            "next_cursor": NULLABLE_STRING,
        },
    ),
}


def paths(operation, param, ref, json_body, error) -> dict:
    """Return the /api/v1/problems paths, built with the main document's helpers."""
    problem_id = param("problem_id", "path", {"type": "string"}, "A problem id such as TD-42.")
    not_found = error("No problem with this id.")
    moved = {"description": "The problem was merged into another; Location names it."}
    filters = [
        param(name, "query", schema, text)
        for name, schema, text in (
            ("tool", STRING, "Only this tool's problems."),
            ("kind", {"enum": [*KIND_NAMES, SCHEMA_KIND]}, "A finding kind, or schema_violation."),
            ("severity", {"enum": ["error", "warning"]}, "Worst severity seen."),
            ("state", {"enum": list(STATES)}, "new, ongoing, resolved, regressed or archived."),
            ("source", STRING, "Seen from this source."),
            ("release", STRING, "Seen in this release."),
            ("new_in", STRING, "First seen in this release (the release of its first call)."),
            ("ticket", {"enum": ["linked", "unlinked"]}, "Only problems with ticket links, or only those without."),
            ("since", TIME, "Last seen at or after."),
            ("until", TIME, "Last seen at or before."),
            ("q", STRING, "A problem id, or words in tool, kind, paths or transform."),
            ("limit", {"type": "integer", "minimum": 1, "maximum": 500}, "Page size (default 50)."),
            ("cursor", STRING, "The next_cursor of the previous page."),
        )
    ]
    bad = error("A filter value or cursor the list cannot use (`bad_parameter`, `bad_cursor`).")
    return {
        "/api/v1/problems": {
            "get": operation(
                "List problems, newest last seen first.",
                {"200": json_body(ref("ProblemList"), "A page of problems."), "400": bad},
                tag="problems",
                params=filters,
            )
        },
        "/api/v1/problems/{problem_id}": {
            "get": operation(
                "Return one problem with hourly counts, examples, value pairs, exposure, history.",
                {"200": json_body(ref("ProblemDetail"), "The problem."), "301": moved, "400": bad, "404": not_found},
                tag="problems",
                params=[
                    problem_id,
                    param("since", "query", TIME, "Start of the hourly counts (default: first seen)."),
                    param(
                        "until", "query", TIME, "End of the hourly counts (default: now with a since, else last seen)."
                    ),
                ],
            ),
            "patch": operation(
                "Resolve, archive or reopen a problem, set its links, or merge it.",
                {
                    "200": json_body(
                        ref("ProblemDetail"),
                        "The problem after the change (after a merge: the problem that took the calls, with `merge`).",
                    ),
                    "400": error("A change that cannot apply (`bad_change`)."),
                    "404": not_found,
                    "409": error("The problem was merged into another (`problem_merged`)."),
                    "422": error("The body is not JSON."),
                },
                tag="problems",
                params=[problem_id],
                write=True,
                body={"required": True, "content": {JSON: {"schema": ref("ProblemChange")}}},
            ),
        },
        "/api/v1/problems/{problem_id}/traces": {
            "get": operation(
                "Page through the calls a problem was seen in.",
                {
                    "200": json_body(ref("ProblemCalls"), "A page of calls, newest first."),
                    "301": moved,
                    "400": bad,
                    "404": not_found,
                },
                tag="problems",
                params=[
                    problem_id,
                    param("limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Page size."),
                    param("cursor", "query", STRING, "The next_cursor of the previous page."),
                ],
            )
        },
    }
