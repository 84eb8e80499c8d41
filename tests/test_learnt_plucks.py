"""A list joined into one text, learnt from a tool's history (issue 32).

A list of plain values, or of objects through one field of each item (a pluck: `issues: [{"key":
"proj-12", ...}]` sent as `keys=PROJ-12,PROJ-7`), its separator and what the layer does to each
item first (`proj-12` upper-cased) learnt from the tool's earlier calls: a join as they show is
quiet; another separator, an item left out, the list sent unjoined or an item left in its old form
are loud at the pair. One call at a time such a join is info that says what would settle it; a list
whose items appear nowhere stays as loud as before.
"""

import random

import orjson
import pytest

from webapp import pipeline
from webapp.analysis import analyze_call, learnt
from webapp.inference import infer, leaves, observe
from webapp.inference.contract import learnt_relations, with_inferred
from webapp.inference.evidence import merge
from webapp.inference.leaves import plucked
from webapp.inference.relations import relation
from webapp.ingest import parse_body
from webapp.pipeline.mappings import request_leaves

LOUD = ("warning", "error")
API = "https://tracker.example.com/rest/issues"
KEYS = ["proj-12", "PROJ-7", "ops-301", "WEB-9", "web-44", "OPS-2"]
PAIR = ("/issues/*/key", "query:/keys")


def issue_call(rng) -> tuple[dict, str]:
    """A tracker layer's call: the issues' keys upper-cased and joined into `keys=`."""
    issues = [
        {"key": key, "summary": f"fix {key}", "watch": rng.random() < 0.5}
        for key in rng.sample(KEYS, rng.randint(1, 3))
    ]
    keys = ",".join(issue["key"].upper() for issue in issues)
    return {"issues": issues, "fields": "summary"}, f"{API}?keys={keys}&fields=summary"


def snapshots(arguments: dict, url: str, body=None) -> dict:
    http = {"method": "GET" if body is None else "POST", "url": url}
    return {
        "arguments": {"payload": arguments, "http": None},
        "request": {"payload": body, "http": http},
        "response": None,
    }


def learnt_from(calls) -> dict:
    """The relations a tool's calls (arguments, snapshots) teach, as the pipeline counts them."""
    total: dict = {}
    for arguments, snaps in calls:
        found = {**leaves(arguments), **plucked(arguments)}
        merge(total, observe(found, request_leaves(snaps), dict(total)))
    pairs = [(p.arguments, p.request) for p in infer(total)]
    return learnt_relations(total, pairs)


def tracker_history(n: int = 30, seed: int = 3) -> dict:
    rng = random.Random(seed)
    return learnt_from(
        (arguments, snapshots(arguments, url))
        for arguments, url in (issue_call(rng) for _ in range(n))
    )


def analysed(arguments, url, relations: dict | None = None, body=None) -> dict:
    contract = with_inferred(None, list(relations or {}), relations=relations or {})
    return analyze_call(snapshots(arguments, url, body), contract)


def loud(result) -> set:
    return {
        (f["kind"], f["left"]["path"] if f["left"] else f["right"]["path"])
        for f in result["findings"]
        if f["severity"] in LOUD
    }


def at_the_pair(result) -> list[dict]:
    return [f for f in result["findings"] if f["left"] and f["left"]["path"] == PAIR[0]]


ISSUES = {"issues": [{"key": "proj-12", "summary": "a"}, {"key": "WEB-9", "summary": "b"}]}


# --- what one call shows -------------------------------------------------------------------------


def test_a_list_of_objects_is_counted_as_each_field_of_its_items():
    arguments = {
        "issues": [{"key": "proj-12", "n": 3, "done": True}, {"key": "WEB-9", "n": 4}],
        "board": {"columns": [{"name": "todo"}, {"name": "done"}]},
    }
    assert plucked(arguments) == {
        "/issues/*/key": ["proj-12", "WEB-9"],
        "/issues/*/n": [3, 4],
        "/board/columns/*/name": ["todo", "done"],
    }
    # a field some item lacks, or holds as no plain value, is no list of values
    assert plucked({"issues": [{"key": "a"}, {"key": None}, {"other": 1}]}) == {}


