"""Where each argument always went, learnt from earlier releases, pure.

A key the tool always used replaced by another is a warning; one call alone stays info."""

from webapp.analysis import end, finding
from webapp.inference import leaves, observe
from webapp.inference.epochs import presence_of
from webapp.inference.evidence import merge
from webapp.inference.novel import became_values, earlier_fields
from webapp.inference.places import (
    MIN_PLACE_CALLS,
    converted_otherwise,
    flag_converted,
    flag_sent_elsewhere,
    learnt_places,
    sent_elsewhere,
)

RELEASES = {"newest": "v2", "seen": ["v1", "v2"]}


def history(calls) -> tuple[dict, dict]:
    """Count evidence and path presence over (arguments, request, release) calls.

    As the pipeline does, v2 being the newest release."""
    evidence: dict = {}
    presence: dict = {}
    for arguments, request, release in calls:
        a, r, newest = leaves(arguments), leaves(request), release == "v2"
        merge(evidence, observe(a, r, evidence, presence=presence, newest=newest))
        merge(presence, presence_of(a, r, newest))
    return evidence, presence


def search(i: int, key: str = "first", release: str = "v1") -> tuple:
    """A GraphQL search: `limit` sent as the variable `first`, `text` as `search`."""
    arguments = {"text": f"sync {i}", "limit": 10 + i}
    return arguments, {"variables": {"search": f"sync {i}", key: 10 + i}}, release


def test_every_earlier_call_sending_an_argument_to_one_field_teaches_its_place():
    evidence, presence = history([search(i) for i in range(MIN_PLACE_CALLS)])
    assert learnt_places(evidence, presence, RELEASES) == (
        ("/limit", "/variables/first", "equal"),
        ("/text", "/variables/search", "equal"),
    )
    # one release: no earlier release to learn from
    assert learnt_places(evidence, presence, {"newest": "v1", "seen": ["v1"]}) == ()


def test_too_few_earlier_calls_or_a_bad_release_teach_no_place():
    few, presence = history([search(i) for i in range(MIN_PLACE_CALLS - 1)])
    assert learnt_places(few, presence, RELEASES) == ()
    # however many calls the newest release sends its new key with, it teaches nothing
    calls = [search(i) for i in range(MIN_PLACE_CALLS)]
    calls += [search(i, "limit", "v2") for i in range(50)]
    evidence, presence = history(calls)
    assert ("/limit", "/variables/limit", "equal") not in learnt_places(
        evidence, presence, RELEASES
    )
    assert ("/limit", "/variables/first", "equal") in learnt_places(evidence, presence, RELEASES)


def test_an_argument_sent_to_its_field_in_only_some_earlier_calls_has_no_place():
    calls = [search(i) for i in range(MIN_PLACE_CALLS)]
    calls += [search(i, "count") for i in range(MIN_PLACE_CALLS)]
    evidence, presence = history(calls)
    assert [a for a, *_ in learnt_places(evidence, presence, RELEASES)] == ["/text"]


def test_a_value_sent_under_a_key_no_earlier_call_used_instead_of_its_place_is_found():
    arguments, request, _ = search(99, "limit", "v2")
    places = (("/limit", "/variables/first", "equal"),)
    carried = frozenset({"/variables/first", "/variables/search"})
    found = sent_elsewhere(leaves(arguments), leaves(request), places, carried)
    assert found == [("/limit", "/variables/first", "/variables/limit", 109)]
    # its place still there, or the new key carried by earlier calls: no rename
    kept = leaves(search(99, "first", "v2")[1])
    assert sent_elsewhere(leaves(arguments), kept, places, carried) == []
    assert (
        sent_elsewhere(leaves(arguments), leaves(request), places, carried | {"/variables/limit"})
        == []
    )


def test_a_value_two_new_keys_hold_or_an_empty_one_names_no_key():
    arguments = {"limit": 10}
    request = {"variables": {"limit": 10, "size": 10}}
    places = (("/limit", "/variables/first", "equal"),)
    assert sent_elsewhere(leaves(arguments), leaves(request), places, frozenset()) == []
    # nor does an empty value a new key happens to hold too
    empty = leaves({"limit": ""}), leaves({"variables": {"after": ""}})
    assert sent_elsewhere(*empty, places, frozenset()) == []


def test_the_argument_kept_under_its_own_name_gets_a_renamed_warning_at_its_place():
    findings: list = []
    moves = [("/limit", "/variables/first", "/variables/limit", 109)]
    added = flag_sent_elsewhere(findings, moves, {"/limit": 109})
    assert findings == added and len(added) == 1
    [f] = added
    assert (f["kind"], f["severity"]) == ("renamed", "warning")
    assert f["left"] == end("arguments", "/limit") and f["right"] == end(
        "request", "/variables/limit"
    )
    assert f["message"] == (
        "limit sent as variables/limit (value 109); every call of an earlier release sent it to "
        "variables/first"
    )


def test_a_field_moved_out_of_its_wrapper_is_moved_and_a_query_place_keeps_its_name():
    findings: list = []
    moves = [
        ("/fields/Name", "/fields/Name", "/Name", "Ann"),
        ("/limit", "query:/limit", "query:/count", 5),
    ]
    flag_sent_elsewhere(findings, moves, {"/fields/Name": "Ann", "/limit": 5})
    assert [(f["kind"], f["severity"]) for f in findings] == [
        ("moved", "warning"),
        ("renamed", "warning"),
    ]
    assert findings[1]["message"].endswith("sent it to query:/limit")


