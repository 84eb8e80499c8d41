"""Say how a finding's ends were paired and what it changed.

Quiet the changes a contract makes expected."""

import re

from ..schemas.declared import field_schemas
from ..schemas.validation import is_valid
from ..values.transforms import reason_of, transform_of
from .conversions import declared_transform, quiet_conversion

_INDEX = re.compile(r"/\d+(?=/|$)")
_CHANGES = {"type_changed", "enum_changed", "format_changed", "scaled"}


def describer(contract):
    """Return (side, path) -> the schema's description of that field, or None.

    The schema is the contract's."""
    contract = contract or {}
    schemas = (contract.get("arguments_schema"), contract.get("request_schema"))
    if not any(isinstance(s, dict) for s in schemas):
        return None
    cache: dict = {}

    def describe(side: int, path: str):
        key = (side, _INDEX.sub("/0", path))
        if key not in cache:
            texts = [s.get("description") for s in field_schemas(schemas[side], key[1])]
            cache[key] = next((t for t in texts if isinstance(t, str)), None)
        return cache[key]

    return describe


def explain(f: dict, pairing, request_schema) -> None:
    """Give a mapping finding its reason and transform.

    Lower a change that is declared or demanded."""
    left, right = f["left"], f["right"]
    f["reason"] = reason_of(pairing, left["path"]) if left and right else None
    # a folded finding already carries its items' transform
    if f["transform"] is None:
        f["transform"] = transform_of(f)
    if quiet_conversion(f, pairing) or f["kind"] not in _CHANGES or not left or not right:
        return
    declared = declared_transform(pairing, left["path"])
    if declared is not None and declared == f["transform"]:
        f["severity"], f["message"] = "info", f["message"] + " (declared transform)"
    elif _demanded(request_schema, right["path"], f["left_value"], f["right_value"]):
        f["severity"], f["message"] = (
            "info",
            f["message"] + " (the request schema asks for this form)",
        )


def _demanded(schema, path: str, before, after) -> bool:
    """Tell whether the request schema accepts a value's new form, not its old."""
    # the field's own schema
    subs = [s for s in field_schemas(schema, path) if "$ref" not in s][:1]
    if not subs:
        return False
    try:
        return is_valid(after, subs[0]) and not is_valid(before, subs[0])
    # a fragment that cannot stand alone as a schema tells nothing
    except Exception:
        return False
