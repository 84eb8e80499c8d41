"""Tool contracts from the documents people already have, checked and saved.

A document may be our own contract (`{"name", "arguments_schema", ...}`), tool
definitions (Anthropic, OpenAI, MCP, Gemini) or an OpenAPI document; importing
merges into a tool's existing contract, so definitions and OpenAPI combine.
"""
from pathlib import Path

import orjson

from .analysis import check_contract, tools_from_definitions, tools_from_openapi

CONTRACT_KEYS = ("description", "arguments_schema", "request_schema", "response_schema",
                 "error_schema", "mapping")


class ContractError(ValueError):
    """A contract or a document that cannot become one."""


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
    problems = check_contract({"name": name, **contract})
    if problems:
        raise ContractError(f"contract for {name!r} refused: " + "; ".join(problems))
    return contract


def contracts_from_document(document, operations: dict | None = None) -> dict[str, dict]:
    """Turn any supported document into {tool name: contract parts}."""
    if isinstance(document, dict) and "openapi" in document:
        return tools_from_openapi(document, operations)
    items = document if isinstance(document, list) else [document]
    if items and all(_is_own_contract(item) for item in items):
        return {item["name"]: {k: item[k] for k in CONTRACT_KEYS if k in item} for item in items}
    try:
        return tools_from_definitions(document)
    except ValueError as error:
        raise ContractError(str(error)) from error


def _is_own_contract(item) -> bool:
    return isinstance(item, dict) and isinstance(item.get("name"), str) and any(
        key.endswith("_schema") and key != "input_schema" or key == "mapping" for key in item)


def save_contracts(store, contracts: dict[str, dict]) -> list[str]:
    """Merge each contract into the stored one, check all, then save; return the names."""
    merged = {}
    for name, parts in contracts.items():
        existing = store.get_tool(name) or {}
        merged[name] = validated_contract(name, {**_parts(existing), **parts})
    for name, contract in merged.items():
        store.put_tool(name, contract)
    return sorted(merged)


def _parts(contract: dict) -> dict:
    return {key: contract[key] for key in CONTRACT_KEYS if key in contract}


def import_contract_files(store, paths, operations: dict | None = None) -> list[str]:
    """Import contract documents from files; return the tool names saved."""
    names = []
    for path in paths:
        try:
            document = orjson.loads(Path(path).read_bytes())
        except orjson.JSONDecodeError as error:
            raise ContractError(f"{path}: not JSON: {error}") from error
        names += save_contracts(store, contracts_from_document(document, operations))
    return names
