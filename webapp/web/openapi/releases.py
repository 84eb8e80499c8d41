"""The releases path of the document: each release's calls and problems, and what one broke or fixed."""

from .operations import error, json_body, operation, param
from .schemas import obj, ref

STRING, NULLABLE = {"type": "string"}, {"type": ["string", "null"]}
COUNT = {"type": "integer", "minimum": 0}
SCHEMAS = {
    "Release": obj(
        [
            "release",
            "first_seen",
            "last_seen",
            "calls",
            "with_findings",
            "new_problems",
            "regressed_problems",
            "sources",
        ],
        {
            "release": STRING,
            "first_seen": STRING,
            "last_seen": STRING,
            "calls": COUNT,
            "with_findings": {**COUNT, "description": "Calls with a warning or an error."},
            "new_problems": {
                **COUNT,
                "description": "Problems first seen in this release (the release of their first "
                "call): `GET /api/v1/problems?new_in=` lists them.",
            },
            "regressed_problems": {
                **COUNT,
                "description": "Problems a call of this release broke again after a resolve.",
            },
            "sources": {"type": "array", "items": STRING},
            "tools": {"type": "array", "items": STRING},
            "new_problems_url": STRING,
            "permalink": STRING,
        },
    ),
    "ReleaseComparison": obj(
        ["release", "compare", "broke", "fixed"],
        {
            "release": STRING,
            "compare": STRING,
            "broke": {
                "type": "array",
                "items": ref("Problem"),
                "description": "Problems seen in `compare` and never in `release`; `in_release` counts them there.",
            },
            "fixed": {
                "type": "array",
                "items": ref("Problem"),
                "description": "Problems seen in `release` and not in `compare`, though `compare` called their tool "
                "(`in_release.calls_in_compare`).",
            },
        },
    ),
}


def paths() -> dict:
    """Describe /api/v1/releases."""
    return {
        "/api/v1/releases": {
            "get": operation(
                "List the releases the calls named, newest first seen first (not by name: 1.10.0 follows 1.9.0, a "
                "git sha works); with `release` and `compare`, what the second broke that the first did not, and what "
                "it fixed.",
                {
                    "200": json_body(
                        obj(
                            ["releases"],
                            {
                                "releases": {"type": "array", "items": ref("Release")},
                                "comparison": ref("ReleaseComparison"),
                            },
                        ),
                        "The releases.",
                    ),
                    "400": error("`compare` without `release` (`bad_parameter`)."),
                    "404": error("A release no call named (`release_not_found`)."),
                },
                tag="releases",
                params=[
                    param("release", "query", STRING, "Only this release; with `compare`, the one compared against."),
                    param(
                        "compare", "query", STRING, "The release to compare with `release`: what it broke and fixed."
                    ),
                ],
            )
        }
    }
