"""Keys every item of a layer's own lists carried, and lists every call sent.

Issue 32, item 1. An item's key renamed (a search condition's `propertyName` sent as `property`) or a list sent
under another key (`personalizations` as `recipients`) is a warning with history; an item key an
argument names, a key some items lack, or a list left out with nothing in its place is not. Pure,
the counts as the pipeline keeps them; and once through the real store and pipeline."""

import random

import orjson
import pytest

from webapp import pipeline
from webapp.inference import leaves
from webapp.inference.epochs import presence_of
from webapp.inference.evidence import merge
from webapp.inference.item_keys import item_counts, items_renamed, lists_renamed
from webapp.inference.leaves import item_leaves
from webapp.inference.novel import earlier_fields
from webapp.ingest import parse_body

RELEASES = {"newest": "v2", "seen": ["v1", "v2"]}
LOUD = ("warning", "error")
URL = "https://api.hubapi.com/crm/v3/objects/contacts/search"


def search_arguments(rng) -> dict:
    """A contact search tool's arguments: an email domain, sometimes a creation date."""
    args = {"domain": rng.choice(["acme.io", "initech.com", "globex.org"])}
    if rng.random() < 0.5:
        args["createdAfter"] = f"2026-11-{rng.randint(1, 28):02d}"
    return args


def search(args: dict, key: str = "propertyName") -> dict:
    """HubSpot's CRM search body, as a layer builds it: one filter a given argument."""
    filters = [{key: "email", "operator": "CONTAINS_TOKEN", "value": f"*@{args['domain']}"}]
    if "createdAfter" in args:
        filters.append({key: "createdate", "operator": "GTE", "value": args["createdAfter"]})
    return {"filterGroups": [{"filters": filters}], "limit": 20}


def counted(calls) -> dict:
    """Path counts of (arguments, request, newest) calls, as webapp/pipeline/learning.py keeps."""
    presence: dict = {}
    for arguments, request, newest in calls:
        sent = item_leaves(request)
        merge(
            presence,
            presence_of(
                [*leaves(arguments), *item_leaves(arguments)], [*leaves(request), *sent], newest
            ),
        )
        merge(presence, item_counts(request, newest, sent))
    return presence


def history(n: int = 20, seed: int = 32, build=search) -> list:
    rng = random.Random(seed)
    return [(args, build(args), False) for args in (search_arguments(rng) for _ in range(n))]


def renamed_items(request: dict, arguments: dict, earlier) -> list[str]:
    argued = frozenset(p.rsplit("/", 1)[-1] for p in (*leaves(arguments), *earlier.arguments))
    found = items_renamed(request, earlier.item_keys, argued, earlier.request)
    return [f["left"]["path"] for f in found]


def test_each_list_items_leaves_are_counted_with_the_items_holding_them():
    body = search({"domain": "acme.io", "createdAfter": "2026-11-03"})
    body["filterGroups"][0]["filters"][1].pop("operator")
    counts = item_counts(body, False, item_leaves(body))
    assert counts[("request", "/filterGroups/*/filters/*/operator")] == {"items": 1, "of": 2}
    assert counts[("request", "/filterGroups/*/filters/*/value")] == {"items": 2, "of": 2}
    # as the pipeline keeps them, beside the calls holding each
    assert ("request", "/filterGroups/*/filters/*/value") in counted([({}, body, False)])


def test_an_items_key_renamed_is_a_warning_at_the_key_it_left():
    earlier = earlier_fields(counted(history()), RELEASES)
    assert "/filterGroups/*/filters/*/propertyName" in earlier.item_keys
    args = {"domain": "acme.io", "createdAfter": "2026-11-05"}
    renamed = search(args)
    renamed["filterGroups"][0]["filters"][0]["property"] = renamed["filterGroups"][0]["filters"][
        0
    ].pop("propertyName")
    assert renamed_items(renamed, args, earlier) == ["/filterGroups/0/filters/0/propertyName"]
    assert renamed_items(search(args), args, earlier) == []
    # every item renamed: each is told
    everywhere = search(args, key="property")
    assert renamed_items(everywhere, args, earlier) == [
        "/filterGroups/0/filters/0/propertyName",
        "/filterGroups/0/filters/1/propertyName",
    ]


