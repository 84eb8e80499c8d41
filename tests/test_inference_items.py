"""The keys inside a list's items, learnt from earlier releases as an object's are.

A key inside each item of a list of objects renamed or dropped (Airtable's `records[].fields` sent
as `records[].cells`), or an argument sent into an item under a key no earlier item used, is a
change the tool's history shows; one call alone stays info. Pure, the findings the analysis writes;
and once through the real store and pipeline."""

import copy
import random

import orjson
import pytest

from webapp import pipeline
from webapp.analysis import analyze_call
from webapp.inference import leaves
from webapp.inference.consumed import learnt_consumed
from webapp.inference.epochs import presence_of
from webapp.inference.evidence import merge
from webapp.inference.leaves import item_leaves, item_values, item_views, starred
from webapp.inference.novel import earlier_fields, flag_new_fields
from webapp.ingest import parse_body

RELEASES = {"newest": "v2", "seen": ["v1", "v2"]}
LOUD = ("warning", "error")
URL = "https://api.airtable.com/v0/appX7kLm2Qp9RtVw1/tblOrders1234567"


def records(rng, n: int) -> dict:
    """Airtable's update_records arguments: 1 to 3 records, `Status` in most."""
    out = []
    for i in range(rng.randint(1, 3)):
        fields = {"Name": rng.choice(["Ann Lee", "Bo Chen"])}
        if rng.random() < 0.6:
            fields["Status"] = rng.choice(["Todo", "Done"])
        out.append({"id": f"rec{n:05d}{i:09d}", "fields": fields})
    return {"records": out}


def update(args: dict) -> dict:
    """The request domdomegg/airtable-mcp-server builds: the records as they are, typecast on."""
    return {"records": copy.deepcopy(args["records"]), "typecast": True}


def counted(calls, items: bool = True) -> dict:
    """Path counts of (arguments, request, release) calls, as the pipeline keeps them.

    Without `items`, as kept before the leaves of lists' items were counted."""
    presence: dict = {}
    for arguments, request, release in calls:
        a = [*leaves(arguments), *(item_leaves(arguments) if items else ())]
        r = [*leaves(request), *(item_leaves(request) if items else ())]
        merge(presence, presence_of(a, r, release == "v2"))
    return presence


def judged(arguments: dict, request: dict, earlier) -> list[tuple]:
    """The findings history raises on one newest call, as (kind, argument, request)."""
    snaps = {
        "arguments": {"payload": arguments},
        "request": {"payload": request, "http": {"method": "PATCH", "url": URL}},
    }
    findings = analyze_call(snaps, None)["findings"]
    raised = flag_new_fields(findings, "v2", "v2", earlier)
    return [
        (f["kind"], f["left"] and f["left"]["path"], f["right"] and f["right"]["path"])
        for f in raised
    ]


def history(n: int = 20, seed: int = 7) -> list[tuple]:
    rng = random.Random(seed)
    return [(args, update(args), "v1") for args in (records(rng, i) for i in range(n))]


def with_status(seed: int = 8) -> dict:
    rng = random.Random(seed)
    while True:
        args = records(rng, 99)
        if "Status" in args["records"][0]["fields"]:
            return args


def test_the_leaves_of_a_lists_items_are_counted_under_one_starred_path():
    doc = {
        "records": [{"id": "rec1", "fields": {"Name": "Ann"}}, {"id": "rec2", "tags": ["a"]}],
        "typecast": True,
        "sort": [{"field": "Due", "direction": None}],
    }
    assert item_leaves(doc) == {
        "/records/*/id",
        "/records/*/fields/Name",
        "/records/*/tags",
        "/sort/*/field",
    }
    # what the plain leaves count is not counted again
    assert item_leaves({"typecast": True, "ids": [1, 2], "page": {"size": 10}}) == set()
    assert starred("/records/0/fields") == "/records/*/fields"
    assert starred("query:/sort/1/direction") == "query:/sort/*/direction"


def test_a_key_renamed_inside_an_item_is_a_warning_and_the_same_call_of_before_is_quiet():
    earlier = earlier_fields(counted(history()), RELEASES)
    args = with_status()
    renamed = update(args)
    renamed["records"][0]["cells"] = renamed["records"][0].pop("fields")
    assert judged(args, renamed, earlier) == [("renamed", "/records/0/fields", "/records/0/cells")]
    assert judged(args, update(args), earlier) == []


