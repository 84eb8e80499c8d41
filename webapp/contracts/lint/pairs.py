"""Pair the tool's arguments with the request's fields, as the mapping layer would send them.

Level by level from the roots, as the analysis pairs a call's documents: a declared mapping entry first (wherever
its two ends sit), then the same key, the same key in another case style (`totalCents`, `total_cents`), a key
of the same meaning (`qty`, `quantity`), and last the closest name left (`limit`, `page_size`), or one a
field's description mentions. The arguments may also travel wrapped in one body object (`{"data": {...}}`)."""

from collections import Counter

from ...analysis.names import mentions, name_score, same_name
from ...analysis.values import norm_key
from .fields import Field
from .schemas import description

MIN_NAME_SCORE = 0.5  # below it two names are not evidence enough that they are one field
DESCRIBED = 0.6  # the score of a key that the other field's description mentions


class Pairs:
    """The pairs found: argument pointer -> (request field, how), and the reverse."""

    def __init__(self, arguments: Field, request: Field, declared: dict[str, tuple], consumed=frozenset()):
        self.arguments, self.request = arguments, request
        self.consumed = consumed  # argument pointers the mapping layer uses itself: paired with nothing
        self.left = {f.pointer: f for f in arguments.walk()}
        self.right = {f.pointer: f for f in request.walk()}
        self.pairs: dict[str, tuple[Field, str]] = {}
        self.back: dict[str, Field] = {}
        self.transforms: dict[str, str] = {}
        self.walked: set[str] = set()
        for lp, (rp, transform) in declared.items():
            if lp in self.left and rp in self.right and rp not in self.back:
                self._pair(self.left[lp], self.right[rp], "declared")
                if transform:
                    self.transforms[lp] = transform
        self._level(arguments, request, root=True)
        for pointer, (found, how) in list(self.pairs.items()):
            if how == "declared":  # a declared pair whose level the walk from the roots never reached
                self._level(self.left[pointer], found)

    def _pair(self, left: Field, right: Field, how: str) -> None:
        self.pairs[left.pointer], self.back[right.pointer] = (right, how), left

    def _level(self, left: Field, right: Field, root: bool = False) -> None:
        """Pair the fields of two paired objects (or the items of two arrays), then below each pair."""
        if left.pointer in self.walked:
            return
        self.walked.add(left.pointer)
        lefts = [f for f in left.children.values() if f.pointer not in self.pairs and f.pointer not in self.consumed]
        rights = [f for f in right.children.values() if f.pointer not in self.back]
        if "*" in left.children and "*" in right.children:
            lefts, rights = [f for f in lefts if f.key != "*"], [f for f in rights if f.key != "*"]
            if left.children["*"].pointer not in self.pairs and right.children["*"].pointer not in self.back:
                self._pair(left.children["*"], right.children["*"], "item")
        for how, same in (("same", _same_key), ("case_style", _same_style), ("name", _same_meaning)):
            _unique(lefts, rights, same, lambda lf, rf, how=how: self._pair(lf, rf, how))
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
        for how, same in (("moved", _same_key), ("case_style", _same_style), ("name", _same_meaning)):
            _unique(lefts, inside, same, lambda lf, rf, how=how: self._pair(lf, rf, how))
            lefts = [f for f in lefts if f.pointer not in self.pairs]
            inside = [f for f in inside if f.pointer not in self.back]

    def filled(self, field: Field) -> bool:
        """Tell whether a request field, or a field below it, is paired with an argument."""
        return any(f.pointer in self.back for f in field.walk())


def _same_key(a: Field, b: Field) -> bool:
    return a.key == b.key


def _same_style(a: Field, b: Field) -> bool:
    return norm_key(a.key) == norm_key(b.key)


def _same_meaning(a: Field, b: Field) -> bool:
    return same_name(a.key, b.key)


def _unique(lefts: list[Field], rights: list[Field], same, pair) -> None:
    """Pair each left with the one right it matches, when that right matches no other left."""
    if len(lefts) * len(rights) > 250_000:
        return
    matches = [(lf, rf) for lf in lefts for rf in rights if same(lf, rf)]
    per_left: dict[str, int] = {}
    per_right: dict[str, int] = {}
    for lf, rf in matches:
        per_left[lf.pointer] = per_left.get(lf.pointer, 0) + 1
        per_right[rf.pointer] = per_right.get(rf.pointer, 0) + 1
    for lf, rf in matches:
        if per_left[lf.pointer] == 1 and per_right[rf.pointer] == 1:
            pair(lf, rf)


def _score(left: Field, right: Field) -> float:
    score = name_score(left.key, right.key)
    if mentions(description(right.schema), left.key) or mentions(description(left.schema), right.key):
        score = max(score, DESCRIBED)
    return score


def _closest(lefts: list[Field], rights: list[Field], pair) -> None:
    """Pair what is left by name score: two fields each the other's one best choice, above the floor."""
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
        if score >= MIN_NAME_SCORE and score == best_left[i] == best_right[j] and ties_left[i] == ties_right[j] == 1:
            pair(lefts[i], rights[j])


def _wrapper(lefts: list[Field], rights: list[Field]) -> Field | None:
    """Return the body object that holds the arguments (`{"data": {...}}`), when one holds most of them."""
    best, score = None, 0
    for right in rights:
        if right.location != "body" or "*" in right.children or len(right.children) * len(lefts) > 10_000:
            continue
        inside = list(right.children.values())
        shared = sum(any(_same_style(lf, rf) or _same_meaning(lf, rf) for rf in inside) for lf in lefts)
        if shared > score:
            best, score = right, shared
    return best if score >= 2 and score * 2 >= len(lefts) else None
