"""Save contracts read from documents, merging each into the stored one."""

from functools import partial

from .checks import CONTRACT_KEYS, validated_contract
from .documents import load_file
from .read import read_contracts


def save_contracts(store, contracts: dict[str, dict], only_if_missing=()) -> list[str]:
    """Merge each contract into the stored one (a part the document lacks is kept), check all, then
    save them in one transaction.

    A part named in `only_if_missing` is taken only when the stored contract has none. The merges
    are checked before the transaction; inside it, a contract changed meanwhile (a confirm, an
    adopt) is merged again from what is stored then, so that change is kept.
    """
    read = {name: store.get_tool(name) for name in contracts}
    ready = {name: merged(name, contracts[name], read[name], only_if_missing) for name in contracts}

    def change(name: str, stored: dict | None) -> dict:
        if stored == read[name]:
            return ready[name]
        return merged(name, contracts[name], stored, only_if_missing)

    store.change_tools({name: partial(change, name) for name in contracts})
    return sorted(contracts)


def merged(name: str, parts: dict, stored: dict | None, only_if_missing=()) -> dict:
    """Return the checked contract of a document's `parts` merged into the stored contract."""
    existing = stored or {}
    given = {
        key: value
        for key, value in parts.items()
        if value is not None and not (key in only_if_missing and existing.get(key))
    }
    return validated_contract(name, {**_parts(existing), **given})


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
