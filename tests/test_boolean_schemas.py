"""A boolean schema is a schema everywhere.

`false` accepts no value, `true` every value."""

import json

import pytest
from click.testing import CliRunner
from helpers import TRACE, ndjson, order_call

from webapp import pipeline
from webapp.analysis import analyze_call
from webapp.cli import main
from webapp.contracts import check_contract, validated_contract


def snapshot(payload, status=None) -> dict:
    return {
        "payload": payload,
        "logged_as_string": False,
        "http": {"status_code": status} if status else None,
    }


@pytest.mark.parametrize("schema, valid", [(False, False), (True, True), ({}, True)])
def test_analysis_validates_every_snapshot_against_a_boolean_schema(schema, valid):
    contract = {
        "name": "t",
        "arguments_schema": schema,
        "request_schema": schema,
        "response_schema": schema,
    }
    result = analyze_call(
        {
            "arguments": snapshot({"limit": 5}),
            "request": snapshot({"limit": 5}),
            "response": snapshot({"orders": []}, 200),
        },
        contract,
    )
    for name in ("arguments", "request", "response"):
        assert result["validation"][name]["schema"] == f"{name}_schema"
        assert result["validation"][name]["valid"] is valid
    assert result["summary"]["validation_errors"] == (0 if valid else 3)


def test_a_false_error_schema_refuses_every_error_body():
    contract = {"name": "t", "error_schema": False}
    result = analyze_call(
        {
            "arguments": None,
            "request": None,
            "response": snapshot({"code": "x", "message": "y", "retryable": False}, 500),
        },
        contract,
    )
    assert result["validation"]["response"]["valid"] is False
    assert result["validation"]["response"]["schema"] == "error_schema"


def test_contract_checks_take_boolean_schemas_and_keep_them():
    assert check_contract({"arguments_schema": False, "request_schema": True}) == []
    assert validated_contract("t", {"arguments_schema": False, "request_schema": True}) == {
        "arguments_schema": False,
        "request_schema": True,
    }


def test_put_keeps_a_false_schema_and_the_stored_call_is_invalid(client, store):
    response = client.put("/api/v1/tools/findOrders", json={"arguments_schema": False})
    assert response.status_code == 200 and response.get_json()["arguments_schema"] is False
    client.post("/api/v1/ingest", data=ndjson(*order_call()))
    pipeline.catch_up(store)
    call = store.get_trace(TRACE)["calls"][0]
    assert call["validation"]["arguments"]["valid"] is False
    assert call["validation"]["arguments"]["errors"][0]["keyword"] == "false"


def test_check_exits_1_on_a_false_schema_and_0_on_a_true_one(tmp_path):
    args = tmp_path / "tool-args.json"
    args.write_text(json.dumps({"limit": 5}))
    for schema, code in ((False, 1), (True, 0)):
        contract = tmp_path / f"{schema}.json"
        contract.write_text(json.dumps({"arguments_schema": schema}))
        result = CliRunner().invoke(
            main, ["check", "--contract", str(contract), "--arguments", str(args)]
        )
        assert result.exit_code == code, result.output
