"""Findings of analyze_call.

One test per kind and per severity rule, on realistic tools."""

import copy

import pytest
from helpers import nested

from webapp.analysis import DEFAULT_ERROR_SCHEMA, FINDING_KINDS, analyze_call


def call(arguments=None, request=None, response=None, status=None, contract=None):
    """Analyze a call built from bare payloads; None means the snapshot has not arrived."""

    def snap(payload, code=None):
        if payload is None:
            return None
        return {
            "payload": payload,
            "logged_as_string": False,
            "http": {
                "method": "POST",
                "url": "https://api.example.com/x",
                "status_code": code,
                "headers": {},
            },
        }

    return analyze_call(
        {
            "arguments": snap(arguments),
            "request": snap(request),
            "response": snap(response, status),
        },
        contract,
    )


def only(result, kind):
    found = [f for f in result["findings"] if f["kind"] == kind]
    assert len(found) == 1, result["findings"]
    return found[0]


def loud(result):
    return [f for f in result["findings"] if f["severity"] in ("error", "warning")]


ORDER_ARGS = {
    "customer_email": "ann@example.com",
    "totalCents": 1999,
    "currency": "EUR",
    "limit": 5,
    "status": "paid",
    "items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}],
}
ORDER_CONTRACT = {
    "name": "createOrder",
    "arguments_schema": {
        "type": "object",
        "required": ["customer_email", "totalCents"],
        "properties": {
            "customer_email": {"type": "string", "format": "email"},
            "totalCents": {"type": "integer"},
            "currency": {"type": "string"},
            "limit": {"type": "integer"},
            "status": {"enum": ["paid", "open"]},
            "items": {"type": "array"},
        },
    },
    "request_schema": {
        "type": "object",
        "properties": {
            "customer_email": {"type": "string"},
            "amount": {"type": "integer"},
            "currency": {"type": "string"},
            "limit": {"type": "integer"},
            "status": {"type": "string"},
            "items": {"type": "array"},
            "api_version": {"const": "2024-06"},
        },
    },
    "response_schema": {
        "type": "object",
        "required": ["id"],
        "properties": {"id": {"type": "string"}},
    },
    "error_schema": None,
    "mapping": [{"arguments": "/totalCents", "request": "/amount"}],
}


def order_request(**changes):
    request = copy.deepcopy(ORDER_ARGS)
    request["amount"] = request.pop("totalCents")
    request.update(changes)
    return request


def test_the_closed_list_of_kinds_has_eighteen_described_entries():
    assert [k for k, _ in FINDING_KINDS][:3] == ["renamed", "case_changed", "moved"]
    # the way back
    assert [k for k, _ in FINDING_KINDS][14:17] == [
        "error_hidden",
        "error_invented",
        "result_large",
    ]
    # from the tool's observed schemas
    assert [k for k, _ in FINDING_KINDS][17:] == ["drift"]
    assert len(FINDING_KINDS) == 18 and all(desc for _, desc in FINDING_KINDS)


# --- clean calls stay quiet -------------------------------------------------------------


def test_a_declared_rename_with_equal_values_gives_no_finding_at_all():
    result = call(ORDER_ARGS, order_request(), {"id": "ord_1"}, 201, ORDER_CONTRACT)
    assert result["findings"] == []
    assert result["worst"] is None and result["summary"]["error"] == 0


def test_a_snake_case_encoder_converting_every_key_gives_one_info_and_no_warning():
    args = {
        "noteTitle": "Groceries",
        "folderId": "f_9",
        "pinnedAt": "2026-08-20T09:00:00Z",
        "reminder": {"remindAt": "2026-08-21T08:00:00Z", "repeatEvery": "week"},
    }
    request = {
        "note_title": "Groceries",
        "folder_id": "f_9",
        "pinned_at": "2026-08-20T09:00:00Z",
        "reminder": {"remind_at": "2026-08-21T08:00:00Z", "repeat_every": "week"},
    }
    result = call(args, request)
    assert loud(result) == []
    assert [f["message"] for f in result["findings"]] == [
        "5 keys converted from camelCase to snake_case"
    ]


def test_a_default_filled_in_by_code_and_declared_by_the_request_schema_is_info():
    result = call(ORDER_ARGS, order_request(api_version="2024-06"), None, None, ORDER_CONTRACT)
    added = only(result, "added")
    assert added["severity"] == "info" and added["right"] == {
        "snapshot": "request",
        "path": "/api_version",
    }
    assert loud(result) == []


