"""A learnt shape written as JSON Schema 2020-12.

A contract draft that validates every call it was learnt from."""

from ..common.pointers import unescape
from ..problems.fingerprint import ID
from .facts import ID_PATTERNS
from .shapes import MIN_HISTORY, _closed_enum, _count, parent_of

DIALECT = "https://json-schema.org/draft/2020-12/schema"
FORMATS = ("date-time", "date", "uuid", "email", "uri")
MAX_ENUM = 12
# pointer levels written out; deeper is any value (orjson and JSON Schema validators nest only so
# far)
MAX_DEPTH = 48


def observed_schema(shape: dict | None) -> dict | None:
    """Return the JSON Schema of a shape (None before any call).

    With `x-tracediff-seen` counts per property."""
    if not shape or not shape["calls"] or "" not in shape["paths"]:
        return None
    children: dict[str, list[str]] = {}
    for path in shape["paths"]:
        if path:
            children.setdefault(parent_of(path), []).append(path)
    schema = _node(shape["paths"], children, "")
    return {
        "$schema": DIALECT,
        **schema,
        "x-tracediff-seen": {"calls": shape["calls"], "folded": shape["folded"]},
    }


def _node(paths: dict, children: dict, path: str) -> dict:
    entry = paths[path]
    if path.count("/") >= MAX_DEPTH:
        return {}
    types = sorted(entry["t"])
    if "integer" in types and "number" in types:
        types.remove("integer")
    schema: dict = {"type": types[0] if len(types) == 1 else types} if types else {}
    if "object" in types:
        _object(schema, paths, children, path, entry)
    if "array" in types and f"{path}/*" in paths:
        schema["items"] = _seen(_node(paths, children, f"{path}/*"), paths, f"{path}/*")
    if "string" in types:
        _string(schema, entry, types)
    return schema


def _object(schema, paths, children, path, entry) -> None:
    properties, required = {}, []
    for child in sorted(children.get(path, ())):
        segment = child.rsplit("/", 1)[1]
        if segment == "*":
            continue
        if segment == ID:
            schema["additionalProperties"] = _seen(_node(paths, children, child), paths, child)
            continue
        name = "*" if segment == "~2" else unescape(segment)
        properties[name] = _seen(_node(paths, children, child), paths, child)
        if entry["objs"] and paths[child]["inst"] >= entry["objs"]:
            required.append(name)
    if properties:
        schema["properties"] = properties
    if required:
        schema["required"] = required


def _string(schema, entry, types) -> None:
    strings = _count(entry["t"], "string")
    if entry["len"] and entry["len"][0] == entry["len"][1] and strings >= MIN_HISTORY:
        # a fixed length over many calls (a currency code, an id) is a rule; a range seen is only a
        # range seen
        schema["minLength"] = schema["maxLength"] = entry["len"][0]
    formats = [name for name in entry["f"]]
    if len(formats) == 1 and formats[0] in FORMATS:
        schema["format"] = formats[0]
    elif len(formats) == 1 and formats[0] in ID_PATTERNS:
        schema["pattern"] = ID_PATTERNS[formats[0]]
        schema["x-tracediff-format"] = formats[0]
    values = entry["v"]
    closed = values and len(values) <= MAX_ENUM and strings >= MIN_HISTORY
    if closed and types == ["string"] and _closed_enum(values, strings) >= 0.99 * strings:
        schema["enum"] = sorted(values)


def _seen(schema: dict, paths: dict, path: str) -> dict:
    entry, parent = paths[path], paths[parent_of(path)]
    of = _count(parent["t"], "object") if not path.endswith("/*") else _count(parent["t"], "array")
    types = {name: seen[0] for name, seen in sorted(entry["t"].items())}
    seen = {
        "calls": entry["n"],
        "of": of,
        "types": types,
        **({"lengths": entry["len"]} if entry["len"] else {}),
    }
    return {**schema, "x-tracediff-seen": seen}
