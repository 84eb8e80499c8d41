"""A fingerprint groups findings by what went wrong where.

Never by values, severity or contract version."""

import pytest

from webapp.analysis import analyze_call
from webapp.problems.fingerprint import describe_finding, grouped_by, key, normalise_path
from webapp.problems.grouping import call_problems, contract_digest, exercises
from webapp.problems.transforms import derive_transform


def finding(
    kind="type_changed", severity="warning", left="/limit", right="/limit", lv=5, rv="5", **extra
):
    f = {
        "kind": kind,
        "severity": severity,
        "left": left and {"snapshot": "arguments", "path": left},
        "right": right and {"snapshot": "request", "path": right},
        "left_value": lv,
        "right_value": rv,
        "message": "m",
    }
    f.update(extra)
    return f


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/items/3/id", "/items/*/id"),
        ("/items/12/tags/0", "/items/*/tags/*"),
        ("/users/3f2504e0-4f89-11d3-9a0c-0305e82c3301/name", "/users/{id}/name"),
        ("/by_hash/9f86d081884c7d659a2feaa0c55ad015/v", "/by_hash/{id}/v"),
        ("/orders/ord_20261124/total", "/orders/{id}/total"),
        ("/customerEmail", "/customerEmail"),
        # short hex words stay keys
        ("/deadbeef", "/deadbeef"),
        ("", ""),
    ],
)
def test_paths_are_normalised_array_indexes_and_id_like_keys(path, expected):
    assert normalise_path(path) == expected


def test_values_and_severity_do_not_change_the_fingerprint():
    a = describe_finding("findOrders", finding(lv=5, rv="5", severity="warning"))
    b = describe_finding("findOrders", finding(lv=50, rv="50", severity="error"))
    assert key(a) == key(b)


def test_tool_kind_paths_and_transform_each_split_problems():
    base = key(describe_finding("findOrders", finding()))
    assert key(describe_finding("searchOrders", finding())) != base
    assert key(describe_finding("findOrders", finding(left="/page", right="/page"))) != base
    # boolean>string
    assert key(describe_finding("findOrders", finding(lv=True, rv="true"))) != base
    assert key(describe_finding("findOrders", finding(kind="value_changed", rv=6))) != base


def test_array_items_of_the_same_field_share_one_problem():
    a = describe_finding("t", finding(left="/items/0/qty", right="/items/0/qty"))
    b = describe_finding("t", finding(left="/items/7/qty", right="/items/7/qty"))
    assert key(a) == key(b) and a["left"]["path"] == "/items/*/qty"


def test_the_fingerprint_is_versioned():
    assert key(describe_finding("t", finding())).startswith("v2:")
    # how calls grouped before v2 are found
    assert key(describe_finding("t", finding()), 1).startswith("v1:")


def test_info_findings_open_no_problem():
    assert describe_finding("t", finding(kind="case_changed", severity="info")) is None


@pytest.mark.parametrize(
    "kind, lv, rv, left, right, expected",
    [
        ("type_changed", 5, "5", "/limit", "/limit", "integer>string"),
        ("type_changed", ["a", "b"], "a,b", "/tags", "/tags", "array>string"),
        ("scaled", 1999, 19.99, "/totalCents", "/amount", "/100"),
        ("scaled", 2, 200, "/a", "/a", "x100"),
        ("case_changed", 1, 1, "/createdAfter", "/created_after", "camelCase>snake_case"),
        ("format_changed", "2026-08-20T09:00:00Z", 1787216400, "/from", "/from", "iso8601>epoch"),
        (
            "format_changed",
            "2026-08-20T09:00:00Z",
            "20/08/2026 09:00",
            "/from",
            "/from",
            "iso8601>d/m/y",
        ),
        ("enum_changed", "paid", "PAID", "/status", "/status", "lower>UPPER"),
        ("dropped", "high", None, "/priority", None, None),
    ],
)
def test_the_transform_is_derived_from_kind_and_values(kind, lv, rv, left, right, expected):
    assert (
        derive_transform(kind, finding(kind=kind, lv=lv, rv=rv, left=left, right=right)) == expected
    )


