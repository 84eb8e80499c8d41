"""`tracediff lint`.

A tools list against the API operations it maps to, before any traffic.

The issue's three disagreements on a small API, transforms and case styles that are no mismatch, and
an excerpt of a real public description (OpenAI's, tests/data/openai-excerpt.json): the tools list
derived from it has no finding, and every bug planted in it is found, at both its pointers, and
nothing else."""

import copy
import re
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from lint_tools import derived_tools

from webapp.cli.main import main
from webapp.contracts import load_file
from webapp.contracts.lint import lint_contract, lint_targets

EXCERPT = Path(__file__).parent / "data" / "openai-excerpt.json"
INVOICES = {
    "openapi": "3.1.0",
    "info": {"title": "invoices", "version": "1"},
    "paths": {
        "/v1/invoices": {
            "get": {
                "operationId": "listInvoices",
                "parameters": [
                    {"name": "page_size", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["PAID", "OPEN"]},
                    },
                    {
                        "name": "customer_id",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                    {
                        "name": "Api-Version",
                        "in": "header",
                        "required": True,
                        "schema": {"type": "string"},
                    },
                ],
                "responses": {"200": {"description": "the invoices"}},
            },
            "post": {
                "operationId": "createInvoice",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["total_cents", "currency"],
                                "properties": {
                                    "total_cents": {"type": "integer"},
                                    "currency": {"type": "string", "enum": ["EUR", "USD"]},
                                    "due_at": {"type": "string", "format": "date-time"},
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "the invoice"}},
            },
        }
    },
}


def tool(name: str, properties: dict, required=()) -> dict:
    schema = {
        "type": "object",
        "properties": properties,
        **({"required": list(required)} if required else {}),
    }
    return {"type": "function", "function": {"name": name, "parameters": schema}}


DISAGREEING = [
    tool(
        "list_invoices",
        {"limit": {"type": "integer"}, "status": {"type": "string", "enum": ["paid", "open"]}},
    ),
]
MATCHING = [
    tool(
        "list_invoices",
        {
            "page_size": {"type": "string"},
            "status": {"type": "string", "enum": ["PAID", "OPEN"]},
            "customerId": {"type": "string"},
        },
        ["customerId"],
    ),
    tool(
        "createInvoice",
        {
            "total": {"type": "number"},
            "currency": {"type": "string", "enum": ["EUR"]},
            "dueAt": {"type": "string", "format": "date-time"},
        },
        ["total", "currency"],
    ),
]
TOTAL_X100 = [
    {
        "name": "createInvoice",
        "mapping": [{"arguments": "/total", "request": "/total_cents", "transform": "x100"}],
    }
]


def mismatches(tools, openapi, **options) -> set[tuple]:
    """Return (kind, severity, argument pointer, request pointer) of every mismatch lint finds."""
    out = set()
    for target in lint_targets(tools, openapi, **options):
        assert target.error is None, target.error
        for found in lint_contract(target.contract):
            ends = [(found[side] or {}).get("path") for side in ("left", "right")]
            out.add((found["kind"], found["severity"], *ends))
    return out


def test_the_issues_three_disagreements_are_each_found_with_both_pointers():
    assert mismatches(DISAGREEING, INVOICES, only="list_invoices") == {
        ("type_mismatch", "error", "/limit", "query:/page_size"),
        ("enum_mismatch", "error", "/status", "query:/status"),
        ("unfilled_field", "error", None, "query:/customer_id"),
    }


def test_a_matching_pair_has_no_mismatch_across_case_styles_and_a_declared_transform():
    assert mismatches(MATCHING, INVOICES, mapping=TOTAL_X100) == {
        # the tool offers EUR only: narrower, told as info
        ("enum_mismatch", "info", "/currency", "/currency"),
    }
    # without x100 a number for an integer is a type mismatch
    unscaled = mismatches(MATCHING, INVOICES)
    assert ("type_mismatch", "error", "/total", "/total_cents") in unscaled


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"dueAt": {"type": "string", "format": "date"}},
            ("format_mismatch", "warning", "/dueAt", "/due_at"),
        ),
        ({"dueAt": {"type": "string"}}, ("format_mismatch", "info", "/dueAt", "/due_at")),
        (
            {"currency": {"type": "string", "enum": ["EUR", "GBP"]}},
            ("enum_mismatch", "error", "/currency", "/currency"),
        ),
        ({"currency": {"type": "string"}}, ("enum_mismatch", "warning", "/currency", "/currency")),
        (
            {"currency": {"type": ["string", "null"], "enum": ["EUR", "USD", None]}},
            ("type_mismatch", "warning", "/currency", "/currency"),
        ),
        ({"note": {"type": "string"}}, ("unmapped_argument", "warning", "/note", None)),
    ],
)
def test_each_kind_of_mismatch_names_the_argument_and_the_request_field(change, expected):
    tools = copy.deepcopy(MATCHING[1:])
    tools[0]["function"]["parameters"]["properties"].update(change)
    found = mismatches(tools, INVOICES, mapping=TOTAL_X100)
    assert found - {("enum_mismatch", "info", "/currency", "/currency")} == {expected}


