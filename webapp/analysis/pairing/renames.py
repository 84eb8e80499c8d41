"""Find renamed fields among the leftovers.

Same meaning by name first, then one assignment for the rest."""

from collections import Counter

from ...common.pointers import last, parent, resolve
from ..values.classify import classify
from ..values.names import names_segment, same_name
from ..wire.locations import QUIET_ROOTS, TEXT_ROOTS, in_text, secret_place
from .assignment import Assignment, Node, eliminate, id_like

# the URL path's segments, by index
_PATH = "/path:/"

# leftover nodes per side beyond which only the cheap passes run
MAX_ASSIGNED = 20_000
# paired values read for the texts a composed text may hold
MAX_TEXTS = 5_000


def pair_by_names(leftovers) -> None:
    """Pair sibling leftovers whose keys mean the same, one to one.

    For example n/count, qty/quantity. An index, as a list item's or an unnamed URL segment's `1`,
    is no name."""
    for lefts, rights in leftovers._groups(lambda v: True).values():
        matches = (
            [
                (lp, lv, rp, rv)
                for lp, lv in lefts
                for rp, rv in rights
                if same_name(last(lp), last(rp)) and not last(lp).isdigit() and _compatible(lv, rv)
            ]
            if len(lefts) * len(rights) <= 2500
            else []
        )
        lefts_hit = [m[0] for m in matches]
        rights_hit = [m[2] for m in matches]
        for lp, lv, rp, rv in matches:
            if (
                lefts_hit.count(lp) == 1
                and rights_hit.count(rp) == 1
                and leftovers.free(0, lp)
                and leftovers.free(1, rp)
            ):
                leftovers.pair(lp, lv, rp, rv, "name")


def _compatible(a, b) -> bool:
    """Tell whether two values could be one field's.

    Both scalars, both the same container, or a known change."""
    containers = isinstance(a, (dict, list)), isinstance(b, (dict, list))
    if containers == (False, False):
        return True
    if type(a) is type(b):
        return True
    change = classify(a, b)
    return change is None or change[0] == "type_changed"


def pair_lists(leftovers, describe=None) -> None:
    """Pair leftover arrays that are members of paired objects, as wholes.

    Their items stay together."""
    _assign(leftovers, _is_list, describe, members_only=True)


def pair_scalars(leftovers, describe=None) -> None:
    """Pair the leftover scalars as one assignment.

    A URL segment its argument's name names first, then the last of each type by elimination."""
    if leftovers.p.segments:
        pair_segments(leftovers)
    _assign(leftovers, _is_scalar, describe)


def pair_segments(leftovers) -> None:
    """Pair an argument with the URL segment its name says holds it.

    The one after its collection's (`calendarId` -> `/calendars/{here}`), when one free argument
    and one free segment match only each other. After equal values: `/repos/{owner}/{repo}`'s
    `repo` names the segment after `repos`, which the owner's value fills."""
    path = leftovers.p.segments
    rights = [
        (rp, rv)
        for rp, rv in leftovers.nodes(1, scalars_only=True)
        if rp.startswith(_PATH) and last(rp).isdigit() and 0 < int(last(rp)) <= len(path)
    ]
    lefts = [(lp, lv) for lp, lv in leftovers.nodes(0, scalars_only=True) if lp] if rights else []
    if not lefts or len(lefts) * len(rights) > 2500:
        return
    matches = [
        (lp, lv, rp, rv)
        for rp, rv in rights
        for lp, lv in lefts
        if names_segment(last(lp), path[int(last(rp)) - 1])
    ]
    lefts_hit = Counter(m[0] for m in matches)
    rights_hit = Counter(m[2] for m in matches)
    for lp, lv, rp, rv in matches:
        if lefts_hit[lp] == 1 and rights_hit[rp] == 1:
            leftovers.pair(lp, lv, rp, rv, "name")


def _assign(leftovers, wanted, describe, members_only=False) -> None:
    lefts = _nodes(leftovers, 0, wanted, describe, members_only)
    # None: more than MAX_ASSIGNED
    if not lefts:
        return
    rights = _nodes(leftovers, 1, wanted, describe, members_only)
    if not rights:
        return
    for left, right, reason, ambiguous in Assignment(lefts, rights).run():
        _pair(leftovers, left, right, reason)
        if ambiguous:
            leftovers.p.ambiguous.add(left.path)
    # no pair is made while these two lists are filtered
    memos = ({}, {})
    lefts = [n for n in lefts if leftovers.free(0, n.path, memos[0])]
    # A header left over is the HTTP client's (a request id): being the last string says nothing
    # of where an argument went, so only a name or a value pairs one (sample_traces/13).
    # A URL path segment every earlier call sent alike is the layer's constant (an API version):
    # being the last text beside an argument the layer consumed says nothing either.
    rights = [
        n
        for n in rights
        if not n.path.startswith(QUIET_ROOTS)
        and n.path not in leftovers.p.constants
        # the layer's own credentials are no argument's place, however alike the values
        and not secret_place(n.path, n.value)
        and leftovers.free(1, n.path, memos[1])
    ]
    for left, right in eliminate(lefts, rights, _PairedTexts(leftovers.p)):
        _pair(leftovers, left, right, "elimination")


