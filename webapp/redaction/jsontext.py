"""JSON text that may be cut short.

Its `"key": value` pairs, string literals, and where a value ends."""

import json
import re

# `"name": value` in JSON text held by a string or too broken to parse (a logged line, a cut
# record): the value is a string (maybe cut), a number, or the bracket opening an object or array.
JSON_PAIR = re.compile(r'"((?:[^"\\]|\\.){1,100})"\s*:\s*("(?:[^"\\]|\\.)*"?|[-0-9.eE+]+|[\[{])')
# One string literal of JSON text, maybe cut: its body and its closing quote (empty when cut).
JSON_STRING = re.compile(r'"((?:[^"\\]|\\.)*)("?)')
# What nesting depends on in JSON text: string literals (which may hold brackets) and brackets.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')
_CLOSER = re.compile(r"\s*[\]}]")
# A valid escape of a JSON string, or a backslash that starts none (a broken or cut one).
_ESCAPE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})|\\')


def json_key(raw: str) -> str:
    """Return a key as written in JSON text with its escapes decoded.

    `pass\\u0077ord` -> `password`."""
    if "\\" not in raw:
        return raw
    try:
        return json.loads(f'"{raw}"', strict=False)
    except ValueError:
        return raw


def decode_literal(body: str) -> str:
    """Return the text of a JSON string literal's body.

    A broken or cut escape stays as written."""
    fixed = _ESCAPE.sub(
        lambda escape: escape.group(0) if len(escape.group(0)) > 1 else "\\\\", body
    )
    return json.loads(f'"{fixed}"', strict=False)


def encode_literal(text: str) -> str:
    """Return text as a JSON string literal.

    Non-ASCII kept as is unless a lone surrogate needs escaping."""
    encoded = json.dumps(text, ensure_ascii=False)
    try:
        encoded.encode()
    except UnicodeEncodeError:
        return json.dumps(text)
    return encoded


def empty_value(match: re.Match) -> bool:
    # `""`, `{}` and `[]` hide nothing, and the walk keeps them too (as the redactor's walk does).
    value = match.group(2)
    return value == '""' or (
        value in ("[", "{") and _CLOSER.match(match.string, match.end()) is not None
    )


def value_end(match: re.Match) -> int:
    """Return where the value of a JSON_PAIR match ends.

    Past its closing bracket for a container."""
    if match.group(2) not in ("[", "{"):
        return match.end()
    depth = 0
    for token in _TOKEN.finditer(match.string, match.start(2)):
        if token.group(0) in ("[", "{"):
            depth += 1
        elif token.group(0) in ("]", "}"):
            depth -= 1
            if depth == 0:
                return token.end()
    # cut inside the container: everything after the key goes
    return len(match.string)
