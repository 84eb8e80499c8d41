"""The findings rules of fields outside the body.

Text on the wire, joined arguments, quiet client headers."""

from collections import Counter

from ...common.pointers import ancestors, last, resolve, tokens
from ..findings.kinds import end, finding
from ..pairing.leftovers import pinned
from ..values.classify import classify
from ..values.json_values import REDACTED, show
from ..values.names import same_name
from ..wire.locations import body_part, in_text
from ..wire.parameters import parameters, schema_of, separators
from ..wire.request import is_graphql
from ..wire.values import as_text, joined_parts, on_purpose, wire_reading, wire_same

_GRAPHQL_TEXT = ("/query", "/operationName", "/extensions")


def _param(pairing, contract, rp: str):
    """Return the contract's parameter of an internal request path, or None.

    A path such as `/query:/page_size`."""
    if not hasattr(pairing, "params"):
        pairing.params = parameters(contract)
    parts = tokens(rp)
    return pairing.params.get((parts[0][:-1], parts[1])) if len(parts) >= 2 else None


def wire_change(pairing, lp: str, rp: str, lv, rv, contract) -> str | None:
    """Return "" when a changed pair is the same value as the wire writes it.

    A note when the layer made the change on purpose (a one-item list, a date at midnight), None
    when it is a change to report."""
    if in_text(rp):
        param = _param(pairing, contract, rp)
        joins = (pairing.separators[rp],) if rp in pairing.separators else separators(param)
        return "" if wire_same(lv, rv, schema_of(param), joins) else None
    return on_purpose(lv, rv)


def quiet_added(pairing, path: str, contract) -> bool:
    """Tell whether a request field no argument explains is the client's own.

    A header, a path segment no template names, the text of a GraphQL query."""
    if pairing.located and (path.startswith(pairing.quiet_roots) or _redacted_text(pairing, path)):
        return True
    return path in _GRAPHQL_TEXT and is_graphql(
        body_part(pairing.right) if pairing.located else pairing.right
    )


def pair_wire(leftovers, contract) -> None:
    """Pair arguments with fields outside the body by name.

    Then a list's items' field joined into one parameter (a pluck: its items' leaves are no
    arguments of their own), then arguments joined into one parameter."""
    _pair_names(leftovers)
    leftovers.joined_lists(plucks_only=True)
    _pair_joined(leftovers, contract)


def _pair_names(leftovers) -> None:
    """Pair an argument with the one field outside the body of the same meaning.

    A URL, header or form field (`status`, `query:/status`)."""
    rights = [
        (rp, rv)
        for rp, rv in leftovers.nodes(1)
        if in_text(rp) and rp.count("/") >= 2 and not isinstance(rv, dict)
    ]
    lefts = [(lp, lv) for lp, lv in leftovers.nodes(0) if lp and not isinstance(lv, dict)]
    if not rights or len(lefts) * len(rights) > 2500:
        return
    matches = [
        (lp, lv, rp, rv)
        for lp, lv in lefts
        for rp, rv in rights
        if _same_meaning(last(lp), last(rp))
    ]
    if not matches:
        return
    lefts_hit = Counter(m[0] for m in matches)
    rights_hit = Counter(m[2] for m in matches)
    for lp, lv, rp, rv in matches:
        if (
            lefts_hit[lp] == 1
            and rights_hit[rp] == 1
            and leftovers.free(0, lp)
            and leftovers.free(1, rp)
        ):
            leftovers.pair(lp, lv, rp, rv, "name")


def _same_meaning(a: str, b: str) -> bool:
    """Tell two keys of one meaning.

    An index (a list item's, an unnamed URL segment's `1`) is no name."""
    return not a.isdigit() and (a == b or same_name(a, b))


def _pair_joined(leftovers, contract) -> None:
    """Pair arguments joined into one parameter.

    `latitude`, `longitude` -> `latlng=40.7,-73.9`."""
    p = leftovers.p
    lefts = [
        (path, value)
        for path, value in leftovers.nodes(0, scalars_only=True)
        if not isinstance(value, (dict, list))
        and as_text(value)
        and not pinned(path, p.pinned_left)
    ]
    if len(lefts) < 2:
        return
    for rp, rv in list(leftovers.nodes(1, scalars_only=True)):
        if not (in_text(rp) and isinstance(rv, str)):
            continue
        parts = joined_parts(rv, separators(_param(p, contract, rp)))
        matched = (
            _match_parts(parts, [(lp, lv) for lp, lv in lefts if lp not in p.pairs])
            if parts
            else None
        )
        if not matched:
            continue
        for lp, lv in matched:
            p.pairs[lp], p.how[lp], p.values[lp] = rp, "value", (lv, rv)
            p.whole.add(lp)
            p.joined[lp] = [q for q, _ in matched if q != lp]
            leftovers.touched[0].update(ancestors(lp))
        p.back[rp] = matched[0][0]
        leftovers.touched[1].update(ancestors(rp))


def _match_parts(parts: list[str], lefts: list[tuple]) -> list[tuple] | None:
    """Return one distinct argument per part, each equal to it as text, or None."""
    found, used = [], set()
    for part in parts:
        hit = next(((lp, lv) for lp, lv in lefts if lp not in used and wire_same(lv, part)), None)
        if hit is None:
            return None
        used.add(hit[0])
        found.append(hit)
    return found


def _redacted_text(pairing, path: str) -> bool:
    """Tell whether a field outside the body was redacted (`?key=AIza...`).

    A credential, never an argument."""
    return in_text(path) and resolve(pairing.right, path, None) == REDACTED


def changed_copy(pairing, lp: str, rp: str, lv, rv) -> dict | None:
    """Return the finding of a scalar argument sent twice with its copies disagreeing.

    A query key or form field the layer sends more than once (its own query string, then the
    client appending the same params) with one copy the argument as the wire writes it and
    another changed: which copy the server reads is its own choice. None for any other pair."""
    if rp not in pairing.repeated or not isinstance(rv, list) or isinstance(lv, (dict, list)):
        return None
    if not any(wire_same(lv, copy) for copy in rv):
        return None
    changed = next((copy for copy in rv if not wire_same(lv, copy)), None)
    if changed is None:
        return None
    read = wire_reading(lv, changed)
    kind = (classify(lv, read) or ("value_changed", ""))[0]
    label = lp[1:] if last(lp) == last(rp) else f"{lp[1:]} -> {rp[1:]}"
    text = (
        f"{label}: sent {len(rv)} times, one copy {show(changed)} where the argument is "
        f"{show(lv)} (which copy the server reads is its own choice)"
    )
    return finding(kind, "warning", end("arguments", lp), end("request", rp), lv, rv, text)
