"""How one value relates to another.

Equal, or the same meaning written another way."""

import re
from functools import lru_cache

from ..analysis import (
    canonical,
    classify,
    is_number,
    learnt,
    norm_text,
    power_of_ten,
    read_number,
    read_truth,
    same,
)

EQUAL = "equal"
TRANSFORMS = ("type_changed", "enum_changed", "format_changed", "scaled")
# A date written with numbers (2026-12-05, 05/12/2026, 5.12.2026): bucketed by its numbers, so
# formats meet without parsing every string of every call (classify reads the dates of the few that
# meet).
_JOINS = (",", "|", ";", " ")
# the first words of a text, by which a value meets the template it was wrapped in
_WORDS = re.compile(r"[^\W_]{2,}")
MAX_TOKENS = 8
# a longer text (free text, a document) is rarely sent twice: not kept
MAX_KEPT_TEXT = 256
_DATEISH = re.compile(r"^\s*(\d{1,4})[-/.](\d{1,2})[-/.](\d{1,4})")


def relation(a, b) -> str | None:
    """Name how `a` became `b`.

    "equal", a transform ("scaled x100", "type_changed"...), or None."""
    if same(a, b):
        # the common case, without classify's readings
        return EQUAL
    try:
        found = classify(a, b)
    except (RecursionError, ValueError, OverflowError):
        return None
    if found is None:
        return EQUAL
    kind = found[0]
    if kind == "scaled":
        return f"scaled {_factor(a, b)}"
    if isinstance(a, list) and isinstance(b, str) and kind in ("type_changed", "value_changed"):
        return _list_as_text(a, b, kind)
    if kind == "type_changed" and isinstance(a, str) and isinstance(b, list):
        return learnt.relation_name(a, b) or kind
    return kind if kind in TRANSFORMS else learnt.relation_name(a, b)


def _list_as_text(items: list, text: str, kind: str) -> str | None:
    """Name how a list became one text: a join, its one item, or None.

    Its items sent as they are or each put in the API's form (`1-2` as `1:2`), which the counts
    keep apart (evidence.py)."""
    found = joined(items, text)
    if found:
        return found
    if len(items) == 1 and learnt.join_of(item_texts(items), text):
        return "type_changed"
    # another list sent as text (JSON) is the type change classify saw
    return kind if kind == "type_changed" else None


def joined(items: list, text: str) -> str | None:
    """Name the join of a list into one text, or None when it is not one.

    "joined |" for `a|b`, and for `a-1|b:2` sent from `["a-1", "b-2"]` (each item's form is
    counted apart)."""
    texts = item_texts(items)
    if len(texts) < 2:
        return None
    found = learnt.join_of(texts, text, _JOINS)
    return learnt.join_name(found[0]) if found else None


def item_texts(items: list) -> list[str]:
    """Return a list's items as text, as a join writes them."""
    return ["true" if x is True else "false" if x is False else str(x) for x in items]


def separator_of(relation_name: str | None) -> str | None:
    """Return the separator a "joined |" relation names, else None."""
    if not relation_name or not relation_name.startswith(learnt.JOINED):
        return None
    return learnt.join_parts(relation_name)[0]


def _factor(a, b) -> str:
    x = a if is_number(a) else read_number(str(a))
    y = b if is_number(b) else read_number(str(b))
    k = power_of_ten(x, y) if x is not None and y is not None else None
    return "?" if k is None else (f"x{10**k}" if k > 0 else f"/{10**-k}")


def keys(value) -> set:
    """Return bucket keys shared by values that may be related.

    So only those pairs are compared."""
    if isinstance(value, list):
        found = {("list", canonical([str(x) for x in value]))}
        if len(value) >= 2:
            # items each put in the API's form (`1-2` as `1:2`) meet their join too
            found.add(("items", canonical([norm_text(str(x)) for x in value])))
        return (
            found | keys(value[0])
            if len(value) == 1 and not isinstance(value[0], (dict, list))
            else found
        )
    if isinstance(value, (int, float)) or isinstance(value, str) and len(value) <= MAX_KEPT_TEXT:
        return _scalar_keys(value)
    return _keys_of(value)


# headers, enums, flags and limits repeat from call to call (issue 36: 4% of the analyser's CPU);
# typed: 1, 1.0 and True are asked apart. Read-only: callers only read the sets.
@lru_cache(maxsize=16384, typed=True)
def _scalar_keys(value) -> frozenset:
    return frozenset(_keys_of(value))


def _keys_of(value) -> set:
    if isinstance(value, bool):
        return {("truth", value)}
    if is_number(value):
        text = str(value) if isinstance(value, int) else ""
        return {("digits", _digits(value))} | ({("token", text)} if len(text) >= 2 else set())
    text = str(value)
    found = set()
    number = read_number(text)
    if number is not None:
        found.add(("digits", _digits(number)))
    truth = read_truth(text)
    if truth is not None and not text.strip().isdigit():
        found.add(("truth", truth))
    date = _DATEISH.match(text)
    if date:
        found.add(("date", tuple(sorted(int(g) for g in date.groups()))))
    if not found:
        found.add(("text", norm_text(text)))
    # a list joined into one query parameter (`a|b`, `a,b`) meets the list
    for sep in _JOINS:
        if sep in text:
            found.add(("list", canonical(text.split(sep))))
            # `a, b` split and trimmed
            found.add(("list", canonical([part.strip() for part in text.split(sep)])))
            found.add(("items", canonical([norm_text(part) for part in text.split(sep)])))
    # a value wrapped in a template (`gid://shop/Customer/123`, `title:*mug*`) meets the value
    found.update(("token", word) for word in _WORDS.findall(text)[:MAX_TOKENS])
    return found


def _digits(number) -> str:
    """Return a number's significant digits.

    So 5, 50, 0.5 and "5" share a bucket (a scale change)."""
    text = repr(float(number)) if not isinstance(number, int) else str(number)
    if "e" in text.lower():
        return text.lower()
    digits = text.replace("-", "").replace(".", "").strip("0")
    return digits or "0"


def reached_nowhere(values: dict, sent) -> set[str]:
    """Return the starred item leaves one of whose values no request value relates to.

    `values` is {item leaf pointer: value} (`/items/0/total`), `sent` the request's values. A
    value relates when it is sent equal or as the same value written another way (a number as
    text, a case, a unit, inside a template); a number beside any other number (a clamp's bound)
    does not. Read from the call's values alone, whatever its analysis paired."""
    texts = [v for v in sent if v is not None]
    out: set[str] = set()
    for path, value in values.items():
        starred = "/".join("*" if t.isdigit() else t for t in path.split("/"))
        if starred in out:
            continue
        if not any(_relates(value, v) for v in texts):
            out.add(starred)
    return out


def _relates(a, b) -> bool:
    found = relation(a, b)
    return bool(found) and found != "value_changed" and not learnt.is_bound(found)