def test_a_field_the_api_requires_that_the_tool_leaves_optional_is_a_required_mismatch():
    tools = copy.deepcopy(MATCHING[1:])
    tools[0]["function"]["parameters"]["required"] = ["total"]
    assert ("required_mismatch", "warning", "/currency", "/currency") in mismatches(
        tools, INVOICES, mapping=TOTAL_X100
    )


def excerpt_tools() -> tuple[dict, list[dict]]:
    openapi = load_file(EXCERPT)
    return openapi, derived_tools(openapi)


def properties_of(tools, name) -> dict:
    [found] = [t["function"]["parameters"] for t in tools if t["function"]["name"] == name]
    return found


def camel(key: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), key)


def test_the_tools_derived_from_a_real_description_have_no_mismatch_even_renamed_and_trimmed():
    openapi, tools = excerpt_tools()
    assert len(tools) == 7 and mismatches(tools, openapi) == set()
    # an engineer's own names (camelCase), and only the required arguments kept
    for definition in tools:
        schema = definition["function"]["parameters"]
        if "properties" in schema:
            kept = set(schema.get("required", ()))
            schema["properties"] = {
                camel(k): v for k, v in schema["properties"].items() if k in kept
            }
            schema["required"] = [camel(k) for k in kept]
    assert {m for m in mismatches(tools, openapi) if m[1] != "info"} == set()


def test_every_bug_planted_in_the_real_description_s_tools_is_found_and_nothing_else():
    openapi, tools = excerpt_tools()
    files = properties_of(tools, "listFiles")["properties"]
    files["limit"] = {"type": "string"}
    files["order"]["enum"] = ["ASC", "DESC"]
    batch = properties_of(tools, "createBatch")
    del batch["properties"]["input_file_id"]
    batch["required"].remove("input_file_id")
    batch["properties"]["endpoint"]["enum"].append("/v1/audio/speech")
    embedding = properties_of(tools, "createEmbedding")
    embedding["properties"]["dimensions"]["minimum"] = 0
    embedding["required"].remove("model")
    properties_of(tools, "retrieveFile")["properties"]["include_deleted"] = {"type": "boolean"}
    vector = properties_of(tools, "createVectorStore")["properties"]
    vector["expires_after"]["properties"]["days"]["maximum"] = 1000
    assert mismatches(tools, openapi) == {
        ("type_mismatch", "error", "/limit", "query:/limit"),
        ("enum_mismatch", "error", "/order", "query:/order"),
        ("unfilled_field", "error", None, "/input_file_id"),
        ("enum_mismatch", "error", "/endpoint", "/endpoint"),
        ("range_mismatch", "warning", "/dimensions", "/dimensions"),
        ("required_mismatch", "warning", "/model", "/model"),
        ("unmapped_argument", "warning", "/include_deleted", None),
        ("range_mismatch", "warning", "/expires_after/days", "/expires_after/days"),
    }


def write(tmp_path, name: str, document) -> str:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    return str(path)


