"""The closed list of finding kinds, severities, and the finding record itself."""

FINDING_KINDS = (
    ("renamed", "the same value sits under another key that the mapping does not declare"),
    (
        "case_changed",
        "the key differs only in case style (camelCase, snake_case, kebab-case, PascalCase)",
    ),
    ("moved", "the same key and value sit at another nesting level"),
    (
        "type_changed",
        'same meaning, other JSON type (5 -> "5", true -> "true", a list joined into a string)',
    ),
    ("enum_changed", 'a string changed only by case or separators ("paid" -> "PAID")'),
    ("format_changed", "the same date, time or number written another way"),
    ("scaled", "a number multiplied or divided by a power of ten (cents vs units, s vs ms)"),
    ("value_changed", "the counterpart holds a different value"),
    ("dropped", "an argument that reaches the request nowhere"),
    ("added", "a request field that comes from no argument"),
    ("echo_mismatch", "the response echoes a request field with another value"),
    ("error_shape", "an error response (4xx/5xx) that breaks the error schema"),
    ("status_mismatch", "a 2xx status with an error body, or a 4xx/5xx with a success body"),
    ("invalid_json", "a snapshot logged as a string that should hold JSON but does not parse"),
    ("error_hidden", "the server answered an error and the result the model got reads as success"),
    (
        "error_invented",
        "the server answered a success and the result tells the model the call failed",
    ),
    (
        "result_large",
        "the result handed to the model is past the tool's budget (8 KB unless the contract says)",
    ),
    (
        "drift",
        "a call departs from the shape the tool's own traffic showed (a type, a missing field, a "
        "new value)",
    ),
)
KIND_NAMES = tuple(kind for kind, _ in FINDING_KINDS)
SEVERITIES = ("error", "warning", "info")
_RANK = {"error": 0, "warning": 1, "info": 2}
_KIND_INDEX = {kind: index for index, kind in enumerate(KIND_NAMES)}

_ENVELOPE = {
    "code": {"type": "string"},
    "message": {"type": "string"},
    "retryable": {"type": "boolean"},
}
DEFAULT_ERROR_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": _ENVELOPE,
    "required": ["code", "message", "retryable"],
}


def rank(severity) -> int:
    """Order severities: error first, None last."""
    return _RANK.get(severity, 3)


def worst(severities) -> str | None:
    """Return the most severe of some severities, or None when there are none."""
    best = None
    for severity in severities:
        if rank(severity) < rank(best):
            best = severity
    return best


def end(snapshot: str, path: str | None) -> dict | None:
    """Build one end ({"snapshot", "path"}) of a finding."""
    return None if path is None else {"snapshot": snapshot, "path": path}


def finding(kind, severity, left, right, left_value, right_value, message) -> dict:
    """Build a finding record in the documented shape."""
    assert kind in KIND_NAMES and severity in _RANK, (kind, severity)
    return {
        "kind": kind,
        "severity": severity,
        "left": left,
        "right": right,
        "left_value": left_value,
        "right_value": right_value,
        "message": message,
        # the change shown, e.g. "integer>string", "x100" (set by the mapping findings)
        "transform": None,
        # how the two ends were paired: path, declared, inferred, case_style, value...
        "reason": None,
    }


def sort_findings(findings: list[dict]) -> list[dict]:
    """Sort errors first, then warnings, then info; stable by path."""
    memo = {}

    def key(f):
        # Sort by the first end's path.
        first = f["left"] or f["right"] or {}
        # rank(), inline: 50,000 findings
        return (
            _RANK.get(f["severity"], 3),
            _path_key(first.get("path", ""), memo),
            _KIND_INDEX[f["kind"]],
        )

    return sorted(findings, key=key)


def _path_key(path: str, memo: dict) -> tuple:
    # Array indexes sort as numbers: /items/2 before /items/10. Siblings share their parent's
    # key (memo), so a finding costs one token; a new path is split once, not walked up level by
    # level (60 levels deep, 1,000 items: no tuple rebuilt per level).
    found = memo.get(path)
    if found is not None:
        return found
    cut = path.rfind("/")
    above = memo.get(path[:cut]) if cut >= 0 else None
    if above is not None:
        found = above + (_token_key(path[cut + 1 :]),)
    else:
        found = tuple(map(_token_key, path.split("/")))
        if cut >= 0:
            memo[path[:cut]] = found[:-1]
    memo[path] = found
    return found


def _token_key(token: str) -> tuple:
    return (0, int(token), "") if token.isdecimal() else (1, 0, token)
