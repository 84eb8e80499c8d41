"""Inference learns what travels in the URL, and the analysis uses it.

The Google Maps distance matrix as its reference MCP server calls it: the join the traffic shows, a
query key that went missing; GraphQL input objects."""

import random

import orjson

from webapp import pipeline
from webapp.analysis import analyze_call
from webapp.ingest import parse_body

TOOL = "maps_distance_matrix"
PLACES = ["Paris", "Lyon", "Marseille", "Nice", "Boston", "New York", "Chicago"]


def url(origins, destinations, sep="|", key="destinations"):
    return (
        f"https://maps.googleapis.com/maps/api/distancematrix/json?origins={sep.join(origins)}"
        f"&{key}={'|'.join(destinations)}&mode=driving&key=AIzaSyD3m0FAKEkEy0000000000000000000000"
    )


def events(n, args, address):
    base = {
        "trace_id": f"{n + 1:032x}",
        "call_id": "c1",
        "tool": TOOL,
        "ts": f"2026-11-20T10:{n % 60:02d}:00Z",
    }
    return [
        {**base, "snapshot": "arguments", "payload": args},
        {**base, "snapshot": "request", "payload": None, "http": {"method": "GET", "url": address}},
        {**base, "snapshot": "response", "payload": {"status": "OK"}, "http": {"status_code": 200}},
    ]


def load(store, batch):
    pipeline.store_batch(store, parse_body(orjson.dumps(batch)), None)
    pipeline.catch_up(store)


def loud(store, n):
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["kind"], (f["left"] or {}).get("path"), (f["right"] or {}).get("path"))
        for f in call["findings"]
        if f["severity"] in ("warning", "error")
    ]


def test_a_tool_that_joins_lists_with_a_pipe_is_learnt_and_a_comma_join_is_then_loud(store):
    rng, batch = random.Random(4), []
    for n in range(30):
        args = {
            "origins": rng.sample(PLACES, rng.randint(1, 3)),
            "destinations": rng.sample(PLACES, 2),
            "mode": "driving",
        }
        batch += events(n, args, url(args["origins"], args["destinations"]))
    load(store, batch)
    assert {("/origins", "query:/origins"), ("/destinations", "query:/destinations")} <= set(
        store.inferred_pairs(TOOL)
    )
    args = {"origins": ["Paris", "Lyon"], "destinations": ["Nice", "Boston"], "mode": "driving"}
    load(store, events(30, args, url(args["origins"], args["destinations"], sep=",")))
    assert ("type_changed", "/origins", "query:/origins") in loud(store, 30)
    load(store, events(31, args, url(args["origins"], args["destinations"], key="destination")))
    assert ("dropped", "/destinations", None) in loud(store, 31)
    assert all(loud(store, n) == [] for n in range(30))


def test_graphql_variables_under_one_input_object_pair_by_name_and_a_swap_is_loud():
    args = {"repository_id": "R_kgDO42", "title": "Crash on start", "body": "Steps: open the app."}
    query = (
        "mutation CreateIssue($input: CreateIssueInput!) { createIssue(input: $input) { issue { "
        "number } } }"
    )

    def found(title, body):
        request = {
            "query": query,
            "variables": {"input": {"repositoryId": "R_kgDO42", "title": title, "body": body}},
        }
        snap = {
            "arguments": {"payload": args},
            "request": {
                "payload": request,
                "http": {"method": "POST", "url": "https://api.github.com/graphql"},
            },
            "response": None,
        }
        result = analyze_call(snap, None)
        return [
            (f["kind"], f["right"]["path"]) for f in result["findings"] if f["severity"] != "info"
        ]

    assert found(args["title"], args["body"]) == []
    assert ("value_changed", "/variables/input/title") in found(args["body"], args["title"])


def test_an_id_in_the_path_is_learnt_from_a_few_distinct_ids_and_another_id_is_then_loud(store):
    def paid(n, invoice, sent):
        args = {"invoiceId": invoice, "paidAt": f"2026-03-0{n + 1}T10:00:00Z"}
        address = f"https://api.example.com/v1/invoices/{sent}/pay"
        return [{**event, "tool": "markInvoicePaid"} for event in events(n, args, address)]

    # the path's segment has no name: six distinct ids equal at it teach it (not twenty calls)
    ids = ["inv_9f2", "inv_a31", "inv_07c", "inv_e5d", "inv_b48", "inv_3d6"]
    for n, invoice in enumerate(ids):
        load(store, paid(n, invoice, invoice))
    assert ("/invoiceId", "path:/2") in store.inferred_pairs("markInvoicePaid")
    load(store, paid(6, "inv_c19", "inv_77a"))
    assert any(left == "/invoiceId" for _, left, _ in loud(store, 6)), loud(store, 6)
    assert all(loud(store, n) == [] for n in range(6))


def test_an_id_always_sent_as_text_in_graphql_is_quiet_once_learnt_and_loud_sent_as_a_number(
    store,
):
    def update(n, item, sent):
        args = {"itemId": item, "body": f"Shipped, batch {n}"}
        document = "mutation ($itemId: ID!, $body: String!) { create_update(item_id: $itemId) }"
        request = {"query": document, "variables": {"itemId": sent, "body": args["body"]}}
        base = {"trace_id": f"{n + 1:032x}", "call_id": "c1", "tool": "create_update"}
        base["ts"] = f"2026-11-20T10:{n % 60:02d}:00Z"
        address = "https://api.monday.com/v2"
        return [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": request,
                "http": {"method": "POST", "url": address},
            },
            {**base, "snapshot": "response", "payload": {"data": {}}, "http": {"status_code": 200}},
        ]

    rng = random.Random(7)
    ids = [rng.randrange(10**9, 10**10) for _ in range(24)]
    load(store, [event for n, item in enumerate(ids) for event in update(n, item, str(item))])
    assert ("/itemId", "/variables/itemId") in store.inferred_pairs("create_update")
    # learnt as the conversion the layer always makes: its calls are quiet, analysed again
    assert all(loud(store, n) == [] for n in range(24))
    load(store, update(24, 1997679876, 1997679876))
    assert loud(store, 24) == [("type_changed", "/itemId", "/variables/itemId")]
    load(store, update(25, "1997679877", "1997679877"))
    assert loud(store, 25) == []
