"""Conversions one call cannot tell from a bug.

A value reshaped (a list joined, JSON text decoded), a number clamped to its stated bound.

GitLab's API takes `labels` as one text, `"bug,ui"`, and its layer joins the model's list; another
API wants the list, and a layer that joins it is wrong. One call holds nothing that tells the two
apart: only a request schema, a declared transform or the tool's earlier calls (the same join every
time) do. So the change is info one call at a time, and says what would settle it (issue 32, item
2); so is a text split into a list (of texts, or of one-field objects) and a JSON text decoded into
the object it encodes, or the other way. A number lowered to the maximum the argument's own
contract states (`max 200` in its description, a schema `maximum`) is that contract kept. An id
written in another case or with other separators (`ios-7` -> `IOS-7`, `1234-5678` ->
`1234:5678`) where the argument declares no values is the API's spelling as likely as a slip.
"""

import math
import re
from functools import lru_cache

from ...common import jsontext
from ...common.pointers import MISSING, tokens
from ..schemas.declared import field_schemas
from ..values.json_values import is_container, is_number, norm_key, norm_text, same
from ..values.learnt import NORMALISED, describe, join_of
from ..values.names import words
from ..values.readings import read_number, unix_time_of
from ..values.rendered import rendering
from ..wire.values import as_text
from .held_whole import only_leaf

SETTLES = (
    "one call cannot tell {} the API wants from {} by mistake; a request schema, a declared "
    "transform or the tool's earlier calls would settle it"
)
# how layers join a list into one text, or split one text into a list
_JOINERS = (",", ", ", ";", "; ", "|", " ", "\n")
# the words a key ends with when it holds an id: `teamId`, `label_ids`
_ID_WORDS = ("id", "ids", "uuid", "uuids", "gid")
# the words APIs take in place of an id: the caller's own, or the account's default
_ALIASES = frozenset(("me", "self", "current", "default", "primary", "mine", "my"))
# no spaces, bounded: an id, not free text
_ID_TEXT = re.compile(r"^[\w:/.\-]{1,200}$")
# an id token: no spaces, a digit in it (`ios-7`, `1234-5678`, `payments-2b1`)
_ID_TOKEN = re.compile(r"^(?=[^\s]*\d)[^\s]{1,200}$")
# an address: `ana@acme.io`, a calendar's `c_8f2k1m9q@group.calendar.google.com`
_ADDRESS = re.compile(r"^[\w.+#-]+@[\w-]+(?:\.[\w-]+)+$")
_LOOKUP_SETTLES = (
    "a declared transform or the tool's earlier calls (the same input, the same id) would settle it"
)
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
# a duration's parts as people write them: `1h 30m`, `2 days`, `45 sec`
_SPAN = re.compile(
    r"(\d+(?:\.\d+)?)\s*(weeks?|w|days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b",
    re.I,
)
_SPAN_SIZES = {
    **dict.fromkeys(("week", "w"), 604800),
    **dict.fromkeys(("day", "d"), 86400),
    **dict.fromkeys(("hour", "hr", "h"), 3600),
    **dict.fromkeys(("minute", "min", "m"), 60),
    **dict.fromkeys(("second", "sec", "s"), 1),
}
# ISO 8601: P1DT2H30M
_ISO_DURATION = re.compile(
    r"^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$",
    re.I,
)
_ISO_SIZES = (604800, 86400, 3600, 60, 1)
# the units a layer sends a duration in, per second
_UNITS = (("seconds", 1), ("minutes", 1 / 60), ("milliseconds", 1000), ("hours", 1 / 3600))
# a bound the description states: `max 200`, `maximum: 200`, `at most 200`, `up to 200`
_MAXIMUM = re.compile(r"\b(?:max(?:imum)?|at most|up to)\b\W{0,3}(-?\d+(?:\.\d+)?)", re.I)
_MINIMUM = re.compile(r"\b(?:min(?:imum)?|at least)\b\W{0,3}(-?\d+(?:\.\d+)?)", re.I)


