"""The mapping inference, pure.

Which argument feeds which request field, learnt from calls."""

import random

import pytest
from renames import booking

from webapp.inference import hint_renames, infer, leaves, observe
from webapp.inference.consumed import MIN_CONSUMED_CALLS, learnt_consumed
from webapp.inference.decide import MIN_CALLS, MIN_NAMED_CALLS, candidates
from webapp.inference.epochs import presence_of, release_state
from webapp.inference.evidence import MAX_NEW_PER_CALL, MAX_SEEN, merge
from webapp.inference.hints import cli_name, map_command, rename_guesses
from webapp.inference.leaves import MAX_LEAVES, item_leaves
from webapp.inference.novel import earlier_fields, flag_new_fields
from webapp.inference.relations import relation
from webapp.reports.anchors import finding_anchor, finding_anchors


def learn(calls) -> dict:
    """Count evidence over (arguments, request) calls, as the pipeline does call after call."""
    total: dict = {}
    for arguments, request in calls:
        merge(total, observe(leaves(arguments), leaves(request), set(total)))
    return total


def pairs(found) -> set:
    return {(p.arguments, p.request) for p in found}


def bookings(n, seed=3):
    rng = random.Random(seed)
    return [booking(rng, i) for i in range(n)]


def test_a_renaming_tool_is_learnt_after_enough_calls_and_not_before():
    # pairs whose names mean the same (store/location, notes/comment) need fewer calls: the names
    # are evidence too
    named = {("/store_id", "/locationId"), ("/notes", "/comment")}
    assert infer(learn(bookings(MIN_NAMED_CALLS - 1))) == []
    assert pairs(infer(learn(bookings(MIN_NAMED_CALLS)))) == named
    assert pairs(infer(learn(bookings(MIN_CALLS - 1)))) == named
    found = infer(learn(bookings(MIN_CALLS)))
    assert pairs(found) == {
        ("/seats", "/quantity"),
        ("/child_count", "/minors"),
        ("/store_id", "/locationId"),
        ("/date", "/day"),
        ("/notes", "/comment"),
    }
    seats = next(p for p in found if p.arguments == "/seats")
    assert (seats.relation, seats.agree, seats.both) == ("equal", MIN_CALLS, MIN_CALLS)
    assert seats.evidence() == f"equal in {MIN_CALLS} of {MIN_CALLS} calls"
    assert seats.entry() == {"arguments": "/seats", "request": "/quantity", "inferred": True}


@pytest.mark.parametrize("bad, inferred", [(1, True), (2, False)])
def test_a_pair_needs_95_percent_agreement(bad, inferred):
    calls = []
    for i, (arguments, request) in enumerate(bookings(20)):
        if i >= 20 - bad:
            # a bug on a few calls
            request = {**request, "locationId": "st_0000"}
        calls.append((arguments, request))
    assert (("/store_id", "/locationId") in pairs(infer(learn(calls)))) is inferred


def test_an_inferred_pair_stays_down_to_90_percent_so_it_does_not_flap():
    calls = [
        (a, {**r, "locationId": "st_0000"} if i >= 18 else r)
        for i, (a, r) in enumerate(bookings(20))
    ]
    # 18 of 20: 90%
    evidence = learn(calls)
    assert ("/store_id", "/locationId") not in pairs(infer(evidence))
    assert ("/store_id", "/locationId") in pairs(
        infer(evidence, previous={("/store_id", "/locationId")})
    )


def test_two_request_fields_always_equal_to_one_argument_make_no_inference():
    calls = [(a, {**r, "locationRef": r["locationId"]}) for a, r in bookings(30)]
    found = pairs(infer(learn(calls)))
    assert not {p for p in found if p[0] == "/store_id"}
    # the other fields are still clear
    assert ("/seats", "/quantity") in found


def test_two_arguments_always_equal_to_one_field_make_no_inference():
    calls = [({**a, "party": a["seats"]}, r) for a, r in bookings(30)]
    assert not {p for p in pairs(infer(learn(calls))) if p[1] == "/quantity"}


def test_a_rejected_pair_is_kept_out_and_stops_blocking_nothing_else():
    evidence = learn(bookings(30))
    found = pairs(infer(evidence, rejected={("/seats", "/quantity")}))
    assert ("/seats", "/quantity") not in found and ("/date", "/day") in found


