"""The leaves of a payload that inference compares.

Bounded, so a big payload costs what a small one does."""

from ..analysis import canonical, each_field
from ..common.pointers import child

# leaves per snapshot and call; the rest of a big payload is not learnt from
MAX_LEAVES = 64
MAX_DEPTH = 8
# a list of scalars up to this long is one leaf (ids, tags)
MAX_LIST = 20
# longer strings are free text, not values a mapping layer copies
MAX_TEXT = 200


def leaves(doc, limit: int = MAX_LEAVES, wrapped: bool = False) -> dict:
    """Return {JSON Pointer: value} of a document's leaves.

    Its scalar leaves and short lists of scalars.

    Objects are walked; arrays of objects are not (their items have no stable pointer to pair),
    so every pointer returned can be written into a contract's `mapping` as it is. With `wrapped`
    (a request), a list holding one object is walked as the object (`/purchase_units/0/amount`):
    a layer that wraps what it sends in a list of one puts the arguments in its item, at a pointer
    as stable as an object's (not inside another such list).
    """
    out: dict = {}
    if not isinstance(doc, dict):
        # the document itself is no leaf (it has no pointer to pair)
        return out
    # each object's members taken one at a time, as the cap needs them: an object of 26,000 keys
    # costs its first 64 leaves, not a pointer per key
    stack = [("", iter(doc.items()), 0, not wrapped)]
    while stack and len(out) < limit:
        path, members, depth, inside = stack[-1]
        member = next(members, None)
        if member is None:
            stack.pop()
            continue
        key, value = member
        if isinstance(value, dict):
            if depth + 1 < MAX_DEPTH:
                stack.append((child(path, key), iter(value.items()), depth + 1, inside))
        elif isinstance(value, list):
            if 0 < len(value) <= MAX_LIST and all(_scalar(x) for x in value):
                out[child(path, key)] = value
            elif not inside and _one_object(value) and depth + 2 < MAX_DEPTH:
                item = child(child(path, key), "0")
                stack.append((item, iter(value[0].items()), depth + 2, True))
        elif value is not None and not (isinstance(value, str) and len(value) > MAX_TEXT):
            out[child(path, key)] = value
    return out


def _one_object(value: list) -> bool:
    return len(value) == 1 and isinstance(value[0], dict)


def _scalar(value) -> bool:
    return not isinstance(value, (dict, list))


# the items of one list walked for the paths they carry
MAX_ITEMS = 20
# an item of a list, whichever it is
ITEM = "*"


def plucked(doc, limit: int = MAX_LEAVES) -> dict:
    """Return {`/list/*/field`: each item's value} of a document's lists of objects.

    A field every item of a list holds as a text or a number: `/nodes/*/nodeId` ->
    `["1:2", "3:4"]`, what a layer sends joined (`ids=1:2,3:4`) or as a list of its own. Paired
    like a list of scalars, under the starred path the analysis reads it by
    (webapp/analysis/pairing/plucks.py)."""
    out: dict = {}
    stack = [("", doc, 0)]
    while stack and len(out) < limit:
        path, value, depth = stack.pop()
        if isinstance(value, dict) and depth < MAX_DEPTH:
            stack += [(child(path, k), v, depth + 1) for k, v in reversed(list(value.items()))]
        elif path and isinstance(value, list) and 0 < len(value) <= MAX_LIST:
            out.update(
                (child(child(path, ITEM), field), found)
                for field, found in each_field(value).items()
            )
    return out


def item_leaves(doc, limit: int = MAX_LEAVES) -> set[str]:
    """Return the leaves inside lists of objects, each index written `*`.

    `/records/*/fields/Status` when any record holds a Status: the keys a list's items carry,
    learnt like an object's keys, whichever item carries them (`item_views` pairs them item by
    item); see `starred` for the path of one item's leaf.
    """
    out: set[str] = set()
    stack = [("", doc, 0, False)]
    while stack and len(out) < limit:
        path, value, depth, inside = stack.pop()
        if depth >= MAX_DEPTH:
            continue
        if isinstance(value, dict):
            # outside a list's items only containers can lead to a leaf (26,000 booleans: none)
            stack += [
                (child(path, k), v, depth + 1, inside)
                for k, v in reversed(value.items())
                if inside or isinstance(v, (dict, list))
            ]
        elif isinstance(value, list) and any(isinstance(x, dict) for x in value):
            items = [x for x in value if isinstance(x, dict)][:MAX_ITEMS]
            stack += [(child(path, ITEM), item, depth + 1, True) for item in reversed(items)]
        elif inside and a_leaf(value):
            out.add(starred(path))
    return out


