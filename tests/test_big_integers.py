"""Integers beyond 64 bits (a model's 30-digit id) keep every digit.

Parsed, stored, shown, compared, written."""

import json
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from helpers import envelope

from webapp.cli import main
from webapp.common import jsontext
from webapp.ingest import parse_otlp

BIG = 123456789012345678901234567890
# the same id with its last digit changed, as a mapping layer might
NEXT = BIG + 1
SAMPLES = Path(__file__).resolve().parent.parent / "sample_traces"
TRACE_A, TRACE_B = "b1" * 16, "b2" * 16
OTLP_TRACE = "eeee0000000000000000000000000006"


def ndjson(*events) -> bytes:
    return b"".join(jsontext.dumps(e) + b"\n" for e in events)


# --- the codec ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "number",
    [
        2**64,
        2**64 + 1,
        -(2**63) - 1,
        BIG,
        -BIG,
        12345678901234567890123,
        10**300,
        2**64 - 1,
        -(2**63),
    ],
)
def test_an_integer_of_any_width_parses_exactly_from_text_and_bytes(number):
    text = f'{{"id": {number}, "nested": [{{"id": {number}}}], "f": 0.5}}'
    expected = {"id": number, "nested": [{"id": number}], "f": 0.5}
    for data in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        value = jsontext.loads(data)
        assert value == expected and type(value["id"]) is int


@pytest.mark.parametrize(
    "text",
    [
        '{"phone": "12345678901234567890123", "n": 18446744073709551615, "m": -9223372036854775808}',
        '[1.00000000000000000000001, 2.5e-12345678901234567890, "x", true, null, {"é": "\\u00e9"}]',
        '{"ts": 1764756000000000000, "trace": "4bf92f3577b34da6a3ce929d0e0e4736"}',
        '{"rule": "------------------------", "dates": "2026-11-20-2026-11-20", "n": '
        "-1234567890123456789}",
    ],
)
def test_text_whose_numbers_orjson_keeps_parses_to_the_objects_orjson_gives(text):
    assert jsontext.loads(text) == orjson.loads(text)
    assert jsontext.loads(text.encode()) == orjson.loads(text)


def test_every_sample_trace_parses_to_the_objects_orjson_gives():
    lines = [
        line
        for path in sorted(SAMPLES.glob("*.ndjson"))
        for line in path.read_bytes().splitlines()
        if line
    ]
    assert lines and all(jsontext.loads(line) == orjson.loads(line) for line in lines)


@pytest.mark.parametrize(
    "text",
    [
        # a lone surrogate, refused as orjson refuses it
        f'{{"id": {BIG}, "s": "\\ud800"}}',
        f'{{"id": {BIG},',
        f"[{BIG}, NaN]",
        f"[{BIG}, 1e999]",
        # past a double's range orjson refuses an integer: so do we, as before
        f"[{BIG}, {10**400}]",
        f"\ufeff[{BIG}]",
        "[" * 1100 + str(BIG) + "]" * 1100,
    ],
)
def test_text_orjson_refuses_is_refused_with_its_error_whatever_integers_it_holds(text):
    with pytest.raises(orjson.JSONDecodeError) as expected:
        orjson.loads(text)
    with pytest.raises(jsontext.JSONDecodeError) as error:
        jsontext.loads(text)
    assert str(error.value) == str(expected.value) and isinstance(error.value, ValueError)


def test_not_utf8_bytes_with_a_long_integer_are_refused_as_orjson_refuses_them():
    data = b'{"id": ' + str(BIG).encode() + b', "s": "\xff"}'
    with pytest.raises(jsontext.JSONDecodeError, match="UTF-8"):
        jsontext.loads(data)


