"""The ingest envelope v1.

Required fields, type checks, normalisation, idempotency keys."""

from datetime import UTC, datetime

import orjson
import pytest
from helpers import envelope as helper_envelope
from helpers import ndjson, order_call

from webapp.common import times
from webapp.ingest import Event, Limits, parse_body

NOW = datetime(2026, 8, 20, 9, 30, tzinfo=UTC)
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def envelope(**over):
    ev = {
        "trace_id": TRACE,
        "call_id": "call_01",
        "snapshot": "arguments",
        "tool": "findOrders",
        "payload": {"customerEmail": "a@example.com", "limit": 5},
    }
    ev.update(over)
    return {k: v for k, v in ev.items() if v is not ...}


def one(ev, **kw) -> Event:
    batch = parse_body(orjson.dumps(ev), now=NOW, **kw)
    assert batch.rejected == []
    [event] = batch.events
    return event


def rejected(ev):
    batch = parse_body(orjson.dumps(ev), now=NOW)
    assert batch.events == []
    [rej] = batch.rejected
    return rej


def test_a_complete_envelope_becomes_one_event_with_every_field():
    ev = one(
        envelope(
            source="foundation_models",
            ts="2026-08-20T09:00:00Z",
            http={
                "method": "POST",
                "url": "https://api.example.com/orders",
                "status_code": 200,
                "headers": {"content-type": "application/json"},
            },
        )
    )
    assert (ev.trace_id, ev.call_id, ev.snapshot, ev.tool, ev.source) == (
        TRACE,
        "call_01",
        "arguments",
        "findOrders",
        "foundation_models",
    )
    assert ev.payload == {"customerEmail": "a@example.com", "limit": 5}
    assert ev.http == {
        "method": "POST",
        "url": "https://api.example.com/orders",
        "status_code": 200,
        "headers": {"content-type": "application/json"},
    }
    assert ev.ts == "2026-08-20T09:00:00.000000Z"
    assert ev.logged_as_string is False and ev.meta is None


def test_call_id_defaults_to_empty_and_ts_to_receive_time():
    ev = one(envelope(call_id=..., tool=...))
    assert ev.call_id == "" and ev.tool is None
    assert ev.ts == "2026-08-20T09:30:00.000000Z"


@pytest.mark.parametrize("missing", ["trace_id", "snapshot", "payload"])
def test_each_required_field_missing_is_rejected_with_missing_field(missing):
    rej = rejected(envelope(**{missing: ...}))
    assert rej.code == "missing_field"
    assert missing in rej.message
    assert rej.index == 0 and '"call_01"' in rej.raw


def test_a_null_payload_is_present_and_accepted():
    assert one(envelope(payload=None)).payload is None


@pytest.mark.parametrize(
    "payload,kept,as_string",
    [
        ("No orders found.", "No orders found.", False),
        ('{"orders": []}', {"orders": []}, True),
        ({"content": [{"type": "text", "text": "ok"}], "isError": False}, None, False),
    ],
)
def test_a_result_snapshot_takes_text_or_json_and_parses_a_json_string(payload, kept, as_string):
    ev = one(envelope(snapshot="result", payload=payload, is_error=False))
    assert ev.snapshot == "result" and ev.payload == (payload if kept is None else kept)
    assert ev.logged_as_string is as_string and ev.meta == {"is_error": False}


@pytest.mark.parametrize(
    "sent,kept", [(True, True), ("true", True), ("True", True), ("false", False), ("FALSE", False)]
)
def test_is_error_is_a_boolean_or_its_text_as_a_stringifying_shipper_writes_it(sent, kept):
    assert one(envelope(snapshot="result", payload="ok", is_error=sent)).meta == {"is_error": kept}


def test_a_null_is_error_says_nothing():
    assert one(envelope(snapshot="result", payload="ok", is_error=None)).meta == {"is_error": None}


