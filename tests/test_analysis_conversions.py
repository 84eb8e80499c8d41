"""Conversions that are part of the mapping.

Units read from names and declared transforms, enforced."""

import pytest

from webapp.analysis import analyze_call
from webapp.analysis.values.units import expected_factors, unit_of


def call(arguments, request, mapping=None):
    snap = lambda p: {"payload": p, "logged_as_string": False, "http": None}  # noqa: E731
    contract = {"mapping": mapping} if mapping else None
    return analyze_call(
        {"arguments": snap(arguments), "request": snap(request), "response": None}, contract
    )


def loud(result):
    return [f for f in result["findings"] if f["severity"] in ("warning", "error")]


# A Stripe-style PaymentIntent body next to what the model asked for.
CHARGE = {"amount": 12.5, "currency": "usd", "description": "Order 1042", "customer": "cus_Q8x2"}


def charge_request(**changes):
    body = {
        "amount_cents": 1250,
        "currency": "usd",
        "description": "Order 1042",
        "customer": "cus_Q8x2",
    }
    return {**body, **changes}


@pytest.mark.parametrize(
    "key, unit",
    [
        ("amount_cents", ("money", 0.01)),
        ("amountCents", ("money", 0.01)),
        ("AmountCents", ("money", 0.01)),
        ("timeout_ms", ("time", 0.001)),
        ("timeoutMs", ("time", 0.001)),
        ("delay_s", ("time", 1)),
        ("ttl_seconds", ("time", 1)),
        ("wait_minutes", ("time", 60)),
        ("fee_bps", ("ratio", 0.0001)),
        ("discount_pct", ("ratio", 0.01)),
        ("discountPercent", ("ratio", 0.01)),
        ("max_size_kb", ("size", 1000)),
        ("upload_mb", ("size", 1e6)),
        ("amount", None),
        ("ms", None),
        ("items", None),
        ("price_min", None),
    ],
)
def test_units_are_read_from_the_last_word_of_a_name_in_any_case_style(key, unit):
    assert unit_of(key) == unit


def test_dollars_into_a_cents_field_is_the_expected_conversion_and_quiet():
    result = call(CHARGE, charge_request())
    assert loud(result) == []
    [scaled] = [f for f in result["findings"] if f["kind"] == "scaled"]
    assert scaled["severity"] == "info" and scaled["transform"] == "x100"
    assert "units in the names: amount -> amount_cents" in scaled["message"]


def test_a_forgotten_x100_into_a_cents_field_is_loud_at_that_pair():
    [found] = loud(call({**CHARGE, "amount": 10}, charge_request(amount_cents=10)))
    assert found["kind"] == "value_changed" and found["severity"] == "warning"
    assert (found["left"]["path"], found["right"]["path"]) == ("/amount", "/amount_cents")
    assert "x100 expected" in found["message"]


def test_a_scale_into_a_field_with_the_same_name_stays_a_scaled_warning():
    body = {**charge_request(), "amount": 1250}
    del body["amount_cents"]
    [found] = loud(call(CHARGE, body))
    assert (
        found["kind"] == "scaled"
        and found["transform"] == "x100"
        and found["left"]["path"] == "/amount"
    )


def test_cents_written_as_text_in_a_form_body_follow_the_units_too():
    form = {
        "amountCents": "1250",
        "currency": "usd",
        "description": "Order 1042",
        "customer": "cus_Q8x2",
    }
    assert loud(call(CHARGE, form)) == []


def test_seconds_into_milliseconds_and_a_missed_conversion_between_named_units():
    assert loud(call({"timeout": 30, "query": "x"}, {"timeoutMs": 30000, "query": "x"})) == []
    # already ms
    assert loud(call({"timeout": 300, "query": "x"}, {"timeoutMs": 300, "query": "x"})) == []
    [found] = loud(call({"timeout_seconds": 30, "query": "x"}, {"timeout_ms": 30, "query": "x"}))
    assert found["kind"] == "value_changed" and "x1000 expected" in found["message"]
    assert (
        loud(call({"timeout_seconds": 30, "query": "x"}, {"timeout_ms": 30000, "query": "x"})) == []
    )


def test_a_cents_argument_into_a_field_that_names_no_unit_expects_nothing():
    assert expected_factors("/totalCents", "/amount") is None
    assert expected_factors("/fee_pct", "/fee_bps") == (100.0,)


DECLARED = [{"arguments": "/total", "request": "/sum", "transform": "x100"}]


def test_a_declared_transform_quiets_the_values_that_follow_it():
    result = call({"total": 10, "ref": "a1"}, {"sum": 1000, "ref": "a1"}, DECLARED)
    assert loud(result) == [] and "(declared transform)" in result["findings"][0]["message"]


@pytest.mark.parametrize("sent", [10, 100000, 11])
def test_a_declared_transform_is_enforced_on_values_that_do_not_follow_it(sent):
    [found] = loud(call({"total": 10, "ref": "a1"}, {"sum": sent, "ref": "a1"}, DECLARED))
    assert (found["left"]["path"], found["right"]["path"]) == ("/total", "/sum")


def test_a_declared_type_or_case_transform_not_applied_is_loud():
    mapping = [
        {"arguments": "/status", "request": "/state", "transform": "lower>UPPER"},
        {"arguments": "/limit", "request": "/page_size", "transform": "integer>string"},
    ]
    assert (
        loud(call({"status": "paid", "limit": 5}, {"state": "PAID", "page_size": "5"}, mapping))
        == []
    )
    found = loud(call({"status": "paid", "limit": 5}, {"state": "paid", "page_size": 5}, mapping))
    assert sorted(f["left"]["path"] for f in found) == ["/limit", "/status"]
    assert all("declared transform" in f["message"] for f in found)


def test_zero_needs_no_conversion():
    assert loud(call({**CHARGE, "amount": 0}, charge_request(amount_cents=0))) == []


# The GitHub MCP server's issue_write: `method` picks the endpoint, it is never sent.
ISSUE_WRITE = {
    "method": "create",
    "owner": "acme",
    "repo": "web",
    "title": "Crash on start",
    "body": "Steps",
}


def test_an_argument_the_contract_marks_consumed_is_quiet_and_pairs_with_nothing():
    request = {"title": "Crash on start", "body": "Steps", "labels": ["create"]}
    snap = lambda p: {"payload": p, "logged_as_string": False, "http": None}  # noqa: E731
    contract = {"consumed": ["/method", "/owner", "/repo"]}
    result = analyze_call(
        {"arguments": snap(ISSUE_WRITE), "request": snap(request), "response": None}, contract
    )
    method = [f for f in result["findings"] if f["left"] and f["left"]["path"] == "/method"]
    assert [(f["kind"], f["severity"]) for f in method] == [("dropped", "info")]
    assert "consumed by the mapping layer" in method[0]["message"]
    without = analyze_call(
        {"arguments": snap(ISSUE_WRITE), "request": snap(request), "response": None}, None
    )
    # without it, one call cannot tell: the absences are info and say what would settle them
    gone = [f for f in without["findings"] if f["kind"] == "dropped"]
    assert {f["left"]["path"] for f in gone} == {"/owner", "/repo"} and loud(without) == []
    assert all("would settle it" in f["message"] for f in gone)


def test_consumed_must_list_argument_pointers():
    from webapp.contracts import check_contract

    assert check_contract({"consumed": ["/method"]}) == []
    assert check_contract({"consumed": "method"}) == [
        'consumed: must be a list of argument pointers such as "/method"'
    ]
    assert check_contract({"consumed": ["method"]})[0].startswith("consumed/0:")
