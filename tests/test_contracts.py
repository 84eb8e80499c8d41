"""Contracts: check_contract.

Tool definitions in every provider format, and OpenAPI import."""

import pytest

from webapp.analysis import DEFAULT_ERROR_SCHEMA, validate
from webapp.contracts import check_contract, tools_from_definitions, tools_from_openapi

SEARCH = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


# --- check_contract ----------------------------------------------------------------------


def test_a_sound_contract_has_no_problem():
    contract = {
        "name": "searchDocs",
        "arguments_schema": SEARCH,
        "request_schema": SEARCH,
        "response_schema": None,
        "error_schema": DEFAULT_ERROR_SCHEMA,
        "mapping": [
            {"arguments": "/query", "request": "/q"},
            {"request": "/id", "response": "/doc/id"},
            {"arguments": "/a~1b", "request": ""},
        ],
    }
    assert check_contract(contract) == []


def test_a_bad_type_name_is_refused_with_the_schema_and_the_place():
    problems = check_contract(
        {"request_schema": {"type": "object", "properties": {"limit": {"type": "integr"}}}}
    )
    assert problems == [
        "request_schema: /properties/limit/type: 'integr' is not valid under any of the given "
        "schemas"
    ]


def test_the_declared_dialect_is_the_one_checked():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "prefixItems": {"type": "number"},
    }
    assert check_contract({"arguments_schema": schema}) == [
        "arguments_schema: /prefixItems: {'type': 'number'} is not of type 'array'"
    ]
    assert check_contract(
        {"arguments_schema": {"$schema": "https://example.com/mine", "type": "object"}}
    ) == ["arguments_schema: /$schema: unknown dialect 'https://example.com/mine'"]


def test_a_schema_that_is_not_an_object_is_refused():
    assert check_contract({"response_schema": "object"}) == [
        "response_schema: a schema must be an object or a boolean, not str"
    ]


@pytest.mark.parametrize(
    "mapping, problem",
    [
        (
            [{"arguments": "totalCents", "request": "/amount"}],
            "mapping/0/arguments: 'totalCents' is not a JSON Pointer (e.g. \"/amount\")",
        ),
        (
            [{"arguments": "/a", "body": "/b"}],
            "mapping/0: unknown snapshot 'body' (use arguments, request, response, result)",
        ),
        ([{"arguments": "/a"}], "mapping/0: must pair exactly two snapshots"),
        (
            [{"arguments": "/a", "result": "/b"}],
            "mapping/0: a result field pairs with a response field",
        ),
        (
            [{"arguments": "/a~2", "request": "/b"}],
            "mapping/0/arguments: '/a~2' is not a JSON Pointer (e.g. \"/amount\")",
        ),
        ({"arguments": "/a"}, "mapping: must be a list of {snapshot: pointer} pairs"),
    ],
)
def test_mapping_entries_must_be_json_pointers_on_known_snapshots(mapping, problem):
    assert problem in check_contract({"mapping": mapping})


def test_a_mapping_entry_may_pair_a_response_field_with_the_result_field_handing_it_back():
    assert check_contract({"mapping": [{"response": "/id", "result": "/booking_id"}]}) == []


@pytest.mark.parametrize(
    "transform", ["bogus", "lower>bogus", "x\u0661\u0660\u0660", "x0", "array>string"]
)
def test_a_declared_transform_no_finding_could_match_is_refused(transform):
    """A typo'd transform would never quiet its finding; `x١٠٠` read as x100 by float()."""
    problems = check_contract(
        {"mapping": [{"arguments": "/a", "request": "/b", "transform": transform}]}
    )
    assert [p for p in problems if p.startswith("mapping/0/transform: ")], problems


@pytest.mark.parametrize(
    "transform", ["x100", "/1000", "integer>string", "lower>UPPER", "iso8601>epoch", "x7"]
)
def test_the_transforms_tracediff_names_are_accepted(transform):
    assert (
        check_contract({"mapping": [{"arguments": "/a", "request": "/b", "transform": transform}]})
        == []
    )


def test_a_mapping_entry_may_say_it_was_inferred_and_the_join_its_traffic_showed():
    """What the fixtures zip writes for the pairs inference learnt, so `tracediff check` pairs them
    the same way."""
    learnt = {
        "arguments": "/origins",
        "request": "query:/origins",
        "inferred": True,
        "separator": "|",
    }
    assert check_contract({"mapping": [learnt]}) == []
    problems = check_contract({"mapping": [{**learnt, "inferred": "yes", "separator": ""}]})
    assert "mapping/0/inferred: must be true or false" in problems
    assert 'mapping/0/separator: must be the text a list is joined with, such as "|"' in problems


