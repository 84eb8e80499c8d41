"""Pair what the structural walk left over.

Equal values moved or renamed, shapes, look-alikes."""

from collections import Counter

from ...common import jsontext
from ...common.pointers import ancestors, child, last, parent
from ..budget import tick
from ..values.json_values import REDACTED, canonical, is_empty, is_number, norm_key, norm_text
from ..values.learnt import join_of
from ..values.readings import read_number
from .plucks import each_field, item_leaves, pair_pluck, star_path
from .renames import pair_by_names, pair_lists, pair_scalars

MAX_NODES = 200_000
# the separators a layer joins a list's items with, and the shortest joined text paired by them
JOINERS = (",", ", ", ";", "; ", "|", " ", "\n")
MIN_JOINED = 3
# the most items a list joined into one text is looked for with
MAX_JOINED_ITEMS = 50
# longer texts, or texts beside more free texts than this, are looked for only as exact joins (a
# big request's thousands of texts are not split and normalised for a few lists)
MAX_LOOSE_TEXT = 2000
MAX_LOOSE_TEXTS = 2000
_PLAIN = {str, int, bool, type(None)}


class Leftovers:
    """Nodes of both documents that no pair reached yet.

    And the bookkeeping to pair them."""

    def __init__(self, pairing, describe=None):
        self.p = pairing
        # (side, path) -> the schema's description of that field, or None
        self.describe = describe
        # per side: ancestors of those paths
        self.touched = (set(), set())
        # A declared entry may pair a leaf deep inside a subtree the walk left over: its
        # ancestors then reached the other side through it, so they are not dropped or added whole.
        for side, declared in ((0, pairing.claimed_left), (1, pairing.claimed_right)):
            for path in declared:
                self.touched[side].update(ancestors(path))
        # per side: (the pairing's state, its free nodes), read again only once a pair is made
        self._free: list = [None, None]

    def run(self) -> None:
        """Pair leftovers, strongest evidence first.

        Same meaning, arrays, equal values, shapes, look-alike values, then the rest."""
        pair_by_names(self)
        pair_lists(self, self.describe)
        for _ in range(3):
            if not (self._by_key(_exact_key, "value") | self._shapes()):
                break
        self.joined_lists()
        self._by_key(_loose_key, "loose")
        pair_scalars(self, self.describe)

    def nodes(self, side: int, scalars_only=False) -> list:
        """Return (path, value) of every still-free node in the leftover trees, preorder.

        The passes that pair nothing (thousands of leftovers no key, name or shape joins) share
        one walk of the trees: it is walked again only after a pair changed what is free."""
        # pairs, the sets free() reads and what a walk below a pair adds only ever grow
        state = (
            len(self.p.pairs),
            len(self.p.back),
            len(self.p.whole),
            len(self.p.changed),
            len(self.touched[0]),
            len(self.touched[1]),
            len(self.p.orphans_left),
            len(self.p.orphans_right),
        )
        if self._free[side] is None or self._free[side][0] != state:
            self._free[side] = (state, list(self._free_nodes(side)))
        found = self._free[side][1]
        if scalars_only:
            return [(path, value) for path, value in found if not isinstance(value, (dict, list))]
        return found

    def _free_nodes(self, side: int):
        """Yield (path, value) of every still-free node in the leftover trees, preorder."""
        roots = self.p.orphans_right if side else self.p.orphans_left
        paired, touched = (self.p.pairs if side == 0 else self.p.back), self.touched[side]
        count = 0
        # Only a root needs its ancestors looked at: below it, a paired node's own leftovers are
        # roots of their own (the walk of a pair adds them), so its subtree is skipped whole.
        memo = {}
        stack = [
            (path, value)
            for path, value, _ in reversed(roots)
            if path in touched or self.free(side, path, memo)
        ]
        while stack and count < MAX_NODES:
            path, value = stack.pop()
            count += 1
            tick()
            if path in paired:
                continue
            if path not in touched:
                yield path, value
            if isinstance(value, dict):
                stack += [(child(path, k), v) for k, v in reversed(value.items())]
            elif isinstance(value, list):
                stack += [(child(path, i), v) for i, v in reversed(list(enumerate(value)))]

    def free(self, side: int, path: str, memo: dict | None = None) -> bool:
        """Tell whether a leftover node and its subtree are still unpaired.

        memo (path -> verdict for the nodes below it) serves one pass that pairs nothing meanwhile:
        thousands of roots under one parent then look at their ancestors once, not each."""
        paired = self.p.pairs if side == 0 else self.p.back
        if path in paired or path in self.touched[side]:
            return False
        return (
            self._below(side, parent(path), paired, {} if memo is None else memo) if path else True
        )

    def _below(self, side, up, paired, memo) -> bool:
        """Tell whether the nearest paired ancestor, from up, leaves what is below it free."""
        seen = []
        while up not in memo:
            seen.append(up)
            if up in paired:
                # Below a pair the walk went into, what it left unpaired is free (an item removed
                # from a renamed list); below equal subtrees or a node changed whole, nothing is.
                left = up if side == 0 else paired[up]
                verdict = left not in self.p.whole and left not in self.p.changed
                break
            if not up:
                verdict = True
                break
            up = up[: up.rfind("/")]
        else:
            verdict = memo[up]
        for path in seen:
            memo[path] = verdict
        return verdict

    def pair(self, lp, lv, rp, rv, how) -> None:
        """Record a pair found among leftovers and walk into it.

        Never a field the mapping pins."""
        if pinned(lp, self.p.pinned_left) or pinned(rp, self.p.pinned_right):
            # an item of a pinned list is pinned too: it is not joined into a lookalike
            return
        for side, path in ((0, lp), (1, rp)):
            self.touched[side].update(ancestors(path))
        self.p.walk(lp, lv, rp, rv, how)

    def joined_lists(self, plucks_only: bool = False) -> None:
        """Pair a list with the one text that joins its items, under any key.

        A list of texts, or of objects through one field of each item (a pluck,
        pairing/plucks.py): `keywords: ["refund", "trial"]` -> `value: "refund|trial"`,
        `nodes: [{"nodeId": "1-2", ...}, ...]` -> `ids=1:2,...`; each item as it is or in the API's
        form (`1-2` as `1:2`), a one-item list with its item. Each side's only match."""
        lists = self._lists(plucks_only)
        if not lists:
            return
        texts: dict[str, list] = {}
        for path, value in self.nodes(1, scalars_only=True):
            if isinstance(value, str) and len(value) >= MIN_JOINED:
                texts.setdefault(value, []).append(path)
        index = _Joins(texts)
        found = [
            (lp, lv, rp, text, field)
            for lp, lv, items, field in lists
            for text in index.joining(items)
            for rp in texts[text]
        ]
        lefts, rights = Counter(m[0] for m in found), Counter(m[2] for m in found)
        for lp, lv, rp, rv, field in found:
            if lefts[lp] == 1 and rights[rp] == 1 and self.free(0, lp) and self.free(1, rp):
                if field is None:
                    self.pair(lp, lv, rp, rv, "value")
                else:
                    self._pluck(lp, lv, field, rp, rv)

    def _lists(self, plucks_only: bool) -> list[tuple]:
        """Return (path, list, item texts, field or None) of the free lists to join."""
        out = []
        for path, value in self.nodes(0):
            if not isinstance(value, list) or not 0 < len(value) <= MAX_JOINED_ITEMS:
                continue
            texts = None if plucks_only else _item_texts(value)
            if texts:
                out.append((path, value, texts, None))
            for field, found in each_field(value).items():
                out.append((path, value, [str(v) for v in found], field))
        return out

    def _pluck(self, lp: str, lv: list, field: str, rp: str, rv) -> None:
        """Pair each item's field with the text that joins them (pairing/plucks.py)."""
        leaves = item_leaves(lv, lp, field)
        if pinned(rp, self.p.pinned_right) or any(
            pinned(path, self.p.pinned_left) or not self.free(0, path) for path, _ in leaves
        ):
            return
        pair_pluck(self.p, star_path(lp, field), leaves, rp, rv, "value")
        for path, _ in leaves:
            self.touched[0].update(ancestors(path))
        self.touched[1].update(ancestors(rp))

    def _by_key(self, keyer, how) -> bool:
        loose = how == "loose"
        sides = [self.nodes(0, scalars_only=loose), None]
        # each node keyed once: the tests below and the groups share its key
        keys: list = [None, None]
        # No loose key on the left (booleans, small numbers): nothing can pair, whatever the right
        # holds, so the right is not walked. (Loose keys are cheap; exact ones of big subtrees are
        # not.)
        if loose:
            keys[0] = [keyer(path, value) for path, value in sides[0]]
            if all(key is None for key in keys[0]):
                return False
        sides[1] = self.nodes(1, scalars_only=loose)
        small = 0 if len(sides[0]) <= len(sides[1]) else 1
        if keys[small] is None:
            keys[small] = [keyer(path, value) for path, value in sides[small]]
        if all(key is None for key in keys[small]):
            return False
        # A node pairs only with one of the same type and length: on the bigger side, nodes no
        # node of the smaller side looks like are not keyed (no canonical text of every subtree
        # of a big request that a tiny argument object cannot match). Loose keys cross types.
        if keys[1 - small] is None:
            looks = None if loose else {_look(v) for _, v in sides[small]}
            keys[1 - small] = [
                None if looks is not None and _look(value) not in looks else keyer(path, value)
                for path, value in sides[1 - small]
            ]
        found = {}
        for side in (0, 1):
            for node, key in zip(sides[side], keys[side]):
                if key is None:
                    continue
                # no new pair of lists per node: 50,000 leftovers share a few keys
                group = found.get(key)
                if group is None:
                    group = found[key] = ([], [])
                group[side].append(node)
        changed = False
        for lefts, rights in found.values():
            if not (lefts and rights):
                continue
            for (lp, lv), (rp, rv) in self._unique(lefts, rights):
                if self.free(0, lp) and self.free(1, rp):
                    self.pair(lp, lv, rp, rv, how)
                    changed = True
        return changed

    def _unique(self, lefts, rights) -> list:
        """Return the pairs of one key.

        The only two nodes, or the only two under one pair of parents."""
        if len(lefts) == 1 and len(rights) == 1:
            return [(lefts[0], rights[0])]
        # A value that repeats across records (amount 1500 in many orders) is still one field's
        # when it is the only one under a pair of parents: the field renamed in every record.
        regions: dict[str, tuple[list, list]] = {}
        for side, nodes in ((0, lefts), (1, rights)):
            for node in nodes:
                up = parent(node[0])
                region = self.p.pairs.get(up) if side == 0 else up
                if region is not None:
                    regions.setdefault(region, ([], []))[side].append(node)
        return [(ls[0], rs[0]) for ls, rs in regions.values() if len(ls) == 1 and len(rs) == 1]

    def _shapes(self) -> bool:
        changed = False
        groups = self._groups(lambda v: isinstance(v, dict) and len(v) >= 2)
        for lefts, rights in groups.values():
            for lp, lv, rp, rv in _best_shapes(lefts, rights):
                if self.free(0, lp) and self.free(1, rp):
                    self.pair(lp, lv, rp, rv, "shape")
                    changed = True
        return changed

    def _groups(self, wanted) -> dict:
        """Group free leftover roots by the pair of parents they hang under."""
        groups: dict[tuple, tuple] = {}
        for side, roots in ((0, self.p.orphans_left), (1, self.p.orphans_right)):
            memo = {}
            for path, value, other_parent in roots:
                if wanted(value) and self.free(side, path, memo):
                    key = (
                        (parent(path), other_parent) if side == 0 else (other_parent, parent(path))
                    )
                    groups.setdefault(key, ([], []))[side].append((path, value))
        return groups


