"""The API is published as OpenAPI 3.1 at /api/v1/openapi.json, and the app keeps to it."""
import re

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_schema_conformance,
                                               status_code_conformance)
import pytest

from helpers import ndjson, order_call
from webapp import create_app, openapi

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


def _openapi_path(rule: str) -> str:
    """Write a Flask rule as an OpenAPI path: <path:trace_id> -> {trace_id}."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


def test_the_api_document_is_served_at_api_v1_openapi_json(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    routes = {_openapi_path(rule.rule) for rule in client.application.url_map.iter_rules()
              if rule.rule.startswith(("/api/", "/v1/"))}
    assert routes == set(document["paths"])


def test_every_api_route_and_method_is_documented(client):
    documented = {(path, method.upper()) for path, item in openapi.document()["paths"].items()
                  for method in item}
    for rule in client.application.url_map.iter_rules():
        if rule.rule.startswith(("/api/", "/v1/")):
            path = _openapi_path(rule.rule)
            for method in rule.methods - {"HEAD", "OPTIONS"}:
                assert (path, method) in documented, f"{method} {path} is missing from the document"


def test_every_error_response_uses_the_one_error_shape():
    document = openapi.document()
    for path, item in document["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                if status.startswith(("4", "5")) and "$ref" not in response:
                    schema = response["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/Error"}, f"{method} {path} {status}"


@pytest.fixture
def api_app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "api.db"), "ANALYZER": "off"})
    client = app.test_client()
    client.post("/api/v1/ingest", data=ndjson(*order_call(limit_sent="5")))
    return app


def check_operation(operation, cases: dict) -> None:
    """Send hypothesis-generated requests to one operation and check each answer against the document."""
    @settings(max_examples=60, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(case=operation.as_strategy())
    def run(case):
        cases[operation.label] = cases.get(operation.label, 0) + 1
        case.validate_response(case.call(), checks=CHECKS)

    run()


def test_every_operation_answers_as_its_document_says(api_app):
    # The schema is walked here rather than through schemathesis' pytest plugin, which
    # does not work with every pytest release; the checks and strategies are the same.
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", api_app)
    cases: dict[str, int] = {}
    for result in schema.get_all_operations():
        check_operation(result.ok(), cases)
    print(f"\n[schemathesis] {len(cases)} operations, {sum(cases.values())} cases")
    documented = {f"{method.upper()} {path}" for path, item in openapi.document()["paths"].items()
                  for method in item if path != "/api/v1/openapi.json"}   # schemathesis skips its own source
    assert set(cases) == documented