def test_the_cli_reports_as_check_does_with_its_exit_codes(tmp_path):
    runner = CliRunner()
    api, tools = write(tmp_path, "api.json", INVOICES), write(tmp_path, "tools.json", DISAGREEING)
    text = runner.invoke(main, ["lint", tools, api])
    assert text.exit_code == 1, text.output
    assert (
        "FAIL   list_invoices" in text.output
        and "1 tool: 0 passed, 1 failed, 0 could not be checked" in text.output
    )
    assert "(arguments /limit -> request query:/page_size)" in text.output
    assert (
        "advice: the error answers of 1 tool declare no envelope of code, message and retryable"
        in text.output
    )
    junit = tmp_path / "lint.xml"
    github = runner.invoke(main, ["lint", tools, api, "--format", "github", "--junit", str(junit)])
    assert github.exit_code == 1
    lines = github.output.splitlines()
    said = "limit -> query:/page_size: integer in the tool, string in the API"
    said += " (arguments /limit -> request query:/page_size)"
    # the line declaring `limit`
    assert f"::error file={tools},line=9,title=type_mismatch::{said}" in lines
    # its schema
    assert any(
        line.startswith(f"::error file={tools},line=6,title=unfilled_field::") for line in lines
    )
    assert sum(line.startswith("::error ") for line in lines) == 3
    xml = junit.read_text()
    assert '<testsuite name="tracediff lint" skipped="0" tests="1" failures="1" errors="0"' in xml
    assert 'classname="list_invoices"' in xml and "unfilled_field  query:/customer_id" in xml
    matching = write(tmp_path, "matching.json", MATCHING)
    mapping = write(tmp_path, "mapping.json", TOTAL_X100)
    clean = runner.invoke(main, ["lint", matching, api, "--mapping", mapping, "--format", "json"])
    assert clean.exit_code == 0, clean.output
    assert [t["outcome"] for t in orjson.loads(clean.output)["tools"]] == ["passed", "passed"]


def test_a_tool_without_its_operation_or_a_file_that_cannot_be_read_exits_2(tmp_path):
    runner = CliRunner()
    api = write(tmp_path, "api.json", INVOICES)
    other = write(tmp_path, "tools.json", [tool("refund_invoice", {"id": {"type": "string"}})])
    unmapped = runner.invoke(main, ["lint", other, api])
    assert unmapped.exit_code == 2
    assert (
        "SKIP   refund_invoice: not linted: no operation of the OpenAPI document is named so; map "
        "it with --operation" in unmapped.output
    )
    mapped = runner.invoke(
        main, ["lint", other, api, "--operation", "refund_invoice=createInvoice"]
    )
    assert (
        mapped.exit_code == 1
        and "total_cents: the API requires it; no argument fills it" in mapped.output
    )
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    bad = runner.invoke(main, ["lint", str(broken), api])
    assert bad.exit_code == 2 and "not JSON" in bad.output
    alone = runner.invoke(main, ["lint", other])
    assert alone.exit_code == 2 and "no request schema or http to lint against" in alone.output
    # the two files swapped: the line names the one that is no OpenAPI document
    swapped = runner.invoke(main, ["lint", api, other])
    assert swapped.exit_code == 2 and f"{other}: not an OpenAPI 3.0/3.1" in swapped.output


def test_a_contracts_file_is_linted_alone_with_its_own_request_schema_and_mapping(tmp_path):
    contract = {
        "name": "create_invoice",
        "arguments_schema": {"type": "object", "properties": {"totalCents": {"type": "integer"}}},
        "request_schema": {"type": "object", "properties": {"total_cents": {"type": "integer"}}},
    }
    answer = CliRunner().invoke(main, ["lint", write(tmp_path, "contract.json", [contract])])
    assert answer.exit_code == 0 and "PASS   create_invoice" in answer.output


def body(properties: dict, required=()) -> dict:
    return {
        "type": "object",
        "properties": properties,
        **({"required": list(required)} if required else {}),
    }


TEXT, NUMBER = {"type": "string"}, {"type": "integer"}


def test_arguments_wrapped_in_one_body_object_or_nested_by_a_declared_mapping_pair():
    wrapped = {
        "arguments_schema": body({"sku": TEXT, "qty": NUMBER}, ["sku"]),
        "request_schema": body(
            {"data": body({"sku": TEXT, "quantity": NUMBER}, ["sku"]), "api": TEXT}
        ),
    }
    assert lint_contract(wrapped) == []
    nested = {
        "arguments_schema": body({"total": {"type": "number"}}, ["total"]),
        "request_schema": body(
            {"payment": body({"amount_cents": NUMBER}, ["amount_cents"])}, ["payment"]
        ),
        "mapping": [
            {"arguments": "/total", "request": "/payment/amount_cents", "transform": "x100"}
        ],
    }
    assert lint_contract(nested) == []


def test_array_items_pair_by_name_and_their_fields_are_compared():
    contract = {
        "arguments_schema": body(
            {"items": {"type": "array", "items": body({"sku": TEXT, "qty": TEXT})}}
        ),
        "request_schema": body(
            {"line_items": {"type": "array", "items": body({"sku": TEXT, "quantity": NUMBER})}}
        ),
    }
    [found] = lint_contract(contract)
    assert (found["kind"], found["left"]["path"], found["right"]["path"]) == (
        "type_mismatch",
        "/items/*/qty",
        "/line_items/*/quantity",
    )


