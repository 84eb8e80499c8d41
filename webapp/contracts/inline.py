"""Inline an OpenAPI operation's local $refs into self-contained schemas.

Request, response and error JSON Schemas."""

from ..common import jsontext
from ..common.pointers import MISSING, resolve

DIALECT_2020 = "https://json-schema.org/draft/2020-12/schema"
MAX_NODES = 100_000
_LITERAL = ("example", "examples", "enum", "const", "default", "required")
_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")


def operation_schemas(inliner, op: dict) -> dict:
    """Return the request, success response and error schemas of one operation.

    Inlined."""
    body = _json_schema(inliner, op.get("requestBody"))
    success, errors = None, []
    for code, response in sorted(
        (op.get("responses") or {}).items(), key=lambda kv: _code_order(kv[0])
    ):
        schema = _json_schema(inliner, response)
        code = str(code).upper()
        if schema is None:
            continue
        if code.startswith("2") and success is None:
            success = schema
        elif code.startswith(("4", "5")) or code == "DEFAULT":
            if all(
                jsontext.dumps(schema, option=jsontext.OPT_SORT_KEYS)
                != jsontext.dumps(e, option=jsontext.OPT_SORT_KEYS)
                for e in errors
            ):
                errors.append(schema)
    error = errors[0] if len(errors) == 1 else ({"anyOf": errors} if errors else None)
    if error is not None and inliner.is31 and len(errors) > 1:
        error["$schema"] = DIALECT_2020
    return {"request_schema": body, "response_schema": success, "error_schema": error}


def _code_order(code) -> tuple:
    code = str(code).upper()
    return (code == "DEFAULT", "X" in code, code)


def _json_schema(inliner, holder):
    """Return the inlined JSON schema of a request body or a response, or None."""
    holder = _deref(inliner.doc, holder)
    content = holder.get("content") if isinstance(holder, dict) else None
    if not isinstance(content, dict):
        return None
    media = next(
        (m for m in content if m.split(";")[0].strip() == "application/json"), None
    ) or next((m for m in content if "json" in m), None)
    if media is None or not isinstance(content[media], dict) or "schema" not in content[media]:
        return None
    schema = inliner.inline(content[media]["schema"])
    if inliner.is31 and isinstance(schema, dict):
        schema = {"$schema": DIALECT_2020, **schema}
    return schema


def _deref(doc, node, seen=()):
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"] not in seen:
        seen = (*seen, node["$ref"])
        node = _target(doc, node["$ref"])
    return node


def _target(doc, ref: str):
    if not ref.startswith("#"):
        raise ValueError(f"external $ref not supported: {ref!r}")
    target = resolve(doc, ref[1:])
    if target is MISSING:
        raise ValueError(f"$ref points nowhere: {ref!r}")
    return target


class Inliner:
    """Inline local $refs and translate OpenAPI 3.0 keywords.

    A recursive $ref is left as {}."""

    def __init__(self, doc, is31: bool):
        self.doc, self.is31, self.nodes = doc, is31, 0

    def inline(self, node, stack=()):
        """Return a copy of a schema node with local $refs inlined."""
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise ValueError("schemas too large to inline (more than 100,000 nodes)")
        if isinstance(node, list):
            return [self.inline(x, stack) for x in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in stack:
                return {}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            target = self.inline(_target(self.doc, ref), (*stack, ref))
            return (
                {**target, **self.inline(siblings, stack)} if isinstance(target, dict) else target
            )
        out = {}
        for key, value in node.items():
            if key in _LITERAL:
                out[key] = value
            elif key in _MAPS and isinstance(value, dict):
                out[key] = {name: self.inline(sub, stack) for name, sub in value.items()}
            else:
                out[key] = self.inline(value, stack)
        return out if self.is31 else from_30(out)


def from_30(schema: dict) -> dict:
    """Translate OpenAPI 3.0 schema keywords into their JSON Schema forms."""
    for bound, exclusive in (("maximum", "exclusiveMaximum"), ("minimum", "exclusiveMinimum")):
        if schema.get(exclusive) is True and bound in schema:
            schema[exclusive] = schema.pop(bound)
        elif isinstance(schema.get(exclusive), bool):
            schema.pop(exclusive)
    if schema.pop("nullable", False) is not True:
        return schema
    kind = schema.get("type")
    if isinstance(kind, str):
        schema["type"] = [kind, "null"]
        if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
            schema["enum"] = [*schema["enum"], None]
        return schema
    if isinstance(kind, list):
        schema["type"] = kind if "null" in kind else [*kind, "null"]
        return schema
    return {"anyOf": [schema, {"type": "null"}]}
