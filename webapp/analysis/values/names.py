"""Tell how alike two field names are.

Words across case styles, abbreviations and common synonyms."""

import difflib
import re
from functools import lru_cache

from .json_values import norm_key

# The keys an error report keeps its text under, wherever a service puts it (compared as norm_key
# leaves them): a message, a problem+json title or detail, a reason, a description.
ERROR_TEXT_NAMES = frozenset(
    (
        "message",
        "msg",
        "detail",
        "title",
        "reason",
        "description",
        "errormessage",
        "errordescription",
    )
)
# All the keys an error report keeps its parts under: its text, its code, its kind, an `error` or
# `errors`.
ERROR_FIELD_NAMES = ERROR_TEXT_NAMES | frozenset(
    ("error", "errors", "code", "errorcode", "type", "errortype")
)
# the words that tell an error's part inside a longer name, in the singular: `errorMessages`,
# `error_details`, `faultString`
_ERROR_WORDS = frozenset(("error", "err", "message", "detail", "fault"))
# ... and the first words of a name whose last one says which part it holds (`faultString`)
_ERROR_HEADS = ("error", "err", "fault")
_PARTS = ("string", "text", "info")
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
# Abbreviations real APIs use, written out. Small and general on purpose: no tool's own vocabulary.
_ABBREVIATIONS = {
    "qty": "quantity",
    "num": "number",
    "nbr": "number",
    "no": "number",
    "cnt": "count",
    "amt": "amount",
    "desc": "description",
    "addr": "address",
    "msg": "message",
    "img": "image",
    "lang": "language",
    "loc": "location",
    "dt": "date",
    "ts": "timestamp",
    "tz": "timezone",
    "pct": "percent",
    "cat": "category",
    "ref": "reference",
    "org": "organization",
    "dept": "department",
    "cust": "customer",
    "acct": "account",
    "usr": "user",
    "src": "source",
    "dst": "destination",
    "dest": "destination",
    "info": "information",
    "min": "minimum",
    "max": "maximum",
    "str": "string",
    "cfg": "config",
    "uid": "id",
    "uuid": "id",
    "identifier": "id",
    "tel": "phone",
    "ccy": "currency",
    "pwd": "password",
}
# Words that name the same thing in real APIs; each group collapses to its first word.
_SYNONYMS = (
    ("count", "n", "number", "quantity", "total"),
    ("limit", "size", "maximum", "top", "k", "per"),
    ("query", "q", "search", "term", "keyword", "keywords", "phrase", "text"),
    ("start", "from", "begin", "since", "after"),
    ("end", "to", "until", "before"),
    ("location", "store", "shop", "site", "branch", "venue", "place"),
    ("email", "mail"),
    ("phone", "mobile"),
    ("name", "title"),
    ("description", "body", "content", "note", "notes", "comment", "details"),
    ("user", "customer", "client", "account", "member"),
    ("category", "type", "kind"),
    ("sort", "order"),
    ("offset", "skip", "cursor"),
    ("language", "locale"),
    ("timestamp", "time", "at"),
    ("city", "town"),
    ("zip", "postcode", "postal"),
    ("price", "amount", "cost"),
    ("enabled", "active", "on"),
    ("status", "state"),
)
_CANONICAL = {word: group[0] for group in _SYNONYMS for word in group}
# Words that say little about which field is meant ("is_active" and "active" are one field).
_FILLER = {
    "is",
    "has",
    "the",
    "a",
    "of",
    "for",
    "by",
    "should",
    "do",
    "with",
    "include",
    "use",
    "value",
}


def _singular(word: str) -> str:
    if word in ("children",):
        return "child"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 15)
def words(key: str) -> tuple[str, ...]:
    """Split a key into lower-case words, abbreviations written out.

    qtyOrdered -> quantity, ordered."""
    out = []
    for raw in _WORD.findall(key):
        word = raw.lower()
        word = _ABBREVIATIONS.get(word, word)
        out.append(_singular(word))
    return tuple(out)


