"""JSON Pointers (RFC 6901).

The whole document is "", a key "a/b" is "/a~1b"."""

import re

_VALID = re.compile(r"^(/([^~/]|~[01])*)*$")
_MISSING = object()


def escape(token) -> str:
    """Escape one reference token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """Undo escape() on one reference token."""
    return token.replace("~1", "/").replace("~0", "~")


def child(pointer: str, token) -> str:
    """Return the pointer to a child key or index of the node at `pointer`."""
    # the hot case in big arrays: an index needs no escaping
    if type(token) is int:
        return f"{pointer}/{token}"
    return pointer + "/" + escape(token)


def from_tokens(tokens) -> str:
    """Build a pointer from a sequence of keys and indexes."""
    return "".join("/" + escape(t) for t in tokens)


def tokens(pointer: str) -> list[str]:
    """Split a pointer into unescaped reference tokens."""
    if not pointer:
        return []
    parts = pointer[1:].split("/")
    return [unescape(t) for t in parts] if "~" in pointer else parts


def is_pointer(text) -> bool:
    """Tell whether `text` is a syntactically valid JSON Pointer."""
    return isinstance(text, str) and bool(_VALID.match(text))


def parent(pointer: str) -> str:
    """Return the pointer of the node's parent ("" for top-level children)."""
    return pointer[: pointer.rfind("/")] if pointer else ""


def last(pointer: str) -> str:
    """Return the node's own key (unescaped), "" for the root."""
    return unescape(pointer[pointer.rfind("/") + 1 :]) if pointer else ""


def resolve(doc, pointer: str, default=_MISSING):
    """Return the node at `pointer`, or `default` (MISSING) when absent."""
    node = doc
    for token in tokens(pointer):
        if isinstance(node, dict):
            if token not in node:
                return default
            node = node[token]
        elif isinstance(node, list):
            if not token.isdigit() or int(token) >= len(node):
                return default
            node = node[int(token)]
        else:
            return default
    return node


def ancestors(pointer: str):
    """Yield the proper ancestors of `pointer`, nearest first, ending with ""."""
    while pointer:
        pointer = parent(pointer)
        yield pointer


MISSING = _MISSING
