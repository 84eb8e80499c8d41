"""Pairing as an assignment (issue 11).

Renamed fields with small, boolean or repeated values stay quiet."""

import time

import pytest

from webapp.analysis import analyze_call
from webapp.analysis.pairing.solve import solve
from webapp.analysis.values.names import name_score, same_name


def call(arguments, request, contract=None):
    snap = lambda p: {"payload": p, "logged_as_string": False, "http": None}  # noqa: E731
    return analyze_call(
        {"arguments": snap(arguments), "request": snap(request), "response": None}, contract
    )


def loud(result):
    return [f for f in result["findings"] if f["severity"] in ("warning", "error")]


def ends(f):
    return f["left"] and f["left"]["path"], f["right"] and f["right"]["path"]


def only(result, kind):
    found = [f for f in result["findings"] if f["kind"] == kind]
    assert len(found) == 1, result["findings"]
    return found[0]


TICKETS = {"seats": 2, "child_count": 0, "adults": 2, "vip": True, "insured": False}
TICKETS_REQUEST = {"quantity": 2, "minors": 0, "grownups": 2, "priority": True, "insurance": False}
TICKETS_CONTRACT = {
    "arguments_schema": {
        "type": "object",
        "required": list(TICKETS),
        "properties": {k: {} for k in TICKETS},
    }
}


def test_the_issues_example_n_and_q_renamed_to_count_and_query_is_quiet():
    result = call({"n": 1, "q": "rome"}, {"count": 1, "query": "rome"})
    assert loud(result) == [] and result["worst"] == "info"
    assert sorted((ends(f), f["reason"]) for f in result["findings"]) == [
        (("/n", "/count"), "name"),
        (("/q", "/query"), "name"),
    ]


def test_small_boolean_and_repeated_values_renamed_to_other_words_are_quiet_even_when_required():
    result = call(TICKETS, TICKETS_REQUEST, TICKETS_CONTRACT)
    assert loud(result) == [] and {f["kind"] for f in result["findings"]} == {"renamed"}
    assert not [f for f in result["findings"] if f["kind"] in ("dropped", "added")]


@pytest.mark.parametrize("value", [0, 1, True, False, 2, 7, 1.5, "x"])
def test_any_value_renamed_to_an_unrelated_word_pairs_quietly(value):
    result = call({"title": "Lunch", "a_flag": value}, {"title": "Lunch", "other_word": value})
    assert loud(result) == [] and ends(only(result, "renamed")) == ("/a_flag", "/other_word")


def test_two_equal_values_under_two_renamed_fields_are_an_ambiguous_info_never_dropped():
    result = call(
        {"adults": 2, "seats": 2, "city": "Rome"}, {"grownups": 2, "quantity": 2, "town": "Rome"}
    )
    assert loud(result) == []
    renamed = [f for f in result["findings"] if f["kind"] == "renamed" and f["left_value"] == 2]
    assert len(renamed) == 2 and all("equally good" in f["message"] for f in renamed)


def test_a_field_renamed_in_every_record_pairs_by_value_even_when_its_values_repeat_across_records():
    orders = [{"order_id": f"o{n}", "amount": 1500 + n % 3} for n in range(9)]
    renamed = [{"order_id": o["order_id"], "total": o["amount"]} for o in orders]
    result = call({"orders": orders}, {"orders": renamed})
    found = only(result, "renamed")
    assert loud(result) == [] and found["occurrences"] == 9 and found["reason"] == "value"
    # Each amount is the only one of its record: no other pairing explains the call as well.
    assert "equally good" not in found["message"]


def test_a_value_twice_in_one_record_is_still_ambiguous_between_its_two_renamed_fields():
    result = call({"rows": [{"a_x": 5, "a_y": 5}]}, {"rows": [{"b_p": 5, "b_q": 5}]})
    renamed = [f for f in result["findings"] if f["kind"] == "renamed"]
    assert (
        loud(result) == []
        and len(renamed) == 2
        and all("equally good" in f["message"] for f in renamed)
    )


