"""Pair the leftover fields of two documents as one assignment problem.

Scored by value, name and place."""

import bisect

from ..values.classify import change_kind, classify
from ..values.json_values import REDACTED, canonical, is_empty, is_number, type_name
from ..values.names import meaning, mentions, name_score
from ..values.readings import read_dates
from ..wire.values import text_class, wire_same
from .solve import solve

# weight of the place among siblings: mapping code tends to write fields in order
PLACE = 1.0
# candidates per source (region, value, name) and left node, nearest by place
NEAR = 48
# scored pairs per assignment, about
BUDGET = 20_000
_TELLING = {"scaled", "type_changed", "format_changed", "enum_changed"}
# the shortest id-like text, and the shortest paired value a composed text is told by
MIN_ID = 6
# the words of the shortest sentence
PROSE_WORDS = 3
# where a URL's path segments lie among a request's fields
PATH_ROOT = "/path:/"


class Node:
    """A leftover field.

    Its path, value, region (the nearest paired ancestors) and place in the region."""

    __slots__ = (
        "path",
        "value",
        "region",
        "rel",
        "key",
        "text",
        "klass",
        "index",
        "vkey",
        "wire",
        "items",
    )

    def __init__(self, path, value, region, key, text=None, wire=False):
        self.path, self.value, self.region, self.key, self.text = path, value, region, key, text
        # A URL's or form's text is any type written out: "5" is of the class of 5 there.
        self.klass, self.rel, self.index = text_class(value) if wire else klass(value), 0.0, 0
        # the value's key, made once by the Assignment that counts and compares it
        self.vkey = None
        # a field outside the body (query, path, header, form): its values are text
        self.wire = wire
        # how many list items lie between its region's anchor and it
        self.items = 0


def klass(value) -> str:
    """Name the class of a value for elimination.

    Boolean, number, string, array, object or null."""
    name = type_name(value)
    return "number" if name == "integer" else name


def trivial(value) -> bool:
    """Tell a value so common that equality alone says little (true, 0, 1, "", null)."""
    return (
        is_empty(value)
        or isinstance(value, bool)
        or value == REDACTED
        or (is_number(value) and abs(value) <= 1)
    )


def _value_key(value):
    if isinstance(value, (dict, list)):
        return None
    try:
        return canonical(value)
    except TypeError:
        return repr(value).encode()


