"""What one snapshot shows at each normalised JSON Pointer.

Types, counts, string lengths, formats and values."""

import re
from collections import defaultdict
from datetime import date, datetime
from functools import lru_cache
from itertools import chain

from ..analysis import type_name
from ..common.pointers import escape
from ..problems.fingerprint import ID, looks_like_id

# a longer string is text, not an enum value
MAX_ENUM_TEXT = 64
# more distinct strings at one path in one call: not an enum
MAX_VALUES_PER_CALL = 16
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_EMAIL = re.compile(r"[A-Za-z0-9.!#$%&'*+=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+\Z")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#]+[^\s]*\Z")
# a hex id: 12 or more hex digits, a digit and a letter among them (told by isdigit and isalpha)
_HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}\Z")
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

    Array items as `*`, id-like keys as `{id}`. Keyed in no order a reader may rely on: learning
    takes new paths in sorted order and findings are sorted by path. The sample of a path is the
    value a depth-first walk (last child first) reaches first there.

    The nodes of one path are taken together (a column), not one by one: every item of a list of
    records shares its paths, and one pass over a column costs a fraction of a pass per node (39 ms
    of a 0.8 MB pair's 80 ms analysis went to the walk a node at a time)."""
    out: dict[str, PathFacts] = {}
    # each column's nodes in the order the depth-first walk reaches them: the first is the sample
    columns = [("", [document])]
    while columns:
        path, nodes = columns.pop()
        facts = out[path] = PathFacts()
        columns += _column_facts(facts, path, nodes)
    return out


def _column_facts(facts: PathFacts, path: str, nodes: list) -> list[tuple[str, list]]:
    """Fill the facts of one path's nodes; return the columns of their children."""
    first = nodes[0]
    facts.sample = first if not isinstance(first, (dict, list)) else None
    facts.instances = len(nodes)
    types = facts.types
    # a column of one value (a wide object's members): the one-node way costs less
    if len(nodes) == 1 and not isinstance(first, (dict, list)):
        kind = _KINDS.get(type(first)) or type_name(first)
        types.add(kind)
        if kind == "string":
            facts.add_string(first)
        return []
    # told in C: most columns hold one type
    only = type(first) if len(set(map(type, nodes))) == 1 else None
    if only in _COLUMNS:
        strings, objects, arrays = (nodes if only is kind else () for kind in _COLUMNS)
    elif only in _KINDS:
        strings = objects = arrays = ()
        types.add(_KINDS[only])
    else:
        strings, objects, arrays = _by_kind(nodes, types)
    children = []
    if strings:
        types.add("string")
        _add_strings(facts, strings)
    if objects:
        types.add("object")
        facts.objects = len(objects)
        children += _member_columns(path + "/", objects)
    if arrays:
        types.add("array")
        items = []
        for node in arrays:
            items += reversed(node)
        if items:
            children.append((path + "/*", items))
    return children


_COLUMNS = (str, dict, list)


def _by_kind(nodes, types: set) -> tuple[list, list, list]:
    """Return a column's strings, objects and arrays; add the other kinds to types."""
    strings, objects, arrays = [], [], []
    for node in nodes:
        kind = type(node)
        if kind is str:
            strings.append(node)
        elif kind is dict:
            objects.append(node)
        elif kind is list:
            arrays.append(node)
        else:
            name = _KINDS.get(kind) or type_name(node)
            column = {"string": strings, "object": objects, "array": arrays}.get(name)
            if column is None:
                types.add(name)
            else:
                column.append(node)
    return strings, objects, arrays


def _add_strings(facts: PathFacts, strings: list[str]) -> None:
    """Fold a column's strings into its facts.

    As PathFacts.add_string would one by one."""
    distinct = set(strings)
    sizes = [len(text) for text in distinct]
    facts.shortest, facts.longest = min(sizes), max(sizes)
    formats, known = facts.formats, _FORMATS.get
    # format_of names no format outside these sizes: 71,428 short texts ask it nothing
    sized = [
        text for text, size in zip(distinct, sizes) if _FORMAT_SIZES[0] <= size <= _FORMAT_SIZES[1]
    ]
    if len(sized) < len(distinct):
        formats.add("")
    for text in sized:
        found = known(text)
        formats.add(_format_kept(text) if found is None else found)
    too_many = len(distinct) > MAX_VALUES_PER_CALL
    facts.values = None if too_many or facts.longest > MAX_ENUM_TEXT else distinct


def _member_columns(prefix: str, objects: list[dict]) -> list[tuple[str, list]]:
    """Return the columns of a column of objects' members, each in walk order.

    Last member first, object by object."""
    if len(objects) == 1:
        # one object (wide, say): a column per member as the walk reaches them, last first
        columns: dict[str, list] = {}
        for key, value in reversed(objects[0].items()):
            segment = key_segment(key)
            column = columns.get(segment)
            if column is None:
                columns[segment] = [value]
            else:
                column.append(value)
        return [(prefix + segment, items) for segment, items in columns.items()]
    by_key = _by_key(objects)
    segments = [key_segment(key) for key in by_key]
    if len(set(segments)) == len(segments):
        return [(prefix + segment, items) for segment, items in zip(segments, by_key.values())]
    # keys that share a segment (ids): one column, its nodes still in walk order
    by_segment: dict = defaultdict(list)
    for node in objects:
        for key, value in reversed(node.items()):
            by_segment[key_segment(key)].append(value)
    return [(prefix + segment, items) for segment, items in by_segment.items()]


def _by_key(objects: list[dict]) -> dict:
    """Return {key: its values, object by object} of a column of objects."""
    keys = objects[0].keys()
    # records alike: a pass per key over the column (no tuple per object: they woke the collector)
    if all(node.keys() == keys for node in objects):
        return {key: [node[key] for node in objects] for key in keys}
    union = dict.fromkeys(chain.from_iterable(objects))
    # alike but for a few members: the same, each object asked whether it has the key
    if len(union) * len(objects) <= 2 * sum(map(len, objects)):
        return {key: [node[key] for node in objects if key in node] for key in union}
    by_key: dict = defaultdict(list)
    for node in objects:
        for key, value in node.items():
            by_key[key].append(value)
    return by_key


# field names repeat from call to call
@lru_cache(maxsize=16384)
def key_segment(key: str) -> str:
    """Return an object key as a pointer segment.

    Escaped, or `{id}` for a key that looks like an id."""
    if key.isdigit():
        return ID
    # a key named "*" is not an array's items
    if key == "*":
        return "~2"
    segment = escape(key)
    # normalise_segment's test without its own cache: this one holds the key (26,000 keys of one
    # object churned both)
    return ID if looks_like_id(segment) else segment


# the sizes of the strings a format can be told in (shortest, longest)
_FORMAT_SIZES = (6, 2048)
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
    if size < _FORMAT_SIZES[0] or size > _FORMAT_SIZES[1]:
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
    # a hex run first: the pattern's lookaheads read a whole text (4 ms of a 0.8 MB call's bodies)
    if size >= 12 and _HEX_RUN.match(text) and not text.isdigit() and not text.isalpha():
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
