"""The contract a tool's calls are analysed under.

The stored one plus the pairs inference learnt (pure).

The pipeline analyses with it and the problems record its digest, which leaves out what inference
added (webapp/problems/grouping.py `contract_digest`): a resolve "when the contract changes" waits
for a person's change.
"""

from ..analysis import is_located_path, learnt
from ..common.pointers import is_pointer
from .decide import strongest
from .epochs import established, plain, several
from .relations import EQUAL, separator_of


def declared_pairs(contract: dict | None) -> list[tuple[str, str]]:
    """Return the contract's (arguments, request) pairs."""
    return [
        (m["arguments"], m["request"])
        for m in (contract or {}).get("mapping") or ()
        if isinstance(m, dict) and is_pointer(m.get("arguments")) and is_pointer(m.get("request"))
    ]


def with_inferred(
    contract: dict | None,
    pairs,
    separators: dict | None = None,
    consumed=(),
    relations=None,
    alternatives=None,
) -> dict | None:
    """Return the contract the analysis gets.

    The stored one plus the inferred pairs as mapping entries.

    `separators` ({pair: "|"}) are the joins the tool's traffic showed for lists sent as one
    parameter; `relations` ({pair: {"relation": name[, "table"]}}, `learnt_relations`) the value
    relations it showed (webapp/analysis/values/learnt.py); `consumed` the arguments it never sent,
    added to the contract's `consumed` (and named apart in `consumed_inferred`, so a finding can
    say it was learnt); `alternatives` ({pair: [argument, ...]}, decide.alternatives) the
    arguments never given with a pair's own that send its request field in the calls holding them.
    """
    contract = _with_consumed(contract, consumed)
    declared = declared_pairs(contract)
    left, right = {a for a, _ in declared}, {r for _, r in declared}
    separators, relations = separators or {}, relations or {}
    alternatives = alternatives or {}
    extra = [
        {
            "arguments": a,
            "request": r,
            "inferred": True,
            **({"separator": separators[(a, r)]} if (a, r) in separators else {}),
            **relations.get((a, r), {}),
            **({"alternatives": alternatives[(a, r)]} if (a, r) in alternatives else {}),
        }
        for a, r in pairs
        if a not in left and r not in right
    ]
    if not extra:
        return contract
    contract = dict(contract or {})
    contract["mapping"] = [*(contract.get("mapping") or []), *extra]
    return contract


def _with_consumed(contract: dict | None, consumed) -> dict | None:
    """Return the contract with the learnt consumed arguments added.

    Those that no declared pair sends."""
    mapped = {a for a, _ in declared_pairs(contract)}
    stated = set((contract or {}).get("consumed") or ())
    extra = [p for p in consumed if p not in mapped and p not in stated]
    if not extra:
        return contract
    contract = dict(contract or {})
    return {
        **contract,
        "consumed": [*(contract.get("consumed") or []), *extra],
        "consumed_inferred": extra,
    }


def learnt_separators(evidence: dict, pairs) -> dict:
    """Return {pair: separator} of inferred pairs whose traffic joins a list.

    Joined into one text (`a|b`)."""
    out = {}
    for pair in pairs:
        counts = evidence.get(tuple(pair))
        sep = separator_of(strongest(tuple(pair), counts).relation) if counts else None
        if sep:
            out[tuple(pair)] = sep
    return out


# the kinds of change a pair may show every call (the same value in another case or format)
KIND_RELATIONS = ("enum_changed", "format_changed")
# the share of a pair's type changes one conversion (`typed number>string`) must show to be the
# pair's: a field sent as text whatever the argument's type is no one conversion
TYPED_SHARE = 0.9


def learnt_relations(evidence: dict, pairs, releases=None) -> dict:
    """Return the value relations other than equal the inferred pairs' traffic shows.

    {pair: {"relation": name}}: a template, a join, a split, a clamp, a change of case or format,
    a conversion to another type (`typed number>string`); a value looked up adds its `table`
    ({input digest: output digest}). Judged on the releases before the newest once there are
    several: what only the newest release shows is a change to report, never the relation."""
    judged = established if several(releases) else plain
    out = {}
    for pair in pairs:
        counts = judged(evidence.get(tuple(pair)) or {})
        name = strongest(tuple(pair), counts).relation if counts else None
        if name == "type_changed":
            name = _conversion(counts, pair[1])
        if name == learnt.LOOKED_UP:
            _, table, folded = learnt.best_table(counts, counts.get(EQUAL, 0))
            out[tuple(pair)] = {
                "relation": name,
                "table": table,
                **({"folded": True} if folded else {}),
            }
        elif name and (learnt.is_function(name) or learnt.is_typed(name) or name in KIND_RELATIONS):
            out[tuple(pair)] = {"relation": name}
    return out


def _conversion(counts: dict, request: str) -> str | None:
    """Return the one conversion a pair's type changes show (`typed ...`), or None.

    None outside the body too: a URL, a header or a form holds text whatever the argument's type,
    so a value sent as text there is the wire's doing, never the layer's conversion to learn."""
    if is_located_path(request):
        return None
    typed = [(n, key) for key, n in counts.items() if learnt.is_typed(key) and n > 0]
    if not typed:
        return None
    n, key = max(typed)
    return key if n >= TYPED_SHARE * counts.get("type_changed", 0) else None