def reshaped(value, sent) -> str | None:
    """Say how an argument and its request field are one value reshaped, else None.

    A list joined into one text or split from it, JSON text decoded or encoded."""
    return _coded(value, sent) or _joined(value, sent) or _rendered(value, sent)


def _coded(value, sent) -> str | None:
    """Say how a JSON text and the container it encodes stand, else None.

    `'{"state": "open"}'` -> `{"state": "open"}`, or the other way."""
    if isinstance(value, str) and is_container(sent):
        text, decoded, what = value, sent, "a JSON text sent decoded"
    elif is_container(value) and isinstance(sent, str):
        text, decoded, what = sent, value, "a value sent encoded as JSON text"
    else:
        return None
    try:
        parsed = jsontext.loads(text)
    except jsontext.JSONDecodeError:
        return None
    if not same(parsed, decoded):
        return None
    return f"{what}: {SETTLES.format('the form', 'the other made')}"


def _rendered(value, sent) -> str | None:
    """Say so when a text is sent rendered as a document, else None."""
    if not rendering(value, sent):
        return None
    what = "a text sent rendered as a document (its words, in order, in the document's text)"
    return f"{what}: {SETTLES.format('the form', 'a text replaced')}"


def _joined(value, sent) -> str | None:
    """Say how a list and one text of its items are the same value, else None.

    `["a", "b"]` -> `"a,b"`, `"a, b"` -> `["a", "b"]` or `[{"name": "a"}, {"name": "b"}]`."""
    if isinstance(value, list) and isinstance(sent, str):
        items, text, what = value, sent, "a list sent joined into one text"
    elif isinstance(value, str) and isinstance(sent, list):
        items, text, what = sent, value, "a text sent split into a list"
    else:
        return None
    texts = [_item_text(item) for item in items]
    shown = None if None in texts else join_of(texts, text, _JOINERS)
    if shown is None:
        return None
    if len(items) == 1:
        what = "a one-item list sent as its item" if text is sent else "a text sent as a list of it"
    return f"{what}{_in_form(shown[1], len(items))}: {SETTLES.format('a join', 'a list flattened')}"


def plucked_join(field: str, value: list, sent) -> str | None:
    """Say how one field of a list's items and a text are one value, else None.

    `nodes: [{"nodeId": "1-2"}, {"nodeId": "3:4"}]` -> `"1:2,3:4"`: each item's field joined,
    as it is or in the API's form (pairing/plucks.py)."""
    texts = [as_text(item) for item in value]
    shown = join_of(texts, sent, _JOINERS) if isinstance(sent, str) else None
    if shown is None:
        return None
    what = f"each item's {field} sent joined into one text"
    if len(value) == 1:
        what = f"a one-item list's {field} sent as its text"
    return f"{what}{_in_form(shown[1], len(value))}: {SETTLES.format('a join', 'a list flattened')}"


def _in_form(shown: list[str], items: int) -> str:
    """Say how the items were put in another form, when some were: ` ("-" as ":")`."""
    rules = [key for key in shown if key.startswith(NORMALISED)]
    if not rules:
        return ""
    return f" ({len(rules)} of {items} items {describe(rules[0])})"


def _item_text(item) -> str | None:
    """Return a list item's text: a scalar's, or that of the one scalar it holds."""
    leaf = only_leaf(item) if is_container(item) else item
    return None if leaf is MISSING else as_text(leaf)


LOCAL_TIME = (
    "a time without an offset sent as the same local time in a zone: one call cannot tell the zone "
    "the layer should read it in; a declared transform or the tool's earlier calls would settle it"
)


def timed(value, sent) -> str | None:
    """Say how a duration written as text was sent as a number of some unit, else None.

    `"1h 30m"` -> `5400` (seconds), `"PT2H"` -> `120` (minutes)."""
    seconds = read_duration(value) if isinstance(value, str) else None
    # the sent value is read only for a duration: 70,000 numbers sent as text are none
    if seconds is None:
        return None
    number = sent if is_number(sent) else read_number(sent) if isinstance(sent, str) else None
    if number is None:
        return None
    for unit, per_second in _UNITS:
        if math.isclose(seconds * per_second, number, rel_tol=1e-9, abs_tol=1e-9):
            return (
                f"a duration sent as a number of {unit}: one call cannot tell the unit the API "
                "wants from another; a request schema, a declared transform or the tool's earlier "
                "calls would settle it"
            )
    return None


