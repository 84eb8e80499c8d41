"""Evidence weighed over releases.

What the newest release shows is kept apart until a newer one comes.

A pair's counts hold every call (`both`, one count per relation) and, under `new:` keys, the calls
of the tool's newest release alone; established evidence is the difference. So a release that breaks
a mapping cannot teach its broken pairs (they agree only in the newest release) nor unseat the pairs
every earlier release agreed on: its calls are a change to report. When a newer release arrives, the
`new:` counts fold into the established ones.
"""

from .leaves import starred

# calls holding both paths of a pair
BOTH = "both"
NEW = "new:"
# calls that held both paths before the pair first agreed: counted against it
PRIOR = "prior"
# calls in which the pair's argument was the one argument paired with its request field: two
# arguments never given together are alternatives (an id or a URL read into one path segment)
ALONE = "alone"
# calls whose list held an item's leaf in several items, and those of them that dropped it: one
# item's leaf meets a field of the whole by chance (an order's total is its one line's total)
SEVERAL = "several"
SEVERAL_DROPPED = "several dropped"
# releases a tool remembers having seen
MAX_RELEASES = 50


def release_state(state: dict | None, releases) -> dict:
    """Return the tool's release state after calls of these releases.

    {"newest", "seen", "first"} after calls of these (ts, release) pairs.

    Releases are ordered by the time of their first call, whatever order their calls arrive in: the
    newest is the one whose first call came last (a call of an older release, a rollout or a
    rollback, changes nothing; neither does an older release whose calls arrive late). `first` holds
    each release's first call's time."""
    first = dict((state or {}).get("first") or {})
    seen = list((state or {}).get("seen") or [])
    for release in seen:
        # a state from before first times: its order is kept
        first.setdefault(release, "")
    for ts, release in releases:
        if release and (release not in first or (ts or "") < first[release]):
            first[release] = ts or ""
    ordered = sorted(first, key=lambda r: (first[r], seen.index(r) if r in seen else len(seen)))[
        -MAX_RELEASES:
    ]
    if not ordered:
        return {"newest": (state or {}).get("newest"), "seen": seen}
    return {"newest": ordered[-1], "seen": ordered, "first": {r: first[r] for r in ordered}}


def several(state: dict | None) -> bool:
    """Tell whether the tool's calls came from more than one release.

    Then the newest is weighed apart."""
    return len((state or {}).get("seen") or ()) >= 2


def tagged(counts: dict, newest: bool) -> dict:
    """Return one call's counts, with `new:` copies for the newest release.

    A `new:` copy of each when the call comes from the newest release."""
    return {**counts, **{NEW + k: n for k, n in counts.items()}} if newest else counts


def presence_of(
    arguments: dict,
    request: dict,
    newest: bool,
    dropped=frozenset(),
    several=frozenset(),
    nowhere=frozenset(),
) -> dict:
    """Return one call's path counts.

    {(side, path): {"calls": 1}} of its leaves (and `new:` copies): the paths of `arguments` and
    `request`, those of the leaves of their lists' items (`/records/*/id`) among them.

    An argument leaf the call's analysis found in no request (`dropped`: pointers of it or an
    ancestor) counts `"dropped": 1` too: what never reached the wire
    (webapp/inference/consumed.py). An item's leaf several items of the call held (`several`:
    starred paths) counts `"several": 1`, and `"several dropped": 1` when one of its values reached
    no request value (`nowhere`, read from the values alone). `("calls", "")` counts the call: what
    "every call" is (webapp/inference/constants.py)."""
    out = {
        ("arguments", p): tagged(_held(p, dropped, p in several, p in nowhere), newest)
        for p in arguments
    }
    out.update({("request", p): tagged({"calls": 1}, newest) for p in request})
    out[("calls", "")] = tagged({"calls": 1}, newest)
    return out


def _held(path: str, dropped, several: bool = False, nowhere: bool = False) -> dict:
    # an item's leaf is counted under its starred path, and dropped when any item's was
    gone = any(path == d or path.startswith(d + "/") for d in {*dropped, *map(starred, dropped)})
    out = {"calls": 1, "dropped": 1} if gone else {"calls": 1}
    if several:
        out.update({SEVERAL: 1, SEVERAL_DROPPED: 1} if nowhere else {SEVERAL: 1})
    return out


def folded(counts: dict) -> dict:
    """Return counts with the newest release's part folded in.

    Into the established part: a newer one came."""
    return {k: n for k, n in counts.items() if not k.startswith(NEW)}


def established(counts: dict) -> dict:
    """Return the counts of calls from releases before the newest.

    All counts minus the `new:` part."""
    out = {}
    for key, n in counts.items():
        if not key.startswith(NEW):
            left = n - counts.get(NEW + key, 0)
            if left:
                out[key] = left
    return out


def plain(counts: dict) -> dict:
    """Return every call's counts (the `new:` copies and bookkeeping left out)."""
    return {k: n for k, n in counts.items() if not k.startswith(NEW) and k not in (PRIOR, ALONE)}


def prior_for(presence: dict, a: str, r: str) -> dict:
    """Return the counts a pair starts with.

    The earlier calls that held both paths, as disagreeing ones.

    `presence` is {(side, path): {"calls": n, "new:calls": n}}; calls holding both are at most the
    fewer of the two, and exactly that when one field comes with the other, as a mapped pair's
    fields do."""
    left, right = presence.get(("arguments", a)) or {}, presence.get(("request", r)) or {}
    before = min(left.get("calls", 0), right.get("calls", 0))
    if not before:
        return {}
    out = {BOTH: before, PRIOR: before}
    recent = min(left.get(NEW + "calls", 0), right.get(NEW + "calls", 0))
    if recent:
        out[NEW + BOTH] = out[NEW + PRIOR] = recent
    return out
