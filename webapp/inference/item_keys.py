"""The keys every item of a request's lists carried, and the lists every call sent.

Renamed in the newest release, a change to report.

A layer builds some lists itself: a search DSL's conditions (`{"field", "operator", "value"}`), a
list of `{"id": ...}` built from the model's ids. One call cannot tell such an item's key renamed
(`field` sent as `name`) nor the list sent under another key (`items` as the argument's own name),
its history can: a key every item of every earlier call carried that an item of the newest
release lacks while it carries a key no earlier item did, and a list every earlier call sent that
the newest leaves out while it sends a list no earlier call did, were renamed. An item key an
argument names (the model's own records) is the model's to give or leave out: never judged.

Counted as path counts: each request item leaf (`/query/value/*/field`, leaves.py) counts `items`,
the items holding it, and `of`, the items of its list, beside the calls holding it.
"""

from ..analysis import end, finding
from ..common.pointers import child
from .epochs import established, tagged
from .leaves import ITEM, MAX_DEPTH, MAX_ITEMS, a_leaf, starred

# calls of earlier releases, and items of theirs, before a key is one every item carries
MIN_CALLS = 5
MIN_ITEMS = 10


def item_counts(doc, newest: bool, counted: set, name=lambda path: path) -> dict:
    """Return one call's item counts: {("request", starred leaf): {"items", "of"}}.

    The items of its list holding the leaf, and the items of that list, for the starred leaves
    `counted` holds (those the call's path counts keep). `name` names a document's path as
    findings do (`query:/...`)."""
    out: dict = {}
    for path, items in _lists(doc):
        held = [_item_leaves(item) for item in items]
        for key in set().union(*held):
            at = name(starred(child(path, ITEM) + key))
            if at not in counted:
                continue
            counts = {"items": sum(key in h for h in held), "of": len(items)}
            total = out.setdefault(("request", at), {})
            for k, n in tagged(counts, newest).items():
                total[k] = total.get(k, 0) + n
    return out


def learnt_item_keys(presence: dict) -> tuple:
    """Return the starred request leaves every item of every earlier call carried.

    Each held by every earlier call that sent its list with items (as many as held any leaf
    of its items), MIN_CALLS at least, and by each of their items, MIN_ITEMS at least."""
    counts = {
        path: established(c)
        for (side, path), c in presence.items()
        if side == "request" and ITEM in path.split("/")
    }
    widest: dict = {}
    for path, c in counts.items():
        widest[_list_of(path)] = max(widest.get(_list_of(path), 0), c.get("calls", 0))
    return tuple(
        sorted(
            path
            for path, c in counts.items()
            if c.get("calls", 0) >= MIN_CALLS
            and c.get("calls", 0) == widest[_list_of(path)]
            and c.get("of", 0) >= MIN_ITEMS
            and c.get("items", 0) == c.get("of", 0)
        )
    )


def learnt_lists(presence: dict, least: int = MIN_CALLS) -> tuple:
    """Return the request lists of objects every earlier call sent.

    `least` calls at least."""
    calls = established(presence.get(("calls", "")) or {}).get("calls", 0)
    if calls < least:
        return ()
    return tuple(
        sorted(
            {
                path.split("/" + ITEM + "/")[0]
                for (side, path), c in presence.items()
                if side == "request"
                and "/" + ITEM + "/" in path
                and established(c).get("calls", 0) == calls
            }
        )
    )


def items_renamed(doc, keys: tuple, argued: frozenset, carried, name=lambda path: path) -> list:
    """Warn of each list item lacking a key every earlier item carried.

    Where the item carries a key no earlier item did instead. `keys` is `learnt_item_keys`,
    `argued` the key names arguments carry (never judged), `carried` the request paths earlier
    releases sent."""
    learnt = set(keys)
    out = []
    for path, items in _lists(doc):
        prefix = name(starred(child(path, ITEM)))
        wanted = {k[len(prefix) :] for k in learnt if _list_of(k) == prefix}
        if not wanted:
            continue
        for index, item in enumerate(items):
            fresh = sorted(k for k in _item_leaves(item) if starred(prefix + k) not in carried)
            for key in sorted(wanted - _item_keys(item)):
                if key.rsplit("/", 1)[-1] in argued or len(fresh) != 1:
                    continue
                at = name(child(path, index)) + key
                text = (
                    f"{at}: every item of every earlier call carried it; this item sends "
                    f"{name(child(path, index)) + fresh[0]} instead"
                )
                out.append(_dropped(at, text))
    return out


