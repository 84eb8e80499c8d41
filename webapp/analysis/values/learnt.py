"""Value relations a tool's history shows between argument and request field.

Between an argument and its request field: functions.

A mapping layer that wraps an id in a template (`gid://shop/Customer/{id}`), joins a list into one
text, splits a text into a list or clamps a number does it the same way every call. Inference names
the relation each call shows (`relation_name`); once a pair's calls agree, the analysis checks each
call against it (`follows`, `gives`): a value the relation gives is quiet, any other is a departure.
Names are plain text, stored with the evidence counts: `wrapped ["gid://shop/Customer/", ""]`,
`joined ,`, `split ,`, `at most 200`, `at least 1`. A join whose items the layer first puts in the
API's form names both (`joined [",", "normalised ..."]`, `join_name`): each call counts the plain
join and the form or rule of each item (`join_of`), and inference names the two together.
"""

import hashlib
import json
import math

from ...common import jsontext
from ..wire.values import as_text
from .classify import classify
from .json_values import is_number, same, type_name
from .readings import read_number

WRAPPED = "wrapped "
JOINED = "joined "
SPLIT = "split "
AT_MOST = "at most "
AT_LEAST = "at least "
# a unit changed (`scaled x100`: units to cents), as webapp/inference/relations.py names it
SCALED = "scaled "
# counted beside a number sent as it is: its magnitude, so a clamp is checked against the values
# earlier calls kept (`kept 8` holds 128 to 256, `kept -1` -1 to 0)
KEPT = "kept "
# the separators a layer joins a list with, or splits a text at
JOINS = (",", "|", ";", " ")
# a wrapper longer than this is free text around the value, not a template
MAX_AFFIX = 80
# shorter texts meet inside longer ones by chance (`1` in `v1`)
MIN_WRAPPED = 2
# what a relation gives when it cannot apply to a value
NOTHING = object()
# a value looked up in a table (a team key sent as its UUID): each call counts `maps <in>><out>`
# with both values digested, and the pair's relation is `looked up` once inputs repeat with the
# same output
MAPS = "maps "
LOOKED_UP = "looked up"
# the same entries keyed in any case (`folded <in, case-folded>/<in>><out>`), an input sent as it is
# too (`<in>` its own output) once the pair has a table: a name looked up whatever its case, beside
# the ids sent as they are
FOLDED = "folded "
# a distinct id-like value a pair's calls agreed on (`seen <digest>`): equal ids that differ from
# call to call are evidence as strong as a name, and a pair keeps a few digests to count them
SEEN = "seen "
# a text put in the API's form, the same way every call (`ios-7` -> `IOS-7`, `1234-5678` ->
# `1234:5678`): `normalised [cases, {separator: written}]`, what each changed call showed. The
# cases a call allows ("keep", "upper", "lower"); the separators it wrote, itself included when kept
NORMALISED = "normalised "
# the form of a text a pair sent as it is (`form LU|-:`: lower and upper letters, the separators
# `-` and `:`), so a normalisation is checked against each value it left as it was
FORM = "form "
# the characters a normalisation writes in another way
NORMAL_SEPARATORS = "-_ .:"
# the same value in another JSON type, counted beside each call's `type_changed` with the types it
# went between (`typed number>string`: an id sent as its text in a JSON body), so the conversion a
# layer always makes is checked against each call: a number sent as it is departs from it
TYPED = "typed "
# the keys a pair counts beside its relations, none of them a relation itself
COUNTED_APART = (KEPT, MAPS, SEEN, FORM, NORMALISED, TYPED, FOLDED)
# the JSON types a conversion goes between (an integer and a fraction are both numbers)
_TYPES = {"integer": "number", "array": "list"}
# what each type is called in a message
_TYPE_WORDS = {
    "number": "a number",
    "string": "text",
    "boolean": "a boolean",
    "list": "a list",
    "object": "an object",
}
# inputs seen at least twice, always with one output, before a table is a function
MIN_LOOKUP_REPEATS = 3
# the share of an input's calls its usual output must hold
DOMINANT = 0.9
# entries one pair's table keeps
MAX_TABLE = 64
# longer texts are free text, not keys of a table
MAX_LOOKUP_TEXT = 200


