"""Findings of the mapping layer.

How each argument reached the request, or did not."""

from ...common.pointers import child, is_pointer, last, parent, resolve, tokens
from ..budget import tick
from ..findings.kinds import end, finding
from ..pairing.leftovers import Leftovers, remaining
from ..pairing.plucks import declare_plucks
from ..pairing.walk import Pairing
from ..schemas.declared import declares
from ..values import learnt
from ..values.classify import change_kind, classify
from ..values.json_values import is_container, is_number, key_style, norm_key, show
from ..values.learnt import digest
from ..values.readings import same_local_time
from ..values.transforms import shared_transform, transform_of
from ..wire.locations import TEXT_ROOTS, body_part, in_text, internal, is_request_path
from ..wire.request import TEXT_SCALARS, graphql_variable_types, is_graphql
from ..wire.values import wire_reading
from .arrays import fold_arrays, plain
from .conversions import unconverted
from .dropped import Seen, absent_argument, route_selectors, said_to_travel
from .expected import describer, explain
from .held_whole import READ_OUT, held_whole, read_out
from .held_whole import SETTLES as HELD_WHOLE
from .kept import KEPT
from .learnt import learnt_change, learnt_departures, unconverted_default
from .outside_body import changed_copy, pair_wire, quiet_added, wire_change
from .undecided import (
    LOCAL_TIME,
    argument_schemas,
    clamped,
    dated,
    looked_up,
    normalised_id,
    numbers_as_text,
    plucked_join,
    reshaped,
    timed,
)

_REPAIRED = ("case", "value", "loose", "shape", "name", "elimination")
COLLAPSE_AT = 3


def name(path: str) -> str:
    """Name a field in a message by its path without the leading slash."""
    return path[1:] if path else "(document)"


def pair_arguments(
    arguments,
    request,
    mapping,
    contract=None,
    located: bool = False,
    http_method=None,
    kept: frozenset = frozenset(),
    segments: tuple = (),
) -> Pairing:
    """Pair every argument with its counterpart in the request.

    Its body, and its URL and headers under the location keys of `locations` when `located`. An
    operation selector the HTTP method carries out (rules/dropped.py) and an argument the layer
    kept for itself (`kept`, rules/kept.py) pair with nothing. `segments` are the URL path's, the
    literal ones included (`calendars`), which name the segment after them."""
    pairing = Pairing(arguments, request)
    pairing.kept, pairing.segments = kept, segments
    pairing.located = located
    pairing.http_method = http_method
    entries = []
    for m in each_item(mapping, arguments):
        if (
            isinstance(m, dict)
            and is_pointer(m.get("arguments"))
            and is_request_path(m.get("request"))
        ):
            entries.append(
                (
                    m["arguments"],
                    internal(m["request"]),
                    "inferred" if m.get("inferred") is True else "declared",
                )
            )
            if isinstance(m.get("transform"), str):
                pairing.transforms[m["arguments"]] = m["transform"]
            # learnt from the tool's traffic: `a|b`, never `a,b`
            if isinstance(m.get("separator"), str):
                pairing.separators[internal(m["request"])] = m["separator"]
            # learnt too: a template, a join, a clamp, a case every earlier call showed
            if m.get("inferred") is True and isinstance(m.get("relation"), str):
                pairing.relations[m["arguments"]] = m["relation"]
                if isinstance(m.get("table"), dict):
                    pairing.tables[m["arguments"]] = m["table"]
                    if m.get("folded") is True:
                        pairing.folded.add(m["arguments"])
                if isinstance(m.get("alternatives"), list):
                    pairing.alternatives[m["arguments"]] = m["alternatives"]
    pairing.declare(declare_plucks(pairing, entries))
    pairing.constants = constant_segments(request, contract) if located else set()
    # never on the wire: pair them with nothing
    consumed = consumed_paths(contract)
    pairing.pinned_left |= (
        consumed
        | items_matching(consumed, arguments)
        | route_selectors(arguments, contract, http_method)
        | kept
    )
    wrapper = _wrapper(arguments, body_part(request) if located else request)
    if wrapper is None:
        pairing.walk("", arguments, "", request, "same")
    else:
        inner, path, outside = request, "", []
        for key in wrapper:
            outside += [(child(path, k), v, None) for k, v in inner.items() if k != key]
            inner, path = inner[key], child(path, key)
        pairing.walk("", arguments, path, inner, "shape")
        pairing.orphans_right += outside
    pairing.leftovers = Leftovers(pairing, describer(contract))
    if located:
        pair_wire(pairing.leftovers, contract)
    pairing.leftovers.run()
    return pairing


