"""Validation of each snapshot against its schema.

Every error, at a JSON Pointer, with hints."""

import copy

from webapp.analysis import DEFAULT_ERROR_SCHEMA, analyze_call
from webapp.analysis.schemas.validation import get_validator, validate
from webapp.common.pointers import from_tokens, tokens

SEARCH_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["query", "limit"],
    "properties": {
        "query": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1},
        "sort": {"enum": ["relevance", "date"]},
        "date_range": {
            "type": "object",
            "properties": {
                "from": {"type": "string", "format": "date"},
                "to": {"type": "string", "format": "date"},
            },
        },
        "a/b": {"type": "string"},
    },
}


def snapshots(arguments=None, request=None, response=None, status=None):
    def snap(payload, code=None):
        return (
            None
            if payload is None
            else {"payload": payload, "logged_as_string": False, "http": {"status_code": code}}
        )

    return {
        "arguments": snap(arguments),
        "request": snap(request),
        "response": snap(response, status),
    }


def test_every_error_is_reported_with_path_keyword_and_schema_path():
    errors = validate({"query": 7, "limit": 0, "sort": "newest"}, SEARCH_SCHEMA)
    assert [(e["path"], e["keyword"], e["schema_path"]) for e in errors] == [
        ("/limit", "minimum", "/properties/limit/minimum"),
        ("/query", "type", "/properties/query/type"),
        ("/sort", "enum", "/properties/sort/enum"),
    ]


def test_an_enum_error_lists_the_allowed_values():
    error = validate({"query": "q", "limit": 1, "sort": "newest"}, SEARCH_SCHEMA)[0]
    assert error["allowed"] == ["relevance", "date"] and "hint" not in error


def test_an_enum_value_in_another_case_hints_at_the_allowed_one():
    error = validate({"query": "q", "limit": 1, "sort": "DATE"}, SEARCH_SCHEMA)[0]
    assert error["hint"] == "did you mean 'date'?"


def test_formats_are_checked_in_nested_objects():
    errors = validate(
        {"query": "q", "limit": 1, "date_range": {"from": "2026-02-30"}}, SEARCH_SCHEMA
    )
    assert [(e["path"], e["keyword"]) for e in errors] == [("/date_range/from", "format")]


def test_an_unexpected_key_gets_its_own_error_at_its_path_with_a_did_you_mean_hint():
    errors = validate({"query": "q", "limit": 3, "sortt": "date", "page": 2}, SEARCH_SCHEMA)
    by_path = {e["path"]: e for e in errors}
    assert set(by_path) == {"/sortt", "/page"}
    assert by_path["/sortt"]["hint"] == "did you mean 'sort'?"
    assert "hint" not in by_path["/page"]


def test_a_missing_required_key_hints_at_a_present_key_in_another_case():
    errors = validate({"Query": "q", "limit": 3}, SEARCH_SCHEMA)
    required = next(e for e in errors if e["keyword"] == "required")
    assert (
        required["path"] == "/query" and required["hint"] == "found 'Query': did you mean 'query'?"
    )
    assert required["message"] == "'query' is a required property"


def test_paths_escape_slashes_and_tildes_as_json_pointers():
    errors = validate({"query": "q", "limit": 1, "a/b": 5}, SEARCH_SCHEMA)
    assert errors[0]["path"] == "/a~1b" and errors[0]["schema_path"] == "/properties/a~1b/type"


def test_a_type_error_on_the_whole_document_has_the_empty_pointer():
    assert validate([1, 2], SEARCH_SCHEMA)[0]["path"] == ""


def test_without_dollar_schema_draft_7_is_used_and_2020_12_is_honoured_when_declared():
    point = {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}]}
    # Draft 7 does not know prefixItems
    assert validate(["48.8", 2.3], point) == []
    declared = dict(point, **{"$schema": "https://json-schema.org/draft/2020-12/schema"})
    assert [(e["path"], e["keyword"]) for e in validate(["48.8", 2.3], declared)] == [
        ("/0", "type")
    ]


def test_validators_are_built_once_per_distinct_schema():
    assert get_validator(SEARCH_SCHEMA) is get_validator(copy.deepcopy(SEARCH_SCHEMA))


def test_a_remote_ref_is_reported_instead_of_fetched():
    error = validate({"a": 1}, {"$ref": "https://example.com/schemas/order.json"})[0]
    assert error["keyword"] == "$schema" and "Unresolvable" in error["message"]


def test_each_snapshot_is_validated_against_its_own_schema():
    contract = {
        "arguments_schema": SEARCH_SCHEMA,
        "request_schema": {"type": "object", "required": ["q"]},
        "response_schema": {"type": "object", "required": ["results"]},
    }
    result = analyze_call(
        snapshots({"query": "q", "limit": 2}, {"q": "q"}, {"hits": []}, 200), contract
    )
    validation = result["validation"]
    assert validation["arguments"] == {"schema": "arguments_schema", "valid": True, "errors": []}
    assert validation["request"]["valid"] is True
    assert validation["response"]["schema"] == "response_schema"
    assert [e["message"] for e in validation["response"]["errors"]] == [
        "'results' is a required property"
    ]
    assert result["worst"] == "error" and result["summary"]["validation_errors"] == 1