def normalised_name(a: str, b: str) -> str | None:
    """Name the normalisation one call shows, or None.

    `normalised [["upper"], {"-": "-"}]`: the same letters in one case (or kept) and each
    separator written one way; any other change (a separator added or taken out) is none."""
    if len(a) != len(b) or len(a) > MAX_LOOKUP_TEXT:
        return None
    separators: dict[str, str] = {}
    for x, y in zip(a, b):
        if x in NORMAL_SEPARATORS or y in NORMAL_SEPARATORS:
            if x not in NORMAL_SEPARATORS or y not in NORMAL_SEPARATORS:
                return None
            if separators.setdefault(x, y) != y:
                return None
        elif x.lower() != y.lower():
            return None
    cases = _cases(a, b)
    if not cases:
        return None
    return NORMALISED + json.dumps([sorted(cases), separators], sort_keys=True)


def _cases(a: str, b: str) -> set[str]:
    """Return the case rules that turn `a`'s letters into `b`'s."""
    out = {"keep"} if [x for x in a if x.isalpha()] == [y for y in b if y.isalpha()] else set()
    if b == b.upper():
        out.add("upper")
    if b == b.lower():
        out.add("lower")
    return out


def merged_normalisation(counts: dict) -> tuple[str, int] | None:
    """Return the one normalisation a pair's changed calls all show, and their calls.

    None when two calls show rules that contradict each other."""
    cases = {"keep", "upper", "lower"}
    separators: dict[str, str] = {}
    calls = 0
    for key, n in counts.items():
        if not key.startswith(NORMALISED) or n <= 0:
            continue
        their_cases, their_separators = json.loads(key[len(NORMALISED) :])
        cases &= set(their_cases)
        for x, y in their_separators.items():
            if separators.setdefault(x, y) != y:
                return None
        calls += n
    if not calls or not cases:
        return None
    return NORMALISED + json.dumps([sorted(cases), separators], sort_keys=True), calls


def form_key(value) -> str | None:
    """Return the form of a text sent as it is (`form L|-`), or None for other values."""
    if not isinstance(value, str) or len(value) > MAX_LOOKUP_TEXT:
        return None
    letters = ("L" if value != value.upper() else "") + ("U" if value != value.lower() else "")
    return FORM + letters + "|" + "".join(sorted({c for c in value if c in NORMAL_SEPARATORS}))


def normalised_keeps(name: str, form: str) -> bool:
    """Tell whether a normalisation leaves a text of this form (`form_key`) as it is."""
    cases, separators = json.loads(name[len(NORMALISED) :])
    letters, _, written = form[len(FORM) :].partition("|")
    if "keep" not in cases and not (
        ("upper" in cases and "L" not in letters) or ("lower" in cases and "U" not in letters)
    ):
        return False
    return all(separators.get(c, c) == c for c in written)


def _normalise(name: str, text: str) -> str:
    cases, separators = json.loads(name[len(NORMALISED) :])
    if "keep" not in cases:
        text = text.upper() if "upper" in cases else text.lower()
    return "".join(separators.get(c, c) for c in text)


def join_name(separator: str, rule: str | None = None) -> str:
    """Name a join, with the normalisation it applies to each item first (or none)."""
    return JOINED + (json.dumps([separator, rule]) if rule else separator)


def join_parts(name: str) -> tuple[str, str | None]:
    """Return the separator and the item rule (or None) a join's name holds."""
    rest = name[len(JOINED) :]
    # no separator starts with a bracket: a JSON pair names a join with its items' rule
    if rest.startswith("[") and len(rest) > 1:
        try:
            separator, rule = json.loads(rest)
        except (ValueError, TypeError):
            return rest, None
        if isinstance(separator, str) and isinstance(rule, str):
            return separator, rule
    return rest, None


def join_of(texts: list[str], text: str, separators=JOINS) -> tuple[str, list[str]] | None:
    """Return the separator that joins `texts` into `text`, and what each item showed.

    Each item sent as it is (its `form_key`) or put in the API's form (`normalised_name`): `1-2`
    joined as `1:2`. None when no separator joins them so."""
    for separator in separators:
        parts = [text] if len(texts) == 1 else text.split(separator)
        if len(parts) != len(texts):
            continue
        shown = [_item_shows(x, y) for x, y in zip(texts, parts)]
        if None not in shown:
            return separator, [key for key in shown if key]
    return None


