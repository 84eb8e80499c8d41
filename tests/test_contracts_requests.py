"""An OpenAPI operation's parameters become the contract's `http`.

Method, URL template, parameters, media type; the analysis then names path parameters by the
template and checks each parameter by its schema and style."""

import pytest

from webapp.analysis import analyze_call
from webapp.contracts import ContractError, check_contract, tools_from_openapi, validated_contract

GITHUB = {
    "openapi": "3.0.3",
    "info": {"title": "GitHub (excerpt)", "version": "1"},
    "paths": {
        "/repos/{owner}/{repo}/issues": {
            "parameters": [
                {"$ref": "#/components/parameters/owner"},
                {"$ref": "#/components/parameters/repo"},
            ],
            "get": {
                "operationId": "issues/list-for-repo",
                "parameters": [
                    {
                        "name": "state",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["open", "closed", "all"]},
                    },
                    {"name": "labels", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "per_page",
                        "in": "query",
                        "schema": {"type": "integer", "default": 30},
                    },
                    {"name": "X-GitHub-Api-Version", "in": "header", "schema": {"type": "string"}},
                    {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            },
            "post": {
                "operationId": "issues/create",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["title"],
                                "properties": {
                                    "title": {"type": "string"},
                                    "body": {"type": "string"},
                                },
                            }
                        }
                    }
                },
                "responses": {"201": {"description": "created"}},
            },
        },
        "/v1/payment_intents": {
            "post": {
                "operationId": "PostPaymentIntents",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "properties": {
                                    "amount": {"type": "integer"},
                                    "metadata": {"type": "object"},
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
    "components": {
        "parameters": {
            "owner": {
                "name": "owner",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
            },
            "repo": {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}},
        }
    },
}


def test_an_operation_with_path_and_query_parameters_gives_a_request_contract():
    http = tools_from_openapi(GITHUB)["issues/list-for-repo"]["http"]
    assert http["method"] == "GET" and http["path"] == "/repos/{owner}/{repo}/issues"
    assert [(p["in"], p["name"]) for p in http["parameters"]] == [
        ("path", "owner"),
        ("path", "repo"),
        ("query", "state"),
        ("query", "labels"),
        ("query", "per_page"),
        ("header", "X-GitHub-Api-Version"),
    ]
    assert http["parameters"][0] == {
        "name": "owner",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
    }


def test_a_form_request_body_is_named_by_its_media_type():
    tool = tools_from_openapi(GITHUB)["PostPaymentIntents"]
    assert tool["http"]["content_type"] == "application/x-www-form-urlencoded"
    assert "content_type" not in tools_from_openapi(GITHUB)["issues/create"]["http"]


def test_an_imported_request_contract_is_a_valid_stored_contract():
    for name, tool in tools_from_openapi(GITHUB).items():
        assert validated_contract(name, tool)["http"] == tool["http"]


@pytest.mark.parametrize(
    "http, words",
    [
        ("GET /x", "http: must be an object"),
        ({"path": "repos"}, "http/path"),
        ({"verb": "GET"}, "unknown field"),
        ({"parameters": [{"name": "a", "in": "cookie"}]}, "http/parameters/0"),
        ({"parameters": {}}, "must be a list"),
    ],
)
def test_a_bad_http_contract_is_refused_naming_its_place(http, words):
    assert any(words in problem for problem in check_contract({"http": http}))
    with pytest.raises(ContractError):
        validated_contract("t", {"http": http})


def test_a_mapping_entry_may_name_a_request_field_outside_the_body():
    assert (
        check_contract({"mapping": [{"arguments": "/limit", "request": "query:/page_size"}]}) == []
    )
    assert check_contract({"mapping": [{"arguments": "query:/x", "request": "/x"}]})


def analyse(tool, arguments, url, body=None, method="GET"):
    return analyze_call(
        {
            "arguments": {"payload": arguments},
            "request": {"payload": body, "http": {"method": method, "url": url}},
        },
        tool,
    )


def loud(result):
    return [f for f in result["findings"] if f["severity"] in ("error", "warning")]


def test_with_the_imported_contract_path_parameters_are_named_by_the_template():
    tool = tools_from_openapi(GITHUB)["issues/list-for-repo"]
    args = {"owner": "acme", "repo": "web", "state": "open", "per_page": 50}
    good = analyse(
        tool, args, "https://api.github.com/repos/acme/web/issues?state=open&per_page=50"
    )
    assert loud(good) == [] and good["request_template"] == "/repos/{owner}/{repo}/issues"
    rows = {(r["arguments"], r["request"]) for r in good["alignment"]}
    assert {
        ("/owner", "path:/owner"),
        ("/repo", "path:/repo"),
        ("/per_page", "query:/per_page"),
    } <= rows
    bad = analyse(tool, args, "https://api.github.com/repos/acme/api/issues?state=open&per_page=50")
    assert [(f["kind"], f["right"]["path"]) for f in loud(bad)] == [("value_changed", "path:/repo")]


def test_a_mapping_entry_into_the_query_is_followed():
    contract = {"mapping": [{"arguments": "/limit", "request": "query:/n"}]}
    result = analyse(contract, {"limit": 5, "offset": 5}, "https://x.example/items?n=5&offset=5")
    assert loud(result) == []
    assert ("/limit", "query:/n") in {(r["arguments"], r["request"]) for r in result["alignment"]}
    swapped = analyse(contract, {"limit": 5, "offset": 10}, "https://x.example/items?n=10&offset=5")
    assert ("/limit", "query:/n") in {
        (f["left"]["path"], f["right"]["path"]) for f in loud(swapped)
    }


def test_tools_import_stores_the_request_contract_and_the_tool_page_shows_the_template(client):
    answer = client.post(
        "/api/v1/tools/import?operation=list_issues=issues/list-for-repo", json=GITHUB
    )
    assert answer.status_code == 200, answer.get_json()
    stored = client.get("/api/v1/tools/list_issues").get_json()
    assert stored["http"]["path"] == "/repos/{owner}/{repo}/issues"
    page = client.get("/tools/list_issues").get_data(as_text=True)
    assert "GET /repos/{owner}/{repo}/issues" in page


def test_without_a_contract_the_tool_page_shows_the_template_its_calls_show(client):
    from helpers import envelope, ndjson

    events = []
    for n, invoice in enumerate(("inv_9f2", "inv_a01", "inv_77c")):
        trace = f"{n + 1:032x}"
        events += [
            envelope(
                "arguments",
                {"invoiceId": invoice, "paidAt": "2026-03-01T10:00:00Z"},
                trace,
                tool="markInvoicePaid",
            ),
            envelope(
                "request",
                {"paid_at": "2026-03-01T10:00:00Z"},
                trace,
                tool="markInvoicePaid",
                http={
                    "method": "POST",
                    "url": f"https://api.example.com/v1/invoices/{invoice}/pay",
                },
            ),
        ]
    assert client.post("/api/v1/ingest", data=ndjson(*events)).status_code == 200
    for n in range(3):
        assert client.get(f"/api/v1/traces/{n + 1:032x}").get_json()["calls"][0]["worst"] == "info"
    data = client.get("/tools/markInvoicePaid.json").get_json()
    assert data["request_line"] == {
        "method": None,
        "template": "/v1/invoices/{invoiceId}/pay",
        "source": "traffic",
        "calls": 3,
    }
    assert "/v1/invoices/{invoiceId}/pay" in client.get("/tools/markInvoicePaid").get_data(
        as_text=True
    )


def test_tools_map_declares_a_pair_into_the_query(db_path):
    from click.testing import CliRunner

    from webapp.cli import main
    from webapp.store import Store

    result = CliRunner().invoke(
        main,
        ["tools", "map", "findOrders", "limit=query:/page_size", "--db", str(db_path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "findOrders: /limit -> query:/page_size" in result.output
    assert Store.open(db_path).get_tool("findOrders")["mapping"] == [
        {"arguments": "/limit", "request": "query:/page_size"}
    ]
