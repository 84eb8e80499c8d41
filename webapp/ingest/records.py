"""One record of a body, and what every framing checks of it.

Its depth, and why its JSON failed."""

from __future__ import annotations

import json
from typing import Any

from ..common import jsontext
from ..common.pointers import child
from .model import RecordError, cut_raw, is_depth_error, json_reason, too_deep


class Record:
    """One record of a body.

    Its position, its parsed value or why it failed, and its text."""

    __slots__ = ("index", "value", "error", "_raw")

    def __init__(
        self,
        index: int,
        value: Any = None,
        raw: bytes | str | None = None,
        error: RecordError | None = None,
    ):
        self.index = index
        self.value = value
        self.error = error
        self._raw = raw

    def raw(self) -> str:
        """Return the record's text cut at 4 KiB."""
        if self._raw is None:
            try:
                self._raw = jsontext.dumps(self.value)
            except TypeError:
                self._raw = json.dumps(self.value, ensure_ascii=False)
        return cut_raw(self._raw)


def brackets(raw: bytes | str) -> int:
    """Count the brackets that open containers.

    A cheap upper bound of how deep raw nests."""
    if isinstance(raw, str):
        return raw.count("{") + raw.count("[")
    return raw.count(b"{") + raw.count(b"[")


def check_depth(records: list[Record], max_depth: int) -> None:
    """Mark records nested deeper than max_depth as too_deep.

    For line and stream framings."""
    for r in records:
        if r.error is None and r._raw is not None and brackets(r._raw) > max_depth:
            if depth_exceeds(r.value, max_depth):
                r.error = too_deep("the record", max_depth)


def depth_exceeds(value: Any, limit: int) -> bool:
    """Tell whether value nests containers deeper than limit.

    A flat object has depth 1."""
    t = type(value)
    if t is not dict and t is not list:
        return False
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True
        for c in v.values() if type(v) is dict else v:
            tc = type(c)
            if tc is dict or tc is list:
                stack.append((c, d + 1))
    return False


def refuse_nul_keys(payload: Any, dumped: bytes | None = None) -> None:
    """Refuse a payload an object key of which holds a NUL character.

    `dumped`, the payload's JSON when the caller made it, spares a second encoding. A key becomes
    text of its own (a path in findings, learnt mappings, observed shapes), and PostgreSQL's text
    cannot hold NUL: stored, the call could never be analysed there."""
    if type(payload) is not dict and type(payload) is not list:
        return
    # JSON writes NUL as \u0000 only: without it, no key (and no value) holds one
    if b"\\u0000" not in (dumped if dumped is not None else jsontext.dumps(payload)):
        return
    pointer = nul_key_pointer(payload)
    if pointer is not None:
        raise RecordError(
            "bad_value",
            f"payload key at {pointer[:120]!r} holds a NUL character (\\u0000), which tracediff "
            "cannot store; drop or rename the key",
        )


def nul_key_pointer(value: Any) -> str | None:
    """Return the JSON Pointer of the first object key holding NUL, or None."""
    stack = [(value, "")]
    while stack:
        node, pointer = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        for key, child_value in items:
            if type(key) is str and "\x00" in key:
                return child(pointer, key)
            if type(child_value) is dict or type(child_value) is list:
                stack.append((child_value, child(pointer, key)))
    return None


def json_error(exc: jsontext.JSONDecodeError, what: str, max_depth: int, raw=b"") -> RecordError:
    """The rejection of a record orjson could not parse.

    Saying why in the sender's terms."""
    msg = str(exc)
    if is_depth_error(exc):
        return too_deep(what, max_depth)
    # an escape, not a byte sequence
    if "low surrogate" in msg or "high surrogate" in msg:
        return surrogate_error()
    if "UTF-8" in msg:
        return RecordError("not_json", f"{what} is not valid UTF-8{_bad_byte(raw)}")
    return RecordError("not_json", f"{what} is not valid JSON: {json_reason(exc)}")


def _bad_byte(raw) -> str:
    """Say where the first byte that is not UTF-8 sits.

    Counted from the record's start."""
    try:
        bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        return f" at byte offset {exc.start} of the record"
    except TypeError:
        pass
    return ""


def surrogate_error() -> RecordError:
    """The one rejection of a record holding a lone UTF-16 surrogate escape."""
    return RecordError(
        "bad_value",
        "the record holds a lone UTF-16 surrogate escape such as \\ud800, "
        "which is not text; fix the encoder that wrote it",
    )


def lone_surrogate(value: Any, raw: str) -> bool:
    """Tell whether a value the standard library decoded holds a lone UTF-16 surrogate."""
    # orjson refuses "\ud800" on its own; the standard library's decoder (concatenated JSON, big
    # integers) takes it, and text holding it could be neither hashed nor stored
    if "\\ud" not in raw.lower():
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogate_error(value: Any, raw: str) -> RecordError | None:
    """Return the error of a record holding a lone UTF-16 surrogate escape, else None."""
    return surrogate_error() if lone_surrogate(value, raw) else None