def test_a_mapping_entry_may_carry_the_value_relation_its_traffic_showed():
    learnt = {
        "arguments": "/team",
        "request": "/teamId",
        "inferred": True,
        "relation": "looked up",
        "table": {"4f1c2a": "9b7e00"},
    }
    assert check_contract({"mapping": [learnt]}) == []
    problems = check_contract({"mapping": [{**learnt, "relation": 5, "table": {"a": 1}}]})
    assert 'mapping/0/relation: must be a string such as "joined ,"' in problems
    assert "mapping/0/table: must map input digests to output digests" in problems


def test_a_contract_put_with_a_bogus_transform_is_a_400_in_the_error_shape(client):
    answer = client.put(
        "/api/v1/tools/bbC",
        json={"mapping": [{"arguments": "/a", "request": "/b", "transform": "bogus"}]},
    )
    assert (
        answer.status_code == 400 and "mapping/0/transform" in answer.get_json()["error"]["message"]
    )


def test_the_default_error_schema_requires_code_message_and_retryable():
    assert DEFAULT_ERROR_SCHEMA["required"] == ["code", "message", "retryable"]
    assert (
        validate({"code": "x", "message": "y", "retryable": "no"}, DEFAULT_ERROR_SCHEMA)[0]["path"]
        == "/retryable"
    )


# --- tools_from_definitions ----------------------------------------------------------------


@pytest.mark.parametrize(
    "definition",
    [
        # Anthropic
        {"name": "search_docs", "description": "Search", "input_schema": SEARCH},
        # Chat Completions
        {"type": "function", "function": {"name": "search_docs", "parameters": SEARCH}},
        # Responses
        {"type": "function", "name": "search_docs", "parameters": SEARCH, "strict": True},
        # MCP tools/list
        {"tools": [{"name": "search_docs", "inputSchema": SEARCH}]},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"tools": [{"name": "search_docs", "inputSchema": SEARCH}]},
        },
        # Gemini Tool
        {"functionDeclarations": [{"name": "search_docs", "parameters": SEARCH}]},
        {"tools": [{"functionDeclarations": [{"name": "search_docs", "parameters": SEARCH}]}]},
        # bare Gemini
        {"name": "search_docs", "parameters": SEARCH},
        [{"name": "search_docs", "input_schema": SEARCH}],
    ],
    ids=[
        "anthropic",
        "openai-chat",
        "openai-responses",
        "mcp",
        "mcp-jsonrpc",
        "gemini",
        "gemini-tools",
        "gemini-bare",
        "list",
    ],
)
def test_every_provider_format_gives_the_arguments_schema(definition):
    assert tools_from_definitions(definition) == {"search_docs": {"arguments_schema": SEARCH}}


def test_a_list_of_several_tools_keeps_each():
    tools = tools_from_definitions(
        [
            {"name": "create_task", "input_schema": {"type": "object"}},
            {
                "type": "function",
                "function": {"name": "send_email", "parameters": {"type": "object"}},
            },
        ]
    )
    assert sorted(tools) == ["create_task", "send_email"]


def test_gemini_upper_case_types_and_nullable_become_json_schema():
    tools = tools_from_definitions(
        {
            "functionDeclarations": [
                {
                    "name": "add_note",
                    "parameters": {
                        "type": "OBJECT",
                        "properties": {"folder": {"type": "STRING", "nullable": True}},
                    },
                }
            ]
        }
    )
    assert tools["add_note"]["arguments_schema"] == {
        "type": "object",
        "properties": {"folder": {"type": ["string", "null"]}},
    }


@pytest.mark.parametrize(
    "bad, words",
    [
        ({"title": "x"}, "unknown tool definition shape"),
        ([{"name": "a", "input_schema": {}}, 5], "item 1: expected a tool definition object"),
        ({"type": "function", "function": {"parameters": {}}}, "without a name"),
        ([], "no tool definitions found"),
    ],
)
def test_unknown_shapes_raise_a_clear_value_error(bad, words):
    with pytest.raises(ValueError, match=words):
        tools_from_definitions(bad)


# --- tools_from_openapi ---------------------------------------------------------------------