def test_a_transform_given_by_the_engine_wins_over_the_derived_one():
    descriptor = describe_finding("t", finding(transform="integer>string", lv=None, rv=None))
    assert descriptor["transform"] == "integer>string"


def test_folded_findings_count_their_occurrences_and_keep_their_normalised_paths():
    folded = finding(
        left="/tags/*",
        right="/tags/*",
        occurrences=40,
        lv=None,
        rv=None,
        examples=[{"left_value": 1, "right_value": "1"}, {"left_value": 2, "right_value": "2"}],
    )
    folded.pop("left_value"), folded.pop("right_value")
    plain = finding(left="/tags/3", right="/tags/3", lv=1, rv="1")
    grouped = call_problems("t", {"findings": [folded, plain], "validation": {}})
    assert len(grouped) == 1
    entry = next(iter(grouped.values()))
    assert entry["occurrences"] == 41
    assert entry["descriptor"]["transform"] == "integer>string"
    assert set(entry["pairs"]) == {'[1,"1"]', '[2,"2"]'}


def test_schema_violations_group_by_stage_path_and_keyword():
    contract = {
        "request_schema": {
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"qty": {"type": "integer"}}},
                }
            },
        }
    }
    one = analyze_call({"request": {"payload": {"items": [{"qty": "1"}]}}}, contract)
    two = analyze_call(
        {"request": {"payload": {"items": [{"qty": 1}, {"qty": "x"}, {"qty": "y"}]}}}, contract
    )
    a, b = call_problems("t", one), call_problems("t", two)
    assert set(a) == set(b)
    (entry,) = b.values()
    assert entry["descriptor"]["right"] == {"snapshot": "request", "path": "/items/*/qty"}
    assert entry["descriptor"]["keyword"] == "type" and entry["occurrences"] == 2


def test_a_violation_a_finding_already_names_is_not_a_second_problem():
    contract = {"request_schema": {"type": "object", "properties": {"limit": {"type": "integer"}}}}
    analysis = analyze_call(
        {"arguments": {"payload": {"limit": 5}}, "request": {"payload": {"limit": "5"}}}, contract
    )
    grouped = call_problems("findOrders", analysis)
    assert [e["descriptor"]["kind"] for e in grouped.values()] == ["type_changed"]


def test_grouped_by_says_what_the_problem_shares_and_what_it_leaves_out():
    text = grouped_by(describe_finding("findOrders", finding()))
    assert (
        "tool findOrders" in text
        and "arguments path /limit" in text
        and "transform integer>string" in text
    )
    assert "values, severity and contract version are left out" in text


def test_exercises_matches_normalised_paths_against_arguments():
    assert exercises({"items": [{"qty": 1}]}, "/items/*/qty")
    assert not exercises({"items": []}, "/items/*/qty")
    assert exercises({"limit": None}, "/limit") and not exercises({"status": "x"}, "/limit")
    assert exercises({"a/b": {"~k": 1}}, "/a~1b/~0k") and not exercises({"a~1b": 1}, "/a~1b")
    assert exercises({"users": {"u_81c2": {"age": 3}}}, "/users/{id}/age") and not exercises(
        {"users": {}}, "/users/{id}"
    )
    assert exercises({"items": [1, 2]}, "/items/1") and not exercises({"items": [1, 2]}, "/items/2")
    assert exercises({"q": 1}, "") and not exercises(None, "") and not exercises({"q": 1}, None)
    assert not exercises({"q": "text"}, "/q/0") and not exercises({"q": [1]}, "/q/x")


def test_contract_digest_ignores_the_update_time():
    contract = {"name": "t", "arguments_schema": {"type": "object"}, "updated_at": "2026-01-01"}
    assert contract_digest(contract) == contract_digest({**contract, "updated_at": "2026-02-02"})
    assert contract_digest(contract) != contract_digest(
        {**contract, "arguments_schema": {"type": "array"}}
    )
    assert contract_digest(None) is None