def test_declared_pairs_and_their_fields_are_not_inferred_again():
    found = pairs(
        infer(learn(bookings(30)), declared=[("/seats", "/quantity"), ("/notes", "/remark")])
    )
    assert not {p for p in found if p[0] in ("/seats", "/notes")}
    assert ("/date", "/day") in found


@pytest.mark.parametrize(
    "transform, expected",
    [
        (lambda v: v * 100, "scaled x100"),
        (lambda v: str(v), "type_changed"),
    ],
)
def test_a_consistent_transform_pairs_the_fields_and_names_it(transform, expected):
    calls = [(a, {**r, "quantity": transform(a["seats"])}) for a, r in bookings(30)]
    found = {p.arguments: p for p in infer(learn(calls))}
    assert found["/seats"].request == "/quantity" and found["/seats"].relation == expected


def test_an_enum_written_in_upper_case_is_a_consistent_transform():
    rng = random.Random(5)
    calls = []
    for _ in range(25):
        status = rng.choice(["paid", "open", "refunded", "void"])
        calls.append(
            ({"status": status, "n": rng.randint(1, 9)}, {"state": status.upper(), "count": 1})
        )
    found = {p.arguments: p for p in infer(learn(calls))}
    assert found["/status"].request == "/state" and found["/status"].relation == "enum_changed"
    # n equals count only when it is 1
    assert "/n" not in found


def test_candidates_are_the_likely_pairs_below_the_call_threshold():
    evidence = learn(bookings(8))
    assert ("/seats", "/quantity") not in pairs(infer(evidence))
    assert ("/seats", "/quantity") in pairs(candidates(evidence))


def test_a_field_kept_as_it_is_is_learnt_as_the_tools_contract():
    calls = [
        ({"text": f"note {i}", "channel": "C1"}, {"text": f"note {i}", "channel": "C1"})
        for i in range(5)
    ]
    assert ("/text", "/text") in pairs(infer(learn(calls)))


def test_relations_name_equal_values_and_transforms_and_refuse_other_values():
    assert relation(5, 5) == "equal"
    assert relation(5, "5") == "type_changed"
    assert relation(125, 12500) == "scaled x100"
    assert relation("paid", "PAID") == "enum_changed"
    assert relation("2026-12-01", "01/12/2026") == "format_changed"
    assert relation(True, 1) == "type_changed"
    assert (
        relation(5, 6) is None and relation(True, "no") is None and relation("st_1", "st_2") is None
    )


def test_leaves_are_bounded_and_skip_arrays_of_objects():
    doc = {f"k{i}": i for i in range(500)}
    doc.update(
        {"items": [{"sku": "a"}], "ids": [1, 2], "nested": {"deep": {"x": "y"}}, "none": None}
    )
    found = leaves(doc)
    assert len(found) == MAX_LEAVES
    small = leaves(
        {"items": [{"sku": "a"}], "ids": [1, 2], "nested": {"deep": {"x": "y"}}, "none": None}
    )
    assert small == {"/ids": [1, 2], "/nested/deep/x": "y"}


def test_leaves_of_a_wide_object_are_its_first_leaves_in_document_order():
    # members that are no leaf (null, long text, lists of objects, empty objects) are passed over
    skipped = [None, "t" * 300, [{"sku": "a"}], {}, {"deep": {}}]
    doc = {f"k{i}": skipped[i % 5] if i % 3 else i for i in range(30_000)}
    doc["k3"] = {"inner": {"x": "y", "gone": None}}
    expected = {}
    for key, value in doc.items():
        if isinstance(value, int):
            expected[f"/{key}"] = value
        elif key == "k3":
            expected["/k3/inner/x"] = "y"
        if len(expected) == MAX_LEAVES:
            break
    assert list(leaves(doc).items()) == list(expected.items())
    # only the first members are needed, however many follow: a fraction of those of 30,000 keys
    assert leaves({**doc, **{f"z{i}": i for i in range(30_000)}}) == leaves(doc)


