"""Contracts from an OpenAPI 3.0/3.1 document.

Its operations, checked, then their schemas inlined."""

from ..common.pointers import MISSING, child, resolve
from .errors import ContractError
from .inline import Inliner, operation_schemas
from .refs import LITERAL_KEYS
from .requests import FORM, operation_http

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def tools_from_openapi(doc: dict, operations: dict[str, str] | None = None) -> dict[str, dict]:
    """Return a contract per operation of an OpenAPI document.

    {tool name: {request_schema, response_schema, error_schema, description}}.

    `operations` maps tool names to operationIds (default: every operation, under its operationId
    or "METHOD /path"); every `$ref` the schemas use must point inside the document.
    """
    if not isinstance(doc, dict):
        raise ContractError(
            "not an OpenAPI 3.0/3.1 document (no 'openapi: 3.x' field)", "bad_openapi"
        )
    found = _openapi_operations(doc)
    wanted = operations or {op_id: op_id for op_id in found}
    wanted = {tool: _named(found, op_id) for tool, op_id in wanted.items()}
    for tool, op_id in wanted.items():
        if op_id not in found:
            known = ", ".join(sorted(found)[:20]) or "none"
            raise ContractError(
                f"operation {tool}={op_id}: no operation {op_id!r} in the OpenAPI document (it "
                f"has: {known})",
                "bad_operation",
            )
        _check_operation_refs(doc, *found[op_id][:2])
    inliner = Inliner(doc, str(doc["openapi"]).startswith("3.1"))
    try:
        contracts = {
            tool: operation_schemas(inliner, found[op_id][1]) for tool, op_id in wanted.items()
        }
        for tool, op_id in wanted.items():
            where, op, path, method, item = found[op_id]
            contracts[tool]["http"] = operation_http(inliner, path, method, item, op)
    except (ValueError, RecursionError) as error:
        raise ContractError(f"OpenAPI document: {error}", "bad_openapi") from error
    for tool, op_id in wanted.items():
        op = found[op_id][1]
        text = next(
            (op[k] for k in ("description", "summary") if isinstance(op.get(k), str) and op[k]),
            None,
        )
        if text:
            contracts[tool]["description"] = text
    return contracts


def form_schema(doc: dict, operation_id: str) -> dict | None:
    """Return the inlined schema of an operation's form body, or None.

    A form-encoded request body (Stripe's).

    A contract keeps no schema for a form body (the analysis reads its fields as `form:/name`);
    `tracediff lint` compares a tool's arguments with them."""
    operations = _openapi_operations(doc)
    found = operations.get(_named(operations, operation_id))
    body = found[1].get("requestBody") if found else None
    body, _ = _follow(doc, body, "requestBody") if isinstance(body, dict) else (None, None)
    content = body.get("content") if isinstance(body, dict) else None
    media = (
        next((m for m in content if str(m).split(";")[0].strip() == FORM), None)
        if isinstance(content, dict)
        else None
    )
    schema = content[media].get("schema") if media and isinstance(content[media], dict) else None
    if not isinstance(schema, dict):
        return None
    try:
        return Inliner(doc, str(doc["openapi"]).startswith("3.1")).inline(schema)
    except (ValueError, RecursionError) as error:
        raise ContractError(f"OpenAPI document: {error}", "bad_openapi") from error


def operation_ids(doc) -> list[str]:
    """Return the operationIds of an OpenAPI document's operations, in order.

    Or "METHOD /path" for one without."""
    if not isinstance(doc, dict):
        raise ContractError(
            "not an OpenAPI 3.0/3.1 document (no 'openapi: 3.x' field)", "bad_openapi"
        )
    return list(_openapi_operations(doc))


def _openapi_operations(doc: dict) -> dict[str, tuple]:
    """Return a document's operations by id; refuse a bad shape.

    {operationId (or "METHOD /path"): (JSON Pointer, operation, path, method, path item)}."""
    if not str(doc.get("openapi", "")).startswith("3."):
        raise ContractError(
            "not an OpenAPI 3.0/3.1 document (no 'openapi: 3.x' field)", "bad_openapi"
        )
    paths = {} if doc.get("paths") is None else doc["paths"]
    if not isinstance(paths, dict):
        raise ContractError("OpenAPI document: /paths must be an object", "bad_openapi")
    found = {}
    for path, item in paths.items():
        item, where = _follow(doc, item, child("/paths", path))
        for method in METHODS:
            op = item.get(method) if isinstance(item, dict) else None
            if isinstance(op, dict):
                found[_operation_id(op, method, path, child(where, method))] = (
                    child(where, method),
                    op,
                    path,
                    method,
                    item,
                )
    return found


def _named(found: dict, name: str) -> str:
    """Return the key of the operation a name means: its operationId or `METHOD /path`.

    The method in any case; a name that means none is returned as it is."""
    if name in found:
        return name
    method, _, path = name.partition(" ")
    spelled = f"{method.lower()} {path}"
    return next((key for key, op in found.items() if f"{op[3]} {op[2]}" == spelled), name)


def _operation_id(op: dict, method: str, path: str, where: str) -> str:
    op_id = op.get("operationId")
    if op_id is not None and not isinstance(op_id, str):
        raise ContractError(
            f"OpenAPI document: {where}/operationId must be a string", "bad_openapi"
        )
    if op.get("responses") is not None and not isinstance(op["responses"], dict):
        raise ContractError(f"OpenAPI document: {where}/responses must be an object", "bad_openapi")
    return op_id or f"{method.upper()} {path}"


def _follow(doc, node, where: str, seen=()):
    """Follow a node's $ref inside the document.

    Refuse an external or dangling one."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"] not in seen:
        ref = node["$ref"]
        if not ref.startswith("#"):
            raise ContractError(
                f"OpenAPI document: {where}/$ref: external $ref {ref!r} is not supported "
                "(only refs inside the document, '#/...')",
                "bad_ref",
            )
        target = resolve(doc, ref[1:])
        if target is MISSING:
            raise ContractError(
                f"OpenAPI document: {where}/$ref: {ref!r} points nowhere", "bad_ref"
            )
        seen, node, where = (*seen, ref), target, ref[1:]
    return node, where


def _check_operation_refs(doc, where: str, op: dict) -> None:
    """Follow every $ref the import will inline from an operation's body and responses."""
    stack, seen = (
        [
            (op.get("requestBody"), child(where, "requestBody")),
            (op.get("parameters"), child(where, "parameters")),
        ],
        set(),
    )
    stack += [
        (response, child(child(where, "responses"), code))
        for code, response in (op.get("responses") or {}).items()
    ]
    while stack:
        node, place = stack.pop()
        if isinstance(node, list):
            stack += [(item, child(place, i)) for i, item in enumerate(node)]
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                stack.append(_follow(doc, {"$ref": ref}, place))
            stack += [
                (sub, child(place, key))
                for key, sub in node.items()
                if key not in (*LITERAL_KEYS, "$ref")
            ]