def _look(value):
    """Return what two nodes with equal exact keys share.

    Their type, and a container's length."""
    return (type(value), len(value)) if isinstance(value, (dict, list)) else type(value)


def _exact_key(path, value):
    if type(value) is bool:
        # the first case below, asked first: 50,000 leftover booleans
        return ("trivial", (bool, value), norm_key(last(path)))
    if (
        is_empty(value)
        or isinstance(value, bool)
        or value == REDACTED
        or (is_number(value) and abs(value) <= 1)
    ):
        # Common values pair only under a key of the same name (a move or case change).
        return ("trivial", _text(value), norm_key(last(path)))
    # a plain text or integer is its own key: no JSON text of each of 40,000 leftovers
    if type(value) is int or (type(value) is str and value.isascii()):
        return ("plain", type(value), value)
    try:
        return ("value", canonical(value))
    except TypeError:
        return None


def _text(value):
    """Return a key equal for two values exactly when their JSON texts are."""
    # the type tells True from 1 (equal as keys); floats go by their text (-0.0 is not 0.0)
    kind = type(value)
    return (kind, value) if kind in _PLAIN else jsontext.dumps(value)


def _loose_key(path, value):
    if isinstance(value, str) and value != REDACTED:
        number = read_number(value)
        if number is not None and abs(number) >= 10:
            return ("number", number)
        text = norm_text(value)
        return ("text", text) if len(text) >= 3 else None
    if is_number(value) and abs(value) >= 10:
        # int and float keys that are equal numbers hash alike
        return ("number", value)
    return None


