"""Value relations learnt from a tool's history (issue 32, item 1), pure.

A template, a join, a split, a clamp, a case; the calls that follow them are quiet and the calls
that depart are loud."""

import random

import pytest

from webapp.analysis import analyze_call, learnt
from webapp.inference import infer, leaves, observe
from webapp.inference.contract import learnt_relations, with_inferred
from webapp.inference.evidence import MAX_FUNCTIONS, merge
from webapp.inference.relations import relation

LOUD = ("warning", "error")
GID = 'wrapped ["gid://shop/Customer/", ""]'


def learn(calls, newest=(), changed=()) -> dict:
    """Count evidence over (arguments, request) calls; calls whose index is in `newest` come from
    the newest release; `changed` pairs are those the analysis paired with another value."""
    total: dict = {}
    for i, (arguments, request) in enumerate(calls):
        delta = observe(
            leaves(arguments), leaves(request), dict(total), newest=i in newest, changed=changed
        )
        merge(total, delta)
    return total


def learnt_entries(calls, releases=None, newest=(), changed=()) -> dict:
    evidence = learn(calls, newest, changed)
    found = infer(evidence, releases=releases)
    return learnt_relations(evidence, [(p.arguments, p.request) for p in found], releases)


def relations_of(calls, releases=None, newest=(), changed=()) -> dict:
    found = learnt_entries(calls, releases, newest, changed)
    return {pair: entry["relation"] for pair, entry in found.items()}


def analysed(arguments, request, relations: dict, url=None):
    """Analyse one call under a contract holding the learnt pairs and their relations ({pair:
    name}, or {pair: entry} for a table)."""
    relations = {
        pair: entry if isinstance(entry, dict) else {"relation": entry}
        for pair, entry in relations.items()
    }
    contract = with_inferred(None, list(relations), relations=relations)
    http = {"method": "GET" if url else "POST", "url": url or "https://api.example.com/x"}
    snaps = {
        "arguments": {"payload": arguments, "http": None},
        "request": {"payload": request, "http": http},
        "response": None,
    }
    return analyze_call(snaps, contract)


def loud(result) -> set:
    return {
        (f["kind"], f["left"]["path"] if f["left"] else None)
        for f in result["findings"]
        if f["severity"] in LOUD
    }


# --- naming what one call shows ------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, name",
    [
        ("123", "gid://shop/Customer/123", GID),
        (123, "gid://shop/Customer/123", GID),
        ("gift card", "title:*gift card*", 'wrapped ["title:*", "*"]'),
        (["a", "b"], "a,b", "joined ,"),
        ("a, b", ["a", "b"], "split ,"),
        ("ENG", "3f2a9c1e-uuid", None),
        # glued to other letters or digits: a coincidence, not a template
        ("12", "v12", None),
        ("ab", "cab", None),
    ],
)
def test_a_call_names_the_template_join_or_split_its_values_show(a, b, name):
    assert relation(a, b) == name


def test_a_clamp_is_named_apart_and_a_value_kept_names_none():
    assert learnt.bound_name(500, "200") == "at most 200"
    assert learnt.bound_name(0, 1) == "at least 1"
    assert learnt.bound_name(50, "50") is None
    assert relation(500, 200) is None


@pytest.mark.parametrize(
    "name, a, given",
    [
        (GID, "77", "gid://shop/Customer/77"),
        (GID, 77, "gid://shop/Customer/77"),
        ("joined |", ["x", 2, True], "x|2|true"),
        ("split ,", "a, b,c", ["a", "b", "c"]),
        ("at most 200", 500, 200),
        ("at most 200", 20, 20),
        ("at least 1", 0, 1),
        (GID, {"id": 1}, learnt.NOTHING),
        ("joined ,", "a", learnt.NOTHING),
    ],
)
def test_a_relation_gives_one_value_for_each_input(name, a, given):
    assert learnt.gives(name, a) == given if given is not learnt.NOTHING else learnt.NOTHING


