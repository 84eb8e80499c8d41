"""The exact requests real log shippers send are understood.

Through parse_body/parse_otlp and the endpoint."""

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from webapp.ingest import parse_body, parse_otlp

HERE = Path(__file__).parent
SHIPPERS = HERE / "fixtures" / "shippers"
FIXTURES = sorted(SHIPPERS.glob("*.json"))
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
DOC = HERE.parent / "docs" / "shippers.md"


def load(path):
    meta = json.loads(path.read_text())
    return meta, (SHIPPERS / meta["body_file"]).read_bytes()


def parse(meta, body):
    headers = meta["headers"]
    if meta["path"] == "/v1/traces":
        return parse_otlp(
            body,
            content_type=headers.get("Content-Type"),
            content_encoding=headers.get("Content-Encoding"),
        )
    return parse_body(body, content_encoding=headers.get("Content-Encoding"), headers=headers)


def test_there_is_a_fixture_for_every_shipper_the_docs_cover():
    shippers = {json.loads(p.read_text())["shipper"] for p in FIXTURES}
    assert shippers == {
        "vector",
        "fluent-bit",
        "fluentd",
        "logstash",
        "syslog-ng",
        "opentelemetry-collector",
    }


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_each_recorded_shipper_request_yields_the_call_snapshots(path):
    meta, body = load(path)
    batch = parse(meta, body)
    assert batch.rejected == []
    assert len(batch.events) == meta["expect"]["events"]
    snaps = {e.snapshot: e for e in batch.events}
    for ev in batch.events:
        assert (ev.trace_id, ev.call_id, ev.tool) == (TRACE, "call_01", "findOrders")
    assert snaps["arguments"].payload == {"customerEmail": "a@example.com", "limit": 5}
    if meta["expect"]["events"] == 3:
        assert snaps["request"].payload == {"customer_email": "a@example.com", "limit": "5"}
        assert snaps["response"].payload == {"orders": [], "total": 0}
        assert snaps["response"].http["status_code"] == 200


@pytest.mark.parametrize(
    "name,meta_keys",
    [
        ("vector-json-gzip", {"file", "host", "source_type", "timestamp"}),
        ("fluent-bit-json-lines", {"date"}),
        ("logstash-json-batch", {"@timestamp", "@version", "host", "log", "event"}),
    ],
)
def test_the_shippers_own_fields_are_kept_as_meta(name, meta_keys):
    meta, body = load(SHIPPERS / f"{name}.json")
    assert all(set(e.meta) == meta_keys for e in parse(meta, body).events)