def test_a_swapped_pair_under_a_declared_mapping_is_value_changed_at_both_fields():
    mapping = [
        {"arguments": "/seats", "request": "/quantity"},
        {"arguments": "/child_count", "request": "/minors"},
    ]
    result = call(
        {"seats": 2, "child_count": 0}, {"quantity": 0, "minors": 2}, {"mapping": mapping}
    )
    assert sorted((f["kind"], ends(f), f["reason"]) for f in loud(result)) == [
        ("value_changed", ("/child_count", "/minors"), "declared"),
        ("value_changed", ("/seats", "/quantity"), "declared"),
    ]


def test_an_inferred_mapping_entry_pairs_like_a_declared_one_with_reason_inferred():
    mapping = [{"arguments": "/seats", "request": "/quantity", "inferred": True}]
    found = only(
        call({"seats": 2, "kids": 0}, {"quantity": 3, "minors": 0}, {"mapping": mapping}),
        "value_changed",
    )
    assert ends(found) == ("/seats", "/quantity") and found["reason"] == "inferred"


def test_a_swap_between_fields_whose_names_say_which_is_which_is_found_without_history():
    result = call({"n": 3, "page": 7}, {"count": 7, "page_number": 3})
    assert sorted(ends(f) for f in loud(result)) == [("/n", "/count"), ("/page", "/page_number")]


def test_the_only_integer_left_pairs_with_the_only_integer_left_as_a_value_change():
    found = only(call({"q": "rome", "seats": 2}, {"query": "rome", "quantity": 3}), "value_changed")
    assert ends(found) == ("/seats", "/quantity") and found["reason"] == "elimination"


@pytest.mark.parametrize(
    "sent, received, transform",
    [(2, "2", "integer>string"), (True, "true", "boolean>string"), ("7", 7, "string>integer")],
)
def test_a_value_sent_as_another_type_under_a_new_name_is_type_changed_with_its_transform(
    sent, received, transform
):
    found = only(
        call({"title": "x", "guests": sent}, {"title": "x", "pax": received}), "type_changed"
    )
    assert ends(found) == ("/guests", "/pax") and found["transform"] == transform


def test_dropped_is_loud_only_when_no_counterpart_is_plausible():
    names = {"properties": {"title": {}, "notes": {}, "page": {}}}
    found = only(
        call(
            {"title": "x", "notes": "window seat"},
            {"title": "x", "page": 1},
            {"request_schema": names},
        ),
        "dropped",
    )
    assert found["severity"] == "warning" and found["reason"] is None
    assert (
        only(call({"title": "x", "notes": "window seat"}, {"title": "x"}), "dropped")["left"][
            "path"
        ]
        == "/notes"
    )


@pytest.mark.parametrize(
    "arguments, request_, transform",
    [
        ({"price": 5}, {"price": 500}, "x100"),
        ({"timeout_ms": 5000}, {"timeout_ms": 5}, "/1000"),
        ({"status": "paid"}, {"status": "PAID"}, "lower>UPPER"),
        ({"due": "2026-08-20T09:00:00Z"}, {"due": 1787216400}, "iso8601>epoch"),
        ({"to": ["a@x.org", "b@x.org"]}, {"to": "a@x.org,b@x.org"}, "list>string"),
    ],
)
def test_every_change_names_its_transform(arguments, request_, transform):
    # a list joined is info one call at a time (test_analysis_undecided.py), and named all the same
    [found] = [f for f in call(arguments, request_)["findings"] if f["transform"]]
    assert found["transform"] == transform and found["reason"] == "path"


def test_a_case_style_conversion_names_its_transform_and_reason():
    found = only(call({"noteTitle": "Ideas"}, {"note_title": "Ideas"}), "case_changed")
    assert (found["transform"], found["reason"]) == ("camelCase>snake_case", "case_style")


def test_a_declared_transform_makes_that_exact_change_expected():
    mapping = [{"arguments": "/limit", "request": "/size", "transform": "integer>string"}]
    found = only(call({"limit": 5}, {"size": "5"}, {"mapping": mapping}), "type_changed")
    assert found["severity"] == "info" and found["reason"] == "declared"
    other = [{"arguments": "/limit", "request": "/size", "transform": "x100"}]
    assert (
        only(call({"limit": 5}, {"size": "5"}, {"mapping": other}), "type_changed")["severity"]
        == "warning"
    )