def test_a_key_every_earlier_item_sent_dropped_from_one_item_is_a_warning():
    earlier = earlier_fields(counted(history()), RELEASES)
    args = with_status()
    dropped = update(args)
    del dropped["records"][0]["fields"]["Status"]
    assert judged(args, dropped, earlier) == [("dropped", "/records/0/fields/Status", None)]


def test_an_argument_sent_into_an_item_under_a_key_no_earlier_item_used_is_a_warning():
    # Stripe's payment link: `price` and `quantity` go into `line_items[0]`
    calls = [({"price": f"price_{i}", "quantity": i % 3 + 1}, None, "v1") for i in range(1, 11)]
    calls = [
        (a, {"line_items": [{"price": a["price"], "quantity": a["quantity"]}]}, r)
        for a, _, r in calls
    ]
    earlier = earlier_fields(counted(calls), RELEASES)
    args = {"price": "price_99", "quantity": 2}
    qty = {"line_items": [{"price": "price_99", "qty": 2}]}
    assert judged(args, qty, earlier) == [("renamed", "/quantity", "/line_items/0/qty")]
    kept = {"line_items": [{"price": "price_99", "quantity": 2}]}
    assert judged(args, kept, earlier) == []


def test_counts_kept_before_items_were_counted_judge_no_item():
    # a tool learnt by an older release of tracediff: its items' keys were never counted
    earlier = earlier_fields(counted(history(), items=False), RELEASES)
    args = with_status()
    renamed = update(args)
    renamed["records"][0]["cells"] = renamed["records"][0].pop("fields")
    dropped = update(args)
    del dropped["records"][0]["fields"]["Status"]
    assert judged(args, renamed, earlier) == judged(args, dropped, earlier) == []


def test_a_leaf_of_an_item_is_never_learnt_consumed():
    calls = [(a, {"typecast": True}, v) for a, _, v in history()]
    assert learnt_consumed({}, counted(calls)) == []


def envelopes(calls, start: int = 0) -> list[dict]:
    out = []
    for n, (args, request, release) in enumerate(calls, start):
        base = {
            "trace_id": f"{n + 1:032x}",
            "call_id": "call_01",
            "tool": "update_records",
            "ts": f"2026-11-20T{9 + n // 60:02d}:{n % 60:02d}:00Z",
            "release": release,
        }
        out += [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": request,
                "http": {"method": "PATCH", "url": URL},
            },
            {**base, "snapshot": "response", "payload": request, "http": {"status_code": 200}},
        ]
    return out


@pytest.mark.parametrize("order", ["in order", "newest first"])
def test_the_pipeline_counts_items_and_a_renamed_key_inside_one_is_loud(store, order):
    args = with_status()
    renamed = update(args)
    renamed["records"][0]["cells"] = renamed["records"][0].pop("fields")
    old = envelopes(history())
    new = envelopes([(args, update(args), "v2"), (args, renamed, "v2")], start=20)
    for part in (old, new) if order == "in order" else (new, old):
        pipeline.store_batch(store, parse_body(orjson.dumps(part)), None)
        pipeline.catch_up(store)
    assert ("request", "/records/*/fields/Name") in store.path_counts("update_records")
    for n, wanted in ((19, set()), (20, set()), (21, {("renamed", "/records/0/cells")})):
        call = store.get_trace(f"{n + 1:032x}")["calls"][0]
        loud = {
            (f["kind"], f["right"]["path"])
            for f in call["findings"]
            if f["severity"] in LOUD and f["right"]
        }
        assert loud == wanted


def listing(query: str) -> dict:
    """A Slack conversations.list call: no argument, the layer's defaults in the query."""
    url = f"https://slack.com/api/conversations.list?{query}"
    return {"arguments": {"payload": {}}, "request": {"http": {"method": "GET", "url": url}}}


def test_a_fold_of_added_fields_is_loud_when_one_of_its_places_is_new_and_names_it():
    # `query:/*` folds five added fields: its `*` is any key, not a list's item
    defaults = "types=public_channel&exclude_archived=true&limit=100&team_id=T1"
    carried = {f"query:/{k}" for k in ("types", "exclude_archived", "limit", "team_id", "cursor")}
    presence: dict = {}
    for _ in range(6):
        merge(presence, presence_of([], sorted(carried), False))
    earlier = earlier_fields(presence, RELEASES)
    leaked = analyze_call(listing(defaults + "&retry_attempt=1"), None)
    [fold] = leaked["findings"]
    assert fold["right"]["path"] == "query:/*" and fold["occurrences"] == 5
    assert flag_new_fields(leaked["findings"], "v2", "v2", earlier, leaked["places"]) == [fold]
    assert fold["severity"] == "warning" and fold["message"].endswith("sent query:/retry_attempt")
    kept = analyze_call(listing(defaults + "&cursor=dXNlcjpVMEc5V0ZYTlo="), None)
    assert flag_new_fields(kept["findings"], "v2", "v2", earlier, kept["places"]) == []


