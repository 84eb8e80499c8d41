"""Contract patterns run in linear time (RE2, jsonschema-rs's `regex` engine).

The OWASP ReDoS list's catastrophic patterns are judged at once, a pattern no linear-time engine
runs is skipped and told (PUT, import, the tool page, lint), and the analysis' time budget covers
validation. The live attack, against a server, is in test_hostile_contracts.py."""

import time

import orjson
import pytest
from click.testing import CliRunner
from evil_patterns import BENIGN, EVIL, UNRUNNABLE, arguments_with, contract_with

from webapp.analysis import analyze_call, is_valid, validate
from webapp.analysis.schemas.declared import declares
from webapp.analysis.wire.request import match_template
from webapp.cli.main import main
from webapp.common import patterns
from webapp.contracts import check_contract, skipped_patterns
from webapp.contracts.lint import lint_contract

# Python's `re` takes hours on any of these values, RE2 microseconds: a bound no machine gets near
GENEROUS_SECONDS = 10
JUDGED = [*EVIL, BENIGN]


def _errors_at(errors: list[dict]) -> list[tuple[str, str]]:
    return [(e["path"], e["keyword"]) for e in errors]


def _pointer_token(text: str) -> str:
    return text.replace("~", "~0").replace("/", "~1")


@pytest.mark.parametrize("name, pattern, value", JUDGED, ids=[c[0] for c in JUDGED])
def test_a_catastrophic_pattern_refuses_its_evil_value_at_once_in_every_place(name, pattern, value):
    schema = contract_with(pattern)["arguments_schema"]
    began = time.monotonic()
    errors = validate(arguments_with(value), schema)
    assert time.monotonic() - began < GENEROUS_SECONDS
    assert _errors_at(errors) == [
        (f"/labels/{value}", "additionalProperties"),
        ("/q", "pattern"),
        ("/tags/0", "pattern"),
        ("/tags/1", "pattern"),
    ]
    assert errors[1]["message"] == f"{value!r} does not match {pattern!r}"
    assert is_valid(arguments_with(value), schema) is False


@pytest.mark.parametrize("name, pattern, value", EVIL, ids=[c[0] for c in EVIL])
def test_a_catastrophic_pattern_still_takes_what_it_matches(name, pattern, value):
    fitting = {"java_class_name": "abc.Def", "email": "ann@example.com"}.get(name, "a" * 36)
    schema = contract_with(pattern)["arguments_schema"]
    assert validate(arguments_with(fitting), schema) == []
    assert declares(schema, f"/labels/{fitting}") is True
    assert declares(schema, f"/labels/{value}") is False


@pytest.mark.parametrize("name, pattern, value", UNRUNNABLE, ids=[c[0] for c in UNRUNNABLE])
def test_a_pattern_no_linear_engine_runs_is_kept_told_and_skipped(name, pattern, value):
    contract = contract_with(pattern)
    # kept: many real documents hold lookaheads
    assert check_contract(contract) == []
    told = skipped_patterns(contract)
    assert [t["path"] for t in told] == [
        f"/arguments_schema/properties/labels/patternProperties/{_pointer_token(pattern)}",
        "/arguments_schema/properties/q/pattern",
        "/arguments_schema/properties/tags/items/pattern",
    ]
    kind = "a backreference" if name == "backreference" else "a lookahead or lookbehind"
    assert {t["reason"] for t in told} == {f"it has {kind}, which no linear-time engine runs"}
    began = time.monotonic()
    # neither the value is refused, nor the key, which the skipped pattern may declare
    assert validate(arguments_with(value), contract["arguments_schema"]) == []
    assert time.monotonic() - began < GENEROUS_SECONDS


def test_a_skipped_pattern_leaves_the_rest_of_its_schema_enforced():
    schema = {"type": "string", "maxLength": 3, "pattern": r"(\w)\1"}
    assert _errors_at(validate("abcd", schema)) == [("", "maxLength")]
    assert validate("ab", schema) == []


def test_patterns_in_data_are_data():
    schema = {"enum": [{"pattern": r"(\w)\1"}], "default": {"pattern": "(?=x)"}}
    assert patterns.runnable(schema) is schema
    assert validate({"pattern": r"(\w)\1"}, schema) == []


@pytest.mark.parametrize(
    "pattern, text, matches",
    [
        # ECMA-262's \uXXXX, which RE2 writes \x{...}
        (r"^\u00e9+$", "ééé", True),
        # a surrogate pair: one code point
        (r"^\uD83D\uDE00$", "😀", True),
        (r"^\u{1F600}$", "😀", True),
        (r"^a\cJb$", "a\nb", True),
        (r"^\p{Lu}", "Émile", True),
        # an escaped backslash and a 1: no backreference
        (r"\\1", "\\1", True),
        # a lone surrogate, as JSON may hold
        (r"^[a-z]+$", "ab\ud800", False),
    ],
)
def test_ecma_262_spellings_run_in_re2(pattern, text, matches):
    assert patterns.why_unrunnable(pattern) is None
    assert patterns.search(pattern, text) is matches


