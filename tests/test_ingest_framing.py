"""Framing and encodings.

Whatever bytes a shipper sends, we find the records or say why not."""

import gc
import gzip
import sys
import tracemalloc
import zlib

import orjson
import pytest
import zstandard

from webapp.ingest import IngestError, Limits, parse_body

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def ev(i):
    return {"trace_id": TRACE, "call_id": f"call_{i}", "snapshot": "request", "payload": {"n": i}}


EVENTS = [ev(i) for i in range(3)]
LINES = [orjson.dumps(e) for e in EVENTS]


def call_ids(batch):
    return [e.call_id for e in batch.events]


def refused(body, **kw) -> IngestError:
    with pytest.raises(IngestError) as info:
        parse_body(body, **kw)
    return info.value


@pytest.mark.parametrize(
    "body",
    [
        # JSON array (Vector json, Fluent Bit json, Logstash json_batch)
        orjson.dumps(EVENTS),
        # NDJSON without trailing newline
        b"\n".join(LINES),
        # NDJSON with trailing newline
        b"\n".join(LINES) + b"\n",
        # CRLF
        b"\r\n".join(LINES) + b"\r\n",
        # blank lines ignored
        b"\n\n" + b"\n\n".join(LINES) + b"\n\n",
        # concatenated (Fluent Bit json_stream)
        b"".join(LINES),
        # concatenated with spaces
        b" ".join(LINES),
        orjson.dumps(EVENTS[0], option=orjson.OPT_INDENT_2)
        + orjson.dumps(EVENTS[1], option=orjson.OPT_INDENT_2)
        + b"\n"
        # pretty-printed, concatenated
        + orjson.dumps(EVENTS[2], option=orjson.OPT_INDENT_2),
        # UTF-8 byte order mark
        b"\xef\xbb\xbf" + orjson.dumps(EVENTS),
    ],
    ids=[
        "array",
        "ndjson",
        "ndjson-trailing-newline",
        "crlf",
        "blank-lines",
        "concatenated",
        "concatenated-spaces",
        "pretty-concatenated",
        "bom",
    ],
)
def test_every_framing_yields_the_same_events(body):
    assert call_ids(parse_body(body)) == ["call_0", "call_1", "call_2"]


def test_a_single_object_is_one_event():
    assert call_ids(parse_body(LINES[0])) == ["call_0"]


def test_an_empty_array_is_an_empty_batch():
    batch = parse_body(b"[]")
    assert batch.events == [] and batch.rejected == []


def test_a_broken_ndjson_line_is_one_rejection_indexed_by_line_and_the_others_are_accepted():
    body = LINES[0] + b'\n{"trace_id": "x", "snapshot": \n' + LINES[2] + b"\n"
    batch = parse_body(body)
    assert call_ids(batch) == ["call_0", "call_2"]
    [rej] = batch.rejected
    assert (rej.index, rej.code) == (1, "not_json")
    assert "line 2" in rej.message and rej.raw == '{"trace_id": "x", "snapshot":'


def test_a_line_holding_concatenated_objects_yields_each():
    batch = parse_body(LINES[0] + LINES[1] + b"\n" + LINES[2])
    assert call_ids(batch) == ["call_0", "call_1", "call_2"]


def test_a_concatenated_stream_broken_in_the_middle_keeps_what_came_before():
    batch = parse_body(LINES[0] + LINES[1] + b'{"trace_id": ')
    assert call_ids(batch) == ["call_0", "call_1"]
    assert [(r.index, r.code) for r in batch.rejected] == [(2, "not_json")]


def test_a_non_object_record_in_an_array_is_rejected_alone():
    batch = parse_body(orjson.dumps([EVENTS[0], 42, "x"]))
    assert call_ids(batch) == ["call_0"]
    assert [(r.index, r.code) for r in batch.rejected] == [(1, "bad_type"), (2, "bad_type")]


def test_an_array_with_a_trailing_comma_keeps_its_items_and_rejects_the_comma_alone(client):
    # [a, b,] was refused whole as "item 3 never ends": a shipper drops a 422, and a and b with it
    body = b"[" + LINES[0] + b", " + LINES[1] + b",\n]"
    batch = parse_body(body)
    assert call_ids(batch) == ["call_0", "call_1"]
    [rejected] = batch.rejected
    assert (rejected.index, rejected.code) == (2, "not_json")
    assert "trailing comma after item 2" in rejected.message
    answer = client.post("/api/v1/ingest", data=body)
    assert answer.status_code == 200 and answer.get_json()["accepted"] == 2


