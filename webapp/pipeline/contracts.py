"""The contract a tool's calls are analysed under now, read from the store and completed by inference; and a
contract replaced whole (`PUT`), over the version it was read at."""

from ..contracts import check_version
from ..inference.contract import learnt_separators, with_inferred
from ..problems.grouping import contract_digest


def analysis_contract(store, name: str | None) -> dict | None:
    """Return the contract a tool's calls are analysed under now: the stored one plus its inferred pairs."""
    if not name:
        return None
    pairs = store.inferred_pairs(name)
    return with_inferred(store.get_tool(name), pairs, learnt_separators(store.evidence(name), pairs) if pairs else None)


def analysis_digest(store, name: str | None) -> str | None:
    """Return the digest of `analysis_contract`: what a call analysed now records, and what a resolve
    "when the contract changes" compares later calls with."""
    return contract_digest(analysis_contract(store, name))


def replace_contract(store, name: str, contract: dict, expected: set[str] | None = None) -> dict:
    """Store a checked contract whole; with `expected` versions (an If-Match), only over one of them, else
    raise StaleContract (412) naming the current version."""

    def replaced(stored: dict | None) -> dict:
        check_version(name, stored, expected)
        return contract

    return store.change_tool(name, replaced)
