"""Tool contracts from the documents people already have, checked and saved.

A document may be our own contract (`{"name", "arguments_schema", ...}`), tool
definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document, in JSON or YAML;
importing merges into a tool's existing contract, so definitions and OpenAPI combine.
"""
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import yaml
from referencing import Registry
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT7, specification_with

from .analysis import check_contract, tools_from_definitions, tools_from_openapi
from .analysis.openapi import METHODS
from .analysis.pointers import MISSING, child, from_tokens, resolve

CONTRACT_KEYS = ("description", "arguments_schema", "request_schema", "response_schema",
                 "error_schema", "mapping")
SCHEMA_KEYS = ("arguments_schema", "request_schema", "response_schema", "error_schema")
YAML_SUFFIXES = (".yaml", ".yml")
YAML_MEDIA_TYPES = ("application/yaml", "text/yaml", "application/x-yaml", "text/x-yaml")
MAX_YAML_NODES = 1_000_000
SCHEMA_INPUT_KEYS = ("input_schema", "inputSchema", "parameters", "parametersJsonSchema")
GEMINI_BUILT_INS = {"googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
                    "codeExecution", "code_execution", "urlContext", "url_context"}
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")
_LITERAL = ("enum", "const", "default", "example", "examples")
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")


class _YamlLoader(yaml.SafeLoader):
    """PyYAML's safe loader, keeping dates and times as the strings written (JSON has no dates)."""


_YamlLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_scalar)


class ContractError(ValueError):
    """A contract or a document that cannot become one, with the API error code and status."""

    def __init__(self, message: str, code: str = "bad_contract", status: int = 400):
        super().__init__(message)
        self.code, self.status = code, status


@dataclass
class Imported:
    """The contracts read from a document, and the server tools skipped (they have no schema)."""

    contracts: dict[str, dict]
    skipped: list[dict] = field(default_factory=list)


# --- reading documents -----------------------------------------------------------------------

def load_document(data: bytes, source: str, as_yaml: bool = False):
    """Parse a document: YAML when `as_yaml`, else JSON or, failing that, a YAML mapping."""
    if as_yaml:
        return _from_yaml(data, source)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        json_error = error
    try:
        document = _from_yaml(data, source)
    except ContractError:
        document = None
    if isinstance(document, dict):
        return document
    raise ContractError(f"{source} is not JSON (nor a YAML mapping): {json_error}", "not_json", 422)


def load_file(path) -> object:
    """Read a JSON file, or a YAML one when its name ends .yaml or .yml."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ContractError(f"{path}: cannot read: {error.strerror or error}", "unreadable") from error
    if path.suffix.lower() in YAML_SUFFIXES:
        return _from_yaml(data, str(path))
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise ContractError(f"{path}: not JSON: {error}", "not_json", 422) from error


def _from_yaml(data: bytes, source: str):
    try:
        document = yaml.load(data, Loader=_YamlLoader)   # noqa: S506 - a subclass of SafeLoader
    except (yaml.YAMLError, RecursionError, ValueError) as error:
        raise ContractError(f"{source}: not YAML: {_yaml_problem(error)}", "not_yaml", 422) from None
    if _too_many_nodes(document):
        raise ContractError(f"{source}: YAML document too large once its aliases are expanded "
                            f"(more than {MAX_YAML_NODES:,} values)", "too_large", 413)
    try:   # keys such as 200 become "200", as in JSON
        return orjson.loads(orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS))
    except (TypeError, orjson.JSONDecodeError) as error:
        raise ContractError(f"{source}: YAML value without a JSON form: {error}", "not_yaml", 422) from None


def _yaml_problem(error) -> str:
    mark = getattr(error, "problem_mark", None)
    if getattr(error, "problem", None) and mark is not None:
        return f"{error.problem} at line {mark.line + 1} column {mark.column + 1}"
    return " ".join(str(error).split())


def _too_many_nodes(document) -> bool:
    """Count values as JSON would write them (aliases expanded), stopping at the cap."""
    stack, count = [document], 0
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            return True
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


# --- checking contracts ----------------------------------------------------------------------

def validated_contract(name: str, body) -> dict:
    """Return the contract parts of a PUT body, or raise ContractError saying what is wrong."""
    if not isinstance(body, dict):
        raise ContractError("a contract is a JSON object with arguments_schema, request_schema, "
                            "response_schema, error_schema and mapping")
    unknown = sorted(set(body) - set(CONTRACT_KEYS) - {"name", "updated_at"})
    if unknown:
        raise ContractError(f"unknown contract fields {unknown}; expected some of {list(CONTRACT_KEYS)}")
    if body.get("description") is not None and not isinstance(body["description"], str):
        raise ContractError("description: must be a string")
    contract = {key: body[key] for key in CONTRACT_KEYS if body.get(key) is not None}
    try:
        problems = check_contract({"name": name, **contract}) or ref_problems(contract)
    except RecursionError:
        problems = ["a schema is nested too deeply to check"]
    if problems:
        raise ContractError(f"contract for {name!r} refused: " + "; ".join(problems))
    return contract


def ref_problems(contract: dict) -> list[str]:
    """Name every `$ref` of the contract's schemas that cannot be resolved offline."""
    problems = []
    for key in SCHEMA_KEYS:
        schema = contract.get(key)
        if isinstance(schema, dict):
            problems += [f"{key}: {where}: $ref {ref!r} cannot be resolved ({why})"
                         for where, ref, why in _unresolved_refs(schema)]
    return problems


