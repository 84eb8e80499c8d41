"""Fixture files for `tracediff check`: three snapshots and a contract from disk."""
from pathlib import Path

import orjson

from .contracts import ContractError, contracts_from_document, validated_contract


def read_snapshot(path: str | None, status: int | None = None) -> dict | None:
    """Read one snapshot file; text that is not JSON stays a string (reported as invalid_json)."""
    if path is None:
        return None
    text = Path(path).read_bytes()
    try:
        payload = orjson.loads(text)
    except orjson.JSONDecodeError:
        payload = text.decode("utf-8", "replace")
    http = {"status_code": status} if status is not None else None
    return {"payload": payload, "logged_as_string": False, "http": http}


def read_contract(path: str | None, tool: str | None) -> dict | None:
    """Read the contract of `tool` (or the only one) from any supported document."""
    if path is None:
        return None
    try:
        document = orjson.loads(Path(path).read_bytes())
    except orjson.JSONDecodeError as error:
        raise ContractError(f"{path}: not JSON: {error}") from error
    contracts = contracts_from_document(document)
    if tool is None and len(contracts) == 1:
        tool = next(iter(contracts))
    if tool not in contracts:
        raise ContractError(f"{path} has no contract for tool {tool!r}; it has {sorted(contracts)}"
                            + ("" if tool else " (choose one with --tool)"))
    return {"name": tool, **validated_contract(tool, contracts[tool])}


def load_check_inputs(tool, contract, arguments, request, response, status):
    """Return (snapshots, contract) for analyze_call from the check command's files."""
    snapshots = {
        "arguments": read_snapshot(arguments),
        "request": read_snapshot(request),
        "response": read_snapshot(response, status if status is not None else (200 if response else None)),
    }
    if not any(snapshots.values()):
        raise ValueError("give at least one of --arguments, --request, --response")
    return snapshots, read_contract(contract, tool)