def invoice_api(version="3.0.3"):
    return {
        "openapi": version,
        "info": {"title": "Invoices", "version": "1"},
        "paths": {
            "/invoices": {
                "post": {
                    "operationId": "createInvoice",
                    "requestBody": {"$ref": "#/components/requestBodies/NewInvoice"},
                    "responses": {
                        "201": {
                            "description": "ok",
                            "content": {
                                "application/json": {
                                    "schema": {"$ref": "#/components/schemas/Invoice"}
                                }
                            },
                        },
                        "400": {"$ref": "#/components/responses/Problem"},
                        "503": {"$ref": "#/components/responses/Problem"},
                        "default": {
                            "description": "other",
                            "content": {
                                "application/problem+json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"title": {"type": "string"}},
                                    }
                                }
                            },
                        },
                    },
                }
            }
        },
        "components": {
            "requestBodies": {
                "NewInvoice": {
                    "content": {
                        "application/json; charset=utf-8": {
                            "schema": {"$ref": "#/components/schemas/Invoice"}
                        }
                    }
                }
            },
            "responses": {
                "Problem": {
                    "description": "error",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    },
                }
            },
            "schemas": {
                "Invoice": {
                    "type": "object",
                    "required": ["amount"],
                    "properties": {
                        "amount": {"type": "integer", "minimum": 0, "exclusiveMinimum": True},
                        "note": {"type": "string", "nullable": True},
                        "status": {"type": "string", "enum": ["draft", "sent"], "nullable": True},
                        "example": {"type": "string", "example": "not a keyword here"},
                        "replaces": {"$ref": "#/components/schemas/Invoice"},
                    },
                },
                "Error": {
                    "type": "object",
                    "required": ["code", "message", "retryable"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "retryable": {"type": "boolean"},
                    },
                },
            },
        },
    }


def test_openapi_refs_are_inlined_and_a_recursive_ref_is_left_empty():
    tool = tools_from_openapi(invoice_api())["createInvoice"]
    props = tool["request_schema"]["properties"]
    assert props["replaces"] == {}
    assert props["example"] == {"type": "string", "example": "not a keyword here"}
    assert tool["response_schema"] == tool["request_schema"]


def test_openapi_30_nullable_becomes_a_type_union_with_null():
    props = tools_from_openapi(invoice_api())["createInvoice"]["request_schema"]["properties"]
    assert props["note"] == {"type": ["string", "null"]}
    assert props["status"] == {"type": ["string", "null"], "enum": ["draft", "sent", None]}
    assert props["amount"] == {"type": "integer", "exclusiveMinimum": 0}
    assert validate(
        {"amount": 0}, tools_from_openapi(invoice_api())["createInvoice"]["request_schema"]
    )


def test_openapi_error_responses_become_an_any_of_of_distinct_schemas():
    error = tools_from_openapi(invoice_api())["createInvoice"]["error_schema"]
    assert [branch.get("required") for branch in error["anyOf"]] == [
        ["code", "message", "retryable"],
        None,
    ]


