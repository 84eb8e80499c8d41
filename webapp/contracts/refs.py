"""Find the `$ref`s of a contract's schemas that cannot be resolved offline.

Nothing is fetched."""

from ..common.pointers import MISSING, from_tokens, is_pointer, resolve

SCHEMA_KEYS = (
    "arguments_schema",
    "request_schema",
    "response_schema",
    "error_schema",
    "result_schema",
)
# their values are data, not schemas
LITERAL_KEYS = ("enum", "const", "default", "example", "examples")
_SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")


def ref_problems(contract: dict) -> list[str]:
    """Name every `$ref` of the contract's schemas that cannot be resolved offline."""
    problems = []
    for key in SCHEMA_KEYS:
        schema = contract.get(key)
        if isinstance(schema, dict) and not _surely_resolved(schema):
            problems += [
                f"{key}: {where}: $ref {ref!r} cannot be resolved ({why})"
                for where, ref, why in _unresolved_refs(schema)
            ]
    return problems


def _surely_resolved(schema: dict) -> bool:
    """Tell fast whether every `$ref` is a JSON Pointer that finds something.

    A pointer into the schema.

    Most schemas hold only such refs, or none, and need no resolver; an `$id` (which moves the base
    of the refs below it), an anchor, a URI or a pointer that finds nothing goes to `referencing`.
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack += node
        elif isinstance(node, dict):
            if isinstance(node.get("$id"), str) or isinstance(node.get("id"), str):
                return False
            ref = node.get("$ref")
            if isinstance(ref, str) and not (
                ref.startswith("#")
                and is_pointer(ref[1:])
                and resolve(schema, ref[1:]) is not MISSING
            ):
                return False
            stack += node.values()
    return True


def _unresolved_refs(schema: dict):
    """Yield (place, ref, reason) of each $ref the jsonschema resolver cannot follow.

    Never fetches."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT7, specification_with

    dialect = schema.get("$schema") if isinstance(schema.get("$schema"), str) else ""
    spec = specification_with(dialect, default=DRAFT7)
    resolver = Registry().resolver_with_root(spec.create_resource(schema))
    yield from _walk_refs(resolver, spec, schema, ())


def _walk_refs(resolver, spec, node, path, is_map=False):
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk_refs(resolver, spec, item, (*path, str(i)))
        return
    if not isinstance(node, dict):
        return
    if is_map:
        for key, sub in node.items():
            yield from _walk_refs(resolver, spec, sub, (*path, key))
        return
    if isinstance(node.get("$id", node.get("id")), str):
        resolver = resolver.in_subresource(spec.create_resource(node))
    ref = node.get("$ref")
    if isinstance(ref, str):
        reason = _lookup_failure(resolver, ref)
        if reason:
            yield from_tokens((*path, "$ref")), ref, reason
    for key, sub in node.items():
        if key not in LITERAL_KEYS:
            yield from _walk_refs(resolver, spec, sub, (*path, key), key in _SCHEMA_MAPS)


def _lookup_failure(resolver, ref: str) -> str | None:
    from referencing.exceptions import Unresolvable

    try:
        resolver.lookup(ref)
    except Unresolvable as error:
        name = type(error).__name__
        return {
            "PointerToNowhere": "nothing is at that pointer",
            "NoSuchAnchor": "no such anchor",
        }.get(name, "not inside this schema; tracediff never fetches remote or external refs")
    except ValueError as error:
        return f"not a valid reference: {error}"
    return None
