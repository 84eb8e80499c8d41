"""Tell an argument's value from its form on the wire.

Text in a URL or form, shapes layers make on purpose."""

import re

from ...common import jsontext
from ..values.json_values import REDACTED, is_number, same, type_name
from ..values.readings import read_number

# ٥ is no number on the wire
_PLAIN_NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$", re.ASCII)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$", re.ASCII)
_MIDNIGHT = re.compile(r"^T00:00(:00(\.0+)?)?(Z|[+-]00:?00)?$")
# longer texts are not read as JSON (a form's text is bounded by its body's)
MAX_JSON_TEXT = 64 * 1024
# how a list is joined into one parameter when no contract says otherwise
SEPARATORS = (",", "|")


def as_text(value) -> str | None:
    """Return a scalar as a URL or form carries it (`5`, `true`, ``).

    None for a container."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return None if isinstance(value, (dict, list)) else str(value)


def wire_same(value, sent, schema: dict | None = None, separators=SEPARATORS) -> bool:
    """Tell whether `sent` is `value` as the wire writes it.

    `sent` is text, or a list of texts for a repeated key.

    `schema` is the parameter's own (a boolean one takes only `true`/`false`); `separators` those
    the contract allows between the items of a list sent as one parameter."""
    if value == REDACTED or sent == REDACTED:
        return True
    if isinstance(sent, list):
        if isinstance(value, list):
            return len(value) == len(sent) and all(
                wire_same(v, s, None, separators) for v, s in zip(value, sent)
            )
        return len(sent) == 1 and wire_same(value, sent[0], schema, separators)
    if not isinstance(sent, str):
        return same(value, sent)
    if isinstance(value, (dict, list)) and json_text_of(value, sent):
        return True
    if isinstance(value, list):
        if len(value) == 1 and wire_same(value[0], sent, None, separators):
            return True
        texts = [as_text(v) for v in value]
        return None not in texts and any(sep.join(texts) == sent for sep in separators)
    if isinstance(value, bool):
        return sent == as_text(value) or (
            not _says(schema, "boolean") and sent == ("1" if value else "0")
        )
    if is_number(value):
        return bool(_PLAIN_NUMBER.match(sent)) and read_number(sent) == value
    if isinstance(value, str):
        return sent == value or widened_date(value, sent)
    return sent == as_text(value)


def json_text_of(value, sent: str) -> bool:
    """Tell whether a text is a list's or object's JSON text (`["a.png"]`).

    A URL or form carries a structure as one text that way: the same value, written out."""
    if not sent.startswith(("[", "{")) or len(sent) > MAX_JSON_TEXT:
        return False
    try:
        return same(value, jsontext.loads(sent))
    except ValueError:
        return False


def wire_reading(value, sent):
    """Read a text from the wire as the type of the argument it came from.

    `"200"` as 200 for a number, so a changed value is told as the change it is (scaled,
    value_changed), not as a type change."""
    if isinstance(sent, str):
        if is_number(value) and _PLAIN_NUMBER.match(sent):
            return read_number(sent)
        if isinstance(value, bool) and sent in ("true", "false"):
            return sent == "true"
    return sent


def widened_date(before, after) -> bool:
    """Tell whether a date became a date-time at midnight UTC.

    `2026-03-01` -> `2026-03-01T00:00:00Z`."""
    return (
        isinstance(before, str)
        and isinstance(after, str)
        and bool(_DATE.match(before))
        and after.startswith(before)
        and bool(_MIDNIGHT.match(after[len(before) :]))
    )


def one_item(before, after) -> bool:
    """Tell whether a scalar was sent as a one-item list of itself.

    `"CLOSED"` -> `["CLOSED"]`."""
    return (
        isinstance(after, list)
        and len(after) == 1
        and not isinstance(before, (dict, list))
        and same(before, after[0])
    )


def on_purpose(before, after) -> str | None:
    """Name a shape a mapping layer makes on purpose from a JSON value, or None."""
    if one_item(before, after):
        return "sent as a one-item list"
    if widened_date(before, after):
        return "a date sent as a date-time at midnight"
    return None


def _says(schema, kind: str) -> bool:
    if not isinstance(schema, dict):
        return False
    declared = schema.get("type")
    return declared == kind or (
        isinstance(declared, list) and kind in declared and "string" not in declared
    )


def joined_parts(sent: str, separators=SEPARATORS) -> list[str] | None:
    """Split a parameter that may join several arguments into its parts.

    `latlng=40.7,-73.9`. Else None."""
    for sep in separators:
        parts = sent.split(sep)
        if len(parts) >= 2 and all(parts):
            return parts
    return None


def text_class(value) -> str:
    """Name the class of a value as a URL or form writes it.

    A number's text is a number."""
    if not isinstance(value, str):
        name = type_name(value)
        return "number" if name == "integer" else name
    if _PLAIN_NUMBER.match(value):
        return "number"
    return "boolean" if value in ("true", "false") else "string"