@pytest.mark.parametrize(
    "body,words",
    [
        (b"", "empty"),
        (b"  \n\r\n ", "empty"),
        (b"not json at all", "JSON"),
        (b'{"trace_id": "abc"', "JSON"),
        (b"42", "number"),
        (b'"just a string"', "str"),
        (b"{broken\n{also broken}\n", "JSON"),
    ],
)
def test_a_body_where_nothing_parses_is_refused_whole_with_422(body, words):
    err = refused(body)
    assert (err.status, err.code) == (422, "unparseable")
    assert words in err.message


@pytest.mark.parametrize(
    "bad,column",
    [(b'{"trace_id": x}', 14), (b"not json", 1), (b'{"a": 1,}', 8)],
)
def test_a_bad_ndjson_line_is_named_once_with_a_plain_reason_and_its_column(bad, column):
    message = parse_body(LINES[0] + b"\n" + bad + b"\n").rejected[0].message
    assert message.startswith("line 2 is not valid JSON: "), message
    assert message.endswith(f" at column {column}"), message
    # the parser's own position (its line 1) and wording stay out of it
    for words in ("line 1", "char ", "invalid literal", "the line"):
        assert words not in message, message


def test_invalid_utf8_refuses_a_single_object_body():
    err = refused(b'{"trace_id": "\xff\xfe", "snapshot": "request", "payload": 1}')
    assert (err.status, err.code) == (422, "unparseable") and "UTF-8" in err.message


def test_invalid_utf8_in_one_ndjson_line_rejects_only_that_line():
    batch = parse_body(LINES[0] + b'\n{"trace_id": "\xff"}\n' + LINES[1])
    assert call_ids(batch) == ["call_0", "call_1"]
    assert batch.rejected[0].index == 1 and "UTF-8" in batch.rejected[0].message


@pytest.mark.parametrize(
    "encoding,compress",
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: (lambda c: c.compress(b) + c.flush())(zlib.compressobj(wbits=-15))),
        ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
        ("identity", lambda b: b),
        ("GZIP", gzip.compress),
        (None, gzip.compress),
        (None, lambda b: zstandard.ZstdCompressor().compress(b)),
    ],
    ids=[
        "gzip",
        "x-gzip",
        "deflate-zlib",
        "deflate-raw",
        "zstd",
        "identity",
        "upper-case",
        "sniffed-gzip",
        "sniffed-zstd",
    ],
)
def test_every_content_encoding_is_undone(encoding, compress):
    body = compress(b"\n".join(LINES))
    assert call_ids(parse_body(body, content_encoding=encoding)) == ["call_0", "call_1", "call_2"]


def test_multi_member_gzip_is_read_whole():
    body = gzip.compress(LINES[0] + b"\n") + gzip.compress(LINES[1])
    assert call_ids(parse_body(body, content_encoding="gzip")) == ["call_0", "call_1"]


def test_an_unknown_content_encoding_is_refused_with_415():
    err = refused(b"\n".join(LINES), content_encoding="br")
    assert (err.status, err.code) == (415, "unsupported_encoding") and "'br'" in err.message


@pytest.mark.parametrize(
    "encoding,compress",
    [
        ("gzip", gzip.compress),
        ("zstd", lambda b: zstandard.ZstdCompressor().compress(b)),
        ("deflate", zlib.compress),
    ],
)
def test_a_truncated_compressed_body_is_refused_with_422(encoding, compress):
    body = compress(b"\n".join(LINES * 50))
    err = refused(body[:-8], content_encoding=encoding)
    assert (err.status, err.code) == (422, "unparseable") and "ends early" in err.message


def test_a_body_labelled_gzip_that_is_not_gzip_is_refused_with_422():
    err = refused(b"\n".join(LINES), content_encoding="gzip")
    assert (err.status, err.code) == (422, "unparseable") and "gzip" in err.message


