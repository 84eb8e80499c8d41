"""Property tests: identical snapshots are quiet.

One mutation of a known kind is found at its path."""

import copy
import string

from helpers import quick_and_thorough
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from webapp.analysis import analyze_call
from webapp.common.pointers import child, parent, resolve, tokens

KEYS = st.sampled_from(
    [
        "id",
        "title",
        "status",
        "limit",
        "total_cents",
        "customerEmail",
        "items",
        "tags",
        "due",
        "note",
        "priority",
        "folder_id",
        "query",
        "page",
        "lat",
        "lon",
    ]
)
WORDS = st.text(alphabet=string.ascii_lowercase, min_size=2, max_size=10)
SCALARS = st.one_of(
    st.integers(-(10**6), 10**6),
    WORDS,
    st.booleans(),
    st.none(),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=20,
)
DOCS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=6)


def analyze(arguments, request, response=None):
    snap = lambda p, code=None: {
        "payload": p,
        "logged_as_string": False,
        "http": {"status_code": code},
    }
    return analyze_call(
        {
            "arguments": snap(arguments),
            "request": snap(request),
            "response": None if response is None else snap(response, 200),
        },
        None,
    )


def nodes(value, path=""):
    yield path, value
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        yield from nodes(item, child(path, key))


def set_at(doc, path, value):
    *head, last = tokens(path)
    holder = resolve(doc, parent(path))
    holder[int(last) if isinstance(holder, list) else last] = value


def at(result, kind, path):
    return [f for f in result["findings"] if f["kind"] == kind and f["left"]["path"] == path]


@quick_and_thorough(25, 150)
def test_identical_snapshots_give_no_finding(examples):
    @settings(max_examples=examples)
    @given(DOCS)
    def holds(doc):
        result = analyze(doc, copy.deepcopy(doc), copy.deepcopy(doc))
        assert result["findings"] == [] and result["worst"] is None

    holds()


@quick_and_thorough(25, 150)
def test_an_integer_turned_into_a_string_is_type_changed_at_its_path(examples):
    @settings(max_examples=examples)
    @given(DOCS, st.data())
    def holds(doc, data):
        paths = [p for p, v in nodes(doc) if isinstance(v, int) and not isinstance(v, bool)]
        assume(paths)
        path = data.draw(st.sampled_from(paths))
        request = copy.deepcopy(doc)
        set_at(request, path, str(resolve(doc, path)))
        found = at(analyze(doc, request), "type_changed", path)
        assert found and found[0]["right"]["path"] == path and found[0]["severity"] == "warning"

    holds()


@quick_and_thorough(25, 150)
def test_an_enum_in_upper_case_is_enum_changed_at_its_path(examples):
    @settings(max_examples=examples)
    @given(DOCS, st.data())
    def holds(doc, data):
        paths = [p for p, v in nodes(doc) if isinstance(v, str)]
        assume(paths)
        path = data.draw(st.sampled_from(paths))
        request = copy.deepcopy(doc)
        set_at(request, path, resolve(doc, path).upper())
        found = at(analyze(doc, request), "enum_changed", path)
        assert found and found[0]["right"]["path"] == path

    holds()


def _keyed(doc):
    """Paths of object members whose value is unique and not a common one (so a rename can be
    told)."""
    counts = {}
    for _, value in nodes(doc):
        counts[repr(value)] = counts.get(repr(value), 0) + 1
    return [
        p
        for p, v in nodes(doc)
        if p
        and isinstance(resolve(doc, parent(p)), dict)
        and counts[repr(v)] == 1
        and v not in (None, True, False, 0, 1, -1, "", [], {})
        and not (isinstance(v, float) and abs(v) <= 1)
    ]


@quick_and_thorough(25, 150)
def test_a_renamed_key_is_reported_renamed_from_its_path_to_the_new_one(examples):
    @settings(max_examples=examples)
    @given(DOCS, st.data())
    def holds(doc, data):
        paths = _keyed(doc)
        assume(paths)
        path = data.draw(st.sampled_from(paths))
        request = copy.deepcopy(doc)
        holder = resolve(request, parent(path))
        holder["zz_renamed"] = holder.pop(tokens(path)[-1])
        found = at(analyze(doc, request), "renamed", path)
        assert found and found[0]["right"]["path"] == child(parent(path), "zz_renamed")
        assert found[0]["severity"] == "info"

    holds()


@quick_and_thorough(25, 150)
def test_a_dropped_key_is_reported_dropped_at_its_path(examples):
    @settings(max_examples=examples)
    @given(DOCS, st.data())
    def holds(doc, data):
        paths = [p for p, _ in nodes(doc) if p and isinstance(resolve(doc, parent(p)), dict)]
        path = data.draw(st.sampled_from(paths))
        request = copy.deepcopy(doc)
        del resolve(request, parent(path))[tokens(path)[-1]]
        found = at(analyze(doc, request), "dropped", path)
        assert found and found[0]["right"] is None

    holds()