def test_consumed_arguments_headers_and_one_valued_fields_are_no_error():
    contract = {
        "arguments_schema": body({"method": TEXT, "id": TEXT}, ["id"]),
        "consumed": ["/method"],
        "request_schema": body({"window": {"type": "string", "enum": ["24h"]}}, ["window"]),
        "http": {
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": TEXT},
                {"name": "Authorization", "in": "header", "required": True, "schema": TEXT},
                {"name": "version", "in": "path", "required": True, "schema": TEXT},
            ]
        },
    }
    found = {(f["kind"], f["severity"], f["right"]["path"]) for f in lint_contract(contract)}
    assert found == {
        ("unfilled_field", "info", "/window"),
        ("unfilled_field", "error", "path:/version"),
    }


def test_two_request_fields_as_close_to_an_argument_pair_with_neither():
    contract = {
        "arguments_schema": body({"start": TEXT}),
        "request_schema": body({"start_date": TEXT, "start_time": TEXT}),
    }
    assert [f["kind"] for f in lint_contract(contract)] == ["unmapped_argument"]


def as_anthropic(tools):
    return [
        {"name": t["function"]["name"], "input_schema": t["function"]["parameters"]} for t in tools
    ]


def as_mcp(tools):
    return {
        "result": {
            "tools": [
                {"name": t["function"]["name"], "inputSchema": t["function"]["parameters"]}
                for t in tools
            ]
        }
    }


@pytest.mark.parametrize("shape", [as_anthropic, as_mcp])
def test_anthropic_and_mcp_tools_lists_and_a_yaml_description_lint_alike(tmp_path, shape):
    yaml = pytest.importorskip("yaml")
    api = tmp_path / "api.yaml"
    api.write_text(yaml.safe_dump(INVOICES))
    tools = write(tmp_path, "tools.json", shape(DISAGREEING))
    answer = CliRunner().invoke(
        main, ["lint", tools, str(api), "--tool", "list_invoices", "--format", "json"]
    )
    assert answer.exit_code == 1, answer.output
    [linted] = orjson.loads(answer.output)["tools"]
    assert linted["operation"] == "listInvoices"
    assert {(m["kind"], (m["right"] or {}).get("path")) for m in linted["mismatches"]} == {
        ("type_mismatch", "query:/page_size"),
        ("enum_mismatch", "query:/status"),
        ("unfilled_field", "query:/customer_id"),
    }
    unknown = CliRunner().invoke(main, ["lint", tools, str(api), "--tool", "nope"])
    assert unknown.exit_code == 2 and "no tool 'nope' in the tools list" in unknown.output


def test_two_thousand_fields_pair_by_case_style_one_to_one():
    names = [f"field_number_{i}" for i in range(2000)]
    contract = {
        "arguments_schema": body({camel(n): TEXT for n in names}),
        "request_schema": body({n: TEXT for n in names}, names[::7]),
    }
    found = lint_contract(contract)
    assert {f["kind"] for f in found} == {"required_mismatch"} and len(found) == len(names[::7])


# shaped as Stripe's description: a form-encoded body
PAYMENT_INTENTS = {
    "openapi": "3.0.0",
    "info": {"title": "payments", "version": "1"},
    "paths": {
        "/v1/payment_intents": {
            "post": {
                "operationId": "PostPaymentIntents",
                "requestBody": {
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["amount", "currency"],
                                "properties": {
                                    "amount": {"type": "integer"},
                                    "currency": {"type": "string", "format": "currency"},
                                    "capture_method": {
                                        "type": "string",
                                        "enum": ["automatic", "manual"],
                                    },
                                    "metadata": {
                                        "anyOf": [
                                            {
                                                "type": "object",
                                                "additionalProperties": {"type": "string"},
                                            },
                                            {"type": "string", "enum": [""]},
                                        ]
                                    },
                                },
                            }
                        }
                    }
                },
                "responses": {"200": {"description": "the payment intent"}},
            }
        }
    },
}


