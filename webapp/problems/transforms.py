"""Name the transform a finding shows, from kind and values.

`integer>string`, `x100`, `camelCase>snake_case`...

Used only when the finding carries no `transform` of its own (the engine adds one where it knows
it).
"""

import re
from fractions import Fraction

from ..analysis import type_name

_ISO = re.compile(
    r"\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?)?\Z"
)
_EPOCH_TEXT = re.compile(r"\d{10}(\d{3})?(\.\d+)?\Z")
_DAY_FIRST = re.compile(r"\d{1,2}/\d{1,2}/\d{4}")
_YEAR_LAST_DOTS = re.compile(r"\d{1,2}\.\d{1,2}\.\d{4}")


def values(finding: dict) -> tuple:
    """Return (left value, right value) of a finding, or of its first folded example."""
    if "left_value" in finding or "right_value" in finding:
        return finding.get("left_value"), finding.get("right_value")
    for example in finding.get("examples") or []:
        if isinstance(example, dict):
            return example.get("left_value"), example.get("right_value")
    return None, None


def fingerprint_key_style(key: str) -> str:
    """Return a key's case style in the words fingerprints first used.

    The words problem fingerprints were first written with.

    The analysis names styles for findings (analysis/values/json_values.py: key_style); this older
    vocabulary (PascalCase for `Name`, UPPER, SCREAMING_SNAKE) is frozen because stored fingerprints
    hold it: a change would regroup every rename problem."""
    if "_" in key:
        return "SCREAMING_SNAKE" if key.isupper() else "snake_case"
    if "-" in key:
        return "kebab-case"
    if key[:1].isupper():
        return "UPPER" if key.isupper() else "PascalCase"
    return "camelCase" if any(ch.isupper() for ch in key) else "lower"


def text_style(text: str) -> str:
    """Return the letter case of a string value.

    Lower, UPPER, Title or mixed (with its separator)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return "other"
    if text.islower():
        style = "lower"
    elif text.isupper():
        style = "UPPER"
    elif text.istitle():
        style = "Title"
    else:
        style = "mixed"
    for sep, name in (("_", "_"), ("-", "-"), (" ", " ")):
        if sep in text:
            return f"{style}{name}"
    return style


def time_format(value) -> str:
    """Return the format of a time or number written as a value.

    iso8601, epoch, d/m/y, text."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "epoch_ms" if abs(value) >= 1e12 else "epoch"
    if not isinstance(value, str):
        return type_name(value)
    if _ISO.match(value):
        return "iso8601" if len(value) > 10 else "date"
    if _EPOCH_TEXT.match(value):
        return "epoch_text"
    if _DAY_FIRST.match(value):
        return "d/m/y"
    if _YEAR_LAST_DOTS.match(value):
        return "d.m.y"
    return "text"


def scale(left, right) -> str | None:
    """Return `x100` or `/100` for a number scaled by a power of ten."""
    try:
        ratio = Fraction(str(right)) / Fraction(str(left))
    except (ValueError, ZeroDivisionError, TypeError):
        return None
    if ratio >= 1:
        return f"x{ratio.numerator // ratio.denominator}" if ratio.denominator == 1 else None
    inverse = 1 / ratio
    return f"/{inverse.numerator}" if inverse.denominator == 1 else None


def _last_key(where: dict | None) -> str:
    return ((where or {}).get("path") or "").rsplit("/", 1)[-1]


def derive_transform(kind: str, finding: dict) -> str | None:
    """Return the transform of a finding of this kind, or None when the kind has none."""
    left, right = values(finding)
    if kind == "type_changed":
        formats = (time_format(left), time_format(right))
        if {"iso8601", "date"} & set(formats) and {"epoch", "epoch_ms", "epoch_text"} & set(
            formats
        ):
            # a time that changed type
            return ">".join(f.replace("epoch_text", "epoch") for f in formats)
        return f"{type_name(left)}>{type_name(right)}"
    if kind == "scaled":
        return scale(left, right)
    if kind == "case_changed":
        left, right = _last_key(finding.get("left")), _last_key(finding.get("right"))
        return f"{fingerprint_key_style(left)}>{fingerprint_key_style(right)}"
    if kind == "enum_changed" and isinstance(left, str) and isinstance(right, str):
        return f"{text_style(left)}>{text_style(right)}"
    if kind == "format_changed":
        left, right = (time_format(value).replace("epoch_text", "epoch") for value in (left, right))
        return f"{left}>{right}"
    return None
