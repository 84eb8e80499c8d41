"""Fold findings that repeat one mapping bug into one finding with a count.

The repeats are the bug's many places.

40,000 `enum_changed` findings at /tags/0 ... /tags/39999 are one bug: they become one finding at
/tags/* with `"occurrences": 40000` and a few `"examples"`; the full list of places is kept apart
(`places`) so the API can page through it. Renames under one parent that follow one rule (every key
of an object renamed the same way, or dropped, or added) fold the same way, at /parent/*.
"""

import re
from collections import Counter
from functools import partial

from ...common.pointers import resolve

# this many findings of one kind at one normalised place fold into one
FOLD_AT = 5
EXAMPLES = 3
_INDEX = re.compile(r"/\d+(?=/|$)")
_KEYWISE = ("renamed", "case_changed", "dropped", "added")


def normalised(path: str | None) -> str | None:
    """Replace every array index of a pointer with `*`.

    /tags/12/name -> /tags/*/name."""
    return None if path is None else _INDEX.sub("/*", path)


def _key(f: dict, path_of) -> tuple:
    # inline, not a call per end: this runs for every finding
    left, right = f["left"], f["right"]
    return (
        f["kind"],
        f["severity"],
        f.get("transform"),
        None if left is None else (left["snapshot"], path_of(left["path"])),
        None if right is None else (right["snapshot"], path_of(right["path"])),
    )


def _keywise_of():
    """Return path -> its parent's normalised path + "/*".

    Made once per parent (siblings share it)."""
    memo = {}

    def keywise(path: str) -> str:
        # parent(), inline ("" for the root too)
        up = path[: path.rfind("/")]
        if up not in memo:
            memo[up] = normalised(up) + "/*"
        return memo[up]

    return keywise


def fold(findings: list[dict]) -> tuple[list[dict], list[list]]:
    """Return the findings with repeats folded, and each folded finding's places.

    Places are [left, right] paths.

    The places list is parallel to the folded findings in the order they are returned: an empty
    tuple for a finding that stands alone (one shared: 100,000 findings make no 100,000 lists)."""
    # the regular expression's own sub, no Python call per path (ends are never None in _key)
    findings, places = _fold_by(findings, [()] * len(findings), partial(_INDEX.sub, "/*"))
    keywise = [f for f in findings if f["kind"] in _KEYWISE and "occurrences" not in f]
    if len(keywise) >= FOLD_AT:
        return _fold_by(findings, places, _keywise_of(), only=_KEYWISE)
    return findings, places


def _fold_by(findings, places, path_of, only=None) -> tuple[list[dict], list[list]]:
    keys = [
        _key(f, path_of) if (only is None or f["kind"] in only) and "occurrences" not in f else None
        for f in findings
    ]
    # counted in C first: only a key shared by FOLD_AT findings gets a group (50,000 findings
    # that each stand alone make no 50,000 lists)
    counts = Counter(keys)
    groups: dict[tuple, list[int]] = {}
    for index, key in enumerate(keys):
        if key is not None and counts[key] >= FOLD_AT:
            groups.setdefault(key, []).append(index)
    out, out_places, done = [], [], set()
    for index, f in enumerate(findings):
        if index in done:
            continue
        group = groups.get(keys[index]) if keys[index] is not None else None
        if not group:
            out.append(f)
            out_places.append(places[index])
            continue
        done.update(group)
        members = [findings[i] for i in group]
        out.append(_folded(members, path_of))
        out_places.append([[_path(m["left"]), _path(m["right"])] for m in members])
    return out, out_places


def _path(end: dict | None) -> str | None:
    return None if end is None else end["path"]


def _folded(members: list[dict], path_of) -> dict:
    first = members[0]
    left = (
        None if first["left"] is None else {**first["left"], "path": path_of(first["left"]["path"])}
    )
    right = (
        None
        if first["right"] is None
        else {**first["right"], "path": path_of(first["right"]["path"])}
    )
    where = (left or right)["path"][1:] or "(document)"
    examples = [
        {key: m.get(key) for key in ("left", "right", "left_value", "right_value", "message")}
        for m in members[:EXAMPLES]
    ]
    return {
        **first,
        "left": left,
        "right": right,
        "message": f"{where}: {first['kind']} in {len(members):,} places, e.g. {first['message']}",
        "occurrences": len(members),
        "examples": examples,
    }


def occurrences(finding: dict, places: list, docs: dict, offset: int, limit: int) -> list[dict]:
    """Return one page of a finding's places.

    Each with its two ends and their values in `docs`."""
    # a finding that stands alone is its own one place
    if not places:
        places = [[_path(finding["left"]), _path(finding["right"])]]
    out = []
    for left_path, right_path in places[offset : offset + limit]:
        record = {}
        for side, path in (("left", left_path), ("right", right_path)):
            end = finding[side]
            record[side] = None if end is None else {"snapshot": end["snapshot"], "path": path}
            record[f"{side}_value"] = (
                None if end is None else resolve(docs.get(end["snapshot"]), path, None)
            )
        out.append(record)
    return out