def test_the_syslog_ng_recording_is_ndjson_labelled_as_a_form():
    meta, body = load(SHIPPERS / "syslog-ng-ndjson.json")
    assert meta["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
    assert body.count(b"\n") == 2 and not body.endswith(b"\n")


def test_the_events_from_every_shipper_have_the_same_ids_so_resends_deduplicate():
    ids = {}
    for path in FIXTURES:
        meta, body = load(path)
        if meta["path"] == "/api/v1/ingest":
            ids[path.stem] = sorted(e.event_id for e in parse(meta, body).events)
    assert len({tuple(v) for k, v in ids.items() if k != "logstash-json"}) == 1


@pytest.mark.slow
def test_the_fixtures_are_reproducible(tmp_path):
    copy = tmp_path / "shippers"
    shutil.copytree(SHIPPERS, copy)
    subprocess.run(["python", str(copy / "make_fixtures.py")], check=True)
    for path in SHIPPERS.glob("*.bin"):
        assert (copy / path.name).read_bytes() == path.read_bytes(), path.name


# Through the real endpoint (the lead's app fixture).


def post_fixture(client, path):
    meta, body = load(path)
    headers = {
        k: v for k, v in meta["headers"].items() if k.lower() not in ("host", "content-length")
    }
    return client.post(meta["path"], data=body, headers=headers)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_each_shipper_request_is_accepted_by_the_endpoint_and_stored(client, path):
    resp = post_fixture(client, path)
    assert resp.status_code == 200
    if path.stem.startswith("otelcol"):
        assert resp.mimetype in ("application/json", "application/x-protobuf")
    else:
        assert resp.get_json()["accepted"] == json.loads(path.read_text())["expect"]["events"]
        assert resp.get_json()["rejected"] == []
    trace = client.get(f"/api/v1/traces/{TRACE}").get_json()
    [call] = trace["calls"]
    assert call["call_id"] == "call_01" and call["snapshots"]["arguments"] is not None


def test_a_resent_shipper_batch_is_counted_as_duplicates(client):
    first = post_fixture(client, SHIPPERS / "vector-json-gzip.json").get_json()
    again = post_fixture(client, SHIPPERS / "vector-json-gzip.json").get_json()
    assert (first["accepted"], again["accepted"], again["duplicates"]) == (3, 0, 3)


def test_a_batch_with_one_bad_event_answers_200_with_its_rejection(client):
    body = (
        b'{"trace_id": "t-1", "snapshot": "request", "payload": {}}\n'
        b'{"trace_id": "t-1", "snapshot": "oops", "payload": 1}\n'
    )
    resp = client.post(
        "/api/v1/ingest", data=gzip.compress(body), headers={"Content-Encoding": "gzip"}
    )
    assert resp.status_code == 200
    data = resp.get_json()
    assert data["accepted"] == 1
    assert [(r["index"], r["code"], r["retryable"]) for r in data["rejected"]] == [
        (1, "bad_snapshot", False)
    ]


@pytest.mark.parametrize(
    "body,headers,status,code",
    [
        (b"this is not json", {}, 422, "unparseable"),
        (
            gzip.compress(b'{"trace_id": "t"}' * 100, mtime=0)[:-10],
            {"Content-Encoding": "gzip"},
            422,
            "unparseable",
        ),
        (
            b'{"trace_id": "t", "snapshot": "request", "payload": 1}',
            {"Content-Encoding": "br"},
            415,
            "unsupported_encoding",
        ),
    ],
)
def test_bodies_refused_whole_answer_with_the_error_shape(client, body, headers, status, code):
    resp = client.post("/api/v1/ingest", data=body, headers=headers)
    assert resp.status_code == status
    assert resp.get_json() == {
        "error": {"code": code, "message": resp.get_json()["error"]["message"], "retryable": False}
    }
    assert resp.get_json()["error"]["message"]


def test_a_decompression_bomb_answers_413(tmp_path):
    from webapp import create_app

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "t.db"),
            "ANALYZER": "off",
            "MAX_DECOMPRESSED_BYTES": 1024 * 1024,
        }
    )
    bomb = gzip.compress(b" " * (40 * 1024 * 1024))
    resp = app.test_client().post("/api/v1/ingest", data=bomb, headers={"Content-Encoding": "gzip"})
    assert resp.status_code == 413
    assert resp.get_json()["error"]["code"] == "too_large"


def test_otlp_json_with_a_bad_span_answers_partial_success_as_json(client):
    meta, body = load(SHIPPERS / "otelcol-json.json")
    doc = orjson.loads(body)
    orphan = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]
    # an HTTP span with no parent, outside every tool span's time: no call can own it (inside one's
    # time, it would join that tool span, as LangGraph's context-less spans do)
    orphan.update(parentSpanId="", startTimeUnixNano="1000", endTimeUnixNano="2000")
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"].append(
        {
            **doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0],
            "spanId": "00000000000000aa",
            "attributes": [{"key": "gen_ai.tool.call.id", "value": {"stringValue": "call_02"}}],
        }
    )
    resp = client.post(
        "/v1/traces", data=orjson.dumps(doc), headers={"Content-Type": "application/json"}
    )
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.get_json()["partialSuccess"]["rejectedSpans"] in ("1", 1)


# docs/shippers.md quotes the tested configuration.


def test_the_docs_quote_the_syslog_ng_template_verbatim():
    template = (HERE / "fixtures" / "syslog-ng.conf.tmpl").read_text()
    assert template.strip() in DOC.read_text()


@pytest.mark.skipif(shutil.which("syslog-ng") is None, reason="syslog-ng is not installed")
@pytest.mark.slow
def test_the_syslog_ng_template_is_valid_syslog_ng_configuration(tmp_path):
    template = (HERE / "fixtures" / "syslog-ng.conf.tmpl").read_text()
    conf = tmp_path / "syslog-ng.conf"
    conf.write_text(
        template.replace("{input_file}", str(tmp_path / "events.ndjson")).replace(
            "{url}", "http://127.0.0.1:8000/api/v1/ingest"
        )
    )
    result = subprocess.run(
        ["syslog-ng", "--syntax-only", "-f", str(conf)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_the_docs_show_every_fixture_mode():
    doc = DOC.read_text()
    for path in FIXTURES:
        assert re.search(re.escape(path.stem), doc), f"{path.stem} is not shown in docs/shippers.md"