@pytest.mark.parametrize(
    "arguments, request_, kind, transform",
    [
        (
            {"tags": [f"tag-{n}" for n in range(40)]},
            {"tags": [f"TAG-{n}" for n in range(40)]},
            "enum_changed",
            "lower>UPPER",
        ),
        (
            {"ids": list(range(1000, 1040))},
            {"ids": [str(n) for n in range(1000, 1040)]},
            "type_changed",
            "integer>string",
        ),
        (
            {"orders": [{"status": "paid", "amount": 5 + n} for n in range(40)]},
            {"orders": [{"status": "paid", "amount": (5 + n) * 100} for n in range(40)]},
            "scaled",
            "x100",
        ),
        (
            {f"fieldNumber{n}": n for n in range(40)},
            {f"field_number{n}": n for n in range(40)},
            "case_changed",
            "camelCase>snake_case",
        ),
    ],
)
def test_a_folded_finding_names_the_transform_its_items_share(arguments, request_, kind, transform):
    found = only(call(arguments, request_), kind)
    assert found["transform"] == transform


def test_a_folded_array_of_items_changed_two_ways_names_no_transform():
    found = only(
        call({"ids": [1, 2, 3, 4, 5, 6]}, {"ids": ["1", "2", "3", 4.5, 5.5, 6.5]}), "value_changed"
    )
    assert found["transform"] is None


def test_a_declared_transform_quiets_the_folded_finding_of_an_array_changed_that_way():
    arguments, request_ = {"tags": ["red", "green", "blue"]}, {"tags": ["RED", "GREEN", "BLUE"]}
    mapping = [{"arguments": "/tags", "request": "/tags", "transform": "lower>UPPER"}]
    assert only(call(arguments, request_), "enum_changed")["severity"] == "warning"
    assert (
        only(call(arguments, request_, {"mapping": mapping}), "enum_changed")["severity"] == "info"
    )


def test_a_request_schema_that_demands_the_other_form_makes_the_change_expected():
    contract = {
        "request_schema": {
            "type": "object",
            "properties": {"zone": {"enum": ["STALLS", "BALCONY"]}},
        }
    }
    assert loud(call({"zone": "balcony"}, {"zone": "BALCONY"}, contract)) == []
    assert (
        only(call({"zone": "balcony"}, {"zone": "BALCONY"}), "enum_changed")["severity"]
        == "warning"
    )


# --- arrays whose content the mapping layer changed (issue item 7) --------------------------------


@pytest.mark.parametrize(
    "sent, received, says",
    [
        (["r1", "r2", "r3"], ["r1", "r2"], "1 of 3 items removed"),
        (["r1"], ["r1", "r2", "r3"], "2 added"),
        (["r1", "r2"], ["r1", "r9"], '1 changed (first "r2" became "r9")'),
        (["r1", "r2", "r3"], ["r3", "r2", "r1"], "another order"),
    ],
)
def test_a_renamed_list_whose_items_changed_is_one_loud_finding_at_the_list(sent, received, says):
    result = call({"hotel": "h_1", "room_ids": sent}, {"hotel": "h_1", "rooms": received})
    [found] = loud(result)
    assert (
        ends(found) == ("/room_ids", "/rooms")
        and found["kind"] == "value_changed"
        and says in found["message"]
    )
    assert [f for f in result["findings"] if f is not found] == []


def test_a_list_of_numbers_all_sent_as_texts_is_one_finding_quoting_its_first_item():
    numbers = list(range(1000, 1040))
    result = call({"values": numbers}, {"values": [str(n) for n in numbers]})
    [found] = result["findings"]
    assert (found["kind"], found["severity"], found["transform"], ends(found)) == (
        "type_changed",
        "warning",
        "integer>string",
        ("/values", "/values"),
    )
    assert found["message"] == 'values: 40 changed (first integer 1000 became string "1000")'
    # one item changed one way stays at the item, written out in full
    [alone] = call({"values": [7, 8]}, {"values": [7, "8"]})["findings"]
    assert (alone["kind"], ends(alone), alone["message"]) == (
        "type_changed",
        ("/values/1", "/values/1"),
        'values/1: integer 8 became string "8"',
    )


