"""JSON values cut to a byte budget, saying what was cut and where (pure).

A payload of megabytes cannot go to a model whole. `cut(value, budget)` keeps its shape: the members
of an object or array that fit a fair share are kept whole and what they leave is shared among the
bigger ones (water-filling), which are cut in turn; a place left out becomes a marker
`{"tracediff_cut": {...}}` saying what it held, and is listed with its JSON Pointer, so the caller
can ask for that subtree alone. Where members are too many for a fair share each, the first ones
that fit are kept and one marker stands for the rest.
"""

from ..common import jsontext
from ..common.pointers import child

MARKER = "tracediff_cut"
# bytes a member needs to be worth cutting in turn: less, and it becomes a marker
MIN_SHARE = 160
# bytes a marker takes, with room for its counts
MARKER_ROOM = 120
# cut places listed per value; `cut_total` counts them all
MAX_LISTED = 50
# a left-out key is named by at most this many characters
KEY_CHARS = 64
# and at most this many left-out keys are named
KEYS_NAMED = 10


def size(value) -> int:
    """Return the bytes of a value's compact JSON."""
    return len(jsontext.dumps(value))


def cut(value, budget: int, pointer: str = "") -> tuple[object, list[dict]]:
    """Return the value within `budget` bytes of JSON, and the places cut.

    Markers stand where it was cut; each place is `{"pointer", "marker", "type", "bytes", ...}`: the
    place cut, where its marker stands, and for a container cut short, its first `kept` members of
    `members` kept."""
    whole = size(value)
    if whole <= budget:
        return value, []
    cuts: list[dict] = []
    kept = _shrink(value, whole, budget, pointer, cuts)
    return kept, cuts


def _shrink(value, whole: int, budget: int, pointer: str, cuts: list[dict]):
    """Cut one value known to be over its budget."""
    if (
        isinstance(value, list)
        and len(value) * (MIN_SHARE + 1) > budget - 2 - MARKER_ROOM
        and budget >= MIN_SHARE
    ):
        return _first_items(value, whole, budget, pointer, cuts)
    if isinstance(value, dict | list) and value and budget >= MIN_SHARE:
        return _shrink_container(value, budget, pointer, cuts)
    return _marker(value, whole, budget, pointer, cuts)


def _members(value) -> list[tuple[str | int, object, int, int]]:
    """Return each member with its bytes and the bytes its place takes besides.

    (key or index, member, its bytes, the bytes its place takes besides: key, colon, comma)."""
    if isinstance(value, dict):
        return [(key, member, size(member), size(key) + 2) for key, member in value.items()]
    return [(index, member, size(member), 1) for index, member in enumerate(value)]


def _shrink_container(value, budget: int, pointer: str, cuts: list[dict]):
    members = _members(value)
    room = budget - 2 - sum(extra for *_, extra in members) - MARKER_ROOM
    share = _fair_share([member_size for _, _, member_size, _ in members], room)
    if share is None or share < MIN_SHARE:
        return _prefix(value, members, budget, pointer, cuts)
    out = {} if isinstance(value, dict) else []
    for key, member, member_size, _ in members:
        if member_size > share:
            member = _shrink(member, member_size, share, child(pointer, key), cuts)
        if isinstance(out, dict):
            out[key] = member
        else:
            out.append(member)
    return out


def _fair_share(sizes: list[int], room: int) -> int | None:
    """Return the cap under which members are kept whole (water-filling).

    None when nothing fits."""
    if room <= 0:
        return None
    left, count = room, len(sizes)
    for done, member_size in enumerate(sorted(sizes)):
        share = left // (count - done)
        if member_size > share:
            return share
        left -= member_size
    return room


def _prefix(value, members: list, budget: int, pointer: str, cuts: list[dict]):
    """Keep the members that fit.

    In order (an array's first items, an object's fitting keys); one marker for the rest."""
    left = budget - 2 - MARKER_ROOM - (size(MARKER) + 2 if isinstance(value, dict) else 0)
    kept, dropped = [], []
    for key, member, member_size, extra in members:
        fits = member_size + extra <= left and (isinstance(value, dict) or not dropped)
        if fits:
            kept.append((key, member))
            left -= member_size + extra
        else:
            dropped.append((key, member_size))
    entry = {
        "pointer": pointer,
        "type": "object" if isinstance(value, dict) else "array",
        "bytes": sum(member_size for _, member_size in dropped),
        "members": len(members),
        "kept": len(kept),
    }
    if isinstance(value, dict):
        entry["keys_left_out"] = [str(key)[:KEY_CHARS] for key, _ in dropped[:KEYS_NAMED]]
    marker = {MARKER: {k: v for k, v in entry.items() if k not in ("pointer", "keys_left_out")}}
    cuts.append(
        {**entry, "marker": child(pointer, MARKER if isinstance(value, dict) else len(kept))}
    )
    if isinstance(value, dict):
        return {**dict(kept), MARKER: marker[MARKER]}
    return [member for _, member in kept] + [marker]


def _first_items(value: list, whole: int, budget: int, pointer: str, cuts: list[dict]) -> list:
    """Keep an array's first items that fit whole.

    Sized one by one (the rest is never sized); one marker for the rest: too many items for a fair
    share each."""
    left, kept = budget - 2 - MARKER_ROOM, []
    for item in value:
        item_size = size(item) + 1
        if item_size > left:
            break
        kept.append(item)
        left -= item_size
    entry = {
        "pointer": pointer,
        "type": "array",
        "bytes": max(whole - 2 - (budget - 2 - MARKER_ROOM - left), 0),
        "members": len(value),
        "kept": len(kept),
    }
    cuts.append({**entry, "marker": child(pointer, len(kept))})
    return [*kept, {MARKER: {k: v for k, v in entry.items() if k != "pointer"}}]


def _marker(value, whole: int, budget: int, pointer: str, cuts: list[dict]) -> dict:
    """Stand for a whole value left out.

    Its type and bytes, and a long string's first characters where room is."""
    entry = {"pointer": pointer, "type": _type(value), "bytes": whole}
    if isinstance(value, dict | list):
        entry["members"] = len(value)
    held = dict(entry)
    del held["pointer"]
    if isinstance(value, str) and budget > MARKER_ROOM + 16:
        held["starts"] = _start(value, budget - MARKER_ROOM)
    cuts.append({**entry, "marker": pointer})
    return {MARKER: held}


def _start(text: str, room: int) -> str:
    """Return the longest start of a text (halving) whose JSON fits `room` bytes."""
    start = text[: max(room // 2, 1)]
    while start and size(start) > room:
        start = start[: len(start) // 2]
    return start


def _type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), "null")


def listed(cuts: list[dict]) -> list[dict]:
    """Return the cut places to list: the biggest first, at most MAX_LISTED."""
    return sorted(cuts, key=lambda entry: -entry["bytes"])[:MAX_LISTED]
