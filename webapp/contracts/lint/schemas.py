"""Read what a JSON Schema node allows, its combinators folded in.

Types, values, format, bounds, fields.

`allOf` members all hold (their constraints meet); `anyOf`/`oneOf` alternatives may each hold (their
types and values join, a field is required only where every alternative requires it). A node without
a word on something (no `type`, no `enum`) allows anything there: None."""

# combinators nested deeper are read as allowing anything
MAX_DEPTH = 8
JSON_TYPES = frozenset(("object", "array", "string", "number", "integer", "boolean", "null"))
BOUNDS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))
EXCLUSIVE = {"minimum": "exclusiveMinimum", "maximum": "exclusiveMaximum"}
# else array
BOUNDED = {"minimum": "number", "maximum": "number", "minLength": "string", "maxLength": "string"}


def _members(schema, word: str) -> list[dict]:
    found = schema.get(word) if isinstance(schema, dict) else None
    return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []


def _alternatives(schema) -> list[dict]:
    return _members(schema, "anyOf") + _members(schema, "oneOf")


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}.get(
        type(value), "string"
    )


def _meet(a: frozenset | None, b: frozenset | None) -> frozenset | None:
    """Return the types both allow (an integer is a number)."""
    if a is None or b is None:
        return a if b is None else b
    both = a & b
    if "integer" in a and "number" in b or "integer" in b and "number" in a:
        both |= {"integer"}
    return frozenset(both)


def types(schema, depth: int = 0) -> frozenset | None:
    """Return the JSON types a schema allows, or None when it does not say."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    own = schema.get("type")
    found = (
        frozenset([own] if isinstance(own, str) else own if isinstance(own, list) else ())
        & JSON_TYPES
        or None
    )
    values = enum(schema, depth)
    if values is not None:
        found = _meet(found, frozenset(_kind(v) for v in values))
    for member in _members(schema, "allOf"):
        found = _meet(found, types(member, depth + 1))
    alternatives = [types(a, depth + 1) for a in _alternatives(schema)]
    if alternatives and None not in alternatives:
        found = _meet(found, frozenset().union(*alternatives))
    if found is not None and schema.get("nullable") is True:
        # OpenAPI 3.0's word, which 3.1 documents keep using and the tools loader reads
        found |= {"null"}
    return found


def enum(schema, depth: int = 0) -> list | None:
    """Return the values a schema allows (`enum`, `const`), else None.

    None when it takes any value of its types."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    found = list(schema["enum"]) if isinstance(schema.get("enum"), list) else None
    if "const" in schema:
        found = [schema["const"]] if found is None else [v for v in found if v == schema["const"]]
    for member in _members(schema, "allOf"):
        values = enum(member, depth + 1)
        if values is not None:
            found = values if found is None else [v for v in found if v in values]
    alternatives = _alternatives(schema)
    if alternatives:
        joined = []
        for alternative in alternatives:
            values = [None] if alternative.get("type") == "null" else enum(alternative, depth + 1)
            if values is None:
                return found
            joined += [v for v in values if v not in joined]
        found = joined if found is None else [v for v in found if v in joined]
    if found is not None and schema.get("nullable") is True and None not in found:
        found.append(None)
    return found


def format_of(schema, depth: int = 0) -> str | None:
    """Return the `format` a schema's strings must have, or None."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    if isinstance(schema.get("format"), str):
        return schema["format"]
    for member in _members(schema, "allOf"):
        found = format_of(member, depth + 1)
        if found:
            return found
    shown = {format_of(a, depth + 1) for a in _alternatives(schema) if a.get("type") != "null"}
    return shown.pop() if len(shown) == 1 else None


def bounds(schema, depth: int = 0) -> dict[str, tuple[float, bool]]:
    """Return the bounds a schema sets as {word: (value, exclusive)}.

    As {"maximum": (10, True), "maxLength": (64, False)}, the tightest of its allOf;
    `exclusiveMaximum` read in both forms: 3.1's number, 3.0's boolean."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return {}
    found = {}
    for pair in BOUNDS:
        for word in pair:
            value = schema.get(word)
            if _number(value):
                found[word] = (value, schema.get(EXCLUSIVE.get(word)) is True)
    for word, exclusive in EXCLUSIVE.items():
        if _number(schema.get(exclusive)):
            found[word] = _tighter(word, found.get(word), (schema[exclusive], True))
    for member in _members(schema, "allOf"):
        for word, bound in bounds(member, depth + 1).items():
            found[word] = _tighter(word, found.get(word), bound)
    return found


def looser(word: str, mine: tuple[float, bool], theirs: tuple[float, bool]) -> bool:
    """Tell whether a bound lets through a value the other refuses.

    10 where the other is exclusive 10."""
    sign = -1 if word.startswith("min") else 1
    return sign * mine[0] > sign * theirs[0] or (mine[0] == theirs[0] and theirs[1] and not mine[1])


def _tighter(word: str, bound, other) -> tuple[float, bool]:
    return other if bound is None or looser(word, bound, other) else bound


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def properties(schema, depth: int = 0) -> dict[str, dict]:
    """Return {name: schema} of the fields an object schema declares.

    From its own and its combinators'."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return {}
    found: dict[str, list] = {}
    own = schema.get("properties")
    for name, sub in own.items() if isinstance(own, dict) else ():
        found.setdefault(name, []).append(sub)
    for member in _members(schema, "allOf") + _alternatives(schema):
        for name, sub in properties(member, depth + 1).items():
            found.setdefault(name, []).append(sub)
    return {name: subs[0] if len(subs) == 1 else {"anyOf": subs} for name, subs in found.items()}


def required(schema, depth: int = 0) -> set[str]:
    """Return the names an object schema requires.

    Its own and its allOf's, and those every alternative requires."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return set()
    found = (
        {n for n in schema.get("required") or () if isinstance(n, str)}
        if isinstance(schema.get("required"), list)
        else set()
    )
    for member in _members(schema, "allOf"):
        found |= required(member, depth + 1)
    alternatives = [
        required(a, depth + 1) for a in _alternatives(schema) if a.get("type") != "null"
    ]
    if alternatives:
        found |= set.intersection(*alternatives)
    return found


def items(schema, depth: int = 0):
    """Return the schema of an array schema's items, or None."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    if isinstance(schema.get("items"), dict):
        return schema["items"]
    for member in _members(schema, "allOf") + _alternatives(schema):
        found = items(member, depth + 1)
        if found is not None:
            return found
    return None


def fills_itself(schema) -> bool:
    """Tell whether a field needs no argument.

    It has a default, a single allowed value, or the server writes it."""
    if not isinstance(schema, dict):
        return False
    values = enum(schema)
    return (
        "default" in schema
        or schema.get("readOnly") is True
        or (values is not None and len(values) == 1)
    )


def description(schema) -> str:
    """Return a schema's description (or title), or ""."""
    if not isinstance(schema, dict):
        return ""
    text = schema.get("description") or schema.get("title")
    return text if isinstance(text, str) else ""