@pytest.mark.parametrize("sent", ["yes", "1", "", 0, 1, [True], {"value": True}])
def test_any_other_is_error_rejects_its_event_alone_naming_what_it_got(sent):
    good = envelope(snapshot="result", payload="ok", call_id="call_02", is_error=True)
    batch = parse_body(
        orjson.dumps([envelope(snapshot="result", payload="ok", is_error=sent), good]), now=NOW
    )
    [rej] = batch.rejected
    assert (rej.index, rej.code) == (0, "bad_type")
    assert (
        rej.message.startswith("is_error must be true or false")
        and orjson.dumps(sent).decode() in rej.message
    )
    assert [e.call_id for e in batch.events] == ["call_02"]


def test_a_wrong_snapshot_name_is_rejected():
    rej = rejected(envelope(snapshot="args"))
    assert rej.code == "bad_snapshot" and "'args'" in rej.message and "result" in rej.message


@pytest.mark.parametrize("trace_id", ["", "x" * 129, "abc\ndef", "   ", 42, None, ".", ".."])
def test_trace_ids_that_are_empty_too_long_unprintable_or_not_text_are_rejected(trace_id):
    ev = envelope(trace_id=trace_id)
    code = rejected(ev).code
    assert code == ("missing_field" if trace_id is None else "bad_trace_id")


def test_a_32_hex_trace_id_is_lower_cased_and_others_are_kept_as_given():
    assert one(envelope(trace_id=TRACE.upper())).trace_id == TRACE
    assert one(envelope(trace_id="Order-Run-7")).trace_id == "Order-Run-7"
    assert one(envelope(trace_id="x" * 128)).trace_id == "x" * 128


@pytest.mark.parametrize(
    "field,value,code",
    [
        ("call_id", 7, "bad_type"),
        ("tool", ["findOrders"], "bad_type"),
        ("source", {"a": 1}, "bad_type"),
        ("event_id", 12, "bad_type"),
        ("event_id", "", "bad_value"),
        ("ts", 1755680400, "bad_type"),
        ("ts", "20/08/2026 09:00", "bad_value"),
        ("ts", "2026-02-30T09:00:00Z", "bad_value"),
        ("ts", "0001-01-01T00:00:00+01:00", "bad_value"),
        ("http", "POST /orders", "bad_type"),
        ("http", {"status_code": "200"}, "bad_type"),
        ("http", {"status_code": 700}, "bad_value"),
        ("http", {"status_code": True}, "bad_type"),
        ("http", {"method": 1}, "bad_type"),
        ("http", {"headers": {"x": 1}}, "bad_type"),
    ],
)
def test_every_optional_field_is_type_checked(field, value, code):
    rej = rejected(envelope(**{field: value}))
    assert rej.code == code
    assert field in rej.message


@pytest.mark.parametrize(
    "given,stored",
    [
        ("2026-08-20T11:00:00+02:00", "2026-08-20T09:00:00.000000Z"),
        ("2026-08-20t09:00:00.250z", "2026-08-20T09:00:00.250000Z"),
        # cut to microseconds, never rounded up
        ("2026-08-20 04:00:00.123456789-05:00", "2026-08-20T09:00:00.123456Z"),
        ("2026-08-20T23:30:00-01:00", "2026-08-21T00:30:00.000000Z"),
    ],
)
def test_ts_is_normalised_to_utc_with_z_and_six_fraction_digits(given, stored):
    assert one(envelope(ts=given), limits=Limits(max_clock_skew_s=86_400)).ts == stored


@pytest.mark.parametrize(
    "given", ["2027-06-16T09:30:00Z", "2026-08-20T09:35:01Z", "2026-08-20T10:36:00+01:00"]
)
def test_an_event_stamped_past_the_allowed_skew_is_stored_at_its_receive_time_keeping_what_was_sent(
    given,
):
    # NOW is 09:30; five minutes of skew allowed
    event = one(envelope(ts=given, event_id="e1"))
    assert event.ts == "2026-08-20T09:30:00.000000Z"
    assert event.meta["sent_ts"].startswith(given[:4]) and event.event_id == "e1"