def test_unevaluated_properties_beside_a_catastrophic_pattern_is_judged_at_once():
    evil, value = EVIL[0][1], EVIL[0][2]
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "patternProperties": {evil: {"type": "string"}},
        "unevaluatedProperties": False,
    }
    began = time.monotonic()
    errors = validate({value: "x", "aaaa": "y"}, schema)
    assert time.monotonic() - began < GENEROUS_SECONDS
    assert [e["keyword"] for e in errors] == ["unevaluatedProperties"]
    assert value in errors[0]["message"] and "'aaaa'" not in errors[0]["message"]


def test_the_analysis_budget_covers_validation():
    schema = {"type": "array", "items": {"type": "string", "pattern": EVIL[0][1]}}
    snapshots = {"arguments": {"payload": [EVIL[0][2]] * 1500}, "request": {"payload": {"x": 1}}}
    # jsonschema imported: the budget counts the work, not the import
    validate([], schema)
    result = analyze_call(snapshots, {"arguments_schema": schema}, budget=0.001)
    assert result["incomplete"].startswith("stopped after its time budget of 0.001 s")
    unjudged = {"schema": "arguments_schema", "valid": None, "errors": []}
    assert result["validation"]["arguments"] == unjudged
    whole = analyze_call(snapshots, {"arguments_schema": schema}, budget=None)
    assert "incomplete" not in whole
    assert len(whole["validation"]["arguments"]["errors"]) == 500


def test_a_url_template_of_neighbouring_variables_is_matched_at_once():
    template = "/v1/" + "".join(f"{{v{i}}}" for i in range(12)) + "/x"
    began = time.monotonic()
    assert match_template(template, "/v1/" + "a" * 50 + "/y") is None
    assert time.monotonic() - began < GENEROUS_SECONDS
    assert match_template("/v1/{a}/x", "/v1/%C3%A9/x") == {"a": "é"}


# --- where a skipped pattern is told --------------------------------------------------------

LOOKAHEAD = r"^(?=.*\d).{8,}$"
PASSWORD = {"type": "string", "pattern": LOOKAHEAD}
CODE = {"name": "code", "in": "query", "schema": {"type": "string", "pattern": "(?!x)y"}}
TOOL = {
    "arguments_schema": {"type": "object", "properties": {"password": PASSWORD}},
    "request_schema": {"type": "object", "properties": {"password": {"type": "string"}}},
    "http": {"method": "POST", "path": "/v1/users", "parameters": [CODE]},
}
TOLD = ["/arguments_schema/properties/password/pattern", "/http/parameters/0/schema/pattern"]


def test_put_keeps_the_contract_and_tells_its_skipped_patterns(client):
    answer = client.put("/api/v1/tools/signup", json=TOOL)
    assert answer.status_code == 200
    assert [w["path"] for w in answer.json["warnings"]] == TOLD
    assert answer.json["warnings"][0]["message"] == (
        "/arguments_schema/properties/password/pattern: pattern '^(?=.*\\\\d).{8,}$' is skipped: "
        "it has a lookahead or lookbehind, which no linear-time engine runs"
    )
    shown = client.get("/api/v1/tools/signup").json
    assert shown["arguments_schema"] == TOOL["arguments_schema"]
    assert shown["warnings"] == answer.json["warnings"]
    # a GET PUT back
    assert client.put("/api/v1/tools/signup", json=shown).status_code == 200
    plain = client.put("/api/v1/tools/plain", json={"arguments_schema": {}})
    assert "warnings" not in plain.json


def test_import_tells_the_skipped_patterns_of_each_tool(client):
    catastrophic = contract_with(EVIL[0][1])["arguments_schema"]
    tools = {
        "tools": [
            {"name": "signup", "inputSchema": TOOL["arguments_schema"]},
            {"name": "search", "inputSchema": catastrophic},
        ]
    }
    body = orjson.dumps(tools)
    answer = client.post("/api/v1/tools/import", data=body, content_type="application/json")
    assert answer.status_code == 200
    assert answer.json["imported"] == ["search", "signup"]
    # the catastrophic pattern runs in RE2: nothing to tell of it
    assert list(answer.json["warnings"]) == ["signup"]
    told = answer.json["warnings"]["signup"][0]
    assert told.startswith("/arguments_schema/properties/password/pattern: ")


def test_the_tool_page_tells_the_skipped_patterns(client):
    client.put("/api/v1/tools/signup", json=TOOL)
    page = " ".join(client.get("/tools/signup").get_data(as_text=True).split())
    assert "2 patterns of this contract cannot run in linear time and are skipped" in page
    assert "<code>(?!x)y</code> (it has a lookahead or lookbehind" in page
    shown = client.get("/tools/signup.json").json
    assert [w["path"] for w in shown["warnings"]] == TOLD


def test_lint_tells_each_skipped_pattern_at_its_field_and_passes(tmp_path):
    found = [f for f in lint_contract(TOOL) if f["kind"] == "pattern_skipped"]
    assert [(f["severity"], f["left"], f["right"]) for f in found] == [
        ("info", {"snapshot": "arguments", "path": "/password"}, None),
        ("info", None, {"snapshot": "request", "path": "query:/code"}),
    ]
    tools = tmp_path / "contracts.json"
    tools.write_bytes(orjson.dumps([{"name": "signup", **TOOL}]))
    answer = CliRunner().invoke(main, ["lint", str(tools)])
    assert answer.exit_code == 0, answer.output
    said = "  info pattern_skipped: password: pattern '^(?=.*\\\\d).{8,}$' is skipped"
    assert f"PASS   signup\n{said}" in answer.output
