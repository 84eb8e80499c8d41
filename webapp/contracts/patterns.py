"""The patterns of a contract no linear-time engine runs.

Told wherever the contract is saved or shown, and skipped.

A `pattern` with a backreference or a lookaround cannot run in RE2 (webapp/common/patterns.py).
Running it with a backtracking engine would let one contract stop the analysis, so it never runs:
the contract is kept, and each such pattern is told at import, on `PUT`, on the tool page and by
`tracediff lint`."""

from ..common.patterns import unrunnable_patterns
from .checks import SCHEMA_KEYS


def skipped_patterns(contract: dict | None) -> list[dict]:
    """Return a record per contract pattern that RE2 cannot run.

    {"path", "pattern", "reason", "message"} per pattern of a contract's schemas and parameters;
    `path` is its JSON Pointer in the contract."""
    if not isinstance(contract, dict):
        return []
    found = []
    for key in SCHEMA_KEYS:
        found += unrunnable_patterns(contract.get(key), f"/{key}")
    http = contract.get("http") if isinstance(contract.get("http"), dict) else {}
    params = http.get("parameters") if isinstance(http.get("parameters"), list) else []
    for i, param in enumerate(params):
        if isinstance(param, dict):
            found += unrunnable_patterns(param.get("schema"), f"/http/parameters/{i}/schema")
    return [
        {"path": path, "pattern": pattern, "reason": why, "message": _message(path, pattern, why)}
        for path, pattern, why in found
    ]


def _message(path: str, pattern: str, why: str) -> str:
    return f"{path}: pattern {pattern!r} is skipped: {why}"
