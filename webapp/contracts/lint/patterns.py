"""Lint's word on the patterns no linear-time engine runs.

`pattern_skipped`, as import tells them.

tracediff runs every pattern in RE2 and skips one RE2 cannot run (a backreference, a lookaround):
values at that field are not checked against it. Many OpenAPI documents hold such patterns
(password rules with lookaheads) and the tool is not wrong for it, so the finding is info: it says
what tracediff will not check."""

from ...analysis import parameters
from ...common.patterns import unrunnable_patterns
from ...common.pointers import child, tokens
from .compare import record

# (contract key, snapshot, how lint names a field there)
_SCHEMAS = (
    ("arguments_schema", "arguments", ""),
    ("request_schema", "request", ""),
    ("form_schema", "request", "form:"),
)
_ANY_MEMBER = ("items", "additionalItems", "additionalProperties", "unevaluatedProperties")
_ANY_MEMBER += ("unevaluatedItems",)
_SAME_VALUE = ("not", "if", "then", "else")


def pattern_findings(contract: dict) -> list[dict]:
    """Return a `pattern_skipped` finding per pattern RE2 cannot run.

    Patterns of the arguments or the request."""
    out = []
    for snapshot, field, pattern, why in _skipped(contract):
        left, right = (field, None) if snapshot == "arguments" else (None, field)
        name = field[1:] if field.startswith("/") else field or f"({snapshot})"
        text = f"{name}: pattern {pattern!r} is skipped, values are not checked against it: {why}"
        out.append(record("pattern_skipped", "info", left, right, text))
    return out


def _skipped(contract: dict):
    """Yield every pattern RE2 cannot run.

    As (snapshot, field pointer, pattern, reason)."""
    for key, snapshot, location in _SCHEMAS:
        for pointer, pattern, why in unrunnable_patterns(contract.get(key)):
            yield snapshot, _located(location, field_of(pointer)), pattern, why
    for (location, name), param in parameters(contract).items():
        for pointer, pattern, why in unrunnable_patterns(param.get("schema")):
            yield "request", f"{location}:{child('', name)}{field_of(pointer)}", pattern, why


def _located(location: str, pointer: str) -> str:
    return f"{location}{pointer or '/'}" if location else pointer


def field_of(schema_pointer: str) -> str:
    """Return the field a schema pointer declares.

    Named as lint names fields (`/properties/items/items/pattern` -> `/items/*`); under `$defs`, the
    field found before it."""
    parts, field, i = tokens(schema_pointer), "", 0
    while i < len(parts):
        token = parts[i]
        if token == "properties" and i + 1 < len(parts):
            field, i = child(field, parts[i + 1]), i + 2
        elif token in ("patternProperties", "prefixItems") or _item_index(parts, i):
            field, i = f"{field}/*", i + 2
        elif token in _ANY_MEMBER:
            field, i = f"{field}/*", i + 1
        elif token in ("allOf", "anyOf", "oneOf"):
            i += 2
        elif token in _SAME_VALUE:
            i += 1
        # the keyword itself (pattern), or $defs: the field found so far
        else:
            break
    return field


def _item_index(parts: list[str], i: int) -> bool:
    """Tell whether parts[i] is `items` holding a list of schemas.

    Draft 4 to 2019-09 tuples."""
    return parts[i] == "items" and i + 1 < len(parts) and parts[i + 1].isdigit()
