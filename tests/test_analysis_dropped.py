"""An argument no request field holds, one call at a time (issue 32, item 2).

Loud where the call or its contract shows it lost, info that says what would settle it where one
call cannot tell it from an argument the layer consumes; with history, loud where every earlier call
sent it."""

import pytest

from webapp.analysis import analyze_call
from webapp.inference.novel import earlier_fields, flag_new_fields

TASKS = {"filter": "today", "limit": 10}
TASKS_URL = "https://api.todoist.com/rest/v2/tasks?filter=today"


def call(arguments, url=None, body=None, method="GET", contract=None):
    http = {"method": method, "url": url, "headers": {}} if url else None
    return analyze_call(
        {
            "arguments": {"payload": arguments, "http": None},
            "request": {"payload": body, "http": http},
            "response": None,
        },
        contract,
    )


def dropped(result, path):
    [found] = [
        f for f in result["findings"] if f["kind"] == "dropped" and f["left"]["path"] == path
    ]
    return found


def test_an_optional_argument_left_out_is_info_that_says_what_would_settle_it():
    found = dropped(call(TASKS, TASKS_URL), "/limit")
    assert found["severity"] == "info"
    assert "cannot tell an argument the layer consumes from a dropped one" in found["message"]
    assert "would settle it" in found["message"]


def test_a_required_argument_left_out_is_an_error():
    schema = {"type": "object", "properties": {"limit": {"type": "integer"}}, "required": ["limit"]}
    found = dropped(call(TASKS, TASKS_URL, contract={"arguments_schema": schema}), "/limit")
    assert found["severity"] == "error" and "required by the arguments schema" in found["message"]


@pytest.mark.parametrize(
    "entry, said",
    [
        ({"request": "query:/limit"}, "the contract maps it to query:/limit"),
        ({"request": "query:/limit", "inferred": True}, "the tool's earlier calls send it to"),
    ],
)
def test_an_argument_the_mapping_names_is_loud_when_left_out(entry, said):
    contract = {"mapping": [{"arguments": "/limit", **entry}]}
    found = dropped(call(TASKS, TASKS_URL, contract=contract), "/limit")
    assert found["severity"] == "warning" and said in found["message"]


def test_an_argument_the_request_schema_names_in_any_case_style_is_loud_when_left_out():
    names = {"type": "object", "properties": {"page": {"properties": {"Limit": {}}}}}
    found = dropped(call(TASKS, TASKS_URL, contract={"request_schema": names}), "/limit")
    assert found["severity"] == "warning"
    assert "the request schema has a field of its name" in found["message"]


def test_an_argument_the_url_template_names_is_loud_when_left_out():
    contract = {
        "http": {"path": "/rest/v2/tasks", "parameters": [{"name": "limit", "in": "query"}]}
    }
    found = dropped(call(TASKS, TASKS_URL, contract=contract), "/limit")
    assert found["severity"] == "warning"


def test_an_argument_beside_a_field_of_its_type_no_argument_explains_is_loud():
    args = {"title": "x", "notes": "window seat", "level": 1}
    result = call(args, body={"title": "x", "detail": 2, "version": 2, "perHour": 5})
    found = dropped(result, "/level")
    assert (
        found["severity"] == "warning" and "/detail, which no argument explains" in found["message"]
    )
    # fields of another type the layer adds say nothing of a text
    assert dropped(result, "/notes")["severity"] == "info"


