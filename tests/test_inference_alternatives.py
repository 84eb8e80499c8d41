"""Arguments given instead of each other (issue 32, item 1), pure.

An id or a URL holding it, read into one request field: two partners of one field that never come
together are alternatives, each the field's partner in the calls that give it; two that come
together stay rivals, and neither is inferred."""

import random

from webapp.analysis import analyze_call
from webapp.inference import infer, leaves, observe
from webapp.inference.contract import learnt_relations, with_inferred
from webapp.inference.decide import alternatives
from webapp.inference.epochs import ALONE
from webapp.inference.evidence import merge

LOUD = ("warning", "error")
ID, URL, FIELD = "/issueId", "/issueUrl", "path:/1"
ISSUES = ["WEB-3KQ", "IOS-7", "PAYMENTS-2B1", "BACKEND-1Z43", "API-9"]


def learn(calls) -> dict:
    """Count the evidence of (arguments, request leaves) calls, one after the other.

    The URL given is paired with the issue it holds, as the analysis pairs it (a value looked
    up)."""
    total: dict = {}
    for arguments, request in calls:
        changed = {(URL, FIELD)} if "issueUrl" in arguments else ()
        merge(total, observe(leaves(arguments), request, dict(total), changed=changed))
    return total


def notes(n, seed=3, together=0.0):
    """Calls giving an issue's id (upper-cased into the URL's path) or its URL, with a note.

    `together`: the share of calls giving both."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        issue = rng.choice(ISSUES)
        url = {"issueUrl": f"https://acme.example.com/issues/{issue}/"}
        given = {"issueId": issue.lower() if rng.random() < 0.4 else issue}
        pick = rng.random()
        arguments = {**given, **url} if pick < together else url if pick < together + 0.4 else given
        out.append(({**arguments, "text": f"note {i}"}, {FIELD: issue, "/text": f"note {i}"}))
    return out


def inferred(evidence) -> set:
    return {(p.arguments, p.request) for p in infer(evidence)}


def test_two_arguments_never_given_together_are_each_the_fields_partner():
    evidence = learn(notes(60))
    assert evidence[(ID, FIELD)][ALONE] == evidence[(ID, FIELD)]["both"]
    assert evidence[(URL, FIELD)][ALONE] == evidence[(URL, FIELD)]["both"]
    assert {(ID, FIELD), (URL, FIELD)} <= inferred(evidence)
    others = alternatives(evidence, [(ID, FIELD), (URL, FIELD)])
    assert others == {(ID, FIELD): [URL], (URL, FIELD): [ID]}


def test_two_arguments_given_together_stay_rivals_and_neither_is_inferred():
    evidence = learn(notes(60, together=0.2))
    assert evidence[(ID, FIELD)][ALONE] < evidence[(ID, FIELD)]["both"]
    assert not {(ID, FIELD), (URL, FIELD)} & inferred(evidence)
    assert alternatives(evidence, [(ID, FIELD)]) == {}


def test_evidence_counted_before_calls_were_counted_alone_shows_no_alternatives():
    # a store's evidence from before: its calls may have given both
    evidence = {
        pair: {name: n for name, n in counts.items() if name != ALONE}
        for pair, counts in learn(notes(60)).items()
    }
    assert not {(ID, FIELD), (URL, FIELD)} & inferred(evidence)
    assert alternatives(evidence, [(ID, FIELD)]) == {}


def test_the_count_of_arguments_together_is_no_relation():
    evidence = learn(notes(60))
    relations = learnt_relations(evidence, [(ID, FIELD), (URL, FIELD)])
    assert {entry["relation"] for entry in relations.values()} & {ALONE} == set()


def analysed(arguments, issue, pairs, others=None):
    """Analyse one call under a contract holding the inferred pairs (their learnt relations).

    The request posts the note to the issue's URL."""
    relations = learnt_relations(learn(notes(60)), pairs)
    contract = with_inferred(None, pairs, relations=relations, alternatives=others)
    http = {"method": "POST", "url": f"https://api.example.com/issues/{issue}/notes"}
    snaps = {
        "arguments": {"payload": {**arguments, "text": "n"}, "http": None},
        "request": {"payload": {"text": "n"}, "http": http},
        "response": None,
    }
    return {
        (f["kind"], f["severity"], (f["left"] or f["right"])["path"])
        for f in analyze_call(snaps, contract)["findings"]
    }


def test_an_argument_given_instead_sends_the_field_and_a_wrong_value_stays_loud():
    pairs = [(ID, "path:/1")]
    others = alternatives(learn(notes(60)), [(ID, FIELD), (URL, FIELD)])
    url = {"issueUrl": "https://acme.example.com/issues/IOS-7/"}
    # the id's entry alone pins the field: the URL given instead reads as dropped
    assert ("dropped", "info", URL) in analysed(url, "IOS-7", pairs)
    assert {f[0] for f in analysed(url, "IOS-7", pairs, others)} == {"value_changed"}
    # the id upper-cased, as every earlier call showed, and another issue's id
    assert not any(f[1] in LOUD for f in analysed({"issueId": "ios-7"}, "IOS-7", pairs, others))
    assert ("value_changed", "warning", ID) in analysed(
        {"issueId": "ios-7"}, "API-9", pairs, others
    )
