"""Units read from field names and the conversion a pair of them expects.

Names such as `amount_cents`, `timeoutMs`, `fee_bps`."""

import re
from functools import lru_cache

from ...common.pointers import last
from .json_values import is_number
from .readings import read_number

_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# The last word of a key -> (dimension, size in the dimension's base unit).
UNITS = {
    "cents": ("money", 0.01),
    "cent": ("money", 0.01),
    "pence": ("money", 0.01),
    "minor": ("money", 0.01),
    "ms": ("time", 0.001),
    "millis": ("time", 0.001),
    "milliseconds": ("time", 0.001),
    "msec": ("time", 0.001),
    "us": ("time", 1e-6),
    "micros": ("time", 1e-6),
    "microseconds": ("time", 1e-6),
    "s": ("time", 1),
    "sec": ("time", 1),
    "secs": ("time", 1),
    "seconds": ("time", 1),
    "minutes": ("time", 60),
    "mins": ("time", 60),
    "min": ("time", 60),
    "hours": ("time", 3600),
    "hrs": ("time", 3600),
    "days": ("time", 86400),
    "bps": ("ratio", 0.0001),
    "pct": ("ratio", 0.01),
    "percent": ("ratio", 0.01),
    "percentage": ("ratio", 0.01),
    "bytes": ("size", 1),
    "kb": ("size", 1000),
    "kib": ("size", 1024),
    "mb": ("size", 1e6),
    "mib": ("size", 1 << 20),
    "gb": ("size", 1e9),
}
# What a field with no unit in its name holds, by dimension: money in major units (12.5 dollars);
# the others are told apart by nothing, so their conversion into a named unit may be none too.
_UNNAMED = {"money": (1,), "time": (1, None), "ratio": (1, None), "size": (1, None)}
# Words that end a key but say it holds no quantity of that unit ("min" of "price_min" is a bound).
_NOT_UNIT_AFTER = {"min": {"price", "amount", "value", "count", "length", "size", "age"}}


@lru_cache(maxsize=1 << 14)
def unit_of(key: str) -> tuple[str, float] | None:
    """Return (dimension, size) of the unit a key names with its last word.

    `amountCents`: money, 0.01."""
    found = [w.lower() for w in _WORD.findall(key)]
    if len(found) < 2:
        # "ms" or "s" alone is a name, not a unit
        return None
    unit = UNITS.get(found[-1])
    if unit is None or found[-2] in _NOT_UNIT_AFTER.get(found[-1], ()):
        return None
    return unit


def expected_factors(left_path: str, right_path: str) -> tuple[float, ...] | None:
    """Return the factors the names of an (argument, request) pair allow.

    None when they say nothing.

    Only a request field that names its unit expects a conversion: an API field `amount` may hold
    cents or dollars, but `amount_cents` fed from `amount` (dollars, as arguments are) must be
    x100."""
    right = unit_of(last(right_path)) if right_path else None
    if right is None or not left_path:
        return None
    left = unit_of(last(left_path))
    if left is None:
        # None: the argument is in the request's unit already
        return tuple(1.0 if f is None else f / right[1] for f in _UNNAMED[right[0]])
    if left[0] != right[0]:
        return None
    return (left[1] / right[1],)


def scale_of(transform) -> float | None:
    """Return the factor of a declared scale transform, else None.

    "x100" -> 100, "/1000" -> 0.001."""
    if not isinstance(transform, str) or len(transform) < 2 or transform[0] not in "x/":
        return None
    try:
        n = float(transform[1:])
    except ValueError:
        return None
    if n <= 0:
        return None
    return n if transform[0] == "x" else 1 / n


def number(value):
    """Read a value as a number.

    A JSON number, or a number written as text (query strings, forms)."""
    if is_number(value):
        return value
    if isinstance(value, str):
        return read_number(value)
    return None


def follows(a, b, factor: float) -> bool:
    """Tell whether b is a times factor (numbers, or numbers written as text)."""
    x, y = number(a), number(b)
    if x is None or y is None:
        return False
    want = x * factor
    # 12.345 -> 1235 cents
    return abs(y - want) <= 1e-9 * max(abs(want), 1) or (
        factor > 1 and abs(y - want) < 0.5001 and float(y).is_integer()
    )


def factor_name(factor: float) -> str:
    """Write a factor as a transform: 100 -> "x100", 0.001 -> "/1000"."""
    if factor >= 1:
        return f"x{factor:g}"
    return f"/{1 / factor:g}"