def _item_shows(item: str, part: str) -> str | None:
    """Return an item's form (sent as it is) or rule (normalised), or None.

    "" for an item sent as it is whose form is not kept (a long text)."""
    if item == part:
        return form_key(item) or ""
    return normalised_name(item, part)


def typed_key(a, b) -> str | None:
    """Return the types a value changed between (`typed number>string`), or None.

    None when they are one type, or either is null."""
    x, y = json_type(a), json_type(b)
    return f"{TYPED}{x}>{y}" if x != y and "null" not in (x, y) else None


def json_type(value) -> str:
    """Return a value's JSON type, a number whole or not: `number`, `string`, `list`..."""
    found = type_name(value)
    return _TYPES.get(found, found)


def _typed(name: str) -> tuple[str, str]:
    source, _, target = name[len(TYPED) :].partition(">")
    return source, target


def _converted(name: str, a):
    """Return `a` in the type a `typed` relation gives, or NOTHING.

    NOTHING when `a` is not of the type it converts from, or the conversion is no plain reading
    (a list written as JSON text: its spacing is the encoder's)."""
    source, target = _typed(name)
    if json_type(a) != source:
        return NOTHING
    if target == "string" and source in ("number", "boolean"):
        return as_text(a)
    if source == "string" and target == "number":
        number = read_number(a)
        return NOTHING if number is None else number
    if source == "string" and target in ("list", "object"):
        try:
            decoded = jsontext.loads(a)
        except ValueError:
            return NOTHING
        return decoded if json_type(decoded) == target else NOTHING
    return NOTHING


def relation_name(a, b) -> str | None:
    """Name the function-like relation `a` -> `b` shows (wrapped, split), or None.

    A bound is named apart (`bound_name`): any two numbers show one, so it is only asked of a pair
    whose calls agreed otherwise."""
    if isinstance(a, str) and isinstance(b, list):
        return split_name(a, b)
    return wrapped_name(a, b)


def wrapped_name(a, b) -> str | None:
    """Name the template that puts `a`'s text between a prefix and a suffix.

    A constant prefix and suffix; None when there is none."""
    text = as_text(a) if not isinstance(a, (dict, list)) else None
    if not text or not isinstance(b, str) or len(text) < MIN_WRAPPED or text == b:
        return None
    at = b.find(text)
    if at < 0 or len(b) - len(text) > MAX_AFFIX or not _on_boundaries(b, at, len(text)):
        return None
    return WRAPPED + json.dumps([b[:at], b[at + len(text) :]], ensure_ascii=False)


def _on_boundaries(b: str, at: int, size: int) -> bool:
    """Tell whether b[at:at+size] stands apart.

    No letter or digit glued to it on either side."""
    before = b[at - 1] if at > 0 else ""
    after = b[at + size] if at + size < len(b) else ""
    return not (before.isalnum() and b[at].isalnum()) and not (
        after.isalnum() and b[at + size - 1].isalnum()
    )


def split_name(a: str, b: list) -> str | None:
    """Name the split of a text into the list `b` ("split ,"), or None."""
    if len(b) < 2 or not all(isinstance(x, str) for x in b):
        return None
    return next((SPLIT + sep for sep in JOINS if _split(a, sep) == b), None)


def bound_name(a, b) -> str | None:
    """Name the clamp that turned the number `a` into `b`, or None.

    Or its text: "at most 200"."""
    b = _number(b) if not isinstance(b, bool) else None
    if not is_number(a) or b is None or a == b:
        return None
    if not math.isfinite(float(a)) or not math.isfinite(float(b)):
        return None
    return f"{AT_MOST if a > b else AT_LEAST}{_plain(b)}"


def kept_key(a, b) -> str | None:
    """Return the magnitude key of a number sent as it is (as text too), else None."""
    if not is_number(a) or isinstance(b, bool) or _number(b) != a or not math.isfinite(a):
        return None
    return f"{KEPT}{'-' if a < 0 else ''}{int(abs(a)).bit_length()}"


