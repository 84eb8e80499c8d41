"""A value sent whole inside another is info one call at a time.

A template, a wrapper (issue 32, item 2): the layer's doing or a bug, only history or a declared
transform tells; a value changed where the names say the field is the same stays loud."""

import pytest

from webapp.analysis import analyze_call


def call(arguments, body):
    snap = lambda p: {"payload": p, "http": None}  # noqa: E731
    return analyze_call(
        {"arguments": snap(arguments), "request": snap(body), "response": None}, None
    )


def changes(result):
    return [
        (f["severity"], f["left"]["path"], f["right"]["path"], f["message"])
        for f in result["findings"]
        if f["kind"] in ("value_changed", "type_changed")
    ]


@pytest.mark.parametrize(
    "value, sent",
    [
        ("2793704217258", "gid://shopify/Customer/2793704217258"),
        ("hoodie", "title:*hoodie*"),
        ("Customer impact ended 10:40.", {"content": "Customer impact ended 10:40."}),
    ],
)
def test_a_value_sent_whole_inside_another_is_info_that_says_what_would_settle_it(value, sent):
    [(severity, left, right, message)] = changes(
        call({"id": value, "t": "x"}, {"id": sent, "t": "x"})
    )
    assert (severity, left, right) == ("info", "/id", "/id")
    assert "a declared transform or the tool's earlier calls would settle it" in message


@pytest.mark.parametrize(
    "value, sent",
    [("ann@example.com", "anne@example.com"), (5, 6), ("main", "v2.4.0"), (7, {"n": 8})],
)
def test_a_value_changed_that_does_not_hold_it_whole_stays_a_warning(value, sent):
    [(severity, *_)] = changes(call({"id": value, "t": "x"}, {"id": sent, "t": "x"}))
    assert severity == "warning"


@pytest.mark.parametrize("inferred", [False, True])
def test_a_pair_the_contract_or_the_history_maps_as_it_is_stays_loud_held_whole(inferred):
    entry = {"arguments": "/name", "request": "/name", **({"inferred": True} if inferred else {})}
    snap = lambda p: {"payload": p, "http": None}  # noqa: E731
    result = analyze_call(
        {"arguments": snap({"name": "thumbsup"}), "request": snap({"name": ":thumbsup:"})},
        {"mapping": [entry]},
    )
    [(severity, *_)] = changes(result)
    assert severity == "warning"


@pytest.mark.parametrize(
    "value, sent",
    [
        # Sentry's MCP server reads the issue out of its URL
        ("https://acme.sentry.io/issues/BACKEND-1Z43/", "BACKEND-1Z43"),
        ("projects/acme/locations/eu/queues/billing", "billing"),
    ],
)
def test_a_part_of_an_argument_sent_alone_under_another_name_is_info(value, sent):
    [(severity, left, right, message)] = changes(
        call({"issueUrl": value, "t": "x"}, {"issue": sent, "t": "x"})
    )
    assert (severity, left, right) == ("info", "/issueUrl", "/issue")
    assert "a part of the argument sent alone" in message


@pytest.mark.parametrize(
    "value, sent",
    [
        # the same field cut short: a value lost, whatever the layer does elsewhere
        ("Investigating with the payments team.", "Investigating with"),
        # glued to other letters: a coincidence
        ("https://acme.sentry.io/issues/WEB-3KQ/", "WEB-3K"),
    ],
)
def test_a_value_cut_short_or_a_part_glued_to_others_stays_a_warning(value, sent):
    name = "text" if " " in value else "issueUrl"
    other = "text" if " " in value else "issue"
    [(severity, *_)] = changes(call({name: value, "t": "x"}, {other: sent, "t": "x"}))
    assert severity == "warning"
