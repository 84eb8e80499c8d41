"""Where traffic disagrees with a declared schema.

The observed shape read against it, field by field (pure)."""

from ..common.pointers import unescape
from ..problems.fingerprint import ID
from .shapes import _count, parent_of

# the observed types a declared type allows
_TYPES = {"number": ("number", "integer")}


def disagreements(shape: dict | None, schema) -> list[dict]:
    """Return [{"path", "what", "calls", "of"}].

    Fields whose observed type, presence or values the declared schema does not allow (a type it
    does not name, a required field some calls lacked, a value outside its enum, a field it does not
    declare)."""
    if not shape or not isinstance(schema, dict):
        return []
    out = []
    for path, entry in sorted(shape["paths"].items()):
        declared = _declared_at(schema, path)
        if declared is _UNDECLARED:
            if _declared_at(schema, parent_of(path)) not in (None, _UNDECLARED):
                out.append(
                    _row(path, "a field the schema does not declare", entry["n"], _of(shape, path))
                )
            continue
        if not isinstance(declared, dict):
            continue
        out += _type_rows(path, entry, declared, shape)
    return out


def _type_rows(path, entry, declared, shape) -> list[dict]:
    out = []
    allowed = declared.get("type")
    allowed = [allowed] if isinstance(allowed, str) else allowed
    if isinstance(allowed, list):
        for kind, seen in sorted(entry["t"].items()):
            if not any(kind in _TYPES.get(a, (a,)) or kind == a for a in allowed):
                out.append(
                    _row(
                        path,
                        f"{kind}, where the schema says {' or '.join(allowed)}",
                        seen[0],
                        entry["n"],
                    )
                )
    enum = declared.get("enum")
    if isinstance(enum, list) and entry["v"]:
        outside = sorted(v for v in entry["v"] if v not in enum)
        if outside:
            calls = sum(entry["v"][v][0] for v in outside)
            out.append(
                _row(path, f"values outside its enum: {', '.join(outside[:5])}", calls, entry["n"])
            )
    for name in declared.get("required") or () if "object" in entry["t"] else ():
        child = shape["paths"].get(f"{path}/{name.replace('~', '~0').replace('/', '~1')}")
        objects = _count(entry["t"], "object")
        present = child["n"] if child else 0
        if present < objects:
            out.append(_row(f"{path}/{name}", "required, and missing", objects - present, objects))
    return out


_UNDECLARED = object()


def _declared_at(schema, path: str | None):
    """Return the subschema a normalised pointer reaches through properties and items.

    _UNDECLARED where the schema names the object's properties but not this one; None where it does
    not say (no properties, a $ref)."""
    if path is None:
        return None
    node = schema
    for part in path[1:].split("/") if path else ():
        if not isinstance(node, dict) or "$ref" in node:
            return None
        if part == "*":
            node = node.get("items")
            continue
        properties = node.get("properties")
        name = unescape(part)
        if isinstance(properties, dict) and name in properties:
            node = properties[name]
        elif (
            part == ID
            or isinstance(node.get("additionalProperties"), dict)
            or node.get("patternProperties")
        ):
            node = (
                node.get("additionalProperties")
                if isinstance(node.get("additionalProperties"), dict)
                else None
            )
        elif isinstance(properties, dict):
            return _UNDECLARED
        else:
            return None
    return node


def _of(shape, path) -> int:
    parent = shape["paths"].get(parent_of(path))
    return _count(parent["t"], "object") if parent else shape["calls"]


def _row(path, what, calls, of) -> dict:
    return {"path": path or "/", "what": what, "calls": calls, "of": of}