def test_a_proper_error_body_on_a_429_is_clean():
    body = {"code": "rate_limited", "message": "Too many requests", "retryable": True}
    result = call(
        ORDER_ARGS,
        order_request(),
        body,
        429,
        {**ORDER_CONTRACT, "error_schema": DEFAULT_ERROR_SCHEMA},
    )
    assert result["findings"] == []
    assert result["validation"]["response"] == {
        "schema": "default_error_schema",
        "valid": True,
        "errors": [],
    }


def test_redacted_values_compare_equal_to_anything():
    args = {"to": "bob@example.com", "api_key": "[REDACTED]", "auth": {"token": "[REDACTED]"}}
    request = {"to": "bob@example.com", "api_key": "sk-live-123", "auth": {"token": "[REDACTED]"}}
    assert call(args, request)["findings"] == []


def ends(result):
    return {
        (f["kind"], f["left"] and f["left"]["path"], f["right"] and f["right"]["path"])
        for f in result["findings"]
    }


@pytest.mark.parametrize(
    "arguments, request_body, expected",
    [
        # the black-box pass's call: the marker was paired with page's 2 as an equal value
        (
            {"token": "[REDACTED]", "query": "shoes"},
            {"q": "shoes", "page": 2},
            {("added", None, "/page"), ("dropped", "/token", None), ("renamed", "/query", "/q")},
        ),
        # the only string left on each side: the marker is no value of a type
        (
            {"jwt": "[REDACTED]", "x": 1},
            {"query": "x=1"},
            {("added", None, "/query"), ("dropped", "/jwt", None), ("dropped", "/x", None)},
        ),
        (
            {"jwt": "[REDACTED]", "q": "rome"},
            {"q": "rome", "city": "Paris"},
            {("added", None, "/city"), ("dropped", "/jwt", None)},
        ),
    ],
)
def test_a_redacted_argument_is_dropped_not_paired_with_a_field_it_does_not_hide(
    arguments, request_body, expected
):
    found = call(arguments, request_body)
    assert ends(found) == expected
    # redaction makes no finding louder: the drop is the one call's usual info
    assert {f["severity"] for f in found["findings"]} == {"info"}


def test_a_redacted_argument_still_pairs_with_a_redacted_field_or_one_of_its_name():
    args = {"api_key": "[REDACTED]", "q": "shoes"}
    assert ends(call(args, {"key": "[REDACTED]", "q": "shoes"})) == {
        ("renamed", "/api_key", "/key")
    }
    assert call(args, {"api_key": "sk-live-123", "q": "shoes"})["findings"] == []


# --- one test per kind ------------------------------------------------------------------


def test_an_undeclared_rename_with_the_same_value_is_renamed_info():
    args = {"invoiceNumber": "INV-2026-0042", "customer": "ACME GmbH"}
    request = {"number": "INV-2026-0042", "customer": "ACME GmbH"}
    found = only(call(args, request), "renamed")
    assert found["severity"] == "info"
    assert (found["left"]["path"], found["right"]["path"]) == ("/invoiceNumber", "/number")
    assert found["message"] == 'invoiceNumber renamed to number (value "INV-2026-0042")'


def test_a_rename_that_breaks_the_request_schema_is_an_error():
    contract = {
        "request_schema": {
            "type": "object",
            "properties": {
                "to": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["email"],
                        "additionalProperties": False,
                        "properties": {"email": {"type": "string"}, "name": {"type": "string"}},
                    },
                }
            },
        }
    }
    args = {"to": [{"email": "j.okafor@example.org", "name": "J. Okafor"}], "subject": "Hi"}
    request = {"to": [{"recipient": "j.okafor@example.org", "name": "J. Okafor"}], "subject": "Hi"}
    found = only(call(args, request, contract=contract), "renamed")
    assert found["severity"] == "error" and found["right"]["path"] == "/to/0/recipient"


def test_a_key_in_another_case_style_is_case_changed_info():
    found = only(
        call({"noteTitle": "Ideas", "body": "x"}, {"note_title": "Ideas", "body": "x"}),
        "case_changed",
    )
    assert found["severity"] == "info" and found["right"]["path"] == "/note_title"