def constant_segments(request, contract) -> set[str]:
    """Return the internal paths of the URL path segments learnt constant.

    Those holding this call the one text every earlier call sent (`contract`'s
    `constant_segments_inferred`, {segment: its text's number, a digest's first 5 hex digits});
    a segment holding another text varies now."""
    learnt_texts = (contract or {}).get("constant_segments_inferred")
    if not isinstance(learnt_texts, dict):
        return set()
    out = set()
    for path, text in learnt_texts.items():
        at = internal(path) if isinstance(path, str) else None
        value = resolve(request, at, None) if at and at.startswith("/path:/") else None
        number = digest(value) if value is not None else None
        if number is not None and int(number[:5], 16) == text:
            out.add(at)
    return out


# a list item, whichever it is, in a pair inference learnt item by item (`/items/*/cost`)
ITEM = "*"


def each_item(mapping, arguments) -> list:
    """Return the mapping with each item pair written out for the items the call holds.

    An inferred pair of list items' leaves (`/items/*/cost` -> `/lines/*/price`, one `*` a side)
    that learnt a relation pairs item i with item i; one without (equal) is left to the walk,
    which pairs equal items itself."""
    out = []
    for m in mapping or ():
        if not (isinstance(m, dict) and m.get("inferred") is True and _an_item_pair(m)):
            out.append(m)
        elif isinstance(m.get("relation"), str):
            a, r = m["arguments"].split("/"), m["request"].split("/")
            at, rat = a.index(ITEM), r.index(ITEM)
            items = resolve(arguments, "/".join(a[:at]), None)
            for i in range(len(items) if isinstance(items, list) else 0):
                a[at] = r[rat] = str(i)
                out.append({**m, "arguments": "/".join(a), "request": "/".join(r)})
    return out


def _typed_places(contract: dict, arguments) -> dict:
    """Return {request pointer: conversion} of the inferred pairs that learnt one.

    `typed number>string`: what the tool always sent at that field, whatever its argument."""
    return {
        internal(m["request"]): m["relation"]
        for m in each_item(contract.get("mapping"), arguments)
        if isinstance(m, dict)
        and m.get("inferred") is True
        and learnt.is_typed(m.get("relation"))
        and is_request_path(m.get("request"))
    }


def _an_item_pair(m: dict) -> bool:
    a, r = m.get("arguments"), m.get("request")
    return (
        isinstance(a, str)
        and isinstance(r, str)
        and a.split("/").count(ITEM) == 1
        and r.split("/").count(ITEM) == 1
    )


def _wrapper(arguments, request) -> tuple | None:
    """Return the request keys that wrap the arguments object, if any.

    Such as {"data": {...}}, GraphQL's variables."""
    if not isinstance(arguments, dict) or not isinstance(request, dict) or not arguments:
        return None
    # before the shared keys: a GraphQL body's `query` is its document, never an argument named
    # `query` GraphQL sends the arguments as its variables, often as one input object
    if is_graphql(request):
        variables = request["variables"]
        [(key, inner)] = variables.items() if len(variables) == 1 else [(None, None)]
        if (
            isinstance(inner, dict)
            and key not in arguments
            and _shared(arguments, inner) > _shared(arguments, variables)
        ):
            return ("variables", key)
        return ("variables",)
    if arguments.keys() & request.keys():
        return None
    best, score = None, 0
    for key, value in request.items():
        if (
            isinstance(value, dict)
            and len(arguments.keys() & value.keys()) > score
            and value not in arguments.values()
        ):
            best, score = key, len(arguments.keys() & value.keys())
    # Two shared keys at least: one could be a plain rename of an object ({"id": {"id": ..}}).
    return (best,) if best is not None and score >= 2 and score * 2 >= len(arguments) else None


