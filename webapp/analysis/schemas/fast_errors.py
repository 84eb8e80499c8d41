"""Describe a big snapshot's errors from jsonschema-rs.

In the records the Python validator gives."""

from ...common.pointers import child, from_tokens, resolve
from .hints import closest


def fast_errors(validator, instance, schema, limit: int) -> list[dict] | None:
    """Return up to about `limit` errors from a jsonschema-rs validator.

    None when it fails."""
    out: list[dict] = []
    try:
        for error in validator.iter_errors(instance):
            out.extend(_describe(error, instance, schema))
            if len(out) >= limit:
                break
    # anything jsonschema-rs cannot describe: the Python validator will
    except Exception:
        return None
    return out


def _describe(error, instance, schema) -> list[dict]:
    path, kind = from_tokens(error.instance_path), error.kind
    base = {
        "path": path,
        "keyword": _keyword(kind.name, error.schema_path),
        "message": error.message,
        "schema_path": from_tokens(error.schema_path),
    }
    if kind.name == "additionalProperties":
        return _unexpected_keys(kind.unexpected, base, _declared(schema, error.schema_path))
    if kind.name == "required":
        _missing(
            kind.property, base, resolve(instance, path, None), _declared(schema, error.schema_path)
        )
    elif kind.name == "enum":
        base["allowed"] = list(kind.options)
        value = resolve(instance, path, None)
        near = (
            closest(value, [v for v in kind.options if isinstance(v, str)])
            if isinstance(value, str)
            else None
        )
        if near:
            base["hint"] = f"did you mean {near!r}?"
    elif kind.name == "const":
        base["allowed"] = [kind.expected_value]
    return [base]


def _keyword(name: str, schema_path) -> str:
    # The schema path ends with the keyword (as in the Python validator), except for a `false`
    # schema.
    if name == "falseSchema":
        return "false"
    last = schema_path[-1] if schema_path else None
    return last if isinstance(last, str) else name


def _declared(schema, schema_path) -> list[str]:
    """Return the property names declared beside the failing keyword."""
    node = resolve(schema, from_tokens(schema_path[:-1]), None)
    props = node.get("properties") if isinstance(node, dict) else None
    return list(props) if isinstance(props, dict) else []


def _unexpected_keys(keys, base: dict, declared: list[str]) -> list[dict]:
    out = []
    for key in keys:
        item = dict(
            base, path=child(base["path"], key), message=f"{key!r} is not a declared property"
        )
        hint = closest(key, declared)
        if hint:
            item["hint"] = f"did you mean {hint!r}?"
        out.append(item)
    return out or [base]


def _missing(name, base: dict, holder, declared: list[str]) -> None:
    if not isinstance(name, str):
        return
    # Point at the missing key itself, as the Python validator's records do.
    base["path"] = child(base["path"], name)
    unknown = [k for k in holder if k not in declared] if isinstance(holder, dict) else []
    near = closest(name, unknown)
    if near:
        base["hint"] = f"found {near!r}: did you mean {name!r}?"
