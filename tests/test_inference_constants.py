"""A tool's constants, gone in its newest release, pure.

Request fields it always sent that no argument explains.

GitHub's REST layers send `X-GitHub-Api-Version: 2022-11-28` and `Accept:
application/vnd.github+json` on every call (octokit's defaults): fields of the layer, not of any
argument. A release that stops sending one is a change; a field sent only when an argument is given
is not."""

from webapp.analysis import end, external
from webapp.inference import leaves, observe
from webapp.inference.constants import (
    constant_texts,
    constants_changed,
    constants_gone,
    learnt_constants,
)
from webapp.inference.epochs import presence_of
from webapp.inference.evidence import merge
from webapp.inference.novel import MIN_EARLIER_CALLS, earlier_fields
from webapp.inference.segments import segment_texts, text_number

RELEASES = {"newest": "v2", "seen": ["v1", "v2"]}
HEADERS = {"x-github-api-version": "2022-11-28", "accept": "application/vnd.github+json"}


def list_issues(i: int, labels: bool = True, headers: dict | None = None) -> tuple:
    """GitHub's `GET /repos/{owner}/{repo}/issues`: `state`, and `labels` when given."""
    arguments = {"state": ["open", "closed"][i % 2], **({"labels": f"bug,p{i}"} if labels else {})}
    query = {"state": arguments["state"], **({"labels": arguments["labels"]} if labels else {})}
    return arguments, {"query:": query, "header:": HEADERS if headers is None else headers}


def history(calls, newest: bool = False) -> tuple[dict, dict]:
    """Count evidence and path presence over calls, as the pipeline does."""
    evidence: dict = {}
    presence: dict = {}
    for arguments, request in calls:
        a, r = leaves(arguments), {k.replace("/", "", 1): v for k, v in leaves(request).items()}
        merge(evidence, observe(a, r, evidence, presence=presence, newest=newest))
        merge(presence, presence_of(a, r, newest))
    return evidence, presence


def sent(call: tuple) -> tuple[dict, dict]:
    """A call's argument and request leaves, named as findings name them."""
    arguments, request = call
    return leaves(arguments), {k.replace("/", "", 1): v for k, v in leaves(request).items()}


def test_a_header_every_earlier_call_sent_is_a_constant_and_its_absence_is_dropped():
    evidence, presence = history([list_issues(i) for i in range(MIN_EARLIER_CALLS)])
    constants = dict(learnt_constants(presence, evidence, MIN_EARLIER_CALLS))
    assert constants["header:/x-github-api-version"] == frozenset()
    # the query fields travel with their arguments
    assert "/state" in constants["query:/state"]
    earlier = earlier_fields(presence, RELEASES, evidence)
    assert earlier.constants == learnt_constants(presence, evidence, MIN_EARLIER_CALLS)
    newer = list_issues(9, headers={"accept": HEADERS["accept"]})
    [f] = constants_gone(*sent(newer), earlier.constants, earlier.request)
    assert (f["kind"], f["severity"]) == ("dropped", "warning")
    assert f["left"] == end("request", "header:/x-github-api-version") and f["right"] is None
    assert f["message"] == (
        "header:/x-github-api-version: every call of an earlier release sent it, no argument "
        "explains it; this call none"
    )
    assert constants_gone(*sent(list_issues(9)), earlier.constants, earlier.request) == []


def test_a_constant_under_a_new_key_names_the_key_it_went_to():
    evidence, presence = history([list_issues(i) for i in range(MIN_EARLIER_CALLS)])
    earlier = earlier_fields(presence, RELEASES, evidence)
    renamed = list_issues(9, headers={**HEADERS, "x-github-api-version": None, "api-version": "1"})
    [f] = constants_gone(*sent(renamed), earlier.constants, earlier.request)
    assert f["message"].endswith("; this call sends header:/api-version instead")


def test_too_few_calls_or_a_field_some_earlier_calls_lacked_is_no_constant():
    evidence, presence = history([list_issues(i) for i in range(MIN_EARLIER_CALLS - 1)])
    assert learnt_constants(presence, evidence, MIN_EARLIER_CALLS) == ()
    calls = [list_issues(i) for i in range(MIN_EARLIER_CALLS)]
    calls += [list_issues(i, headers={"accept": HEADERS["accept"]}) for i in range(2)]
    evidence, presence = history(calls)
    constants = dict(learnt_constants(presence, evidence, MIN_EARLIER_CALLS))
    assert "header:/x-github-api-version" not in constants and "header:/accept" in constants


