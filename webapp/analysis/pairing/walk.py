"""Pair the fields of two JSON documents.

Declared mapping, same path, case style, array items."""

import operator
from collections import Counter, deque

from ...common import jsontext
from ...common.pointers import MISSING, child, escape, resolve
from ..budget import tick
from ..values.json_values import REDACTED, is_container, norm_key, same

MAX_DEPTH = 200
_ID_KEYS = ("id", "key", "uuid", "sku")
_ID_TYPES = {str, int, float, bool}
_SCALARS = {str, int, float, bool, type(None)}
_CONTAINERS = (dict, list)


class Pairing:
    """The pairs found between a left and a right document, and what is left over."""

    def __init__(self, left, right):
        self.left, self.right = left, right
        # left path -> right path
        self.pairs: dict[str, str] = {}
        # right path -> left path
        self.back: dict[str, str] = {}
        self.how: dict[
            str, str
            # left path -> declared|inferred|same|case|item|value|loose|shape|name|elimination
        ] = {}
        # left paths whose subtrees are equal
        self.whole: set[str] = set()
        # left path -> (left, right value) of pairs not found by path
        self.values: dict[str, tuple] = {}
        # left path -> (right path, left, right list) of unequal list pairs
        self.lists: dict[str, tuple] = {}
        # (left path, right path, left value, right value)
        self.diffs: list[tuple] = []
        # left paths of those diffs
        self.changed: set[str] = set()
        # (path, value, parent path on the other side)
        self.orphans_left: list[tuple] = []
        self.orphans_right: list[tuple] = []
        self.claimed_left: set[str] = set()
        self.claimed_right: set[str] = set()
        # left path -> the transform its mapping entry declares
        self.transforms: dict[str, str] = {}
        # right path -> the one join its (inferred) entry allows
        self.separators: dict[str, str] = {}
        # left path -> the value relation its tool's history showed (an inferred entry's)
        self.relations: dict[str, str] = {}
        # left path -> {input digest: output digest} of a relation `looked up`
        self.tables: dict[str, dict] = {}
        # left paths whose table is keyed in any case (a name looked up whatever its case)
        self.folded: set[str] = set()
        # left path -> the arguments never given with it that send its (inferred) entry's field
        self.alternatives: dict[str, list] = {}
        # left paths paired among equal values that repeat
        self.ambiguous: set[str] = set()
        # mapped paths whose counterpart is missing: pair no further
        self.pinned_left: set[str] = set()
        self.pinned_right: set[str] = set()
        # reason_of's memo, filled once pairing is done
        self.found_above: dict[str, str | None] = {}
        # whether any pair was found otherwise than by path or place (reason_of's, the same)
        self.found_otherwise: bool | None = None
        # the right document holds the URL's and headers' locations (wire/locations.py)
        self.located = False
        # right paths under which a field no argument explains is quiet
        self.quiet_roots: tuple = ()
        # left path -> the other arguments joined with it into one field
        self.joined: dict[str, list] = {}
        # the starred path of a list's items' field paired as one value -> its items' leaves
        # (pairing/plucks.py)
        self.plucks: dict[str, list] = {}
        # the request's HTTP method (GET, POST...) when logged, and the body it sent (None: none)
        self.http_method: str | None = None
        self.http_body = None
        # right paths of the query keys and form fields sent more than once
        self.repeated: set[str] = set()
        # right paths of the URL path segments the tool's history showed constant: no argument's
        # partner by elimination
        self.constants: set[str] = set()
        # argument paths the layer kept for itself (rules/kept.py): never on the wire
        self.kept: frozenset = frozenset()
        # the URL path's segments, literal ones included (`calendars`), when logged
        self.segments: tuple = ()

    def declare(self, entries) -> None:
        """Pair the declared entries whose both ends exist.

        Entries are (left pointer, right pointer[, how])."""
        found = []
        for lp, rp, *how in entries:
            lv, rv = resolve(self.left, lp), resolve(self.right, rp)
            # One end missing: the mapping says where that field goes, so it pairs with nothing else
            # (an argument whose declared counterpart is absent is dropped, not renamed to a
            # lookalike).
            # (an argument given instead of a missing one sends the field: it pairs as it comes)
            if lv is not MISSING and rv is MISSING:
                self.pinned_left.add(lp)
            elif lv is MISSING and rv is not MISSING and not self._alternative_given(lp):
                self.pinned_right.add(rp)
            if (
                lv is not MISSING
                and rv is not MISSING
                and lp not in self.claimed_left
                and rp not in self.claimed_right
            ):
                self.claimed_left.add(lp)
                self.claimed_right.add(rp)
                found.append((lp, lv, rp, rv, how[0] if how else "declared"))
        for lp, lv, rp, rv, how in found:
            self.walk(lp, lv, rp, rv, how)

    def _alternative_given(self, lp: str) -> bool:
        """Tell whether the left document holds an argument given instead of `lp`."""
        return any(
            isinstance(other, str) and resolve(self.left, other) is not MISSING
            for other in self.alternatives.get(lp, ())
        )

    def walk(self, lp, lv, rp, rv, how, depth=0, differs=False) -> None:
        """Pair two nodes and, unless equal, pair their children.

        `differs`: the caller knows the two are not equal (no compare of them again)."""
        tick()
        self.pairs[lp], self.back[rp], self.how[lp] = rp, lp, how
        if how not in ("same", "item"):
            # a relocation's finding shows them: no pointer resolved again
            self.values[lp] = (lv, rv)
        if not differs and equal(lv, rv):
            self.whole.add(lp)
            return
        if isinstance(lv, list) and isinstance(rv, list):
            # what fold_arrays looks at, without resolving every pair
            self.lists[lp] = (rp, lv, rv)
        if depth > MAX_DEPTH:
            self.diffs.append((lp, rp, lv, rv))
            self.changed.add(lp)
        elif isinstance(lv, dict) and isinstance(rv, dict):
            if not (len(lv) == 1 and len(rv) == 1 and self._one_key(lp, lv, rp, rv, depth + 1)):
                self._objects(lp, lv, rp, rv, depth + 1)
        elif isinstance(lv, list) and isinstance(rv, list):
            self._arrays(lp, lv, rp, rv, depth + 1)
        else:
            self.diffs.append((lp, rp, lv, rv))
            self.changed.add(lp)

    def _objects(self, lp, lv, rp, rv, depth) -> None:
        rest_left, used_right = [], set()
        # Two unequal objects of one and the same key differ in its value when it is a container on
        # both sides (a scalar may equal anything redacted): comparing it again at each level made
        # 60 nested one-key objects quadratic in their depth (deep_nesting).
        only_key = len(lv) == 1 and len(rv) == 1
        claimed_right = self.claimed_right
        for key, value in lv.items():
            path = child(lp, key)
            if path in self.claimed_left:
                continue
            if path in self.pinned_left:
                # the mapping sends it elsewhere and its counterpart is missing: not paired by its
                # key here
                self.orphans_left.append((path, value, rp))
            elif key in rv and (target := child(rp, key)) not in claimed_right:
                used_right.add(key)
                differs = only_key and type(value) is type(rv[key]) and type(value) in _CONTAINERS
                self.walk(path, value, target, rv[key], "same", depth, differs)
            else:
                rest_left.append(key)
        # no pointer of each of 26,000 keys left over when nothing is claimed
        rest_right = [
            k
            for k in rv
            if k not in used_right and not (claimed_right and child(rp, k) in claimed_right)
        ]
        by_case = _pair_by_case(rest_left, rest_right)
        for lk, rk in by_case:
            self.walk(child(lp, lk), lv[lk], child(rp, rk), rv[rk], "case", depth)
        # sets, not list.remove: an object of 20,000 converted keys stays linear
        if by_case:
            paired_left, paired_right = {lk for lk, _ in by_case}, {rk for _, rk in by_case}
            rest_left = [k for k in rest_left if k not in paired_left]
            rest_right = [k for k in rest_right if k not in paired_right]
        self.orphans_left += [(child(lp, k), lv[k], rp) for k in rest_left]
        self.orphans_right += [(child(rp, k), rv[k], lp) for k in rest_right]

    def _one_key(self, lp, lv, rp, rv, depth) -> bool:
        """Pair two one-key objects of the same key as `_objects` would; False if not that.

        69,000 nested one-key objects (deep_nesting) build no lists of the keys left over."""
        [(key, value)] = lv.items()
        if key not in rv:
            return False
        # child() of both, the key escaped once
        token = escape(key)
        path, target = f"{lp}/{token}", f"{rp}/{token}"
        if path in self.claimed_left or path in self.pinned_left or target in self.claimed_right:
            return False
        other = rv[key]
        # unequal objects differ in their one value when it is a container on both sides
        differs = type(value) is type(other) and type(value) in _CONTAINERS
        self.walk(path, value, target, other, "same", depth, differs)
        return True

    def _arrays(self, lp, lv, rp, rv, depth) -> None:
        matched = pair_items(lv, rv)
        seen_left, seen_right = {i for i, _ in matched}, {j for _, j in matched}
        for i, j in matched:
            # indexes need no escaping
            left, right = f"{lp}/{i}", f"{rp}/{j}"
            if type(lv[i]) in _SCALARS and type(rv[j]) in _SCALARS:
                self._items(left, lv[i], right, rv[j])
            else:
                self.walk(left, lv[i], right, rv[j], "item", depth)
        self.orphans_left += [(child(lp, i), v, rp) for i, v in enumerate(lv) if i not in seen_left]
        self.orphans_right += [
            (child(rp, j), v, lp) for j, v in enumerate(rv) if j not in seen_right
        ]

    def _items(self, lp, lv, rp, rv) -> None:
        """Pair two scalar items as walk does, without its container tests.

        Arrays of 70,000 numbers."""
        tick()
        self.pairs[lp], self.back[rp], self.how[lp] = rp, lp, "item"
        if same(lv, rv):
            self.whole.add(lp)
        else:
            self.diffs.append((lp, rp, lv, rv))
            self.changed.add(lp)


