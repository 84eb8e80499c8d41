"""A layer's arguments it computes with and numbers it writes as text, learnt.

A checkout layer sends each line's price as text, computes the lines' totals itself (the model's
own `lineTotal` never travels: it meets the order's total only when one line is bought), wraps
the order in a list of one and writes every number as text. Its history teaches where each
argument goes and which it keeps: the newest calls are quiet, and a bug stays loud. One call
alone, a request whose numbers all travel as text is info that says what would settle it. Pure
functions first, then through the real store and pipeline.
"""

import random

import orjson

from webapp import pipeline
from webapp.analysis import analyze_call, learnt
from webapp.inference.decide import infer
from webapp.inference.item_keys import through_lists_of_one
from webapp.inference.leaves import in_several_items, leaves
from webapp.ingest import parse_body

LOUD = ("warning", "error")
URL = "https://api.shop.example/v3/checkouts"
PRICES = [4.5, 12.5, 19.99, 30, 149.95]


def checkout(rng) -> dict:
    """The model's arguments: 1 to 3 lines, each with the total the model worked out."""
    lines = []
    for name, price in rng.sample(list(zip("abcde", PRICES, strict=True)), rng.randint(1, 3)):
        count = rng.choice([1, 1, 2, 3])
        lines.append(
            {"sku": f"sku-{name}", "price": price, "count": count, "lineTotal": price * count}
        )
    return {"currency": "EUR", "lines": lines, "delivery": rng.choice([3.5, 7, 12.25])}


def text(number) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def checkout_body(args: dict) -> dict:
    """The layer's request: prices and counts as text, the totals its own, in a list of one."""
    lines = [
        {"sku": line["sku"], "unit": {"amount": text(line["price"])}, "qty": text(line["count"])}
        for line in args["lines"]
    ]
    subtotal = sum(line["price"] * line["count"] for line in args["lines"])
    order = {
        "currency": args["currency"],
        "lines": lines,
        "sums": {"goods": text(round(subtotal, 2)), "delivery": text(args["delivery"])},
        "total": text(round(subtotal + args["delivery"], 2)),
    }
    return {"mode": "CAPTURE", "orders": [order]}


def events(calls, start: int = 0) -> list[dict]:
    out = []
    for n, (args, body) in enumerate(calls, start):
        base = {"trace_id": f"{n + 1:032x}", "call_id": "c1", "tool": "checkout"}
        base["ts"] = f"2026-11-21T10:{n // 60:02d}:{n % 60:02d}Z"
        out += [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": body,
                "http": {"method": "POST", "url": URL},
            },
            {
                **base,
                "snapshot": "response",
                "payload": {"id": "ck1"},
                "http": {"status_code": 201},
            },
        ]
    return out


def loud(store, n: int) -> set:
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return {
        (f["kind"], (f["right"] or f["left"])["path"])
        for f in call["findings"]
        if f["severity"] in LOUD
    }


def test_the_pipeline_learns_a_computed_argument_consumed_and_the_wrapped_places_as_pairs(store):
    rng = random.Random(5)
    history = [(args, checkout_body(args)) for args in (checkout(rng) for _ in range(40))]
    pipeline.store_batch(store, parse_body(orjson.dumps(events(history))), None)
    pipeline.catch_up(store)
    pairs = set(store.inferred_pairs("checkout"))
    # the price, never the line total that equals it when one is bought, is the unit amount's
    assert ("/lines/*/price", "/orders/0/lines/*/unit/amount") in pairs
    assert not any(a == "/lines/*/lineTotal" for a, _ in pairs)
    # an argument into the order wrapped in a list of one is learnt where it goes
    assert ("/delivery", "/orders/0/sums/delivery") in pairs
    consumed = store.consumed_arguments("checkout")
    assert "/lines/*/lineTotal" in consumed and "/delivery" not in consumed
    # the newest calls, judged by all of it, are quiet
    assert {n: loud(store, n) for n in range(30, 40) if loud(store, n)} == {}
    args = checkout(random.Random(77))
    unconverted = checkout_body(args)
    unconverted["orders"][0]["lines"][0]["unit"]["amount"] = args["lines"][0]["price"]
    lost = checkout_body(args)
    del lost["orders"][0]["sums"]["delivery"]
    later = [(args, checkout_body(args)), (args, unconverted), (args, lost)]
    pipeline.store_batch(store, parse_body(orjson.dumps(events(later, 40))), None)
    pipeline.catch_up(store)
    assert loud(store, 40) == set()
    assert ("type_changed", "/orders/0/lines/0/unit/amount") in loud(store, 41)
    assert any(kind == "dropped" and path == "/delivery" for kind, path in loud(store, 42))