@pytest.mark.parametrize(
    "given", ["2026-08-20T09:35:00Z", "2026-08-20T09:35:00.999Z", "2020-01-01T00:00:00Z"]
)
def test_an_event_stamped_within_the_allowed_skew_or_in_the_past_keeps_its_time(given):
    event = one(envelope(ts=given))
    assert event.ts == times.fixed(given) and not (event.meta or {}).get("sent_ts")


def test_the_allowed_skew_is_a_setting():
    assert (
        one(envelope(ts="2026-08-20T09:31:00Z"), limits=Limits(max_clock_skew_s=0)).ts
        == "2026-08-20T09:30:00.000000Z"
    )
    assert (
        one(envelope(ts="2026-08-21T09:00:00Z"), limits=Limits(max_clock_skew_s=86_400)).ts
        == "2026-08-21T09:00:00.000000Z"
    )


def test_http_keeps_only_method_url_status_code_and_headers():
    ev = one(
        envelope(
            snapshot="response",
            http={
                "method": "get",
                "status_code": 404,
                "elapsed_ms": 3,
                "headers": {"set-cookie": ["a=1", "b=2"]},
            },
        )
    )
    assert ev.http == {"method": "GET", "status_code": 404, "headers": {"set-cookie": "a=1, b=2"}}


def test_a_payload_logged_as_a_json_string_is_parsed_and_marked():
    ev = one(envelope(payload='{"limit": 5, "tags": ["a"]}'))
    assert ev.payload == {"limit": 5, "tags": ["a"]} and ev.logged_as_string is True
    assert one(envelope(payload="[1, 2]")).payload == [1, 2]


@pytest.mark.parametrize(
    "text", ['{"limit": 5,}', "{'limit': 5}", '{"limit": 5', "plain words", '"quoted"', "42"]
)
def test_a_string_payload_that_is_not_a_json_object_or_array_is_kept_as_text(text):
    ev = one(envelope(payload=text))
    assert ev.payload == text and ev.logged_as_string is False


def test_the_default_event_id_is_a_hash_of_trace_call_snapshot_and_payload():
    a = one(envelope(payload={"a": 1, "b": 2}))
    b = one(envelope(payload={"b": 2, "a": 1}, tool="otherName", ts="2026-01-01T00:00:00Z"))
    c = one(envelope(payload={"a": 1, "b": 3}))
    assert len(a.event_id) == 32 and int(a.event_id, 16) >= 0
    # key order, tool and ts do not make a new event
    assert a.event_id == b.event_id
    assert a.event_id != c.event_id
    assert a.event_id != one(envelope(payload={"a": 1, "b": 2}, snapshot="request")).event_id


def test_a_given_event_id_is_kept():
    assert one(envelope(event_id="evt-123")).event_id == "evt-123"


def test_a_payload_as_string_and_as_object_get_the_same_event_id():
    assert (
        one(envelope(payload='{"limit": 5}')).event_id
        == one(envelope(payload={"limit": 5})).event_id
    )


def test_unknown_top_level_fields_are_kept_as_meta():
    ev = one(envelope(date=1755680400.123, host="web-1"))
    assert ev.meta == {"date": 1755680400.123, "host": "web-1"}


def test_a_payload_string_nested_too_deep_is_rejected():
    deep = "[" * 70 + "]" * 70
    assert rejected(envelope(payload=deep)).code == "too_deep"
    ok = "[" * 10 + "]" * 10
    assert one(envelope(payload=ok), limits=Limits(max_depth=64)).logged_as_string


def test_trace_id_falls_back_to_headers_then_query_for_an_envelope():
    ev = envelope(trace_id=...)
    assert one(ev, headers={"X-Trace-Id": "run-42"}).trace_id == "run-42"
    assert one(ev, query={"trace_id": "run-43"}).trace_id == "run-43"


def test_one_bad_event_never_drops_the_good_ones():
    body = orjson.dumps([envelope(), envelope(snapshot="nope"), envelope(call_id="call_02")])
    batch = parse_body(body, now=NOW)
    assert [e.call_id for e in batch.events] == ["call_01", "call_02"]
    assert [(r.index, r.code) for r in batch.rejected] == [(1, "bad_snapshot")]


