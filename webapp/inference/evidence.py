"""Count, per call, which argument leaves and request leaves hold related values.

Evidence for a pair is counted from the first call in which its values agreed: from then on
every call holding both paths adds one to `both`, and one to the relation it showed. So the
agreement of a pair (`relation count / both`) is measured over the same calls, and only pairs
that agreed at least once take space.
"""

from ..analysis import learnt
from .epochs import ALONE, BOTH, prior_for, tagged
from .relations import EQUAL, item_texts, keys, relation

# new candidate pairs one call may start (many equal small values)
MAX_NEW_PER_CALL = 100
# templates, bounds and the like one pair counts apart: a value found inside free text shows a
# new "template" each call, and a function shows one
MAX_FUNCTIONS = 16
# distinct agreeing values a pair keeps the digest of: enough to count up to MIN_NAMED_CALLS
MAX_SEEN = 5
# an id-like text: no shorter, and holding a letter and a digit (not a flag, a count or an enum)
MIN_ID_TEXT = 6


def observe(
    arguments: dict,
    request: dict,
    known: set,
    room: int = MAX_NEW_PER_CALL,
    presence=None,
    newest: bool = False,
    changed=(),
) -> dict:
    """Return the pair counts of one call's leaves.

    {(argument path, request path): {"both": 1, relation: 1}}.

    `known` holds the pairs already counted for the tool; `room` caps the new ones. With `presence`
    (how many earlier calls held each path, webapp/inference/epochs.py) a new pair starts with the
    earlier calls that held both its paths counted against it; `newest` says the call comes from the
    tool's newest release (its counts get `new:` copies). `changed` holds the pairs the call's
    analysis paired with another value: with no relation named, they count a table entry (a value
    looked up).
    """
    left = {path: keys(value) for path, value in arguments.items()}
    right = {path: keys(value) for path, value in request.items()}
    delta: dict = {}
    for pair in known:
        a, r = pair
        if a in left and r in right:
            # values in no common bucket cannot relate: no need to ask classify
            found = (
                relation(arguments[a], request[r]) if left[a] & right[r] else None
            ) or learnt.bound_name(arguments[a], request[r])
            if found and _past_the_cap(found, known, pair):
                found = None
            if not found and (pair in changed or _a_table(known, pair)):
                found = _entry(arguments[a], request[r], known, pair)
            counts = {BOTH: 1, found: 1} if found else {BOTH: 1}
            if found == EQUAL and _room_to_see(known, pair):
                counts.update(_seen(arguments[a]))
            if found == EQUAL or (found or "").startswith(learnt.MAPS):
                counts.update(_folded(arguments[a], request[r], known, pair, found != EQUAL))
            delta[pair] = tagged(_with_kept(counts, arguments[a], request[r], found), newest)
    for pair in changed:
        a, r = pair
        if pair not in delta and room > 0 and a in arguments and r in request:
            entry = learnt.maps_key(arguments[a], request[r])
            if entry:
                room -= 1
                folded = learnt.folded_key(arguments[a], request[r])
                delta[pair] = tagged({BOTH: 1, entry: 1, **({folded: 1} if folded else {})}, newest)
                if presence:
                    merge_counts(delta[pair], prior_for(presence, *pair))
    if room > 0:
        for pair, found in _new_pairs(
            arguments, request, left, right, known, min(room, MAX_NEW_PER_CALL)
        ):
            counts = {BOTH: 1, found: 1, **(_seen(arguments[pair[0]]) if found == EQUAL else {})}
            delta[pair] = tagged(
                _with_kept(counts, arguments[pair[0]], request[pair[1]], found), newest
            )
            if presence:
                merge_counts(delta[pair], prior_for(presence, *pair))
    _count_alone(delta, newest)
    return delta


def _count_alone(delta: dict, newest: bool) -> None:
    """Count, in place, the pairs that were their field's one partner this call.

    Every pair counted holds both its paths in the call, so two of one request field mean their
    arguments came together. Two arguments each always alone are alternatives, not rivals."""
    partners: dict = {}
    for a, r in delta:
        partners.setdefault(r, []).append(a)
    for r, found in partners.items():
        if len(found) == 1:
            merge_counts(delta[(found[0], r)], tagged({ALONE: 1}, newest))


def _with_kept(counts: dict, a, b, found: str | None = None) -> dict:
    """Add where a number sent as it is lay (`kept 8`), a text's form, a type's change.

    So a clamp can be checked against the numbers earlier calls kept, a normalisation against
    the texts they sent as they were (`form L|-`) and the rule each changed one showed, and a
    value sent in another type against the types earlier calls went between (`typed ...`)."""
    kept = learnt.kept_key(a, b)
    if kept:
        counts[kept] = 1
    form = learnt.form_key(b) if found == EQUAL else None
    rule = (
        learnt.normalised_name(a, b)
        if found == "enum_changed" and isinstance(a, str) and isinstance(b, str)
        else None
    )
    # the types a value changed between: the conversion a layer always makes, and its direction
    typed = learnt.typed_key(a, b) if found == "type_changed" else None
    for key in (form, rule, typed, *_items_shown(a, b, found)):
        if key:
            counts[key] = 1
    return counts