def in_several_items(doc) -> set[str]:
    """Return the starred leaves (`/items/*/cost`) several items of one list held.

    Each told apart from each other leaf of their items: a leaf whose value is another's in every
    item (a line's total beside its unit price when one of each is bought) can be paired in its
    place, and the call tells nothing of which one the layer sent."""
    lists: dict = {}
    for path, value in item_values(doc).items():
        tokens = path.split("/")
        at = max(k for k, token in enumerate(tokens) if k and token.isdigit())
        # the item's own list: the leaf's path up to its last index, each index in it kept
        items = lists.setdefault("/".join(tokens[:at]), {})
        items.setdefault(tokens[at], {})[starred(path)] = canonical(value)
    out: set[str] = set()
    for items in lists.values():
        if len(items) < 2:
            continue
        rows = list(items.values())
        for path in {p for row in rows for p in row}:
            if sum(path in row for row in rows) > 1 and not _twinned(path, rows):
                out.add(path)
    return out


def _twinned(path: str, rows: list) -> bool:
    """Tell whether another leaf holds `path`'s value in every item holding either."""
    others = {p for row in rows for p in row} - {path}
    return any(all(row.get(path) == row.get(other) for row in rows) for other in others)


def a_leaf(value) -> bool:
    """Tell whether a value that is no object is a leaf as `leaves` counts one."""
    if isinstance(value, list):
        return 0 < len(value) <= MAX_LIST and all(_scalar(x) for x in value)
    return value is not None and not (isinstance(value, str) and len(value) > MAX_TEXT)


def starred(path: str) -> str:
    """Return a path with each token of digits written `*`.

    `/records/0/fields` -> `/records/*/fields`: the path `item_leaves` counts it under (a key made
    of digits inside an item reads as one too, there and here alike)."""
    return "/".join(ITEM if token.isdigit() else token for token in path.split("/"))


def in_a_list(path: str) -> bool:
    """Tell whether a path names a list's item or what is inside one.

    `/tags/0`, `/items/1/name`, `/items/*/name`."""
    return any(token.isdigit() or token == ITEM for token in path.split("/")[1:])


def item_values(doc, limit: int = MAX_LEAVES) -> dict:
    """Return {JSON Pointer: value} of the leaves inside lists of objects.

    Each under its own item's pointer (`/items/0/cost`), bounded as `item_leaves` is: what
    `item_views` pairs item by item."""
    out: dict = {}
    stack = [("", doc, 0, False)]
    while stack and len(out) < limit:
        path, value, depth, inside = stack.pop()
        if depth >= MAX_DEPTH:
            continue
        if isinstance(value, dict):
            stack += [(child(path, k), v, depth + 1, inside) for k, v in reversed(value.items())]
        elif isinstance(value, list) and any(isinstance(x, dict) for x in value):
            items = list(enumerate(value))[:MAX_ITEMS]
            stack += [
                (child(path, str(i)), item, depth + 1, True)
                for i, item in reversed(items)
                if isinstance(item, dict)
            ]
        elif inside and a_leaf(value):
            out[path] = value
    return out


def item_views(arguments: dict, request: dict) -> list[tuple[dict, dict]]:
    """Return per item index its argument leaves and the request leaves at that index.

    ({`/items/*/cost`: v}, {`/purchase_units/0/items/*/unit_amount/value`: v}): an argument leaf
    inside one list, and each request leaf whose last index is the same, that index written `*`
    (those before it stay: the place of the list the layer built). So a list's items pair item
    by item, and a pair of starred pointers counts one call per item."""
    views: dict[str, tuple[dict, dict]] = {}
    for path, value in arguments.items():
        found = _last_index(path, only=True)
        if found:
            views.setdefault(found[0], ({}, {}))[0][found[1]] = value
    for path, value in request.items():
        found = _last_index(path)
        if found and found[0] in views:
            views[found[0]][1][found[1]] = value
    return [view for view in views.values() if view[1]]


def _last_index(path: str, only: bool = False) -> tuple[str, str] | None:
    """Return (index, path with it written `*`) of a path's last index, or None.

    None too, with `only`, for a path inside several lists."""
    tokens = path.split("/")
    at = [k for k, token in enumerate(tokens) if k and token.isdigit()]
    if not at or (only and len(at) > 1):
        return None
    index, tokens[at[-1]] = tokens[at[-1]], ITEM
    return index, "/".join(tokens)