def test_nested_date_range_fields_moved_into_a_filter_object_are_moved_info():
    args = {"query": "contract renewal", "from": "2026-01-01", "to": "2026-03-31"}
    request = {
        "query": "contract renewal",
        "filters": {"date_range": {"from": "2026-01-01", "to": "2026-03-31"}},
    }
    result = call(args, request)
    moved = [f for f in result["findings"] if f["kind"] == "moved"]
    assert [(f["left"]["path"], f["right"]["path"]) for f in moved] == [
        ("/from", "/filters/date_range/from"),
        ("/to", "/filters/date_range/to"),
    ]
    assert loud(result) == []


def test_arguments_nested_under_a_wrapper_key_give_one_moved_info():
    args = {"title": "Buy milk", "due": "2026-08-20", "priority": 2}
    result = call(args, {"data": dict(args), "api_version": "1"})
    moved = only(result, "moved")
    assert moved["message"] == "arguments nested under data" and moved["right"]["path"] == "/data"
    assert loud(result) == []


def test_an_object_flattened_into_prefixed_keys_is_renamed_field_by_field():
    args = {"shipping": {"street": "1 Main St", "city": "Paris", "zip": "75001"}, "qty": 2}
    request = {
        "shipping_street": "1 Main St",
        "shipping_city": "Paris",
        "shipping_zip": "75001",
        "qty": 2,
    }
    result = call(args, request)
    assert sorted((f["left"]["path"], f["right"]["path"]) for f in result["findings"]) == [
        ("/shipping/city", "/shipping_city"),
        ("/shipping/street", "/shipping_street"),
        ("/shipping/zip", "/shipping_zip"),
    ]
    assert loud(result) == []


def test_common_values_pair_under_a_similar_key_in_the_same_object():
    result = call(
        {"query": "x", "page": 1, "active": True},
        {"query": "x", "pageNumber": 1, "is_active": True},
    )
    assert sorted((f["kind"], f["right"]["path"]) for f in result["findings"]) == [
        ("renamed", "/is_active"),
        ("renamed", "/pageNumber"),
    ]


def test_an_equal_boolean_under_an_unrelated_key_pairs_by_value_and_stays_quiet():
    # Issue 11: true, false, 0 and 1 are candidates too; a rename to another word is the common
    # case.
    found = only(call({"query": "x", "archived": False}, {"query": "x", "debug": False}), "renamed")
    assert found["severity"] == "info" and found["reason"] == "value"


def test_the_only_boolean_left_on_each_side_pairs_by_elimination():
    found = only(
        call({"query": "x", "archived": False}, {"query": "x", "debug": True}), "value_changed"
    )
    assert (found["left"]["path"], found["right"]["path"], found["reason"]) == (
        "/archived",
        "/debug",
        "elimination",
    )


def test_a_common_value_with_no_counterpart_of_its_type_stays_dropped():
    result = call({"query": "x", "archived": False}, {"query": "x", "page_size": 20})
    assert sorted(f["kind"] for f in result["findings"]) == ["added", "dropped"]


def test_an_integer_sent_as_a_string_is_type_changed_warning_without_request_schema():
    found = only(call({"query": "q", "limit": 5}, {"query": "q", "limit": "5"}), "type_changed")
    assert found["severity"] == "warning"
    assert found["message"] == 'limit: integer 5 became string "5"'
    assert (found["left_value"], found["right_value"]) == (5, "5")


def test_a_type_change_that_breaks_the_request_schema_is_an_error():
    result = call(ORDER_ARGS, order_request(limit="5"), None, None, ORDER_CONTRACT)
    assert only(result, "type_changed")["severity"] == "error"
    assert result["validation"]["request"]["errors"][0]["path"] == "/limit"
    assert result["worst"] == "error"


def test_a_boolean_sent_as_a_string_is_type_changed():
    found = only(
        call({"title": "Call Bob", "done": True}, {"title": "Call Bob", "done": "true"}),
        "type_changed",
    )
    assert found["message"] == 'done: boolean true became string "true"'


def test_a_list_of_recipients_joined_into_a_string_is_type_changed():
    args = {"to": ["ann@example.com", "bob@example.com"], "subject": "Q3"}
    request = {"to": "ann@example.com,bob@example.com", "subject": "Q3"}
    assert only(call(args, request), "type_changed")["left"]["path"] == "/to"


