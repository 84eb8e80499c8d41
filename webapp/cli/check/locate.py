"""Find the line of a JSON Pointer in a fixture file.

So that an annotation lands on it."""

import json
from functools import lru_cache
from pathlib import Path

from ...common.pointers import child, parent


def line_of(path: str | None, pointer: str | None) -> int | None:
    """Return the line of `pointer` in a fixture file, when the file tells.

    Or of its nearest ancestor."""
    if not path or pointer is None:
        return None
    lines = _pointer_lines(path)
    while lines is not None:
        if pointer in lines:
            return lines[pointer]
        if not pointer:
            return None
        # a folded path (/tags/*) or a missing key: its container
        pointer = parent(pointer)
    return None


@lru_cache(maxsize=64)
def _pointer_lines(path: str) -> dict[str, int] | None:
    """Map every JSON Pointer of a fixture file to its line.

    A file written as the fixtures zip writes it (indent 2)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        value = json.loads(text)
        if json.dumps(value, indent=2, ensure_ascii=False).rstrip("\n") != text.rstrip("\n"):
            # laid out some other way: the line cannot be told without a parser of our own
            return None
        lines: dict[str, int] = {}
        _walk(value, "", 1, lines)
        return lines
    except (OSError, ValueError, RecursionError):
        return None


def _walk(node, pointer: str, line: int, lines: dict) -> int:
    """Note the line of `node` and of everything inside it.

    Return the last line it takes."""
    lines[pointer] = line
    if isinstance(node, (dict, list)) and node:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, sub in items:
            line = _walk(sub, child(pointer, key), line + 1, lines)
        # the closing bracket
        return line + 1
    return line
