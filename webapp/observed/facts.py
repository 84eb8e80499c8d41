"""What one snapshot shows at each normalised JSON Pointer: types, counts, string lengths, formats and values."""

import re
from datetime import date, datetime
from functools import lru_cache

from ..analysis import type_name
from ..common.pointers import escape
from ..problems.fingerprint import ID, normalise_segment

MAX_ENUM_TEXT = 64  # a longer string is text, not an enum value
MAX_VALUES_PER_CALL = 16  # more distinct strings at one path in one call: not an enum
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+\Z")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*\Z")
_HEX_ID = re.compile(r"(?=.*\d)(?=.*[a-fA-F])[0-9a-fA-F]{12,}\Z")
_PREFIXED_ID = re.compile(r"[a-z]{2,8}_[A-Za-z0-9]{3,}\Z")
# the id patterns the fingerprints know, and a Stripe-like prefixed id; JSON Schema names them by pattern
ID_PATTERNS = {"hex-id": "^[0-9a-fA-F]{12,}$", "prefixed-id": "^[a-z]{2,8}_[A-Za-z0-9]{3,}$"}


class PathFacts:
    """One path of one document: its types, instances, object instances, lengths, formats and string values."""

    __slots__ = ("types", "instances", "objects", "shortest", "longest", "formats", "values", "sample")

    def __init__(self):
        self.types, self.instances, self.objects = set(), 0, 0
        self.shortest = self.longest = None
        self.formats, self.values, self.sample = set(), set(), None

    def add_string(self, text: str) -> None:
        size = len(text)
        self.shortest = size if self.shortest is None else min(self.shortest, size)
        self.longest = size if self.longest is None else max(self.longest, size)
        self.formats.add(format_of(text))
        if self.values is not None:
            if size > MAX_ENUM_TEXT or len(self.values) >= MAX_VALUES_PER_CALL and text not in self.values:
                self.values = None
            else:
                self.values.add(text)


_KINDS = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", type(None): "null"}


def facts_of(document) -> dict[str, PathFacts]:
    """Return {normalised pointer: PathFacts} of a document (array items as `*`, id-like keys as `{id}`)."""
    out: dict[str, PathFacts] = {}
    stack = [("", document)]
    pop, push, kinds = stack.pop, stack.append, _KINDS
    while stack:
        path, node = pop()
        facts = out.get(path)
        if facts is None:
            facts = out[path] = PathFacts()
            facts.sample = node if not isinstance(node, (dict, list)) else None
        kind = kinds.get(type(node)) or type_name(node)
        facts.types.add(kind)
        facts.instances += 1
        if kind == "object":
            facts.objects += 1
            prefix = path + "/"
            for key, value in node.items():
                push((prefix + key_segment(key), value))
        elif kind == "array":
            items = path + "/*"
            for value in node:
                push((items, value))
        elif kind == "string":
            facts.add_string(node)
    return out


@lru_cache(maxsize=16384)  # field names repeat from call to call
def key_segment(key: str) -> str:
    """Return an object key as a pointer segment: escaped, or `{id}` for a key that looks like an id."""
    if key.isdigit():
        return ID
    segment = normalise_segment(escape(key))
    return "~2" if segment == "*" else segment  # a key named "*" is not an array's items


def format_of(text: str) -> str:
    """Return the format a string is written in (date-time, date, uuid, email, uri, hex-id, prefixed-id) or ""."""
    size = len(text)
    if size < 6 or size > 2048:
        return ""
    first = text[0]
    if first.isdigit():
        if _DATE_TIME.match(text) and _reads(datetime.fromisoformat, text.replace("z", "Z").replace("t", "T")):
            return "date-time"
        if _DATE.match(text) and _reads(date.fromisoformat, text):
            return "date"
    if _UUID.match(text):
        return "uuid"
    if "@" in text and _EMAIL.match(text):
        return "email"
    if "://" in text and _URI.match(text):
        return "uri"
    if _HEX_ID.match(text):
        return "hex-id"
    if "_" in text and _PREFIXED_ID.match(text):
        return "prefixed-id"
    return ""


def _reads(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True
