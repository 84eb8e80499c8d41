"""Drift: how one call departs from a shape with enough history (pure).

An entry is drift when, at its first sight, at least MIN_HISTORY calls of its kind came before it
and 99% of them agreed on something else; it stays drift while it holds in at least 80% of the calls
since it began (a server change does; a rare legitimate value or an optional field's rare absence
does not) and until it has as many calls as the history it broke from (then it is the new usual).
"""

from ..analysis import end, finding
from ..common.words import with_article
from .shapes import MIN_HISTORY, _closed_enum, _count, _dominant, parent_of

AGREEMENT = 0.99
# share of the calls since it began that an entry must keep to stay drift (a change holds in all)
HOLDS = 0.8
# a new field is told on its first calls only
NEW_FIELD_CALLS = 3
SHOWN_VALUES = 5


def drift_findings(stage: str, shape: dict, facts: dict, ts: str | None) -> list[dict]:
    """Return the drift findings of a call's facts against the learnt shape.

    The shape learnt before it."""
    if shape["calls"] < MIN_HISTORY:
        return []
    out = []
    paths = shape["paths"]
    # in any order: the analysis sorts its findings
    for path, f in facts.items():
        entry = paths.get(path)
        if entry is None or entry["n"] < NEW_FIELD_CALLS and entry["new"] >= MIN_HISTORY:
            if parent_of(path) in paths and (entry or not shape["folded"]):
                out.append(
                    _found(
                        stage,
                        path,
                        "info",
                        "new",
                        None,
                        f.sample,
                        _new_field(shape, path, entry, ts),
                    )
                )
            continue
        out += _type_drift(stage, path, entry, f, ts)
    objects = {path for path, f in facts.items() if f.objects}
    for path, entry in paths.items():
        if path not in facts and parent_of(path) in objects:
            out += _missing(stage, path, entry, paths, ts)
    return out


def _type_drift(stage, path, entry, f, ts) -> list[dict]:
    out = []
    for kind in sorted(f.types):
        if kind == "integer" and "number" in entry["t"]:
            # a whole number in a number field
            continue
        novel = _novel(entry["t"], kind, entry["n"], ts)
        if novel:
            usual = _usual(entry["t"], kind)
            severity = "info" if kind == "null" else "warning"
            text = (
                f"{_said(path, usual, novel, entry)}, {with_article(kind)} since "
                f"{_hhmm(novel[3], ts)}"
            )
            out.append(_found(stage, path, severity, f"{usual}>{kind}", None, f.sample, text))
    if out or "string" not in f.types or not entry["t"].get("string"):
        return out
    strings = _count(entry["t"], "string")
    for name in sorted(f.formats):
        novel = _novel(entry["f"], name, strings, ts, usual=lambda e: _dominant(e, real=True))
        if novel:
            usual = _usual({k: v for k, v in entry["f"].items() if k}, name)
            now = with_article(name or "plain string")
            text = (
                f"{_said(path, with_article(usual), novel, entry)}, {now} since "
                f"{_hhmm(novel[3], ts)}"
            )
            out.append(
                _found(stage, path, "warning", f"{usual}>{name or 'text'}", None, f.sample, text)
            )
    if entry["v"] is not None and f.values:
        for value in sorted(f.values):
            novel = _novel(entry["v"], value, strings, ts, usual=lambda e: _closed_enum(e, strings))
            if novel:
                known = sorted(k for k in entry["v"] if k != value)
                listed = ", ".join(known[:SHOWN_VALUES]) + (
                    ", ..." if len(known) > SHOWN_VALUES else ""
                )
                said = _said(path, f"one of {len(known)} values ({listed})", novel, entry)
                text = f'{said}, "{value}" since {_hhmm(novel[3], ts)}'
                out.append(_found(stage, path, "warning", "enum", None, value, text))
    return out


def _missing(stage, path, entry, paths, ts) -> list[dict]:
    parent_objects = _count(paths[parent_of(path)]["t"], "object")
    miss = entry["miss"]
    if miss is None:
        novel = _holds(1, parent_objects, entry["n"], parent_objects, ts)
    else:
        novel = _holds(miss[0] + 1, miss[2], miss[3], parent_objects, miss[1])
    if not novel:
        return []
    text = f"{_said(path, 'present', novel, entry)}, missing since {_hhmm(novel[3], ts)}"
    return [_found(stage, path, "warning", "present>missing", None, None, text)]


def _novel(entries: dict, key, whole: int, ts, usual=_dominant):
    """Return the drift facts of this call's `key` among `entries`, else None.

    (calls, before, agreeing, since) when it is drift (`whole`: the calls of their kind before this
    one)."""
    seen = entries.get(key)
    if seen is None:
        return _holds(1, whole, usual(entries), whole, ts)
    return _holds(seen[0] + 1, seen[2], seen[3], whole, seen[1])


def _holds(calls: int, before: int, agreeing: int, whole: int, since):
    if before < MIN_HISTORY or agreeing < AGREEMENT * before or calls > before:
        return None
    if calls < HOLDS * (whole + 1 - before):
        return None
    return calls, before, agreeing, since


def _usual(entries: dict, novel) -> str:
    others = {k: v[0] for k, v in entries.items() if k != novel}
    return max(others, key=others.get) if others else "?"


def _said(path, usual, novel, entry) -> str:
    _, before, agreeing, since = novel
    return (
        f'"{path or "/"}" {usual} in {agreeing} of {before} calls since '
        f"{_hhmm(entry['first'], since)}"
    )


def _new_field(shape, path, entry, ts) -> str:
    before = entry["new"] if entry else shape["calls"]
    first = entry["first"] if entry else ts
    return (
        f'"{path}" new: in none of {before} calls since {_hhmm(shape["first"], first)}, seen since '
        f"{_hhmm(first, ts)}"
    )


def _hhmm(when: str | None, other: str | None) -> str:
    """Write a time as 09:02 (with its day when it is not the day of `other`)."""
    if not when:
        return "?"
    if other and other[:10] == when[:10]:
        return when[11:16]
    return f"{when[:10]} {when[11:16]}"


def _found(stage, path, severity, transform, left_value, right_value, message) -> dict:
    where = end(stage, path)
    left, right = (where, None) if stage == "arguments" else (None, where)
    if stage == "arguments":
        left_value, right_value = right_value, left_value
    item = finding("drift", severity, left, right, left_value, right_value, message)
    item["transform"] = transform
    item["reason"] = "observed"
    return item
