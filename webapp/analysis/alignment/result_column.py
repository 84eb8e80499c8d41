"""The aligned view's fourth column.

Where each response field sits in the result the model got.

The analysis keeps the way back's pairs (response path -> structured result path, and the response
subtrees the result holds unchanged); a row's result cell follows its response cell through them.
Result fields no response field explains get rows of their own, and a text result one row at its
root.
"""

from ...common.pointers import MISSING, ancestors, child
from ...common.stages import CORE
from ..snapshots.result_forms import Reading, read_result

MAX_RESULT_ROWS = 5000
# pairs repeated across this many array items are stored once, as a pattern
FOLD_AT = 5


def returned_pairs(pairing) -> dict:
    """Return what the analysis stores of the way back's pairing.

    Its pairs and its equal subtrees, the pairs that repeat across array items (`/orders/3/id` ->
    `/items/3/orderId`) folded into one pattern each."""
    groups: dict[tuple, list] = {}
    for lp, rp in pairing.pairs.items():
        key = _pattern(lp, rp)
        if key is not None:
            groups.setdefault(key, []).append(lp)
    folded = {lp for members in groups.values() if len(members) >= FOLD_AT for lp in members}
    patterns = [
        [left, right] for (left, right), members in groups.items() if len(members) >= FOLD_AT
    ]
    pairs = {lp: rp for lp, rp in pairing.pairs.items() if lp not in folded}
    stored = {"pairs": pairs, "whole": sorted(lp for lp in pairing.whole if lp not in folded)}
    return {**stored, "patterns": patterns} if patterns else stored


def _pattern(lp: str, rp: str) -> tuple | None:
    """Return (left, right) with their shared array indexes as `*`, else None.

    The indexes both paths share are replaced in order."""
    left, right = lp.split("/"), rp.split("/")
    indexes = [t for t in left if t.isdigit()]
    if not indexes or [t for t in right if t.isdigit()] != indexes:
        return None
    star = lambda tokens: "/".join("*" if t.isdigit() else t for t in tokens)  # noqa: E731
    return star(left), star(right)


def result_document(snapshots: dict):
    """Return the document result paths are read in.

    The stored payload, or the JSON its text holds."""
    reading = read_result(snapshots.get("result"))
    if reading is None:
        return MISSING
    if reading.prefix is None and reading.structured is not MISSING:
        return reading.structured
    return snapshots["result"].get("payload")


def with_result_column(rows: list[dict], snapshots: dict, returned: dict | None) -> list[dict]:
    """Return the rows with a `result` cell each, plus unexplained result fields.

    The rows added hold the result fields no response field explains."""
    reading = read_result(snapshots.get("result"))
    if reading is None:
        return rows
    pairs, whole = (returned or {}).get("pairs") or {}, set((returned or {}).get("whole") or ())
    patterns = {left: right for left, right in (returned or {}).get("patterns") or ()}
    prefix = reading.prefix or ""
    out, used = [], set()
    for row in rows:
        found = _counterpart(row.get("response"), pairs, whole, patterns)
        path = None if found is None else prefix + found
        if path is not None:
            used.add(path)
        out.append({**row, "result": path})
    return out + _result_rows(reading, prefix, used)


def _counterpart(path: str | None, pairs: dict, whole: set, patterns: dict) -> str | None:
    if path is None:
        return None
    if path in pairs:
        return pairs[path]
    if patterns:
        found = _by_pattern(path, patterns)
        if found is not None:
            return found
    for up in ancestors(path):
        if up in whole and up in pairs:
            return pairs[up] + path[len(up) :]
    return None


def _by_pattern(path: str, patterns: dict) -> str | None:
    """Follow a folded pair.

    The pattern of the path, its indexes put back in the same order."""
    tokens = path.split("/")
    key = "/".join("*" if t.isdigit() else t for t in tokens)
    if key not in patterns:
        return None
    indexes = iter(t for t in tokens if t.isdigit())
    return "/".join(next(indexes) if t == "*" else t for t in patterns[key].split("/"))


def _result_rows(reading: Reading, prefix: str, used: set) -> list[dict]:
    if reading.structured is MISSING or not isinstance(reading.structured, (dict, list)):
        return [] if prefix in used else [_row(prefix)]
    rows = []
    for path in _leaves(reading.structured):
        full = prefix + path
        if full not in used and not any(prefix + up in used for up in ancestors(path)):
            rows.append(_row(full))
            if len(rows) >= MAX_RESULT_ROWS:
                break
    return rows


def _leaves(doc, path: str = ""):
    if isinstance(doc, dict) and doc:
        for key, value in doc.items():
            yield from _leaves(value, child(path, key))
    elif isinstance(doc, list) and doc:
        for index, value in enumerate(doc):
            yield from _leaves(value, child(path, index))
    else:
        yield path


def _row(path: str) -> dict:
    return {**{stage: None for stage in CORE}, "result": path, "kind": None, "severity": None}