@pytest.mark.parametrize(
    "option",
    [
        0,
        jsontext.OPT_SORT_KEYS,
        jsontext.OPT_INDENT_2,
        jsontext.OPT_SORT_KEYS | jsontext.OPT_INDENT_2,
    ],
)
def test_an_integer_beyond_64_bits_is_written_exactly_in_the_form_orjson_writes(option):
    value = {"z": "é ✓", "id": 7, "list": [1.5, None, True, {"b": 7, "a": []}], "e": {}}
    written = jsontext.dumps(
        value | {"id": BIG, "list": [1.5, None, True, {"b": BIG, "a": []}]}, option=option
    )
    assert written == orjson.dumps(value, option=option).replace(b"7", str(BIG).encode())
    assert jsontext.loads(written)["id"] == BIG


def test_writing_keeps_orjson_errors_for_what_orjson_cannot_write():
    with pytest.raises(jsontext.JSONEncodeError, match="surrogates"):
        jsontext.dumps([BIG, "\ud800"])
    with pytest.raises(jsontext.JSONEncodeError, match="surrogates"):
        jsontext.dumps(["\ud800", BIG])
    with pytest.raises(TypeError):
        jsontext.dumps([BIG, object()])
    assert jsontext.dumps({1: BIG}, option=jsontext.OPT_NON_STR_KEYS) == f'{{"1":{BIG}}}'.encode()


# --- through the app, on both stores --------------------------------------------------------------


def post_call(client, trace_id: str, request_id, url: str | None = None) -> None:
    http = (
        {"method": "GET", "url": url}
        if url
        else {"method": "POST", "url": "https://api.example.com/accounts"}
    )
    events = [
        envelope("arguments", {"id": BIG, "limit": 5}, trace_id, ts="2026-11-20T09:00:00Z"),
        envelope(
            "request",
            {"id": request_id, "limit": 5},
            trace_id,
            ts="2026-11-20T09:00:01Z",
            http=http,
        ),
    ]
    if url:
        del events[1]["payload"]
    answer = client.post("/api/v1/ingest", data=ndjson(*events))
    assert answer.status_code == 200 and answer.get_json()["accepted"] == 2, answer.get_data(
        as_text=True
    )


def loud(call: dict) -> list[tuple[str, str, str]]:
    return [
        (f["kind"], f["left"]["path"], f["right"]["path"])
        for f in call["findings"]
        if f["severity"] != "info"
    ]


def test_a_big_id_passed_on_is_shown_and_kept_exactly_and_is_quiet(client, store):
    post_call(client, TRACE_A, BIG)
    answer = client.get(f"/api/v1/traces/{TRACE_A}")
    assert str(BIG) in answer.get_data(as_text=True) and "e+29" not in answer.get_data(as_text=True)
    [call] = answer.get_json()["calls"]
    assert loud(call) == []
    page = client.get(f"/traces/{TRACE_A}").get_data(as_text=True)
    assert str(BIG) in page and "1.2345678901234568" not in page
    [stored] = store.get_trace(TRACE_A)["calls"]
    assert stored["snapshots"]["arguments"]["payload"]["id"] == BIG
    assert stored["snapshots"]["request"]["payload"]["id"] == BIG


def test_a_big_id_whose_last_digit_changed_is_a_value_changed_at_its_path(client, store):
    post_call(client, TRACE_B, NEXT)
    [call] = client.get(f"/api/v1/traces/{TRACE_B}").get_json()["calls"]
    assert loud(call) == [("value_changed", "/id", "/id")]
    [finding] = [f for f in call["findings"] if f["kind"] == "value_changed"]
    assert str(BIG) in json.dumps(finding) and str(NEXT) in json.dumps(finding)
    [stored] = store.get_trace(TRACE_B)["calls"]
    assert stored["snapshots"]["request"]["payload"]["id"] == NEXT


