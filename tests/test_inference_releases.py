"""Inference a bad release cannot teach.

Through the real store and pipeline (both engines)."""

import random

import orjson
import pytest

from webapp import pipeline
from webapp.analysis import end
from webapp.ingest import parse_body
from webapp.pipeline import mappings as toolmappings

TOOL = "create_ticket"
LOUD = ("warning", "error")
SUBJECTS = [
    "Printer on fire",
    "VPN drops hourly",
    "Cannot log in",
    "Refund order 1042",
    "Laptop fan noise",
]
BODIES = [
    "It started this morning.",
    "Happens on every call.",
    "Tried twice, same error.",
    "See attached log.",
]


def ticket(rng, i):
    args = {
        "subject": f"{rng.choice(SUBJECTS)} #{i}",
        "body": f"{rng.choice(BODIES)} ({i})",
        "priority": rng.choice(["low", "normal", "high"]),
        "requester": f"user{rng.randint(1, 400)}@acme.io",
    }
    request = {
        "title": args["subject"],
        "description": args["body"],
        "urgency": args["priority"],
        "reporter": {"email": args["requester"]},
        "source": "agent",
    }
    return args, request


def envelopes(calls, release=None, start=0):
    out = []
    for n, (args, request) in enumerate(calls, start):
        base = {
            "trace_id": f"{n + 1:032x}",
            "call_id": "call_01",
            "tool": TOOL,
            "ts": f"2026-11-20T{9 + n // 60:02d}:{n % 60:02d}:00Z",
            **({"release": release} if release else {}),
        }
        out += [
            {**base, "snapshot": "arguments", "payload": args},
            {
                **base,
                "snapshot": "request",
                "payload": request,
                "http": {"method": "POST", "url": "https://helpdesk.example.com/api/tickets"},
            },
            {
                **base,
                "snapshot": "response",
                "payload": {"id": f"T-{n}"},
                "http": {"status_code": 201},
            },
        ]
    return out


def load(store, events):
    pipeline.store_batch(store, parse_body(orjson.dumps(events)), None)
    pipeline.catch_up(store)


def swapped(calls):
    out = []
    for args, request in calls:
        request = {**request, "title": args["body"], "description": args["subject"]}
        out.append((args, request))
    return out


def loud_at(store, n):
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return {
        (f["kind"], f["left"]["path"], f["right"]["path"])
        for f in call["findings"]
        if f["severity"] in LOUD and f["left"] and f["right"]
    }


def traffic(seed=5):
    rng = random.Random(seed)
    return [ticket(rng, i) for i in range(50)], swapped([ticket(rng, i) for i in range(50, 72)])


@pytest.mark.parametrize("batch", [72, 10])
def test_a_release_that_swaps_two_fields_is_reported_not_learnt(store, batch):
    good, bad = traffic()
    events = envelopes(good, "v1.4.0") + envelopes(bad, "v1.5.0", start=50)
    # one batch, or the traffic arriving ten calls at a time
    for start in range(0, len(events), batch * 3):
        load(store, events[start : start + batch * 3])
    inferred = set(store.inferred_pairs(TOOL))
    assert {("/subject", "/title"), ("/body", "/description")} <= inferred
    assert ("/body", "/title") not in inferred and ("/subject", "/description") not in inferred
    # the correct calls stay quiet
    assert all(loud_at(store, n) == set() for n in range(50))
    # every broken call is loud at the swapped pairs
    for n in range(50, 72):
        assert {
            ("value_changed", "/subject", "/title"),
            ("value_changed", "/body", "/description"),
        } <= loud_at(store, n)


def test_without_releases_the_broken_calls_never_teach_their_pairs(store):
    good, bad = traffic()
    load(store, envelopes(good))
    load(store, envelopes(bad, start=50))
    inferred = set(store.inferred_pairs(TOOL))
    assert ("/body", "/title") not in inferred and ("/subject", "/description") not in inferred
    assert all(loud_at(store, n) == set() for n in range(50))
    evidence = store.evidence(TOOL)[("/body", "/title")]
    # the 50 earlier calls count against it
    assert evidence["both"] == 72 and evidence["equal"] == 22


def test_a_pair_learnt_in_an_earlier_release_and_its_change_are_logged(store):
    good, bad = traffic()
    load(store, envelopes(good, "v1"))
    [first] = store.inference_changes(TOOL)
    assert (
        ("/subject", "/title") in first["added"]
        and first["removed"] == []
        and first["release"] == "v1"
    )
    assert first["reanalysed"] == 50 and first["changed_at"]
    rows = toolmappings.mapping_rows(store, TOOL)
    assert rows["changes"][0]["added"] == [
        {"arguments": a, "request": r} for a, r in first["added"]
    ]
    toolmappings.reject(store, TOOL, "/subject", "/title")
    latest = store.inference_changes(TOOL)[0]
    assert latest["removed"] == [("/subject", "/title")] and latest["added"] == []


def test_a_new_release_that_keeps_the_mapping_folds_into_the_evidence(store):
    good, _ = traffic()
    load(store, envelopes(good[:30], "v1"))
    load(store, envelopes(good[30:], "v2", start=30))
    counts = store.evidence(TOOL)[("/subject", "/title")]
    assert counts["both"] == 50 and counts["new:both"] == 20
    assert ("/subject", "/title") in store.inferred_pairs(TOOL)
    rng = random.Random(9)
    load(store, envelopes([ticket(rng, i) for i in range(50, 55)], "v3", start=50))
    counts = store.evidence(TOOL)[("/subject", "/title")]
    # v2 folded into the established counts
    assert counts["both"] == 55 and counts["new:both"] == 5


