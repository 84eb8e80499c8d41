"""The tools API under /api/v1/tools.

Contracts listed, read, replaced, deleted and imported."""

import re

from flask import Blueprint, jsonify, request

from ...common import jsontext
from ...contracts import (
    YAML_MEDIA_TYPES,
    StaleContract,
    contract_version,
    load_document,
    parse_operations,
    read_contracts,
    refuse_unprintable_names,
    skipped_patterns,
    validated_contract,
)
from ...pipeline.contracts import replace_contract, save_contracts
from ..bodies import whole_body
from ..db import get_store
from ..errors import ApiError
from ..paging import key_cursor, key_page_args
from ..security import admin_only

bp = Blueprint("tools_api", __name__)


@bp.get("/api/v1/tools")
def list_tools():
    """List the contracts in name order, `limit` (50 by default) a page.

    With the next page's cursor (or null)."""
    limit, after = key_page_args(request.args, 1)
    found = get_store().tools_page(after[0] if after else "", limit + 1)
    last = key_cursor((found[limit - 1]["name"],)) if len(found) > limit else None
    return jsonify(tools=found[:limit], next_cursor=last)


@bp.get("/api/v1/tools/<tool:name>")
def get_tool(name):
    tool = get_store().get_tool(name)
    if tool is None:
        raise ApiError(404, "tool_not_found", f"no contract for tool {name!r}")
    return versioned(jsonify(with_warnings(tool)), tool)


def versioned(response, tool: dict):
    """Give a contract's answer its version as `ETag`, for a PUT's If-Match."""
    response.set_etag(contract_version(tool))
    return response


def with_warnings(tool: dict) -> dict:
    """Return a stored contract with its `warnings`, if any.

    Patterns RE2 cannot run, skipped."""
    warnings = skipped_patterns(tool)
    return {**tool, "warnings": warnings} if warnings else tool


@bp.put("/api/v1/tools/<tool:name>")
@admin_only
def put_tool(name):
    """Create or replace a tool's contract.

    Refuse a bad schema with what is wrong, and with If-Match, a contract changed since that version
    was read (412, its current version as ETag)."""
    refuse_unroutable_names([name])
    contract = validated_contract(name, _json_body())
    try:
        saved = replace_contract(get_store(), name, contract, _if_match())
    except StaleContract as error:
        headers = {"ETag": f'"{error.current}"'}
        raise ApiError(error.status, error.code, str(error), headers=headers) from None
    return versioned(jsonify(with_warnings(saved)), saved)


def _if_match() -> set[str] | None:
    """Return the versions an If-Match names, or None without one.

    "*": any stored one."""
    if not request.if_match:
        return None
    return {"*"} if request.if_match.star_tag else set(request.if_match.as_set())


@bp.delete("/api/v1/tools/<tool:name>")
@admin_only
def delete_tool(name):
    if not get_store().delete_tool(name):
        raise ApiError(404, "tool_not_found", f"no contract for tool {name!r}")
    return "", 204


@bp.post("/api/v1/tools/import")
@admin_only
def import_tools():
    """Import tool definitions or an OpenAPI document.

    Definitions of Anthropic, OpenAI, MCP, Gemini; an OpenAPI document in JSON or YAML."""
    operations = parse_operations(request.args.getlist("operation"))
    document = load_document(whole_body(), "the body", as_yaml=request.mimetype in YAML_MEDIA_TYPES)
    imported = read_contracts(document, operations)
    refuse_unroutable_names(imported.contracts)
    store = get_store()
    names = save_contracts(store, imported.contracts, imported.only_if_missing)
    skipped = {"skipped": imported.skipped} if imported.skipped else {}
    warned = {name: skipped_patterns(store.get_tool(name)) for name in names}
    warned = {name: [w["message"] for w in found] for name, found in warned.items() if found}
    return jsonify(imported=names, **skipped, **({"warnings": warned} if warned else {}))


# what follows a tool's name in the routes of its own (webapp/web/api/mappings.py):
# /api/v1/tools/srv/observed is srv's
TOOL_SUB_ROUTE = re.compile(r"/(?:observed(?:/adopt)?|mappings(?:/[^/]*)?)\Z")


def refuse_unroutable_names(names) -> None:
    """Refuse a tool name that ends as one of a tool's own routes.

    Its URL would reach another tool's. And one no event could carry."""
    refuse_unprintable_names(names)
    for name in names:
        if TOOL_SUB_ROUTE.search(name):
            raise ApiError(
                400,
                "bad_name",
                f"tool name {name[:80]!r} ends as a tool's own route (/observed, /observed/adopt, "
                "/mappings...): "
                "its URLs would reach another tool's; name it otherwise",
            )


def _json_body():
    try:
        return jsontext.loads(whole_body())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error