def _shared(arguments: dict, node: dict) -> int:
    """Count the argument keys a node holds, in any case style."""
    return len({norm_key(k) for k in arguments} & {norm_key(k) for k in node})


def mapping_findings(pairing: Pairing, contract, bad_request_paths: set) -> list[dict]:
    """Turn a pairing into findings.

    Renames, value changes, dropped and added fields."""
    contract = contract or {}
    out = []
    for lp, rp in pairing.pairs.items():
        how = pairing.how[lp]
        # a pluck is judged as the value it makes (below), never as a rename
        if lp in pairing.plucks:
            continue
        if how in _REPAIRED and (lp in pairing.whole or is_container(pairing.values[lp][0])):
            out.append(_relocation(pairing, lp, rp, how))
    missed = unconverted(pairing)
    if pairing.relations:
        # a scale the names expect and the history shows too: one warning
        done = {f["left"]["path"] for f in missed}
        missed += [f for f in learnt_departures(pairing) if f["left"]["path"] not in done]
    at = {f["left"]["path"] for f in missed}
    # the pair's warning replaces its rename's info
    if missed:
        out = [f for f in out if f["left"] is None or f["left"]["path"] not in at] + missed
    items = _Items(pairing, contract)
    for lp, rp, lv, rv in pairing.diffs:
        tick()
        if lp in at:
            # a number sent as the same text where a conversion was expected: reported above
            continue
        judged = learnt_change(pairing, lp, rp, lv, rv) if pairing.relations else None
        if judged is None and pairing.repeated:
            judged = changed_copy(pairing, lp, rp, lv, rv)
        if judged is not None:
            out.append(judged)
            continue
        # a pluck is no value the wire writes: judged as the join it is
        note = None if lp in pairing.plucks else wire_change(pairing, lp, rp, lv, rv, contract)
        # the same value as the wire writes it, or a shape made on purpose
        if note is not None:
            out += _on_the_wire(pairing, lp, rp, lv, rv, note)
            continue
        read = wire_reading(lv, rv) if pairing.located and in_text(rp) else rv
        out.append(items.change(lp, rp, lv, rv, read))
    for f in out:
        # before folding: a folded finding shows its items' transform
        f["transform"] = transform_of(f)
    out = _collapse_case_changes(out)
    consumed = consumed_paths(contract)
    added = [
        (path, value)
        for path, value in one_field_each(remaining(pairing.leftovers, 1))
        if not quiet_added(pairing, path, contract)
    ]
    travelled = frozenset(pairing.pairs)
    seen = Seen(pairing.http_method, added, pairing.http_body, contract, pairing.left, travelled)
    for path, value in remaining(pairing.leftovers, 0):
        if consumed and (path in consumed or _starred(path) in consumed):
            out.append(_consumed(path, value, contract))
        elif path in pairing.kept and not said_to_travel(path, seen):
            text = f"{name(path)} dropped: not in the request; {KEPT}"
            out.append(finding("dropped", "info", end("arguments", path), None, value, None, text))
        else:
            out.append(absent_argument(path, value, contract, seen))
    typed = _typed_places(contract, pairing.left)
    out += [
        unconverted_default(path, value, typed[path])
        if learnt.sent_unconverted(typed.get(path), value)
        else _added(path, value, contract.get("request_schema"))
        for path, value in added
    ]
    out = fold_arrays(
        out,
        pairing,
        lambda lp, rp: name(lp) if lp == rp else f"{name(lp)} -> {name(rp)}",
        items.settle,
    )
    for f in out:
        # an item whose list did not fold stands alone: written out in full
        items.settle(f)
        explain(f, pairing, contract.get("request_schema"))
        # Whatever the kind, a request field that breaks the request schema needs fixing.
        if f["right"] and f["right"]["path"] in bad_request_paths:
            f["severity"] = "error"
    return out


