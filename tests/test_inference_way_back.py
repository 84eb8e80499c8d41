"""Words a layer writes on the way back, learnt from its tool's calls.

Issue 32, item 1.

A state handed to the model in the layer's own words (`closed` -> `resolved`), the same way every
call, is the layer's habit once its calls show it; another word for a known state stays loud."""

import random

import orjson
import pytest

from webapp import pipeline
from webapp.inference.evidence import merge_counts
from webapp.inference.way_back import (
    judge_way_back,
    way_back_changes,
    way_back_presence,
    way_back_tables,
)
from webapp.ingest import parse_body

WORDS = {"open": "open", "closed": "resolved", "snoozed": "pending"}
TOOL = "list_tickets"


def changed(state: str, said: str, index: int = 0, severity: str = "warning") -> dict:
    """The way back's finding of a state handed over as another word."""
    return {
        "kind": "value_changed",
        "severity": severity,
        "left": {"snapshot": "response", "path": f"/tickets/{index}/state"},
        "right": {"snapshot": "result", "path": f"/result/{index}/status"},
        "left_value": state,
        "right_value": said,
        "message": f'tickets/{index}/state -> result/{index}/status: "{state}" became "{said}"',
    }


def counted(calls, newest=()) -> dict:
    """Path counts over calls, each a list of (state, word said) of its items."""
    total: dict = {}
    for i, items in enumerate(calls):
        findings = [changed(s, w, n) for n, (s, w) in enumerate(items) if s != w]
        for key, counts in way_back_presence(
            way_back_changes(findings), i in newest, total
        ).items():
            merge_counts(total.setdefault(key, {}), counts)
    return total


def tickets(n: int, seed: int = 1, words=WORDS) -> list:
    rng = random.Random(seed)
    return [
        [(s, words[s]) for s in rng.choices(list(WORDS), k=rng.randint(1, 3))] for _ in range(n)
    ]


def test_the_words_every_call_wrote_are_learnt_per_place():
    tables = way_back_tables(counted(tickets(24)))
    assert list(tables) == ["/tickets/*/state > /result/*/status"]
    findings = [changed("closed", "resolved", 1), changed("snoozed", "pending", 2)]
    assert judge_way_back(findings, tables) == (findings, [])
    assert {f["severity"] for f in findings} == {"info"}
    assert findings[0]["message"].endswith("written as the tool's earlier calls wrote it")


def test_another_word_for_a_known_input_and_an_input_never_seen_stay_loud():
    tables = way_back_tables(counted(tickets(24)))
    flipped, new = changed("closed", "pending"), changed("merged", "done")
    # a word another input is written as
    taken = changed("open", "resolved")
    assert judge_way_back([flipped, new, taken], tables) == ([], [])
    assert {f["severity"] for f in (flipped, new, taken)} == {"warning"}


def test_too_few_calls_one_word_for_every_input_or_two_words_for_one_learn_nothing():
    assert way_back_tables(counted(tickets(2))) == {}
    # every state said `done`: a constant, or a bug's
    constant = [[(s, "done") for s, _ in items] for items in tickets(24)]
    assert way_back_tables(counted(constant)) == {}
    rng = random.Random(3)
    coin = [[(s, rng.choice(["resolved", "pending"])) for s, _ in items] for items in tickets(24)]
    assert way_back_tables(counted(coin)) == {}


def test_words_only_the_newest_release_wrote_are_never_learnt():
    good = tickets(24)
    bad = tickets(24, seed=2, words={"open": "open", "closed": "pending", "snoozed": "resolved"})
    releases = {"newest": "2", "seen": ["1", "2"]}
    tables = way_back_tables(counted(good + bad, newest=range(24, 48)), releases)
    flipped = changed("closed", "pending")
    assert judge_way_back([flipped], tables) == ([], []) and flipped["severity"] == "warning"


# --- through the pipeline and a real store ------------------------------------------------------


def send(store, envelopes) -> None:
    pipeline.store_batch(store, parse_body(b"\n".join(orjson.dumps(e) for e in envelopes)), None)


def ticket_call(n: int, release: str, states: list, words=WORDS) -> list[dict]:
    """The four events of a call whose answer's states are handed over in the layer's words."""
    common = {
        "trace_id": f"{n + 1:032x}",
        "call_id": "call_01",
        "tool": TOOL,
        "ts": f"2026-11-20T09:{n:02d}:00Z",
        "release": release,
    }
    answer = {"tickets": [{"id": f"t{n}-{i}", "state": s} for i, s in enumerate(states)]}
    result = {"result": [{"id": f"t{n}-{i}", "status": words[s]} for i, s in enumerate(states)]}
    return [
        {**common, "snapshot": "arguments", "payload": {"team": f"team-{n % 3}"}},
        {
            **common,
            "snapshot": "request",
            "payload": {"team": f"team-{n % 3}"},
            "http": {"method": "POST", "url": "https://api.example.com/tickets/search"},
        },
        {**common, "snapshot": "response", "payload": answer, "http": {"status_code": 200}},
        {**common, "snapshot": "result", "payload": result},
    ]


def loud_words(store, n: int) -> list[tuple]:
    call = store.get_trace(f"{n + 1:032x}")["calls"][0]
    return [
        (f["left_value"], f["right_value"], f["severity"])
        for f in call["findings"]
        if f["kind"] == "value_changed" and f["right"] and f["right"]["snapshot"] == "result"
    ]


@pytest.mark.parametrize("results", ["with their calls", "after their calls were learnt"])
def test_a_tools_words_are_learnt_whenever_its_results_arrive(store, results):
    rng = random.Random(4)
    states = [rng.choices(list(WORDS), k=2) for _ in range(20)]
    earlier = [e for n in range(20) for e in ticket_call(n, "1.0", states[n])]
    if results == "with their calls":
        send(store, earlier)
    else:
        send(store, [e for e in earlier if e["snapshot"] != "result"])
        # learnt from its arguments, request and answer while its result is on its way
        pipeline.catch_up(store)
        send(store, [e for e in earlier if e["snapshot"] == "result"])
    pipeline.catch_up(store)
    flipped = {"open": "open", "closed": "pending", "snoozed": "pending"}
    send(store, ticket_call(20, "1.1", ["closed", "snoozed"]))
    send(store, ticket_call(21, "1.1", ["closed", "snoozed"], flipped))
    pipeline.catch_up(store)
    assert loud_words(store, 20) == [
        ("closed", "resolved", "info"),
        ("snoozed", "pending", "info"),
    ]
    assert ("closed", "pending", "warning") in loud_words(store, 21)
