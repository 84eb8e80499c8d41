"""Small helpers on JSON values.

Type names, display, redaction-aware equality, key styles."""

import re
from functools import lru_cache

from ...common import jsontext

REDACTED = "[REDACTED]"
_SEPARATORS = re.compile(r"[-_\s.]")
# a value's separators: a key's, and a colon between two parts (`1234-5678`, `1234:5678`), not one
# around the value (`:thumbsup:` is `thumbsup` wrapped)
_VALUE_SEPARATORS = re.compile(r"[-_\s.]|(?<=[^\W_]):(?=[^\W_])")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def type_name(value) -> str:
    """Return the JSON type name of a Python value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def is_number(value) -> bool:
    """Tell whether a value is a JSON number (booleans are not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_empty(value) -> bool:
    """Tell whether a value is null or empty.

    "", [] or {} (what a dropped argument may lose freely)."""
    return value is None or (type(value) in (str, list, dict) and not value)


def is_container(value) -> bool:
    """Tell whether a value is an object or an array."""
    return isinstance(value, (dict, list))


def show(value, limit: int = 60) -> str:
    """Render a value as short JSON text for a message."""
    try:
        text = jsontext.dumps(value).decode()
    except TypeError:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_redacted(value) -> bool:
    """Tell whether a value was replaced by the redaction marker."""
    return value == REDACTED


def same(a, b) -> bool:
    """Compare two JSON values strictly.

    True is not 1, redacted equals anything."""
    if a is b:
        return True
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        if type(a) is not type(b):
            return is_redacted(a) or is_redacted(b)
        if a == b:
            return _strict_equal_container(a, b)
        return _same_children(a, b)
    if isinstance(a, bool) or isinstance(b, bool):
        return (type(a) is type(b) and a == b) or is_redacted(a) or is_redacted(b)
    return a == b or is_redacted(a) or is_redacted(b)


def _strict_equal_container(a, b) -> bool:
    # `==` says 1 == 1.0 == True; orjson text tells booleans apart in C speed.
    try:
        return canonical(a) == canonical(b) or _same_children(a, b)
    except TypeError:
        return _same_children(a, b)


def _same_children(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


def canonical(value) -> bytes:
    """Return a canonical JSON text usable as a hashable key."""
    return jsontext.dumps(value, option=jsontext.OPT_SORT_KEYS)


# the pairing passes, the rules and the fold each ask it of the same keys: 50,000 keys renamed
@lru_cache(maxsize=1 << 16)
def norm_key(key: str) -> str:
    """Reduce a key to its letters so camelCase, snake_case, kebab and Pascal agree."""
    return _SEPARATORS.sub("", key).lower()


def key_style(key: str) -> str:
    """Name the case style of a key (camelCase, snake_case, kebab-case, PascalCase...)."""
    if "_" in key:
        return "SCREAMING_CASE" if key.isupper() else "snake_case"
    if "-" in key:
        return "kebab-case"
    if _CAMEL.search(key):
        return "PascalCase" if key[:1].isupper() else "camelCase"
    return "lowercase" if key.islower() else "other"


def norm_text(text: str) -> str:
    """Reduce a string to its case- and separator-free form for enum comparison."""
    return _VALUE_SEPARATORS.sub("", text).lower()
