"""Fuzzing the ingest endpoints.

Any body gets 200 or a documented 4xx in the error shape, never a 500."""

import gzip
import json
import zlib

import orjson
import pytest
from helpers import quick_and_thorough
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_durability import db_problems

from webapp import create_app

DOCUMENTED = {200, 413, 415, 422}
CASES = {"tried": 0}
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ENVELOPE_FIELDS = (
    "trace_id",
    "call_id",
    "snapshot",
    "tool",
    "source",
    "payload",
    "http",
    "ts",
    "event_id",
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.db"
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(path),
            "ANALYZER": "off",
            "MAX_BODY_BYTES": 2 * 1024 * 1024,
            "MAX_DECOMPRESSED_BYTES": 4 * 1024 * 1024,
        }
    )
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BODY_BYTES"]
    yield app
    assert db_problems(path) == []
    print(f"\n[fuzz] cases tried: {CASES['tried']}")


def check(app, body: bytes, path="/api/v1/ingest", **headers):
    """Post a body and check the answer is documented; return the JSON answer."""
    CASES["tried"] += 1
    response = app.test_client().post(path, data=body, headers=headers)
    assert response.status_code in DOCUMENTED, (response.status_code, response.get_data()[:300])
    if response.status_code != 200:
        error = response.get_json()["error"]
        assert set(error) == {"code", "message", "retryable"} and isinstance(error["message"], str)
    return response


def event(**changes) -> dict:
    base = {
        "trace_id": "fuzz0000000000000000000000000001",
        "call_id": "c1",
        "snapshot": "arguments",
        "tool": "findOrders",
        "payload": {"limit": 5},
    }
    return {**base, **changes}


def assert_per_event_answer(response, sent: int):
    answer = response.get_json()
    assert answer["accepted"] + answer["duplicates"] + len(answer["rejected"]) == sent
    for rejection in answer["rejected"]:
        assert 0 <= rejection["index"] < sent and rejection["code"] and rejection["message"]


@quick_and_thorough(20, 150)
def test_random_bytes_get_a_documented_answer(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(body=st.binary(max_size=2048))
    def holds(body):
        check(fuzz_app, body)
        check(fuzz_app, body, "/v1/traces", **{"Content-Type": "application/x-protobuf"})
        check(fuzz_app, body, "/v1/traces", **{"Content-Type": "application/json"})

    holds()


@quick_and_thorough(20, 150)
def test_truncated_compressed_bodies_get_a_documented_answer(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(
        cut=st.integers(min_value=0, max_value=400), encoding=st.sampled_from(["gzip", "deflate"])
    )
    def holds(cut, encoding):
        raw = orjson.dumps([event(call_id=f"c{i}") for i in range(20)])
        packed = gzip.compress(raw) if encoding == "gzip" else zlib.compress(raw)
        check(fuzz_app, packed[:cut], **{"Content-Encoding": encoding})

    holds()


@quick_and_thorough(20, 150)
def test_deep_nesting_is_rejected_or_stored_never_a_crash(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(depth=st.integers(min_value=1, max_value=3000), kind=st.sampled_from("[{"))
    def holds(depth, kind):
        nested = (
            ("[" * depth + "]" * depth) if kind == "[" else ('{"a":' * depth + "1" + "}" * depth)
        )
        body = ('{"trace_id":"deep","snapshot":"request","payload":' + nested + "}").encode()
        response = check(fuzz_app, body)
        if response.status_code == 200:
            assert_per_event_answer(response, 1)

    holds()


@quick_and_thorough(20, 150)
def test_a_deep_event_beside_good_ones_is_rejected_alone(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(
        depth=st.integers(min_value=1, max_value=3000),
        kind=st.sampled_from("[{"),
        framing=st.sampled_from(["array", "ndjson", "concatenated"]),
    )
    def holds(depth, kind, framing):
        nested = (
            ("[" * depth + "]" * depth) if kind == "[" else ('{"a":' * depth + "1" + "}" * depth)
        )
        deep = '{"trace_id":"deep","snapshot":"request","payload":' + nested + "}"
        records = [json.dumps(event(call_id="good_1")), deep, json.dumps(event(call_id="good_2"))]
        body = {
            "array": "[" + ",".join(records) + "]",
            "ndjson": "\n".join(records),
            "concatenated": "".join(records),
        }
        response = check(fuzz_app, body[framing].encode())
        assert response.status_code == 200
        assert_per_event_answer(response, 3)
        # the event object is the first level
        too_deep = depth + 1 > 64
        assert [(r["index"], r["code"]) for r in response.get_json()["rejected"]] == (
            [(1, "too_deep")] if too_deep else []
        )

    holds()


@quick_and_thorough(20, 150)
def test_huge_strings_in_any_field_get_a_documented_answer(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(
        size=st.integers(min_value=0, max_value=3 * 1024 * 1024),
        where=st.sampled_from(ENVELOPE_FIELDS),
    )
    def holds(size, where):
        check(fuzz_app, orjson.dumps(event(**{where: "x" * size})))

    holds()


@quick_and_thorough(20, 150)
def test_invalid_utf8_gets_a_documented_answer(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(
        body=st.binary(min_size=1, max_size=200),
        bad=st.sampled_from(
            [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"]
        ),
    )
    def holds(body, bad):
        valid = orjson.dumps(event(payload={"note": "x"}))
        at = valid.index(b'"x"') + 1
        check(fuzz_app, valid[:at] + bad + valid[at:])
        check(fuzz_app, body + bad + b"\n" + valid)

    holds()


@quick_and_thorough(20, 150)
def test_wrong_types_in_every_field_are_rejected_one_by_one(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(
        field=st.sampled_from(ENVELOPE_FIELDS),
        value=json_values,
        framing=st.sampled_from(["one", "array", "ndjson"]),
    )
    def holds(field, value, framing):
        good, bad = json.dumps(event(call_id="good")), json.dumps(event(**{field: value}))
        if framing == "one":
            body, sent = bad, 1
        elif framing == "array":
            body, sent = f"[{good}, {bad}, {good}]", 3
        else:
            body, sent = f"{good}\n{bad}\n", 2
        response = check(fuzz_app, body.encode())
        if response.status_code == 200:
            assert_per_event_answer(response, sent)

    holds()


@quick_and_thorough(20, 150)
def test_duplicate_keys_get_a_documented_answer(fuzz_app, examples):
    @settings(FUZZ, max_examples=examples)
    @given(field=st.sampled_from(ENVELOPE_FIELDS), first=json_values, second=json_values)
    def holds(field, first, second):
        text = json.dumps(event())[:-1]
        body = f'{text},"{field}":{json.dumps(first)},"{field}":{json.dumps(second)}}}'
        response = check(fuzz_app, body.encode())
        if response.status_code == 200:
            assert_per_event_answer(response, 1)

    holds()