def _items_shown(a, b, found: str | None) -> list[str]:
    """Return the form or rule each item of a list joined into `b` showed, else [].

    So the normalisation a layer applies to each item before the join is learnt as a text's is."""
    if not (isinstance(a, list) and isinstance(b, str) and found):
        return []
    if found.startswith(learnt.JOINED):
        separators = (learnt.join_parts(found)[0],)
    elif found == "type_changed" and len(a) == 1:
        separators = learnt.JOINS[:1]
    else:
        return []
    shown = learnt.join_of(item_texts(a), b, separators)
    return shown[1] if shown else []


def _seen(value) -> dict:
    """Return `{"seen <digest>": 1}` for an id-like value, else {}."""
    if not _id_like(value):
        return {}
    return {learnt.SEEN + learnt.digest(value): 1}


def _id_like(value) -> bool:
    """Tell whether a value looks like an id (`inv_9f2`, a UUID).

    Text with a letter and a digit, no space: equal by chance in no two calls."""
    return (
        isinstance(value, str)
        and MIN_ID_TEXT <= len(value) <= learnt.MAX_LOOKUP_TEXT
        and not any(c.isspace() for c in value)
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def _room_to_see(known, pair) -> bool:
    """Tell whether a pair keeps fewer than MAX_SEEN digests.

    `known` is a dict of counts.

    Past it, more distinct values change nothing the pair decides."""
    counts = known.get(pair) if isinstance(known, dict) else None
    return not counts or sum(1 for name in counts if name.startswith(learnt.SEEN)) < MAX_SEEN


def _a_table(known, pair) -> bool:
    """Tell whether a pair's counts hold table entries (`known` a dict of counts)."""
    counts = known.get(pair) if isinstance(known, dict) else None
    return bool(counts) and any(name.startswith(learnt.MAPS) for name in counts)


def _entry(a, b, known, pair) -> str | None:
    """Return the table entry a call shows.

    Unless it would take the table past MAX_TABLE."""
    entry = learnt.maps_key(a, b)
    counts = known.get(pair) if isinstance(known, dict) else None
    if entry and counts and entry not in counts:
        if sum(1 for name in counts if name.startswith(learnt.MAPS)) >= learnt.MAX_TABLE:
            return None
    return entry


def _folded(a, b, known, pair, looked_up: bool) -> dict:
    """Return `{"folded <entry>": 1}` of a value `looked_up` or sent as it is, else {}.

    Keyed in any case too. One sent as it is only counts once its pair has a table (the table's
    identity entries); none past MAX_TABLE entries."""
    counts = (known.get(pair) if isinstance(known, dict) else None) or {}
    entry = learnt.folded_key(a, b)
    if not entry or not (looked_up or any(name.startswith(learnt.MAPS) for name in counts)):
        return {}
    if entry not in counts:
        if sum(1 for name in counts if name.startswith(learnt.FOLDED)) >= learnt.MAX_TABLE:
            return {}
    return {entry: 1}


def _past_the_cap(found: str, known, pair) -> bool:
    """Tell whether a new template or bound takes a pair past MAX_FUNCTIONS.

    Past MAX_FUNCTIONS of them (`known` holds each pair's counts when it is a dict)."""
    counts = known.get(pair) if isinstance(known, dict) else None
    if not counts or found in counts or not learnt.is_function(found):
        return False
    return sum(1 for name in counts if learnt.is_function(name)) >= MAX_FUNCTIONS


def _new_pairs(arguments: dict, request: dict, left: dict, right: dict, known: set, room: int):
    """Yield (pair, relation) for unknown pairs whose values share a bucket and relate."""
    buckets: dict = {}
    for path, found in right.items():
        for key in found:
            buckets.setdefault(key, []).append(path)
    for a, value in arguments.items():
        seen = set()
        for key in left[a]:
            for r in buckets.get(key, ()):
                if r in seen or (a, r) in known:
                    # a path kept as it is counts too: its history says where the key goes
                    continue
                seen.add(r)
                found = relation(value, request[r])
                if found:
                    yield (a, r), found
                    room -= 1
                    if room <= 0:
                        return


def merge(total: dict, delta: dict) -> dict:
    """Add one call's (or batch's) counts into running totals, in place.

    Return the totals."""
    for pair, counts in delta.items():
        merge_counts(total.setdefault(pair, {}), counts)
    return total


def merge_counts(into: dict, counts: dict) -> dict:
    """Add one set of counts into another, in place."""
    for name, n in counts.items():
        into[name] = into.get(name, 0) + n
    return into
