"""The JSON API described as an OpenAPI 3.1 document, served at /api/v1/openapi.json.

operations.py builds what every operation shares, schemas.py holds the components' schemas, and one module
a tag describes its paths .
"""

from functools import lru_cache
from importlib import metadata

from flask import Blueprint, jsonify

from . import alerts, checks, ingest, meta, problems, releases, tools, traces
from .operations import SECURITY_SCHEMES, error, json_body, operation, param, responses
from .schemas import SCHEMAS, WEBHOOKS, ref

bp = Blueprint("openapi", __name__)


@bp.get("/api/v1/openapi.json")
def openapi_json():
    """Serve the OpenAPI document of the API."""
    return jsonify(document())


@lru_cache(maxsize=1)
def document() -> dict:
    """Return the OpenAPI 3.1 document of the API."""
    try:
        version = metadata.version("tracediff")
    except metadata.PackageNotFoundError:
        version = "0"
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "tracediff API",
            "version": version,
            "description": (
                "Collect the arguments, request and response snapshots of LLM tool calls, and read "
                "them back with validation and mapping-aware findings. Every error has the shape "
                '{"error": {"code", "message", "retryable"}}.'
            ),
        },
        "paths": {
            **ingest.paths(),
            **traces.paths(),
            **checks.paths(),
            **tools.paths(),
            **alerts.paths(),
            **problems.paths(operation, param, ref, json_body, error),
            **releases.paths(),
            **meta.paths(),
        },
        "webhooks": WEBHOOKS,
        "components": {
            "schemas": {**SCHEMAS, **problems.SCHEMAS, **releases.SCHEMAS},
            "responses": responses(),
            "securitySchemes": SECURITY_SCHEMES,
        },
    }
