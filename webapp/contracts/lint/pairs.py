"""Pair the tool's arguments with the request's fields.

As the mapping layer would send them.

Level by level from the roots, as the analysis pairs a call's documents: a declared mapping entry
first (wherever its two ends sit), then the same key, the same key in another case style
(`totalCents`, `total_cents`), a key of the same meaning (`qty`, `quantity`), and last the closest
name left (`limit`, `page_size`), or one a field's description mentions. The arguments may also
travel wrapped in one body object (`{"data": {...}}`)."""

from collections import Counter

from ...analysis import meaning, mentions, name_score, norm_key
from .fields import Field
from .schemas import description

# below it two names are not evidence enough that they are one field
MIN_NAME_SCORE = 0.5
# the score of a key that the other field's description mentions
DESCRIBED = 0.6


class Pairs:
    """The pairs found.

    Argument pointer -> (request field, how), and the reverse."""

    def __init__(
        self, arguments: Field, request: Field, declared: dict[str, tuple], consumed=frozenset()
    ):
        self.arguments, self.request = arguments, request
        # argument pointers the mapping layer uses itself: paired with nothing
        self.consumed = consumed
        self.left = {f.pointer: f for f in arguments.walk()}
        self.right = {f.pointer: f for f in request.walk()}
        self.pairs: dict[str, tuple[Field, str]] = {}
        self.back: dict[str, Field] = {}
        self.transforms: dict[str, str] = {}
        self.walked: set[str] = set()
        # (argument, another request field it fills)
        self.also: list[tuple[Field, Field]] = []
        self._filled: set[str] | None = None
        for lp, (rp, transform) in declared.items():
            if lp in self.left and rp in self.right and rp not in self.back:
                self._pair(self.left[lp], self.right[rp], "declared")
                if transform:
                    self.transforms[lp] = transform
        self._level(arguments, request, root=True)
        for pointer, (found, how) in list(self.pairs.items()):
            # a declared pair whose level the walk from the roots never reached
            if how == "declared":
                self._level(self.left[pointer], found)

    def _pair(self, left: Field, right: Field, how: str) -> None:
        self.pairs[left.pointer], self.back[right.pointer] = (right, how), left
        self._filled = None

    def _also(self, left: Field, right: Field) -> None:
        """Note a second request field one argument fills (the same name in another place)."""
        self.also.append((left, right))
        self.back[right.pointer] = left
        self._filled = None

    def _level(self, left: Field, right: Field, root: bool = False) -> None:
        """Pair the fields of two paired objects, then below each pair.

        Or the items of two arrays."""
        if left.pointer in self.walked:
            return
        self.walked.add(left.pointer)
        lefts = [
            f
            for f in left.children.values()
            if f.pointer not in self.pairs and f.pointer not in self.consumed
        ]
        rights = [f for f in right.children.values() if f.pointer not in self.back]
        if "*" in left.children and "*" in right.children:
            lefts, rights = [f for f in lefts if f.key != "*"], [f for f in rights if f.key != "*"]
            if (
                left.children["*"].pointer not in self.pairs
                and right.children["*"].pointer not in self.back
            ):
                self._pair(left.children["*"], right.children["*"], "item")
        for how, keyer in STRATEGIES:
            _unique(
                lefts, rights, keyer, lambda lf, rf, how=how: self._pair(lf, rf, how), self._also
            )
            lefts = [f for f in lefts if f.pointer not in self.pairs]
            rights = [f for f in rights if f.pointer not in self.back]
        if root and lefts:
            wrapper = _wrapper(lefts, rights)
            if wrapper is not None:
                self._pair_wrapped(lefts, wrapper)
                lefts = [f for f in lefts if f.pointer not in self.pairs]
                rights = [f for f in rights if f.pointer not in self.back and not self.filled(f)]
        _closest(lefts, rights, lambda lf, rf: self._pair(lf, rf, "name"))
        for child in left.children.values():
            if child.pointer in self.pairs:
                self._level(child, self.pairs[child.pointer][0])

    def _pair_wrapped(self, lefts: list[Field], wrapper: Field) -> None:
        inside = [f for f in wrapper.children.values() if f.pointer not in self.back]
        for how, keyer in (("moved", _key), *STRATEGIES[1:]):
            _unique(lefts, inside, keyer, lambda lf, rf, how=how: self._pair(lf, rf, how))
            lefts = [f for f in lefts if f.pointer not in self.pairs]
            inside = [f for f in inside if f.pointer not in self.back]

    def filled(self, field: Field) -> bool:
        """Tell whether a request field, or a field below it, is paired with an argument."""
        if self._filled is None:
            self._filled = {up for pointer in self.back for up in _upwards(pointer)}
        return field.pointer in self._filled