# --- a list's items paired item by item -----------------------------------------------------------

ORDERS = "https://api-m.sandbox.paypal.com/v2/checkout/orders"


def order(rng) -> dict:
    """PayPal's create_order arguments: 1 to 3 items, a quantity in some."""
    items = []
    for i in range(rng.randint(1, 3)):
        item = {"name": f"item {i}", "itemCost": rng.choice([12.5, 39, 24.99, 149.95])}
        if rng.random() < 0.5:
            item["quantity"] = rng.randint(1, 4)
        items.append(item)
    return {"currencyCode": "USD", "items": items}


def order_body(args: dict) -> dict:
    """The order as the toolkit builds it: costs and quantities as text, a quantity of 1 when none."""
    lines = [
        {
            "name": item["name"],
            "quantity": str(item.get("quantity", 1)),
            "unit_amount": {"currency_code": "USD", "value": str(item["itemCost"])},
        }
        for item in args["items"]
    ]
    return {"intent": "CAPTURE", "purchase_units": [{"items": lines}]}


def order_events(calls, start=0) -> list:
    out = []
    for n, (args, body) in enumerate(calls, start):
        base = {"trace_id": f"{n + 1:032x}", "call_id": "c1", "tool": "create_order"}
        base["ts"] = f"2026-11-20T10:{n // 60:02d}:{n % 60:02d}Z"
        out += [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": body,
                "http": {"method": "POST", "url": ORDERS},
            },
            {
                **base,
                "snapshot": "response",
                "payload": {"id": "5O1"},
                "http": {"status_code": 201},
            },
        ]
    return out


def order_loud(store, n) -> set:
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return {
        (f["kind"], (f["right"] or f["left"])["path"])
        for f in call["findings"]
        if f["severity"] in LOUD
    }


def test_the_leaves_of_items_pair_item_by_item_under_the_index_they_share():
    arguments = {"/items/0/itemCost": 12.5, "/items/1/itemCost": 39, "/currencyCode": "USD"}
    request = {
        "/purchase_units/0/items/0/unit_amount/value": "12.5",
        "/purchase_units/0/items/1/unit_amount/value": "39",
        "/intent": "CAPTURE",
    }
    views = item_views(arguments, request)
    assert views == [
        ({"/items/*/itemCost": 12.5}, {"/purchase_units/0/items/*/unit_amount/value": "12.5"}),
        ({"/items/*/itemCost": 39}, {"/purchase_units/0/items/*/unit_amount/value": "39"}),
    ]
    assert item_values({"items": [{"a": 1}, {"b": [2]}], "n": 3}) == {
        "/items/0/a": 1,
        "/items/1/b": [2],
    }


def test_a_conversion_of_items_leaves_is_learnt_and_an_item_sent_unconverted_is_loud(store):
    rng = random.Random(11)
    history = [(args, order_body(args)) for args in (order(rng) for _ in range(24))]
    pipeline.store_batch(store, parse_body(orjson.dumps(order_events(history))), None)
    pipeline.catch_up(store)
    pairs = set(store.inferred_pairs("create_order"))
    assert ("/items/*/itemCost", "/purchase_units/0/items/*/unit_amount/value") in pairs
    # the costs and quantities every call sent as text are what the layer does: quiet
    assert all(not {p for _, p in order_loud(store, n) if "/items/" in p} for n in range(24))
    args = {
        "currencyCode": "USD",
        "items": [{"name": "a", "itemCost": 12.5}, {"name": "b", "itemCost": 39}],
    }
    unconverted = order_body(args)
    unconverted["purchase_units"][0]["items"][1]["unit_amount"]["value"] = 39
    # the layer's own quantity of 1, written as a number where every earlier call wrote text
    defaulted = order_body(args)
    defaulted["purchase_units"][0]["items"][0]["quantity"] = 1
    later = [(args, order_body(args)), (args, unconverted), (args, defaulted)]
    pipeline.store_batch(store, parse_body(orjson.dumps(order_events(later, 24))), None)
    pipeline.catch_up(store)
    assert not {p for _, p in order_loud(store, 24) if "/items/" in p}
    assert ("type_changed", "/purchase_units/0/items/1/unit_amount/value") in order_loud(store, 25)
    assert ("type_changed", "/purchase_units/0/items/0/quantity") in order_loud(store, 26)