def _unresolved_refs(schema: dict):
    """Yield (place, ref, reason) of each $ref the jsonschema resolver cannot follow; never fetches."""
    dialect = schema.get("$schema") if isinstance(schema.get("$schema"), str) else ""
    spec = specification_with(dialect, default=DRAFT7)
    resolver = Registry().resolver_with_root(spec.create_resource(schema))
    yield from _walk_refs(resolver, spec, schema, ())


def _walk_refs(resolver, spec, node, path, is_map=False):
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk_refs(resolver, spec, item, (*path, str(i)))
        return
    if not isinstance(node, dict):
        return
    if is_map:
        for key, sub in node.items():
            yield from _walk_refs(resolver, spec, sub, (*path, key))
        return
    if isinstance(node.get("$id", node.get("id")), str):
        resolver = resolver.in_subresource(spec.create_resource(node))
    ref = node.get("$ref")
    if isinstance(ref, str):
        reason = _lookup_failure(resolver, ref)
        if reason:
            yield from_tokens((*path, "$ref")), ref, reason
    for key, sub in node.items():
        if key not in _LITERAL:
            yield from _walk_refs(resolver, spec, sub, (*path, key), key in _SCHEMA_MAPS)


def _lookup_failure(resolver, ref: str) -> str | None:
    try:
        resolver.lookup(ref)
    except Unresolvable as error:
        name = type(error).__name__
        return {"PointerToNowhere": "nothing is at that pointer",
                "NoSuchAnchor": "no such anchor"}.get(
            name, "not inside this schema; tracediff never fetches remote or external refs")
    except ValueError as error:
        return f"not a valid reference: {error}"
    return None


# --- reading contracts from documents --------------------------------------------------------

def parse_operations(items) -> dict[str, str] | None:
    """Turn TOOL=OPERATION_ID strings into {tool: operationId}; refuse any other form."""
    mapping = {}
    for item in items:
        tool, sep, op_id = item.partition("=")
        if not sep or not tool or not op_id:
            raise ContractError(f"operation {item!r}: expected TOOL=OPERATION_ID", "bad_operation")
        if tool in mapping:
            raise ContractError(f"operation {item!r}: tool {tool!r} is mapped twice", "bad_operation")
        mapping[tool] = op_id
    return mapping or None


def contracts_from_document(document, operations: dict | None = None) -> dict[str, dict]:
    """Turn any supported document into {tool name: contract parts}."""
    return read_contracts(document, operations).contracts


