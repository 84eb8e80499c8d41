"""Turn a tool's evidence counts into inferred mappings.

Strong, clear pairs only."""

from dataclasses import dataclass

from ..analysis import learnt, meaning
from ..common.pointers import last
from .epochs import ALONE, BOTH, PRIOR, established, plain, several
from .relations import EQUAL

# calls holding both paths before a pair can be inferred
MIN_CALLS = 20
# ... when both names say the same field (`limit`, `query:/limit`; `perPage`, `query:/per_page`):
# the names are evidence too, so fewer calls settle it (an optional argument a model sends in one
# call of five)
MIN_NAMED_CALLS = 5
# share of those calls whose values agree (equal, or one consistent transform)
AGREEMENT = 0.95
# an inferred pair stays until it falls below this, so it does not flap at 95%
KEEP_AGREEMENT = 0.90
# another partner this close makes the best one unclear
RIVAL_AGREEMENT = 0.80
RIVAL_MIN_CALLS = 5
# calls departing from a rival's relation, where the best partner's never departed, that tell the
# two apart
OUTDONE_CALLS = 3
# calls a clamp must show changing a value before it is told from an equal pair's odd call
MIN_BOUND_CALLS = 2
# calls a normalisation must show changing a value before it is told from a bug's few (two of a
# dozen upper-cased are the sample traces' own bug, `"paid"` -> `"PAID"`)
MIN_NORMALISED_CALLS = 5


@dataclass(frozen=True)
class Inferred:
    """One pair with its evidence: `agree` of `both` calls showed `relation`."""

    arguments: str
    request: str
    relation: str
    agree: int
    both: int
    # distinct id-like values the pair's equal calls agreed on (up to MAX_SEEN)
    distinct: int = 0

    @property
    def ratio(self) -> float:
        return self.agree / self.both if self.both else 0.0

    def entry(self) -> dict:
        """Return the contract `mapping` entry the analysis receives.

        Never stored in the contract."""
        return {"arguments": self.arguments, "request": self.request, "inferred": True}

    def evidence(self) -> str:
        """Say the evidence in words: "equal in 448 of 450 calls"."""
        return f"{describe(self.relation)} in {self.agree} of {self.both} calls"

    def as_dict(self) -> dict:
        return {
            "arguments": self.arguments,
            "request": self.request,
            "relation": self.relation,
            "agree": self.agree,
            "both": self.both,
            "evidence": self.evidence(),
        }


def describe(relation: str) -> str:
    """Name a relation for people."""
    return {
        EQUAL: "equal",
        "type_changed": "same value, other type",
        "enum_changed": "same value, other case",
        "format_changed": "same value, other format",
    }.get(relation) or learnt.describe(relation)


def strongest(pair, counts: dict) -> Inferred:
    """Return a pair's best relation with its counts."""
    counts = plain(counts)
    relations = [
        (agreeing(name, n, counts), name)
        for name, n in counts.items()
        if name != BOTH and _named(name, n, counts)
    ]
    if any(name.startswith(learnt.JOINED) for _, name in relations):
        # the rule is the items' own: it names the join with it, never a rival of it
        relations = _joins_with_items(relations, counts)
    else:
        normalised = _normalisation(counts)
        if normalised:
            relations.append(normalised)
    # a table: the same input always gave the same output
    table = learnt.best_table(counts, counts.get(EQUAL, 0))[0]
    if table:
        relations.append((table, learnt.LOOKED_UP))
    # equal wins a tie: a transform is only named when the values really differ
    n, name = max(relations, key=lambda item: (item[0], item[1] == EQUAL), default=(0, EQUAL))
    distinct = sum(1 for key, k in counts.items() if key.startswith(learnt.SEEN) and k > 0)
    return Inferred(pair[0], pair[1], name, n, counts.get(BOTH, 0), distinct)


def _normalisation(counts: dict) -> tuple[int, str] | None:
    """Return (calls agreeing, name) of the normalisation a pair's changed calls show.

    The one rule they all show: a text put in one case, its separators written one way. It leaves
    the texts already in that form as they are, so the calls that sent such a text agree with it;
    one that sent a text it would change (`paid` where other calls sent `PAID`) does not. None
    when the changed calls show no one rule, or fewer than MIN_NORMALISED_CALLS."""
    found = learnt.merged_normalisation(counts)
    if not found or found[1] < MIN_NORMALISED_CALLS:
        return None
    name, changed = found
    kept = sum(
        n
        for key, n in counts.items()
        if key.startswith(learnt.FORM) and n > 0 and learnt.normalised_keeps(name, key)
    )
    # every call changed: the case change it always was (`enum_changed`), named as before
    return (changed + kept, name) if kept else None


