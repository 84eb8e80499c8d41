"""Regular expressions from contracts and documents.

Run in linear time by RE2, never backtracking.

A JSON Schema `pattern` (or `patternProperties` key) is an ECMA-262 regular expression chosen by
whoever wrote a contract, an OpenAPI document or an MCP tools list. Python's `re` backtracks:
`^(a+)+$` against forty characters takes hours. RE2 takes time linear in the text for every
pattern it accepts, and releases the GIL while it runs. The few ECMA-262 escapes it spells
otherwise are translated; a pattern it cannot run at all (backreferences, lookaround) is
reported on the contract and skipped, never run another way.
"""

import re
from functools import lru_cache

import re2

_OPTIONS = re2.Options()
# a refused pattern is reported on its contract, not printed on stderr
_OPTIONS.log_errors = False
# Our own patterns over a pattern's text (one pass each): what RE2 spells otherwise, why it refuses.
_ECMA_ONLY = re.compile(
    # a surrogate pair (one code point), \u{...}, \uXXXX, \cX, \0, then any other escape as it is
    r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r"|\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\c([A-Za-z])|\\0(?![0-9])|\\(.)",
    re.DOTALL,
)
_LOOKAROUND = re.compile(r"(?<!\\)\(\?<?[=!]")
_BACKREFERENCE = re.compile(r"(?<!\\)(?:\\\\)*\\(?:[1-9]|k<)")
# Keywords whose value is a schema, a list of them or an object of them (JSON Schema 4 to 2020-12)
_ONE = ("additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if")
_ONE += ("then", "else", "items", "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_NAMED = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas")
_NAMED += ("dependencies",)


class Unrunnable(ValueError):
    """A pattern RE2 cannot run.

    Its text says why (a backreference, a lookaround, RE2's word)."""


def _translated(pattern: str) -> str:
    """Spell the ECMA-262 escapes RE2 writes otherwise its way.

    `\\u00e9` -> `\\x{00e9}`."""

    def one(hit: re.Match) -> str:
        high, low, braced, four, control, other = hit.groups()
        if high:
            code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + int(low, 16) - 0xDC00
            return f"\\x{{{code:x}}}"
        if braced or four:
            return f"\\x{{{braced or four}}}"
        if control:
            return f"\\x{{{ord(control) % 32:x}}}"
        if other is None:
            return "\\x{0}"
        return hit.group(0)

    return _ECMA_ONLY.sub(one, pattern)


@lru_cache(maxsize=2048)
def _compile(pattern: str):
    """Return the RE2 program of a pattern, or the Unrunnable saying why there is none."""
    try:
        return re2.compile(_translated(pattern), _OPTIONS)
    except re2.error as error:
        return Unrunnable(_reason(pattern, error))
    except (TypeError, ValueError, UnicodeError) as error:
        return Unrunnable(str(error))


def _reason(pattern: str, error) -> str:
    if _BACKREFERENCE.search(pattern):
        return "it has a backreference, which no linear-time engine runs"
    if _LOOKAROUND.search(pattern):
        return "it has a lookahead or lookbehind, which no linear-time engine runs"
    message = error.args[0] if error.args else error
    text = message.decode(errors="replace") if isinstance(message, bytes) else str(message)
    return f"RE2 cannot run it: {text}"


def why_unrunnable(pattern: str) -> str | None:
    """Say why RE2 cannot run a pattern, or None when it can."""
    program = _compile(pattern)
    return str(program) if isinstance(program, Unrunnable) else None


def search(pattern: str, text: str) -> bool | None:
    """Tell whether a pattern matches anywhere in a text.

    As JSON Schema's `pattern` does; None when RE2 cannot run it."""
    program = _compile(pattern)
    if isinstance(program, Unrunnable):
        return None
    try:
        return program.search(text) is not None
    # a lone surrogate, as JSON may hold: RE2 reads Python's bytes
    except UnicodeEncodeError:
        return program.search(text.encode("utf-8", "surrogatepass")) is not None


def unrunnable_patterns(schema, at: str = "") -> list[tuple[str, str, str]]:
    """Return each `pattern` and `patternProperties` key RE2 cannot run.

    As (JSON Pointer, pattern, reason)."""
    found = []
    for pointer, node in schema_nodes(schema, at):
        if isinstance(node.get("pattern"), str):
            found.append((f"{pointer}/pattern", node["pattern"]))
        if isinstance(node.get("patternProperties"), dict):
            keys = node["patternProperties"]
            found += [(f"{pointer}/patternProperties/{_escaped(key)}", key) for key in keys]
    told = [(where, pattern, why_unrunnable(pattern)) for where, pattern in found]
    return sorted(item for item in told if item[2])


def runnable(schema):
    """Return the schema without the patterns RE2 cannot run.

    The same object when it has none.

    A skipped `patternProperties` key takes its node's `additionalProperties` and
    `unevaluatedProperties` with it: which keys the pattern declares cannot be told, so none is
    called unexpected."""
    if not unrunnable_patterns(schema):
        return schema
    return _rebuilt(schema, _runnable_node)


def unevaluated_by_pattern(schema) -> bool:
    """Tell whether a schema has `unevaluatedProperties` and `patternProperties`.

    Both, anywhere (`$ref` and `allOf` join them): the Python jsonschema validator would read them
    with `re`."""
    keywords = set().union(*(node.keys() for _, node in schema_nodes(schema)))
    return {"unevaluatedProperties", "patternProperties"} <= keywords


def without_keyword(schema, keyword: str):
    """Return the schema with `keyword` left out of every schema object in it."""
    return _rebuilt(schema, lambda node: {k: v for k, v in node.items() if k != keyword})


def _runnable_node(node: dict) -> dict:
    if isinstance(node.get("pattern"), str) and why_unrunnable(node["pattern"]):
        node = {k: v for k, v in node.items() if k != "pattern"}
    named = node.get("patternProperties")
    if isinstance(named, dict) and any(why_unrunnable(key) for key in named):
        kept = {key: sub for key, sub in named.items() if not why_unrunnable(key)}
        unknown = ("additionalProperties", "unevaluatedProperties")
        node = {k: v for k, v in node.items() if k not in unknown}
        node["patternProperties"] = kept
    return node


def _rebuilt(node, change):
    """Return a copy of a schema, `change` applied to each schema object in it.

    Data such as `enum` left alone."""
    if isinstance(node, list):
        return [_rebuilt(item, change) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: _rebuilt(sub, change) for name, sub in value.items()}
        elif key in _ONE or key in _MANY:
            out[key] = _rebuilt(value, change)
        else:
            out[key] = value
    return change(out)


def schema_nodes(schema, at: str = ""):
    """Yield (JSON Pointer, schema object) of a schema and every schema in it.

    Data such as `enum` apart."""
    stack = [(at, schema)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, list):
            stack += [(f"{pointer}/{i}", item) for i, item in enumerate(node)]
            continue
        if not isinstance(node, dict):
            continue
        yield pointer, node
        for key, value in node.items():
            if key in _NAMED and isinstance(value, dict):
                stack += [(f"{pointer}/{key}/{_escaped(k)}", sub) for k, sub in value.items()]
            elif key in _ONE or key in _MANY:
                stack.append((f"{pointer}/{key}", value))


def _escaped(token: str) -> str:
    """Escape a JSON Pointer token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")
