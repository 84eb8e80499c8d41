"""Error answers as services send them (issue 32, item 3).

With no error schema declared, each common shape at its usual status is a correct answer, a failure
the model must be told of, never a status_mismatch nor an error_shape; the {code, message,
retryable} envelope is checked only where a contract declares it."""

import pytest

from webapp.analysis import analyze_call

SHAPES = {
    # Slack: HTTP 200 and `ok` false
    "ok_false": (200, {"ok": False, "error": "channel_not_found"}),
    "github": (
        404,
        {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
    ),
    # Stripe, OpenAI, PagerDuty
    "error_object": (
        400,
        {"error": {"type": "invalid_request_error", "message": "No such customer: 'cus_1'"}},
    ),
    "problem_json": (
        403,
        {
            "type": "https://example.com/probs/out-of-credit",
            "title": "You do not have enough credit.",
            "status": 403,
            "detail": "Your current balance is 30, but that costs 50.",
        },
    ),
    "graphql_errors": (
        200,
        {"errors": [{"message": "Field 'x' doesn't exist on type 'Query'"}], "data": None},
    ),
    "jsonrpc": (
        200,
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Invalid params"}},
    ),
    "user_errors": (
        200,
        {
            "data": {
                "customerUpdate": {
                    "customer": None,
                    "userErrors": [{"field": ["email"], "message": "Email has already been taken"}],
                }
            }
        },
    ),
    "rate_limited": (429, "Retry later"),
    # an `{"error": {...}}` object whose text is its `reason` (OpenSearch's, Google's errors[] items)
    "error_reason": (
        404,
        {
            "error": {"type": "index_not_found_exception", "reason": "no such index [x]"},
            "status": 404,
        },
    ),
    # PayPal's details, Telegram's and many others' error text under `description`
    "error_description": (400, {"ok": False, "error_code": 400, "description": "Bad Request"}),
}


def analysed(body, status, result, contract=None):
    snap = lambda p, http=None: {"payload": p, "http": http}  # noqa: E731
    return analyze_call(
        {
            "arguments": None,
            "request": None,
            "response": snap(body, {"status_code": status}),
            "result": snap(result),
        },
        contract,
    )


def loud(analysis):
    return [(f["kind"], f["message"]) for f in analysis["findings"] if f["severity"] != "info"]


def told_as_failure(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def told_as_success() -> dict:
    return {"content": [{"type": "text", "text": "Done."}]}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_error_in_a_common_shape_told_the_model_as_a_failure_is_quiet(shape):
    status, body = SHAPES[shape]
    assert loud(analysed(body, status, told_as_failure("Failed: the service refused it"))) == []


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_an_error_in_a_common_shape_handed_back_as_a_success_is_hidden(shape):
    status, body = SHAPES[shape]
    assert [k for k, _ in loud(analysed(body, status, told_as_success()))] == ["error_hidden"]


def test_a_mutation_with_no_user_errors_is_a_success():
    body = {"data": {"customerUpdate": {"customer": {"id": "gid://1"}, "userErrors": []}}}
    invented = analysed(body, 200, told_as_failure("Failed to update customer"))
    assert [k for k, _ in loud(invented)] == ["error_invented"]
    assert loud(analysed(body, 200, told_as_success())) == []


def test_the_thrown_error_an_mcp_client_reads_is_a_failure_told_the_model():
    thrown = {
        "jsonrpc": "2.0",
        "id": 7,
        "error": {"code": -32603, "message": "API error: Not Found"},
    }
    assert loud(analysed({"message": "404 Project Not Found"}, 404, thrown)) == []
    assert [k for k, _ in loud(analysed({"id": 5}, 201, thrown))] == ["error_invented"]


ENVELOPE = {
    "type": "object",
    "required": ["code", "message", "retryable"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
    },
}


def test_the_envelope_is_checked_only_where_a_contract_declares_it():
    status, body = SHAPES["error_object"]
    result = told_as_failure("Failed")
    assert loud(analysed(body, status, result)) == []
    declared = loud(analysed(body, status, result, {"error_schema": ENVELOPE}))
    assert declared and {k for k, _ in declared} == {"error_shape"}


def test_the_error_text_names_are_the_analysis_one_shared_list():
    from webapp.analysis.rules.error_shapes import _TEXTS
    from webapp.analysis.values.names import ERROR_FIELD_NAMES, ERROR_TEXT_NAMES

    assert set(_TEXTS) == ERROR_TEXT_NAMES and ERROR_TEXT_NAMES <= ERROR_FIELD_NAMES
    assert {"reason", "description"} <= ERROR_TEXT_NAMES


def told_structured(message: str) -> dict:
    return {
        "structuredContent": {"message": message, "status": 401},
        "content": [{"type": "text", "text": f"Error: {message}"}],
        "isError": True,
    }


GRAPHQL_UNAUTHENTICATED = {"errors": [{"message": "Not Authenticated"}], "data": None}


def test_a_structured_message_holding_the_servers_in_the_layers_words_is_quiet():
    worded = told_structured("Failed to change column values: Not Authenticated (details: {})")
    assert loud(analysed(GRAPHQL_UNAUTHENTICATED, 401, worded)) == []


def test_a_structured_message_that_lost_the_servers_words_is_loud():
    lost = told_structured("Failed to change column values")
    assert [k for k, _ in loud(analysed(GRAPHQL_UNAUTHENTICATED, 401, lost))] == ["value_changed"]
    # the server's words glued into another word are not said
    glued = told_structured("Failed: NotAuthenticatedYet")
    assert [k for k, _ in loud(analysed(GRAPHQL_UNAUTHENTICATED, 401, glued))] == ["value_changed"]
