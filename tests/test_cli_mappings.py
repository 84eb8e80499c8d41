"""`tracediff tools map` and `tools import` keeping what the contract already says."""

import json

from click.testing import CliRunner

from webapp.cli import main
from webapp.store import Store


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_tools_map_declares_plain_names_as_top_level_pointers_and_full_pointers_as_given(db_path):
    result = run(
        "tools", "map", "bookTable", "seats=quantity", "/store/id=/locationId", "--db", db_path
    )
    assert result.exit_code == 0, result.output
    assert (
        "bookTable: /seats -> /quantity" in result.output
        and "2 mappings in the contract" in result.output
    )
    assert Store.open(db_path).get_tool("bookTable")["mapping"] == [
        {"arguments": "/seats", "request": "/quantity"},
        {"arguments": "/store/id", "request": "/locationId"},
    ]
    # a field maps once: replaced
    again = run("tools", "map", "bookTable", "seats=qty", "--db", db_path)
    assert again.exit_code == 0
    assert Store.open(db_path).get_tool("bookTable")["mapping"] == [
        {"arguments": "/store/id", "request": "/locationId"},
        {"arguments": "/seats", "request": "/qty"},
    ]


def test_tools_map_refuses_what_is_not_a_pair_with_a_usage_error(db_path):
    for bad in ("seats", "=quantity", "/a~2=/b"):
        result = run("tools", "map", "bookTable", bad, "--db", db_path)
        assert result.exit_code == 2 and (
            "ARGUMENT=REQUEST" in result.output or "JSON Pointer" in result.output
        )


def test_tools_map_refuses_a_transform_it_does_not_know_instead_of_reading_it_as_a_key(db_path):
    # a typo (x100 written as X100, lower>UPPER as lower-upper) once became the key "amount:X100"
    for typo in ("amount:X100", "amount:lower-upper"):
        result = run("tools", "map", "pay", f"total={typo}", "--db", db_path)
        assert result.exit_code == 2 and "is not a transform" in result.output, result.output
    assert Store.open(db_path).get_tool("pay") is None
    # a key that holds a colon is still declared, as a JSON Pointer
    kept = run("tools", "map", "pay", "total=/ns:amount", "--db", db_path)
    assert kept.exit_code == 0 and "pay: /total -> /ns:amount" in kept.output


def test_tools_map_refuses_an_unknown_transform_after_a_field_outside_the_body(db_path):
    # query:/x:bogus was declared as the query key "x:bogus"
    for typo in ("query:/x:bogus", "header:/X-Total:X100", "path:/id:lower-upper"):
        result = run("tools", "map", "pay", f"total={typo}", "--db", db_path)
        assert result.exit_code == 2 and "is not a transform" in result.output, result.output
    assert Store.open(db_path).get_tool("pay") is None
    kept = run(
        "tools", "map", "pay", "total=query:/x:x100", "limit=query:/page_size", "--db", db_path
    )
    assert kept.exit_code == 0, kept.output
    assert (
        "/total -> query:/x (x100)" in kept.output and "/limit -> query:/page_size" in kept.output
    )


def test_tools_map_reads_a_path_segment_index_as_a_pointer_not_a_division(db_path):
    # path:/2 (the third segment, findings' own name for it) was read as the key "path" /2
    result = run("tools", "map", "pay", "invoiceId=path:/2", "amount=path:/3:x100", "--db", db_path)
    assert result.exit_code == 0, result.output
    assert "/invoiceId -> path:/2" in result.output and "/amount -> path:/3 (x100)" in result.output
    assert Store.open(db_path).get_tool("pay")["mapping"] == [
        {"arguments": "/invoiceId", "request": "path:/2"},
        {"arguments": "/amount", "request": "path:/3", "transform": "x100"},
    ]
    # a body key named "path" scaled by /100 is written as a pointer
    scaled = run("tools", "map", "pay", "total=/path:/100", "--db", db_path)
    assert "/total -> /path (/100)" in scaled.output, scaled.output


OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bookTable",
            "description": "Book a table for a party at one of our restaurants.",
            "parameters": {
                "type": "object",
                "properties": {"seats": {"type": "integer"}},
                "required": ["seats"],
            },
        },
    }
]
OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "Bookings", "version": "1"},
    "paths": {
        "/bookings": {
            "post": {
                "operationId": "createBooking",
                "summary": "Create a booking",
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"quantity": {"type": "integer"}},
                            }
                        }
                    }
                },
                "responses": {
                    "201": {
                        "description": "made",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {"id": {"type": "string"}},
                                }
                            }
                        },
                    }
                },
            }
        }
    },
}


def test_an_openapi_import_adds_schemas_and_keeps_the_tool_description_and_mapping(
    tmp_path, db_path
):
    tools, api = tmp_path / "tools.json", tmp_path / "api.json"
    tools.write_text(json.dumps(OPENAI_TOOLS))
    api.write_text(json.dumps(OPENAPI))
    assert run("tools", "import", tools, "--db", db_path).exit_code == 0
    assert run("tools", "map", "bookTable", "seats=quantity", "--db", db_path).exit_code == 0
    result = run("tools", "import", api, "--operation", "bookTable=createBooking", "--db", db_path)
    assert result.exit_code == 0, result.output
    contract = Store.open(db_path).get_tool("bookTable")
    assert contract["description"] == "Book a table for a party at one of our restaurants."
    assert contract["mapping"] == [{"arguments": "/seats", "request": "/quantity"}]
    assert contract["arguments_schema"]["required"] == ["seats"]
    assert contract["request_schema"]["properties"] == {"quantity": {"type": "integer"}}
    assert contract["response_schema"]["properties"] == {"id": {"type": "string"}}