def test_following_a_relation_reads_the_wire_and_one_item_lists():
    assert learnt.follows("at most 200", 500, "200")
    assert learnt.follows("joined ,", ["a"], "a")
    assert learnt.follows("enum_changed", "open", "OPEN")
    assert not learnt.follows(GID, "77", "gid://shop/Customer/78")
    assert learnt.changes(GID, "77") and not learnt.changes("at most 200", 20)
    assert learnt.expected_kind("joined ,", ["a", "b"], ["a", "b"]) == "type_changed"


# --- learning a relation from calls --------------------------------------------------------------


def customers(n, seed=4, wrap=lambda i: f"gid://shop/Customer/{i}"):
    rng = random.Random(seed)
    ids = [str(rng.randint(10**9, 10**10)) for _ in range(n)]
    return [({"id": i, "note": "hi"}, {"input": {"id": wrap(i), "note": "hi"}}) for i in ids]


def test_a_template_around_every_calls_own_value_is_learnt_after_a_few_calls():
    assert relations_of(customers(6)) == {("/id", "/input/id"): GID}
    assert relations_of(customers(3)) == {}


def test_a_template_that_changes_every_call_is_no_relation_and_its_names_are_capped():
    calls = customers(40, wrap=lambda i: f"customer {i} at {i[::-1]}")
    assert relations_of(calls) == {}
    names = [name for name in learn(calls)[("/id", "/input/id")] if learnt.is_function(name)]
    assert len(names) <= MAX_FUNCTIONS


def test_a_join_and_a_split_are_learnt_with_their_separator():
    rng = random.Random(2)
    words = ["bug", "ui", "backend", "docs"]
    joins = [rng.sample(words, rng.randint(1, 3)) for _ in range(8)]
    assert relations_of([({"labels": w}, {"labels": ",".join(w)}) for w in joins]) == {
        ("/labels", "/labels"): "joined ,"
    }
    splits = [({"tags": ", ".join(w)}, {"tags": w}) for w in joins]
    assert relations_of(splits) == {("/tags", "/tags"): "split ,"}


def test_a_clamp_is_learnt_from_values_kept_below_it_and_cut_above_it():
    limits = [20, 50, 100, 200, 500, 1000, 50, 20, 100, 1000]
    calls = [({"limit": x}, {"limit": min(x, 200)}) for x in limits]
    assert relations_of(calls) == {("/limit", "/limit"): "at most 200"}
    # a constant is no clamp: every value cut
    constant = [({"limit": x}, {"limit": 1}) for x in (5, 6, 7, 8, 9, 10, 1)]
    assert relations_of(constant) == {}


def test_a_few_values_raised_by_a_bug_are_no_clamp_when_earlier_calls_kept_values_past_it():
    kids = [0, 1, 2, 0, 1, 3, 2, 0, 1, 2, 0, 1, 2, 3, 0, 1, 2, 0, 1, 2]
    calls = [({"kids": x}, {"children": x}) for x in kids]
    # off by one, twice: 0 -> 1 reads as "at least 1", but 0 was kept before
    calls += [({"kids": 0}, {"children": 1})] * 2
    assert relations_of(calls) == {}
    assert not learnt.bound_holds("at least 1", {"kept 0": 3, "kept 1": 4})
    assert learnt.bound_holds("at most 200", {"kept 7": 3, "kept 8": 4})
    assert not learnt.bound_holds("at most 200", {"kept 9": 1})


def test_a_unit_every_call_scales_is_learnt_and_a_value_sent_unscaled_is_loud():
    rng = random.Random(8)
    calls = [
        ({"price": p}, {"unit_amount": round(p * 100)}) for p in rng.choices([9.5, 12, 30], k=24)
    ]
    assert relations_of(calls) == {("/price", "/unit_amount"): "scaled x100"}
    pair = {("/price", "/unit_amount"): "scaled x100"}
    assert loud(analysed({"price": 4.25}, {"unit_amount": 425}, pair)) == set()
    assert loud(analysed({"price": 4}, {"unit_amount": 4}, pair)) == {("value_changed", "/price")}
    assert learnt.gives("scaled /1000", 1500) == 1.5 and not learnt.is_function("scaled ?")


