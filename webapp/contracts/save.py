"""Save contracts read from documents, merging each into the stored one."""

from .checks import CONTRACT_KEYS, validated_contract
from .documents import load_file
from .read import read_contracts


def save_contracts(store, contracts: dict[str, dict], only_if_missing=()) -> list[str]:
    """Merge each contract into the stored one (a part the document lacks is kept), check all, then save.

    A part named in `only_if_missing` is taken only when the stored contract has none.
    """
    merged = {}
    for name, parts in contracts.items():
        existing = store.get_tool(name) or {}
        given = {
            key: value
            for key, value in parts.items()
            if value is not None and not (key in only_if_missing and existing.get(key))
        }
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
