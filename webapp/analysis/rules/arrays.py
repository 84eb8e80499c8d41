"""One loud finding for an array whose content the mapping layer changed.

Instead of one row per item."""

from collections import Counter, defaultdict

from ...common.pointers import parent
from ..findings.kinds import end, finding, rank
from ..values.json_values import canonical, show
from ..values.transforms import shared_transform
from .undecided import all_looked_up

_PLAIN = {str, int, bool, type(None)}
_CONTAINERS = frozenset((dict, list))
_MOVES = ("renamed", "moved", "case_changed")
_ITEM_KINDS = {
    "value_changed",
    "type_changed",
    "enum_changed",
    "format_changed",
    "scaled",
    "dropped",
    "added",
    "renamed",
    "moved",
    "case_changed",
}


def _as_it_is(f: dict) -> dict:
    return f


def fold_arrays(found: list[dict], pairing, label, settle=_as_it_is) -> list[dict]:
    """Replace each changed array pair's item findings with one at the array.

    `settle(f)` judges and writes out an item finding left for later (rules/mapping.py's
    `_Items`): the one the folded finding quotes, and every one when their severities count."""
    lists = pairing.lists
    arrays = [
        (lp, rp)
        for lp, rp in pairing.pairs.items()
        if lp in lists and lists[lp][0] == rp and lp not in pairing.whole
    ]
    if not arrays:
        return found
    near = _by_array(found, arrays)
    taken, folded = set(), []
    # innermost arrays first
    for lp, rp in sorted(arrays, key=lambda pair: -len(pair[0])):
        _, lv, rv = lists[lp]
        # JSON's containers are plain dicts and lists: their types are looked at in C
        scalars = plain(lv) and plain(rv)
        # only the findings under the array's ends are looked at, in their order: linear in the
        # findings however many arrays changed (4,000 records, each with a list: no 16 million)
        nearby = sorted(set(near.get((0, lp), ())) | set(near.get((1, rp), ())))
        fresh = [i for i in nearby if i not in taken and found[i]["kind"] in _ITEM_KINDS]
        inside = (
            _under(found, fresh, lp + "/", rp + "/")
            if scalars
            else [i for i in fresh if _belongs(found[i], lp, rp)]
        )
        if not _scattered([found[i] for i in inside]):
            continue
        # The rename of the list itself says nothing the finding at the list does not.
        inside += [
            i for i in near.get((lp, rp), ()) if i not in taken and found[i]["kind"] in _MOVES
        ]
        taken.update(inside)
        folded.append(_one([found[i] for i in inside], lp, rp, lv, rv, label(lp, rp), settle))
    return [f for i, f in enumerate(found) if i not in taken] + folded


def _by_array(found: list[dict], arrays: list[tuple]) -> dict:
    """Index findings by the array ends above them.

    (0, left array) or (1, right array) -> indexes of the findings with an end below it, and
    (left, right) -> those of a finding at exactly that pair (the list moved or renamed)."""
    sides = ({lp for lp, _ in arrays}, {rp for _, rp in arrays})
    pairs = set(arrays)
    near: dict = {}
    # by the parent of each end first: the items of a list share theirs (one look up per list)
    below: tuple[dict, dict] = (defaultdict(list), defaultdict(list))
    for index, f in enumerate(found):
        left, right = f["left"], f["right"]
        # parent() inline: 70,000 items changed
        if left is not None:
            path = left["path"]
            below[0][path[: path.rfind("/")] if path else ""].append(index)
        if right is not None:
            path = right["path"]
            below[1][path[: path.rfind("/")] if path else ""].append(index)
        if left and right and (left["path"], right["path"]) in pairs:
            near.setdefault((left["path"], right["path"]), []).append(index)
    for side in (0, 1):
        for up, indexes in below[side].items():
            for array in _above(up, sides[side]):
                near.setdefault((side, array), []).extend(indexes)
    return near


def _above(up: str, wanted: set) -> list:
    """Return the wanted paths among a parent and its ancestors (cut at its slashes)."""
    found, cut = [], len(up)
    while cut >= 0:
        up = up[:cut]
        if up in wanted:
            found.append(up)
        cut = up.rfind("/")
    return found


