"""The alignment: the analysis stores only the rows the payloads cannot tell.

full_alignment rebuilds them all."""

import copy
import shutil
import string

import orjson
import pytest
from helpers import nested, quick_and_thorough
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_analysis_findings import ORDER_ARGS, ORDER_CONTRACT, call, order_request

from webapp.analysis import MAX_ROWS, analyze_call, full_alignment
from webapp.pipeline.contracts import analysis_contract
from webapp.store import Store


def snaps(arguments=None, request=None, response=None, status=None):
    def snap(payload, code=None):
        return (
            None
            if payload is None
            else {"payload": payload, "logged_as_string": False, "http": {"status_code": code}}
        )

    return {
        "arguments": snap(arguments),
        "request": snap(request),
        "response": snap(response, status),
    }


def rebuilt(snapshots, contract=None):
    """Return (full_alignment of the sparse result as it is stored, the full alignment analysed
    directly)."""
    # as the store keeps it
    stored = orjson.loads(orjson.dumps(analyze_call(snapshots, contract)))
    full = analyze_call(snapshots, contract, sparse=False)
    return full_alignment(snapshots, stored), (
        full["alignment"],
        bool(full.get("alignment_truncated")),
    )


def test_the_alignment_puts_each_argument_beside_its_request_field_and_marks_the_row():
    snapshots = snaps(ORDER_ARGS, order_request(limit="5"), {"id": "ord_1", "limit": "5"}, 201)
    result = analyze_call(snapshots, ORDER_CONTRACT)
    rows = {row["arguments"]: row for row in result["alignment"]}
    assert rows["/totalCents"]["request"] == "/amount"
    assert rows["/limit"] == {
        "arguments": "/limit",
        "request": "/limit",
        "response": "/limit",
        "kind": "type_changed",
        "severity": "error",
    }
    every, truncated = full_alignment(snapshots, result)
    assert {
        "arguments": None,
        "request": None,
        "response": "/id",
        "kind": None,
        "severity": None,
    } in every
    assert {
        "arguments": "/currency",
        "request": "/currency",
        "response": None,
        "kind": None,
        "severity": None,
    } in every and not truncated


def test_the_stored_alignment_keeps_only_rows_with_a_finding_another_path_or_an_echo():
    result = call(
        ORDER_ARGS, order_request(limit="5"), {"id": "ord_1", "limit": "5"}, 201, ORDER_CONTRACT
    )
    assert result["alignment_sparse"] is True
    assert [
        (r["arguments"], r["request"], r["response"], r["kind"]) for r in result["alignment"]
    ] == [
        ("/totalCents", "/amount", None, None),
        ("/limit", "/limit", "/limit", "type_changed"),
    ]


def test_a_clean_call_stores_no_alignment_row_and_the_page_still_gets_one_row_per_field():
    args = {"query": "invoices", "page": {"size": 20, "after": None}, "tags": ["a", "b"]}
    snapshots = snaps(args, copy.deepcopy(args), {"results": [{"id": 1}], "next": None}, 200)
    result = analyze_call(snapshots, None)
    assert result["alignment"] == [] and result["findings"] == []
    rows, truncated = full_alignment(snapshots, result)
    assert [(r["arguments"], r["request"], r["response"]) for r in rows] == [
        ("/query", "/query", None),
        ("/page/size", "/page/size", None),
        ("/page/after", "/page/after", None),
        ("/tags/0", "/tags/0", None),
        ("/tags/1", "/tags/1", None),
        (None, None, "/results/0/id"),
        (None, None, "/next"),
    ]
    assert not truncated


def test_fields_nested_below_an_equal_object_pair_with_their_request_counterpart_at_any_depth():
    args = {"filter": {"range": {"from": "2026-01-01", "to": "2026-02-01"}}, "limit": 5}
    result, snapshots = _analysed(args, dict(args, limit="5"))
    rows, _ = full_alignment(snapshots, result)
    assert {
        "arguments": "/filter/range/from",
        "request": "/filter/range/from",
        "response": None,
        "kind": None,
        "severity": None,
    } in rows