@pytest.mark.parametrize("digits", [320, 4400])
def test_an_integer_past_a_doubles_range_is_refused_alone_and_its_trace_stays_readable(
    client, digits
):
    # the codec refuses such an integer when it reads the stored payload back, as orjson does: stored,
    # it made every view of its trace a 500
    huge = "9" * digits
    good = envelope("arguments", {"id": BIG}, TRACE_A, ts="2026-11-20T09:00:00Z")
    wide = (
        f'{{"trace_id": "{TRACE_A}", "call_id": "call_02", "snapshot": "response", "tool": '
        f'"findOrders", "payload": {{"id": {huge}}}}}\n'
    )
    answer = client.post("/api/v1/ingest", data=ndjson(good) + wide.encode())
    reply = answer.get_json()
    assert answer.status_code == 200 and reply["accepted"] == 1, reply
    [refused] = reply["rejected"]
    assert refused["index"] == 1 and "309 digits or more" in refused["message"]
    assert "infinity" not in refused["message"]
    trace = client.get(f"/api/v1/traces/{TRACE_A}")
    assert trace.status_code == 200, trace.get_data(as_text=True)
    assert [c["call_id"] for c in trace.get_json()["calls"]] == ["call_01"]
    assert client.get(f"/traces/{TRACE_A}").status_code == 200


def test_a_big_id_in_a_query_string_is_read_as_the_number_it_writes(client):
    post_call(client, TRACE_A, None, url=f"https://api.example.com/accounts?id={BIG}&limit=5")
    post_call(client, TRACE_B, None, url=f"https://api.example.com/accounts?id={NEXT}&limit=5")
    [same] = client.get(f"/api/v1/traces/{TRACE_A}").get_json()["calls"]
    [changed] = client.get(f"/api/v1/traces/{TRACE_B}").get_json()["calls"]
    assert loud(same) == []
    assert loud(changed) == [("value_changed", "/id", "query:/id")]


def test_an_otlp_json_attribute_holding_json_text_keeps_its_big_integer(client, store):
    arguments = {"stringValue": f'{{"id": {BIG}}}'}
    answer = client.post("/v1/traces", data=otlp_json(arguments), content_type="application/json")
    assert answer.status_code == 200, answer.get_data(as_text=True)
    [call] = store.get_trace(OTLP_TRACE)["calls"]
    assert call["snapshots"]["arguments"]["payload"] == {"id": BIG}
    assert str(BIG) in client.get(f"/api/v1/traces/{OTLP_TRACE}").get_data(as_text=True)


def test_an_otlp_json_int_attribute_beyond_int64_keeps_its_exact_text():
    # a JSON number
    arguments = {"kvlistValue": {"values": [{"key": "v", "value": {"intValue": NEXT}}]}}
    [event] = parse_otlp(otlp_json(arguments), content_type="application/json").events
    assert event.payload == {"v": str(NEXT)}


def otlp_json(arguments: dict) -> bytes:
    attributes = [
        {"key": "gen_ai.tool.name", "value": {"stringValue": "q"}},
        {"key": "gen_ai.tool.call.arguments", "value": arguments},
    ]
    span = {
        "traceId": OTLP_TRACE,
        "spanId": "00000000000000c1",
        "name": "execute_tool q",
        "startTimeUnixNano": "1764756000000000000",
        "endTimeUnixNano": "1764756000000000000",
        "attributes": attributes,
    }
    return jsontext.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]})


# --- tracediff check ------------------------------------------------------------------------------


def test_check_compares_big_ids_in_fixture_files_exactly(tmp_path):
    contract = {"arguments_schema": {"type": "object"}, "request_schema": {"type": "object"}}
    files = {
        "contract": contract,
        "args": {"id": BIG},
        "same": {"id": BIG},
        "changed": {"id": NEXT},
    }
    for name, value in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(value))

    def check(request: str):
        arguments = [
            "--contract",
            tmp_path / "contract.json",
            "--arguments",
            tmp_path / "args.json",
        ]
        return CliRunner().invoke(
            main, ["check", *map(str, arguments), "--request", str(tmp_path / request)]
        )

    assert check("same.json").exit_code == 0, check("same.json").output
    changed = check("changed.json")
    assert changed.exit_code == 1 and "value_changed" in changed.output, changed.output
    assert str(NEXT) in changed.output