def test_the_nearest_clean_call_prefers_one_with_the_path_then_the_most_similar_arguments():
    from webapp.problems.nearest import nearest

    failing = {"status": "paid", "limit": 5, "customer": {"email": "a@example.com", "tier": "gold"}}
    candidates = [
        {"trace_id": "far", "arguments": {"query": "x"}},
        {
            "trace_id": "no-path",
            "arguments": {"status": "paid", "customer": {"email": "a@example.com", "tier": "gold"}},
        },
        {
            "trace_id": "near",
            "arguments": {
                "status": "paid",
                "limit": 10,
                "customer": {"email": "b@example.com", "tier": "gold"},
            },
        },
        {
            "trace_id": "other",
            "arguments": {
                "status": "open",
                "limit": 5,
                "customer": {"email": "c@example.com", "tier": "basic"},
            },
        },
    ]
    best = nearest(failing, candidates, "/limit")
    assert best["trace_id"] == "near" and best["has_path"] and best["method"] == "deep_distance"
    assert nearest(failing, candidates[:2], "/limit")["has_path"] is False
    assert nearest(failing, [], "/limit") is None


def test_big_arguments_are_ranked_by_key_set_alone():
    from webapp.problems.nearest import DEEP_MAX_BYTES, nearest

    big = {f"k{i}": "v" * 50 for i in range(DEEP_MAX_BYTES // 40)}
    best = nearest(
        big, [{"trace_id": "a", "arguments": {"x": 1}}, {"trace_id": "b", "arguments": dict(big)}]
    )
    assert best["trace_id"] == "b" and best["method"] == "key_set" and best["distance"] == 0


def test_a_problem_from_an_older_fingerprint_version_says_so():
    descriptor = {**describe_finding("t", finding()), "fingerprint_version": 1}
    assert (
        "fingerprint v1; made before fingerprint v2, which groups only newer findings"
        in grouped_by(descriptor)
    )


ACCOUNTS = {
    "accts": {"20391234": {"bal": 5}, "a1b2c3d4e5f60718293a4b5c6d7e8f90": {"bal": 6}},
    "rows": [{"bal": 7}],
}


@pytest.mark.parametrize(
    "path, expected",
    [
        # a map keyed by digits: one place, whatever the account
        ("/accts/20391234/bal", "/accts/{id}/bal"),
        ("/accts/a1b2c3d4e5f60718293a4b5c6d7e8f90/bal", "/accts/{id}/bal"),
        # folded over the map's keys
        ("/accts/*/bal", "/accts/{id}/bal"),
        # an array's index
        ("/rows/0/bal", "/rows/*/bal"),
        ("/rows/*/bal", "/rows/*/bal"),
        # not in the document: read as v1 read it
        ("/gone/12/x", "/gone/*/x"),
    ],
)
def test_paths_read_against_their_document_tell_digit_keys_from_indexes(path, expected):
    assert normalise_path(path, ACCOUNTS) == expected


def test_digit_keys_and_hex_keys_of_one_map_are_one_problem():
    arguments = {"accts": {"20391234": {"bal": 5}, "a1b2c3d4e5f60718293a4b5c6d7e8f90": {"bal": 6}}}
    request = {"accts": {k: {"bal": str(v["bal"])} for k, v in arguments["accts"].items()}}
    # a number sent as it is beside them: the layer writes numbers as numbers, and the two balances
    # sent as text are each a type change one call decides (a request of numbers all as text is
    # the layer's way as likely, info: rules/undecided.py `numbers_as_text`)
    arguments["limit"] = request["limit"] = 10
    docs = {"arguments": arguments, "request": request}
    analysis = analyze_call({name: {"payload": doc} for name, doc in docs.items()}, None)
    grouped = call_problems("bank", analysis, docs)
    assert [(e["descriptor"]["left"]["path"], e["occurrences"]) for e in grouped.values()] == [
        ("/accts/{id}/bal", 2)
    ]
    assert all(fingerprint.startswith("v2:") for fingerprint in grouped)
