"""Streaming ingest.

A body is decompressed and split as it comes, so a worker never holds all of it parsed."""

import gzip
import json
from pathlib import Path

import httpx
import orjson
import pytest

from webapp import pipeline
from webapp.common import jsontext
from webapp.ingest import IngestError, Limits, parse_body
from webapp.ingest.decode import decoded_pieces
from webapp.ingest.stream import stream_records
from webapp.redaction.redactor import redactor_for

MiB = 1024 * 1024


def envelope(i: int, fields: int = 4) -> dict:
    payload = {f"field_{j}": (j if j % 3 else f"v{i}-{j}") for j in range(fields)}
    return {
        "trace_id": f"{i // 3:032x}",
        "call_id": f"c{i}",
        "snapshot": "request",
        "tool": "findOrders",
        "event_id": f"s-{i}",
        "payload": payload,
    }


def ndjson(events: int, fields: int = 4) -> bytes:
    return b"\n".join(orjson.dumps(envelope(i, fields)) for i in range(events)) + b"\n"


class Pieces:
    """An iterator of a body's pieces that counts how many were taken."""

    def __init__(self, body: bytes, size: int):
        self.parts = [body[i : i + size] for i in range(0, len(body), size)]
        self.taken = 0

    def __iter__(self):
        for part in self.parts:
            self.taken += 1
            yield part


def test_ndjson_records_come_out_before_the_rest_of_the_body_is_read():
    pieces = Pieces(ndjson(2000), 4096)
    records = stream_records(pieces, Limits())
    first = next(records)
    assert first.value["call_id"] == "c0"
    assert pieces.taken <= 2 < len(pieces.parts)
    assert [r.value["call_id"] for r in records][-1] == "c1999" and pieces.taken == len(
        pieces.parts
    )


def test_gzip_is_inflated_a_bounded_piece_at_a_time():
    # about 3 MiB: a few pieces of at most 1 MiB
    body = ndjson(4_000, 40)
    pieces = list(decoded_pieces(gzip.compress(body), "gzip", 64 * MiB))
    assert len(pieces) >= 3 and max(map(len, pieces)) <= MiB
    assert b"".join(pieces) == body


def test_lines_cut_across_pieces_are_whole_and_a_bad_line_is_rejected_alone():
    lines = ndjson(500).splitlines()
    # cut short
    lines[250] = b'{"trace_id": "x", "snapshot": "request", "payload": '
    body = gzip.compress(b"\r\n".join(lines))
    batch = parse_body(body, limits=Limits())
    assert len(batch.events) == 499
    assert [(r.index, r.code) for r in batch.rejected] == [(250, "not_json")]
    assert {e.call_id for e in batch.events} == {f"c{i}" for i in range(500)} - {"c250"}


def test_more_ndjson_records_than_allowed_stop_parsing_at_the_limit_with_422():
    made = []
    with pytest.raises(IngestError) as info:
        parse_body(ndjson(50), limits=Limits(max_events=20), prepare=lambda e: made.append(e) or e)
    assert (info.value.status, info.value.code) == (422, "too_many_events")
    # nothing past the limit was parsed
    assert len(made) == 20


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_a_body_over_the_decompressed_limit_stops_with_413_before_the_rest_is_parsed(encoding):
    body = ndjson(5000, 20)
    sent = gzip.compress(body) if encoding == "gzip" else body
    made = []
    with pytest.raises(IngestError) as info:
        parse_body(
            sent,
            content_encoding=encoding,
            limits=Limits(max_body_bytes=len(body) // 2),
            prepare=lambda e: made.append(e) or e,
        )
    assert (info.value.status, info.value.code) == (413, "too_large")
    assert 0 < len(made) < 2600


def test_an_ndjson_body_whose_lines_all_fail_is_still_refused_whole():
    with pytest.raises(IngestError) as info:
        parse_body(b'{"a": nope}\n{"b": nope}\n')
    assert (info.value.status, info.value.code) == (422, "unparseable")


def test_prepared_events_are_stored_as_their_json_text_redacted(store):
    body = orjson.dumps(
        {
            "trace_id": "t1",
            "snapshot": "request",
            "payload": {"password": "hunter2", "n": 1},
            "region": "eu",
        }
    )
    redactor = redactor_for({"REDACT": True, "REDACT_KEYS": ""})
    batch = parse_body(body, prepare=pipeline.preparer(redactor))
    assert pipeline.store_batch(store, batch, redactor, prepared=True).accepted == 1
    store.project_all()
    snapshot = store.get_trace("t1")["calls"][0]["snapshots"]["request"]
    assert (
        snapshot["payload"]["n"] == 1
        and "hunter2" not in orjson.dumps(snapshot["payload"]).decode()
    )
    assert snapshot["meta"] == {"region": "eu"}


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


@pytest.mark.parametrize("framing", ["ndjson", "array"])
@pytest.mark.slow
def test_a_workers_peak_memory_for_a_large_gzip_body_stays_within_three_times_the_body(
    make_server, framing
):
    """Before streaming, a worker's peak grew by 6.9 (NDJSON) and 9.6 (array) times the decompressed
    body (parsed values, redacted copies, rows); now by about 2.3 (the events' JSON text and the
    store's rows)."""
    server = make_server(workers=1, env={"TRACEDIFF_ANALYZER": "off"})
    httpx.post(server.url + "/api/v1/ingest", content=orjson.dumps(envelope(-3)), timeout=30)
    master = server.process.pid
    worker = int(Path(f"/proc/{master}/task/{master}/children").read_text().split()[0])
    before = status_kib(worker, "VmRSS")
    # about 32 MiB of many small fields, the costliest shape to parse
    body = ndjson(6000, 300)
    if framing == "array":
        body = b"[" + body.rstrip(b"\n").replace(b"\n", b",") + b"]"
    answer = httpx.post(
        server.url + "/api/v1/ingest",
        content=gzip.compress(body, 1),
        headers={"Content-Encoding": "gzip"},
        timeout=120,
    )
    assert answer.status_code == 200 and answer.json()["accepted"] == 6000
    growth = (status_kib(worker, "VmHWM") - before) * 1024
    assert growth < 3 * len(body), (
        f"peak grew {growth / MiB:.0f} MiB for {len(body) / MiB:.0f} MiB of {framing}"
    )


@pytest.mark.parametrize("framing", ["ndjson", "array"])
def test_more_events_than_allowed_is_422_too_many_events_as_the_api_page_and_openapi_say(
    tmp_path, framing
):
    from webapp import create_app
    from webapp.web import openapi

    client = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "m.db"), "ANALYZER": "off", "MAX_EVENTS": 5}
    ).test_client()
    events = [envelope(i) for i in range(6)]
    body = orjson.dumps(events) if framing == "array" else b"\n".join(map(orjson.dumps, events))
    answer = client.post("/api/v1/ingest", data=body)
    assert answer.status_code == 422 and answer.get_json()["error"]["code"] == "too_many_events"
    # nothing of it stored
    assert client.get("/api/v1/traces").get_json()["traces"] == []
    documented = openapi.document()["paths"]["/api/v1/ingest"]["post"]["responses"]["422"][
        "description"
    ]
    assert "too_many_events" in documented
    api_page = (Path(__file__).parent.parent / "docs" / "api.md").read_text()
    assert "`422 too_many_events`" in api_page