def test_a_case_every_call_changes_is_learnt():
    rng = random.Random(1)
    calls = [({"state": s}, {"state": s.upper()}) for s in rng.choices(["open", "paid"], k=6)]
    assert relations_of(calls) == {("/state", "/state"): "enum_changed"}


def test_a_relation_only_the_newest_release_shows_is_never_learnt():
    good = customers(10, wrap=lambda i: i)
    bad = customers(10, seed=5)
    releases = {"newest": "2", "seen": ["1", "2"]}
    found = relations_of(good + bad, releases, newest=range(10, 20))
    assert GID not in found.values()


# --- judging calls by it -------------------------------------------------------------------------


def test_a_value_the_learnt_template_gives_is_quiet_and_any_other_is_loud():
    pair = {("/id", "/input/id"): GID}
    assert loud(analysed({"id": "77"}, {"input": {"id": "gid://shop/Customer/77"}}, pair)) == set()
    assert loud(analysed({"id": "77"}, {"input": {"id": "gid://shop/Customer/78"}}, pair)) == {
        ("value_changed", "/id")
    }
    # the id sent as it is, where every earlier call wrapped it
    assert loud(analysed({"id": "77"}, {"input": {"id": "77"}}, pair)) == {("value_changed", "/id")}


def test_a_list_the_tool_always_joined_is_quiet_joined_and_loud_sent_as_a_list():
    pair = {("/labels", "/labels"): "joined ,"}
    assert loud(analysed({"labels": ["a", "b"]}, {"labels": "a,b"}, pair)) == set()
    assert loud(analysed({"labels": ["a"]}, {"labels": "a"}, pair)) == set()
    assert loud(analysed({"labels": ["a", "b"]}, {"labels": ["a", "b"]}, pair)) == {
        ("type_changed", "/labels")
    }
    assert loud(analysed({"labels": ["a", "b"]}, {"labels": "a|b"}, pair)) != set()


def test_a_clamped_query_parameter_is_quiet_at_its_bound_and_loud_past_it():
    pair = {("/limit", "query:/limit"): "at most 200"}
    url = "https://api.example.com/list?limit={}"
    assert loud(analysed({"limit": 500}, None, pair, url.format(200))) == set()
    assert loud(analysed({"limit": 50}, None, pair, url.format(50))) == set()
    assert loud(analysed({"limit": 500}, None, pair, url.format(100))) != set()


def test_a_split_learnt_is_quiet_and_a_case_learnt_is_quiet():
    split = {("/tags", "/tags"): "split ,"}
    assert loud(analysed({"tags": "a, b"}, {"tags": ["a", "b"]}, split)) == set()
    assert loud(analysed({"tags": "a, b"}, {"tags": ["a", "c"]}, split)) != set()
    case = {("/state", "/state"): "enum_changed"}
    assert loud(analysed({"state": "open"}, {"state": "OPEN"}, case)) == set()


# --- a value looked up ---------------------------------------------------------------------------

TEAMS = {"ENG": "9c1e7a52-1f0b", "OPS": "77d0b3f4-aa10", "WEB": "0be5c2d9-4e21", "QA": "5a7f-e3c0"}


def issues(n, seed=6):
    rng = random.Random(seed)
    keys = [rng.choice(list(TEAMS)) for _ in range(n)]
    return [
        ({"team": k, "title": f"t{i}"}, {"teamId": TEAMS[k], "title": f"t{i}"})
        for i, k in enumerate(keys)
    ]


LOOKUP = {("/team", "/teamId")}


def test_the_same_input_always_giving_the_same_output_is_learnt_as_a_table():
    found = learnt_entries(issues(24), changed=LOOKUP)
    entry = found[("/team", "/teamId")]
    assert entry["relation"] == learnt.LOOKED_UP
    assert entry["table"][learnt.digest("ENG")] == learnt.digest(TEAMS["ENG"])


def test_a_table_needs_inputs_seen_again_and_one_output_each():
    # each input once: any pairs fit a table
    once = [({"team": f"k{i}"}, {"teamId": f"id-{i * 7}"}) for i in range(24)]
    assert relations_of(once, changed=LOOKUP) == {}
    # one input, two outputs: no function
    rng = random.Random(2)
    coin = [({"team": "ENG"}, {"teamId": rng.choice(["a1", "b2"])}) for _ in range(24)]
    assert relations_of(coin, changed=LOOKUP) == {}