@pytest.mark.parametrize(
    "url",
    [
        # Google's `?key=`, a vendor's api key and token beside the route (their own names)
        "https://api.example.com/1/cards?key=3e2d47c58a1b9f0e7d3c2a41&token=ATTA9d2e61c07b4f3a85",
        "https://api.example.com/1/cards?api_key=3e2d47c58a1b9f0e7d3c2a41",
        "https://api.example.com/1/cards?access_token=[REDACTED]",
    ],
)
def test_a_secret_the_layer_adds_is_no_place_a_dropped_argument_went(url):
    args = {"boardId": "65a0c3e8f7b21d94c0e5a3f2", "name": "Renew SSL cert"}
    found = dropped(call(args, url, {"name": "Renew SSL cert"}, "POST"), "/boardId")
    assert found["severity"] == "info" and "would settle it" in found["message"]
    # a field of its type that is no secret still takes it: the call stays loud at the argument
    plain = url.split("?")[0] + "?key=3e2d47c58a1b9f0e&filter=open"
    result = call(args, plain, {"name": "Renew SSL cert"}, "POST")
    assert [
        (f["severity"], f["right"] and f["right"]["path"])
        for f in result["findings"]
        if f["left"] and f["left"]["path"] == "/boardId"
    ] == [("warning", "query:/filter")]


def test_a_write_whose_body_holds_no_value_lost_its_arguments():
    args = {"task_id": "120", "text": "Done, see the PR."}
    url = "https://app.asana.com/api/1.0/tasks/120/stories"
    found = dropped(call(args, url, {"data": {}}, "POST"), "/text")
    assert found["severity"] == "warning" and "holds no value at all" in found["message"]
    kept = call(args, url, {"data": {"is_pinned": True}}, "POST")
    assert dropped(kept, "/text")["severity"] == "info"


ISSUE_WRITE = {
    "type": "object",
    "properties": {
        "method": {"type": "string", "enum": ["create", "update"]},
        "owner": {"type": "string"},
        "title": {"type": "string"},
    },
    "required": ["method", "owner"],
}


def test_a_required_selector_whose_operation_the_http_method_carries_out_picks_the_route():
    args = {"method": "create", "owner": "acme", "title": "Crash"}
    url = "https://api.github.com/repos/acme/issues"
    contract = {"arguments_schema": ISSUE_WRITE}
    found = dropped(call(args, url, {"title": "Crash"}, "POST", contract), "/method")
    assert found["severity"] == "info" and "picks the route (POST)" in found["message"]
    # the method disagrees: a required argument gone
    wrong = dropped(call(args, url, None, "GET", contract), "/method")
    assert wrong["severity"] == "error"


def test_a_required_enum_of_other_words_is_no_selector():
    schema = {**ISSUE_WRITE, "properties": {"method": {"enum": ["card", "transfer"]}}}
    args = {"method": "card", "owner": "acme"}
    url = "https://api.example.com/acme/pay"
    found = dropped(call(args, url, {}, "POST", {"arguments_schema": schema}), "/method")
    assert found["severity"] == "error"


# --- with history ---------------------------------------------------------------------------------


def presence(held: int, dropped_in: int) -> dict:
    """Path counts of a tool whose earlier release held /limit in `held` calls and left it out in
    `dropped_in`; the newest release's calls are the `new:` part."""
    return {
        ("arguments", "/limit"): {
            "calls": held + 1,
            "dropped": dropped_in + 1,
            "new:calls": 1,
            "new:dropped": 1,
        },
        ("request", "/query:/filter"): {"calls": held + 1, "new:calls": 1},
    }


RELEASES = {"newest": "2", "seen": ["1", "2"]}


@pytest.mark.parametrize("held, dropped_in, loud", [(8, 0, True), (8, 8, False), (2, 0, False)])
def test_with_history_an_argument_every_earlier_call_sent_is_loud_when_left_out(
    held, dropped_in, loud
):
    findings = call(TASKS, TASKS_URL)["findings"]
    earlier = earlier_fields(presence(held, dropped_in), RELEASES)
    raised = flag_new_fields(findings, "2", "2", earlier)
    found = dropped({"findings": findings}, "/limit")
    assert (found in raised) is loud
    assert found["severity"] == ("warning" if loud else "info")
    if loud:
        assert "every call of an earlier release that held it sent it" in found["message"]