class _PairedTexts:
    """The texts of the values paired on each side, read once and only when asked."""

    def __init__(self, pairing):
        self.pairing, self.found = pairing, {}

    def __call__(self, side: int) -> set[str]:
        if side not in self.found:
            self.found[side] = paired_texts(self.pairing, side)
        return self.found[side]


def paired_texts(pairing, side: int) -> set[str]:
    """Return the texts of the id-like scalars already paired on one side.

    Of the first MAX_TEXTS pairs."""
    doc = pairing.left if side == 0 else pairing.right
    out = set()
    for path in list(pairing.pairs if side == 0 else pairing.back)[:MAX_TEXTS]:
        value = resolve(doc, path, None)
        text = str(value) if type(value) in (int, str) else None
        if text is not None and id_like(text):
            out.add(text)
    return out


def _pair(leftovers, left, right, reason) -> None:
    if leftovers.free(0, left.path) and leftovers.free(1, right.path):
        leftovers.pair(left.path, left.value, right.path, right.value, reason)


def _is_list(value) -> bool:
    return isinstance(value, list)


def _is_scalar(value) -> bool:
    return not isinstance(value, (dict, list))


def _nodes(leftovers, side: int, wanted, describe, members_only=False) -> list[Node] | None:
    """Build a Node for every free leftover of the wanted kind.

    Only leftovers that are members of an object. None when there are more than MAX_ASSIGNED:
    `_assign` gives up on so many, and 26,000 leftover booleans build no Node."""
    paired = leftovers.p.pairs if side == 0 else leftovers.p.back
    pinned = leftovers.p.pinned_right if side else leftovers.p.pinned_left
    doc = leftovers.p.left if side == 0 else leftovers.p.right
    # the value first: a pass for lists looks at no key of the scalars
    found = [(path, value) for path, value in leftovers.nodes(side) if wanted(value)]
    if not members_only and len(found) > MAX_ASSIGNED:
        # counted without the cheap tests below: they skip few, and ask them only if it matters
        found = [(path, value) for path, value in found if _assignable(path, side, pinned, doc)]
        if len(found) > MAX_ASSIGNED:
            return None
    out, anchors = [], {}
    for path, value in found:
        key = last(path)
        if not _assignable(path, side, pinned, doc, key):
            continue
        anchor = _anchor(parent(path), paired, anchors) if path else None
        if members_only and anchor != parent(path):
            continue
        if anchor is None:
            region = None
        else:
            region = (anchor, paired[anchor]) if side == 0 else (paired[anchor], anchor)
        text = describe(side, path) if describe else None
        node = Node(
            path, value, region, key, text, side == 1 and leftovers.p.located and in_text(path)
        )
        node.items = _items_between(doc, anchor or "", path)
        out.append(node)
        # _assign gives up on so many: no need to build the rest
        if len(out) > MAX_ASSIGNED:
            return None
    return out


def _assignable(path: str, side: int, pinned: set, doc, key: str | None = None) -> bool:
    """Tell whether a free leftover may join the assignment.

    Not pinned, no list item, not a whole location of the URL."""
    key = last(path) if key is None else key
    if path in pinned or key.isdigit() and _in_list(doc, path):
        return False
    # the URL's segments or its query string as a whole: no argument built them
    return not (side == 1 and path in TEXT_ROOTS)


def _anchor(up: str, paired: dict, memo: dict) -> str | None:
    """Return the nearest paired node from up to the root.

    Memo: one walk per parent, not per node."""
    seen = []
    while up not in memo:
        seen.append(up)
        if up in paired or not up:
            memo[up] = up if up in paired else None
            break
        up = parent(up)
    found = memo[up]
    for path in seen:
        memo[path] = found
    return found


def _items_between(doc, anchor: str, path: str) -> int:
    """Count the list items on the way from anchor down to path's parent."""
    count, up = 0, parent(path)
    while len(up) > len(anchor):
        count += _in_list(doc, up)
        up = parent(up)
    return count


def _in_list(doc, path) -> bool:
    """Tell whether the node at path is an array item.

    Items pair inside their array, not here."""
    return isinstance(resolve(doc, parent(path), None), list)
