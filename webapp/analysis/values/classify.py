"""Name how one value became another.

Type, enum, format, scale, or a plain value change."""

import re

from ...common import jsontext
from .json_values import is_number, norm_text, same, show, type_name
from .readings import (
    epoch_unit,
    power_of_ten,
    read_number,
    read_truth,
    same_local_time,
    same_moment,
    same_time,
)

# a digit as the readers see it: a text without one reads as no number or date
_DIGIT = re.compile(r"\d")
_JOINERS = (",", ", ", ";", "; ", " ", "|", "\n")
# how a description shows the two values: as JSON, or with their type names
_SHOWN, _TYPED = "shown", "typed"
# digits read as an int at once: far below int()'s own limit on digits
_SHORT = 100


def classify(a, b) -> tuple[str, str] | None:
    """Return (kind, description) for a change from a to b, or None when they agree."""
    found = _change(a, b)
    return None if found is None else (found[0], _describe(a, b, *found))


def change_kind(a, b) -> str | None:
    """Return the kind `classify` names, without writing its description.

    For the items of a list whose findings fold into one: only the first is quoted."""
    found = _change(a, b)
    return None if found is None else found[0]


def typed(value) -> str:
    """Render a value with its JSON type name, e.g. 'integer 5'."""
    return "null" if value is None else f"{type_name(value)} {show(value)}"


def _change(a, b) -> tuple[str, object] | None:
    """Return (kind, what its description needs) for a change from a to b, or None."""
    if same(a, b):
        return None
    if isinstance(a, str) and isinstance(b, str):
        return _strings(a, b)
    if is_number(a) and is_number(b):
        k = power_of_ten(a, b)
        return ("scaled", k) if k is not None else ("value_changed", _SHOWN)
    if type_name(a) == type_name(b):
        return "value_changed", _SHOWN
    return ("type_changed" if _same_meaning(a, b) else "value_changed"), _TYPED


def _describe(a, b, kind: str, detail) -> str:
    """Write the description of a change `_change` named."""
    if kind == "scaled":
        verb = "multiplied" if detail > 0 else "divided"
        return f"{show(a)} became {show(b)} ({verb} by {10 ** abs(detail)})"
    if kind == "format_changed":
        return f"{show(a)} became {show(b)} (same {detail})"
    if detail == _TYPED:
        return f"{typed(a)} became {typed(b)}"
    return f"{show(a)} became {show(b)}"


def _strings(a: str, b: str) -> tuple[str, object]:
    if _DIGIT.search(a) and _DIGIT.search(b):
        # read once: the number test and the scale test share them
        x, y = read_number(a), read_number(b)
        what = (
            same_moment(a, b)
            or same_local_time(a, b)
            or _same_time_text(a, b)
            or ("number" if x is not None and x == y else None)
        )
        if what:
            return "format_changed", what
        k = power_of_ten(x, y) if x is not None and y is not None else None
        if k is not None:
            return "scaled", k
    if norm_text(a) == norm_text(b):
        return "enum_changed", _SHOWN
    return "value_changed", _SHOWN


def _same_time_text(a: str, b: str) -> str | None:
    return "time" if same_time(a, b) else None


def _same_meaning(a, b) -> bool:
    if isinstance(b, str) and not isinstance(a, str):
        return _meant_as_text(a, b)
    if isinstance(a, str) and not isinstance(b, str):
        return _meant_as_text(b, a)
    if isinstance(a, bool) or isinstance(b, bool):
        return read_truth(a) is not None and read_truth(a) == read_truth(b)
    if isinstance(b, list) and len(b) == 1:
        return same(a, b[0])
    if isinstance(a, list) and len(a) == 1:
        return same(a[0], b)
    return False


def _meant_as_text(value, text: str) -> bool:
    """Tell whether `text` is `value` written as a string.

    Number, boolean, date, list, JSON."""
    if isinstance(value, bool):
        return read_truth(text) == value
    # digits alone, as read_number reads them without its patterns (71,428 numbers sent as texts)
    if type(value) is int and text.isdecimal() and len(text) <= _SHORT and int(text) == value:
        return True
    if is_number(value):
        number = read_number(text)
        return (number is not None and number == value) or epoch_unit(value, text) is not None
    if value is None:
        return text.strip().lower() in ("null", "none", "")
    if isinstance(value, list) and all(not isinstance(x, (dict, list)) for x in value):
        items = [_as_text(x) for x in value]
        if any(j.join(items) == text for j in _JOINERS):
            return True
    try:
        return same(jsontext.loads(text), value)
    except jsontext.JSONDecodeError:
        return False


def _as_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
