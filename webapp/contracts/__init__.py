"""Tool contracts from the documents people already have, checked and saved.

A document may be our own contract (`{"name", "arguments_schema", ...}`), tool
definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document, in JSON or YAML;
importing merges into a tool's existing contract, so definitions and OpenAPI combine.
"""
from dataclasses import dataclass, field

from ..analysis import check_contract, tools_from_definitions
from .documents import YAML_MEDIA_TYPES, load_document, load_file
from .errors import ContractError
from .openapi import openapi_contracts
from .refs import ref_problems

__all__ = ["ContractError", "Imported", "YAML_MEDIA_TYPES", "load_document", "load_file", "ref_problems",
           "validated_contract", "parse_operations", "contracts_from_document", "read_contracts",
           "save_contracts", "import_contract_files", "import_files"]

CONTRACT_KEYS = ("description", "arguments_schema", "request_schema", "response_schema",
                 "error_schema", "mapping")
SCHEMA_INPUT_KEYS = ("input_schema", "inputSchema", "parameters", "parametersJsonSchema")
GEMINI_BUILT_INS = {"googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
                    "codeExecution", "code_execution", "urlContext", "url_context"}
JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


@dataclass
class Imported:
    """The contracts read from a document, and the server tools skipped (they have no schema)."""

    contracts: dict[str, dict]
    skipped: list[dict] = field(default_factory=list)
    # parts that only fill a gap: an OpenAPI operation's summary never replaces the tool's own description
    only_if_missing: tuple = ()


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
        return Imported(openapi_contracts(document, operations), only_if_missing=("description",))
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



# --- saving ----------------------------------------------------------------------------------

def save_contracts(store, contracts: dict[str, dict], only_if_missing=()) -> list[str]:
    """Merge each contract into the stored one (a part the document lacks is kept), check all, then save.

    A part named in `only_if_missing` is taken only when the stored contract has none.
    """
    merged = {}
    for name, parts in contracts.items():
        existing = store.get_tool(name) or {}
        given = {key: value for key, value in parts.items()
                 if value is not None and not (key in only_if_missing and existing.get(key))}
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
        names += save_contracts(store, imported.contracts, imported.only_if_missing)
        skipped += imported.skipped
    return names, skipped