def test_a_date_time_turned_into_epoch_seconds_under_a_new_key_is_type_changed():
    args = {"title": "Pay rent", "due": "2026-08-20T09:00:00Z"}
    request = {"title": "Pay rent", "due_ts": 1787216400}
    found = only(call(args, request), "type_changed")
    assert (found["left"]["path"], found["right"]["path"]) == ("/due", "/due_ts")


def test_an_enum_in_another_case_is_enum_changed():
    found = only(
        call(ORDER_ARGS, order_request(status="PAID"), None, None, ORDER_CONTRACT), "enum_changed"
    )
    assert found["message"] == 'status: "paid" became "PAID"' and found["severity"] == "warning"


def test_an_enum_with_other_separators_is_enum_changed():
    found = only(
        call({"id": "t1", "state": "in_progress"}, {"id": "t1", "state": "in-progress"}),
        "enum_changed",
    )
    assert found["left"]["path"] == "/state"


def test_a_date_time_written_another_way_is_format_changed():
    args = {"title": "Standup", "due": "2026-08-20T09:00:00Z"}
    request = {"title": "Standup", "due": "20/08/2026 09:00"}
    found = only(call(args, request), "format_changed")
    assert "same date-time" in found["message"]


def test_cents_sent_as_units_under_a_declared_mapping_is_scaled():
    found = only(
        call(ORDER_ARGS, order_request(amount=19.99), None, None, ORDER_CONTRACT), "scaled"
    )
    assert (found["left"]["path"], found["right"]["path"]) == ("/totalCents", "/amount")
    assert found["message"] == "totalCents -> amount: 1999 became 19.99 (divided by 100)"


def test_a_rounded_coordinate_in_a_nested_search_filter_is_value_changed():
    args = {"query": "cafe", "near": {"lat": 48.8566, "lon": 2.3522, "radius_km": 2}}
    request = {"query": "cafe", "near": {"lat": 48.8566, "lon": 2.35, "radius_km": 2}}
    found = only(call(args, request), "value_changed")
    assert found["left"]["path"] == "/near/lon" and found["right"]["path"] == "/near/lon"


def test_array_items_pair_by_their_id_key_not_by_position():
    args = {"items": [{"sku": "A-1", "qty": 2}, {"sku": "B-2", "qty": 1}]}
    request = {"items": [{"sku": "B-2", "qty": 1}, {"sku": "A-1", "qty": 3}]}
    found = only(call(args, request), "value_changed")
    assert (found["left"]["path"], found["right"]["path"]) == ("/items/0/qty", "/items/1/qty")


def test_attachments_the_request_schema_names_that_never_reach_the_request_are_dropped_once():
    args = {
        "to": ["ann@example.com"],
        "subject": "Invoice",
        "attachments": [{"filename": "inv.pdf", "content_id": "c1"}],
    }
    names = {"type": "object", "properties": {"Attachments": {"type": "array"}}}
    request = {"to": ["ann@example.com"], "subject": "Invoice"}
    found = only(call(args, request, contract={"request_schema": names}), "dropped")
    assert found["severity"] == "warning" and found["left"]["path"] == "/attachments"
    assert found["message"] == (
        "attachments dropped: not in the request (the request schema has a field of its name)"
    )
    alone = only(call(args, request), "dropped")
    assert alone["severity"] == "info" and alone["left"]["path"] == "/attachments"


def test_dropping_an_argument_the_schema_requires_is_an_error():
    request = order_request()
    del request["customer_email"]
    found = only(call(ORDER_ARGS, request, None, None, ORDER_CONTRACT), "dropped")
    assert found["severity"] == "error" and found["left"]["path"] == "/customer_email"


def test_dropping_a_null_argument_is_only_info():
    found = only(call({"title": "Ideas", "folder": None}, {"title": "Ideas"}), "dropped")
    assert found["severity"] == "info"


def test_an_added_field_the_request_schema_does_not_declare_is_a_warning():
    found = only(
        call(ORDER_ARGS, order_request(debug_user_id="u_42"), None, None, ORDER_CONTRACT), "added"
    )
    assert found["severity"] == "warning" and found["right"]["path"] == "/debug_user_id"


def test_an_added_field_without_request_schema_is_info():
    assert (
        only(call({"title": "x"}, {"title": "x", "source": "agent"}), "added")["severity"] == "info"
    )