def test_a_field_sent_with_an_argument_every_earlier_call_gave_is_quiet_without_it():
    evidence, presence = history([list_issues(i) for i in range(MIN_EARLIER_CALLS)])
    earlier = earlier_fields(presence, RELEASES, evidence)
    # `labels` is optional: every earlier call happened to give it
    assert (
        constants_gone(*sent(list_issues(9, labels=False)), earlier.constants, earlier.request)
        == []
    )
    # given and not sent: the layer dropped it
    arguments, request = sent(list_issues(9))
    del request["query:/labels"]
    assert [
        f["left"]["path"]
        for f in constants_gone(arguments, request, earlier.constants, earlier.request)
    ] == ["query:/labels"]


def test_the_newest_release_calls_teach_no_constant():
    # counted as the newest release's: nothing established yet
    evidence, presence = history([list_issues(i) for i in range(20)], newest=True)
    assert learnt_constants(presence, evidence, MIN_EARLIER_CALLS) == ()


def test_counts_kept_before_calls_were_counted_teach_no_constant():
    evidence, presence = history([list_issues(i) for i in range(MIN_EARLIER_CALLS)])
    # a store that counted these fields before it counted calls: five calls of many
    presence[("request", "query:/state")] = {"calls": 40}
    assert learnt_constants(presence, evidence, MIN_EARLIER_CALLS) == ()


def named(call: tuple) -> tuple[dict, dict]:
    """A call's argument and request leaves, body ones kept as pointers (`/intent`)."""
    arguments, request = call
    return leaves(arguments), {external(k): v for k, v in leaves(request).items()}


def counted_with_texts(calls) -> tuple[dict, dict]:
    """Count evidence, presence and each field's text (segments.py), as the pipeline does."""
    evidence: dict = {}
    presence: dict = {}
    for call in calls:
        a, r = named(call)
        merge(evidence, observe(a, r, evidence, presence=presence, newest=False))
        merge(presence, presence_of(a, r, False))
        merge(presence, segment_texts(r, False))
    return evidence, presence


def create_order(i: int, intent: str = "CAPTURE") -> tuple:
    """PayPal's `POST /v2/checkout/orders`: the layer writes `intent` itself."""
    arguments = {"currencyCode": "USD", "amount": 10 + i}
    return arguments, {"intent": intent, "amount": {"currency_code": "USD", "value": str(10 + i)}}


def test_a_constant_every_earlier_call_sent_alike_sent_otherwise_is_value_changed():
    evidence, presence = counted_with_texts([create_order(i) for i in range(MIN_EARLIER_CALLS)])
    earlier = earlier_fields(presence, RELEASES, evidence)
    assert dict((p, n) for p, n, _ in earlier.texts)["/intent"] == text_number("CAPTURE")
    # the amount varies with its argument: no one text
    assert "/amount/value" not in {p for p, _, _ in earlier.texts}
    [f] = constants_changed(*named(create_order(9, "capture")), earlier.texts)
    assert (f["kind"], f["severity"], f["left"]) == ("value_changed", "warning", None)
    assert f["right"] == end("request", "/intent") and f["right_value"] == "capture"
    assert f["message"] == (
        "/intent: every call of an earlier release sent one and the same value, no argument "
        'explains it; this call sends "capture"'
    )
    assert constants_changed(*named(create_order(9)), earlier.texts) == []


def test_a_constant_holding_the_value_of_an_argument_of_the_call_is_left_alone():
    evidence, presence = counted_with_texts([create_order(i) for i in range(MIN_EARLIER_CALLS)])
    earlier = earlier_fields(presence, RELEASES, evidence)
    arguments, request = named(create_order(9, "AUTHORIZE"))
    arguments["/intent"] = "AUTHORIZE"
    assert constants_changed(arguments, request, earlier.texts) == []


def test_a_field_counted_in_fewer_calls_than_held_it_has_no_one_text():
    evidence, presence = counted_with_texts([create_order(i) for i in range(MIN_EARLIER_CALLS)])
    # a store that counted the field's calls before it counted its texts
    presence[("request", "/intent")]["calls"] += 3
    presence[("calls", "")]["calls"] += 3
    assert constant_texts(presence, learnt_constants(presence, evidence, 1)) == ()


def test_a_url_path_segment_named_by_its_index_is_no_list_item():
    segment = ({"id": 1}, {"path:": {"0": "v2", "1": "orders"}})
    evidence, presence = counted_with_texts([segment] * MIN_EARLIER_CALLS)
    constants = dict(learnt_constants(presence, evidence, MIN_EARLIER_CALLS))
    assert {"path:/0", "path:/1"} <= constants.keys()