def test_a_join_is_named_by_its_separator_whatever_form_its_items_were_put_in():
    assert relation(["proj-12", "WEB-9"], "PROJ-12,WEB-9") == "joined ,"
    assert relation(["12-34", "5:6"], "12:34|5:6") == "joined |"
    # one item in the API's form is the one-item list sent as its item
    assert relation(["proj-12"], "PROJ-12") == "type_changed"
    # an item whose letters changed is no join
    assert relation(["proj-12", "WEB-9"], "PROJ-13,WEB-9") is None
    counts = observe({"/keys": ["proj-12", "WEB-9"]}, {"/q": "PROJ-12,WEB-9"}, set())
    # the join, the rule the changed item showed and the form of the one sent as it is
    assert {"joined ,", 'normalised [["upper"], {"-": "-"}]', "form U|-"} <= set(
        counts[("/keys", "/q")]
    )


def test_a_join_name_holds_its_items_rule_and_gives_each_item_in_it():
    name = learnt.join_name(",", 'normalised [["upper"], {"-": "-"}]')
    assert learnt.join_parts(name) == (",", 'normalised [["upper"], {"-": "-"}]')
    assert learnt.join_parts("joined |") == ("|", None)
    assert learnt.gives(name, ["proj-12", "WEB-9"]) == "PROJ-12,WEB-9"
    assert learnt.follows(name, ["proj-12"], "PROJ-12")
    assert learnt.describe(name) == 'joined with ",", each item normalised: written in upper case'


# --- learnt from history -------------------------------------------------------------------------


def test_a_pluck_joined_in_the_apis_form_is_learnt_with_its_separator_and_items_rule():
    found = tracker_history()
    assert found[PAIR] == {"relation": learnt.join_name(",", 'normalised [["upper"], {"-": "-"}]')}


def test_items_sent_in_two_forms_teach_no_rule_and_no_join():
    rng = random.Random(5)
    calls = []
    for i in range(30):
        arguments, _ = issue_call(rng)
        # every second call upper-cases its items, the others send them as they are
        keys = ",".join(k["key"].upper() if i % 2 else k["key"] for k in arguments["issues"])
        calls.append((arguments, snapshots(arguments, f"{API}?keys={keys}&fields=summary")))
    assert PAIR not in learnt_from(calls)


def test_the_learnt_pluck_is_quiet_followed_and_loud_wherever_a_call_departs():
    relations = {PAIR: tracker_history()[PAIR]}
    assert loud(analysed(ISSUES, f"{API}?keys=PROJ-12,WEB-9", relations)) == set()
    assert at_the_pair(analysed(ISSUES, f"{API}?keys=PROJ-12,WEB-9", relations))[0]["severity"] == (
        "info"
    )
    departures = {
        "another separator": f"{API}?keys=PROJ-12;WEB-9",
        "an item left out": f"{API}?keys=PROJ-12",
        "an item left in its old form": f"{API}?keys=proj-12,WEB-9",
        "the list sent unjoined": f"{API}?keys=PROJ-12&keys=WEB-9",
    }
    for why, url in departures.items():
        found = at_the_pair(analysed(ISSUES, url, relations))
        assert found and found[0]["severity"] == "warning", why
    # the field gone from the request: the list is dropped, its items paired with no lookalike
    gone = analysed(ISSUES, f"{API}?q=PROJ-12", relations)["findings"]
    assert [f["kind"] for f in gone if f["left"] and f["left"]["path"] == "/issues"] == ["dropped"]
    assert not [f for f in gone if f["right"] and f["left"] and f["right"]["path"] == "query:/q"]