def test_a_form_body_s_fields_are_compared_as_form_fields():
    payment = {
        "amount": {"type": "number"},
        "currency": {"type": "string", "format": "currency"},
        "captureMethod": {"type": "string", "enum": ["AUTOMATIC", "MANUAL"]},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    }
    tools = [tool("post_payment_intents", payment, ["amount", "currency"])]
    assert mismatches(tools, PAYMENT_INTENTS) == {
        ("type_mismatch", "error", "/amount", "form:/amount"),
        ("enum_mismatch", "error", "/captureMethod", "form:/capture_method"),
    }
    cents = [
        {
            "name": "post_payment_intents",
            "mapping": [{"arguments": "/amount", "request": "form:/amount", "transform": "x100"}],
        }
    ]
    assert mismatches(tools, PAYMENT_INTENTS, mapping=cents) == {
        ("enum_mismatch", "error", "/captureMethod", "form:/capture_method")
    }
    del payment["currency"]
    assert ("unfilled_field", "error", None, "form:/currency") in mismatches(tools, PAYMENT_INTENTS)


def test_one_argument_fills_the_same_name_in_the_path_and_the_body():
    # as PagerDuty's updateServiceEventRule asks for rule_id twice
    contract = {
        "arguments_schema": body({"rule_id": TEXT}, ["rule_id"]),
        "request_schema": body({"rule_id": TEXT}, ["rule_id"]),
        "http": {
            "parameters": [{"name": "rule_id", "in": "path", "required": True, "schema": TEXT}]
        },
    }
    assert lint_contract(contract) == []
    contract["request_schema"]["properties"]["rule_id"] = NUMBER
    [found] = lint_contract(contract)
    assert (found["kind"], found["left"]["path"], found["right"]["path"]) == (
        "type_mismatch",
        "/rule_id",
        "/rule_id",
    )


def test_the_mapping_file_may_be_what_tools_show_prints_or_a_bare_mapping_for_one_tool(tmp_path):
    runner = CliRunner()
    api, tools = write(tmp_path, "api.json", INVOICES), write(tmp_path, "tools.json", MATCHING)
    shown = {
        **TOTAL_X100[0],
        "arguments_schema": {"type": "object"},
        "updated_at": "2026-12-01T09:00:00Z",
    }
    one = runner.invoke(
        main,
        [
            "lint",
            tools,
            api,
            "--tool",
            "createInvoice",
            "--mapping",
            write(tmp_path, "s.json", shown),
        ],
    )
    assert one.exit_code == 0, one.output
    bare = write(tmp_path, "bare.json", {"mapping": TOTAL_X100[0]["mapping"]})
    assert (
        runner.invoke(
            main, ["lint", tools, api, "--tool", "createInvoice", "--mapping", bare]
        ).exit_code
        == 0
    )
    both = runner.invoke(main, ["lint", tools, api, "--mapping", bare])
    assert (
        both.exit_code == 2
        and "a mapping without a tool name applies to one tool only" in both.output
    )
    wrong = write(
        tmp_path,
        "wrong.json",
        [{"name": "createInvoice", "mapping": [{"arguments": "total", "request": "/x"}]}],
    )
    refused = runner.invoke(main, ["lint", tools, api, "--mapping", wrong])
    assert refused.exit_code == 2 and "'total' is not a JSON Pointer" in refused.output


def test_declared_transforms_make_the_issues_type_and_case_changes_expected():
    declared = [
        {
            "name": "list_invoices",
            "mapping": [
                {
                    "arguments": "/limit",
                    "request": "query:/page_size",
                    "transform": "integer>string",
                },
                {"arguments": "/status", "request": "query:/status", "transform": "lower>UPPER"},
            ],
        }
    ]
    assert mismatches(DISAGREEING, INVOICES, mapping=declared) == {
        ("unfilled_field", "error", None, "query:/customer_id")
    }


def test_a_url_template_s_variable_is_a_path_field_though_no_parameter_declares_it():
    contract = {
        "name": "markInvoicePaid",
        "arguments_schema": body(
            {"invoiceId": TEXT, "archived": {"type": "boolean"}}, ["invoiceId"]
        ),
        "request_schema": body({}),
        "http": {
            "method": "POST",
            "path": "/v1/invoices/{invoiceId}/pay",
            "parameters": [{"name": "archived", "in": "query", "schema": {"type": "boolean"}}],
        },
    }
    assert mismatches([contract], None) == set()
    unfilled = {**contract, "arguments_schema": body({"archived": {"type": "boolean"}})}
    assert mismatches([unfilled], None) == {("unfilled_field", "error", None, "path:/invoiceId")}


