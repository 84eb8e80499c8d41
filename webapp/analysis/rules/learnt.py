"""Pairs judged by the value relation their tool's history showed.

An inferred entry's `relation`.

A value the relation gives for the argument is what every earlier call did: info. Any other value
departs from it, the argument sent as it is included (`123` where earlier calls sent
`gid://shop/Customer/123`): a warning.
"""

from ..findings.kinds import end, finding
from ..values import learnt
from ..values.classify import classify
from ..values.json_values import show


def learnt_change(pairing, lp: str, rp: str, lv, rv) -> dict | None:
    """Return the finding of a changed pair judged by its learnt relation.

    None without one, or when the relation is a kind of change this value does not follow: the usual
    rules judge it."""
    name = pairing.relations.get(lp)
    if name is None:
        return None
    found = classify(lv, rv)
    kind = found[0] if found else "value_changed"
    label = _label(lp, rp)
    if name == learnt.LOOKED_UP:
        table = pairing.tables.get(lp) or {}
        return _looked_up(table, lp in pairing.folded, kind, (lp, rp, lv, rv))
    if learnt.follows(name, lv, rv):
        text = f"{label}: {learnt.describe(name)}, as the tool's earlier calls show"
        return finding(kind, "info", end("arguments", lp), end("request", rp), lv, rv, text)
    if not learnt.is_function(name):
        return None
    text = f"{label}: {show(rv)}, where the tool's earlier calls give {_given(name, lv)}"
    return finding(kind, "warning", end("arguments", lp), end("request", rp), lv, rv, text)


def _looked_up(table: dict, folded: bool, kind: str, change: tuple) -> dict:
    """Judge a value the tool looks up (`change` is lp, rp, lv, rv).

    Info as the table gives it or for an input new to it, a warning for another output (or the
    output of another input). A `folded` table is keyed in any case."""
    lp, rp, lv, rv = change
    verdict = learnt.looked_up(table, lv, rv, folded)
    if verdict is False:
        severity = "warning"
        text = f"{show(rv)}, where the tool's earlier calls looked {show(lv)} up as another value"
    else:
        severity = "info"
        text = (
            f"{show(lv)} -> {show(rv)}, looked up as the tool's earlier calls show"
            if verdict
            else f"{show(lv)} -> {show(rv)}, a value the tool's earlier calls looked up: no "
            "earlier call sent this input"
        )
    text = f"{_label(lp, rp)}: {text}"
    return finding(kind, severity, end("arguments", lp), end("request", rp), lv, rv, text)


def learnt_departures(pairing) -> list[dict]:
    """Warn of each pair sent as it is where its learnt relation changes it.

    A warning per pair whose learnt relation changes the value."""
    out = []
    for lp, name in pairing.relations.items():
        if lp not in pairing.whole or lp not in pairing.values or lp not in pairing.pairs:
            continue
        lv, rv = pairing.values[lp]
        if learnt.changes(name, lv) or (
            name == learnt.LOOKED_UP
            and _looked_up_as_another(pairing.tables.get(lp) or {}, lp in pairing.folded, lv)
        ):
            rp = pairing.pairs[lp]
            text = (
                f"{_label(lp, rp)}: {show(lv)} sent as it is, where the tool's earlier calls give "
                f"{_given(name, lv)}"
            )
            out.append(
                finding(
                    learnt.expected_kind(name, lv, rv),
                    "warning",
                    end("arguments", lp),
                    end("request", rp),
                    lv,
                    rv,
                    text,
                )
            )
    return out


def _looked_up_as_another(table: dict, folded: bool, value) -> bool:
    """Tell whether the table gives a value other than itself for `value`."""
    key = learnt.table_input(value, folded)
    return key in table and table[key] != learnt.digest(value)


def _given(name: str, value) -> str:
    given = learnt.gives(name, value)
    if given is learnt.NOTHING:
        return f"another value ({learnt.describe(name)})"
    return f"{show(given)} ({learnt.describe(name)})"


def _label(lp: str, rp: str) -> str:
    return lp[1:] if lp == rp else f"{lp[1:]} -> {rp[1:]}"


def unconverted_default(path: str, value, name: str) -> dict:
    """Warn of a field no argument gave, in the type a learnt conversion converts from.

    The layer's own value (a default) sent as a number where every earlier call's was text."""
    text = (
        f"{path[1:]}: {show(value)} added in the type the tool's earlier calls converted from "
        f"({learnt.describe(name)})"
    )
    return finding("type_changed", "warning", None, end("request", path), None, value, text)
