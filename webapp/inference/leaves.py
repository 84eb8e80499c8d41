"""The leaves of a payload that inference compares.

Bounded, so a big payload costs what a small one does."""

from ..common.pointers import child

# leaves per snapshot and call; the rest of a big payload is not learnt from
MAX_LEAVES = 64
MAX_DEPTH = 8
# a list of scalars up to this long is one leaf (ids, tags)
MAX_LIST = 20
# longer strings are free text, not values a mapping layer copies
MAX_TEXT = 200


def leaves(doc, limit: int = MAX_LEAVES) -> dict:
    """Return {JSON Pointer: value} of a document's leaves.

    Its scalar leaves and short lists of scalars.

    Objects are walked; arrays of objects are not (their items have no stable pointer to pair),
    so every pointer returned can be written into a contract's `mapping` as it is.
    """
    out: dict = {}
    stack = [("", doc, 0)]
    while stack and len(out) < limit:
        path, value, depth = stack.pop()
        if isinstance(value, dict):
            if depth < MAX_DEPTH:
                # reversed so the first keys are taken first when the cap cuts
                stack += [(child(path, k), v, depth + 1) for k, v in reversed(list(value.items()))]
        elif isinstance(value, list):
            if path and 0 < len(value) <= MAX_LIST and all(_scalar(x) for x in value):
                out[path] = value
        elif path and _scalar(value) and value is not None:
            if not (isinstance(value, str) and len(value) > MAX_TEXT):
                out[path] = value
    return out


def _scalar(value) -> bool:
    return not isinstance(value, (dict, list))