def bound_holds(name: str, counts: dict) -> bool:
    """Tell whether a clamp keeps every number earlier calls kept inside it.

    Their `kept` keys. A clamp changes values at its one bound: the calls that changed them at
    other bounds of its side (`at most 25` beside `at most 149.95`, a line's total sent as its unit
    price) contradict it, and it does not hold when they are as many as its own."""
    limit = read_number(name.split(" ", 2)[2])
    at_most = name.startswith(AT_MOST)
    side = AT_MOST if at_most else AT_LEAST
    others = sum(n for key, n in counts.items() if key.startswith(side) and key != name and n > 0)
    if others and others >= counts.get(name, 0):
        return False
    for key in counts:
        if key.startswith(KEPT):
            # the kept values lie in [low, high), or (-high, -low] when negative
            text = key[len(KEPT) :]
            k = int(text.lstrip("-"))
            low, high = (0, 1) if k == 0 else (2 ** (k - 1), 2**k)
            if text.startswith("-"):
                outside = -high >= limit if at_most else -low < limit
            else:
                outside = low > limit if at_most else high <= limit
            if outside:
                return False
    return True


def digest(value) -> str | None:
    """Return a short digest of a scalar as the wire writes it, or None.

    5 and "5" alike."""
    text = None if isinstance(value, (dict, list)) or value is None else as_text(value)
    if text is None or not text or len(text) > MAX_LOOKUP_TEXT:
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def maps_key(a, b) -> str | None:
    """Return the table entry one call shows, or None for other values.

    `maps <in>><out>`."""
    x, y = digest(a), digest(b)
    return f"{MAPS}{x}>{y}" if x and y and x != y else None


def table_of(counts: dict) -> dict[str, str]:
    """Return {input digest: output digest} of inputs seen twice with one output.

    At least twice.

    One output in nine of ten of an input's calls at least: an odd call does not unlearn the
    input, two outputs as often are no function."""
    out = {}
    for x, outs in _entries(counts).items():
        y, n = max(outs.items(), key=lambda item: (item[1], item[0]))
        if n >= 2 and n >= DOMINANT * sum(outs.values()):
            out[x] = y
    return out


def _entries(counts: dict) -> dict[str, dict[str, int]]:
    """Return {input digest: {output digest: calls}} of a pair's `maps` counts."""
    seen: dict[str, dict[str, int]] = {}
    for key, n in counts.items():
        if key.startswith(MAPS) and n > 0:
            x, _, y = key[len(MAPS) :].partition(">")
            seen.setdefault(x, {})[y] = n
    return seen


def folded_key(a, b) -> str | None:
    """Return the entry one call shows keyed in any case, or None for other values.

    `folded <in, case-folded>/<in>><out>`: a text input, the output its own when sent as it is."""
    if not isinstance(a, str):
        return None
    f, x, y = digest(a.casefold()), digest(a), digest(b)
    return f"{FOLDED}{f}/{x}>{y}" if f and x and y else None


def _folded_entries(counts: dict) -> tuple[dict, dict]:
    """Return ({input: {output: calls}}, {input: {spelling: output}}), `folded`."""
    seen: dict[str, dict[str, int]] = {}
    spellings: dict[str, dict[str, str]] = {}
    for key, n in counts.items():
        if key.startswith(FOLDED) and n > 0:
            f, _, rest = key[len(FOLDED) :].partition("/")
            x, _, y = rest.partition(">")
            outs = seen.setdefault(f, {})
            outs[y] = outs.get(y, 0) + n
            spellings.setdefault(f, {})[x] = y
    return seen, spellings


def folded_table(counts: dict) -> dict[str, str]:
    """Return {case-folded input digest: output digest} of a table in any case, or {}.

    Only when the case never changed an output (each input's one output in DOMINANT of its calls,
    in whatever case it came) and the table is a function: MIN_LOOKUP_REPEATS spellings of inputs
    seen twice looked up as another value, two outputs at least. The inputs sent as they are are
    entries too, so a known one sent as another value departs."""
    seen, spellings = _folded_entries(counts)
    out, repeats, outputs = {}, 0, set()
    for f, outs in seen.items():
        y, n = max(outs.items(), key=lambda item: (item[1], item[0]))
        if n < DOMINANT * sum(outs.values()):
            # one input, in one case or two, gave two outputs: no table keyed in any case
            return {}
        if n >= 2:
            out[f] = y
            looked = [x for x, given in spellings[f].items() if given == y and x != y]
            repeats += len(looked)
            outputs |= {y} if looked else set()
    if repeats < MIN_LOOKUP_REPEATS or len(outputs) < 2:
        return {}
    return out