def with_mode(calls):
    """The same tickets with a `mode` argument the layer reads itself (it picks the route) and never
    sends (and without the layer's own `source`, which a lone leftover argument would be paired
    with)."""
    return [({**args, "mode": "create"}, without(request, "source")) for args, request in calls]


def without(request, key):
    return {k: v for k, v in request.items() if k != key}


def findings_at(store, n, path):
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["kind"], f["severity"])
        for f in call["findings"]
        if f["left"] and f["left"]["path"] == path
    ]


@pytest.mark.parametrize("batch", [40, 3])
def test_an_argument_no_call_sends_is_learnt_consumed_and_a_release_that_stops_sending_one_is_loud(
    store, batch
):
    good, _ = traffic()
    # a later release stops sending `priority` (urgency): it travelled in every earlier call
    broken = [(args, without(request, "urgency")) for args, request in good[40:]]
    events = envelopes(with_mode(good[:40]), "v1") + envelopes(with_mode(broken), "v2", start=40)
    for start in range(0, len(events), batch * 3):
        load(store, events[start : start + batch * 3])
    assert store.consumed_arguments(TOOL) == ["/mode"]
    # the first calls too, analysed before there was history: whatever the batches, the same
    # verdicts
    assert all(findings_at(store, n, "/mode") == [("dropped", "info")] for n in range(50))
    assert all(findings_at(store, n, "/priority") == [] for n in range(40))
    assert all(
        findings_at(store, n, "/priority") == [("dropped", "warning")] for n in range(40, 50)
    )


@pytest.mark.parametrize("order", ["in order", "newest first"])
def test_a_field_the_newest_release_adds_that_no_earlier_call_sent_is_loud_whatever_the_order(
    store, order
):
    good, _ = traffic()
    # a JavaScript spread sends the internal `ticket_id` beside the fields: no argument explains it
    leaky = [
        (args, {**request, "ticket_id": f"T-{i}"}) for i, (args, request) in enumerate(good[40:])
    ]
    old, new = envelopes(good[:40], "v1"), envelopes(leaky, "v2", start=40)
    for part in (old, new) if order == "in order" else (new[:15], old, new[15:]):
        for start in range(0, len(part), 30):
            load(store, part[start : start + 30])
    assert all(findings_right(store, n, "/source") == [("added", "info")] for n in range(50))
    assert all(findings_right(store, n, "/ticket_id") == [] for n in range(40))
    assert all(
        findings_right(store, n, "/ticket_id") == [("added", "warning")] for n in range(40, 50)
    )


def findings_right(store, n, path):
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["kind"], f["severity"])
        for f in call["findings"]
        if f["right"] and f["right"]["path"] == path
    ]


@pytest.mark.parametrize("order", ["in order", "newest first"])
def test_an_argument_the_newest_release_sends_under_its_own_name_instead_of_its_field_is_loud(
    store, order
):
    good, _ = traffic()
    # too few calls to infer priority -> urgency, enough to learn where every one of them sent it;
    # the new release sends it as `priority`, which one call reads as the argument kept as it is
    renamed = [
        (args, {**without(request, "urgency"), "priority": args["priority"]})
        for args, request in good[8:14]
    ]
    old, new = envelopes(good[:8], "v1"), envelopes(renamed, "v2", start=8)
    for part in (old, new) if order == "in order" else (new[:9], old, new[9:]):
        for start in range(0, len(part), 6):
            load(store, part[start : start + 6])
    assert ("/priority", "/urgency") not in store.inferred_pairs(TOOL)
    assert all(loud_at(store, n) == set() for n in range(8))
    assert all(
        findings_right(store, n, "/priority") == [("renamed", "warning")] for n in range(8, 14)
    )


@pytest.mark.parametrize("batch", [40, 3])
def test_a_field_of_the_layer_every_earlier_call_sent_that_the_newest_release_drops_is_loud(
    store, batch
):
    good, _ = traffic()
    # a later release stops sending the layer's own `source`: no argument explains it
    broken = [(args, without(request, "source")) for args, request in good[40:]]
    events = envelopes(good[:40], "v1") + envelopes(broken, "v2", start=40)
    for start in range(0, len(events), batch * 3):
        load(store, events[start : start + batch * 3])
    gone = [
        [
            (f["kind"], f["severity"])
            for f in call["findings"]
            if f["left"] == end("request", "/source")
        ]
        for call in (store.get_trace(f"{n + 1:032x}")["calls"][0] for n in range(50))
    ]
    assert gone == [[]] * 40 + [[("dropped", "warning")]] * 10


def with_attachments(calls):
    """The same tickets with files the layer reads from disk itself: each item's `path` never
    travels, its `name` does (Figma's images: a node's id sent, its local file name kept)."""
    rng = random.Random(12)
    out = []
    for args, request in calls:
        files = [f"f{rng.randint(1, 99)}" for _ in range(rng.randint(1, 3))]
        out.append(
            (
                {**args, "files": [{"name": f, "path": f"/tmp/{f}.png"} for f in files]},
                {**request, "attachments": [{"name": f} for f in files]},
            )
        )
    return out


def test_a_leaf_of_every_item_no_call_sends_is_learnt_consumed_under_its_starred_path(store):
    good, _ = traffic()
    load(store, envelopes(with_attachments(good[:50]), "v1"))
    assert "/files/*/path" in store.consumed_arguments(TOOL)
    assert "/files/*/name" not in store.consumed_arguments(TOOL)
    # the latest calls, analysed with that history: the paths are the layer's own
    assert findings_at(store, 49, "/files/0/path") == [("dropped", "info")]