def test_a_looked_up_value_is_quiet_and_another_output_for_a_known_input_is_loud():
    entry = learnt_entries(issues(24), changed=LOOKUP)[("/team", "/teamId")]
    pair = {("/team", "/teamId"): entry}
    assert loud(analysed({"team": "OPS"}, {"teamId": TEAMS["OPS"]}, pair)) == set()
    # a new input: no verdict without history of it
    assert loud(analysed({"team": "NEW"}, {"teamId": "fresh-id"}, pair)) == set()
    # another team's id, or the key sent as it is
    assert loud(analysed({"team": "OPS"}, {"teamId": TEAMS["ENG"]}, pair)) == {
        ("value_changed", "/team")
    }
    assert loud(analysed({"team": "OPS"}, {"teamId": "OPS"}, pair)) == {("value_changed", "/team")}


def test_a_table_only_the_newest_release_shows_is_never_learnt():
    calls = issues(24)
    broken = [(a, {**r, "teamId": r["teamId"][::-1]}) for a, r in issues(24, seed=7)]
    releases = {"newest": "2", "seen": ["1", "2"]}
    plain = [(a, {**r, "teamId": a["team"]}) for a, r in calls]
    assert relations_of(plain + broken, releases, range(24, 48), LOOKUP) == {}


def test_one_output_for_every_input_is_a_constant_not_a_table():
    # a local folder beside the constant `format=png` the layer always sends
    rng = random.Random(4)
    folders = [rng.choice(["assets", "public/images", "src/icons"]) for _ in range(24)]
    calls = [({"localPath": f}, {"format": "png"}) for f in folders]
    assert relations_of(calls, changed={("/localPath", "/format")}) == {}


# --- a normalisation: values put in the API's form, those already in it kept ----------------------


def node_ids(n, seed=8):
    """A node id copied from a URL (`12-34`) or written as the API wants it (`12:34`), sent as
    `12:34` (Figma's layer) beside an upper-cased key (`ios-7` -> `IOS-7`, Sentry's)."""
    rng = random.Random(seed)
    calls = []
    for _ in range(n):
        node = rng.choice(["1:2", "12:345", "204:1877", "3105:22410", "I5:18;1:10"])
        given = node.replace(":", "-") if rng.random() < 0.5 and ";" not in node else node
        issue = rng.choice(["ios-7", "IOS-7", "web-3kq", "WEB-3KQ", "backend-1z43"])
        calls.append(
            (
                {"nodeId": given, "issue": issue},
                {"ids": given.replace("-", ":"), "id": issue.upper()},
            )
        )
    return calls


def test_a_call_names_the_normalisation_it_shows_and_refuses_other_changes():
    assert learnt.normalised_name("ios-7", "IOS-7") == 'normalised [["upper"], {"-": "-"}]'
    assert learnt.normalised_name("12-34", "12:34") == (
        'normalised [["keep", "lower", "upper"], {"-": ":"}]'
    )
    # a separator added (camelCase to snake_case) or letters changed: no normalisation
    assert learnt.normalised_name("inProgress", "in_progress") is None
    assert learnt.normalised_name("ios-7", "ios-8") is None


def test_a_normalisation_is_learnt_with_the_values_already_in_its_form():
    found = relations_of(node_ids(30))
    ids, issue = found[("/nodeId", "/ids")], found[("/issue", "/id")]
    assert learnt.gives(ids, "7-8") == "7:8" and learnt.gives(issue, "web-3kq") == "WEB-3KQ"
    assert learnt.describe(issue) == "normalised: written in upper case"


