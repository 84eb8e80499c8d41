"""The way back: the result the model got.

Checked against the response the server gave."""

import pytest

from webapp.analysis import analyze_call
from webapp.analysis.rules.result_checks import result_findings
from webapp.analysis.snapshots.result_forms import read_result
from webapp.contracts.checks import check_contract
from webapp.contracts.definitions import tools_from_definitions

RATE_LIMITED = {
    "error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}
}
ORDERS = {"orders": [{"id": "ord_1", "status": "unpaid", "total_cents": 1250}], "total": 1}


def mcp(text=None, structured=None, is_error=None):
    result = {"content": [] if text is None else [{"type": "text", "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    if is_error is not None:
        result["isError"] = is_error
    return result


def analyse(response, status, result, contract=None, meta=None):
    args = {"email": "a@b.co"}
    snapshots = {
        "arguments": {"payload": args},
        "request": {
            "payload": args,
            "http": {"method": "POST", "url": "https://api.example.com/orders/search"},
        },
        "response": {"payload": response, "http": {"status_code": status}},
    }
    if result is not None:
        snapshots["result"] = {"payload": result, "meta": meta}
    return analyze_call(snapshots, contract)


def loud(analysis):
    return [
        (f["kind"], (f["left"] or {}).get("path"), (f["right"] or {}).get("path"))
        for f in analysis["findings"]
        if f["severity"] != "info"
    ]


def test_a_call_without_a_result_is_analysed_exactly_as_before():
    assert analyse(ORDERS, 200, None) == analyse(ORDERS, 200, None)
    assert "result" not in analyse(ORDERS, 200, None)["validation"]
    assert loud(analyse(ORDERS, 200, None)) == []


@pytest.mark.parametrize(
    "result",
    [
        mcp("Error rate_limited: Too many requests. Retry in a few seconds.", is_error=True),
        {
            "type": "tool_result",
            "content": "rate_limited (retryable): too many requests",
            "is_error": True,
        },
        mcp(
            "x",
            {"error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}},
            True,
        ),
        {"error": {"code": "rate_limited", "message": "Too many requests", "retryable": True}},
    ],
)
def test_an_error_passed_on_with_its_code_and_retry_is_quiet(result):
    assert loud(analyse(RATE_LIMITED, 503, result)) == []


@pytest.mark.parametrize(
    "result,told",
    [
        ("No orders found.", "no error code or message in it"),
        (mcp("No orders found."), "isError false or absent"),
        (mcp("Error rate_limited, retry later", is_error=False), "isError false or absent"),
        (
            {"type": "tool_result", "content": "rate limited, retry later", "is_error": False},
            "is_error false or absent",
        ),
        ("I could not find anything for that.", "no error code or message in it"),
    ],
)
def test_an_error_swallowed_into_a_success_is_error_hidden_at_the_envelope(result, told):
    [finding] = analyse(RATE_LIMITED, 503, result)["findings"]
    assert (finding["kind"], finding["severity"]) == ("error_hidden", "error")
    assert finding["left"] == {"snapshot": "response", "path": "/error"}
    assert finding["right"] == {"snapshot": "result", "path": ""}
    assert "HTTP 503 rate_limited" in finding["message"] and told in finding["message"]


@pytest.mark.parametrize(
    "response, status, text",
    [
        # Slack's layer
        ({"ok": False, "error": "ratelimited"}, 429, '{"ok": false, "error": "ratelimited"}'),
        # Stripe
        (
            {"error": {"code": "resource_missing", "message": "No such price"}},
            400,
            "Failed to create price",
        ),
        # Asana's layer
        ({"errors": [{"message": "Not a recognized ID: 12"}]}, 400, '{"error": "Bad Request"}'),
        (
            {"object": "error", "status": 429, "code": "rate_limited", "message": "Slow down"},
            429,
            "rate_limited",
        ),
    ],
)
def test_a_flagless_result_that_says_the_call_failed_hides_nothing(response, status, text):
    for result in (mcp(text), {"type": "tool_result", "content": text}, text):
        assert loud(analyse(response, status, result)) == []
    assert [k for k, *_ in loud(analyse(response, status, mcp(text, is_error=False)))] == [
        "error_hidden"
    ]


def test_a_text_result_the_envelope_told_as_a_success_is_error_hidden_whatever_it_says():
    [finding] = analyse(
        RATE_LIMITED, 503, "rate_limited: try again later", meta={"is_error": False}
    )["findings"]
    assert finding["kind"] == "error_hidden" and "(is_error false or absent)" in finding["message"]


def test_a_text_result_that_leaves_out_whether_to_retry_drops_retryable():
    analysis = analyse(
        RATE_LIMITED, 503, mcp("Error rate_limited: Too many requests.", is_error=True)
    )
    assert loud(analysis) == [("dropped", "/error/retryable", None)]
    assert "retried" in analysis["findings"][0]["message"]


def test_a_text_result_that_says_do_not_retry_for_a_retryable_error_is_a_value_change():
    result = mcp("Error rate_limited: do not retry.", is_error=True)
    assert loud(analyse(RATE_LIMITED, 503, result)) == [("value_changed", "/error/retryable", "")]


def test_a_text_result_without_the_code_drops_it():
    assert loud(
        analyse(RATE_LIMITED, 503, mcp("Too many requests, retry later.", is_error=True))
    ) == [("dropped", "/error/code", None)]


def test_a_structured_error_result_carries_code_message_and_retryable_at_their_pairs():
    result = mcp("failed", {"error": {"code": "RATE_LIMITED", "message": "Slow down"}}, True)
    # RATE_LIMITED is rate_limited written another way
    assert sorted(loud(analyse(RATE_LIMITED, 503, result))) == [
        ("dropped", "/error/retryable", None),
        ("value_changed", "/error/message", "/structuredContent/error/message"),
    ]


def test_a_success_told_as_a_failure_is_error_invented():
    assert loud(analyse(ORDERS, 200, mcp("Something went wrong", is_error=True))) == [
        ("error_invented", "", "")
    ]
    assert loud(analyse(ORDERS, 200, "Something went wrong", meta={"is_error": True})) == [
        ("error_invented", "", "")
    ]


def test_a_correct_text_result_that_restates_the_response_is_quiet():
    assert loud(analyse(ORDERS, 200, "1 order: ord_1, unpaid, $12.50")) == []
    assert loud(analyse(ORDERS, 200, mcp("1 order found"))) == []


def test_a_structured_result_pairs_with_the_response_renames_quiet_and_a_changed_value_loud():
    renamed = {"items": [{"orderId": "ord_1", "state": "unpaid", "totalCents": 1250}], "count": 1}
    assert loud(analyse(ORDERS, 200, mcp("1 order", renamed))) == []
    paid = {"items": [{"orderId": "ord_1", "state": "paid", "totalCents": 1250}], "count": 1}
    assert loud(analyse(ORDERS, 200, mcp("1 order", paid))) == [
        ("value_changed", "/orders/0/status", "/structuredContent/items/0/state")
    ]


def test_a_structured_result_may_leave_response_fields_out_quietly():
    assert loud(analyse(ORDERS, 200, {"orders": [{"id": "ord_1", "status": "unpaid"}]})) == []


def test_a_result_past_the_budget_is_result_large_with_its_size_and_tokens():
    [finding] = analyse(ORDERS, 200, "x" * 9000)["findings"]
    assert finding["kind"] == "result_large" and finding["right"] == {
        "snapshot": "result",
        "path": "",
    }
    assert (finding["size_bytes"], finding["tokens"], finding["budget_bytes"]) == (9000, 2250, 8192)
    assert analyse(ORDERS, 200, "x" * 9000, {"result_budget_bytes": 16384})["findings"] == []
    # a large result within the budget
    assert analyse(ORDERS, 200, "x" * 8000)["findings"] == []


def test_a_structured_result_is_validated_against_the_tools_output_schema():
    schema = {"type": "object", "required": ["count"], "properties": {"count": {"type": "integer"}}}
    analysis = analyse(ORDERS, 200, mcp("1 order", {"count": "1"}), {"result_schema": schema})
    assert analysis["validation"]["result"]["valid"] is False
    assert analysis["validation"]["result"]["errors"][0]["path"] == "/structuredContent/count"
    assert analysis["worst"] == "error"
    assert analyse(ORDERS, 200, mcp("1 order", {"count": 1}), {"result_schema": schema})[
        "validation"
    ]["result"]["valid"]


def test_an_mcp_tools_list_output_schema_becomes_the_result_schema():
    output = {"type": "object", "properties": {"count": {"type": "integer"}}}
    tools = tools_from_definitions(
        {"tools": [{"name": "findOrders", "inputSchema": {}, "outputSchema": output}]}
    )
    assert tools["findOrders"]["result_schema"] == output


@pytest.mark.parametrize("budget,ok", [(4096, True), (0, False), ("8k", False), (True, False)])
def test_a_contract_budget_is_a_whole_number_of_bytes(budget, ok):
    assert (check_contract({"result_budget_bytes": budget}) == []) is ok


def test_an_mcp_result_with_the_sdks_own_keys_is_read_as_one():
    result = {
        "content": [{"type": "text", "text": '{"orders": []}'}],
        "isError": False,
        "resultType": "complete",
    }
    reading = read_result({"payload": result})
    assert (reading.is_error, reading.structured, reading.flagged) == (
        False,
        {"orders": []},
        "isError",
    )


def test_the_reading_of_each_result_form():
    anthropic = read_result(
        {"payload": {"type": "tool_result", "content": '{"a": 1}', "is_error": True}}
    )
    assert (anthropic.is_error, anthropic.structured, anthropic.flagged) == (
        True,
        {"a": 1},
        "is_error",
    )
    plain = read_result({"payload": "ok", "meta": None})
    assert (plain.is_error, plain.text, plain.size) == (None, "ok", 2)
    told = read_result({"payload": {"a": 1}, "meta": {"is_error": False}})
    assert (told.is_error, told.structured, told.prefix) == (False, {"a": 1}, "")


def test_a_structured_result_in_plain_units_and_other_case_reads_the_same_to_the_model():
    invoice = {"id": "inv_1", "status": "unpaid", "amount_cents": 58520, "currency": "usd"}
    restated = {"invoiceId": "inv_1", "status": "unpaid", "amount": 585.2, "currency": "USD"}
    assert loud(analyse(invoice, 200, mcp("invoice", restated))) == []
    # cents handed over as dollars
    wrong = {**restated, "amount": 58520}
    assert loud(analyse(invoice, 200, mcp("invoice", wrong))) == [
        ("value_changed", "/amount_cents", "/structuredContent/amount")
    ]


def test_a_type_changed_on_the_way_back_is_a_warning_at_its_pair():
    customer = {
        "id": 42,
        "vip": False,
        "orders": 3,
        "currency": "usd",
        "since": "2026-01-05T10:00:00Z",
    }
    retyped = {
        "customerId": 42,
        "vip": "false",
        "orders": "3",
        "currency": "usd",
        "since": "2026-01-05T10:00:00Z",
    }
    found = analyse(customer, 200, mcp("customer", retyped))["findings"]
    assert sorted(
        (f["kind"], f["severity"], f["left"]["path"]) for f in found if f["kind"] == "type_changed"
    ) == [
        ("type_changed", "warning", "/orders"),
        ("type_changed", "warning", "/vip"),
    ]
    # the same value written another way is not: a case, a date's format
    rewritten = {"customerId": 42, "vip": False, "currency": "USD", "since": "2026-01-05 10:00:00Z"}
    assert loud(analyse(customer, 200, mcp("customer", rewritten))) == []


def test_a_state_changed_in_a_one_item_list_is_found_at_its_renamed_pair():
    response = {
        "orders": [{"id": "ord_1", "status": "unpaid", "created_at": "2026-01-01"}],
        "total": 1,
    }
    result = {"items": [{"orderId": "ord_1", "state": "paid"}], "count": 1}
    assert loud(analyse(response, 200, mcp("1 order", result))) == [
        ("value_changed", "/orders/0/status", "/structuredContent/items/0/state")
    ]


@pytest.mark.parametrize(
    "text,retryable",
    [
        ("rate_limited: please wait and call again.", True),
        ("rate_limited. Back off and resend.", True),
        ("rate_limited: retrying will not help.", False),
        ("rate_limited: not a temporary error.", False),
        ("rate_limited; repeating the call will fail the same way.", False),
    ],
)
def test_the_ways_a_text_says_whether_to_retry(text, retryable):
    envelope = {"error": {**RATE_LIMITED["error"], "retryable": retryable}}
    assert loud(analyse(envelope, 503, mcp(text, is_error=True))) == []
    flipped = {"error": {**RATE_LIMITED["error"], "retryable": not retryable}}
    assert loud(analyse(flipped, 503, mcp(text, is_error=True))) == [
        ("value_changed", "/error/retryable", "")
    ]


def way_back(response, status, result) -> list[tuple[str, str]]:
    findings, _ = result_findings(response, status, read_result({"payload": result}), None)
    return [(f["kind"], f["message"]) for f in findings if f["severity"] != "info"]


@pytest.mark.parametrize(
    "response,status,code",
    [
        # Slack
        ({"ok": False, "error": "channel_not_found"}, 200, "channel_not_found"),
        ({"error": "channel_not_found"}, 400, "channel_not_found"),
        ({"errors": ["channel_not_found"]}, 400, "channel_not_found"),
        # OAuth
        (
            {"error": "invalid_grant", "error_description": "The code has expired"},
            400,
            "invalid_grant",
        ),
        (
            {"data": None, "errors": [{"message": "No such channel", "code": "channel_not_found"}]},
            200,
            "channel_not_found",
        ),
    ],
)
def test_an_error_given_as_text_is_the_errors_code_a_text_result_may_pass_on(
    response, status, code
):
    assert way_back(response, status, f"Could not send: {code}") == []
    [(kind, message)] = way_back(response, status, "Message sent.")
    assert kind == "error_hidden" and f"HTTP {status} {code}" in message


def test_an_error_sentence_is_the_errors_message_and_error_description_too():
    assert (
        way_back({"error": "Channel is archived"}, 400, "Could not send: Channel is archived") == []
    )
    oauth = {"error": "invalid_grant", "error_description": "The code has expired"}
    structured = mcp(
        "x", {"error": {"code": "invalid_grant", "message": "The code expired long ago"}}, True
    )
    [(kind, message)] = way_back(oauth, 400, structured)
    assert kind == "value_changed" and message.startswith("message:")


def test_what_real_layers_reshape_on_the_way_back_is_info_one_call_cannot_blame():
    issue = {
        "id": 2871309840,
        "url": "https://api.github.com/repos/a/b/issues/7",
        "html_url": "https://github.com/a/b/issues/7",
    }
    # GitHub's MCP server: the id as its digits, `url` taken from `html_url`
    handed = {"id": "2871309840", "url": "https://github.com/a/b/issues/7"}
    analysis = analyse(issue, 201, mcp(None, handed))
    assert loud(analysis) == []
    assert {f["kind"] for f in analysis["findings"]} >= {"type_changed", "value_changed"}
    # Stripe's layer: a list of ids for `{object, data}`
    customers = {"object": "list", "data": [{"id": "cus_1", "email": "a@b.co"}], "has_more": False}
    assert loud(analyse(customers, 200, mcp(None, [{"id": "cus_1"}]))) == []
    # a url no field of the response holds is still a change
    assert loud(
        analyse(
            issue, 201, mcp(None, {"id": "2871309840", "url": "https://github.com/a/b/issues/8"})
        )
    ) == [("value_changed", "/url", "/structuredContent/url")]


def way_back_ends(analysis):
    return sorted(
        (f["kind"], (f["left"] or {}).get("path"), (f["right"] or {}).get("path"))
        for f in analysis["findings"]
        if "result" in ((f["left"] or {}).get("snapshot"), (f["right"] or {}).get("snapshot"))
        or (f["left"] or {}).get("snapshot") == "response"
    )


@pytest.mark.parametrize(
    "result, at",
    [
        ({"orders": ORDERS["orders"], "ok": True}, "/ok"),
        (mcp(structured={"ok": True}), "/structuredContent/ok"),
    ],
)
def test_a_declared_response_to_result_pair_pairs_what_the_result_renamed(result, at):
    # the black-box pass's guess: a count handed back as a flag pairs by nothing in one call
    before = way_back_ends(analyse(ORDERS, 200, result))
    assert ("dropped", "/total", None) in before and ("added", None, at) in before
    contract = {"mapping": [{"response": "/total", "result": at}]}
    assert check_contract(contract) == []
    after = way_back_ends(analyse(ORDERS, 200, result, contract))
    assert ("dropped", "/total", None) not in after and ("added", None, at) not in after
    # the declared pair is checked as one: 1 handed back as true is the change it names
    assert ("type_changed", "/total", at) in after


def monday_call(arguments, item_id, message):
    """A call as monday.com's agent toolkit makes it.

    GraphQL ids sent as text, the result built by the layer from the model's own number and a
    sentence."""
    request = {
        "query": "mutation ($itemId: ID!, $body: String!) { create_update(...) { id item_id } }",
        "variables": {"itemId": str(arguments["itemId"]), "body": arguments["body"]},
    }
    response = {
        "data": {"create_update": {"id": "4194357685", "item_id": str(arguments["itemId"])}},
        "extensions": {"request_id": "e2e500ca-fafb-0fee-eb20-cec21297279d"},
    }
    structured = {"message": message, "update_id": "4194357685", "item_id": item_id}
    return analyze_call(
        {
            "arguments": {"payload": arguments},
            "request": {
                "payload": request,
                "http": {"method": "POST", "url": "https://api.monday.com/v2"},
            },
            "response": {"payload": response, "http": {"status_code": 200}},
            "result": {"payload": mcp("done", structured)},
        },
        None,
    )


def returned_findings(analysis):
    return {
        (f["kind"], f["severity"], f["right"]["path"])
        for f in analysis["findings"]
        if f["left"] and f["right"] and f["left"]["snapshot"] == "response"
    }


def test_a_result_that_hands_back_the_models_own_number_is_an_echo_not_a_change():
    arguments = {"itemId": 1997679876, "body": "Blocked on the API keys"}
    told = "Update 4194357685 created on item 1997679876"
    found = returned_findings(monday_call(arguments, 1997679876, told))
    assert ("type_changed", "info", "/structuredContent/item_id") in found
    # a number no argument holds, handed over retyped, stays the warning it was
    found = returned_findings(monday_call(arguments, 1997679877, told))
    assert ("value_changed", "warning", "/structuredContent/item_id") in found


@pytest.mark.parametrize(
    "message",
    [
        "Update 4194357685 created on item 1997679876",
        "Item successfully updated",
        # one token, but it holds a value paired elsewhere: the layer composed it
        "update:4194357685",
    ],
)
def test_a_composed_text_left_over_is_never_paired_by_elimination_with_an_id(message):
    arguments = {"itemId": 1997679876, "body": "Blocked on the API keys"}
    analysis = monday_call(arguments, 1997679876, message)
    assert not any(
        f["right"] and f["right"]["path"] == "/structuredContent/message" and f["left"]
        for f in analysis["findings"]
    )
    assert [
        f
        for f in analysis["findings"]
        if f["severity"] != "info" and f["left"] and f["left"]["snapshot"] == "response"
    ] == []
    # an id-like text left over beside the request id is still paired by elimination
    analysis = monday_call(arguments, 1997679876, "c716469d-50d9-1c58-dac2-9d82c7d35a28")
    assert ("value_changed", "warning", "/structuredContent/message") in returned_findings(analysis)


# --- a word written another way on the way back (issue 32, item 2) --------------------------------

CONVERSATIONS = {
    "conversations": [
        {"id": "2227", "state": "closed", "read": True},
        {"id": "2228", "state": "snoozed", "read": False},
    ]
}


def handed(*statuses) -> dict:
    return {
        "result": [
            {"ticket_id": c["id"], "status": s}
            for c, s in zip(CONVERSATIONS["conversations"], statuses)
        ]
    }


def test_a_state_handed_over_in_the_layers_own_word_under_another_name_is_info():
    # Intercom's states as a layer writes them: `closed` -> `resolved`, `snoozed` -> `pending`
    analysis = analyse(CONVERSATIONS, 200, mcp(None, handed("resolved", "pending")))
    words = [f for f in analysis["findings"] if f["kind"] == "value_changed"]
    assert [(f["left_value"], f["right_value"], f["severity"]) for f in words] == [
        ("closed", "resolved", "info"),
        ("snoozed", "pending", "info"),
    ]
    assert all("the tool's history or a contract would tell" in f["message"] for f in words)
    assert loud(analysis) == []


@pytest.mark.parametrize(
    "response, result",
    [
        # a word and its opposite: a state flipped
        (
            {"invoices": [{"id": "in_1", "state": "unpaid"}]},
            {"result": [{"invoice": "in_1", "status": "paid"}]},
        ),
        # the same name: the field is the same, and its word changed
        (
            {"tickets": [{"id": "t1", "status": "open"}]},
            {"result": [{"ticket_id": "t1", "status": "closed"}]},
        ),
        # no word: a number, an id
        (
            {"rooms": [{"id": "r2", "floor": 3}]},
            {"result": [{"room": "r9", "level": 3}]},
        ),
    ],
)
def test_a_change_on_the_way_back_one_call_can_decide_stays_loud(response, result):
    assert [kind for kind, _, _ in loud(analyse(response, 200, mcp(None, result)))] == [
        "value_changed"
    ]