def test_item_leaves_look_into_the_lists_of_an_object_of_many_plain_members():
    doc = {f"flag_{i}": i % 2 == 0 for i in range(20_000)}
    doc["orders"] = [{"id": 1, "tags": ["a"]}, {"note": None, "sku": "x"}]
    doc["meta"] = {"rows": [{"n": 1}]}
    assert item_leaves(doc) == {"/orders/*/id", "/orders/*/tags", "/orders/*/sku", "/meta/rows/*/n"}


def test_one_call_full_of_equal_values_starts_a_bounded_number_of_pairs():
    arguments = {f"a{i}": True for i in range(60)}
    request = {f"r{i}": True for i in range(60)}
    assert len(observe(leaves(arguments), leaves(request), set())) == MAX_NEW_PER_CALL


def test_a_dropped_argument_beside_an_added_field_gets_the_command_that_declares_it():
    findings = [
        {
            "kind": "dropped",
            "severity": "error",
            "left": {"snapshot": "arguments", "path": "/seats"},
            "right": None,
            "left_value": 4,
            "right_value": None,
            "message": "seats dropped: not in the request",
        },
        {
            "kind": "added",
            "severity": "info",
            "left": None,
            "right": {"snapshot": "request", "path": "/channel"},
            "left_value": None,
            "right_value": "agent",
            "message": "channel added",
        },
        {
            "kind": "added",
            "severity": "info",
            "left": None,
            "right": {"snapshot": "request", "path": "/quantity"},
            "left_value": None,
            "right_value": 4,
            "message": "quantity added",
        },
    ]
    assert rename_guesses(findings) == {0: ["/quantity", "/channel"]}
    hint_renames(findings, "bookTable")
    assert findings[0]["message"] == (
        "seats dropped: not in the request; if it became quantity, declare the "
        "pair: tracediff tools map bookTable seats=quantity"
    )
    assert findings[1]["message"] == "channel added"


def test_a_rename_hint_names_a_located_path_whole():
    dropped = {
        "kind": "dropped",
        "left": {"snapshot": "arguments", "path": "/after"},
        "left_value": "Y3Vy",
    }
    added = {
        "kind": "added",
        "left": None,
        "right": {"snapshot": "request", "path": "query:/startCursor"},
    }
    findings = [
        {**dropped, "message": "after dropped: not in the request"},
        {**added, "right_value": "Y3Vy"},
    ]
    hint_renames(findings, "list")
    assert "if it became query:/startCursor, declare the pair" in findings[0]["message"]


def test_map_commands_use_plain_names_for_top_level_keys_and_pointers_otherwise():
    assert (
        cli_name("/seats") == "seats"
        and cli_name("/a/b") == "/a/b"
        and cli_name("/a~1b") == "/a~1b"
    )
    assert map_command("my tool", [("/x y", "/z")]) == "tracediff tools map 'my tool' 'x y=z'"


def test_finding_anchors_come_from_kind_and_paths_and_stay_url_safe():
    f = {
        "kind": "type_changed",
        "left": {"snapshot": "arguments", "path": "/limit"},
        "right": {"snapshot": "request", "path": "/limit"},
    }
    assert finding_anchor(f) == "f-type_changed-arguments/limit-request/limit"
    dropped = {
        "kind": "dropped",
        "left": {"snapshot": "arguments", "path": "/a b#c"},
        "right": None,
    }
    assert finding_anchor(dropped) == "f-dropped-arguments/a_20_b_23_c"
    assert finding_anchors([f, f, dropped]) == [
        finding_anchor(f),
        finding_anchor(f) + "-2",
        finding_anchor(dropped),
    ]


def presence(calls, dropped=()) -> dict:
    """Path counts over (arguments, request) calls; `dropped` are the argument pointers no analysis
    paired."""
    total: dict = {}
    for arguments, request in calls:
        merge(total, presence_of(leaves(arguments), leaves(request), False, dropped))
    return total


def test_an_argument_no_call_sent_is_learnt_consumed_after_enough_calls():
    # GitHub's issue_write: `method` picks the route and travels in no request
    def calls(n):
        return [({"method": "create", "title": f"t{i}"}, {"title": f"t{i}"}) for i in range(n)]

    few, enough = calls(MIN_CONSUMED_CALLS - 1), calls(MIN_CONSUMED_CALLS)
    assert learnt_consumed(learn(few), presence(few, {"/method"})) == []
    assert learnt_consumed(learn(enough), presence(enough, {"/method"})) == ["/method"]
    # an argument the analysis paired with a request field (an item of a list of objects) was sent
    assert learnt_consumed(learn(enough), presence(enough)) == []


