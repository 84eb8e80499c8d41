"""A person's change to a problem (from the pages, the API or the CLI).

Completed with what it depends on and handed to the store, which applies it in one transaction."""

from .contracts import analysis_digest
from .rules import RULES


def change_problem(store, number: int, change: dict, by: str, at: str | None = None) -> None:
    """Apply a validated change to a problem, now or `at`.

    Validated by webapp.problems.states.parse_change.

    A resolve "when the contract changes" records the digest of the problem's tool's contract as
    declared (what inference learnt left out), which later calls are compared with; a merge counts
    exposure again by the problem rules."""
    if (change.get("resolve") or {}).get("mode") == "contract_change":
        change = {**change, "contract_digest": analysis_digest(store, store.problem_tool(number))}
    store.change_problem(number, change, by, at, RULES)