class _Items:
    """The findings of changed values, each judged and written out when it is read.

    An item of a list of plain values is named by its kind only (its transform follows from it):
    `fold_arrays` folds such items into one finding at the list, which quotes the first and counts
    the rest, so the rest are never judged (a look-up, a clamp, a date held whole) nor written
    (71,428 numbers sent as texts: one message). `settle` judges and writes one when it is read."""

    def __init__(self, pairing, contract: dict):
        self.pairing, self.contract = pairing, contract
        # left list -> right list, of the lists of plain values fold_arrays looks at
        self.lists = _plain_lists(pairing)
        # id(finding) -> what judging it needs
        self.later: dict[int, tuple] = {}

    def change(self, lp, rp, lv, rv, read) -> dict:
        """Return the finding of a value changed from lv to rv (read back as `read`)."""
        cut, right_cut = lp.rfind("/"), rp.rfind("/")
        item = cut >= 0 and right_cut >= 0 and self.lists.get(lp[:cut]) == rp[:right_cut]
        kind = change_kind(lv, read) if item else None
        if kind is None:
            kind, severity, left, right, message = self._judged(lp, rp, lv, rv, read)
            return finding(kind, severity, left, right, lv, rv, message)
        # a warning until judged: the folded finding reads an info only when every item is one
        f = finding(kind, "warning", end("arguments", lp), end("request", rp), lv, rv, None)
        self.later[id(f)] = (lp, rp, lv, rv, read)
        return f

    def settle(self, f: dict) -> dict:
        """Judge and write out a finding `change` left for later (any other as it is)."""
        waiting = self.later.pop(id(f), None)
        if waiting is not None:
            kind, severity, _, _, message = self._judged(*waiting)
            f["severity"], f["message"] = severity, message
        return f

    def _judged(self, lp, rp, lv, rv, read) -> tuple:
        """Return (kind, severity, left end, right end, message) of a changed value."""
        kind, text = classify(lv, read)
        severity = "warning"
        why = _undecided(self.pairing, self.contract, (lp, rp), kind, lv, (rv, read))
        if why:
            severity, text = "info", f"{text} ({why})"
        # Escaped last tokens are equal exactly when the keys are (escaping is one to one).
        label = (
            name(lp)
            if _token(lp) == _token(rp) and self.pairing.how[lp] not in _REPAIRED
            else f"{name(lp)} -> {name(rp)}"
        )
        return kind, severity, end("arguments", lp), end("request", rp), f"{label}: {text}"


def _plain_lists(pairing) -> dict:
    """Return {left list: right list} of the changed list pairs of plain values.

    Those `fold_arrays` folds."""
    return {
        lp: rp
        for lp, (rp, lv, rv) in pairing.lists.items()
        if pairing.pairs.get(lp) == rp and lp not in pairing.whole and plain(lv) and plain(rv)
    }


def _numbers_as_text(pairing) -> str | None:
    """`numbers_as_text` of the call's request, read once a call.

    It walks the whole request and every changed pair: once a finding made it quadratic (a 1 MB
    list of records with a number sent as text in each took 137 s)."""
    if not hasattr(pairing, "numbers_as_text"):
        body = body_part(pairing.right) if pairing.located else pairing.right
        pairing.numbers_as_text = numbers_as_text(body, pairing.diffs)
    return pairing.numbers_as_text