def lists_renamed(leaves_sent: set, lists: tuple, carried) -> list:
    """Warn of each list every earlier call sent that a call leaves out for a new one.

    `leaves_sent` is the call's request leaves and item leaves (starred); the new list is one
    whose item leaves no earlier call carried, in the same place as the old one."""
    out = []
    for path in lists:
        if any(p == path or p.startswith(path + "/") for p in leaves_sent):
            continue
        parent = path.rsplit("/", 1)[0]
        fresh = sorted(
            {
                p.split("/" + ITEM + "/")[0]
                for p in leaves_sent
                if "/" + ITEM + "/" in p
                and p not in carried
                and p.split("/" + ITEM + "/")[0].rsplit("/", 1)[0] == parent
            }
        )
        if len(fresh) != 1:
            continue
        text = f"{path}: every call of an earlier release sent this list; this call sends "
        out.append(_dropped(path, f"{text}{fresh[0]} instead"))
    return out


def _dropped(path: str, text: str) -> dict:
    return finding("dropped", "warning", end("request", path), None, None, None, text)


def _list_of(path: str) -> str:
    """Return the starred path of a leaf's list item.

    `/query/value/*` of `/query/value/*/field`."""
    tokens = path.split("/")
    deepest = len(tokens) - tokens[::-1].index(ITEM)
    return "/".join(tokens[:deepest])


def _lists(doc):
    """Yield (path, items) of each list of objects in a document, its objects only."""
    stack = [("", doc, 0)]
    while stack:
        path, value, depth = stack.pop()
        if depth >= MAX_DEPTH:
            continue
        if isinstance(value, dict):
            stack += [(child(path, k), v, depth + 1) for k, v in reversed(list(value.items()))]
        elif isinstance(value, list) and any(isinstance(x, dict) for x in value):
            items = [x for x in value if isinstance(x, dict)][:MAX_ITEMS]
            yield path, items
            stack += [(child(path, i), x, depth + 1) for i, x in reversed(list(enumerate(items)))]


def _item_leaves(item: dict, path: str = "", depth: int = 0) -> set:
    """Return the leaves of one item, as paths inside it.

    Nested lists of objects left out: they are lists of their own."""
    out: set = set()
    for key, value in list(item.items())[:64]:
        at = child(path, key)
        if isinstance(value, dict) and depth < MAX_DEPTH:
            out |= _item_leaves(value, at, depth + 1)
        elif not (isinstance(value, list) and any(isinstance(x, dict) for x in value)):
            if a_leaf(value):
                out.add(at)
    return out


def _item_keys(item: dict, path: str = "", depth: int = 0) -> set:
    """Return every key path of one item, whatever its value (a null one too)."""
    out: set = set()
    for key, value in list(item.items())[:64]:
        at = child(path, key)
        out.add(at)
        if isinstance(value, dict) and depth < MAX_DEPTH:
            out |= _item_keys(value, at, depth + 1)
    return out


def through_lists_of_one(evidence: dict, presence: dict) -> dict:
    """Return the evidence without the pairs into an item of a list that held several.

    A request's list of one object is read as a wrapper (`/purchase_units/0/amount`, leaves.py):
    once any call's list held several items, its first item is one of many (a search's first
    condition), no place an argument goes."""
    return {pair: c for pair, c in evidence.items() if not _in_a_longer_list(pair[1], presence)}


def _in_a_longer_list(path: str, presence: dict) -> bool:
    """Tell whether a path's last index is the first item of a list that held several.

    The item counts of a starred leaf are its innermost list's: only the last index is judged."""
    parts = path.split("/")
    at = [k for k, token in enumerate(parts) if k and (token.isdigit() or token == ITEM)]
    if not at or parts[at[-1]] != "0":
        return False
    k = at[-1]
    counts = presence.get(("request", "/".join([*parts[:k], ITEM, *parts[k + 1 :]])))
    return bool(counts) and counts.get("of", 0) > counts.get("calls", 0)
