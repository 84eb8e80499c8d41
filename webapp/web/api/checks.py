"""POST /api/v1/check.

One call analysed under its tool's stored contract, stored nowhere (what `tracediff check` prints
for fixture files, for a call sent as JSON; the MCP tool `check_call` asks it)."""

from flask import Blueprint, jsonify

from ...analysis import CheckError, call_snapshots, checked_url
from ...common import jsontext
from ...common.stages import NAMES
from ...ingest import parse_json_string
from ...ingest.model import RecordError
from ...pipeline.checks import check_stored
from ...store.toolcalls import known_tool
from ..bodies import whole_body
from ..db import get_store
from ..errors import ApiError
from .ingest import limits

bp = Blueprint("checks", __name__)

# one field per stage: any JSON value, or text (an HTTP body that is not JSON)
PAYLOADS = NAMES
FIELDS = {"tool", *PAYLOADS, "method", "url", "headers", "status", "result_is_error"}


@bp.post("/api/v1/check")
def check():
    """Analyse one call under its tool's stored contract.

    The call's arguments, request body or URL, response, result."""
    body = _object_body()
    tool, status, http = _tool(body), _status(body), _http(body)
    payloads = {name: body[name] for name in PAYLOADS if body.get(name) is not None}
    if not payloads and not http:
        raise ApiError(
            400, "bad_parameter", "give at least one of arguments, request, url, response or result"
        )
    is_error = body.get("result_is_error")
    if is_error is not None and not isinstance(is_error, bool):
        raise ApiError(
            400,
            "bad_parameter",
            f"result_is_error must be true, false or null; got {is_error!r:.40}",
        )
    if not known_tool(get_store(), tool):
        raise ApiError(404, "tool_not_found", f"no tool {tool[:80]!r}: no contract and no calls")
    texts = _parse_json_texts(payloads)
    snapshots = call_snapshots(payloads, status, http, is_error)
    for name in texts:
        snapshots[name]["logged_as_string"] = True
    return jsonify(check_stored(get_store(), tool, snapshots, status is not None))


def _parse_json_texts(payloads: dict) -> list[str]:
    """Parse each payload that is JSON text, as ingest parses it; return their names.

    OpenAI's tool_calls[].function.arguments is such text: stored calls hold it parsed."""
    texts = []
    for name, payload in payloads.items():
        try:
            payloads[name], as_string = parse_json_string(payload, limits().max_depth)
        except RecordError as error:
            raise ApiError(400, "bad_parameter", f"{name}: {error.message}") from None
        if as_string:
            texts.append(name)
    return texts


def _object_body() -> dict:
    try:
        body = jsontext.loads(whole_body())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error
    if not isinstance(body, dict):
        raise ApiError(
            400, "bad_parameter", 'send a JSON object: {"tool", "arguments", "request", ...}'
        )
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise ApiError(
            400,
            "bad_parameter",
            f"unknown field(s) {', '.join(unknown)[:120]}; known: {sorted(FIELDS)}",
        )
    return body


def _tool(body: dict) -> str:
    tool = body.get("tool")
    if not isinstance(tool, str) or not tool:
        raise ApiError(
            400, "bad_parameter", "tool must name the tool whose contract checks the call"
        )
    # as ingest takes them: a NUL, which PostgreSQL's text cannot hold, names no tool
    if not tool.isprintable():
        raise ApiError(404, "tool_not_found", f"no tool {tool[:80]!r}: a name is printable text")
    return tool


def _status(body: dict) -> int | None:
    status = body.get("status")
    if status is not None and (
        isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599
    ):
        raise ApiError(
            400,
            "bad_parameter",
            f"status must be an HTTP status from 100 to 599; got {status!r:.40}",
        )
    return status


def _http(body: dict) -> dict | None:
    """Return the request's method, URL and headers as `http` holds them.

    As a request's `http` holds them, or None."""
    method, url, headers = body.get("method"), body.get("url"), body.get("headers")
    for name, value in (("method", method), ("url", url)):
        if value is not None and not isinstance(value, str):
            raise ApiError(400, "bad_parameter", f"{name} must be text; got {value!r:.40}")
    if headers is not None and not (
        isinstance(headers, dict) and all(isinstance(value, str) for value in headers.values())
    ):
        raise ApiError(
            400,
            "bad_parameter",
            'headers must be an object of text values: {"Idempotency-Key": "ik-1"}',
        )
    http = {"method": method.upper()} if method else {}
    if url is not None:
        try:
            http["url"] = checked_url(url)
        except CheckError as error:
            raise ApiError(400, "bad_parameter", str(error)) from None
    if headers:
        http["headers"] = headers
    return http or None