@pytest.mark.parametrize(
    ("mine", "theirs", "said"),
    [
        # 3.1's number
        ({"maximum": 100}, {"exclusiveMaximum": 10}, "maximum 100 where the API's is below 10"),
        # 3.0
        (
            {"maximum": 10},
            {"maximum": 10, "exclusiveMaximum": True},
            "maximum 10 where the API's is below 10",
        ),
        ({"minimum": 0}, {"exclusiveMinimum": 0}, "minimum 0 where the API's is above 0"),
        ({}, {"maximum": 10}, "no maximum where the API's is 10"),
        ({"exclusiveMaximum": 10}, {"maximum": 10}, None),
        ({"maximum": 9}, {"maximum": 10, "exclusiveMaximum": True}, None),
    ],
)
def test_exclusive_and_missing_bounds_are_compared_as_the_api_reads_them(mine, theirs, said):
    contract = {
        "arguments_schema": body({"weight": {"type": "number", **mine}}),
        "request_schema": body({"weight": {"type": "number", **theirs}}),
    }
    messages = [f["message"] for f in lint_contract(contract)]
    assert messages == ([f"weight: the tool allows more: {said}"] if said else [])


def test_a_tool_string_without_the_api_s_length_bounds_allows_more():
    contract = {
        "arguments_schema": body(
            {"note": TEXT, "code": {"type": "integer"}, "tag": {"type": "string", "maxLength": 9}}
        ),
        "request_schema": body(
            {
                "note": {"type": "string", "maxLength": 200},
                # another type: the type rule tells it
                "code": {"type": "string", "maxLength": 4},
                "tag": {"type": "string", "minLength": 1, "maxLength": 9},
            }
        ),
    }
    found = {(f["kind"], f["left"]["path"]): f["message"] for f in lint_contract(contract)}
    assert found == {
        ("range_mismatch", "/note"): "note: the tool allows more: no maxLength where the API's is "
        "200",
        ("type_mismatch", "/code"): "code: integer in the tool, string in the API",
        ("range_mismatch", "/tag"): "tag: the tool allows more: no minLength where the API's is 1",
    }


def test_a_local_tool_is_listed_as_not_linted_without_failing_the_others_unless_named(tmp_path):
    runner = CliRunner()
    api = write(tmp_path, "api.json", INVOICES)
    calculator = tool("add_numbers", {"a": NUMBER, "b": NUMBER})
    tools = write(tmp_path, "tools.json", [*MATCHING, calculator])
    mapping = write(tmp_path, "mapping.json", TOTAL_X100)
    mixed = runner.invoke(main, ["lint", tools, api, "--mapping", mapping])
    assert mixed.exit_code == 0, mixed.output
    assert (
        "SKIP   add_numbers: not linted: no operation of the OpenAPI document is named so"
        in mixed.output
    )
    assert "3 tools: 2 passed, 0 failed, 0 could not be checked, 1 not linted" in mixed.output
    junit = tmp_path / "lint.xml"
    github = runner.invoke(
        main,
        ["lint", tools, api, "--mapping", mapping, "--format", "github", "--junit", str(junit)],
    )
    assert (
        github.exit_code == 0
        and f"::notice file={tools},title=tracediff lint::add_numbers: not linted" in github.output
    )
    assert 'skipped="1"' in junit.read_text() and "<skipped " in junit.read_text()
    named = runner.invoke(
        main, ["lint", tools, api, "--tool", "add_numbers", "--tool", "list_invoices"]
    )
    assert named.exit_code == 2 and "BROKEN add_numbers: add_numbers: no operation" in named.output
    assert "PASS   list_invoices" in named.output and "createInvoice" not in named.output
    both = runner.invoke(
        main, ["lint", tools, api, "--tool", "createInvoice", "--tool", "list_invoices"]
    )
    assert (
        both.exit_code == 1
        and "FAIL   createInvoice" in both.output
        and "PASS   list_invoices" in both.output
    )


def test_an_operation_may_be_named_by_method_and_path():
    api = copy.deepcopy(INVOICES)
    del api["paths"]["/v1/invoices"]["post"]["operationId"]
    tools = copy.deepcopy(MATCHING[1:])
    found = mismatches(
        tools, api, mapping=TOTAL_X100, operations={"createInvoice": "POST /v1/invoices"}
    )
    assert found == {("enum_mismatch", "info", "/currency", "/currency")}


