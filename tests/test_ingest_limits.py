"""Size and depth limits.

An over-limit body is a 413 in every framing, a too-deep event is rejected alone."""

import gzip
import io
import json
import random
import socket

import orjson
import pytest
from test_ingest_otlp import export, span

from webapp import create_app
from webapp.ingest import Limits, parse_body, parse_otlp

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
GOOD = {"trace_id": TRACE, "call_id": "good", "snapshot": "request", "payload": {}}


def good(i: int, noise: int = 0) -> bytes:
    return orjson.dumps(
        {
            **GOOD,
            "call_id": f"good_{i}",
            "payload": {"noise": random.Random(i).randbytes(noise).hex()},
        }
    )


def deep_event(depth: int) -> bytes:
    payload = "[" * depth + "]" * depth
    return b'{"trace_id":"%s","call_id":"deep","snapshot":"request","payload":%s}' % (
        TRACE.encode(),
        payload.encode(),
    )


FRAMINGS = {
    "array": lambda records: b"[" + b",".join(records) + b"]",
    "ndjson": lambda records: b"\n".join(records) + b"\n",
    "concatenated": lambda records: b"".join(records),
}


def make_app(tmp_path, **config):
    return create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "limits.db"), "ANALYZER": "off", **config}
    )


def post_chunked(client, body: bytes, path="/api/v1/ingest", **headers):
    """Post as a chunked request does under gunicorn: no Content-Length, a stream the server
    ends."""
    return client.post(
        path,
        input_stream=io.BytesIO(body),
        headers={"Transfer-Encoding": "chunked", **headers},
        environ_overrides={"wsgi.input_terminated": True},
    )


def assert_too_large(response):
    assert response.status_code == 413, response.get_data()[:300]
    assert response.get_json()["error"]["code"] == "too_large"
    assert response.get_json()["error"]["retryable"] is False


# 1. A chunked body over the size limit is refused whole, never parsed cut short.


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_a_chunked_body_over_the_size_limit_is_413_in_every_framing_and_encoding(
    tmp_path, framing, encoding
):
    app = make_app(tmp_path, MAX_BODY_BYTES=4000)
    body = FRAMINGS[framing]([good(i, noise=50) for i in range(200)])
    headers = {}
    if encoding == "gzip":
        body, headers = gzip.compress(body, mtime=0), {"Content-Encoding": "gzip"}
    assert len(body) > 4000
    assert_too_large(post_chunked(app.test_client(), body, **headers))
    assert app.test_client().get("/api/v1/traces").get_json()["traces"] == []


def test_a_single_oversized_chunked_event_is_413_not_unparseable(tmp_path):
    app = make_app(tmp_path, MAX_BODY_BYTES=4000)
    body = orjson.dumps({**GOOD, "payload": {"text": "x" * 10_000}})
    assert_too_large(post_chunked(app.test_client(), body))


def test_a_chunked_body_of_exactly_the_size_limit_is_accepted(tmp_path):
    body = b"\n".join(good(i) for i in range(20))
    app = make_app(tmp_path, MAX_BODY_BYTES=len(body))
    response = post_chunked(app.test_client(), body)
    assert response.status_code == 200 and response.get_json()["accepted"] == 20


def test_a_chunked_otlp_export_over_the_size_limit_is_413(tmp_path):
    app = make_app(tmp_path, MAX_BODY_BYTES=200)
    tool = span(
        b"\x01" * 8, "execute_tool", {"gen_ai.tool.call.arguments": '{"text": "%s"}' % ("x" * 1000)}
    )
    body = export(tool).SerializeToString()
    assert_too_large(
        post_chunked(
            app.test_client(), body, "/v1/traces", **{"Content-Type": "application/x-protobuf"}
        )
    )


