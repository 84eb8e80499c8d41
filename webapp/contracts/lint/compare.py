"""The mismatches of one pair of fields.

What the tool lets the model send that the API refuses, or asks for.

The tool's arguments should sit inside what the API takes (the seed's "intent parameters within tool
arguments within HTTP body"): a type, a value, a format or a bound the tool allows and the API does
not is a mismatch, and so is a field the API requires that the tool leaves optional. Where the tool
is narrower than the API (an integer for a number, fewer enum values) nothing is wrong, and only
missing values are told, as info. A declared transform (`x100`, `integer>string`, `lower>UPPER`,
`epoch>iso8601`) makes its change expected."""

from ...analysis import norm_text
from ...common.words import with_article
from . import schemas
from .fields import Field

# transform words that are not JSON type names
_WORDS = {"list": "array"}
# enum values named in a message
_SHOWN = 8


def record(
    kind: str,
    severity: str,
    left: str | None,
    right: str | None,
    message: str,
    how=None,
    transform=None,
):
    """Build one mismatch, shaped as a finding so check's reports print it.

    Kind, severity, both ends, message."""
    return {
        "kind": kind,
        "severity": severity,
        "left": None if left is None else {"snapshot": "arguments", "path": left},
        "right": None if right is None else {"snapshot": "request", "path": right},
        "message": message,
        "reason": how,
        "transform": transform,
    }


def label(left: Field, right: Field) -> str:
    """Name a pair in a message.

    `limit` when both ends have one name, else `limit -> query:/page_size`."""
    return (
        _name(left.pointer)
        if left.pointer == right.pointer
        else f"{_name(left.pointer)} -> {_name(right.pointer)}"
    )


def _name(pointer: str) -> str:
    return pointer[1:] if pointer.startswith("/") else pointer or "(arguments)"


def pair_mismatches(left: Field, right: Field, how: str, transform: str | None) -> list[dict]:
    """Return the mismatches of a paired argument and request field.

    At their own level."""
    out = []
    for rule in (_type, _values, _format, _bounds, _required):
        found = rule(left, right, transform)
        if found:
            kind, severity, text = found
            out.append(
                record(
                    kind,
                    severity,
                    left.pointer,
                    right.pointer,
                    f"{label(left, right)}: {text}",
                    how,
                    transform,
                )
            )
    return out


def _type(left: Field, right: Field, transform):
    mine, theirs = left.types, right.types
    if theirs is None or mine is None:
        return None
    if _explained(mine, theirs, transform):
        return None
    stray = sorted(
        t for t in mine if t not in theirs and not (t == "integer" and "number" in theirs)
    )
    if not stray:
        return None
    if stray == ["null"]:
        if not right.required:
            # how OpenAI's strict mode says "absent": a layer that leaves nulls out sends nothing
            return None
        return (
            "type_mismatch",
            "warning",
            "the tool allows null, the API does not (and requires the field)",
        )
    return "type_mismatch", "error", f"{_types(mine)} in the tool, {_types(theirs)} in the API"


def _types(kinds) -> str:
    return " or ".join(sorted(kinds - {"null"}) or kinds)


def _explained(mine, theirs, transform) -> bool:
    """Tell whether a declared transform makes the type change expected."""
    if not transform:
        return False
    # a scale: dollars sent as cents, seconds as milliseconds
    if transform[:1] in ("x", "/"):
        return bool(mine - {"null"} <= {"integer", "number"} and theirs & {"integer", "number"})
    before, _, after = transform.partition(">")
    if (before, after) in (("epoch", "iso8601"), ("iso8601", "epoch")):
        return True
    before, after = _WORDS.get(before, before), _WORDS.get(after, after)
    return before in mine and (after in theirs or after == "number" and "integer" in theirs)


