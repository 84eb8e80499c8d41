"""A name looked up in any case (issue 32, item 1), pure.

A calendar's name, in whatever case the model wrote it, sent as the calendar's id; an id or
`primary` sent as it is. The table is keyed in any case once the history shows the case never
changes the output, and the ids sent as they are are its entries too."""

import random

from webapp.analysis import analyze_call, learnt
from webapp.inference import infer, leaves, observe
from webapp.inference.contract import learnt_relations, with_inferred
from webapp.inference.evidence import merge

LOUD = ("warning", "error")
PAIR = ("/calendar", "/calendarId")
CALENDARS = {
    "Team Offsite": "c_8f2k1m9q0r4t@group.calendar.example.com",
    "On-call": "c_1a2b3c4d5e6f@group.calendar.example.com",
    "Holidays": "en.german#holiday@group.v.calendar.example.com",
}
IDS = ["primary", "ana.okafor@acme.example", *CALENDARS.values()]


def deletes(n, seed=5, lookup=None):
    """Calls naming a calendar (in either case) or giving its id; `lookup` reads a name."""
    lookup = lookup or (
        lambda name: CALENDARS[next(k for k in CALENDARS if k.lower() == name.lower())]
    )
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        if rng.random() < 0.35:
            name = rng.choice(list(CALENDARS))
            given = rng.choice([name, name.lower()])
            out.append(({"calendar": given}, {"calendarId": lookup(given)}))
        else:
            given = rng.choice(IDS)
            out.append(({"calendar": given}, {"calendarId": given}))
    return out


def learn(calls, newest=()) -> dict:
    """Count the evidence; a name sent as another value is paired by the analysis (`changed`)."""
    total: dict = {}
    for i, (arguments, request) in enumerate(calls):
        changed = {PAIR} if arguments["calendar"] != request["calendarId"] else ()
        delta = observe(
            leaves(arguments), leaves(request), dict(total), newest=i in newest, changed=changed
        )
        merge(total, delta)
    return total


def entry_of(calls, releases=None, newest=()):
    evidence = learn(calls, newest)
    pairs = [(p.arguments, p.request) for p in infer(evidence, releases=releases)]
    return learnt_relations(evidence, pairs, releases).get(PAIR)


def loud(arguments, request, entry) -> set:
    contract = with_inferred(None, [PAIR], relations={PAIR: entry})
    snaps = {
        "arguments": {"payload": arguments, "http": None},
        "request": {"payload": request, "http": {"method": "POST", "url": "https://x.test/e"}},
        "response": None,
    }
    found = analyze_call(snaps, contract)["findings"]
    return {(f["kind"], f["left"]["path"]) for f in found if f["severity"] in LOUD and f["left"]}


def test_names_in_any_case_beside_ids_sent_as_they_are_are_a_table_keyed_in_any_case():
    entry = entry_of(deletes(30))
    assert entry["relation"] == learnt.LOOKED_UP and entry["folded"] is True
    on_call = CALENDARS["On-call"]
    assert entry["table"][learnt.table_input("ON-CALL", True)] == learnt.digest(on_call)
    # a name in a case no earlier call wrote, an id, a name no earlier call gave: quiet
    assert loud({"calendar": "ON-CALL"}, {"calendarId": on_call}, entry) == set()
    assert loud({"calendar": "primary"}, {"calendarId": "primary"}, entry) == set()
    assert loud({"calendar": "Birthdays"}, {"calendarId": "c_99@group.example.com"}, entry) == set()


def test_a_known_name_or_id_sent_as_another_value_stays_loud():
    entry = entry_of(deletes(30))
    other = CALENDARS["Team Offsite"]
    assert loud({"calendar": "on-call"}, {"calendarId": other}, entry) == {
        ("value_changed", "/calendar")
    }
    # an id every earlier call sent as it is
    assert loud({"calendar": "primary"}, {"calendarId": other}, entry) == {
        ("value_changed", "/calendar")
    }
    # a name sent as it is, where earlier calls looked it up
    assert ("value_changed", "/calendar") in loud(
        {"calendar": "On-call"}, {"calendarId": "On-call"}, entry
    )


def test_a_case_that_changes_the_output_keys_no_table_in_any_case():
    # each case of a name is a calendar of its own
    per_case = {
        **{k: v for k, v in CALENDARS.items()},
        **{k.lower(): v.replace("c_", "d_") for k, v in CALENDARS.items()},
    }
    entry = entry_of(deletes(60, lookup=per_case.__getitem__))
    assert entry is None or not entry.get("folded")
    evidence = learn(deletes(60, lookup=per_case.__getitem__))
    assert learnt.folded_table(evidence[PAIR]) == {}


def test_a_release_that_maps_one_name_to_two_ids_is_never_learnt_and_stays_loud():
    calls = deletes(30)
    moved = {k: v.replace("c_", "x_") for k, v in CALENDARS.items()}
    broken = deletes(
        12,
        seed=9,
        lookup=lambda name: moved[next(k for k in moved if k.lower() == name.lower())],
    )
    releases = {"newest": "2", "seen": ["1", "2"]}
    entry = entry_of(calls + broken, releases, range(30, 42))
    assert entry["folded"] is True
    assert entry["table"][learnt.table_input("on-call", True)] == learnt.digest(
        CALENDARS["On-call"]
    )
    assert loud({"calendar": "On-call"}, {"calendarId": moved["On-call"]}, entry) == {
        ("value_changed", "/calendar")
    }