def test_a_quiet_rename_of_the_argument_is_raised_and_a_loud_one_left_as_it_is():
    quiet = finding(
        "renamed",
        "info",
        end("arguments", "/note"),
        end("request", "/message"),
        "x",
        "x",
        "note renamed to message",
    )
    loud = finding("dropped", "warning", end("arguments", "/limit"), None, 5, None, "limit dropped")
    findings = [quiet, loud]
    moves = [
        ("/note", "/note", "/message", "x"),
        ("/limit", "/variables/first", "/variables/limit", 5),
    ]
    assert flag_sent_elsewhere(findings, moves, {"/note": "x", "/limit": 5}) == [quiet]
    assert len(findings) == 2 and quiet["severity"] == "warning" and loud["severity"] == "warning"


def test_earlier_fields_carry_the_places_only_with_the_evidence():
    evidence, presence = history([search(i) for i in range(MIN_PLACE_CALLS)])
    assert earlier_fields(presence, RELEASES).places == ()
    assert earlier_fields(presence, RELEASES, evidence).places == learnt_places(
        evidence, presence, RELEASES
    )


def labelled(i: int, sent=None, release: str = "v1") -> tuple:
    """A card with its labels: a list the layer sends as it is, under `idLabels`."""
    labels = [f"64b7f2c91d3a8e05f2c4a6{i:02d}", f"64b7f2c91d3a8e05f2c4a7{i:02d}"]
    return {"name": f"card {i}", "labels": labels}, {"idLabels": sent or labels}, release


def test_a_list_every_earlier_call_sent_as_it_was_sent_joined_is_a_departure():
    evidence, presence = history([labelled(i) for i in range(MIN_PLACE_CALLS)])
    places = learnt_places(evidence, presence, RELEASES)
    assert ("/labels", "/idLabels", "equal") in places
    arguments, request, _ = labelled(9)
    joined = {"idLabels": ",".join(arguments["labels"])}
    [(a, place, found)] = converted_otherwise(leaves(arguments), leaves(joined), places)
    assert (a, place, found) == ("/labels", "/idLabels", "joined ,")
    # a one-item list sent as its item departs too; the list as it was does not
    one = {"name": "card", "labels": ["64b7f2c91d3a8e05f2c4a6d1"]}
    assert converted_otherwise(leaves(one), {"/idLabels": "64b7f2c91d3a8e05f2c4a6d1"}, places)
    assert converted_otherwise(leaves(arguments), leaves(request), places) == []


def test_a_conversion_earlier_calls_made_too_is_no_departure():
    calls = [labelled(i, ",".join(labelled(i)[0]["labels"])) for i in range(MIN_PLACE_CALLS)]
    evidence, presence = history(calls)
    places = learnt_places(evidence, presence, RELEASES)
    assert ("/labels", "/idLabels", "joined ,") in places
    arguments, request, _ = labelled(9, ",".join(labelled(9)[0]["labels"]))
    assert converted_otherwise(leaves(arguments), leaves(request), places) == []


def test_the_quiet_finding_of_a_departure_is_raised_and_a_loud_one_left_as_it_is():
    joined = finding(
        "type_changed",
        "info",
        end("arguments", "/labels"),
        end("request", "/idLabels"),
        [],
        "",
        "labels -> idLabels: a list sent joined",
    )
    loud = finding(
        "value_changed", "warning", end("arguments", "/due"), end("request", "/due"), 1, 2, "due"
    )
    departures = [("/labels", "/idLabels", "joined ,"), ("/due", "/due", "scaled x1000")]
    assert flag_converted([joined, loud], departures) == [joined]
    assert joined["severity"] == "warning"
    assert "every call of an earlier release sent it to idLabels as it was" in joined["message"]
    assert loud["message"] == "due"


def commented(i: int, visibility, release: str = "v1") -> tuple:
    """A comment whose `visibility` is a JSON text the layer sends decoded."""
    text = '{"type": "group", "value": "developers"}'
    return {"body": f"note {i}", "visibility": text}, {"body": f"note {i}", **visibility}, release


DECODED = {"visibility": {"type": "group", "value": "developers"}}


def test_a_value_sent_where_every_earlier_call_sent_an_object_is_a_type_change():
    _, presence = history([commented(i, DECODED) for i in range(MIN_PLACE_CALLS)])
    earlier = earlier_fields(presence, RELEASES)
    assert "/visibility" in earlier.objects and "/body" not in earlier.objects
    arguments, request, _ = commented(9, {"visibility": '{"type":"group","value":"developers"}'})
    [found] = became_values(leaves(arguments), leaves(request), earlier)
    assert (found["kind"], found["severity"]) == ("type_changed", "warning")
    assert found["right"] == {"snapshot": "request", "path": "/visibility"}
    # the object sent as before, or a text the argument held as it is, is no such change
    assert became_values(leaves(arguments), leaves(commented(9, DECODED)[1]), earlier) == []
    arguments, request, _ = commented(9, {"visibility": '{"type": "group", "value": "developers"}'})
    assert [f["left"] for f in became_values(leaves(arguments), leaves(request), earlier)] == [
        {"snapshot": "arguments", "path": "/visibility"}
    ]


def test_a_path_earlier_calls_sent_as_a_value_too_or_too_rarely_is_no_object():
    calls = [commented(i, DECODED) for i in range(MIN_PLACE_CALLS)]
    _, presence = history(calls + [commented(9, {"visibility": "public"})])
    assert "/visibility" not in earlier_fields(presence, RELEASES).objects
    # the object in fewer earlier calls than it takes, beside calls that sent none
    calls = [commented(i, DECODED) for i in range(MIN_PLACE_CALLS - 1)]
    _, few = history(calls + [({"body": "x"}, {"body": "x"}, "v1")] * 2)
    assert "/visibility" not in earlier_fields(few, RELEASES).objects