def _values(left: Field, right: Field, transform):
    theirs = schemas.enum(right.schema)
    if theirs is None:
        return None
    mine = schemas.enum(left.schema)
    if mine is None:
        if (
            left.types is not None
            and left.types - {"null"}
            and not left.types & set(map(_kind, theirs))
        ):
            # another type altogether: the type rule tells it
            return None
        return (
            "enum_mismatch",
            "warning",
            f"the API takes only {_show(theirs)}; the tool takes any value",
        )
    refused = [v for v in mine if v not in theirs and v is not None]
    cased = [v for v in refused if isinstance(v, str) and _loosely_in(v, theirs)]
    if (
        cased
        and (transform or "").count(">") == 1
        and transform.split(">")[1] in ("UPPER", "lower", "Title")
    ):
        refused = [v for v in refused if v not in cased]
        cased = []
    if cased:
        return (
            "enum_mismatch",
            "error",
            f"{_show(cased)} in another case in the API ({_show(theirs)})",
        )
    if refused:
        return (
            "enum_mismatch",
            "error",
            f"the API refuses {_show(refused)} (it takes {_show(theirs)})",
        )
    unused = [v for v in theirs if v not in mine and v is not None and not _loosely_in(v, mine)]
    if unused:
        return (
            "enum_mismatch",
            "info",
            f"the tool never offers {_show(unused)}, which the API takes",
        )
    return None


def _kind(value) -> str:
    return (
        "string"
        if isinstance(value, str)
        else "number"
        if isinstance(value, (int, float))
        else "other"
    )


def _loosely_in(value, values) -> bool:
    if not isinstance(value, str):
        return False
    return norm_text(value) in {norm_text(v) for v in values if isinstance(v, str)}


def _show(values) -> str:
    shown = ", ".join(repr(v) if isinstance(v, str) else str(v).lower() for v in values[:_SHOWN])
    return shown + (f" and {len(values) - _SHOWN} more" if len(values) > _SHOWN else "")


def _format(left: Field, right: Field, transform):
    theirs, mine = schemas.format_of(right.schema), schemas.format_of(left.schema)
    if theirs is None or mine == theirs or not (right.types is None or "string" in right.types):
        return None
    if transform and ">" in transform and not transform[:1].isupper():
        # a declared change of format (iso8601>epoch, date>iso8601) or of type
        return None
    if mine is None:
        if left.types is not None and "string" not in left.types:
            # a number or a boolean for a string: the type rule tells it
            return None
        return (
            "format_mismatch",
            "info",
            f"the API wants {with_article(theirs)} string; the tool does not say so",
        )
    return "format_mismatch", "warning", f"{mine} in the tool, {theirs} in the API"


def _bounds(left: Field, right: Field, transform):
    if transform and transform[:1] in ("x", "/"):
        # a scaled number's bounds are in other units
        return None
    theirs, mine = schemas.bounds(right.schema), schemas.bounds(left.schema)
    wider = [
        (f"{word} {_limit(word, mine[word])}" if word in mine else f"no {word}")
        + f" where the API's is {_limit(word, theirs[word])}"
        for word in sorted(theirs)
        if (word in mine and schemas.looser(word, mine[word], theirs[word]))
        or _unbounded(left, word, mine)
    ]
    return (
        ("range_mismatch", "warning", "the tool allows more: " + "; ".join(wider))
        if wider
        else None
    )


def _unbounded(left: Field, word: str, mine: dict) -> bool:
    """Tell whether the tool sets no such bound on values of the kind it bounds.

    A string's length, a number."""
    kind = schemas.BOUNDED.get(word, "array")
    types = left.types
    return (
        word not in mine
        and schemas.enum(left.schema) is None
        and types is not None
        and (kind in types or (kind == "number" and "integer" in types))
    )


def _limit(word: str, bound) -> str:
    value, exclusive = bound
    return f"{('below ' if word.startswith('max') else 'above ') if exclusive else ''}{value:g}"


def _required(left: Field, right: Field, transform):
    if (
        right.required
        and not left.required
        and not schemas.fills_itself(right.schema)
        and left.pointer
    ):
        if left.key == "*" or right.key == "*":
            return None
        return "required_mismatch", "warning", "the API requires it; the tool makes it optional"
    return None