class Assignment:
    """Score candidate pairs between two lists of Nodes; choose the best pairing.

    The pairing is one-to-one."""

    def __init__(self, lefts: list[Node], rights: list[Node]):
        self.lefts, self.rights = lefts, rights
        for side in (lefts, rights):
            _place(side)
            for node in side:
                node.vkey = _value_key(node.value)
        self.counts = (_value_counts(lefts), _value_counts(rights))
        # (left key, right key) -> classify(): leftovers repeat values
        self.changes: dict[tuple, tuple | None] = {}

    def _change(self, left: Node, right: Node):
        """Return classify() of two nodes' values, once per pair of distinct scalar values."""
        if right.wire and wire_same(left.value, right.value):
            # 5 and "5" in a query string are one value
            return None
        pair = (left.vkey, right.vkey)
        # a container: no key tells its value
        if None in pair:
            return classify(left.value, right.value)
        if pair not in self.changes:
            self.changes[pair] = classify(left.value, right.value)
        return self.changes[pair]

    def run(self) -> list[tuple[Node, Node, str, bool]]:
        """Return the chosen (left, right, reason, ambiguous) pairs.

        Ambiguous: equal values that repeat."""
        edges = {}
        for i, j in self._candidates():
            scored = self.score(self.lefts[i], self.rights[j])
            if scored:
                edges[i, j] = scored
        chosen = solve(len(self.lefts), len(self.rights), {k: v[0] for k, v in edges.items()})
        return [
            (
                self.lefts[i],
                self.rights[j],
                edges[i, j][1],
                self._repeated(self.lefts[i], self.rights[j]),
            )
            for i, j in chosen
        ]

    def _repeated(self, left: Node, right: Node) -> bool:
        """Tell an equal pair whose value other leftovers also hold.

        Another pairing gives the same values."""
        return self._change(left, right) is None and not self._unique(left, right)

    def _candidates(self):
        """Yield (i, j) candidate pairs.

        Same region (bounded), equal value or same meaning anywhere."""
        regions, by_value, by_name = {}, {}, {}
        for j, node in enumerate(self.rights):
            regions.setdefault(node.region, []).append(j)
            by_value.setdefault(node.vkey, []).append(j)
            by_name.setdefault(meaning(node.key), []).append(j)
        places = {region: [self.rights[j].rel for j in group] for region, group in regions.items()}
        # A budget of scored pairs keeps a huge object linear: fewer candidates each, never none.
        near = max(1, min(NEAR, BUDGET // (3 * len(self.lefts))))
        for i, node in enumerate(self.lefts):
            seen = set()
            group = regions.get(node.region, [])
            if len(group) > near:
                at = bisect.bisect_left(places[node.region], node.rel)
                group = group[max(0, at - near // 2) : at + near // 2 + 1]
            for candidates in (
                group,
                by_value.get(node.vkey, ())[:near],
                by_name.get(meaning(node.key), ())[:near],
            ):
                for j in candidates:
                    if j not in seen:
                        seen.add(j)
                        yield i, j

    def score(self, left: Node, right: Node) -> tuple[float, str] | None:
        """Score a candidate pair and name its strongest evidence.

        None when it is not plausible."""
        value, relation = self._value_score(left, right)
        same_region = left.region == right.region
        names = 6 * name_score(left.key, right.key) * (1 if same_region else 0.5)
        described = 3 if mentions(left.text, right.key) or mentions(right.text, left.key) else 0
        if not (value or names >= 3 or described):
            return None
        if left.klass != right.klass and relation is None and names < 4:
            return None
        # A type change the value explains (2 and "2") weighs as much as the same type.
        score = (
            value + names + described + (left.klass == right.klass or relation == "type_changed")
        )
        if same_region:
            score += 1 + PLACE * (1 - abs(left.rel - right.rel))
        reason = "value" if value >= max(names, described) else "name"
        return score, reason

    def _value_score(self, left: Node, right: Node) -> tuple[float, str | None]:
        lv, rv = left.value, right.value
        if isinstance(lv, (dict, list)) or isinstance(rv, (dict, list)):
            if isinstance(lv, list) and isinstance(rv, list):
                return 6 * _overlap(lv, rv), None
            return 0.0, None
        # the marker hides its value: only a value hidden alike is no evidence against the pair
        if (lv == REDACTED) != (rv == REDACTED):
            return 0.0, None
        change = self._change(left, right)
        distinct = not trivial(lv) and self._unique(left, right)
        if change is None:
            return 4 + 3 * distinct, "equal"
        # 0 and false under unrelated names: a change between two trivial values is no evidence
        if change[0] in _TELLING and not (trivial(lv) and trivial(rv)):
            return 3 + 2 * distinct, change[0]
        return 0.0, None

    def _unique(self, left: Node, right: Node) -> bool:
        return self.counts[0].get(left.vkey, 0) <= 1 and self.counts[1].get(right.vkey, 0) <= 1


def _overlap(a: list, b: list) -> float:
    """Share of items two lists have in common (0..1), by canonical value."""
    try:
        left, right = {canonical(x) for x in a}, {canonical(x) for x in b}
    except TypeError:
        return 0.0
    union = left | right
    return len(left & right) / len(union) if union else 1.0


def _place(nodes: list[Node]) -> None:
    """Give each node its relative place (0..1) among the nodes of its region."""
    regions = {}
    for node in nodes:
        regions.setdefault(node.region, []).append(node)
    for group in regions.values():
        last = max(len(group) - 1, 1)
        for index, node in enumerate(group):
            node.rel, node.index = index / last, index


def _value_counts(nodes: list[Node]) -> dict:
    counts = {}
    for node in nodes:
        key = node.vkey
        counts[key] = counts.get(key, 0) + 1
    return counts


def eliminate(lefts: list[Node], rights: list[Node], paired_texts=None) -> list[tuple[Node, Node]]:
    """Pair the only free field of a class in a region with its only counterpart.

    The counterpart is the only free field of that class on the other side, as deep in lists: a
    number inside a list's item and one outside that list are not the last of one kind. Two
    small numbers that differ are not paired, nor an id-like text with a text the layer composed
    (`paired_texts(side)`: the texts of the values already paired on a side)."""

    def index(nodes):
        out = {}
        for node in nodes:
            if node.klass != "null":
                out.setdefault((node.region, node.klass, node.items), []).append(node)
        return out

    right_index = index(rights)
    pairs = []
    for key, group in index(lefts).items():
        others = right_index.get(key, ())
        # two small numbers that differ (a flags field's 0, a count's 1): counts, flags and
        # indexes hold them everywhere, so being the last says nothing
        if (
            len(group) == 1
            and len(others) == 1
            and _telling(group[0], others[0])
            and not _composed_and_id(group[0], others[0], paired_texts)
            and not dated_segment(group[0], others[0])
        ):
            pairs.append((group[0], others[0]))
    return pairs


def dated_segment(left: Node, right: Node) -> bool:
    """Tell a URL path segment reading as a date left beside a text not read alike.

    A date in a URL's path is the API's version (`2010-04-01`), which the layer writes: an
    argument that reads as no date (a phone number the layer consumed), or as a moment beside a
    day (a `sent after` filter), is not it changed. A date of its shape, or the same day written
    otherwise, still pairs with it."""
    text, value = right.value, left.value
    if not (right.path.startswith(PATH_ROOT) and isinstance(text, str)):
        return False
    shapes = {timed for _, timed in read_dates(text)}
    if not shapes:
        return False
    if isinstance(value, str) and shapes & {timed for _, timed in read_dates(value)}:
        return False
    return change_kind(value, text) != "format_changed"


def _composed_and_id(left: Node, right: Node, paired_texts) -> bool:
    """Tell a text the layer composed left beside an id-like text it was given.

    A sentence (`Item 123 successfully updated`) or a text holding values paired elsewhere is
    written by the layer, not one field's value changed: being the last two texts of a region
    says nothing of a request id or a UUID left over beside it. Only on the layer's side (the
    right): an argument's name sent as an id is a look-up, which elimination may pair."""
    text = right.value
    if not (isinstance(text, str) and id_like(left.value)):
        return False
    return prose(text) or (paired_texts is not None and holds_any(text, paired_texts(1)))


def prose(value) -> bool:
    """Tell a text of several words (three at least, one with a letter): a sentence."""
    return (
        isinstance(value, str)
        and len(value.split()) >= PROSE_WORDS
        and any(c.isalpha() for c in value)
    )


def id_like(value) -> bool:
    """Tell an id-like text: one token with a digit (`4194357685`, a UUID)."""
    return (
        isinstance(value, str)
        and value != REDACTED
        and len(value) >= MIN_ID
        and not any(c.isspace() for c in value)
        and any(c.isdigit() for c in value)
    )


def holds_any(text: str, values) -> bool:
    """Tell whether a text holds one of some texts standing apart in it.

    No letter or digit glued to it on either side."""
    for value in values:
        at = text.find(value) if value != text else -1
        while at >= 0:
            before = text[at - 1] if at else ""
            after = text[at + len(value) : at + len(value) + 1]
            if not before.isalnum() and not after.isalnum():
                return True
            at = text.find(value, at + 1)
    return False


def _telling(left: Node, right: Node) -> bool:
    """Tell whether being the last of a class is evidence for pairing two nodes.

    Not for two small numbers that differ, nor for the redaction marker and a value it does
    not hide alike (its text says nothing of the hidden value's type)."""
    hidden = (left.value == REDACTED) != (right.value == REDACTED)
    return not (hidden or _small_numbers(left, right))


def _small_numbers(left: Node, right: Node) -> bool:
    values = (left.value, right.value)
    return all(is_number(v) and trivial(v) for v in values) and left.vkey != right.vkey