def read_contracts(document, operations: dict | None = None) -> Imported:
    """Read contracts from any supported document, skipping provider-run server tools."""
    if isinstance(document, dict) and "openapi" in document:
        return Imported(_openapi_contracts(document, operations))
    if operations:
        raise ContractError("operation mappings apply to OpenAPI documents only", "bad_operation")
    items = document if isinstance(document, list) else [document]
    if items and all(_is_own_contract(item) for item in items):
        return Imported({item["name"]: {k: item[k] for k in CONTRACT_KEYS if k in item} for item in items})
    skipped = []
    definitions = _without_server_tools(document, skipped)
    try:
        contracts = tools_from_definitions(definitions)
    except ValueError as error:
        names = ", ".join(s["name"] for s in skipped)
        raise ContractError(str(error) + (f" (skipped server tools: {names})" if names else "")) from error
    for name, description in _descriptions(definitions).items():
        contracts[name]["description"] = description
    return Imported(contracts, skipped)


def _is_own_contract(item) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and any(
        key.endswith("_schema") and key != "input_schema" or key == "mapping" for key in item)


def _is_server_tool(item) -> bool:
    """A tool the provider runs (Anthropic web_search, OpenAI file_search, Gemini googleSearch)."""
    if not isinstance(item, dict) or any(key in item for key in SCHEMA_INPUT_KEYS):
        return False
    if item and set(item) <= GEMINI_BUILT_INS:
        return True
    kind = item.get("type")
    return isinstance(kind, str) and kind not in ("function", "custom", *JSON_TYPES)


def _without_server_tools(document, skipped: list):
    """Return the document without server tools, noting each in `skipped`."""
    if isinstance(document, list):
        kept = []
        for item in document:
            if _is_server_tool(item):
                skipped.append({"name": item.get("name") or item.get("type") or next(iter(item)),
                                "type": item.get("type") or next(iter(item)),
                                "reason": "a server tool the provider runs; it has no input schema"})
            else:
                kept.append(_without_server_tools(item, skipped))
        return kept
    if _is_server_tool(document):
        return _without_server_tools([document], skipped)
    if isinstance(document, dict):
        for key in ("tools", "result"):
            if isinstance(document.get(key), (list, dict)):
                document = {**document, key: _without_server_tools(document[key], skipped)}
    return document


def _definitions(obj):
    """Yield each tool definition object, in the shapes tools_from_definitions reads."""
    if isinstance(obj, list):
        for item in obj:
            yield from _definitions(item)
    elif isinstance(obj, dict):
        lists = [obj.get(k) for k in ("tools", "functionDeclarations", "function_declarations")]
        if isinstance(obj.get("result"), dict) and "tools" in obj["result"]:
            yield from _definitions(obj["result"]["tools"])
        elif any(isinstance(value, list) for value in lists):
            yield from _definitions(next(value for value in lists if isinstance(value, list)))
        elif obj.get("type") == "function" and isinstance(obj.get("function"), dict):
            yield obj["function"]
        else:
            yield obj


def _descriptions(document) -> dict[str, str]:
    return {d["name"]: d["description"] for d in _definitions(document)
            if isinstance(d.get("name"), str) and isinstance(d.get("description"), str) and d["description"]}


# --- OpenAPI ---------------------------------------------------------------------------------

def _openapi_contracts(doc: dict, operations: dict | None) -> dict[str, dict]:
    found = _openapi_operations(doc)
    wanted = operations or {op_id: op_id for op_id in found}
    for tool, op_id in wanted.items():
        if op_id not in found:
            known = ", ".join(sorted(found)[:20]) or "none"
            raise ContractError(f"operation {tool}={op_id}: no operation {op_id!r} in the OpenAPI document "
                                f"(it has: {known})", "bad_operation")
        _check_operation_refs(doc, *found[op_id])
    try:
        contracts = tools_from_openapi(doc, operations)
    except (ValueError, RecursionError) as error:
        raise ContractError(f"OpenAPI document: {error}", "bad_openapi") from error
    for tool, op_id in wanted.items():
        op = found[op_id][1]
        text = next((op[k] for k in ("description", "summary") if isinstance(op.get(k), str) and op[k]), None)
        if text and tool in contracts:
            contracts[tool]["description"] = text
    return contracts