def test_a_request_given_by_its_url_needs_no_payload():
    url = "https://api.example.com/orders?status=paid"
    ev = one(envelope(snapshot="request", payload=..., http={"method": "get", "url": url}))
    assert ev.payload is None and ev.http == {"method": "GET", "url": url}


@pytest.mark.parametrize("payload", [None, ""])
def test_a_request_with_a_null_or_empty_payload_and_a_url_is_accepted(payload):
    ev = one(
        envelope(
            snapshot="request",
            payload=payload,
            http={"url": "https://api.example.com/orders?page=2"},
        )
    )
    assert ev.payload == payload


def test_two_get_requests_of_one_call_with_other_urls_are_two_versions_not_one_duplicate():
    first = one(
        envelope(
            snapshot="request", payload=..., http={"url": "https://api.example.com/orders?page=1"}
        )
    )
    second = one(
        envelope(
            snapshot="request", payload=..., http={"url": "https://api.example.com/orders?page=2"}
        )
    )
    assert first.event_id != second.event_id


@pytest.mark.parametrize("http", [None, {}, {"url": ""}, {"url": 5}, {"method": "GET"}])
def test_a_missing_payload_without_a_url_is_still_refused(http):
    rej = rejected(
        envelope(snapshot="request", payload=..., http=http if http is not None else ...)
    )
    assert rej.code in ("missing_field", "bad_type") and (
        "payload" in rej.message or "http.url" in rej.message
    )


def test_arguments_without_a_payload_are_refused_even_with_a_url():
    rej = rejected(envelope(payload=..., http={"url": "https://api.example.com/orders"}))
    assert rej.code == "missing_field" and "payload" in rej.message


@pytest.mark.parametrize(
    "sent,kinds", [("true", ["error_invented"]), ("false", []), (True, ["error_invented"])]
)
def test_a_stringified_is_error_reaches_the_way_back_and_another_value_is_rejected_alone(
    client, sent, kinds
):
    calls = [
        *order_call(),
        helper_envelope("result", "Could not load the orders", ts="2026-11-20T09:00:03Z"),
    ]
    calls[-1]["is_error"] = sent
    bad = helper_envelope("result", "ok", call_id="call_02", is_error="yes")
    answer = client.post("/api/v1/ingest", data=ndjson(*calls, bad)).get_json()
    assert answer["accepted"] == 4 and [r["code"] for r in answer["rejected"]] == ["bad_type"]
    assert answer["rejected"][0]["index"] == 4 and '"yes"' in answer["rejected"][0]["message"]
    [call] = client.get(f"/api/v1/traces/{TRACE}").get_json()["calls"]
    assert [f["kind"] for f in call["findings"] if f["kind"].startswith("error_")] == kinds


def test_an_event_id_given_again_to_another_event_rejects_that_record_alone(client):
    first = {"trace_id": "reuse", "call_id": "c", "snapshot": "arguments", "payload": {"a": 1}}
    other = {**first, "snapshot": "request", "payload": {"a": 2}}
    body = b"\n".join(
        orjson.dumps({**event, "event_id": "same-id"}) for event in (first, first, other)
    )
    answer = client.post("/api/v1/ingest", data=body).get_json()
    # the exact repeat is the same event: stored once
    assert (answer["accepted"], answer["duplicates"]) == (1, 1)
    [refused] = answer["rejected"]
    assert (refused["index"], refused["code"]) == (2, "event_id_reused")
    assert "'same-id'" in refused["message"] and "arguments" in refused["message"]
    # kept, not lost: the quarantine holds the refused record
    [held] = client.get("/api/v1/quarantine").get_json()["records"]
    assert held["code"] == "event_id_reused" and '"request"' in held["raw"]
    # without event ids each event gets its own, and both are stored
    answer = client.post("/api/v1/ingest", data=orjson.dumps(first) + b"\n" + orjson.dumps(other))
    assert answer.get_json()["accepted"] == 2
