"""The JSON API described as an OpenAPI 3.1 document.

openapi.yaml beside this module, served at /api/v1/openapi.json with the installed package's version
filled in."""

from functools import lru_cache
from importlib import metadata
from pathlib import Path

import yaml
from flask import Blueprint, jsonify

DOCUMENT = Path(__file__).with_name("openapi.yaml")

bp = Blueprint("openapi", __name__)


@bp.get("/api/v1/openapi.json")
def openapi_json():
    """Serve the OpenAPI document of the API."""
    return jsonify(document())


@lru_cache(maxsize=1)
def document() -> dict:
    """Return the OpenAPI 3.1 document of the API, read once."""
    loaded = yaml.load(
        DOCUMENT.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    )
    loaded["info"]["version"] = _version()
    return loaded


def _version() -> str:
    try:
        return metadata.version("tracediff")
    except metadata.PackageNotFoundError:
        return "0"