@lru_cache(maxsize=1 << 15)
def meaning(key: str) -> frozenset:
    """Return the set of canonical words of a key, filler words left out."""
    found = {_CANONICAL.get(w, w) for w in words(key) if w not in _FILLER}
    return frozenset(found or {_CANONICAL.get(w, w) for w in words(key)})


def same_name(a: str, b: str) -> bool:
    """Tell whether two keys name the same thing.

    n/count, q/query, qty/quantity, storeId/location_id."""
    return bool(meaning(a)) and meaning(a) == meaning(b) and a != b


# the last word of a key that holds what names one thing of a collection: `calendarId`, `fileKey`
_HANDLE_WORDS = ("id", "key", "slug", "gid", "uuid")


def names_segment(key: str, collection: str) -> bool:
    """Tell whether a key names the URL segment that follows a collection's.

    `calendarId` names the one after `calendars` (`/calendars/{calendarId}`), `organizationSlug`
    the one after `organizations`: the REST convention. A key that says no handle names none:
    GitHub's `/repos/{owner}/{repo}` holds the owner after `repos`."""
    held = words(key)
    return len(held) >= 2 and held[-1] in _HANDLE_WORDS and held[:-1] == words(collection)


def name_score(a: str, b: str) -> float:
    """Score how alike two keys are, 0..1.

    1 for the same meaning, shared words in between."""
    left, right = meaning(a), meaning(b)
    if not left or not right:
        return 0.0
    if left == right:
        return 1.0
    # an id suffix alone ties store_id to user_id: no evidence
    shared = left & right - {"id"}
    if not shared:
        return _contained(a, b)
    return max(
        0.8 * len(shared) / min(len(left), len(right)) * (len(shared) / len(left | right)) ** 0.5,
        _contained(a, b),
    )


@lru_cache(maxsize=1 << 15)
def _joined(key: str) -> str:
    return "".join(words(key))


def _contained(a: str, b: str) -> float:
    """Score one key inside the other (page/pageNumber) or a near spelling.

    For example adress/address."""
    a, b = _joined(a), _joined(b)
    if min(len(a), len(b)) >= 3 and (a in b or b in a):
        return 0.7
    if not 4 <= min(len(a), len(b)) <= max(len(a), len(b)) <= 24 or a[:2] != b[:2]:
        # a misspelling keeps its first letters; most pairs of keys are nothing alike
        return 0.0
    matcher = difflib.SequenceMatcher(None, a, b)
    if (
        matcher.real_quick_ratio() >= 0.8
        and matcher.quick_ratio() >= 0.8
        and matcher.ratio() >= 0.8
    ):
        return 0.6
    return 0.0


def mentions(text, key: str) -> bool:
    """Tell whether a description mentions a key's words.

    "Number of minors" mentions minors."""
    if not isinstance(text, str) or not text:
        return False
    said = {_CANONICAL.get(w, w) for w in words(text)}
    wanted = meaning(key) - {"id", "count", "number"}
    return bool(wanted) and wanted <= said


def error_field_name(key: str) -> bool:
    """Tell whether a key names a part of an error report.

    One of ERROR_FIELD_NAMES, or a name that ends in an error's word, plural or not
    (`errorMessages`, `error_details`, `validationErrors`), or starts with one and ends in a part's
    (`faultString`, `error_text`); not `errorCount` nor `messageId`."""
    if norm_key(key) in ERROR_FIELD_NAMES:
        return True
    held = words(key)
    return bool(held) and (
        held[-1] in _ERROR_WORDS
        or (held[0] in _ERROR_HEADS and (held[-1] in ERROR_FIELD_NAMES or held[-1] in _PARTS))
    )


def error_text_name(key: str) -> bool:
    """Tell whether a key names an error's text (`message`, `errorMessages`)."""
    if norm_key(key) in ERROR_TEXT_NAMES:
        return True
    held = words(key)
    return error_field_name(key) and bool(held) and held[-1] in ("message", "detail", "text")