def folded_agreement(counts: dict, equal: int) -> int:
    """Return the calls a table keyed in any case explains, or 0 when it is none.

    Each input's usual output, and the `equal` calls of the inputs it holds no other output for."""
    if not folded_table(counts):
        return 0
    seen, spellings = _folded_entries(counts)
    explained = equal
    for f, outs in seen.items():
        usual, n = max(outs.items(), key=lambda item: (item[1], item[0]))
        if usual not in spellings[f]:
            # an input looked up: its calls sent as they are were counted equal, and disagree
            explained += n - sum(k for y, k in outs.items() if y in spellings[f])
    return explained


def best_table(counts: dict, equal: int) -> tuple[int, dict, bool]:
    """Return (calls agreeing, table, keyed in any case) of a pair's lookup.

    (0, {}, False) when it has none.

    The table keyed in any case when it explains more calls (with the `equal` ones)."""
    exact = lookup_agreement(counts)
    folded = folded_agreement(counts, equal)
    if folded > exact:
        return folded, folded_table(counts), True
    return (exact, table_of(counts), False) if exact else (0, {}, False)


def lookup_agreement(counts: dict) -> int:
    """Return the calls a lookup table explains, or 0 when it is no function yet.

    Each input's usual output; no function yet: fewer than MIN_LOOKUP_REPEATS inputs seen twice with
    one output, or one output for all of them."""
    table = table_of(counts)
    # every input giving one output is a constant the layer sends, whatever the argument
    if len(table) < MIN_LOOKUP_REPEATS or len(set(table.values())) < 2:
        return 0
    return sum(max(outs.values()) for outs in _entries(counts).values())


def table_input(a, folded: bool = False) -> str | None:
    """Return the digest a table keys `a` by (case-folded for a table in any case)."""
    return digest(a.casefold() if folded and isinstance(a, str) else a)


def looked_up(table: dict, a, b, folded: bool = False) -> bool | None:
    """Tell whether `a` -> `b` is what the table gives.

    True, False (another output, or the output of another input), or None when the input is new to
    it. A `folded` table is keyed in any case."""
    x, y = table_input(a, folded), digest(b)
    if x in table:
        return table[x] == y
    outputs = list(table.values())
    # one to one so far: an output another input gives is that input's, not this one's
    return False if y in outputs and len(set(outputs)) == len(outputs) else None


def gives(name: str, a):
    """Return what the relation `name` gives for `a`, or NOTHING when it cannot apply."""
    if name.startswith(TYPED):
        return _converted(name, a)
    if name.startswith(WRAPPED):
        prefix, suffix = json.loads(name[len(WRAPPED) :])
        text = as_text(a) if not isinstance(a, (dict, list)) else None
        return NOTHING if text is None else prefix + text + suffix
    if name.startswith(NORMALISED):
        return _normalise(name, a) if isinstance(a, str) else NOTHING
    if name.startswith(JOINED):
        separator, rule = join_parts(name)
        texts = [as_text(x) for x in a] if isinstance(a, list) else [None]
        if None in texts:
            return NOTHING
        return separator.join(_normalise(rule, t) if rule else t for t in texts)
    if name.startswith(SPLIT):
        return _split(a, name[len(SPLIT) :]) if isinstance(a, str) else NOTHING
    if name.startswith(SCALED) and is_number(a):
        factor = name[len(SCALED) :]
        scale = read_number(factor[1:]) if factor[:1] in "x/" else None
        if not scale:
            return NOTHING
        return a * scale if factor[0] == "x" else a / scale
    if name.startswith((AT_MOST, AT_LEAST)) and is_number(a):
        limit = read_number(name.split(" ", 2)[2])
        return min(a, limit) if name.startswith(AT_MOST) else max(a, limit)
    return NOTHING


def follows(name: str, a, b) -> bool:
    """Tell whether `a` -> `b` is what the relation `name` gives.

    A one-item list sent as its item follows a join; a kind such as "enum_changed" is followed by a
    change of that kind."""
    if name.startswith(TYPED):
        found = classify(a, b)
        types = (json_type(a), json_type(b))
        return bool(found) and found[0] == "type_changed" and _typed(name) == types
    given = gives(name, a)
    if given is not NOTHING:
        return _same(given, b) or _one_item(name, a, b)
    found = classify(a, b) if name in ("type_changed", "enum_changed", "format_changed") else None
    return found is not None and found[0] == name