def equal(a, b) -> bool:
    """Tell equal subtrees apart quickly.

    Containers that differ are walked, not compared."""
    if isinstance(a, (dict, list)) and type(a) is type(b):
        if a != b:
            return False
        try:
            # `==` says 1 == 1.0 == True; equal JSON texts tell them apart at C speed (keys in
            # another order fall back to the strict walk).
            return jsontext.dumps(a) == jsontext.dumps(b) or same(a, b)
        except TypeError:
            return same(a, b)
    return same(a, b)


def _pair_by_case(left_keys, right_keys) -> list[tuple[str, str]]:
    if not left_keys or not right_keys:
        return []
    by_norm: dict[str, list] = {}
    for key in right_keys:
        by_norm.setdefault(norm_key(key), []).append(key)
    left_norms = [norm_key(k) for k in left_keys]
    counts = Counter(left_norms)
    out = []
    for key, norm in zip(left_keys, left_norms):
        if len(by_norm.get(norm, ())) == 1 and counts[norm] == 1:
            out.append((key, by_norm[norm][0]))
    return out


def pair_items(lv: list, rv: list) -> list[tuple[int, int]]:
    """Pair array items by an id-like key, by equal scalar values, else by position."""
    if lv and rv and isinstance(lv[0], dict) and isinstance(rv[0], dict):
        by_id = pair_by_id(lv, rv)
        if by_id is not None:
            return by_id
    if (
        len(lv) != len(rv)
        and not any(is_container(x) for x in lv)
        and not any(is_container(x) for x in rv)
    ):
        return _pair_scalars(lv, rv)
    return [(i, i) for i in range(min(len(lv), len(rv)))]


