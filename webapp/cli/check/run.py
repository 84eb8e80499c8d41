"""Analyse the cases of `tracediff check` and say which pass."""

import time

from ...analysis import check_call, fails_check
from .inputs import Case

PASSED, FAILED, BROKEN = "passed", "failed", "broken"
# `tracediff lint`: a tool that maps to no operation, listed and not linted
SKIPPED = "skipped"


def analyse(case: Case) -> dict:
    """Analyse one case.

    Without a known status the response may be an error body."""
    return check_call(case.snapshots, case.contract, case.status_known)


def fails(result: dict) -> bool:
    """Tell whether a result fails a check.

    Any warning or error finding, or a schema violation."""
    return fails_check(result)


def run(cases: list[Case]) -> list[dict]:
    """Analyse every case that could be read.

    Return {case, outcome, result, seconds} per case."""
    outcomes = []
    for case in cases:
        if case.error is not None:
            outcomes.append({"case": case, "outcome": BROKEN, "result": None, "seconds": 0.0})
            continue
        start = time.perf_counter()
        result = analyse(case)
        outcomes.append(
            {
                "case": case,
                "outcome": FAILED if fails(result) else PASSED,
                "result": result,
                "seconds": time.perf_counter() - start,
            }
        )
    return outcomes


def exit_code(outcomes: list[dict]) -> int:
    """2 when a case could not be checked (or none was, all skipped).

    Else 1 when one fails, else 0."""
    kinds = {o["outcome"] for o in outcomes}
    return 2 if BROKEN in kinds or kinds == {SKIPPED} else 1 if FAILED in kinds else 0