def test_the_items_other_fields_are_judged_apart_from_the_pluck():
    relations = {PAIR: tracker_history()[PAIR]}
    arguments = {"issues": [{"key": "proj-12", "owner": "ann"}, {"key": "web-9", "owner": "bob"}]}
    result = analysed(arguments, f"{API}?keys=PROJ-12,WEB-9", relations)
    dropped = {f["left"]["path"] for f in result["findings"] if f["kind"] == "dropped"}
    assert dropped == {"/issues/0/owner", "/issues/1/owner"}


# --- one call at a time --------------------------------------------------------------------------


def test_one_call_tells_a_pluck_joined_and_says_what_would_settle_it():
    result = analysed(ISSUES, f"{API}?keys=PROJ-12,WEB-9")
    [found] = at_the_pair(result)
    assert found["severity"] == "info"
    assert "each item's key sent joined into one text" in found["message"]
    assert "written in upper case" in found["message"]
    assert "the tool's earlier calls would settle it" in found["message"]
    assert loud(result) == set()


def test_one_call_keeps_a_list_whose_items_appear_nowhere_loud():
    result = analysed(ISSUES, f"{API}?keys=PROJ-99,OPS-1")
    assert not at_the_pair(result)
    assert {path for _, path in loud(result)} == {"/issues/0/key"}


def test_one_call_tells_a_plain_list_joined_in_the_apis_form_in_a_body():
    arguments = {"labels": ["In Progress", "blocked"]}
    result = analysed(arguments, API, body={"filter": "in_progress|blocked"})
    [found] = [f for f in result["findings"] if f["kind"] == "value_changed"]
    assert found["left"]["path"] == "/labels" and found["severity"] == "info"
    assert "a list sent joined into one text (1 of 2 items normalised" in found["message"]
    # its items' letters changed: no join, the list is dropped
    other = analysed(arguments, API, body={"filter": "in_review|blocked"})["findings"]
    assert [f["kind"] for f in other if f["left"]] == ["dropped"]


# --- through the pipeline and a real store -------------------------------------------------------


def tracker_call(n: int, arguments: dict, url: str) -> list[dict]:
    common = {
        "trace_id": f"{n + 1:032x}",
        "call_id": "call_01",
        "tool": "get_issues",
        "ts": f"2026-11-20T09:{n // 60:02d}:{n % 60:02d}Z",
    }
    return [
        {**common, "snapshot": "arguments", "payload": arguments},
        {**common, "snapshot": "request", "payload": None, "http": {"method": "GET", "url": url}},
        {**common, "snapshot": "response", "payload": {"issues": []}, "http": {"status_code": 200}},
    ]


def send(store, envelopes) -> None:
    pipeline.store_batch(store, parse_body(b"\n".join(orjson.dumps(e) for e in envelopes)), None)


def pair_findings(store, n: int) -> list[tuple]:
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["kind"], f["severity"])
        for f in call["findings"]
        if f["left"] and f["left"]["path"] == PAIR[0]
    ]


@pytest.mark.parametrize("batches", [1, 30])
def test_the_pipeline_learns_a_pluck_and_judges_the_next_calls_by_it(store, batches):
    rng = random.Random(7)
    events = [e for n in range(30) for e in tracker_call(n, *issue_call(rng))]
    size = len(events) // batches
    for start in range(0, len(events), size):
        send(store, events[start : start + size])
        pipeline.catch_up(store)
    send(store, tracker_call(30, ISSUES, f"{API}?keys=PROJ-12,WEB-9&fields=summary"))
    send(store, tracker_call(31, ISSUES, f"{API}?keys=PROJ-12;WEB-9&fields=summary"))
    pipeline.catch_up(store)
    assert PAIR in store.inferred_pairs("get_issues")
    assert pair_findings(store, 30) == [("value_changed", "info")]
    assert [severity for _, severity in pair_findings(store, 31)] == ["warning"]