def _joins_with_items(relations: list, counts: dict) -> list:
    """Return the relations with each join named with the rule its items showed.

    The one rule the calls that changed an item all show (MIN_NORMALISED_CALLS at least): `1-2`
    joined as `1:2`. A call that sent an item the rule would change does not agree with it; with
    no one rule, no call that changed an item does."""
    found = learnt.merged_normalisation(counts)
    if not found or found[1] < MIN_NORMALISED_CALLS:
        changed = sum(n for key, n in counts.items() if key.startswith(learnt.NORMALISED) and n > 0)
        return [
            (max(0, n - changed), name) if name.startswith(learnt.JOINED) else (n, name)
            for n, name in relations
        ]
    rule = found[0]
    against = sum(
        n
        for key, n in counts.items()
        if key.startswith(learnt.FORM) and n > 0 and not learnt.normalised_keeps(rule, key)
    )
    return [
        (max(0, n - against), learnt.join_name(learnt.join_parts(name)[0], rule))
        if name.startswith(learnt.JOINED)
        else (n, name)
        for n, name in relations
    ]


def agreeing(name: str, n: int, counts: dict) -> int:
    """Return the calls that agree with a relation.

    Its own, and those a function shows as no change."""
    # a one-item list sent as its item ("type_changed") agrees with whatever join the longer lists
    # show, a one-part text with whatever split
    if name.startswith(("joined ", "split ")):
        return n + counts.get("type_changed", 0)
    # a clamp leaves the values inside its bound as they are
    if learnt.is_bound(name):
        return n + _kept(counts)
    return n


def _kept(counts: dict) -> int:
    """Return the calls that sent the value as it is (as text, in a URL or a form)."""
    return counts.get(EQUAL, 0) + counts.get("type_changed", 0)


def _named(name: str, n: int, counts: dict) -> bool:
    """Tell whether a relation is one to name.

    A clamp shows values changed at its bound in a few calls and kept in more (else it is a
    constant)."""
    if name.startswith(learnt.COUNTED_APART):
        return False
    return not learnt.is_bound(name) or (
        MIN_BOUND_CALLS <= n <= _kept(counts) and learnt.bound_holds(name, counts)
    )


def infer(evidence: dict, rejected=(), declared=(), previous=(), releases=None) -> list[Inferred]:
    """Return the inferred pairs.

    >= MIN_CALLS, >= AGREEMENT, and one clear partner on both sides.

    `evidence` is {(argument path, request path): counts}; `rejected` and `declared` pairs (and the
    paths a declared pair uses) are left out; `previous` pairs keep their place down to
    KEEP_AGREEMENT. Once the tool's calls come from several `releases` ({"newest", "seen"}), the
    newest release is weighed apart: pairs are judged, and rivals found, on the earlier releases'
    calls.
    """
    rejected, previous = set(rejected), set(previous)
    used_left = {a for a, _ in declared}
    used_right = {r for _, r in declared}
    apart = several(releases)
    pairs = [(pair, counts) for pair, counts in evidence.items() if pair not in rejected]
    scored = [strongest(pair, counts) for pair, counts in pairs]
    settled = [strongest(pair, established(counts)) for pair, counts in pairs] if apart else scored
    strong = [
        (s, e)
        for s, e in zip(scored, settled)
        if s.arguments not in used_left
        and s.request not in used_right
        and _holds(s, e, (s.arguments, s.request) in previous, apart)
    ]
    rivals = [s for s in settled if _a_rival(s)]
    alone = _alone(pairs, apart)
    chosen = []
    for s, e in strong:
        if any(_rivals(s, o, alone) and not _outdone(e, o) for o in rivals):
            continue
        chosen.append(s)
    return sorted(chosen, key=lambda s: (s.arguments, s.request))


