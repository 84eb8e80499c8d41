"""A list of objects paired through one field of its items: a pluck.

`nodes: [{"nodeId": "1:2", "fileName": "a.png"}, ...]` sent as `ids=1:2,3:4`: each item's `nodeId`,
joined. The pair is named by its starred path (`/nodes/*/nodeId`), as inference counts it
(webapp/inference/leaves.py `plucked`); its value is the list of each item's field, judged as a
list of plain values is (a join, its separator, its items' form). Each item's leaf pairs with the
text too, so the items' other fields stay free: a `fileName` the layer keeps is dropped or consumed
as before.
"""

from ...common.pointers import MISSING, child, from_tokens, resolve, tokens
from ..values.json_values import same

# an item of a list, whichever it is
ITEM = "*"
# longer texts are free text, not values a layer joins
MAX_TEXT = 200


def each_field(items: list) -> dict:
    """Return {field: [each item's value]} of the fields every item holds.

    As a text or a number."""
    if not items or not all(isinstance(item, dict) for item in items):
        return {}
    return {
        field: [item[field] for item in items]
        for field in items[0]
        if all(_joinable(item.get(field)) for item in items)
    }


def _joinable(value) -> bool:
    """Tell whether an item's field is a value a layer joins: a text or a number."""
    if isinstance(value, str):
        return 0 < len(value) <= MAX_TEXT
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def star_path(list_path: str, field: str) -> str:
    """Return the starred path of one field of a list's items: `/nodes/*/nodeId`."""
    return child(child(list_path, ITEM), field)


def split_star(path: str) -> tuple[str, str] | None:
    """Return (list path, field) of a starred path, else None.

    One `*`, right before the last token: `/nodes/*/nodeId`."""
    parts = tokens(path) if path.startswith("/") else []
    if len(parts) < 2 or parts[-2] != ITEM or ITEM in parts[:-2]:
        return None
    return from_tokens(parts[:-2]), parts[-1]


def item_leaves(items: list, list_path: str, field: str) -> list[tuple[str, object]]:
    """Return (path, value) of each item's field, when every item holds it."""
    values = each_field(items).get(field) if isinstance(items, list) else None
    if not values:
        return []
    return [(child(child(list_path, i), field), v) for i, v in enumerate(values)]


def pair_pluck(pairing, star: str, leaves: list, rp: str, rv, how: str) -> None:
    """Pair each item's leaf with one request field, and the pluck with its value.

    The pluck is judged once, at its starred path (found `how`: by value, declared, inferred); the
    items' leaves are paired by their place in it, so no other pass takes them and the alignment
    shows where each went."""
    for lp, lv in leaves:
        pairing.pairs[lp], pairing.how[lp], pairing.values[lp] = rp, "item", (lv, rv)
    pairing.back[rp] = leaves[0][0]
    values = [v for _, v in leaves]
    pairing.pairs[star], pairing.how[star], pairing.values[star] = rp, how, (values, rv)
    pairing.plucks[star] = [lp for lp, _ in leaves]
    if same(values, rv):
        pairing.whole.add(star)
    else:
        pairing.diffs.append((star, rp, values, rv))
        pairing.changed.add(star)


def declare_plucks(pairing, entries) -> list:
    """Pair the mapping's entries of a starred path; return the other entries.

    An entry whose request field is missing pins the items' leaves (they pair with nothing else),
    one whose list is missing pins the field, as a declared pair does."""
    rest = []
    for entry in entries:
        lp, rp, how = entry[0], entry[1], entry[2] if len(entry) > 2 else "declared"
        found = split_star(lp)
        # an item's leaf paired with an item's (a `*` on both sides) pairs item by item
        if found is None or ITEM in tokens(rp):
            rest.append(entry)
            continue
        list_path, field = found
        leaves = item_leaves(resolve(pairing.left, list_path, None), list_path, field)
        rv = resolve(pairing.right, rp)
        if not leaves or rv is MISSING:
            if leaves:
                pairing.pinned_left.update(path for path, _ in leaves)
            elif rv is not MISSING:
                pairing.pinned_right.add(rp)
            continue
        if rp in pairing.claimed_right or any(p in pairing.claimed_left for p, _ in leaves):
            continue
        pairing.claimed_left.update(path for path, _ in leaves)
        pairing.claimed_right.add(rp)
        pair_pluck(pairing, lp, leaves, rp, rv, how)
    return rest
