"""A stage's learnt shape.

Per normalised JSON Pointer, how often it was present, its types, formats, values.

A shape is plain JSON (stored as one row per tool and stage). Each entry that can drift (a type, a
format, a value, an absence) is kept as [calls, first seen, before, agreeing]: how many calls showed
it, when first, and, frozen at its first sight, how many calls of its kind came before it and how
many of those agreed on what was usual then. Drift reads those; see drift.py.
"""

from ..common.stages import NAMES

# every stage learns its shape (the result when logged)
STAGES = NAMES
# calls a shape needs before anything is drift
MIN_HISTORY = 50
# the field budget of one tool and stage
MAX_PATHS = 400
# distinct strings kept per path; past it the path is open text, not an enum
MAX_VALUES = 16
# a path present in at most this share of calls may be folded to make room
RARE = 0.01


def empty_shape() -> dict:
    """Return the shape of a stage no call has shown yet."""
    return {"calls": 0, "first": None, "last": None, "folded": 0, "paths": {}}


def parent_of(path: str) -> str | None:
    """Return the pointer of a path's parent.

    "" for a top-level field, None for the root."""
    return None if path == "" else path.rsplit("/", 1)[0]


def learn(shape: dict, facts: dict, ts: str | None) -> dict:
    """Fold one call's facts (see facts.py) into a shape, in place.

    Return the shape."""
    paths = shape["paths"]
    objects = {path for path, f in facts.items() if f.objects}
    for path, entry in paths.items():
        if path not in facts and parent_of(path) in objects:
            _absent(shape, entry, path, ts)
    known = all(path in paths for path in facts)
    # no room made once means none this call: its threshold holds, its paths only grow commoner
    room = [True]
    # a parent is made before its children
    for path, f in facts.items() if known else sorted(facts.items()):
        entry = paths.get(path)
        if entry is None:
            entry = _new_path(shape, path, ts, room)
            if entry is None:
                continue
        _present(entry, f, ts)
    shape["calls"] += 1
    shape["first"] = _earliest(shape["first"], ts)
    shape["last"] = max(shape["last"] or "", ts or "") or None
    return shape


def _new_path(shape: dict, path: str, ts, room: list) -> dict | None:
    paths = shape["paths"]
    parent = parent_of(path)
    if (
        parent is not None
        and parent not in paths
        or len(paths) >= MAX_PATHS
        and not _room_made(shape, room)
    ):
        shape["folded"] += 1
        return None
    # the room made was its parent's
    if parent is not None and parent not in paths:
        shape["folded"] += 1
        return None
    paths[path] = entry = {
        "n": 0,
        "first": ts,
        "new": shape["calls"],
        "inst": 0,
        "objs": 0,
        "t": {},
        "f": {},
    }
    entry.update(v={}, miss=None, len=None)
    return entry


def _room_made(shape: dict, room: list) -> bool:
    room[0] = room[0] and _make_room(shape)
    return room[0]


def _make_room(shape: dict) -> bool:
    """Fold the rarest tenth of paths (leaves first) present in at most 1% of calls.

    Say whether any went."""
    paths = shape["paths"]
    rare = [p for p, e in paths.items() if e["n"] <= shape["calls"] * RARE and p != ""]
    if not rare:
        return False
    rare.sort(key=lambda p: (paths[p]["n"], -p.count("/")))
    gone = set(rare[: max(1, len(paths) // 10)])
    for path in list(paths):
        if path in gone or any(path.startswith(g + "/") for g in gone):
            del paths[path]
            shape["folded"] += 1
    return True


def _present(entry: dict, f, ts) -> None:
    strings_before = _count(entry["t"], "string")
    # a backlog's calls may come a little out of order
    if ts and ts < (entry["first"] or "~"):
        entry["first"] = ts
    for kind in sorted(f.types) if len(f.types) > 1 else f.types:
        _see(entry["t"], kind, ts, entry["n"])
    entry["n"] += 1
    entry["inst"] += f.instances
    entry["objs"] += f.objects
    if "string" not in f.types:
        return
    for name in sorted(f.formats):
        _see(
            entry["f"], name, ts, strings_before, usual=lambda counts: _dominant(counts, real=True)
        )
    if f.shortest is not None:
        low, high = entry["len"] or (f.shortest, f.longest)
        entry["len"] = [min(low, f.shortest), max(high, f.longest)]
    _values(entry, f, ts, strings_before)


def _values(entry: dict, f, ts, strings_before: int) -> None:
    if entry["v"] is None:
        return
    if f.values is None or len(set(entry["v"]) | f.values) > MAX_VALUES:
        entry["v"] = None
        return
    for value in sorted(f.values):
        _see(
            entry["v"],
            value,
            ts,
            strings_before,
            usual=lambda counts: _closed_enum(counts, strings_before),
        )


def _absent(shape: dict, entry: dict, path: str, ts) -> None:
    parent = shape["paths"].get(parent_of(path))
    parent_objects = _count(parent["t"], "object") if parent else shape["calls"]
    if entry["miss"] is None:
        entry["miss"] = [0, ts, parent_objects, entry["n"]]
    entry["miss"][0] += 1
    entry["miss"][1] = _earliest(entry["miss"][1], ts)


def _see(entries: dict, key, ts, before: int, usual=None) -> None:
    """Count one call under `key`.

    Freezing at its first sight what came before and how much of it agreed."""
    seen = entries.get(key)
    if seen is None:
        agreeing = usual(entries) if usual else _dominant(entries)
        seen = entries[key] = [0, ts, before, agreeing]
    seen[0] += 1
    if ts and ts < (seen[1] or "~"):
        seen[1] = ts


def _earliest(when: str | None, ts: str | None) -> str | None:
    return min(when, ts) if when and ts else when or ts


def _count(entries: dict, key) -> int:
    seen = entries.get(key)
    return seen[0] if seen else 0


def _dominant(entries: dict, real: bool = False) -> int:
    """Return the calls of the most common entry.

    Of a real format, not "" plain text, when `real`."""
    return max((seen[0] for key, seen in entries.items() if key or not real), default=0)


def _closed_enum(values: dict, strings: int) -> int:
    """Return how many calls agree that a path is a small closed enum.

    Its calls less those of values seen once (the Good-Turing chance of a new value), or 0 when it
    has more than about a dozen values."""
    if len(values) > 12:
        return 0
    return strings - sum(1 for seen in values.values() if seen[0] == 1)
