"""A tool imported from an OpenAPI operation.

Its response schemas check a result that stands for the server's answer.

The contract is the one `tools import` makes of an operation shaped as the OpenAPI Specification's
own Petstore example (YAML, integer status keys, a `default` error response, `$ref`s into
components)."""

import json

import pytest
import yaml
from click.testing import CliRunner
from helpers import ndjson

from webapp.analysis import analyze_call
from webapp.cli import main
from webapp.contracts import tools_from_openapi

PETSTORE = """
openapi: "3.0.0"
info: {title: Petstore (excerpt), version: 1.0.0}
paths:
  /pets/{petId}:
    get:
      operationId: showPetById
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string}}
      responses:
        200:
          description: the pet
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Pets"}
        default:
          description: unexpected error
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Error"}
components:
  schemas:
    Pet:
      required: [id, name]
      properties:
        id: {type: integer, format: int64}
        name: {type: string}
        tag: {type: string}
    Pets:
      type: array
      items: {$ref: "#/components/schemas/Pet"}
    Error:
      required: [code, message]
      properties:
        code: {type: integer, format: int32}
        message: {type: string}
"""
TRACE = "0e5a0000000000000000000000000024"


@pytest.fixture(scope="module")
def contract():
    return tools_from_openapi(yaml.safe_load(PETSTORE))["showPetById"]


def analyse(contract, result, response=None, meta=None):
    snapshots = {
        "arguments": {"payload": {"petId": "1"}},
        "result": {"payload": result, "meta": meta},
    }
    if response is not None:
        snapshots["response"] = {"payload": response, "http": {"status_code": 200}}
    return analyze_call(snapshots, contract)


def test_the_import_gives_the_response_and_error_schemas_and_no_result_schema(contract):
    assert contract["response_schema"]["type"] == "array"
    assert contract["error_schema"]["required"] == ["code", "message"]
    assert "result_schema" not in contract


@pytest.mark.parametrize(
    "result",
    [
        # an OpenAI role:tool text: the body as JSON text
        '[{"id": 1, "name": "doggie"}]',
        [{"id": 1, "name": "doggie"}],
        {"type": "tool_result", "content": '[{"id": 1, "name": "doggie"}]'},
    ],
)
def test_without_a_logged_response_a_body_passed_on_is_valid_against_the_operations_2xx_schema(
    contract, result
):
    assert analyse(contract, result)["validation"]["result"] == {
        "schema": "response_schema",
        "valid": True,
        "errors": [],
    }


def test_without_a_logged_response_a_body_that_breaks_the_2xx_schema_is_a_result_validation_error(
    contract,
):
    analysis = analyse(contract, '[{"id": "1", "name": "doggie"}]')
    validation = analysis["validation"]["result"]
    assert validation["schema"] == "response_schema" and validation["valid"] is False
    assert [e["path"] for e in validation["errors"]] == ["/0/id"]
    assert analysis["worst"] == "error"


def test_a_result_that_says_it_failed_is_checked_against_the_error_response_schema(contract):
    told = {"is_error": True}
    assert analyse(contract, '{"code": 404, "message": "Pet not found"}', meta=told)["validation"][
        "result"
    ]["valid"]
    broken = analyse(contract, '{"message": "Pet not found"}', meta=told)["validation"]["result"]
    assert broken["schema"] == "error_schema" and broken["valid"] is False
    assert "code" in broken["errors"][0]["message"]


def test_a_logged_response_is_validated_itself_and_the_result_checked_against_it_not_again(
    contract,
):
    body = [{"id": "1", "name": "doggie"}]
    analysis = analyse(contract, json.dumps(body), response=body)
    # the server's answer breaks the schema, once
    assert analysis["validation"]["response"]["valid"] is False
    assert "result" not in analysis["validation"]
    trimmed = analyse(contract, '[{"name": "doggie"}]', response=[{"id": 1, "name": "doggie"}])
    # a tool may leave fields out of what it hands over
    assert "result" not in trimmed["validation"]


def test_the_tools_own_shapes_are_not_held_to_the_response_schema(contract):
    mcp = {"content": [], "structuredContent": {"pet": {"id": 1, "name": "doggie"}}}
    # structuredContent: the outputSchema's to say
    assert "result" not in analyse(contract, mcp)["validation"]
    # no JSON to validate
    assert "result" not in analyse(contract, "Found doggie (id 1).")["validation"]


def test_a_declared_result_schema_outranks_the_response_schema(contract):
    own = {**contract, "result_schema": {"type": "object", "required": ["pet"]}}
    validation = analyse(own, '[{"id": 1, "name": "doggie"}]')["validation"]["result"]
    assert validation["schema"] == "result_schema" and validation["valid"] is False


def test_an_imported_operation_checks_ingested_results_in_the_store(client):
    imported = client.post("/api/v1/tools/import", data=PETSTORE, content_type="application/yaml")
    assert imported.get_json() == {"imported": ["showPetById"]}
    base = {
        "trace_id": TRACE,
        "call_id": "call_1",
        "tool": "showPetById",
        "ts": "2026-11-20T09:00:00Z",
    }
    events = [
        {**base, "snapshot": "arguments", "payload": {"petId": "1"}},
        {**base, "snapshot": "result", "payload": '[{"id": "1", "name": "doggie"}]'},
    ]
    assert client.post("/api/v1/ingest", data=ndjson(*events)).status_code == 200
    [call] = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"]
    assert call["validation"]["result"]["schema"] == "response_schema"
    assert [e["path"] for e in call["validation"]["result"]["errors"]] == ["/0/id"]


def test_tracediff_check_validates_the_result_against_the_openapi_document(tmp_path):
    (tmp_path / "petstore.yaml").write_text(PETSTORE)
    (tmp_path / "args.json").write_text('{"petId": "1"}')
    (tmp_path / "good.json").write_text('[{"id": 1, "name": "doggie"}]')
    (tmp_path / "bad.json").write_text('[{"id": "1", "name": "doggie"}]')
    base = [
        "check",
        "--contract",
        str(tmp_path / "petstore.yaml"),
        "--arguments",
        str(tmp_path / "args.json"),
    ]
    assert CliRunner().invoke(main, [*base, "--result", str(tmp_path / "good.json")]).exit_code == 0
    bad = CliRunner().invoke(main, [*base, "--result", str(tmp_path / "bad.json")])
    assert bad.exit_code == 1 and "result /0/id" in bad.output
