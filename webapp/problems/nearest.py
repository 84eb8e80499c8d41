"""The nearest clean call.

The recent correct call of a tool whose arguments look most like a failing one's (pure).

Every candidate is ranked by a cheap key-set similarity (the paths, types and values of the two
arguments); the best few that are small enough are then ranked by deepdiff's deep distance. deepdiff
costs about 45 us per byte of arguments on this machine (85 ms for a 1.5 KB pair: `python
bench/nearest.py`), so payloads over DEEP_MAX_BYTES keep their key-set rank.
"""

from deepdiff import DeepDiff

from ..common import jsontext
from .exercised import preferred

DEEP_MAX_BYTES = 2_000
DEEP_TOP = 5
# the key-set of a huge payload stops here
MAX_LEAVES = 2_000


def leaves(value, path: str = "", out: dict | None = None) -> dict:
    """Return {path: (type, value)} of a JSON value's leaves.

    Array indexes as *, up to MAX_LEAVES."""
    out = {} if out is None else out
    if len(out) >= MAX_LEAVES:
        return out
    if isinstance(value, dict):
        for key, child in value.items():
            leaves(child, f"{path}/{key}", out)
    elif isinstance(value, list):
        for child in value[:50]:
            leaves(child, f"{path}/*", out)
    else:
        out.setdefault(
            path, (type(value).__name__, value if not isinstance(value, str) else value[:200])
        )
    return out


def key_similarity(a: dict, b: dict) -> float:
    """Return 0..1: shared paths with the same type count half.

    With the same value too count whole."""
    if not a and not b:
        return 1.0
    shared = a.keys() & b.keys()
    score = sum(1.0 if a[p] == b[p] else 0.5 if a[p][0] == b[p][0] else 0.25 for p in shared)
    return score / len(a.keys() | b.keys())


def deep_distance(a, b) -> float:
    """Return deepdiff's deep distance (0 same .. 1 unlike) between two JSON values."""
    return DeepDiff(a, b, get_deep_distance=True, ignore_order=True, cache_size=500).get(
        "deep_distance", 0.0
    )


def nearest(
    failing_arguments, candidates: list[dict], path: str | None = None, wanted: str | None = None
) -> dict | None:
    """Return the candidate most like the failing arguments.

    A candidate is {..., "arguments"}; with its `distance` and `method`.

    Candidates that carry the problem's argument path (and, for a response problem, a response of
    the `wanted` class) come first; the others are only used when none does (see preferred)."""
    pool, flags = preferred(candidates, path, wanted)
    if not pool:
        return None
    target = leaves(failing_arguments)
    ranked = sorted(pool, key=lambda c: -key_similarity(target, leaves(c.get("arguments"))))
    best = ranked[0]
    best = {
        **best,
        "distance": round(1 - key_similarity(target, leaves(best.get("arguments"))), 4),
        "method": "key_set",
        **flags,
    }
    if len(jsontext.dumps(failing_arguments)) > DEEP_MAX_BYTES:
        return best
    small = [
        c for c in ranked[:DEEP_TOP] if len(jsontext.dumps(c.get("arguments"))) <= DEEP_MAX_BYTES
    ]
    if not small:
        return best
    scored = [
        (deep_distance(failing_arguments, c.get("arguments")), i, c) for i, c in enumerate(small)
    ]
    distance, _, chosen = min(scored, key=lambda item: (item[0], item[1]))
    return {**chosen, "distance": round(distance, 4), "method": "deep_distance", **flags}