def test_a_clamp_does_not_hold_where_more_calls_changed_values_at_other_bounds():
    # a line's total sent as its unit price: "at most" each call's own price
    spread = {"at most 149.95": 5, "at most 25": 7, "at most 12.5": 10, "kept 4": 3}
    assert not learnt.bound_holds("at most 149.95", spread)
    # a limit clamped at 100, once changed by a bug to another bound
    assert learnt.bound_holds("at most 100", {"at most 100": 9, "at most 50": 1, "kept 5": 4})


def test_a_partner_that_agreed_in_every_call_outdoes_a_rival_the_calls_contradicted():
    field = "/orders/0/lines/*/unit/amount"
    evidence = {
        ("/lines/*/price", field): {"both": 30, "type_changed": 30},
        ("/lines/*/lineTotal", field): {"both": 30, "type_changed": 26},
    }
    assert [(p.arguments, p.request) for p in infer(evidence)] == [("/lines/*/price", field)]
    # one contradicted call does not tell them apart: neither is inferred
    evidence[("/lines/*/lineTotal", field)] = {"both": 30, "type_changed": 29}
    assert infer(evidence) == []


def test_an_items_leaf_counts_in_several_items_only_where_the_call_tells_it_apart():
    told = {"lines": [{"price": 2, "total": 4}, {"price": 3, "total": 3}], "n": 1}
    assert in_several_items(told) == {"/lines/*/price", "/lines/*/total"}
    # equal in every item: either could have been the one sent
    twins = {"lines": [{"price": 2, "total": 2}, {"price": 3, "total": 3}]}
    assert in_several_items(twins) == set()
    assert in_several_items({"lines": [{"price": 2, "total": 4}]}) == set()


def test_a_list_of_one_object_is_read_as_a_wrapper_unless_it_ever_held_several():
    body = {"orders": [{"total": "9", "lines": [{"sku": "a"}]}], "tags": [{"x": 1}, {"x": 2}]}
    assert leaves(body, wrapped=True) == {"/orders/0/total": "9"}
    assert leaves(body) == {}
    evidence = {("/total", "/orders/0/total"): {"both": 5}, ("/q", "/query/0/value"): {"both": 5}}
    presence = {
        ("request", "/orders/*/total"): {"calls": 5, "items": 5, "of": 5},
        ("request", "/query/*/value"): {"calls": 5, "items": 5, "of": 9},
    }
    assert list(through_lists_of_one(evidence, presence)) == [("/total", "/orders/0/total")]


def _alone(arguments: dict, body: dict, contract=None) -> list[tuple]:
    snaps = {
        "arguments": {"payload": arguments},
        "request": {"payload": body, "http": {"method": "POST", "url": URL}},
    }
    found = analyze_call(snaps, contract)
    out = [(f["kind"], f["severity"], f["right"]["path"]) for f in found["findings"] if f["right"]]
    return out + [("schema", e["path"]) for e in found["validation"]["request"]["errors"]]


def test_one_call_whose_numbers_all_travel_as_text_is_info_that_says_what_settles_it():
    args = {"price": 12.5, "count": 2, "note": "gift"}
    body = {"unit": {"amount": "12.5"}, "qty": "2", "note": "gift"}
    assert sorted(_alone(args, body)) == [
        ("type_changed", "info", "/qty"),
        ("type_changed", "info", "/unit/amount"),
    ]
    snaps = {
        "arguments": {"payload": args},
        "request": {"payload": body, "http": {"method": "POST", "url": URL}},
    }
    [first, _] = analyze_call(snaps, None)["findings"]
    assert "the tool's earlier calls would settle it" in first["message"]
    # one number sent as text beside a number sent as it is: the layer writes numbers as numbers
    assert ("type_changed", "warning", "/qty") in _alone(
        args, {"unit": {"amount": 12.5}, "qty": "2", "note": "gift"}
    )
    # a declared request schema decides the type itself
    schema = {"type": "object", "properties": {"qty": {"type": "integer"}}}
    assert ("schema", "/qty") in _alone(args, body, {"request_schema": schema})