def test_an_openapi_import_still_describes_a_tool_that_had_no_description(tmp_path, db_path):
    api = tmp_path / "api.json"
    api.write_text(json.dumps(OPENAPI))
    assert (
        run(
            "tools", "import", api, "--operation", "bookTable=createBooking", "--db", db_path
        ).exit_code
        == 0
    )
    assert Store.open(db_path).get_tool("bookTable")["description"] == "Create a booking"


def test_the_docs_mapping_example_is_a_contract_tracediff_accepts():
    from conftest import ROOT

    from webapp.contracts import validated_contract

    contracts = (ROOT / "docs" / "contracts.md").read_text()
    section = contracts.split("## Mappings: declared and inferred", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    contract = validated_contract(example.pop("name"), example)
    assert {"arguments": "/total", "request": "/amount_cents", "transform": "x100"} in contract[
        "mapping"
    ]


def test_tools_map_declares_a_transform_and_the_analysis_enforces_it(db_path):
    import orjson

    from webapp import pipeline
    from webapp.ingest import parse_body

    result = run("tools", "map", "charge", "total=amount:x100", "--db", db_path)
    assert result.exit_code == 0, result.output
    assert "charge: /total -> /amount (x100)" in result.output
    store = Store.open(db_path)
    assert store.get_tool("charge")["mapping"] == [
        {"arguments": "/total", "request": "/amount", "transform": "x100"}
    ]
    events = []
    for trace, sent in (("a" * 32, 1250), ("b" * 32, 12.5)):
        base = {"trace_id": trace, "call_id": "c1", "tool": "charge", "ts": "2026-11-20T09:00:00Z"}
        events += [
            {**base, "snapshot": "arguments", "payload": {"total": 12.5, "note": "x"}},
            {**base, "snapshot": "request", "payload": {"amount": sent, "note": "x"}},
        ]
    pipeline.store_batch(store, parse_body(orjson.dumps(events)), None)
    pipeline.catch_up(store)
    worst = {t: store.get_trace(t)["calls"][0]["worst"] for t in ("a" * 32, "b" * 32)}
    assert worst == {"a" * 32: "info", "b" * 32: "warning"}
    store.close()


BOOKING = [
    ("arguments", {"seats": 4}, None),
    ("request", {"seats": 4}, None),
    ("response", {"id": "b_1", "guests": 4}, {"status_code": 201}),
    ("result", {"ok": True}, None),
]


def _dropped_on_the_way_back(store, trace_id):
    call = store.get_trace(trace_id)["calls"][0]
    return [
        f
        for f in call["findings"]
        if f["kind"] == "dropped" and f["left"] == {"snapshot": "response", "path": "/guests"}
    ]


def test_a_response_field_dropped_from_the_result_hints_the_command_that_quiets_it(db_path):
    import shlex

    import orjson

    from webapp import pipeline
    from webapp.ingest import parse_body

    store = Store.open(db_path)
    base = {"trace_id": "wb000001", "call_id": "c1", "tool": "bookTable2"}
    events = [
        {**base, "snapshot": stage, "payload": payload, **({"http": http} if http else {})}
        for stage, payload, http in BOOKING
    ]
    pipeline.store_batch(store, parse_body(orjson.dumps(events)), None)
    pipeline.catch_up(store)
    [dropped] = _dropped_on_the_way_back(store, "wb000001")
    hint = "declare the pair: "
    assert dropped["message"].startswith("guests dropped: not in the result")
    command = dropped["message"].split(hint, 1)[1]
    # it once declared an argument -> request pair, and the finding stayed
    assert command == "tracediff tools map bookTable2 --result guests=ok"
    result = run(*shlex.split(command)[1:], "--db", db_path)
    assert result.exit_code == 0, result.output
    assert "bookTable2: response:/guests -> result:/ok" in result.output
    assert store.get_tool("bookTable2")["mapping"] == [{"response": "/guests", "result": "/ok"}]
    assert _dropped_on_the_way_back(store, "wb000001") == []
    # the declared pair is checked as one: 4 handed back as true is the change it now names
    call = store.get_trace("wb000001")["calls"][0]
    assert [
        (f["kind"], f["left"]["path"], f["right"]["path"])
        for f in call["findings"]
        if f["left"] and f["right"]
    ] == [("value_changed", "/guests", "/ok")]
    store.close()


def test_tools_map_result_refuses_a_field_outside_the_body(db_path):
    result = run("tools", "map", "pay", "--result", "total=query:/x", "--db", db_path)
    assert result.exit_code == 2 and "JSON Pointer" in result.output, result.output
    assert Store.open(db_path).get_tool("pay") is None