def _alone(pairs, apart: bool) -> set:
    """Return the pairs whose argument never came with another partner of its field.

    Every call counted since the pair began was alone (the calls counted before it began, and
    before such calls were counted, tell nothing). Judged on the releases before the newest when
    `apart`."""
    out = set()
    for pair, counts in pairs:
        judged = established(counts) if apart else counts
        since = judged.get(BOTH, 0) - judged.get(PRIOR, 0)
        if since > 0 and judged.get(ALONE, 0) >= since:
            out.add(pair)
    return out


def _rivals(s: Inferred, o: Inferred, alone: set) -> bool:
    """Tell whether `o` is another partner of one of `s`'s fields (`s` is unclear).

    Two arguments of one request field never given together are alternatives (an id, or a URL
    holding it), each the field's partner in the calls that give it."""
    if (o.arguments, o.request) == (s.arguments, s.request):
        return False
    if o.request == s.request:
        return not {(s.arguments, s.request), (o.arguments, o.request)} <= alone
    return o.arguments == s.arguments


def _outdone(s: Inferred, o: Inferred) -> bool:
    """Tell whether another partner of `s`'s field is no rival: calls contradicted it.

    `s` agreed in every call that held it, `o` departed from its relation in OUTDONE_CALLS calls or
    more and too many to be inferred itself (a line's total is its unit price only when one is
    bought: the price field's partner is the argument that always agreed)."""
    return s.agree == s.both and o.both - o.agree >= OUTDONE_CALLS and o.ratio < AGREEMENT


def alternatives(evidence: dict, pairs, releases=None) -> dict:
    """Return {pair: other arguments} of inferred pairs that have alternatives.

    The arguments never given with the pair's own that agree with its request field as a rival
    would (webapp/inference/decide.py `infer`): a call holding one of them and not the pair's own
    argument sends the field from it, and the pair's entry must not pin the field."""
    apart = several(releases)
    every = list(evidence.items())
    alone = _alone(every, apart)
    judged = established if apart else plain
    out: dict = {}
    for a, r in map(tuple, pairs):
        if (a, r) not in alone:
            continue
        found = [
            o
            for (o, field), counts in every
            if field == r
            and o != a
            and (o, field) in alone
            and _a_rival(strongest((o, field), judged(counts)))
        ]
        if found:
            out[(a, r)] = sorted(found)
    return out


def _a_rival(pair: Inferred) -> bool:
    return pair.both >= RIVAL_MIN_CALLS and pair.ratio >= RIVAL_AGREEMENT


def _holds(every: Inferred, earlier: Inferred, kept: bool, apart: bool) -> bool:
    """Tell whether a pair's evidence makes it inferred.

    Over every call, or over the releases before the newest once there are several (what the newest
    release shows neither teaches nor unseats a pair)."""
    judged = earlier if apart else every
    return judged.both >= min_calls(every) and judged.ratio >= (
        KEEP_AGREEMENT if kept else AGREEMENT
    )


def min_calls(pair: Inferred) -> int:
    """Return the calls a pair needs.

    Fewer when both its names mean the same field, or its values are ids that differ call to call.
    """
    a, r = last(pair.arguments), last(pair.request)
    # the same template around every call's own value is evidence as strong as a name, and so
    # are distinct ids equal in the same place call after call (no chance makes five agree)
    named = (
        a == r
        or (meaning(a) and meaning(a) == meaning(r))
        or _templated(pair.relation)
        or pair.relation.startswith(learnt.NORMALISED)
        or (pair.relation == EQUAL and pair.distinct >= MIN_NAMED_CALLS)
    )
    return MIN_NAMED_CALLS if named else MIN_CALLS


def _templated(relation: str) -> bool:
    return relation.startswith(learnt.WRAPPED) and relation != learnt.WRAPPED + '["", ""]'


def candidates(evidence: dict, rejected=(), exclude=(), limit: int = 10) -> list[Inferred]:
    """Return the likeliest pairs not (yet) inferred, for people to confirm early."""
    exclude, rejected = set(exclude), set(rejected)
    scored = [
        strongest(pair, counts)
        for pair, counts in evidence.items()
        if pair not in rejected and pair not in exclude
    ]
    likely = [s for s in scored if _a_rival(s)]
    return sorted(likely, key=lambda s: (-s.ratio, -s.both, s.arguments))[:limit]
