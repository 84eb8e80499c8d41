"""An error schema matches a body only when it carries an error's marks.

What makes it an error (GitHub's basic-error)."""

import pytest

from webapp.analysis import analyze_call

# components/schemas/basic-error of GitHub's REST description: every field optional.
BASIC_ERROR = {
    "title": "Basic Error",
    "description": "Basic Error",
    "type": "object",
    "properties": {
        "message": {"type": "string"},
        "documentation_url": {"type": "string"},
        "url": {"type": "string"},
        "status": {"type": "string"},
    },
}
ISSUE_SCHEMA = {
    "type": "object",
    "required": ["id", "number", "title", "url", "state"],
    "properties": {
        "id": {"type": "integer"},
        "number": {"type": "integer"},
        "title": {"type": "string"},
        "url": {"type": "string"},
        "state": {"type": "string"},
        "body": {"type": ["string", "null"]},
        "labels": {"type": "array"},
    },
}
ISSUE = {
    "id": 2291041112,
    "node_id": "I_kwDOAbc",
    "number": 42,
    "title": "Crash on start",
    "state": "open",
    "url": "https://api.github.com/repos/acme/web/issues/42",
    "body": "Steps: run it",
    "labels": [{"name": "bug"}],
    "user": {"login": "octocat"},
    "comments": 0,
}
NOT_FOUND = {
    "message": "Not Found",
    "documentation_url": "https://docs.github.com/rest/issues/issues#get-an-issue",
    "status": "404",
}


def response_findings(body, status, contract):
    snap = lambda p, s=None: {"payload": p, "logged_as_string": False, "http": {"status_code": s}}  # noqa: E731
    result = analyze_call(
        {"arguments": None, "request": None, "response": snap(body, status)}, contract
    )
    return [(f["kind"], f["message"]) for f in result["findings"]]


@pytest.mark.parametrize("success", [None, ISSUE_SCHEMA])
def test_a_2xx_result_is_not_an_error_body_under_an_error_schema_of_optional_fields(success):
    contract = {"error_schema": BASIC_ERROR, **({"response_schema": success} if success else {})}
    assert response_findings(ISSUE, 200, contract) == []
    assert (
        response_findings({"url": "https://api.github.com/x", "sha": "6dcb09b"}, 201, contract)
        == []
    )


@pytest.mark.parametrize("success", [None, ISSUE_SCHEMA])
def test_a_2xx_carrying_the_error_body_is_still_status_mismatch(success):
    contract = {"error_schema": BASIC_ERROR, **({"response_schema": success} if success else {})}
    assert response_findings(NOT_FOUND, 200, contract) == [
        ("status_mismatch", "HTTP 200 with an error body")
    ]
    assert response_findings(NOT_FOUND, 404, contract) == []


def test_an_error_schema_with_required_fields_matches_bodies_that_have_them_all():
    schema = {
        "type": "object",
        "required": ["error_code"],
        "properties": {"error_code": {"type": "string"}, "detail": {"type": "string"}},
    }
    assert response_findings(
        {"error_code": "locked", "detail": "x"}, 200, {"error_schema": schema}
    ) == [("status_mismatch", "HTTP 200 with an error body")]
    assert response_findings({"detail": "shipped", "id": 4}, 200, {"error_schema": schema}) == []


def test_an_empty_error_schema_marks_no_body_as_an_error():
    assert response_findings(ISSUE, 200, {"error_schema": {}}) == []