def _openapi_operations(doc: dict) -> dict[str, tuple[str, dict]]:
    """Return {operationId (or "METHOD /path"): (JSON Pointer, operation)}; refuse a bad shape."""
    if not str(doc.get("openapi", "")).startswith("3."):
        raise ContractError("not an OpenAPI 3.0/3.1 document (no 'openapi: 3.x' field)", "bad_openapi")
    paths = {} if doc.get("paths") is None else doc["paths"]
    if not isinstance(paths, dict):
        raise ContractError("OpenAPI document: /paths must be an object", "bad_openapi")
    found = {}
    for path, item in paths.items():
        item, where = _follow(doc, item, child("/paths", path))
        for method in METHODS:
            op = item.get(method) if isinstance(item, dict) else None
            if isinstance(op, dict):
                found[_operation_id(op, method, path, child(where, method))] = (child(where, method), op)
    return found


def _operation_id(op: dict, method: str, path: str, where: str) -> str:
    op_id = op.get("operationId")
    if op_id is not None and not isinstance(op_id, str):
        raise ContractError(f"OpenAPI document: {where}/operationId must be a string", "bad_openapi")
    if op.get("responses") is not None and not isinstance(op["responses"], dict):
        raise ContractError(f"OpenAPI document: {where}/responses must be an object", "bad_openapi")
    return op_id or f"{method.upper()} {path}"


def _follow(doc, node, where: str, seen=()):
    """Follow a node's $ref inside the document; refuse an external or dangling one."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"] not in seen:
        ref = node["$ref"]
        if not ref.startswith("#"):
            raise ContractError(f"OpenAPI document: {where}/$ref: external $ref {ref!r} is not supported "
                                "(only refs inside the document, '#/...')", "bad_ref")
        target = resolve(doc, ref[1:])
        if target is MISSING:
            raise ContractError(f"OpenAPI document: {where}/$ref: {ref!r} points nowhere", "bad_ref")
        seen, node, where = (*seen, ref), target, ref[1:]
    return node, where


def _check_operation_refs(doc, where: str, op: dict) -> None:
    """Follow every $ref the import will inline from an operation's body and responses."""
    stack, seen = [(op.get("requestBody"), child(where, "requestBody"))], set()
    stack += [(response, child(child(where, "responses"), code))
              for code, response in (op.get("responses") or {}).items()]
    while stack:
        node, place = stack.pop()
        if isinstance(node, list):
            stack += [(item, child(place, i)) for i, item in enumerate(node)]
        elif isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in seen:
                seen.add(ref)
                stack.append(_follow(doc, {"$ref": ref}, place))
            stack += [(sub, child(place, key)) for key, sub in node.items() if key not in (*_LITERAL, "$ref")]


# --- saving ----------------------------------------------------------------------------------

def save_contracts(store, contracts: dict[str, dict]) -> list[str]:
    """Merge each contract into the stored one (a part the document lacks is kept), check all, then save."""
    merged = {}
    for name, parts in contracts.items():
        existing = store.get_tool(name) or {}
        given = {key: value for key, value in parts.items() if value is not None}
        merged[name] = validated_contract(name, {**_parts(existing), **given})
    for name, contract in merged.items():
        store.put_tool(name, contract)
    return sorted(merged)


def _parts(contract: dict) -> dict:
    return {key: contract[key] for key in CONTRACT_KEYS if key in contract}


def import_contract_files(store, paths, operations: dict | None = None) -> list[str]:
    """Import contract documents from files; return the tool names saved."""
    return import_files(store, paths, operations)[0]


def import_files(store, paths, operations: dict | None = None) -> tuple[list[str], list[dict]]:
    """Import contract documents from files; return (tool names saved, server tools skipped)."""
    names, skipped = [], []
    for path in paths:
        imported = read_contracts(load_file(path), operations)
        names += save_contracts(store, imported.contracts)
        skipped += imported.skipped
    return names, skipped
