"""Ask a schema about a path: is the field declared, is it required."""

from ...common import patterns
from ...common.pointers import resolve, tokens

_MAX_DEPTH = 8


def _expand(schema, root, depth=0) -> list[dict]:
    """Return a schema and the branches it combines (local $ref, allOf, anyOf, oneOf)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return []
    out = [schema]
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#"):
        out += _expand(resolve(root, ref[1:], None), root, depth + 1)
    for word in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(word, []) if isinstance(schema.get(word), list) else []:
            out += _expand(branch, root, depth + 1)
    return out


def _step(candidates, token: str, root) -> list[dict]:
    out = []
    for schema in candidates:
        props = schema.get("properties")
        if isinstance(props, dict) and token in props:
            out += _expand(props[token], root)
        for pattern, sub in (schema.get("patternProperties") or {}).items():
            if _matches(pattern, token):
                out += _expand(sub, root)
        items = schema.get("prefixItems") or (
            schema.get("items") if isinstance(schema.get("items"), list) else None
        )
        if token.isdigit() and isinstance(items, list) and int(token) < len(items):
            out += _expand(items[int(token)], root)
        elif token.isdigit() and isinstance(schema.get("items"), dict):
            out += _expand(schema["items"], root)
        elif isinstance(schema.get("additionalProperties"), dict) and not (
            isinstance(props, dict) and token in props
        ):
            out += _expand(schema["additionalProperties"], root)
    return out


def _matches(pattern: str, key: str) -> bool:
    """Tell whether a `patternProperties` key matches.

    In RE2; one it cannot run never does."""
    return patterns.search(pattern, key) is True


def _parents(schema, path: str):
    candidates = _expand(schema, schema)
    parts = tokens(path)
    for token in parts[:-1]:
        candidates = _step(candidates, token, schema)
    return candidates, (parts[-1] if parts else None)


def declares(schema, path: str) -> bool | None:
    """Tell whether a schema declares the field at `path`.

    None: the schema cannot tell."""
    if not isinstance(schema, dict) or not path:
        return None
    parents, key = _parents(schema, path)
    if not parents:
        return None
    if _step(parents, key, schema):
        return True
    closed = any(
        isinstance(p.get("properties"), dict) or p.get("additionalProperties") is False
        for p in parents
    )
    return False if closed else None


def requires(schema, path: str) -> bool:
    """Tell whether a schema marks the field at `path` as required."""
    if not isinstance(schema, dict) or not path:
        return False
    parents, key = _parents(schema, path)
    return any(isinstance(p.get("required"), list) and key in p["required"] for p in parents)


def field_schemas(schema, path: str) -> list[dict]:
    """Return the (sub)schemas that describe the field at `path`.

    Empty when none does."""
    if not isinstance(schema, dict) or not path:
        return []
    parents, key = _parents(schema, path)
    return _step(parents, key, schema) if parents else []