def dated(value, sent) -> str | None:
    """Say how a date (or date-time) text and a number are one moment, else None.

    `"15/11/2026"` -> `1794700800` (the day's first second), `1794700800` ->
    `"2026-11-15T00:00:00.000Z"`: the Unix time of exactly that moment, or of a date's first or last
    second."""
    if isinstance(value, str) and is_number(sent):
        text, number, what = value, sent, "a date sent as a Unix time"
    elif is_number(value) and isinstance(sent, str):
        text, number, what = sent, value, "a Unix time sent as a date"
    else:
        return None
    unit = unix_time_of(number, text)
    if unit is None:
        return None
    return f"{what} (in {unit}): {SETTLES.format('the form', 'the other made')}"


def read_duration(text: str) -> float | None:
    """Read a duration written as text in seconds, else None.

    `1h 30m`, `90 minutes`, `PT1H30M`."""
    iso = _ISO_DURATION.match(text.strip())
    if iso and any(iso.groups()):
        return sum(float(n or 0) * size for n, size in zip(iso.groups(), _ISO_SIZES))
    parts = _SPAN.findall(text)
    if not parts or _SPAN.sub("", text).strip(" ,and") != "":
        return None
    return sum(float(n) * _SPAN_SIZES[word.lower().rstrip("s") or "s"] for n, word in parts)


def looked_up(pair: tuple, value, sent) -> str | None:
    """Say a value sent as the id its key names is a look-up, else None.

    `team: "ENG"` -> `teamId: "9cfb482a-..."`, `labels/0: "bug"` -> `labelIds/0: 4411`, and a
    name given where the key asks for an id (`calendarId: "Team Offsite"` ->
    `c_8f2k...@group.calendar.google.com`)."""
    # the value tests first: most changed values are no id (70,000 items of a list changed)
    if is_container(value) or value == sent or not _id_shaped(sent):
        return None
    names = [_subject(path) for path in pair]
    if names_ids(*pair):
        return (
            f"{names[1]} names the id of {names[0]}: a value looked up, which one call cannot "
            f"check; {_LOOKUP_SETTLES}"
        )
    if not (_names_an_id(names[0]) and isinstance(value, str) and not _id_shaped(value)):
        return None
    if norm_key(names[0]) != norm_key(names[1]):
        return (
            f"{names[0]} names an id and was given a name, sent as an id: a value looked up, "
            f"seen in one call; {_LOOKUP_SETTLES}"
        )
    # Under its own key the field is the same (`ENG` sent as another team's id is a wrong id),
    # unless what the model gave stands in for an id (`default`, `YOUR_ACCOUNT_SID`): the layer
    # put one in its place, its configured default or the one the alias names.
    if not placeholder(value, names[0]):
        return None
    return (
        f"{names[0]} names an id and was given {value!r}, which stands in for one, sent as an id: "
        f"the layer's default or a look-up, seen in one call; {_LOOKUP_SETTLES}"
    )


def placeholder(value: str, key: str) -> bool:
    """Tell a text that stands in for an id: an alias, or the field's own name.

    `me`, `default`, `primary`; `YOUR_ACCOUNT_SID` or `<account_id>` for `accountSid`."""
    if norm_text(value) in _ALIASES:
        return True
    named = set(words(key))
    return bool(named) and not any(c.isdigit() for c in value) and named <= set(words(value))


def all_looked_up(pair: tuple, values: list, sent: list) -> bool:
    """Tell whether every item of a list was sent as the id its key names."""
    return len(values) == len(sent) and all(looked_up(pair, v, s) for v, s in zip(values, sent))


