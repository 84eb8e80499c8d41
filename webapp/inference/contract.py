"""The contract a tool's calls are analysed under: the stored one plus the pairs inference learnt (pure).

The pipeline analyses with it and the problems record its digest; a resolve "when the contract
changes" records the same digest, so both read it here (webapp/store/tools.py `analysis_contract`).
"""
from ..analysis.pointers import is_pointer


def declared_pairs(contract: dict | None) -> list[tuple[str, str]]:
    """Return the contract's (arguments, request) pairs."""
    return [(m["arguments"], m["request"]) for m in (contract or {}).get("mapping") or ()
            if isinstance(m, dict) and is_pointer(m.get("arguments")) and is_pointer(m.get("request"))]


def with_inferred(contract: dict | None, pairs) -> dict | None:
    """Return the contract the analysis gets: the stored one plus the inferred pairs as mapping entries."""
    declared = declared_pairs(contract)
    left, right = {a for a, _ in declared}, {r for _, r in declared}
    extra = [{"arguments": a, "request": r, "inferred": True} for a, r in pairs
             if a not in left and r not in right]
    if not extra:
        return contract
    contract = dict(contract or {})
    contract["mapping"] = [*(contract.get("mapping") or []), *extra]
    return contract
