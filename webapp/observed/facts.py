"""What one snapshot shows at each normalised JSON Pointer.

Types, counts, string lengths, formats and values."""

import re
from datetime import date, datetime
from functools import lru_cache

from ..analysis import type_name
from ..common.pointers import escape
from ..problems.fingerprint import ID, normalise_segment

# a longer string is text, not an enum value
MAX_ENUM_TEXT = 64
# more distinct strings at one path in one call: not an enum
MAX_VALUES_PER_CALL = 16
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+\Z")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*\Z")
_HEX_ID = re.compile(r"(?=.*\d)(?=.*[a-fA-F])[0-9a-fA-F]{12,}\Z")
_PREFIXED_ID = re.compile(r"[a-z]{2,8}_[A-Za-z0-9]{3,}\Z")
# the id patterns the fingerprints know, and a Stripe-like prefixed id; JSON Schema names them by
# pattern
ID_PATTERNS = {"hex-id": "^[0-9a-fA-F]{12,}$", "prefixed-id": "^[a-z]{2,8}_[A-Za-z0-9]{3,}$"}


class PathFacts:
    """One path of one document.

    Its types, instances, object instances, lengths, formats and string values."""

    __slots__ = (
        "types",
        "instances",
        "objects",
        "shortest",
        "longest",
        "formats",
        "values",
        "sample",
    )

    def __init__(self):
        self.types, self.instances, self.objects = set(), 0, 0
        self.shortest = self.longest = None
        self.formats, self.values, self.sample = set(), set(), None

    def add_string(self, text: str) -> None:
        size = len(text)
        if self.shortest is None or size < self.shortest:
            self.shortest = size
        if self.longest is None or size > self.longest:
            self.longest = size
        found = _FORMATS.get(text)
        self.formats.add(_format_kept(text) if found is None else found)
        values = self.values
        if values is not None:
            if size > MAX_ENUM_TEXT or len(values) >= MAX_VALUES_PER_CALL and text not in values:
                self.values = None
            else:
                values.add(text)


_KINDS = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "integer",
    type(None): "null",
}


def facts_of(document) -> dict[str, PathFacts]:
    """Return {normalised pointer: PathFacts} of a document.

    Array items as `*`, id-like keys as `{id}`."""
    out: dict[str, PathFacts] = {}
    stack = [("", document)]
    pop, push, kinds, segment = stack.pop, stack.append, _KINDS, key_segment
    while stack:
        path, node = pop()
        facts = out.get(path)
        if facts is None:
            facts = out[path] = PathFacts()
            facts.sample = node if not isinstance(node, (dict, list)) else None
        kind = kinds.get(type(node)) or type_name(node)
        facts.types.add(kind)
        facts.instances += 1
        # the commonest node first: a response is mostly strings
        if kind == "string":
            facts.add_string(node)
        elif kind == "object":
            facts.objects += 1
            prefix = path + "/"
            for key, value in node.items():
                push((prefix + segment(key), value))
        elif kind == "array":
            items = path + "/*"
            for value in node:
                push((items, value))
    return out


# field names repeat from call to call
@lru_cache(maxsize=16384)
def key_segment(key: str) -> str:
    """Return an object key as a pointer segment.

    Escaped, or `{id}` for a key that looks like an id."""
    if key.isdigit():
        return ID
    segment = normalise_segment(escape(key))
    # a key named "*" is not an array's items
    return "~2" if segment == "*" else segment


# {string: its format} of strings seen lately (statuses, currencies, dates repeat from call to
# call), emptied when full
_FORMATS: dict[str, str] = {}
MOST_FORMATS_KEPT = 32768
MOST_TEXT_KEPT = 64


def _format_kept(text: str) -> str:
    """Return a string's format, kept for the next time the same short string comes."""
    found = format_of(text)
    if len(text) <= MOST_TEXT_KEPT:
        if len(_FORMATS) >= MOST_FORMATS_KEPT:
            _FORMATS.clear()
        _FORMATS[text] = found
    return found


def format_of(text: str) -> str:
    """Return the format a string is written in, or "".

    date-time, date, uuid, email, uri, hex-id, prefixed-id."""
    size = len(text)
    if size < 6 or size > 2048:
        return ""
    if text[0].isdigit():
        if (
            size >= 20
            and _DATE_TIME.match(text)
            and _reads(datetime.fromisoformat, _upper_t_z(text))
        ):
            return "date-time"
        if size == 10 and _DATE.match(text) and _reads(date.fromisoformat, text):
            return "date"
    # each pattern below matches only strings of its length or with its mark: the cheap test goes
    # first
    if size == 36 and _UUID.match(text):
        return "uuid"
    if "@" in text and _EMAIL.match(text):
        return "email"
    if "://" in text and _URI.match(text):
        return "uri"
    if size >= 12 and _HEX_ID.match(text):
        return "hex-id"
    if "_" in text and _PREFIXED_ID.match(text):
        return "prefixed-id"
    return ""


def _upper_t_z(text: str) -> str:
    """Return an RFC 3339 time with its `t` and `z` written in capitals.

    As fromisoformat reads them."""
    return text.replace("z", "Z").replace("t", "T") if "z" in text or "t" in text else text


def _reads(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True