def _undecided(pairing, contract, pair: tuple, kind: str, lv, sent: tuple) -> str | None:
    """Say why a change is one a single call cannot call a bug, else None.

    A value held whole, reshaped, looked up or timed, a number clamped to its stated bound.
    `sent` is the request's value as sent and as read back to the argument's type."""
    (lp, rp), (rv, read) = pair, sent
    if lp in pairing.plucks:
        return plucked_join(last(lp), lv, rv)
    # the bound is the contract's own word, whatever maps the pair
    bound = clamped(lv, read, argument_schemas(contract, lp)) if kind == "value_changed" else None
    if bound:
        return bound
    if kind == "type_changed" and is_number(lv) and isinstance(rv, str):
        declared = _graphql_text_variable(pairing, rp)
        if declared:
            return declared
        # a request schema decides the field's type itself; none: the request's numbers tell
        if (
            not in_text(rp)
            and not _token(rp).isdigit()
            and not (contract or {}).get("request_schema")
        ):
            texts = _numbers_as_text(pairing)
            if texts:
                return texts
    # a pair the contract or the tool's history maps as it is departs from them
    if pairing.how.get(lp) in ("declared", "inferred"):
        return None
    # a date written another way is its format changed, not a template
    if kind == "value_changed" and held_whole(lv, rv):
        return HELD_WHOLE
    # under another name only: the same field sent shorter is a value cut
    if kind == "value_changed" and _token(lp) != _token(rp) and read_out(lv, rv):
        return READ_OUT
    if kind == "format_changed" and isinstance(lv, str) and isinstance(read, str):
        return LOCAL_TIME if same_local_time(lv, read) else None
    if kind == "enum_changed":
        return normalised_id(pair, lv, read, argument_schemas(contract, lp))
    if kind not in ("value_changed", "type_changed"):
        return None
    found = looked_up(pair, lv, read) or timed(lv, read) or dated(lv, read)
    # a list in a URL or form is joined as the wire's conventions and the contract's style say
    return found or (reshaped(lv, read) if not in_text(rp) else None)


def _graphql_text_variable(pairing, rp: str) -> str | None:
    """Say so when a GraphQL request declares the variable at rp as text (ID, String).

    The operation's own declaration is a contract: a number sent there as text is what it asks."""
    if not rp.startswith("/variables/") or rp.count("/") != 2:
        return None
    body = body_part(pairing.right) if pairing.located else pairing.right
    variable = last(rp)
    named = graphql_variable_types(body).get(variable)
    if named not in TEXT_SCALARS:
        return None
    return f"the GraphQL operation declares ${variable} as {named}, which travels as text"


def _on_the_wire(pairing, lp, rp, lv, rv, note: str) -> list[dict]:
    """Return info findings of a pair the wire or the layer changes on purpose."""
    if not note:
        # a container's relocation is reported by the loop over the pairs already
        how = pairing.how[lp]
        return (
            [_relocation(pairing, lp, rp, how)] if how in _REPAIRED and not is_container(lv) else []
        )
    kind = classify(lv, rv)[0]
    label = name(lp) if lp == rp else f"{name(lp)} -> {name(rp)}"
    return [
        finding(kind, "info", end("arguments", lp), end("request", rp), lv, rv, f"{label}: {note}")
    ]


def _token(path: str) -> str:
    return path[path.rfind("/") + 1 :]


def _collapse_case_changes(found: list[dict]) -> list[dict]:
    """Fold many keys converted the same way into one info finding.

    Such a conversion is an encoder's doing."""
    groups: dict[tuple, list] = {}
    for f in found:
        if f["kind"] == "case_changed":
            styles = (key_style(last(f["left"]["path"])), key_style(last(f["right"]["path"])))
            groups.setdefault(styles, []).append(f)
    folded = {id(f) for group in groups.values() if len(group) >= COLLAPSE_AT for f in group}
    out = [f for f in found if id(f) not in folded]
    for (before, after), group in groups.items():
        if len(group) >= COLLAPSE_AT:
            out.append(
                finding(
                    "case_changed",
                    "info",
                    end("arguments", ""),
                    end("request", ""),
                    None,
                    None,
                    f"{len(group)} keys converted from {before} to {after}",
                )
            )
            out[-1]["transform"] = shared_transform(group)
    return out