def names_ids(argument_path: str, field_path: str) -> bool:
    """Tell whether a request key names the ids of what its argument names.

    `team` -> `teamId`, `labels` -> `label_ids`; an argument that is an id already never."""
    # one path names one thing: an item of a list kept in place is never its own id
    if argument_path == field_path:
        return False
    return _names_ids(_subject(argument_path), _subject(field_path))


@lru_cache(maxsize=4096)
def _names_ids(argument_key: str, field_key: str) -> bool:
    # by the keys, once: the items of a list share them
    argument, field = norm_key(argument_key), norm_key(field_key)
    stems = {argument, argument[:-1] if argument.endswith("s") else argument}
    return not argument.endswith(_ID_WORDS) and any(
        field == stem + word for stem in stems for word in _ID_WORDS
    )


def _names_an_id(key: str) -> bool:
    """Tell whether an argument's key says it holds an id (`calendarId`, `team_uuid`)."""
    low = norm_key(key)
    return low.endswith(_ID_WORDS) and low not in _ID_WORDS


def _subject(path: str) -> str:
    """Return the last key of a path that is no list index."""
    # the common case without splitting the whole path: plain keys, then list indexes
    end = len(path)
    cut = path.rfind("/", 0, end)
    while cut >= 0 and path[cut + 1 : end] and "~" not in path[cut + 1 : end]:
        if not path[cut + 1 : end].isdigit():
            return path[cut + 1 : end]
        end, cut = cut, path.rfind("/", 0, cut)
    return next((t for t in reversed(tokens(path)) if not t.isdigit()), "")


def _id_shaped(value) -> bool:
    """Tell whether a value looks like an id.

    An integer, a UUID, a token of letters and digits, an address."""
    if is_number(value):
        return isinstance(value, int)
    if not isinstance(value, str):
        return False
    if not _ID_TEXT.match(value):
        return _ADDRESS.match(value) is not None
    return (
        value.isdigit()
        or _UUID.match(value) is not None
        or (len(value) >= 6 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))
    )


def clamped(value, sent, schemas: list[dict]) -> str | None:
    """Say which declared bound a number was clamped to, else None.

    The bound from the argument's schemas: a `maximum`/`minimum`, or one their description
    states."""
    if not (is_number(value) and is_number(sent)) or value == sent:
        return None
    side, stated = ("maximum", _MAXIMUM) if sent < value else ("minimum", _MINIMUM)
    for schema in schemas:
        bound = _bound(schema, side, stated)
        if bound is not None and bound == sent:
            return f"clamped to the {side} the argument's contract states ({bound:g})"
    return None


def _bound(schema: dict, keyword: str, stated: re.Pattern) -> float | None:
    if is_number(schema.get(keyword)):
        return float(schema[keyword])
    text = schema.get("description")
    found = stated.search(text) if isinstance(text, str) else None
    return float(found.group(1)) if found else None


NORMALISED_ID = (
    "an id written in another case or with other separators, seen in one call: nothing declares "
    "the argument's values; the tool's history or a contract would tell a normalisation from a bug"
)


def normalised_id(pair: tuple, value, sent, schemas: list[dict]) -> str | None:
    """Say an id was only written another way, where no values are declared, else None.

    A text token holding a digit (`ios-7`, `1234-5678`) whose case or separators changed, sent
    under another name (a URL segment, `nodeId` -> `ids`), of an argument whose schemas declare no
    `enum` or `const`. A word of a closed set (`economy` -> `ECONOMY`) stays the enum's case
    changed, and an id under its own key (`sku` -> `sku`) a value changed."""
    if not (isinstance(value, str) and isinstance(sent, str)) or not _ID_TOKEN.match(value):
        return None
    if norm_key(_subject(pair[0])) == norm_key(_subject(pair[1])):
        return None
    if any("enum" in schema or "const" in schema for schema in schemas):
        return None
    return NORMALISED_ID if norm_text(value) == norm_text(sent) else None


def argument_schemas(contract, path: str) -> list[dict]:
    """Return the argument's own schemas in the contract, else an empty list."""
    return field_schemas((contract or {}).get("arguments_schema"), path)