@pytest.mark.parametrize(
    "compress",
    [gzip.compress, lambda b: zstandard.ZstdCompressor().compress(b)],
    ids=["gzip", "zstd"],
)
def test_a_decompression_bomb_is_refused_with_413_without_inflating_it(compress):
    bomb = compress(b"\0" * (64 * 1024 * 1024))
    assert len(bomb) < 1024 * 1024
    tracemalloc.start()
    try:
        err = refused(bomb, limits=Limits(max_body_bytes=1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (err.status, err.code) == (413, "too_large") and "1048576 bytes" in err.message
    # memory, not a clock: inflating the bomb would hold 64 MB at once
    assert peak < 16 * 1024 * 1024


def test_a_plain_body_over_the_cap_is_refused_with_413():
    err = refused(b"\n".join(LINES), limits=Limits(max_body_bytes=100))
    assert err.status == 413


def test_more_records_than_allowed_is_refused_with_422_too_many_events():
    err = refused(orjson.dumps(EVENTS), limits=Limits(max_events=2))
    assert (err.status, err.code) == (422, "too_many_events")
    assert parse_body(orjson.dumps(EVENTS), limits=Limits(max_events=3)).events


def deep(n):
    value = {"leaf": 1}
    for _ in range(n):
        value = {"x": value}
    return value


@pytest.mark.parametrize("framing", ["object", "array", "ndjson", "concatenated"])
def test_a_record_nested_deeper_than_the_limit_is_rejected_too_deep(framing):
    too_deep = {**ev(9), "payload": deep(70)}
    fine = {**ev(1), "payload": deep(20)}
    if framing == "object":
        # the only record is refused, so nothing parses
        with pytest.raises(IngestError):
            parse_body(orjson.dumps(too_deep))
        return
    join = {
        "array": lambda rs: orjson.dumps(rs),
        "ndjson": lambda rs: b"\n".join(map(orjson.dumps, rs)),
        "concatenated": lambda rs: b"".join(map(orjson.dumps, rs)),
    }[framing]
    batch = parse_body(join([fine, too_deep, fine]))
    assert call_ids(batch) == ["call_1", "call_1"]
    assert [(r.index, r.code) for r in batch.rejected] == [(1, "too_deep")]


def test_nesting_beyond_what_orjson_accepts_is_still_a_clean_rejection():
    hostile = b"[" * 5000 + b"]" * 5000
    batch = parse_body(LINES[0] + b"\n" + hostile)
    assert call_ids(batch) == ["call_0"] and batch.rejected[0].code == "too_deep"


def test_many_flat_brackets_are_not_mistaken_for_depth():
    wide = {**ev(1), "payload": {"items": [[{}] for _ in range(500)]}}
    assert call_ids(parse_body(orjson.dumps([wide]))) == ["call_1"]


def test_rejection_raw_text_is_cut_at_4_kib():
    huge = b'{"trace_id": "' + b"x" * 10000 + b'", "snapshot": "request", "payload": 1}'
    batch = parse_body(LINES[0] + b"\n" + huge)
    assert batch.rejected[0].code == "bad_trace_id" and len(batch.rejected[0].raw) == 4096


def test_parsing_work_grows_linearly_with_the_number_of_records():
    small = b"".join(LINES[i % 3] for i in range(500))
    large = b"".join(LINES[i % 3] for i in range(4000))
    # a count of calls, not a clock: the same on a loaded machine; quadratic would be 64x
    assert _calls_to_parse(large) < _calls_to_parse(small) * 8 * 1.5


def _calls_to_parse(body):
    """Count the Python and C function calls parse_body makes on body."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        calls += event in ("call", "c_call")

    gc.disable()
    sys.setprofile(count)
    try:
        batch = parse_body(body)
    finally:
        sys.setprofile(None)
        gc.enable()
    assert len(batch.events) == body.count(b"}{") + 1
    return calls


@pytest.mark.parametrize(
    "bad",
    [
        b'{"trace_id":"s","snapshot":"response","payload":{"a":"\\ud800"}}',
        b'{"trace_id":"s","snapshot":"response","payload":{"\\udc00k":"x"},"event_id":"e2"}',
    ],
)
def test_a_lone_surrogate_escape_rejects_its_event_alone(client, bad):
    good = b'{"trace_id":"s","snapshot":"request","payload":{"ok":1}}'
    response = client.post("/api/v1/ingest", data=good + b"\n" + bad)
    assert response.status_code == 200
    body = response.get_json()
    assert body["accepted"] == 1 and [r["code"] for r in body["rejected"]] == ["bad_value"]