def _best_shapes(lefts, rights):
    """Pair objects of the same parents whose key sets overlap at least by half.

    Best first."""
    if len(lefts) * len(rights) > 400:
        return []
    scored = []
    for lp, lv in lefts:
        lkeys = {norm_key(k) for k in lv}
        for rp, rv in rights:
            rkeys = {norm_key(k) for k in rv}
            score = len(lkeys & rkeys) / len(lkeys | rkeys)
            if score >= 0.5:
                scored.append((-score, lp, lv, rp, rv))
    scored.sort(key=lambda t: (t[0], t[1], t[3]))
    used, out = set(), []
    for _, lp, lv, rp, rv in scored:
        if lp not in used and rp not in used:
            used.update((lp, rp))
            out.append((lp, lv, rp, rv))
    return out


def pinned(path: str, held: set) -> bool:
    """Tell whether a path, or one of its ancestors, is pinned.

    Its mapped counterpart is missing."""
    return bool(held) and (path in held or any(up in held for up in ancestors(path)))


def remaining(leftovers: Leftovers, side: int) -> list[tuple[str, object]]:
    """Return the highest leftover nodes that nothing reached, in document order."""
    roots = leftovers.p.orphans_right if side else leftovers.p.orphans_left
    out, stack, memo = [], [(path, value) for path, value, _ in reversed(roots)], {}
    while stack:
        path, value = stack.pop()
        if leftovers.free(side, path, memo):
            out.append((path, value))
        elif path in leftovers.touched[side]:
            if isinstance(value, dict):
                stack += [(child(path, k), v) for k, v in reversed(value.items())]
            elif isinstance(value, list):
                stack += [(child(path, i), v) for i, v in reversed(list(enumerate(value)))]
    return out