def test_a_4xx_response_is_validated_against_the_contract_error_schema():
    error_schema = {
        "type": "object",
        "required": ["detail"],
        "properties": {"detail": {"type": "string"}},
    }
    contract = {
        "response_schema": {"type": "object", "required": ["results"]},
        "error_schema": error_schema,
    }
    result = analyze_call(snapshots(response={"detail": "bad query"}, status=400), contract)
    assert result["validation"]["response"] == {
        "schema": "error_schema",
        "valid": True,
        "errors": [],
    }


def test_without_contract_nothing_is_validated_not_even_an_error_body():
    ok = analyze_call(snapshots({"a": 1}, {"a": 1}, {"anything": True}, 200), None)["validation"]
    assert ok == {
        stage: {"schema": None, "valid": None, "errors": []}
        for stage in ("arguments", "request", "response")
    }
    error = analyze_call(snapshots(response={"code": "x", "message": "y"}, status=503), None)
    assert error["validation"]["response"] == {"schema": None, "valid": None, "errors": []}


def test_the_default_envelope_declared_as_the_error_schema_is_checked_as_the_default():
    contract = {"error_schema": DEFAULT_ERROR_SCHEMA}
    bad = analyze_call(
        snapshots(response={"error": {"code": "x", "message": "y"}}, status=503), contract
    )
    assert bad["validation"]["response"]["schema"] == "default_error_schema"
    assert [e["path"] for e in bad["validation"]["response"]["errors"]] == ["/error/retryable"]


def test_a_snapshot_that_has_not_arrived_is_not_validated():
    result = analyze_call(
        snapshots(arguments={"query": "q", "limit": 1}), {"request_schema": SEARCH_SCHEMA}
    )
    assert result["validation"]["request"] == {
        "schema": "request_schema",
        "valid": None,
        "errors": [],
    }


def test_a_snapshot_with_broken_json_is_invalid_against_its_schema():
    result = analyze_call(
        snapshots(arguments='{"query": "q",'), {"arguments_schema": SEARCH_SCHEMA}
    )
    validation = result["validation"]["arguments"]
    assert validation["valid"] is False and validation["errors"][0]["keyword"] == "invalid_json"


BIG_SCHEMA = {
    "type": "object",
    "required": ["entries"],
    "properties": {"entries": {"type": "array", "items": SEARCH_SCHEMA}},
}


def big_instance(*odd_entries):
    """Return an object of more than 100 KB of JSON: many valid entries, then the odd ones."""
    fine = [
        {"query": f"invoices of customer {n}", "limit": 10, "sort": "date"} for n in range(3000)
    ]
    return {"entries": fine + list(odd_entries)}


def test_a_big_snapshot_reports_its_errors_at_json_pointers_like_a_small_one():
    odd = [
        {"query": 7, "limit": 0},
        {"Query": "q", "limit": 2, "sortt": "date", "a/b": 1},
        {"query": "q", "limit": 1, "sort": "DATE"},
    ]
    big = validate(big_instance(*odd), BIG_SCHEMA)
    small = validate({"entries": odd}, BIG_SCHEMA)

    # /entries/1/x in the small instance is /entries/3001/x in the big one
    def shifted(path):
        name, index, *rest = tokens(path)
        return from_tokens([name, 3000 + int(index), *rest])

    assert [(e["path"], e["keyword"], e["schema_path"]) for e in big] == sorted(
        (shifted(e["path"]), e["keyword"], e["schema_path"]) for e in small
    )
    by_path = {e["path"]: e for e in big}
    assert set(by_path) == {
        "/entries/3000/query",
        "/entries/3000/limit",
        "/entries/3001/query",
        "/entries/3001/Query",
        "/entries/3001/sortt",
        "/entries/3001/a~1b",
        "/entries/3002/sort",
    }
    assert by_path["/entries/3001/query"]["hint"] == "found 'Query': did you mean 'query'?"
    assert by_path["/entries/3001/sortt"]["hint"] == "did you mean 'sort'?"
    assert by_path["/entries/3002/sort"]["allowed"] == ["relevance", "date"]
    assert by_path["/entries/3002/sort"]["hint"] == "did you mean 'date'?"
    assert (
        by_path["/entries/3001/a~1b"]["schema_path"]
        == "/properties/entries/items/properties/a~1b/type"
    )


def test_a_big_valid_snapshot_has_no_error_and_a_big_broken_one_is_invalid_in_the_analysis():
    assert validate(big_instance(), BIG_SCHEMA) == []
    result = analyze_call(snapshots(big_instance({"query": "q"})), {"arguments_schema": BIG_SCHEMA})
    assert result["validation"]["arguments"]["valid"] is False
    assert [e["path"] for e in result["validation"]["arguments"]["errors"]] == [
        "/entries/3000/limit"
    ]


def test_formats_are_judged_by_jsonschema_rs_whatever_format_libraries_are_installed():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            name: {"format": name} for name in ("uri", "iri", "duration", "hostname", "date-time")
        },
    }
    bad = {
        "uri": "not a uri",
        "iri": "http://ex ample",
        "duration": "5 minutes",
        "hostname": "-bad-.",
        "date-time": "2026-02-30T10:00:00Z",
    }
    assert sorted(e["path"] for e in validate(bad, schema)) == sorted(f"/{name}" for name in bad)
    good = {
        "uri": "https://example.com/a",
        "iri": "https://exämple.com/ä",
        "duration": "PT5M",
        "hostname": "api.example.com",
        "date-time": "2026-02-28T10:00:00Z",
    }
    assert validate(good, schema) == []
