"""The API is published as OpenAPI 3.1, and the app keeps to it.

At /api/v1/openapi.json."""

import re

import pytest
from helpers import ndjson, order_call
from hypothesis import HealthCheck, given, settings

from webapp import create_app, pipeline
from webapp.ingest import parse_body
from webapp.store import Store
from webapp.web import openapi
from webapp.web.paths import OPEN_PATHS


def conformance_checks() -> list:
    """The schemathesis checks every answer must pass.

    Imported here, not at the top: every test process collects this module, and schemathesis takes
    a second or more to import where only one test uses it (its pytest plugin is off, see
    pyproject.toml)."""
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
    ]


def _openapi_path(rule: str) -> str:
    """Write a Flask rule as an OpenAPI path: <path:trace_id> -> {trace_id}."""
    return re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule)


def test_the_api_document_is_served_at_api_v1_openapi_json(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"].startswith("3.1")
    routes = {
        _openapi_path(rule.rule)
        for rule in client.application.url_map.iter_rules()
        if rule.rule.startswith(("/api/", "/v1/"))
    }
    assert routes == set(document["paths"])


def test_every_api_route_and_method_is_documented(client):
    documented = {
        (path, method.upper())
        for path, item in openapi.document()["paths"].items()
        for method in item
    }
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
                    assert schema == {"$ref": "#/components/schemas/Error"}, (
                        f"{method} {path} {status}"
                    )


@pytest.fixture
def api_app(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "api.db"), "ANALYZER": "off"})
    client = app.test_client()
    client.post("/api/v1/ingest", data=ndjson(*order_call(limit_sent="5")))
    return app


def check_operation(operation, cases: dict, examples: int) -> None:
    """Send hypothesis-generated requests to one operation and check each answer against the
    document."""
    checks = conformance_checks()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(case=operation.as_strategy())
    def run(case):
        cases[operation.label] = cases.get(operation.label, 0) + 1
        case.validate_response(case.call(), checks=checks)

    run()


def check_operations(api_app, examples: int, labels: set[str] | None = None) -> dict[str, int]:
    """Check the operations named by `labels` (every one when None); return the cases each got."""
    # The schema is walked here rather than through schemathesis' pytest plugin, which
    # does not work with every pytest release; the checks and strategies are the same.
    import schemathesis

    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", api_app)
    cases: dict[str, int] = {}
    for result in schema.get_all_operations():
        operation = result.ok()
        if labels is None or operation.label in labels:
            check_operation(operation, cases, examples)
    print(f"\n[schemathesis] {len(cases)} operations, {sum(cases.values())} cases")
    return cases


# One operation of each kind: a raw body, a JSON body, query parameters, path parameters, each
# method; the quick set checks these and the run marked slow every operation.
EACH_KIND = {
    "POST /api/v1/ingest",
    "POST /api/v1/check",
    "GET /api/v1/traces",
    "GET /api/v1/traces/{trace_id}",
    "PUT /api/v1/tools/{name}",
    "PATCH /api/v1/problems/{problem_id}",
    "DELETE /api/v1/alerts/{rule_id}",
}


def test_an_operation_of_each_kind_answers_as_its_document_says(api_app):
    assert set(check_operations(api_app, 4, EACH_KIND)) == EACH_KIND


@pytest.mark.slow
def test_every_operation_answers_as_its_document_says(api_app):
    cases = check_operations(api_app, 60)
    # schemathesis skips its own source
    documented = {
        f"{method.upper()} {path}"
        for path, item in openapi.document()["paths"].items()
        for method in item
        if path != "/api/v1/openapi.json"
    }
    assert set(cases) == documented


ADMIN, SHIPPER, READER = "adm-0b1c2d3e4f", "shp-5a6b7c8d9e", "rdr-1f2e3d4c5b"
EXAMPLE_PARAMS = {
    "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
    "call_id": "call_01",
    "snapshot": "request",
    "name": "findOrders",
    "action": "confirm",
    "rule_id": "1",
    "message_id": "1",
    "problem_id": "TD-1",
}