def test_a_selector_pairs_with_nothing_even_beside_a_lone_request_field_it_could_explain():
    # GitHub's issue_write sends `body: ""` when none is given: no argument `create` became it
    args = {"method": "create", "owner": "acme", "title": "Crash"}
    url = "https://api.github.com/repos/acme/issues"
    result = call(
        args, url, {"title": "Crash", "body": ""}, "POST", {"arguments_schema": ISSUE_WRITE}
    )
    assert [f for f in result["findings"] if f["severity"] != "info"] == []
    assert "picks the route (POST)" in dropped(result, "/method")["message"]


ORDER = {
    "type": "object",
    "properties": {
        "lines": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string"},
                    "count": {"type": "integer"},
                    "price": {"type": "number"},
                    "total": {"type": "number"},
                },
                "required": ["label", "price", "total"],
            },
        }
    },
}
ORDERS_URL = "https://api.example.com/v1/orders"


def order(line: dict, sent: dict):
    arguments = {"lines": [{"label": "Mug", **line}]}
    body = {"items": [{"title": "Mug", **sent}]}
    return call(arguments, ORDERS_URL, body, "POST", {"arguments_schema": ORDER})


def told(result, path) -> list[dict]:
    """The findings of an argument dropped at a path, one per distinct severity and message."""
    found = [f for f in result["findings"] if f["kind"] == "dropped" and f["left"]["path"] == path]
    return list({(f["severity"], f["message"]): f for f in found}.values())


def test_a_required_argument_whose_equal_travels_in_its_place_is_info_saying_what_settles_it():
    # a price and a total of one item are equal: the request holds the value once
    result = order({"price": 12.5, "total": 12.5}, {"amount": "12.5"})
    [lost] = told(result, "/lines/0/total")
    assert lost["severity"] == "info", result["findings"]
    assert "its value travels as lines/0/price" in lost["message"]
    assert "one call cannot tell it dropped from sent in another's place" in lost["message"]
    assert "earlier calls, would settle it" in lost["message"]


def test_a_required_total_of_two_siblings_that_travel_is_info_naming_them():
    result = order({"count": 3, "price": 25, "total": 75}, {"amount": "25", "quantity": 3})
    [found] = told(result, "/lines/0/total")
    assert found["severity"] == "info", result["findings"]
    assert "lines/0/count × lines/0/price, which travel" in found["message"], found["message"]


def test_a_required_text_equal_to_one_that_travels_is_still_an_error():
    # an owner and a repository called alike are two names, each with its place
    schema = {"type": "object", "required": ["owner", "repo"]}
    arguments = {"owner": "kubernetes", "repo": "kubernetes"}
    url = "https://api.github.com/repos/kubernetes/kubernetes-legacy/issues"
    result = call(arguments, url, contract={"arguments_schema": schema})
    [found] = told(result, "/repo")
    assert found["severity"] == "error", result["findings"]


@pytest.mark.parametrize("mapped", ["/lines/0/total", "/lines/*/total"])
def test_a_required_argument_its_contract_or_history_sends_somewhere_stays_an_error(mapped):
    # the tool's earlier calls settle what one call cannot: the total always travelled
    contract = {
        "arguments_schema": ORDER,
        "mapping": [{"arguments": mapped, "request": "/items/*/total", "inferred": True}],
    }
    arguments = {"lines": [{"label": "Mug", "price": 12.5, "total": 12.5}]}
    body = {"items": [{"title": "Mug", "amount": "12.5"}]}
    result = call(arguments, ORDERS_URL, body, "POST", contract)
    [found] = told(result, "/lines/0/total")
    assert found["severity"] == "error", result["findings"]


@pytest.mark.parametrize(
    "line, sent",
    [
        # a total no sibling makes, no request field holds
        ({"count": 3, "price": 25, "total": 80}, {"amount": "25", "quantity": 3}),
        # a value of 1 is too common to stand for a field
        ({"price": 1, "total": 1}, {"amount": 1}),
    ],
)
def test_a_required_argument_nothing_else_in_the_call_explains_is_still_an_error(line, sent):
    result = order(line, sent)
    [found] = told(result, "/lines/0/total")
    assert found["severity"] == "error", result["findings"]
    assert found["message"].endswith("(required by the arguments schema)")
