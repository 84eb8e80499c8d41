"""One call checked under a tool's stored contract, without storing it.

`POST /api/v1/check`, which the MCP tool `check_call` asks, so an agent verifies a fix before it
ships."""

from ..analysis import check_call, fails_check
from ..problems.grouping import contract_digest
from .contracts import analysis_contract


def check_stored(store, tool: str, snapshots: dict, status_known: bool) -> dict:
    """Check one call under the contract the tool's stored calls are under.

    Its inferred pairs included; return the analysis with `tool`, `outcome` (passed or failed) and
    the contract's digest (null: none)."""
    contract = analysis_contract(store, tool)
    result = check_call(snapshots, contract, status_known)
    outcome = "failed" if fails_check(result) else "passed"
    return {
        "tool": tool,
        "outcome": outcome,
        "contract_digest": contract_digest(contract),
        **result,
    }
