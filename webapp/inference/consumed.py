"""Arguments the mapping layer keeps for itself, learnt from a tool's traffic.

What never reached the wire.

A `method` that picks the route, a `fields` projection or a `limit` the layer applies to the answer
travels in no request. Once enough calls held such an argument and none of them sent it (no request
field ever agreed with it), it is consumed: the analysis reports its absence as info, as a
contract's `consumed` says. Judged on the releases before the newest once there are several, so an
argument that travelled in earlier releases and is missing now is still `dropped` (what only a bad
release shows teaches nothing).
"""

from ..analysis import learnt
from .epochs import (
    ALONE,
    BOTH,
    PRIOR,
    SEVERAL,
    SEVERAL_DROPPED,
    established,
    plain,
    several,
)
from .leaves import in_a_list, starred

# calls holding an argument, none of them sending it, before it is learnt consumed
MIN_CONSUMED_CALLS = 5
# an argument counts as sent when a request field agreed with it, or the analysis found it in the
# request, in this share of the calls holding it; below it they are coincidences (a `limit` of 10
# beside a page size of 10)
SENT_SHARE = 0.2


def learnt_consumed(evidence: dict, presence: dict, releases=None) -> list[str]:
    """Return the argument pointers no request field ever carried.

    Held by >= MIN_CONSUMED_CALLS calls.

    `evidence` is {(argument, request): counts}, `presence` {(side, path): {"calls": n, ...}} (see
    epochs.py)."""
    judged = established if several(releases) else plain
    held = {
        path: judged(counts) for (side, path), counts in presence.items() if side == "arguments"
    }
    # an item's leaf is judged on the calls whose list held it in several items, once there are
    # enough: one item's leaf meets a field of the whole by chance (an order's total is its one
    # line's total), several items' leaves each reach a field of their own item, or none
    held = {path: _in_several(counts) for path, counts in held.items()}
    calls = {path: counts.get("calls", 0) for path, counts in held.items()}
    # the calls whose analysis paired the argument with a request field (which the leaves may not
    # reach: an item of a list of objects, a value looked up) sent it too
    sent = {
        path: counts.get("calls", 0) - counts.get("dropped", 0) for path, counts in held.items()
    }
    for (a, _), counts in evidence.items():
        if a in sent:
            # paired with a field that held one value whatever the argument: not sent there
            sent[a] -= constant_calls(judged(counts))
    for (a, _), counts in evidence.items():
        # an item's leaf meets other items' fields by chance (a line's total is its cost when one
        # is bought): what the analysis paired says whether it was sent
        if a in calls and not in_a_list(a):
            agreed = sum(
                n
                for name, n in judged(counts).items()
                if name not in (BOTH, PRIOR, ALONE) and not name.startswith(learnt.COUNTED_APART)
            )
            sent[a] = max(sent.get(a, 0), agreed)
    return sorted(
        path
        for path, n in calls.items()
        # items come and go by index, and no pair ever names an item's leaf as sent: an item's
        # leaf is judged under its starred path (`/nodes/*/fileName`), which counts each call that
        # held it and whether any item's was dropped
        if n >= MIN_CONSUMED_CALLS
        and sent.get(path, 0) < SENT_SHARE * n
        and (not in_a_list(path) or starred(path) == path)
    )


def _in_several(counts: dict) -> dict:
    """Return an item leaf's counts of the calls whose list held it in several items.

    When MIN_CONSUMED_CALLS calls did; else the counts of every call."""
    if counts.get(SEVERAL, 0) < MIN_CONSUMED_CALLS:
        return counts
    return {"calls": counts[SEVERAL], "dropped": counts.get(SEVERAL_DROPPED, 0)}


def constant_calls(counts: dict) -> int:
    """Return the calls a pair's table shows a constant in, else 0.

    The analysis paired the argument with a request field holding another value (by elimination:
    the last text on each side), and MIN_LOOKUP_REPEATS inputs or more all gave the one output:
    the field is a constant the layer sends (`format=png` beside a `localPath` it keeps), not the
    argument looked up."""
    table = learnt.table_of(counts)
    if len(table) < learnt.MIN_LOOKUP_REPEATS or len(set(table.values())) != 1:
        return 0
    return sum(n for key, n in counts.items() if key.startswith(learnt.MAPS) and n > 0)