def test_openapi_31_schemas_declare_the_2020_12_dialect():
    tool = tools_from_openapi(invoice_api("3.1.0"))["createInvoice"]
    assert tool["request_schema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # 3.1 has no nullable to translate
    assert "nullable" in tool["request_schema"]["properties"]["note"]


def test_operations_map_tool_names_to_operation_ids():
    tools = tools_from_openapi(invoice_api(), {"create_invoice": "createInvoice"})
    assert list(tools) == ["create_invoice"]
    with pytest.raises(ValueError, match="no operation 'deleteInvoice' in the OpenAPI document"):
        tools_from_openapi(invoice_api(), {"delete_invoice": "deleteInvoice"})


def test_a_document_that_is_not_openapi_3_is_refused():
    with pytest.raises(ValueError, match="not an OpenAPI 3.0/3.1 document"):
        tools_from_openapi({"swagger": "2.0", "paths": {}})


def test_every_imported_schema_passes_check_contract():
    for tool in tools_from_openapi(invoice_api()).values():
        assert check_contract(tool) == []


# --- documents, refs, descriptions and server tools (webapp.contracts) -----------------------

ORDERS_OPENAPI_YAML = """\
# An OpenAPI 3.0 document as people write it: comments, unquoted status codes, refs.
openapi: 3.0.3
info:
  title: Orders
  version: "1.4"
paths:
  /orders/search:
    post:
      operationId: findOrders
      summary: Search orders
      description: Search a customer's orders, newest first.
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/OrderQuery'
      responses:
        200:
          description: The orders found
          content:
            application/json:
              schema:
                type: object
                required: [orders]
                properties:
                  orders:
                    type: array
                    items: {$ref: '#/components/schemas/Order'}
        429:
          $ref: '#/components/responses/Problem'
components:
  responses:
    Problem:
      description: Too many requests
      content:
        application/json:
          schema:
            $ref: '#/components/schemas/Error'
  schemas:
    OrderQuery:
      type: object
      required: [customer_email]
      properties:
        customer_email: {type: string, format: email}
        limit: {type: integer, minimum: 1, maximum: 50}
        created_after: {type: string, format: date-time, example: 2026-08-20T09:00:00Z}
    Order:
      type: object
      properties:
        id: {type: string}
        status: {type: string, enum: [paid, shipped], nullable: true}
    Error:
      type: object
      required: [code, message, retryable]
      properties:
        code: {type: string}
        message: {type: string}
        retryable: {type: boolean}
"""


def test_a_yaml_openapi_document_becomes_contracts_with_its_description():
    from webapp.contracts import load_document, read_contracts

    document = load_document(ORDERS_OPENAPI_YAML.encode(), "orders.yaml", as_yaml=True)
    contract = read_contracts(document).contracts["findOrders"]
    assert contract["description"] == "Search a customer's orders, newest first."
    assert contract["request_schema"]["required"] == ["customer_email"]
    assert contract["response_schema"]["properties"]["orders"]["items"]["properties"]["status"][
        "type"
    ] == [
        "string",
        "null",
    ]
    assert contract["error_schema"]["required"] == ["code", "message", "retryable"]


@pytest.mark.parametrize(
    "ref, words",
    [
        ("#/components/schemas/Nope", "'#/components/schemas/Nope' points nowhere"),
        ("other.yaml#/X", "external $ref 'other.yaml#/X' is not supported"),
    ],
)
def test_an_openapi_ref_that_cannot_be_followed_is_a_contract_error_naming_its_place(ref, words):
    from webapp.contracts import ContractError, read_contracts

    document = invoice_api()
    document["components"]["schemas"]["Invoice"]["properties"]["replaces"] = {"$ref": ref}
    with pytest.raises(ContractError) as raised:
        read_contracts(document)
    assert raised.value.code == "bad_ref" and words in str(raised.value)
    assert "/components/schemas/Invoice/properties/replaces/$ref" in str(raised.value)


@pytest.mark.parametrize(
    "schema, where, ref",
    [
        ({"$ref": "#/definitions/missing"}, "/$ref", "#/definitions/missing"),
        ({"properties": {"a": {"$ref": "#/$defs/A"}}}, "/properties/a/$ref", "#/$defs/A"),
        (
            {"items": {"$ref": "https://example.com/item.json"}},
            "/items/$ref",
            "https://example.com/item.json",
        ),
    ],
)
def test_a_schema_ref_that_does_not_resolve_offline_is_named(schema, where, ref):
    from webapp.contracts import ref_problems

    [problem] = ref_problems({"arguments_schema": schema})
    assert problem.startswith(f"arguments_schema: {where}: $ref {ref!r} cannot be resolved")


def test_schema_refs_that_resolve_have_no_problem():
    from webapp.contracts import ref_problems

    schema = {
        "$id": "https://example.com/order.json",
        "definitions": {"id": {"type": "string"}},
        "properties": {
            "id": {"$ref": "#/definitions/id"},
            "again": {"$ref": "order.json#/definitions/id"},
            "self": {"$ref": "#"},
            "enum": {"enum": [{"$ref": "not a ref, a value"}]},
        },
    }
    assert ref_problems({"request_schema": schema}) == []


@pytest.mark.parametrize(
    "definition",
    [
        {"name": "search_docs", "description": "Search the docs", "input_schema": SEARCH},
        {
            "type": "function",
            "function": {
                "name": "search_docs",
                "description": "Search the docs",
                "parameters": SEARCH,
            },
        },
        {
            "type": "function",
            "name": "search_docs",
            "description": "Search the docs",
            "parameters": SEARCH,
        },
        {
            "tools": [
                {"name": "search_docs", "description": "Search the docs", "inputSchema": SEARCH}
            ]
        },
        {
            "functionDeclarations": [
                {"name": "search_docs", "description": "Search the docs", "parameters": SEARCH}
            ]
        },
    ],
    ids=["anthropic", "openai-chat", "openai-responses", "mcp", "gemini"],
)
def test_every_provider_format_keeps_the_tool_description(definition):
    from webapp.contracts import read_contracts

    assert read_contracts(definition).contracts["search_docs"]["description"] == "Search the docs"


def test_server_tools_are_skipped_and_the_others_read():
    from webapp.contracts import read_contracts

    imported = read_contracts(
        [
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
            {"name": "search_docs", "input_schema": SEARCH},
            {"type": "file_search", "vector_store_ids": ["vs_1"]},
        ]
    )
    assert list(imported.contracts) == ["search_docs"]
    assert [(s["name"], s["type"]) for s in imported.skipped] == [
        ("web_search", "web_search_20250305"),
        ("file_search", "file_search"),
    ]
