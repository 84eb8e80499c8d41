"""Turn a tool's evidence counts into inferred mappings.

Strong, clear pairs only."""

from dataclasses import dataclass

from ..analysis import meaning
from ..common.pointers import last
from .epochs import BOTH, established, plain, several
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


@dataclass(frozen=True)
class Inferred:
    """One pair with its evidence: `agree` of `both` calls showed `relation`."""

    arguments: str
    request: str
    relation: str
    agree: int
    both: int

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
    }.get(relation, relation)


def strongest(pair, counts: dict) -> Inferred:
    """Return a pair's best relation with its counts."""
    counts = plain(counts)
    # a one-item list sent as its item ("type_changed") agrees with whatever join the longer lists
    # show
    single = counts.get("type_changed", 0)
    relations = [
        (n + single if name.startswith("joined ") else n, name)
        for name, n in counts.items()
        if name != BOTH
    ]
    # equal wins a tie: a transform is only named when the values really differ
    n, name = max(relations, key=lambda item: (item[0], item[1] == EQUAL), default=(0, EQUAL))
    return Inferred(pair[0], pair[1], name, n, counts.get(BOTH, 0))


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
        s
        for s, e in zip(scored, settled)
        if s.arguments not in used_left
        and s.request not in used_right
        and _holds(s, e, (s.arguments, s.request) in previous, apart)
    ]
    rivals = [s for s in settled if s.both >= RIVAL_MIN_CALLS and s.ratio >= RIVAL_AGREEMENT]
    chosen = []
    for s in strong:
        if any(
            o.arguments != s.arguments or o.request != s.request
            for o in rivals
            if o.arguments == s.arguments or o.request == s.request
        ):
            continue
        chosen.append(s)
    return sorted(chosen, key=lambda s: (s.arguments, s.request))


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

    Fewer when both its names mean the same field."""
    a, r = last(pair.arguments), last(pair.request)
    return MIN_NAMED_CALLS if a == r or (meaning(a) and meaning(a) == meaning(r)) else MIN_CALLS


def candidates(evidence: dict, rejected=(), exclude=(), limit: int = 10) -> list[Inferred]:
    """Return the likeliest pairs not (yet) inferred, for people to confirm early."""
    exclude, rejected = set(exclude), set(rejected)
    scored = [
        strongest(pair, counts)
        for pair, counts in evidence.items()
        if pair not in rejected and pair not in exclude
    ]
    likely = [s for s in scored if s.both >= RIVAL_MIN_CALLS and s.ratio >= RIVAL_AGREEMENT]
    return sorted(likely, key=lambda s: (-s.ratio, -s.both, s.arguments))[:limit]