def _analysed(args, request, response=None):
    snapshots = snaps(args, request, response, 200 if response is not None else None)
    return analyze_call(snapshots, None), snapshots


def test_the_rebuilt_alignment_is_bounded_and_says_so_with_every_marked_row_kept():
    args = {"rows": [{"id": i, "v": i} for i in range(4000)]}
    request = copy.deepcopy(args)
    request["rows"][3999]["v"] = "3999"
    result, snapshots = _analysed(args, request)
    assert result["alignment"] == [
        {
            "arguments": "/rows/3999/v",
            "request": "/rows/3999/v",
            "response": None,
            "kind": "type_changed",
            "severity": "warning",
        }
    ]
    rows, truncated = full_alignment(snapshots, result)
    assert truncated and len(rows) == MAX_ROWS + 1
    assert [r for r in rows if r["kind"]] == result["alignment"]
    assert (rows, truncated) == (analyze_call(snapshots, None, sparse=False)["alignment"], True)


def test_more_stored_rows_than_the_budget_still_rebuild_the_same_truncated_alignment():
    entries = [{"x": i, "y": str(i)} for i in range(4000)]
    snapshots = snaps(
        {"a": entries, "z": 1},
        {"b": copy.deepcopy(entries), "z": "1"},
        {"b": copy.deepcopy(entries[:3000]), "extra": list(range(3000))},
        200,
    )
    result = analyze_call(snapshots, None)
    assert len(result["alignment"]) == MAX_ROWS and result["alignment_truncated"] is True
    rows, truncated = full_alignment(snapshots, result)
    assert (rows, truncated) == (analyze_call(snapshots, None, sparse=False)["alignment"], True)


def test_a_full_alignment_stored_by_an_older_analysis_comes_back_unchanged():
    snapshots = snaps(ORDER_ARGS, order_request(limit="5"), {"id": "ord_1", "limit": "5"}, 201)
    full = analyze_call(snapshots, ORDER_CONTRACT, sparse=False)
    older = {key: value for key, value in full.items() if key != "alignment_sparse"}
    assert full_alignment(snapshots, older) == (full["alignment"], False)


def test_an_echo_declared_under_an_added_object_keeps_the_alignment_in_full():
    contract = {"mapping": [{"request": "/meta/trace", "response": "/trace"}]}
    snapshots = snaps(
        {"q": "x"}, {"q": "x", "meta": {"trace": "t1"}}, {"trace": "t1", "hits": 3}, 200
    )
    result = analyze_call(snapshots, contract)
    full = analyze_call(snapshots, contract, sparse=False)["alignment"]
    assert result["alignment_sparse"] is False and result["alignment"] == full
    assert full_alignment(snapshots, result) == (full, False)


def test_an_analysis_too_deep_to_compare_rebuilds_no_row():
    snapshots = snaps(nested(1), nested("1"))
    result = analyze_call(snapshots, None)
    assert result["incomplete"] and full_alignment(snapshots, result) == ([], False)


@pytest.fixture(scope="module")
def sample_calls(sample_file, tmp_path_factory):
    path = tmp_path_factory.mktemp("samples") / "samples.db"
    # sample_traces/ loaded once per test process (conftest.py)
    shutil.copyfile(sample_file, path)
    store = Store(path)
    keys = store.db.execute(
        "SELECT trace_id, call_id FROM calls ORDER BY trace_id, call_id"
    ).fetchall()
    calls = []
    for trace_id, call_id in keys:
        inputs = store.call_inputs(trace_id, call_id)
        stored = next(c for c in store.get_trace(trace_id)["calls"] if c["call_id"] == call_id)
        # the contract the calls were analysed under: the stored one plus the pairs their traffic
        # taught
        calls.append((inputs["snapshots"], analysis_contract(store, inputs["tool"]), stored))
    store.close()
    return calls