def send_chunked(url: str, body: bytes, piece: int = 64 * 1024) -> tuple[int, dict]:
    """POST body with Transfer-Encoding: chunked over a raw socket; return the status and JSON
    answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(
            b"POST /api/v1/ingest HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Type: application/x-ndjson\r\n\r\n" % host.encode()
        )
        try:
            for start in range(0, len(body), piece):
                chunk = body[start : start + piece]
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            # the server may answer before reading all of it; its answer is still there to read
            pass
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, payload = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), orjson.loads(payload)


@pytest.mark.slow
def test_a_real_server_refuses_a_chunked_body_over_16_mib_with_413(live_server):
    events = [
        orjson.dumps({**GOOD, "call_id": f"call_{i}", "payload": {"text": "x" * 100_000}})
        for i in range(200)
    ]
    status, answer = send_chunked(live_server.url, b"\n".join(events) + b"\n")
    assert (status, answer["error"]["code"]) == (413, "too_large")
    assert live_server.logs().count("Traceback") == 0


@pytest.mark.slow
def test_a_real_server_takes_a_chunked_body_under_the_limit_whole(live_server):
    events = [
        orjson.dumps({**GOOD, "call_id": f"call_{i}", "payload": {"text": "x" * 50_000}})
        for i in range(200)
    ]
    status, answer = send_chunked(live_server.url, b"\n".join(events) + b"\n")
    assert (status, answer["accepted"], answer["rejected"]) == (200, 200, [])


# 2. Deep nesting: the good events are accepted, the deep one is rejected alone as too_deep.


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
@pytest.mark.parametrize("depth", [70, 500, 1000, 2000, 5000])
def test_one_deep_event_beside_good_ones_is_rejected_alone(client, framing, depth):
    body = FRAMINGS[framing]([good(0), deep_event(depth), good(2)])
    response = client.post("/api/v1/ingest", data=body)
    assert response.status_code == 200, response.get_data()[:300]
    answer = response.get_json()
    assert answer["accepted"] == 2
    assert [(r["index"], r["code"]) for r in answer["rejected"]] == [(1, "too_deep")]
    message = answer["rejected"][0]["message"]
    # "line 2 nests deeper", never "the line 2 nests deeper"
    assert "64 levels" in message and "the line" not in message and "the item" not in message


def test_the_deep_line_of_the_qa_report_is_quarantined_and_the_good_line_stored(client, store):
    body = b'%s\n{"trace_id":"x","snapshot":"request","payload":%s%s}\n' % (
        good(0),
        b"[" * 5000,
        b"]" * 5000,
    )
    answer = client.post("/api/v1/ingest", data=body).get_json()
    assert (answer["accepted"], [r["code"] for r in answer["rejected"]]) == (1, ["too_deep"])
    assert [row["code"] for row in store.quarantine()] == ["too_deep"]


@pytest.mark.parametrize(
    "body",
    [
        deep_event(5000),
        deep_event(100),
        b"[" * 5000 + b"]" * 5000,
        b"[" + deep_event(2000) + b"]",
        b'{"a":' * 3000 + b"1" + b"}" * 3000,
    ],
    ids=["event-5000", "event-100", "array-5000", "array-of-event-2000", "object-3000"],
)
def test_a_body_that_is_one_over_deep_value_is_422_too_deep(client, body):
    response = client.post("/api/v1/ingest", data=body)
    assert response.status_code == 422, response.get_data()[:300]
    assert response.get_json()["error"]["code"] == "too_deep"


def test_a_broken_array_is_still_refused_whole():
    with pytest.raises(Exception) as info:
        parse_body(b"[" + good(0) + b"," + good(1)[:-5])
    assert (info.value.status, info.value.code) == (422, "unparseable")


def test_a_deep_value_inside_concatenated_json_does_not_hide_the_records_after_it():
    batch = parse_body(good(0) + deep_event(3000) + good(2) + good(3))
    assert [e.call_id for e in batch.events] == ["good_0", "good_2", "good_3"]
    assert [(r.index, r.code) for r in batch.rejected] == [(1, "too_deep")]


# 3. One code for every 413, one depth limit in every message.


def test_a_body_over_the_raw_size_limit_is_413_too_large(tmp_path):
    response = (
        make_app(tmp_path, MAX_BODY_BYTES=1000)
        .test_client()
        .post("/api/v1/ingest", data=b"[" + b" " * 2000 + b"]")
    )
    assert_too_large(response)


def test_a_body_over_the_decompressed_size_limit_is_413_too_large(tmp_path):
    app = make_app(tmp_path, MAX_DECOMPRESSED_BYTES=1000)
    response = app.test_client().post(
        "/api/v1/ingest", data=gzip.compress(b" " * 5000), headers={"Content-Encoding": "gzip"}
    )
    assert_too_large(response)


def json_value(value) -> dict:
    """Return a value as an OTLP/JSON AnyValue."""
    if isinstance(value, dict):
        return {
            "kvlistValue": {
                "values": [{"key": k, "value": json_value(v)} for k, v in value.items()]
            }
        }
    if isinstance(value, list):
        return {"arrayValue": {"values": [json_value(v) for v in value]}}
    return {"stringValue": value}


def otlp_json_export(*arguments) -> bytes:
    """Return an OTLP/JSON export of one execute_tool span per gen_ai.tool.call.arguments value."""
    spans = [
        {
            "traceId": TRACE,
            "spanId": f"{i + 1:016x}",
            "name": "execute_tool",
            "attributes": [{"key": "gen_ai.tool.call.arguments", "value": json_value(value)}],
        }
        for i, value in enumerate(arguments)
    ]
    # orjson stops at 255 levels
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def otlp_rejection(value) -> str:
    batch = parse_otlp(
        otlp_json_export(value), content_type="application/json", limits=Limits(max_depth=64)
    )
    [rejection] = batch.rejected
    assert rejection.code == "too_deep"
    return rejection.message


def nested_dict(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth - 1):
        value = {"x": value}
    return value


@pytest.mark.parametrize(
    "case", ["record", "payload string", "wrapped message", "otlp string", "otlp value"]
)
def test_every_depth_message_names_the_same_limit(case):
    too_deep = "[" * 80 + "]" * 80
    if case == "otlp string":
        message = otlp_rejection(too_deep)
    elif case == "otlp value":
        message = otlp_rejection(nested_dict(80))
    else:
        record = {
            "record": deep_event(80),
            "payload string": orjson.dumps({**GOOD, "payload": too_deep}),
            "wrapped message": orjson.dumps({"host": "h", "message": deep_event(80).decode()}),
        }[case]
        [rejection] = parse_body(good(0) + b"\n" + record).rejected
        assert rejection.code == "too_deep"
        message = rejection.message
    assert "64 levels" in message and "63" not in message


def test_a_payload_may_nest_as_deep_as_the_limit_counting_the_event_whether_sent_as_json_or_as_a_string():
    limits = Limits(max_depth=10)
    at_limit, over = "[" * 9 + "]" * 9, "[" * 10 + "]" * 10
    for payload in (at_limit, orjson.loads(at_limit)):
        assert parse_body(orjson.dumps({**GOOD, "payload": payload}), limits=limits).events
    for payload in (over, orjson.loads(over)):
        batch = parse_body(
            good(0) + b"\n" + orjson.dumps({**GOOD, "payload": payload}), limits=limits
        )
        assert [r.code for r in batch.rejected] == ["too_deep"]


# 4. OTLP: a JSON string too deep is rejected per span, whatever its depth.


@pytest.mark.parametrize("depth", [200, 1100, 5000])
def test_an_otlp_argument_string_nested_too_deep_rejects_only_its_span(client, store, depth):
    body = otlp_json_export("[" * depth + "]" * depth, '{"limit": 5}')
    response = client.post("/v1/traces", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200 and response.mimetype == "application/json"
    partial = response.get_json()["partialSuccess"]
    assert int(partial["rejectedSpans"]) == 1 and "64 levels" in partial["errorMessage"]
    [row] = store.quarantine()
    assert row["code"] == "too_deep"
    assert [e.payload for e in parse_otlp(body, content_type="application/json").events] == [
        {"limit": 5}
    ]


def test_an_otlp_attribute_may_nest_as_deep_as_an_envelope_payload_whether_structured_or_a_string():
    limits = Limits(max_depth=10)
    for at_limit, over in (
        (nested_dict(9), nested_dict(10)),
        ("[" * 9 + "]" * 9, "[" * 10 + "]" * 10),
    ):
        batch = parse_otlp(
            otlp_json_export(at_limit, over), content_type="application/json", limits=limits
        )
        assert len(batch.events) == 1
        assert [(r.index, r.code) for r in batch.rejected] == [(1, "too_deep")]