def _key(field: Field):
    return field.key


def _style(field: Field):
    return norm_key(field.key)


def _meaning(field: Field):
    # a key of filler words only means nothing to pair by
    return meaning(field.key) or None


STRATEGIES = (("same", _key), ("case_style", _style), ("name", _meaning))


# where one name in several places goes first
_PLACES = {"path": 0, "query": 1, "body": 2, "form": 3, "header": 4}


def _unique(lefts: list[Field], rights: list[Field], keyer, pair, also=None) -> None:
    """Pair each left with the one right of its key (by `keyer`).

    When no other left has it; a key in several places of the request (a path parameter and a body
    field both `rule_id`) pairs with each, the required one or the path first, through `also`."""
    buckets: dict = {}
    for side, fields in enumerate((lefts, rights)):
        for f in fields:
            key = keyer(f)
            if key is not None:
                buckets.setdefault(key, ([], []))[side].append(f)
    for found_left, found_right in buckets.values():
        if len(found_left) != 1 or not found_right:
            continue
        places = {f.location for f in found_right}
        if len(found_right) > 1 and (also is None or len(places) < len(found_right)):
            # two fields of one name in one place: no telling which
            continue
        first, *others = sorted(
            found_right, key=lambda f: (not f.required, _PLACES.get(f.location, 5))
        )
        pair(found_left[0], first)
        for other in others:
            also(found_left[0], other)


def _score(left: Field, right: Field) -> float:
    score = name_score(left.key, right.key)
    if mentions(description(right.schema), left.key) or mentions(
        description(left.schema), right.key
    ):
        score = max(score, DESCRIBED)
    return score


def _closest(lefts: list[Field], rights: list[Field], pair) -> None:
    """Pair what is left by name score.

    Two fields each the other's one best choice, above the floor."""
    if not lefts or not rights or len(lefts) * len(rights) > 10_000:
        return
    scored = [(_score(lf, rf), i, j) for i, lf in enumerate(lefts) for j, rf in enumerate(rights)]
    best_left, best_right = {}, {}
    for score, i, j in scored:
        best_left[i] = max(best_left.get(i, 0.0), score)
        best_right[j] = max(best_right.get(j, 0.0), score)
    ties_left = Counter(i for score, i, _ in scored if score == best_left[i])
    ties_right = Counter(j for score, _, j in scored if score == best_right[j])
    for score, i, j in scored:
        if (
            score >= MIN_NAME_SCORE
            and score == best_left[i] == best_right[j]
            and ties_left[i] == ties_right[j] == 1
        ):
            pair(lefts[i], rights[j])


def _wrapper(lefts: list[Field], rights: list[Field]) -> Field | None:
    """Return the body object that holds the arguments (`{"data": {...}}`).

    When one holds most of them."""
    styles, meanings = {_style(f) for f in lefts}, {_meaning(f) for f in lefts} - {None}
    best, score = None, 0
    for right in rights:
        if right.location != "body" or not right.children or "*" in right.children:
            continue
        shared = sum(
            _style(f) in styles or _meaning(f) in meanings for f in right.children.values()
        )
        if shared > score:
            best, score = right, shared
    return best if score >= 2 and score * 2 >= len(lefts) else None


def _upwards(pointer: str):
    """Yield a request field's pointer and its ancestors'.

    A parameter's ends at `query:/name`."""
    while pointer and not pointer.endswith(":"):
        yield pointer
        pointer = pointer[: pointer.rfind("/")]