def test_every_sample_call_rebuilds_its_full_alignment_from_what_the_store_keeps(sample_calls):
    assert len(sample_calls) >= 20
    for snapshots, contract, stored in sample_calls:
        full = analyze_call(snapshots, contract, sparse=False)
        assert len(stored["alignment"]) <= len(full["alignment"])
        assert full_alignment(stored["snapshots"], stored) == (full["alignment"], False), stored[
            "call_id"
        ]


KEYS = st.sampled_from(
    [
        "id",
        "title",
        "status",
        "limit",
        "totalCents",
        "total_cents",
        "items",
        "tags",
        "due",
        "note",
        "folder_id",
        "query",
        "page",
        "data",
        "meta",
    ]
)
WORDS = st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6)
SCALARS = st.one_of(
    st.integers(-1000, 1000), WORDS, st.booleans(), st.none(), st.just("[REDACTED]")
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=25,
)
DOCS = st.dictionaries(KEYS, VALUES, max_size=6) | VALUES


@st.composite
def mutated(draw, doc):
    """Return a copy of a document with a few random edits: retyped, renamed, dropped, added,
    nested."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(0, 3))):
        holders = [node for node in _containers(doc) if node]
        if not holders:
            break
        holder = draw(st.sampled_from(holders))
        key = draw(
            st.sampled_from(list(holder) if isinstance(holder, dict) else list(range(len(holder))))
        )
        edit = draw(st.sampled_from(["retype", "rename", "drop", "add", "nest"]))
        if edit == "retype":
            holder[key] = str(holder[key])
        elif edit == "nest":
            holder[key] = {"value": holder[key]}
        elif isinstance(holder, dict) and edit == "rename":
            holder[draw(KEYS) + "X"] = holder.pop(key)
        elif edit == "drop":
            holder.pop(key)
        else:
            value = draw(VALUES)
            holder.append(value) if isinstance(holder, list) else holder.setdefault(
                draw(KEYS), value
            )
    return doc


def _containers(node):
    if isinstance(node, (dict, list)):
        yield node
        for item in node.values() if isinstance(node, dict) else node:
            yield from _containers(item)


@st.composite
def calls(draw):
    """Return (snapshots, contract): arguments, a request mapped from them, a response that may echo
    it."""
    args = draw(DOCS)
    request = draw(
        mutated(args) | st.none() | st.builds(lambda inner: {"data": inner, "v": 2}, mutated(args))
    )
    kind = draw(st.sampled_from(["none", "echo", "wrapped", "other", "error"]))
    response = {
        "none": None,
        "other": draw(DOCS),
        "error": {"code": "E", "message": "m"},
        "echo": draw(mutated(request)),
        "wrapped": {"data": draw(mutated(request)), "id": 1},
    }[kind]
    status = draw(st.sampled_from([200, 201, 429, 500, None]))
    mapping = draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "arguments": st.sampled_from(["/id", "/title", "/items/0"]),
                    "request": st.sampled_from(["/id", "/titleX", "/data"]),
                }
            ),
            max_size=2,
        )
    )
    return snaps(
        draw(st.none() | st.just(args)) if request is not None else args, request, response, status
    ), {"mapping": mapping}


@quick_and_thorough(20, 400)
def test_sparse_rows_plus_the_payloads_give_back_the_full_alignment(examples):
    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(calls())
    def holds(case):
        snapshots, contract = case
        got, want = rebuilt(snapshots, contract)
        assert got == want

    holds()


@quick_and_thorough(15, 150)
def test_an_echo_declared_anywhere_still_gives_back_the_full_alignment(examples):
    @settings(max_examples=examples, deadline=None)
    @given(DOCS, st.data())
    def holds(doc, data):
        request = data.draw(mutated(doc))
        response = data.draw(mutated(request))
        paths = ["", "/id", "/data", "/items/0", "/meta/id"]
        contract = {
            "mapping": [
                {
                    "request": data.draw(st.sampled_from(paths)),
                    "response": data.draw(st.sampled_from(paths)),
                }
            ]
        }
        got, want = rebuilt(snaps(doc, request, response, 200), contract)
        assert got == want

    holds()