def test_a_response_echoing_a_request_field_with_another_value_is_echo_mismatch():
    request = {"title": "Write report", "priority": 3}
    response = {"task": {"id": "t_1", "title": "Write report", "priority": 1}}
    found = only(call(request, request, response, 201), "echo_mismatch")
    assert (found["left"], found["right"]) == (
        {"snapshot": "request", "path": "/priority"},
        {"snapshot": "response", "path": "/task/priority"},
    )


def test_response_fields_the_request_did_not_send_are_not_reported():
    request = {"title": "Write report"}
    response = {"id": "t_1", "title": "Write report", "created_at": "2026-08-20T09:00:00Z"}
    assert call(request, request, response, 201)["findings"] == []


# a contract that declares the default envelope
ENVELOPE = {"error_schema": DEFAULT_ERROR_SCHEMA}


def test_an_error_body_without_retryable_is_error_shape_where_the_envelope_is_declared():
    body = {"code": "rate_limited", "message": "Too many requests"}
    found = only(call(None, None, body, 429, ENVELOPE), "error_shape")
    assert found["severity"] == "error" and found["right"]["path"] == "/retryable"
    assert found["message"] == "error body at /retryable: 'retryable' is a required property"


def test_a_wrapped_error_envelope_is_checked_inside_its_error_key():
    body = {"error": {"code": "not_found", "message": "No such invoice"}}
    found = only(call(None, None, body, 404, ENVELOPE), "error_shape")
    assert found["right"]["path"] == "/error/retryable"