def _documented(op: dict, status: int) -> dict:
    """Return the documented response of a status, its $ref resolved; fail when it is not
    documented."""
    response = op["responses"].get(str(status))
    assert response is not None, f"{status} is answered but not documented"
    if "$ref" in response:
        response = openapi.document()["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return response


def _operations():
    for path, item in openapi.document()["paths"].items():
        for method, op in item.items():
            yield method.upper(), re.sub(r"{(\w+)}", lambda m: EXAMPLE_PARAMS[m.group(1)], path), op


def _send(client, method, url, op, **kwargs):
    body = {"json": {}} if "requestBody" in op else {}
    return client.open(url, method=method, **body, **kwargs)


@pytest.fixture
def scoped_app(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "scoped.db"),
            "ANALYZER": "off",
            "ADMIN_TOKENS": f"ops:{ADMIN}",
            "INGEST_TOKENS": f"shipper:{SHIPPER}",
            "READ_TOKENS": f"reader:{READER}",
        }
    )
    app.test_client().post(
        "/api/v1/ingest", data=ndjson(*order_call()), headers={"Authorization": f"Bearer {ADMIN}"}
    )
    return app


def test_every_status_an_operation_answers_to_hosts_and_tokens_is_documented_with_its_code(
    scoped_app,
):
    client = scoped_app.test_client()
    for method, url, op in _operations():
        foreign = _send(client, method, url, op, headers={"Host": "rebind.attacker.example"})
        # probes reach health and readiness by any name
        if url.startswith(OPEN_PATHS):
            assert foreign.status_code == 200 and "400" not in op["responses"]
        else:
            assert (
                foreign.status_code == 400
                and foreign.get_json()["error"]["code"] == "host_not_allowed"
            )
            assert "host_not_allowed" in _documented(op, 400)["description"], f"{method} {url}"
        for token in (None, READER, SHIPPER, ADMIN):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            answer = _send(client, method, url, op, headers=headers)
            response = _documented(op, answer.status_code)
            if answer.status_code >= 400:
                code = answer.get_json()["error"]["code"]
                if code in (
                    "read_only_token",
                    "ingest_only_token",
                    "cross_site_request",
                    "host_not_allowed",
                ):
                    assert code in response["description"], (
                        f"{method} {url} {answer.status_code} {code}"
                    )


def test_a_body_over_the_size_limit_is_a_documented_413_on_every_operation_that_takes_one(tmp_path):
    # a trace with a problem (TD-1), so no operation stops at a 404
    store = Store(tmp_path / "small.db")
    pipeline.store_batch(store, parse_body(ndjson(*order_call(limit_sent="5"))), None)
    pipeline.catch_up(store)
    store.close()
    client = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "small.db"),
            "ANALYZER": "off",
            "MAX_BODY_BYTES": 64,
        }
    ).test_client()
    for method, url, op in _operations():
        # a body the operation reads
        if op.get("requestBody", {}).get("content"):
            answer = client.open(url, method=method, json={"padding": "x" * 100})
            assert (
                answer.status_code == 413 and answer.get_json()["error"]["code"] == "too_large"
            ), f"{method} {url}"
            assert "too_large" in _documented(op, 413)["description"], f"{method} {url}"


def test_a_503_sends_retry_after_as_documented_for_ingest_and_readiness(tmp_path):
    client = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "full.db"),
            "ANALYZER": "off",
            "MIN_FREE_MB": 10**9,
            "READY_MIN_FREE_MB": 10**9,
        }
    ).test_client()
    document = openapi.document()["paths"]
    for method, url, op in (
        ("POST", "/api/v1/ingest", document["/api/v1/ingest"]["post"]),
        ("GET", "/api/v1/ready", document["/api/v1/ready"]["get"]),
    ):
        answer = client.open(
            url, method=method, data=ndjson(*order_call()) if method == "POST" else None
        )
        assert answer.status_code == 503 and answer.headers["Retry-After"].isdigit()
        assert "Retry-After" in _documented(op, 503).get("headers", {}), f"{method} {url}"
