"""`tracediff check` on renaming mapping layers (issue 11 item 4).

Quiet with no history, reasons in --json."""

import json

from click.testing import CliRunner

from webapp.cli import main

TOOLS_LIST = [
    {
        "type": "function",
        "function": {
            "name": "book_tickets",
            "description": "Book seats",
            "parameters": {
                "type": "object",
                "required": ["event_id", "seats", "child_count"],
                "properties": {
                    "event_id": {"type": "string"},
                    "seats": {"type": "integer"},
                    "child_count": {"type": "integer"},
                    "wheelchair": {"type": "boolean"},
                    "n": {"type": "integer"},
                    "q": {"type": "string"},
                },
            },
        },
    }
]
ARGUMENTS = {
    "event_id": "evt_1",
    "seats": 2,
    "child_count": 0,
    "wheelchair": False,
    "n": 1,
    "q": "rome",
}
REQUEST = {
    "eventRef": "evt_1",
    "quantity": 2,
    "minors": 0,
    "access": {"wheelchair": False},
    "count": 1,
    "query": "rome",
    "channel": "assistant",
}


def check(tmp_path, contract, arguments, request, *extra):
    files = {}
    for name, document in (("contract", contract), ("arguments", arguments), ("request", request)):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(document))
    return CliRunner().invoke(
        main,
        [
            "check",
            "--contract",
            str(files["contract"]),
            "--arguments",
            str(files["arguments"]),
            "--request",
            str(files["request"]),
            *extra,
        ],
    )


def test_check_passes_a_correct_renaming_call_with_only_the_openai_tools_list(tmp_path):
    result = check(tmp_path, TOOLS_LIST, ARGUMENTS, REQUEST)
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output and "dropped" not in result.output


def test_check_json_gives_each_pairing_its_reason_and_transform(tmp_path):
    request = {**REQUEST, "quantity": "2"}
    result = check(tmp_path, TOOLS_LIST, ARGUMENTS, request, "--json")
    assert result.exit_code == 1
    findings = json.loads(result.output)["findings"]
    reasons = {
        (f["left"]["path"], f["right"]["path"]): f["reason"]
        for f in findings
        if f["left"] and f["right"]
    }
    assert reasons[("/n", "/count")] == "name" and reasons[("/q", "/query")] == "name"
    assert reasons[("/event_id", "/eventRef")] == "value"
    [changed] = [f for f in findings if f["kind"] == "type_changed"]
    assert (changed["left"]["path"], changed["right"]["path"]) == ("/seats", "/quantity")
    assert changed["transform"] == "integer>string" and changed["severity"] == "warning"


def test_check_uses_the_contracts_declared_mapping_to_find_a_swap(tmp_path):
    contract = {
        "name": "book_tickets",
        "arguments_schema": TOOLS_LIST[0]["function"]["parameters"],
        "mapping": [
            {"arguments": "/seats", "request": "/quantity"},
            {"arguments": "/child_count", "request": "/minors"},
        ],
    }
    swapped = {**REQUEST, "quantity": 0, "minors": 2}
    result = check(tmp_path, contract, ARGUMENTS, swapped, "--json")
    assert result.exit_code == 1
    loud = [
        (f["kind"], f["left"]["path"], f["reason"])
        for f in json.loads(result.output)["findings"]
        if f["severity"] == "warning"
    ]
    assert sorted(loud) == [
        ("value_changed", "/child_count", "declared"),
        ("value_changed", "/seats", "declared"),
    ]
