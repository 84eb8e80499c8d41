"""Analyse the cases of `tracediff check` and say which pass."""

import time

from ...analysis import analyze_call, error_body, error_schema_for, is_valid, worst
from .inputs import Case

PASSED, FAILED, BROKEN = "passed", "failed", "broken"
SKIPPED = "skipped"  # `tracediff lint`: a tool that maps to no operation, listed and not linted


def analyse(case: Case) -> dict:
    """Analyse one case; without a known status the response may be an error body."""
    result = analyze_call(case.snapshots, case.contract)
    response = case.snapshots.get("response")
    if response is not None and not case.status_known:
        _accept_error_body(result, response["payload"], case.contract)
    return result


def _accept_error_body(result: dict, body, contract) -> None:
    """With no status the response may be an error report: accept one that fits the error schema."""
    checked = result["validation"]["response"]
    name, schema = error_schema_for(contract)
    if checked["valid"] is not False or not is_valid(error_body(body, name)[1], schema):
        return
    result["validation"]["response"] = {"schema": name, "valid": True, "errors": []}
    result["summary"]["validation_errors"] -= len(checked["errors"])
    result["worst"] = worst(
        [f["severity"] for f in result["findings"]] + (["error"] if result["summary"]["validation_errors"] else [])
    )


def fails(result: dict) -> bool:
    """Tell whether a result fails a check: any warning or error finding, or a schema violation."""
    failing = result["summary"].get("error", 0) + result["summary"].get("warning", 0)
    return bool(failing) or any(v.get("valid") is False for v in result["validation"].values())


def run(cases: list[Case]) -> list[dict]:
    """Analyse every case that could be read; return {case, outcome, result, seconds} per case."""
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
    """2 when a case could not be checked (or none was, all skipped), else 1 when one fails, else 0."""
    kinds = {o["outcome"] for o in outcomes}
    return 2 if BROKEN in kinds or kinds == {SKIPPED} else 1 if FAILED in kinds else 0