def test_an_argument_that_travelled_before_the_newest_release_is_never_consumed():
    sent = [({"limit": 10, "q": f"x{i}"}, {"per_page": 10, "q": f"x{i}"}) for i in range(20)]
    evidence, paths = learn(sent), presence(sent)
    # the newest release stops sending it: judged on the earlier releases, it is still dropped
    for arguments, request in [({"limit": 10, "q": f"y{i}"}, {"q": f"y{i}"}) for i in range(30)]:
        merge(evidence, observe(leaves(arguments), leaves(request), set(evidence), newest=True))
        merge(paths, presence_of(leaves(arguments), leaves(request), True, {"/limit"}))
    assert learnt_consumed(evidence, paths, {"newest": "v2", "seen": ["v1", "v2"]}) == []
    # 20 of 50 calls sent it: not a coincidence
    assert learnt_consumed(evidence, paths) == []


def test_the_newest_release_is_the_one_whose_first_call_came_last_whatever_the_arrival_order():
    v1, v2 = ("2026-11-01T09:00:00Z", "v1"), ("2026-11-02T09:00:00Z", "v2")
    late_v1 = ("2026-11-01T10:00:00Z", "v1")
    assert release_state(release_state(None, [v2]), [v1, late_v1])["newest"] == "v2"
    assert release_state(release_state(None, [v1]), [v2, late_v1])["newest"] == "v2"
    assert release_state(None, [late_v1, v2, v1]) == release_state(
        release_state(None, [v2, late_v1]), [v1]
    )
    # a state stored before first times keeps its order
    assert release_state({"newest": "v2", "seen": ["v1", "v2"]}, [])["newest"] == "v2"


def told(kind, argument, request, value) -> dict:
    """An info finding as the analysis writes it (only the parts the history's judgement reads)."""
    left = {"snapshot": "arguments", "path": argument} if argument else None
    right = {"snapshot": "request", "path": request}
    return {
        "kind": kind,
        "severity": "info",
        "left": left,
        "right": right,
        "right_value": value,
        "message": kind,
    }


def test_a_field_the_newest_release_sends_under_a_new_key_is_loud_and_named_by_its_leaf():
    def call(arguments, request, release):
        paths = presence_of(leaves(arguments), leaves(request), release == "v2")
        return {
            key: {**counts, **({"new:calls": 1} if release == "v2" else {})}
            for key, counts in paths.items()
        }

    total: dict = {}
    for i in range(6):
        merge(
            total, call({"page_size": 10, "q": f"a{i}"}, {"page_size": 10, "query": f"a{i}"}, "v1")
        )
    earlier = earlier_fields(total, {"newest": "v2", "seen": ["v1", "v2"]})
    renamed = told("renamed", "/page_size", "/limit", 10)
    leaked, kept = (
        told("added", None, "form:/metadata", {"mcp_session": "s"}),
        told("added", None, "/query", "a9"),
    )
    assert flag_new_fields([renamed, leaked, kept], "v2", "v2", earlier) == [renamed, leaked]
    assert (
        leaked["right"]["path"] == "form:/metadata/mcp_session" and renamed["severity"] == "warning"
    )
    # a call of an earlier release, or a tool without earlier releases, is not judged
    assert flag_new_fields([kept], "v1", "v2", earlier) == []
    assert earlier_fields(total, {"newest": "v1", "seen": ["v1"]}) is None


def learn_ids(values) -> dict:
    """Count evidence of calls sending each value as an argument and as the URL's third segment."""
    total: dict = {}
    for value in values:
        arguments = {"/invoiceId": value, "/amount": 12}
        merge(total, observe(arguments, {"path:/2": value, "path:/0": "v1"}, total))
    return total


