"""The mappings API.

A tool's declared, inferred and candidate pairs, and confirming or rejecting one; its observed
schemas (a contract draft learnt from traffic), and adopting one as the declared schema."""

from flask import Blueprint, jsonify

from ...common import jsontext
from ...common.stages import NAMES
from ...pipeline import mappings as toolmappings
from ...pipeline import observed as toolobserved
from ...store.toolcalls import known_tool
from ..bodies import whole_body
from ..db import get_store
from ..errors import ApiError

bp = Blueprint("mappings_api", __name__)


def _known_or_404(name: str) -> None:
    if not known_tool(get_store(), name):
        raise ApiError(404, "tool_not_found", f"no tool {name!r}: no contract and no calls")


@bp.get("/api/v1/tools/<tool:name>/mappings")
def mappings(name):
    """Return a tool's pairs with their evidence.

    Declared, inferred, candidates, rejected."""
    _known_or_404(name)
    return jsonify(toolmappings.mapping_rows(get_store(), name))


@bp.post("/api/v1/tools/<tool:name>/mappings/<action>")
def change(name, action):
    """Confirm a pair (write it into the contract) or reject it.

    Keep it out of inference."""
    if action not in ("confirm", "reject"):
        raise ApiError(404, "not_found", f"no mapping action {action!r}; use confirm or reject")
    body = _pair_body()
    store = get_store()
    if action == "confirm":
        toolmappings.confirm(store, name, body["arguments"], body["request"])
    else:
        _known_or_404(name)
        toolmappings.reject(store, name, body["arguments"], body["request"])
    return jsonify(toolmappings.mapping_rows(store, name))


def _pair_body() -> dict:
    try:
        body = jsontext.loads(whole_body())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error
    if not isinstance(body, dict) or not all(
        isinstance(body.get(k), str) for k in ("arguments", "request")
    ):
        raise ApiError(400, "bad_pair", 'send {"arguments": "/pointer", "request": "/pointer"}')
    return body


@bp.get("/api/v1/tools/<tool:name>/observed")
def observed(name):
    """Return a tool's contract draft.

    Per stage the schema learnt from its traffic and the calls it was learnt from."""
    _known_or_404(name)
    return jsonify(toolobserved.observed_schemas(get_store(), name))


@bp.post("/api/v1/tools/<tool:name>/observed/adopt")
def adopt_observed(name):
    """Write a stage's observed schema into the contract (`{"stage": "response"}`).

    Return the contract."""
    _known_or_404(name)
    try:
        body = jsontext.loads(whole_body())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error
    if not isinstance(body, dict) or not isinstance(body.get("stage"), str):
        raise ApiError(
            400, "bad_stage", 'send {"stage": ' + " | ".join(f'"{name}"' for name in NAMES) + "}"
        )
    return jsonify(toolobserved.adopt(get_store(), name, body["stage"]))