def id_key(key: str) -> bool:
    """Tell whether a key names an identifier (id, key, uuid, sku, *_id, *Id)."""
    return key.lower() in _ID_KEYS or key.endswith(("_id", "Id", "ID", "-id"))


def pair_by_id(lv: list, rv: list) -> list[tuple[int, int]] | None:
    """Pair records by the first id-like key every item has, distinct on both sides.

    None when none does."""
    for key in (k for k in lv[0] if id_key(k)):
        right_key = next((k for k in rv[0] if norm_key(k) == norm_key(key)), None)
        left_ids = _ids(lv, key)
        right_ids = _ids(rv, right_key) if right_key else None
        if left_ids is None or right_ids is None:
            continue
        index = {v: j for j, v in enumerate(right_ids)}
        pairs = [(i, index[v]) for i, v in enumerate(left_ids) if v in index]
        return pairs + _pair_leftovers(pairs, len(lv), len(rv))
    return None


def _pair_leftovers(pairs, left_len: int, right_len: int) -> list[tuple[int, int]]:
    """Pair items whose id itself changed, in order.

    When as many are left on each side."""
    paired_left, paired_right = {i for i, _ in pairs}, {j for _, j in pairs}
    left = [i for i in range(left_len) if i not in paired_left]
    right = [j for j in range(right_len) if j not in paired_right]
    return list(zip(left, right)) if len(left) == len(right) else []


def _ids(items, key):
    """Return each item's id as text when every item has a distinct scalar one.

    Else None."""
    # Built-in passes rather than a Python loop: big arrays of records are the common case.
    if not all(map(dict.__instancecheck__, items)):
        return None
    try:
        values = list(map(operator.itemgetter(key), items))
    except KeyError:
        return None
    if not set(map(type, values)) <= _ID_TYPES or REDACTED in values:
        return None
    ids = list(map(str, values))
    return ids if len(set(ids)) == len(ids) else None


def _scalar_key(value):
    try:
        return jsontext.dumps(value)
    # what JSON cannot write (a lone surrogate)
    except TypeError:
        return repr(value)


def _pair_scalars(lv, rv) -> list[tuple[int, int]]:
    waiting: dict[bytes, deque] = {}
    for j, value in enumerate(rv):
        waiting.setdefault(_scalar_key(value), deque()).append(j)
    pairs, rest_left = [], []
    for i, value in enumerate(lv):
        queue = waiting.get(_scalar_key(value))
        if queue:
            pairs.append((i, queue.popleft()))
        else:
            rest_left.append(i)
    used = {j for _, j in pairs}
    rest_right = [j for j in range(len(rv)) if j not in used]
    pairs += list(zip(rest_left, rest_right))
    return sorted(pairs)
