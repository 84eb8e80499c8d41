"""Find where JSON values end by their brackets and strings alone.

Without parsing them (so at any depth)."""

from __future__ import annotations

import re

_WS_BYTES = re.compile(rb"[ \t\r\n]*")
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
# the tokens that matter for nesting: brackets, and strings (whose brackets do not count)
_NESTING_TOKENS = {
    bytes: re.compile(rb"(?P<open>[\[{])|(?P<close>[\]}])|" + _STRING, re.S),
    str: re.compile(r"(?P<open>[\[{])|(?P<close>[\]}])|" + _STRING.decode(), re.S),
}
_ARRAY_SCALAR = re.compile(_STRING + rb"|[^,\]\s]+", re.S)
_ARRAY_SEPARATOR = re.compile(rb"[ \t\r\n]*([,\]])")


def array_items(body: bytes) -> list[tuple[int, int, int]] | None:
    """Return (start, end, depth) of each item of a top-level array body.

    None when the body is not one."""
    pos = _WS_BYTES.match(body).end() + 1
    if body[pos - 1 : pos] != b"[":
        return None
    items: list[tuple[int, int, int]] = []
    separator = _ARRAY_SEPARATOR.match(body, pos)
    # an empty array
    if separator and separator.group(1) == b"]":
        return items if not body[separator.end() :].strip() else None
    while True:
        pos = _WS_BYTES.match(body, pos).end()
        value = _value_extent(body, pos)
        separator = value and _ARRAY_SEPARATOR.match(body, value[0])
        if not separator:
            return None
        items.append((pos, *value))
        if separator.group(1) == b"]":
            return items if not body[separator.end() :].strip() else None
        pos = separator.end()


def _value_extent(data: bytes, pos: int) -> tuple[int, int] | None:
    """Return (end, depth) of the JSON value at data[pos].

    By its brackets and strings alone."""
    if data[pos : pos + 1] in (b"[", b"{"):
        return container_extent(data, pos)
    scalar = _ARRAY_SCALAR.match(data, pos)
    return (scalar.end(), 0) if scalar else None


def container_extent(data: bytes | str, start: int) -> tuple[int, int] | None:
    """Return (end, depth) of the array or object at data[start] unparsed.

    Without parsing it, so at any depth; None when it is not closed. A flat object has depth 1."""
    depth = deepest = 0
    for token in _NESTING_TOKENS[type(data)].finditer(data, start):
        if token.lastgroup == "open":
            depth += 1
            deepest = depth if depth > deepest else deepest
        elif token.lastgroup == "close":
            depth -= 1
            if depth == 0:
                return token.end(), deepest
    return None