def test_a_normalised_value_is_quiet_and_one_left_out_of_the_form_is_loud():
    pair = {("/nodeId", "/ids"): relations_of(node_ids(30))[("/nodeId", "/ids")]}
    assert loud(analysed({"nodeId": "7-8"}, {"ids": "7:8"}, pair)) == set()
    assert loud(analysed({"nodeId": "7:8"}, {"ids": "7:8"}, pair)) == set()
    # sent as it is, or written back the other way
    assert loud(analysed({"nodeId": "7-8"}, {"ids": "7-8"}, pair)) == {("value_changed", "/nodeId")}
    assert loud(analysed({"nodeId": "7:8"}, {"ids": "7-8"}, pair)) == {("enum_changed", "/nodeId")}


def test_one_value_sent_in_two_forms_is_no_normalisation():
    # a release that upper-cases every second status: `paid` sent as `paid` and as `PAID`
    rng = random.Random(9)
    calls = []
    for i in range(30):
        status = rng.choice(["paid", "open", "void"])
        calls.append(({"status": status}, {"status": status.upper() if i % 2 else status}))
    assert relations_of(calls) == {}


# --- a value sent in another JSON type -----------------------------------------------------------


def items(n, seed=3, sent=str):
    """An item id the model gives as a number, sent as its text in GraphQL-like variables."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        item = rng.randrange(10**9, 10**10)
        out.append(
            ({"itemId": item, "body": f"note {i}"}, {"itemId": sent(item), "body": f"note {i}"})
        )
    return out


TYPED = {("/itemId", "/itemId"): "typed number>string"}


def test_a_number_the_tool_always_sends_as_text_is_learnt_with_its_direction():
    assert relations_of(items(24)) == TYPED
    # text read as a number, and a flag written as text
    calls = [({"n": str(i)}, {"n": i}) for i in range(100, 124)]
    assert relations_of(calls) == {("/n", "/n"): "typed string>number"}
    assert learnt.typed_key(True, "true") == "typed boolean>string"
    assert learnt.typed_key(5, 5.5) is None and learnt.typed_key(None, "") is None


def test_a_number_sent_as_text_in_a_url_or_form_is_no_conversion_to_learn():
    # everything there is text: a number written as text is the wire's doing
    evidence: dict = {}
    for p in range(30, 54):
        merge(evidence, observe({"/page": p}, {"query:/page": str(p)}, dict(evidence)))
    pairs = [(p.arguments, p.request) for p in infer(evidence)]
    assert ("/page", "query:/page") in pairs
    assert learnt_relations(evidence, pairs) == {}


def test_a_type_change_only_the_newest_release_shows_is_never_learnt():
    releases = {"newest": "2", "seen": ["1", "2"]}
    calls = items(20, sent=lambda item: item) + items(20, seed=4)
    found = relations_of(calls, releases, newest=range(20, 40))
    assert "typed number>string" not in found.values()


def test_a_conversion_learnt_is_quiet_and_a_value_sent_unconverted_is_loud():
    ((arguments, request),) = items(1, seed=9)
    assert loud(analysed(arguments, request, TYPED)) == set()
    # the conversion reverted: the number sent as it is, where every earlier call sent its text
    unconverted = {**request, "itemId": arguments["itemId"]}
    assert loud(analysed(arguments, unconverted, TYPED)) == {("type_changed", "/itemId")}
    # the model gave the text already: nothing to convert
    given = {**arguments, "itemId": request["itemId"]}
    assert loud(analysed(given, request, TYPED)) == set()
    # another value, whatever its type
    other = {**request, "itemId": request["itemId"] + "1"}
    assert loud(analysed(arguments, other, TYPED)) != set()
    # without the history, one call decides a number turned text in JSON (issue 32 item 2)
    assert loud(analysed(arguments, request, {})) == {("type_changed", "/itemId")}


def test_a_json_text_the_tool_always_decodes_is_loud_sent_as_its_text():
    pair = {("/ids", "/ids"): "typed string>list"}
    assert loud(analysed({"ids": "[1, 2]"}, {"ids": [1, 2]}, pair)) == set()
    assert loud(analysed({"ids": "[1, 2]"}, {"ids": "[1, 2]"}, pair)) == {("type_changed", "/ids")}
    assert learnt.gives("typed string>list", "[1, 2]") == [1, 2]
    assert learnt.gives("typed string>list", "{}") is learnt.NOTHING