@pytest.mark.parametrize(
    ("values", "learnt"),
    [
        (["inv_9f2", "inv_a31", "inv_07c", "inv_e5d", "inv_b48"], True),
        (["inv_9f2"] * (MIN_CALLS - 1), False),
        ([1, 2, 3, 4, 5], False),
        (["draft1", "draft1", "draft2", "draft2", "draft1", "draft2"], False),
    ],
    ids=["distinct ids", "one id repeated", "small ints", "two values repeated"],
)
def test_distinct_ids_equal_in_one_place_are_learnt_in_named_calls(values, learnt):
    # a path segment has no name, but five distinct ids equal at it are no chance
    found = infer(learn_ids(values))
    assert (("/invoiceId", "path:/2") in pairs(found)) is learnt
    if learnt:
        assert found[0].both == MIN_NAMED_CALLS


def test_a_pair_keeps_a_bounded_number_of_distinct_values():
    evidence = learn_ids([f"inv_{i:04x}" for i in range(40)])
    kept = [k for k in evidence[("/invoiceId", "path:/2")] if k.startswith("seen ")]
    assert len(kept) == MAX_SEEN


def test_an_argument_paired_only_with_a_constant_is_learnt_consumed():
    # Figma's `localPath` (the layer saves there), paired by elimination with `format=png`: one
    # output whatever the folder is a constant beside it, not the folder sent
    rng = random.Random(3)
    folders = [rng.choice(["assets", "public/images", "src/icons"]) for _ in range(12)]
    calls = [
        ({"localPath": f, "key": f"k{i}"}, {"format": "png", "key": f"k{i}"})
        for i, f in enumerate(folders)
    ]
    evidence: dict = {}
    for arguments, request in calls:
        merge(
            evidence,
            observe(
                leaves(arguments), leaves(request), evidence, changed={("/localPath", "/format")}
            ),
        )
    assert learnt_consumed(evidence, presence(calls)) == ["/localPath"]
    # a field that takes each folder's own value was sent
    ids = {"assets": "a1", "public/images": "p2", "src/icons": "s3"}
    looked = [({**a}, {**r, "format": ids[a["localPath"]]}) for a, r in calls]
    evidence = {}
    for arguments, request in looked:
        merge(
            evidence,
            observe(
                leaves(arguments), leaves(request), evidence, changed={("/localPath", "/format")}
            ),
        )
    assert learnt_consumed(evidence, presence(looked)) == []


def test_an_argument_paired_only_with_a_constant_never_travelled():
    # paired by elimination with `format=png` in every call of the earlier release: never sent,
    # so a newer call that leaves it out (the learnt `consumed`) is no argument gone missing
    folders = ["assets", "public/images", "src/icons"] * 4
    calls = [
        ({"localPath": f, "key": f"k{i}"}, {"format": "png", "key": f"k{i}"})
        for i, f in enumerate(folders)
    ]
    evidence: dict = {}
    for arguments, request in calls:
        delta = observe(leaves(arguments), leaves(request), evidence, changed={LOCAL_PATH})
        merge(evidence, delta)
    releases = {"newest": "v2", "seen": ["v1", "v2"]}
    travelled = earlier_fields(presence(calls), releases, evidence).travelled
    assert "/localPath" not in travelled and "/key" in travelled
    # without the pairs' evidence, every argument the analysis never found dropped travelled
    assert "/localPath" in earlier_fields(presence(calls), releases).travelled


LOCAL_PATH = ("/localPath", "/format")


def test_a_rename_hint_pairs_a_field_with_one_of_the_next_stage_only():
    def one(kind, snapshot, path, value):
        side = {"snapshot": snapshot, "path": path}
        return {
            "kind": kind,
            "left": side if kind == "dropped" else None,
            "right": side if kind == "added" else None,
            f"{'left' if kind == 'dropped' else 'right'}_value": value,
            "message": f"{path[1:]} {kind}",
        }

    findings = [
        one("dropped", "arguments", "/seats", 4),
        one("dropped", "response", "/guests", 4),
        one("added", "result", "/party", 4),
    ]
    # an argument is never guessed into the result, nor a response field into the request
    assert rename_guesses(findings) == {1: ["/party"]}
    hint_renames(findings, "bookTable")
    assert findings[0]["message"] == "seats dropped"
    assert findings[1]["message"] == (
        "guests dropped; if it became party, declare the pair: "
        "tracediff tools map bookTable --result guests=party"
    )