@pytest.mark.parametrize(
    "body, status",
    [
        ({"code": "rate_limited", "message": "Too many requests"}, 429),
        # GitHub
        ({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, 404),
        # Slack: errors come with HTTP 200
        ({"ok": False, "error": "channel_not_found"}, 200),
        # Stripe
        ({"error": {"type": "invalid_request_error", "message": "No such customer"}}, 404),
        # RFC 9457
        (
            {"type": "about:blank", "title": "Not Found", "status": 404, "detail": "No such order"},
            404,
        ),
        # GraphQL
        ({"errors": [{"message": "Throttled", "extensions": {"code": "THROTTLED"}}]}, 200),
        # Asana
        (
            {
                "errors": [
                    {"message": "Not a recognized ID", "help": "https://developers.asana.com"}
                ]
            },
            400,
        ),
        # Notion
        ({"object": "error", "status": 429, "code": "rate_limited", "message": "Slow down"}, 429),
    ],
)
def test_error_answers_as_services_send_them_are_quiet_where_no_envelope_is_declared(body, status):
    assert loud(call(None, None, body, status)) == []


@pytest.mark.parametrize(
    "body, status, path",
    [
        ({"documentation_url": "https://docs.github.com/rest", "status": "404"}, 404, "/message"),
        ({"ok": False}, 429, "/error"),
        (
            {"errors": [{"help": "https://developers.asana.com/docs/errors"}]},
            400,
            "/errors/0/message",
        ),
        ({"object": "error", "status": 400, "message": "body failed validation"}, 400, "/code"),
        ({"error": {"type": "invalid_request_error", "param": "product"}}, 400, "/error/message"),
    ],
)
def test_an_error_in_a_common_shape_that_lost_its_text_or_code_is_error_shape(body, status, path):
    found = only(call(None, None, body, status), "error_shape")
    assert (found["severity"], found["right"]["path"]) == ("warning", path)


def test_a_2xx_with_an_error_body_is_status_mismatch():
    body = {"error": {"code": "invoice_locked", "message": "Invoice is locked", "retryable": False}}
    found = only(call(None, {"id": "inv_1"}, body, 200), "status_mismatch")
    assert found["severity"] == "error" and found["message"] == "HTTP 200 with an error body"


def test_a_5xx_with_a_success_body_is_status_mismatch_not_error_shape():
    result = call(ORDER_ARGS, order_request(), {"id": "ord_1"}, 500, ORDER_CONTRACT)
    assert only(result, "status_mismatch")["message"] == "HTTP 500 with a success body"
    assert not [f for f in result["findings"] if f["kind"] == "error_shape"]


@pytest.mark.parametrize(
    "text, line, column",
    [
        ('{"id": "ord_1",}', 1, 16),
        ("{'id': 'ord_1'}", 1, 2),
        ('{\n  "items": [1, 2', 2, 17),
    ],
)
def test_a_string_snapshot_holding_broken_json_is_invalid_json_with_line_and_column(
    text, line, column
):
    result = call(None, {"id": "ord_1"}, text, 200)
    found = only(result, "invalid_json")
    assert (found["line"], found["column"]) == (line, column)
    assert f"line {line} column {column}" in found["message"]


def test_a_plain_string_payload_is_not_invalid_json():
    assert call("just text", "just text")["findings"] == []


def test_findings_are_sorted_errors_first_then_warnings_then_info():
    result = call(
        ORDER_ARGS,
        order_request(limit="5", status="PAID", api_version="2024-06", note_x=1),
        None,
        None,
        ORDER_CONTRACT,
    )
    ranks = [("error", "warning", "info").index(f["severity"]) for f in result["findings"]]
    assert ranks == sorted(ranks) and ranks[0] == 0
    assert result["summary"] == {"error": 1, "warning": 2, "info": 1, "validation_errors": 1}


def test_a_document_nested_too_deeply_is_reported_incomplete_instead_of_crashing():
    result = call(nested(1), nested("1"))
    assert result["incomplete"] == "nested too deeply to compare" and result["findings"] == []


def test_integers_beyond_64_bits_are_compared_like_any_other():
    found = only(call({"ids": [2**70, 7, 8]}, {"ids": [2**70, 8]}), "value_changed")
    assert found["left"]["path"] == "/ids" and found["message"] == "ids: 1 of 3 items removed ([7])"


def test_a_malformed_mapping_entry_is_ignored_rather_than_fatal():
    contract = {"mapping": [{"arguments": 5, "request": "/amount"}, "junk"]}
    assert (
        only(call({"totalCents": 1999}, {"amount": 1999}, contract=contract), "renamed")["severity"]
        == "info"
    )


def test_an_item_whose_id_itself_changed_is_still_paired_with_its_counterpart():
    arguments = {"items": [{"sku": "a-1", "qty": 1}, {"sku": "b-2", "qty": 2}]}
    request = {"items": [{"sku": "a-1", "qty": 1}, {"sku": "B-2", "qty": 2}]}
    snap = lambda p: {"payload": p, "logged_as_string": False, "http": None}
    result = analyze_call(
        {"arguments": snap(arguments), "request": snap(request), "response": None}, None
    )
    [found] = [f for f in result["findings"] if f["severity"] != "info"]
    assert found["kind"] == "enum_changed"
    assert found["left"]["path"] == "/items/1/sku" and found["right"]["path"] == "/items/1/sku"


SEARCH_RANGE = {
    "q": "quarterly report",
    "filters": {"dateRange": {"from": "2026-08-20", "to": "2026-08-27"}},
}


def test_a_declared_mapping_that_flattens_a_nested_date_range_is_clean():
    mapping = [
        {"arguments": "/filters/dateRange/from", "request": "/start"},
        {"arguments": "/filters/dateRange/to", "request": "/end"},
    ]
    request = {"q": "quarterly report", "start": "2026-08-20", "end": "2026-08-27"}
    assert call(SEARCH_RANGE, request, contract={"mapping": mapping})["findings"] == []
    mapping = [{"arguments": m["arguments"], "request": "/filters" + m["request"]} for m in mapping]
    request = {"q": "quarterly report", "filters": {"start": "2026-08-20", "end": "2026-08-27"}}
    assert call(SEARCH_RANGE, request, contract={"mapping": mapping})["findings"] == []


def test_a_leaf_left_out_of_a_partly_mapped_object_is_dropped_alone():
    args = {
        "q": "quarterly report",
        "filters": {"dateRange": {"from": "2026-08-20", "to": "2026-08-27"}, "folder": "finance"},
    }
    mapping = [
        {"arguments": "/filters/dateRange/from", "request": "/start"},
        {"arguments": "/filters/dateRange/to", "request": "/end"},
    ]
    request = {"q": "quarterly report", "start": "2026-08-20", "end": "2026-08-27"}
    found = only(call(args, request, contract={"mapping": mapping}), "dropped")
    # mapping its siblings says nothing of it: one call cannot tell it consumed from lost
    assert found["left"]["path"] == "/filters/folder" and found["severity"] == "info"


ENVELOPED_NOTE = {
    "type": "object",
    "required": ["code", "message", "data"],
    "properties": {
        "code": {"type": "integer"},
        "message": {"type": "string"},
        "data": {"type": "object", "required": ["id"]},
    },
}
CREATED_NOTE = {
    "type": "object",
    "required": ["id", "title"],
    "properties": {"id": {"type": "string"}, "title": {"type": "string"}},
}


@pytest.mark.parametrize(
    "schema, body, status",
    [
        (ENVELOPED_NOTE, {"code": 0, "message": "ok", "data": {"id": "n1"}}, 200),
        (CREATED_NOTE, {"id": "n1", "title": "Ideas", "message": "created", "code": "OK"}, 201),
    ],
)
def test_a_2xx_body_valid_against_the_success_schema_is_a_result_despite_code_and_message(
    schema, body, status
):
    result = call({"title": "Ideas"}, {"title": "Ideas"}, body, status, {"response_schema": schema})
    assert [f for f in result["findings"] if f["kind"] == "status_mismatch"] == []
    assert result["worst"] is None


@pytest.mark.parametrize(
    "body",
    [
        {
            "id": "n1",
            "title": "Ideas",
            "error": {"code": "quota", "message": "Note quota exceeded"},
        },
        {"id": "n1", "title": "Ideas", "ok": False},
        {
            "id": "n1",
            "title": "Ideas",
            "code": "quota",
            "message": "Note quota exceeded",
            "retryable": False,
        },
    ],
)
def test_a_2xx_body_valid_against_the_success_schema_that_says_it_failed_is_status_mismatch(body):
    result = call(
        {"title": "Ideas"}, {"title": "Ideas"}, body, 200, {"response_schema": CREATED_NOTE}
    )
    assert only(result, "status_mismatch")["message"] == "HTTP 200 with an error body"


@pytest.mark.parametrize("number", [2**53, 2**53 + 1, 1234567890123456789, -(2**63)])
def test_an_integer_sent_as_a_string_is_type_changed_at_any_size(number):
    found = only(
        call({"order_id": number, "expand": "items"}, {"order_id": str(number), "expand": "items"}),
        "type_changed",
    )
    assert (found["left_value"], found["right_value"]) == (number, str(number))


def test_a_big_integer_sent_as_the_string_of_its_neighbour_is_value_changed():
    found = only(call({"order_id": 2**53 + 1}, {"order_id": str(2**53)}), "value_changed")
    assert found["left"]["path"] == "/order_id"


@pytest.mark.parametrize("empty", ["", [], {}])
def test_dropping_an_empty_argument_is_only_info(empty):
    found = only(call({"title": "Ideas", "body": empty}, {"title": "Ideas"}), "dropped")
    assert (
        found["severity"] == "info"
        and found["message"] == "body dropped: not in the request (empty value)"
    )


@pytest.mark.parametrize(
    "sent, received",
    [
        ("14:30", "2:30 PM"),
        ("14:30:00", "14:30"),
        ("09:05", "9:05 am"),
        ("00:15", "12:15 AM"),
        ("12:00", "12 p.m."),
        ("07:45:30.250", "07:45:30.25"),
    ],
)
def test_a_time_of_day_written_another_way_is_format_changed(sent, received):
    args = {"title": "Standup", "remind_at": sent}
    found = only(call(args, {"title": "Standup", "remind_at": received}), "format_changed")
    assert found["severity"] == "warning" and found["message"].endswith("(same time)")


@pytest.mark.parametrize(
    "sent, received", [("14:30", "2:30 AM"), ("14:30:00", "14:31"), ("07:45", "07:45:01")]
)
def test_another_time_of_day_stays_value_changed(sent, received):
    args = {"title": "Standup", "remind_at": sent}
    assert (
        only(call(args, {"title": "Standup", "remind_at": received}), "value_changed")["left"][
            "path"
        ]
        == "/remind_at"
    )


def test_a_response_echoing_the_same_time_in_its_own_form_is_info():
    # Google's freeBusy answers `...:00.000Z` for the `...:00Z` it was sent
    request = {"timeMin": "2026-11-15T08:00:00Z", "items": [{"id": "primary"}]}
    response = {"kind": "calendar#freeBusy", "timeMin": "2026-11-15T08:00:00.000Z"}
    found = only(call(request, request, response, 200), "echo_mismatch")
    assert found["severity"] == "info"
