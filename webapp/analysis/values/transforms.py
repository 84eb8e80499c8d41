"""Name the transform a finding shows and how its ends were paired.

Transforms such as "integer>string", "x100", "lower>UPPER"."""

import re
from datetime import datetime

from ...common.pointers import last
from .json_values import is_number, key_style, type_name
from .readings import epoch_unit, power_of_ten, read_dates, read_number, read_time

# the ways of pairing that name no reason of their own: an ancestor's tells it
_BY_PLACE = frozenset(("same", "item"))
# How the pairing found a pair -> the reason a finding gives (issue 11's closed list).
REASONS = {
    "same": "path",
    "declared": "declared",
    "inferred": "inferred",
    "case": "case_style",
    "value": "value",
    "loose": "value",
    "shape": "name",
    "name": "name",
    "elimination": "elimination",
    "item": "position",
    "position": "position",
}


def reason_of(pairing, left_path: str | None) -> str | None:
    """Return how the pair at left_path was found.

    By its own pairing, else its nearest paired ancestor's."""
    if left_path is None or pairing is None:
        return None
    how = pairing.how
    own = how.get(left_path)
    if own not in (None, "same", "item"):
        return REASONS[own]
    found = _found_above(pairing, left_path)
    return REASONS[found] if found else REASONS.get(own) if own else None


def _found_above(pairing, path: str) -> str | None:
    """Return how the nearest specially paired ancestor was found, else None.

    The nearest ancestor paired otherwise than by path or place.

    Remembered per path on the pairing (read once it is complete): thousands of findings in one
    list of records look at their ancestors once, not each."""
    if pairing.found_otherwise is None:
        pairing.found_otherwise = not set(pairing.how.values()) <= _BY_PLACE
    # nothing paired otherwise (69,000 nested keys by path): no ancestor of any path to look at
    if not pairing.found_otherwise:
        return None
    memo = pairing.found_above
    todo, found = [], None
    while path:
        path = path[: path.rfind("/")]
        if path in memo:
            found = memo[path]
            break
        todo.append(path)
        own = pairing.how.get(path)
        if own not in (None, "same", "item"):
            found = own
            break
    for up in todo:
        memo[up] = found
    return found


# The words a transform is written in: what transform_of names, so a declared one can match a
# finding.
TRANSFORM_WORDS = frozenset(
    # types
    ("string", "integer", "number", "boolean", "null", "object", "list")
    # keys
    + (
        "camelCase",
        "PascalCase",
        "snake_case",
        "kebab-case",
        "SCREAMING_CASE",
        "lowercase",
        "other",
    )
    # letter case of values
    + ("UPPER", "lower", "Title")
    # formats
    + ("12h", "24h", "grouped", "iso8601", "epoch", "date", "text")
)
_SCALE = re.compile(r"[x/][0-9]+(\.[0-9]+)?\Z", re.ASCII)


def transform_problem(text: str) -> str | None:
    """Say why a declared transform can never match a finding.

    None when it is one tracediff names."""
    if _SCALE.match(text):
        return None if float(text[1:]) > 0 else "a scale must be above 0"
    before, arrow, after = text.partition(">")
    unknown = [side for side in (before, after) if side not in TRANSFORM_WORDS]
    if not arrow or unknown:
        return (
            f"{text!r} is neither a scale (x100, /1000) nor a change A>B of known words "
            f"({', '.join(sorted(TRANSFORM_WORDS))})"
        )
    return None


def transform_of(finding: dict) -> str | None:
    """Name the change a finding shows, or None when it is not a transform."""
    kind, a, b = finding["kind"], finding.get("left_value"), finding.get("right_value")
    if kind == "case_changed" and finding["left"] and finding["right"]:
        before, after = (
            key_style(last(finding["left"]["path"])),
            key_style(last(finding["right"]["path"])),
        )
        return f"{before}>{after}" if before != after else None
    if kind == "scaled":
        return _scale(a, b)
    if kind == "type_changed":
        return _types(a, b)
    if kind == "enum_changed" and isinstance(a, str) and isinstance(b, str):
        return f"{_case(a)}>{_case(b)}"
    if kind == "format_changed" and isinstance(a, str) and isinstance(b, str):
        return f"{_format(a)}>{_format(b)}"
    return None


def shared_transform(members: list[dict]) -> str | None:
    """Return the transform every member shows when it is one, else None.

    One and the same, as 40,000 lower>UPPER."""
    shown = {m.get("transform") for m in members}
    return shown.pop() if len(shown) == 1 else None


def _scale(a, b) -> str | None:
    if isinstance(a, str):
        a = read_number(a)
    if isinstance(b, str):
        b = read_number(b)
    k = power_of_ten(a, b) if is_number(a) and is_number(b) else None
    if k is None:
        return None
    return f"x{10**k}" if k > 0 else f"/{10**-k}"


def _types(a, b) -> str:
    if is_number(a) and isinstance(b, str) and epoch_unit(a, b):
        return "epoch>iso8601"
    if is_number(b) and isinstance(a, str) and epoch_unit(b, a):
        return "iso8601>epoch"
    before, after = _type(a), _type(b)
    # two lists: an array's folded items
    return f"{before}>{after}" if before != after else None


def _type(value) -> str:
    name = type_name(value)
    return "list" if name == "array" else name


def _case(text: str) -> str:
    # ASCII letters are all cased: the string's own test, not a list of its letters
    if text.isascii() and (text.isupper() or text.islower()):
        return "UPPER" if text.isupper() else "lower"
    letters = [c for c in text if c.isalpha()]
    if letters and all(c.isupper() for c in letters):
        return "UPPER"
    if letters and all(c.islower() for c in letters):
        return "lower"
    if text[:1].isupper() and " " in text:
        return "Title"
    return key_style(text)


def _format(text: str) -> str:
    if read_time(text):
        return "12h" if text.strip()[-1:].lower() in ("m", ".") else "24h"
    if read_number(text) is not None:
        return "grouped" if ("," in text or text.count(".") > 1) else "number"
    try:
        datetime.fromisoformat(text.strip())
        return "iso8601"
    except ValueError:
        pass
    return "date" if read_dates(text) else "text"