def test_an_operation_with_an_operation_id_may_be_named_by_method_and_path_too():
    # `GET /orders` was refused as "no operation 'GET /orders' (it has: search_orders)"
    tools = copy.deepcopy(MATCHING[1:])
    by_path = mismatches(
        tools, INVOICES, mapping=TOTAL_X100, operations={"createInvoice": "post /v1/invoices"}
    )
    by_id = mismatches(
        tools, INVOICES, mapping=TOTAL_X100, operations={"createInvoice": "createInvoice"}
    )
    assert by_path == by_id == {("enum_mismatch", "info", "/currency", "/currency")}


@pytest.mark.parametrize(("shape", "line"), [(lambda t: t, 9), (as_anthropic, 7), (as_mcp, 9)])
def test_github_annotations_land_on_the_line_declaring_the_argument_in_the_tools_file(
    tmp_path, shape, line
):
    api, tools = (
        write(tmp_path, "api.json", INVOICES),
        write(tmp_path, "tools.json", shape(DISAGREEING)),
    )
    lines = CliRunner().invoke(main, ["lint", tools, api, "--format", "github"]).output.splitlines()
    limit = Path(tools).read_text().splitlines()[line - 1]
    assert limit.strip().startswith('"limit"'), limit
    assert any(
        note.startswith(f"::error file={tools},line={line},title=type_mismatch::limit")
        for note in lines
    )
    tools = str(tmp_path / "one-line.json")
    # its lines cannot be told: the file, no line
    Path(tools).write_bytes(orjson.dumps(shape(DISAGREEING)))
    lines = CliRunner().invoke(main, ["lint", tools, api, "--format", "github"]).output.splitlines()
    assert any(
        note.startswith(f"::error file={tools},title=type_mismatch::limit") for note in lines
    )


def test_annotations_find_the_argument_past_server_tools_and_in_a_contracts_file(tmp_path):
    api = write(tmp_path, "api.json", INVOICES)
    server = {"type": "web_search_20250305", "name": "web_search"}
    tools = write(tmp_path, "tools.json", [server, *as_anthropic(DISAGREEING)])
    lines = CliRunner().invoke(main, ["lint", tools, api, "--format", "github"]).output.splitlines()
    assert any(
        note.startswith(f"::error file={tools},line=11,title=type_mismatch::limit")
        for note in lines
    )
    assert Path(tools).read_text().splitlines()[10].strip().startswith('"limit"')
    contract = {
        "name": "create_invoice",
        "arguments_schema": body({"totalCents": {"type": "string"}}),
        "request_schema": body({"total_cents": {"type": "integer"}}),
    }
    contracts = write(tmp_path, "contracts.json", [contract])
    lines = CliRunner().invoke(main, ["lint", contracts, "--format", "github"]).output.splitlines()
    assert Path(contracts).read_text().splitlines()[6].strip().startswith('"totalCents"')
    assert any(
        note.startswith(f"::error file={contracts},line=7,title=type_mismatch::totalCents")
        for note in lines
    )


def test_a_read_only_field_is_said_to_be_the_server_s_and_formats_take_their_article():
    contract = {
        "arguments_schema": body({"email": TEXT, "when": TEXT}),
        "request_schema": body(
            {
                "id": {"type": "string", "readOnly": True},
                "email": {"type": "string", "format": "email"},
                "when": {"type": "string", "format": "date-time"},
            },
            ["id"],
        ),
    }
    assert sorted(f["message"] for f in lint_contract(contract)) == [
        "email: the API wants an email string; the tool does not say so",
        "id: the API requires it and no argument fills it; it is read-only (the server fills it)",
        "when: the API wants a date-time string; the tool does not say so",
    ]


