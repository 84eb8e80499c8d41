"""Contracts in the store: the one a tool's calls are analysed under now (completed by inference), and
contracts read from documents, merged into the stored ones and saved."""

from ..contracts import load_file, merged_contracts, read_contracts
from ..inference.contract import learnt_separators, with_inferred
from ..problems.grouping import contract_digest


def analysis_contract(store, name: str | None) -> dict | None:
    """Return the contract a tool's calls are analysed under now: the stored one plus its inferred pairs and the
    arguments its traffic showed consumed."""
    if not name:
        return None
    pairs = store.inferred_pairs(name)
    separators = learnt_separators(store.evidence(name), pairs) if pairs else None
    return with_inferred(store.get_tool(name), pairs, separators, store.consumed_arguments(name))


def analysis_digest(store, name: str | None) -> str | None:
    """Return the digest of `analysis_contract`: what a call analysed now records, and what a resolve
    "when the contract changes" compares later calls with."""
    return contract_digest(analysis_contract(store, name))


def save_contracts(store, contracts: dict[str, dict], only_if_missing=()) -> list[str]:
    """Merge each contract into the stored one, check all, then save; return the names saved.

    A part the document lacks is kept; a part named in `only_if_missing` is taken only when the
    stored contract has none.
    """
    stored = {name: store.get_tool(name) for name in contracts}
    merged = merged_contracts(contracts, stored, only_if_missing)
    for name, contract in merged.items():
        store.put_tool(name, contract)
    return sorted(merged)


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
