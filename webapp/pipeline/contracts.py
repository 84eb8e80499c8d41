"""Contracts in the store.

The one a tool's calls are analysed under now (completed by inference), contracts read from
documents merged into the stored ones and saved, and a contract replaced whole (`PUT`). Each change
reads and writes a contract as its one writer (store.change_tools), so a change made meanwhile is
kept."""

from functools import partial
from typing import NamedTuple

from ..contracts import (
    ContractError,
    check_version,
    is_openapi,
    load_file,
    merged_contracts,
    read_contracts,
    refuse_unprintable_names,
)
from ..inference.contract import (
    learnt_relations,
    learnt_separators,
    with_constant_segments,
    with_inferred,
)
from ..inference.decide import alternatives
from ..inference.segments import constant_segments
from ..problems.grouping import contract_digest


class ToolReads(NamedTuple):
    """A tool's learnt state as read once, for all that reads it from one state.

    The contract its calls are analysed under (`analysis_contract`), its history
    (webapp/pipeline/history.py) and its learning (webapp/pipeline/learning.py) read the same
    rows: read once a batch, or once in a learning transaction, they cost a fraction."""

    releases: dict
    evidence: dict
    paths: dict
    stored: dict | None


def tool_reads(store, name: str) -> ToolReads:
    """Read a tool's release state, pair evidence, path counts and stored contract."""
    releases, evidence = store.release_state(name), store.evidence(name)
    return ToolReads(releases, evidence, store.path_counts(name), store.get_tool(name))


def analysis_contract(store, name: str | None, read: ToolReads | None = None) -> dict | None:
    """Return the contract a tool's calls are analysed under now.

    The stored one plus its inferred pairs, the arguments its traffic showed consumed and the URL
    path segments it showed constant. From `read` when given (`tool_reads` of this state)."""
    if not name:
        return None
    pairs = store.inferred_pairs(name)
    evidence = (read.evidence if read else store.evidence(name)) if pairs else {}
    separators = learnt_separators(evidence, pairs) if pairs else None
    releases = (read.releases if read else store.release_state(name)) if pairs else None
    relations = learnt_relations(evidence, pairs, releases) if pairs else None
    others = alternatives(evidence, pairs, releases) if pairs else None
    stored = read.stored if read else store.get_tool(name)
    contract = with_inferred(
        stored, pairs, separators, store.consumed_arguments(name), relations, others
    )
    paths = read.paths if read else store.path_counts(name)
    return with_constant_segments(contract, constant_segments(paths))


def analysis_digest(store, name: str | None) -> str | None:
    """Return the digest of `analysis_contract`.

    What a call analysed now records, and what a resolve "when the contract changes" compares later
    calls with."""
    return contract_digest(analysis_contract(store, name))


def replace_contract(store, name: str, contract: dict, expected: set[str] | None = None) -> dict:
    """Store a checked contract whole.

    With `expected` versions (an If-Match), only over one of them, else raise StaleContract (412)
    naming the current version."""

    def replaced(stored: dict | None) -> dict:
        check_version(name, stored, expected)
        return contract

    return store.change_tool(name, replaced)


def save_contracts(store, contracts: dict[str, dict], only_if_missing=()) -> list[str]:
    """Merge each contract into the stored one.

    Check all, then save them in one transaction; return the names saved.

    A part the document lacks is kept; a part named in `only_if_missing` is taken only when the
    stored contract has none. The merges are checked before the transaction; inside it, a contract
    changed meanwhile (a confirm, an adopt) is merged again from what is stored then, so that change
    is kept.
    """
    read = {name: store.get_tool(name) for name in contracts}
    ready = merged_contracts(contracts, read, only_if_missing)

    def change(name: str, stored: dict | None) -> dict:
        if stored == read[name]:
            return ready[name]
        return merged_contracts({name: contracts[name]}, {name: stored}, only_if_missing)[name]

    store.change_tools({name: partial(change, name) for name in contracts})
    return sorted(contracts)


def import_contract_files(store, paths, operations: dict | None = None) -> list[str]:
    """Import contract documents from files; return the tool names saved."""
    return import_files(store, paths, operations)[0]


def import_files(store, paths, operations: dict | None = None) -> tuple[list[str], list[dict]]:
    """Import contract documents from files.

    Read them all before saving any. `operations` name operations of the OpenAPI documents among
    them (tool definitions beside one are not theirs to map). Return (tool names saved, server
    tools skipped)."""
    documents = [(path, load_file(path)) for path in paths]
    any_openapi = any(is_openapi(document) for _, document in documents)
    read = []
    for path, document in documents:
        mapped = operations if is_openapi(document) or not any_openapi else None
        try:
            read.append(read_contracts(document, mapped))
            refuse_unprintable_names(read[-1].contracts)
        except ContractError as error:
            # among several files, the message names the one it is about
            raise ContractError(f"{path}: {error}", error.code, error.status) from None
    names, skipped = [], []
    for imported in read:
        names += save_contracts(store, imported.contracts, imported.only_if_missing)
        skipped += imported.skipped
    return names, skipped