def test_openai_strict_mode_nulls_for_optional_fields_are_no_mismatch_where_the_api_leaves_them_optional(
    tmp_path,
):
    nullable = {
        "status": {"type": ["string", "null"], "enum": ["paid", "unpaid", None]},
        "limit": {"type": ["integer", "null"]},
    }
    tools = [
        {
            "type": "function",
            "function": {
                "name": "findOrders",
                "strict": True,
                "parameters": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"email": {"type": ["string", "null"]}, **nullable},
                    "required": ["email", "status", "limit"],
                },
            },
        }
    ]
    parameters = [
        {"name": "email", "in": "query", "required": True, "schema": {"type": "string"}},
        {"name": "status", "in": "query", "schema": {"type": "string", "enum": ["paid", "unpaid"]}},
        {"name": "limit", "in": "query", "schema": {"type": "integer"}},
    ]
    api = {
        "openapi": "3.0.3",
        "info": {"title": "shop", "version": "1"},
        "paths": {
            "/orders": {
                "get": {
                    "operationId": "findOrders",
                    "parameters": parameters,
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    (tmp_path / "tools.json").write_bytes(orjson.dumps(tools))
    (tmp_path / "api.json").write_bytes(orjson.dumps(api))
    result = CliRunner().invoke(
        main, ["lint", str(tmp_path / "tools.json"), str(tmp_path / "api.json"), "--format", "json"]
    )
    findings = [f for tool in orjson.loads(result.output)["tools"] for f in tool["mismatches"]]
    assert [(f["kind"], f["left"]["path"]) for f in findings if f["severity"] != "info"] == [
        ("type_mismatch", "/email")
    ]


def test_lint_advises_the_error_envelope_where_the_error_answers_declare_none():
    from webapp.analysis import DEFAULT_ERROR_SCHEMA
    from webapp.contracts.lint.envelope import lacks_the_envelope

    assert lacks_the_envelope({}) and lacks_the_envelope(
        {"error_schema": {"properties": {"message": {}}}}
    )
    assert not lacks_the_envelope({"error_schema": DEFAULT_ERROR_SCHEMA})
    wrapped = {
        "type": "object",
        "properties": {"error": {"properties": {k: {} for k in DEFAULT_ERROR_SCHEMA["required"]}}},
    }
    assert not lacks_the_envelope({"error_schema": wrapped})


ENVELOPE = {
    "type": "object",
    "required": ["code", "message", "retryable"],
    "properties": {
        "code": {"type": "string"},
        "message": {"type": "string"},
        "retryable": {"type": "boolean"},
    },
}
WRAPPED = {"type": "object", "required": ["error"], "properties": {"error": ENVELOPE}}
CREATE_THING = [
    {
        "name": "createThing",
        "input_schema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    }
]


def things_api(status: str, where: str, envelope: dict) -> dict:
    """An API whose createThing answers `status` with `envelope`, inline or by a $ref."""
    body = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answer = {"description": "bad", "content": {"application/json": {"schema": envelope}}}
    components = {}
    if where == "schemas":
        components = {"schemas": {"Error": envelope}}
        answer["content"]["application/json"]["schema"] = {"$ref": "#/components/schemas/Error"}
    elif where == "responses":
        components = {"responses": {"Bad": answer}}
        answer = {"$ref": "#/components/responses/Bad"}
    created = {"description": "made", "content": {"application/json": {"schema": {}}}}
    operation = {
        "operationId": "createThing",
        "requestBody": {"content": {"application/json": {"schema": body}}},
        "responses": {"201": created, status: answer},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "things", "version": "1"},
        "paths": {"/things": {"post": operation}},
        "components": components,
    }


@pytest.mark.parametrize("status", ["400", "default"])
@pytest.mark.parametrize("where", ["inline", "schemas", "responses"])
@pytest.mark.parametrize("envelope", [WRAPPED, ENVELOPE], ids=["wrapped", "top-level"])
def test_lint_gives_no_envelope_advice_where_the_openapi_error_answer_declares_it(
    tmp_path, status, where, envelope
):
    tools = write(tmp_path, "tools.json", CREATE_THING)
    api = write(tmp_path, "api.json", things_api(status, where, envelope))
    result = CliRunner().invoke(main, ["lint", tools, api])
    assert result.exit_code == 0, result.output
    assert "PASS   createThing" in result.output and "advice" not in result.output
    # the same answer without retryable is no envelope: advised
    partial = copy.deepcopy(envelope)
    inner = partial["properties"].get("error", partial)
    del inner["properties"]["retryable"]
    inner["required"].remove("retryable")
    api = write(tmp_path, "partial.json", things_api(status, where, partial))
    advised = CliRunner().invoke(main, ["lint", tools, api])
    assert "declare no envelope of code, message and retryable (createThing)" in advised.output


def test_lint_reads_tracediffs_own_error_envelope(client, tmp_path):
    document = client.get("/api/v1/openapi.json").get_json()
    api = write(tmp_path, "td-openapi.json", document)
    tools = write(tmp_path, "at.json", [{**CREATE_THING[0], "name": "adoptObserved"}])
    operation = "adoptObserved=POST /api/v1/tools/{name}/observed/adopt"
    result = CliRunner().invoke(main, ["lint", tools, api, "--operation", operation])
    assert "adoptObserved" in result.output and "advice" not in result.output, result.output