def changes(name: str, a) -> bool:
    """Tell whether the relation `name` changes `a`.

    Then `a` sent as it is departs from it: a conversion changes every value of the type it
    converts from (a list it would write as JSON text too)."""
    if name.startswith(TYPED):
        source, target = _typed(name)
        return json_type(a) == source and (_converted(name, a) is not NOTHING or target == "string")
    given = gives(name, a)
    return given is not NOTHING and not _same(given, a) and not _one_item(name, a, a)


def expected_kind(name: str, a, b) -> str:
    """Return the finding kind of a departure.

    type_changed when the relation gives another type."""
    if name.startswith(TYPED):
        return "type_changed"
    given = gives(name, a)
    if given is not NOTHING and isinstance(given, list) != isinstance(b, list):
        return "type_changed"
    return "value_changed"


def describe(name: str) -> str:
    """Say a relation for people: 'wrapped as "gid://shop/Customer/{value}"'."""
    if name.startswith(WRAPPED):
        prefix, suffix = json.loads(name[len(WRAPPED) :])
        return f'wrapped as "{prefix}{{value}}{suffix}"'
    if name.startswith(JOINED):
        separator, rule = join_parts(name)
        each = f", each item {_describe_normalised(rule)}" if rule else ""
        return f'joined with "{separator}"{each}'
    if name.startswith(SPLIT):
        return f'split at "{name[len(SPLIT) :]}"'
    if name == LOOKED_UP:
        return "looked up (the same input always gave the same output)"
    if name.startswith(NORMALISED):
        return _describe_normalised(name)
    if name.startswith(TYPED):
        source, target = (_TYPE_WORDS.get(t, t) for t in _typed(name))
        return f"{source} sent as {target}"
    return name


def _describe_normalised(name: str) -> str:
    """Say a normalisation: 'written in upper case, "-" as ":"'."""
    cases, separators = json.loads(name[len(NORMALISED) :])
    parts = [] if "keep" in cases else [f"written in {cases[0]} case"]
    parts += [f'"{x}" as "{y}"' for x, y in sorted(separators.items()) if x != y]
    return "normalised: " + (", ".join(parts) or "kept as it is")


def is_function(name: str | None) -> bool:
    """Tell whether a relation name says what value it gives.

    A template, a join, a split, a bound, a known scale (not `scaled ?`)."""
    if name and name.startswith(SCALED):
        return name[len(SCALED) :][:1] in ("x", "/")
    return bool(name) and name.startswith((WRAPPED, JOINED, SPLIT, AT_MOST, AT_LEAST, NORMALISED))


def is_typed(name: str | None) -> bool:
    """Tell whether a relation converts to another JSON type (`typed number>string`)."""
    return bool(name) and name.startswith(TYPED)


def sent_unconverted(name: str | None, value) -> bool:
    """Tell whether a value is in the type a learnt conversion converts from."""
    return is_typed(name) and value is not None and json_type(value) == _typed(name)[0]


def is_bound(name: str | None) -> bool:
    return bool(name) and name.startswith((AT_MOST, AT_LEAST))


def _one_item(name: str, a, b) -> bool:
    """A one-item list sent as its item follows any join.

    And a one-part text any split."""
    if name.startswith(JOINED) and isinstance(a, list) and len(a) == 1:
        return _same(a[0], b)
    if name.startswith(SPLIT) and isinstance(b, list) and len(b) == 1:
        return _same(a, b[0])
    return False


def _same(given, b) -> bool:
    """Tell whether `b` is `given`, text on the wire included (`200` sent as "200")."""
    if same(given, b):
        return True
    if isinstance(b, str) and not isinstance(given, (dict, list)):
        return as_text(given) == b or (is_number(given) and read_number(b) == given)
    return False


def _split(a: str, sep: str) -> list[str]:
    return [part.strip() for part in a.split(sep)] if sep != " " else a.split()


def _number(b):
    if is_number(b):
        return b
    return read_number(b) if isinstance(b, str) else None


def _plain(number) -> str:
    return str(int(number)) if float(number).is_integer() else repr(float(number))