def test_a_folded_list_quotes_its_first_item_as_judged_and_weighs_every_item():
    schema = {
        "type": "object",
        "properties": {"limits": {"type": "array", "items": {"type": "integer", "maximum": 5}}},
    }
    contract = {"name": "t", "arguments_schema": schema}
    result = call({"limits": [10, 20, 30]}, {"limits": [5, 5, 5]}, contract)
    [found] = result["findings"]
    # each item alone is an info (clamped to its bound); the list's change is a warning
    assert (found["kind"], found["severity"], ends(found)) == (
        "value_changed",
        "warning",
        ("/limits", "/limits"),
    )
    assert found["message"] == (
        "limits: 3 changed (first 10 became 5 (clamped to the maximum the argument's contract "
        "states (5)))"
    )
    # a list whose every item was looked up is the items' info
    labels = call({"labels": ["bug", "ui"]}, {"labelIds": [4411, 4412]})
    [looked_up] = labels["findings"]
    assert (looked_up["severity"], ends(looked_up)) == ("info", ("/labels", "/labelIds"))
    assert "2 changed (first" in looked_up["message"]
    assert "labelIds names the id of labels: a value looked up" in looked_up["message"]


def test_records_added_to_a_list_under_the_same_key_are_one_finding_at_the_list():
    args = {"items": [{"sku": "a", "qty": 1}]}
    request = {"items": [{"sku": "a", "qty": 1}, {"sku": "b", "qty": 1}]}
    [found] = call(args, request)["findings"]
    assert (found["kind"], found["severity"], ends(found)) == (
        "value_changed",
        "warning",
        ("/items", "/items"),
    )


@pytest.mark.parametrize(
    "contract", [None, {"mapping": [{"arguments": "/room_ids", "request": "/rooms"}]}]
)
def test_a_list_passed_through_unchanged_or_under_a_declared_name_is_quiet(contract):
    assert (
        loud(
            call({"room_ids": ["r1", "r2"], "n": 1}, {"rooms": ["r1", "r2"], "count": 1}, contract)
        )
        == []
    )


# --- names and the solver ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("qty", "quantity"),
        ("n", "count"),
        ("q", "query"),
        ("store_id", "locationId"),
        ("is_active", "active"),
        ("per_page", "pageSize"),
        ("num_guests", "guestCount"),
    ],
)
def test_keys_that_mean_the_same_across_styles_abbreviations_and_synonyms(a, b):
    assert same_name(a, b)


@pytest.mark.parametrize(
    "a, b", [("store_id", "user_id"), ("seats", "quantity"), ("from", "to"), ("title", "tags")]
)
def test_keys_that_do_not_mean_the_same(a, b):
    assert not same_name(a, b) and name_score(a, b) < 0.5


def test_the_solver_pairs_as_many_as_it_can_before_it_maximises_scores():
    # Greedy would take the 10 and leave the second left with nothing.
    assert solve(2, 2, {(0, 0): 10.0, (1, 0): 9.9, (0, 1): 9.8}) == [(0, 1), (1, 0)]


def test_a_huge_object_of_renamed_small_values_stays_fast_and_quiet():
    arguments = {f"field{i}": i % 3 for i in range(3000)}
    request = {f"other{i}": i % 3 for i in range(3000)}
    started = time.perf_counter()
    result = call(arguments, request)
    assert time.perf_counter() - started < 20 and loud(result) == []


def test_an_argument_whose_mapped_counterpart_is_missing_is_dropped_not_paired_with_a_lookalike():
    mapping = [{"arguments": "/instant", "request": "/express", "inferred": True}]
    found = only(
        call({"amount": 5, "instant": False}, {"value": 5, "dryRun": False}, {"mapping": mapping}),
        "dropped",
    )
    assert found["left"]["path"] == "/instant" and found["severity"] == "warning"