def test_a_key_left_out_with_nothing_new_in_its_item_or_named_by_an_argument_is_not_judged():
    earlier = earlier_fields(counted(history()), RELEASES)
    args = {"domain": "acme.io"}
    # a null value keeps its key; an item short of a key and nothing new is no rename
    nulled, short = search(args), search(args)
    nulled["filterGroups"][0]["filters"][0]["operator"] = None
    short["filterGroups"][0]["filters"][0].pop("operator")
    assert renamed_items(nulled, args, earlier) == renamed_items(short, args, earlier) == []
    # the model's own records: their keys follow its arguments
    argued = {"domain": "acme.io", "operator": "x"}
    swapped = search(args)
    swapped["filterGroups"][0]["filters"][0]["op"] = swapped["filterGroups"][0]["filters"][0].pop(
        "operator"
    )
    assert renamed_items(swapped, argued, earlier) == []
    assert renamed_items(swapped, args, earlier) == ["/filterGroups/0/filters/0/operator"]


def test_a_key_only_some_items_carried_is_not_every_items():
    def sometimes(args: dict) -> dict:
        body = search(args)
        body["filterGroups"][0]["filters"][0]["highValue"] = "x"
        return body

    earlier = earlier_fields(counted(history(build=sometimes)), RELEASES)
    assert "/filterGroups/*/filters/*/propertyName" in earlier.item_keys
    assert "/filterGroups/*/filters/*/highValue" not in earlier.item_keys


def test_a_list_every_call_sent_sent_under_a_new_key_is_a_warning_at_the_old_one():
    # SendGrid's mail/send: the layer builds `personalizations` from the recipients
    def mail(args: dict) -> dict:
        return {"personalizations": [{"to": [{"email": args["to"]}]}], "subject": "Hi"}

    calls = [({"to": f"u{i}@acme.io"}, mail({"to": f"u{i}@acme.io"}), False) for i in range(8)]
    earlier = earlier_fields(counted(calls), RELEASES)
    assert earlier.lists == ("/personalizations",)
    moved = {"recipients": [{"to": [{"email": "a@acme.io"}]}], "subject": "Hi"}

    def sent(body):
        return {*leaves(body), *item_leaves(body)}

    [found] = lists_renamed(sent(moved), earlier.lists, earlier.request)
    assert (found["kind"], found["severity"]) == ("dropped", "warning")
    assert found["left"]["path"] == "/personalizations"
    assert "sends /recipients instead" in found["message"]
    assert lists_renamed(sent(mail({"to": "a@acme.io"})), earlier.lists, earlier.request) == []
    # left out with nothing in its place: not told here
    assert lists_renamed(sent({"subject": "Hi"}), earlier.lists, earlier.request) == []


def envelopes(calls, start: int = 0) -> list[dict]:
    out = []
    for n, (args, request, release) in enumerate(calls, start):
        base = {
            "trace_id": f"{n + 1:032x}",
            "call_id": "call_01",
            "tool": "search_contacts",
            "ts": f"2026-11-20T{9 + n // 60:02d}:{n % 60:02d}:00Z",
            "release": release,
        }
        out += [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": request,
                "http": {"method": "POST", "url": URL},
            },
            {
                **base,
                "snapshot": "response",
                "payload": {"total": 0, "results": []},
                "http": {"status_code": 200},
            },
        ]
    return out


@pytest.mark.parametrize("order", ["in order", "newest first"])
def test_the_pipeline_counts_items_and_an_items_key_renamed_is_loud(store, order):
    args = {"domain": "acme.io", "createdAfter": "2026-11-05"}
    renamed = search(args)
    renamed["filterGroups"][0]["filters"][1]["name"] = renamed["filterGroups"][0]["filters"][1].pop(
        "propertyName"
    )
    old = envelopes([(a, r, "v1") for a, r, _ in history()])
    new = envelopes([(args, search(args), "v2"), (args, renamed, "v2")], start=20)
    for part in (old, new) if order == "in order" else (new, old):
        pipeline.store_batch(store, parse_body(orjson.dumps(part)), None)
        pipeline.catch_up(store)
    counts = store.path_counts("search_contacts")
    assert counts[("request", "/filterGroups/*/filters/*/propertyName")]["items"] >= 20
    wanted = {("dropped", "/filterGroups/0/filters/1/propertyName")}
    for n, expected in ((19, set()), (20, set()), (21, wanted)):
        call = store.get_trace(f"{n + 1:032x}")["calls"][0]
        loud = {
            (f["kind"], f["left"]["path"])
            for f in call["findings"]
            if f["severity"] in LOUD and f["left"] and f["left"]["snapshot"] == "request"
        }
        assert loud == expected
