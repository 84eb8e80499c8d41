"""The contract a tool's calls are analysed under now, read from the store and completed by inference."""

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