def _item_texts(items: list) -> list[str] | None:
    """Return the texts of a list of plain texts and numbers, else None."""
    if not 0 < len(items) <= MAX_JOINED_ITEMS:
        return None
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (str, int)) or item == "":
            return None
        out.append(str(item))
    return out


class _Joins:
    """The texts a list's items may be joined into, looked up by the join.

    Exactly, or each item in another form (`1-2` as `1:2`): texts are indexed by their parts
    without case or separators only when a list asks (most calls join nothing)."""

    def __init__(self, texts: dict):
        self.texts = texts
        self._loose: dict | None = None

    def joining(self, items: list[str]) -> set[str]:
        """Return the texts that join `items` with one of JOINERS."""
        exact = {text for text in {sep.join(items) for sep in JOINERS} if text in self.texts}
        if exact or len(items) < 2 or len(self.texts) > MAX_LOOSE_TEXTS:
            return exact
        found = set()
        for sep in JOINERS:
            key = sep.join(norm_text(item) for item in items)
            for text in self._by_parts().get((sep, key), ()):
                if join_of(items, text, (sep,)):
                    found.add(text)
        return found

    def _by_parts(self) -> dict:
        if self._loose is None:
            self._loose = {}
            for text in self.texts:
                if len(text) > MAX_LOOSE_TEXT:
                    continue
                for sep in JOINERS:
                    if sep in text:
                        key = sep.join(norm_text(part) for part in text.split(sep))
                        self._loose.setdefault((sep, key), []).append(text)
        return self._loose