TRICKY = [
    {
        "text": 'é€😀 \\ " \u2028',
        "n": 123456789012345678901234567890,
        "neg": -9223372036854775809,
        "f": 1.5e300,
        "deep": [[[{"a": [1, {"b": None}]}]]],
        "t": True,
        "list": [{"x": 1}, {"y": 2}],
    },
    {"s": '}],{"not": "a boundary"}[', "empty": {}, "e": []},
]


def tricky_events() -> list[dict]:
    return [envelope(i) | {"payload": TRICKY[i % 2] | {"i": i}} for i in range(40)]


def batch_of(records) -> list:
    return [(r.index, r.value, r.error and r.error.code) for r in records]


@pytest.mark.parametrize("size", [1, 7, 4096])
def test_array_items_cut_anywhere_parse_as_the_whole_array_parses(size):
    body = json.dumps(tricky_events(), indent=2, ensure_ascii=False).encode()
    streamed = batch_of(stream_records(Pieces(body, size), Limits()))
    assert streamed == [(i, item, None) for i, item in enumerate(jsontext.loads(body))]
    # beyond 64 bits, exact
    assert streamed[0][1]["payload"]["n"] == 123456789012345678901234567890


def test_array_records_come_out_before_the_rest_of_the_body_is_read():
    pieces = Pieces(orjson.dumps([envelope(i, 40) for i in range(3000)]), 4096)
    records = stream_records(pieces, Limits())
    assert next(records).value["call_id"] == "c0" and pieces.taken <= 2 < len(pieces.parts)
    assert sum(1 for _ in records) == 2999


@pytest.mark.parametrize("size", [5, 4096])
def test_a_broken_or_deep_or_not_utf8_array_item_is_rejected_alone(size):
    items = [orjson.dumps(envelope(i)) for i in range(6)]
    items[1] = b'{"trace_id": "x", "payload": nope}'
    items[3] = b'{"trace_id": "x", "payload": "\xff\xfe"}'
    items[4] = b"[" * 70 + b"]" * 70
    body = b"[" + b",\n ".join(items) + b"]"
    found = {
        r.index: r.error and r.error.code for r in stream_records(Pieces(body, size), Limits())
    }
    assert found == {0: None, 1: "not_json", 2: None, 3: "not_json", 4: "too_deep", 5: None}


@pytest.mark.parametrize(
    "body",
    [
        b'[{"a": 1}] {"b": 2}',
        b'[{"a": 1} {"b": 2}]',
        b'[{"a": 1}, {"b": 2}',
        b'[{"a": 1}]\n[{"b": 2}]',
    ],
)
def test_a_body_that_starts_as_an_array_but_is_not_one_is_refused_whole(body):
    with pytest.raises(IngestError) as info:
        parse_body(body)
    assert (info.value.status, info.value.code) == (422, "unparseable")


def test_more_array_items_than_allowed_stop_parsing_at_the_limit_with_422():
    made = []
    with pytest.raises(IngestError) as info:
        parse_body(
            orjson.dumps([envelope(i) for i in range(50)]),
            limits=Limits(max_events=20),
            prepare=lambda e: made.append(e) or e,
        )
    assert (info.value.status, info.value.code) == (422, "too_many_events") and len(made) == 20


@pytest.mark.parametrize("framing", ["ndjson", "array", "pretty"])
def test_a_byte_order_mark_and_blank_lines_ahead_are_skipped_however_the_body_is_cut(framing):
    events = [envelope(i) for i in range(3)]
    body = {
        "ndjson": b"\n".join(map(orjson.dumps, events)),
        "array": orjson.dumps(events),
        "pretty": orjson.dumps(events[0], option=orjson.OPT_INDENT_2),
    }[framing]
    body = b"\xef\xbb\xbf \r\n\n  " + body
    for size in (1, 2, 3, 4096):
        records = list(stream_records(Pieces(body, size), Limits()))
        assert [r.value["call_id"] for r in records] == [e["call_id"] for e in events][
            : len(records)
        ]
        assert len(records) == (1 if framing == "pretty" else 3) and not any(
            r.error for r in records
        )