def test_a_field_moved_out_of_the_wrapper_its_mapping_names_is_dropped_not_paired_by_its_key():
    # Asana's layer sends {"data": {"name": ...}}: a release that writes `name` beside `data` broke
    # the mapping
    contract = {"mapping": [{"arguments": "/name", "request": "/data/name", "inferred": True}]}
    args = {"name": "Review contract", "notes": "Due soon."}
    assert (
        loud(call(args, {"data": {"name": "Review contract", "notes": "Due soon."}}, contract))
        == []
    )
    broken = call(args, {"data": {"notes": "Due soon."}, "name": "Review contract"}, contract)
    assert [(f["kind"], *ends(f)) for f in loud(broken)] == [("dropped", "/name", None)]


def test_two_trivial_values_of_other_types_under_unrelated_names_do_not_pair_by_value():
    # GitHub's issue carries `locked: false`; a layer hands back a count of 0 it computed itself:
    # 0 and false under unrelated names are no evidence of one field
    result = call({"title": "x", "comments": 0}, {"title": "x", "locked": False})
    assert not [f for f in result["findings"] if f["kind"] == "type_changed"]
    # with a name that says they are one field, the same change is still told
    found = only(call({"title": "x", "locked": 0}, {"title": "x", "locked": False}), "type_changed")
    assert ends(found) == ("/locked", "/locked")


def test_the_last_number_inside_a_lists_item_is_not_paired_with_one_outside_the_list():
    # a Slack-like message with attachments: a count the layer derives from the list beside the
    # list's items keeps no counterpart by elimination
    result = call(
        {"text": "hi", "attachment_count": 1},
        {"text": "hi", "attachments": [{"fallback": "f", "color_code": 5763719}]},
    )
    assert not [f for f in result["findings"] if f["reason"] == "elimination"]
    # nor are two trivial numbers (a count of 1, a flags field of 0) the last of one kind
    result = call({"text": "hi", "attachment_count": 1}, {"text": "hi", "flags": 0})
    assert not [f for f in result["findings"] if f["reason"] == "elimination"]
    # the last numbers on each side, as deep in lists, still pair by elimination
    found = only(call({"q": "rome", "seats": 2}, {"query": "rome", "quantity": 3}), "value_changed")
    assert found["reason"] == "elimination"


def _chain(keys, leaf):
    for key in reversed(keys):
        leaf = {key: leaf}
    return leaf


def test_nested_one_key_objects_pair_level_by_level_down_to_the_changed_leaf():
    keys = [f"k{level % 3}" for level in range(60)]
    arguments = {"trees": [_chain(keys, {"leaf": n, "name": f"n{n}"}) for n in range(3)]}
    request = {"trees": [_chain(keys, {"leaf": str(n), "name": f"n{n}"}) for n in range(3)]}
    found = call(arguments, request)["findings"]
    leaves = [f"/trees/{n}/" + "/".join(keys) + "/leaf" for n in range(3)]
    assert [(f["kind"], ends(f), f["transform"]) for f in found] == [
        ("type_changed", (leaf, leaf), "integer>string") for leaf in leaves
    ]
    assert {f["reason"] for f in found} == {"path"}


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_a_mapped_key_inside_one_key_objects_is_not_paired_by_its_path(depth):
    # the mapping sends /a/.../b to a request field the call lacks: dropped, not paired in place
    keys = ["a"] * depth + ["b"]
    arguments, request = _chain(keys, {"c": 5}), _chain(keys, {"c": 6})
    pointer = "/" + "/".join(keys)
    contract = {"mapping": [{"arguments": pointer, "request": "/elsewhere"}]}
    found = [(f["kind"], ends(f)) for f in call(arguments, request, contract)["findings"]]
    assert found == [("dropped", (pointer, None)), ("added", (None, pointer))]
    # without the mapping the two are one and the same field
    change = only(call(arguments, request), "value_changed")
    assert ends(change) == (pointer + "/c", pointer + "/c") and change["reason"] == "path"


def test_a_declared_pair_inside_one_key_objects_is_found_by_its_declaration():
    arguments, request = _chain(["a", "b"], {"c": 5}), _chain(["a", "b"], {"c": 6})
    contract = {"mapping": [{"arguments": "/a/b/c", "request": "/a/b/c"}]}
    change = only(call(arguments, request, contract), "value_changed")
    assert ends(change) == ("/a/b/c", "/a/b/c") and change["reason"] == "declared"