def _relocation(pairing, lp, rp, how) -> dict:
    value, right_value = pairing.values[lp]
    if lp == "":
        return finding(
            "moved",
            "info",
            end("arguments", ""),
            end("request", rp),
            None,
            None,
            f"arguments nested under {name(rp)}",
        )
    same_parent = pairing.pairs.get(parent(lp)) == parent(rp)
    if same_parent and last(lp) != last(rp) and norm_key(last(lp)) == norm_key(last(rp)):
        kind, text = "case_changed", f"{name(lp)} became {name(rp)} (case style)"
    elif last(lp) == last(rp) and not same_parent:
        kind, text = "moved", f"{name(lp)} moved to {name(rp)}"
    else:
        kind, text = "renamed", f"{name(lp)} renamed to {name(rp)}"
    if lp in pairing.joined:
        others = ", ".join(name(q) for q in pairing.joined[lp])
        kind, text = "renamed", f"{name(lp)} joined with {others} into {name(rp)}"
    elif kind != "case_changed" and lp in pairing.whole and not is_container(value):
        text += f" (value {show(value)})"
    if lp in pairing.ambiguous:
        # Another pairing of these equal values explains the call as well: nothing is wrong either
        # way.
        text += "; other fields hold the same value, so this pairing is one of several equally good"
    return finding(kind, "info", end("arguments", lp), end("request", rp), value, right_value, text)


def consumed_paths(contract) -> set:
    """Return the argument pointers the contract marks `consumed`.

    The mapping layer's own: a selector."""
    return {p for p in (contract or {}).get("consumed") or () if is_pointer(p) and p}


def items_matching(paths, arguments) -> set[str]:
    """Return the pointers of the arguments' list items' leaves a starred path names.

    `/items/*/total` -> `/items/0/total`, `/items/1/total`: an item's leaf learnt consumed is
    pinned in every item, so no field of the whole (an order's total, its one line's total when
    one is bought) pairs with it by chance."""
    out: set[str] = set()
    for path in paths:
        if "/*" not in path:
            continue
        nodes = [("", arguments)]
        for token in tokens(path):
            nodes = [
                (child(at, key), inner)
                for at, node in nodes
                for key, inner in _children(node, token)
            ]
        out.update(at for at, _ in nodes)
    return out


def _children(node, token: str) -> list:
    """Return the (key, value) pairs of a node a token names (`*`: each list item)."""
    if isinstance(node, list):
        if token == "*":
            return list(enumerate(node))
        return (
            [(int(token), node[int(token)])] if token.isdigit() and int(token) < len(node) else []
        )
    if isinstance(node, dict) and token in node:
        return [(token, node[token])]
    return []


def _starred(path: str) -> str:
    """Return a path with each token of digits written `*`.

    How inference learns a list item's leaf."""
    return "/".join("*" if token.isdigit() else token for token in path.split("/"))


def _consumed(path, value, contract) -> dict:
    inferred = contract.get("consumed_inferred") or ()
    learnt = path in inferred or _starred(path) in inferred
    why = "no earlier call of the tool sent it" if learnt else "the contract's `consumed`"
    text = f"{name(path)} consumed by the mapping layer: not sent ({why})"
    return finding("dropped", "info", end("arguments", path), None, value, None, text)


def one_field_each(leftovers):
    """Yield the request's leftovers.

    A location no argument reached at all as its fields (`query:/archived`, not `query:` whole): a
    query string or a header set is no object the mapping layer built."""
    for path, value in leftovers:
        if path in TEXT_ROOTS and isinstance(value, dict):
            yield from ((child(path, key), inner) for key, inner in value.items())
        else:
            yield path, value


def _added(path, value, schema) -> dict:
    declared = declares(schema, path)
    if declared is False:
        severity, why = "warning", " and not declared by the request schema"
    elif declared:
        severity, why = "info", " (declared by the request schema)"
    else:
        severity, why = "info", ""
    return finding(
        "added",
        severity,
        None,
        end("request", path),
        None,
        value,
        f"{name(path)} added: comes from no argument{why}",
    )