def _scattered(inside: list[dict]) -> bool:
    """Tell whether item findings are the list's.

    An item added, removed or replaced, or several changed."""
    # One item written another way (5 -> "5") stays at the item: that is where the change is.
    return (
        any(f["kind"] in ("dropped", "added", "value_changed") for f in inside) or len(inside) > 1
    )


def plain(values: list) -> bool:
    """Tell whether a list holds no object or list (a list of scalars)."""
    return _CONTAINERS.isdisjoint(map(type, values))


def _under(found: list[dict], indexes: list[int], left: str, right: str) -> list[int]:
    """Return the indexes of the findings with an end under a list of scalars.

    At any depth; `left` and `right` are the lists' pointers, each with a slash at its end."""
    return [
        i
        for i in indexes
        if ((end := found[i]["left"]) is not None and end["path"].startswith(left))
        or ((end := found[i]["right"]) is not None and end["path"].startswith(right))
    ]


def _belongs(f: dict, lp: str, rp: str) -> bool:
    """Tell whether a finding is about the items of an array pair of records."""
    left, right = f["left"] and f["left"]["path"], f["right"] and f["right"]["path"]
    # Lists of records keep their field-level findings; an item added or removed is the list's.
    return (f["kind"] == "dropped" and parent(left) == lp) or (
        f["kind"] == "added" and parent(right) == rp
    )


def _one(inside: list[dict], lp, rp, lv: list, rv: list, name: str, settle) -> dict:
    removed = [f["left_value"] for f in inside if f["kind"] == "dropped"]
    added = [f["right_value"] for f in inside if f["kind"] == "added"]
    changed = [
        f
        for f in inside
        if f["kind"] not in ("dropped", "added", "renamed", "moved", "case_changed")
    ]
    kinds = {f["kind"] for f in changed}
    kind = kinds.pop() if len(kinds) == 1 and not removed and not added else "value_changed"
    parts = []
    if removed:
        parts.append(f"{len(removed)} of {len(lv)} items removed ({show(removed, 40)})")
    if added:
        parts.append(f"{len(added)} added ({show(added, 40)})")
    if changed and _reordered(lv, rv):
        parts.append("the same items in another order")
    elif changed:
        quoted = settle(changed[0])["message"].split(": ", 1)[-1]
        parts.append(f"{len(changed)} changed (first {quoted})")
    # every item looked up (`labels` -> `labelIds`) is the items' info: one call cannot check a
    # look-up; any other change of the items is the list's warning
    looked_up = not removed and not added and all_looked_up((lp, rp), lv, rv)
    # An item not judged yet reads as a warning, which is what an info or a warning comes to here
    # unless every item was looked up.
    severity = min(((settle(f) if looked_up else f)["severity"] for f in inside), key=rank)
    if not (looked_up and severity == "info"):
        severity = "warning" if rank(severity) > rank("warning") else severity
    one = finding(
        kind,
        severity,
        end("arguments", lp),
        end("request", rp),
        lv,
        rv,
        f"{name}: {', '.join(parts)}",
    )
    if changed and not removed and not added:
        # every item changed one way: lower>UPPER
        one["transform"] = shared_transform(changed)
    return one


def _reordered(lv: list, rv: list) -> bool:
    # Counted, not sorted, and no JSON text of a plain scalar: 70,000 items changed all stay cheap.
    if len(lv) != len(rv):
        return False
    # items of other types are no reorder: 70,000 numbers sent as texts are told apart in C
    if Counter(map(type, lv)) != Counter(map(type, rv)):
        return False
    try:
        return Counter(map(_item_key, lv)) == Counter(map(_item_key, rv))
    except TypeError:
        return False


def _item_key(value):
    """Return a key equal for two items exactly when their canonical JSON texts are."""
    # the type tells True from 1; floats go by their text (-0.0 and 0.0 differ there)
    if type(value) in _PLAIN:
        return type(value), value
    return canonical(value)
