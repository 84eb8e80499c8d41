"""Rejected records are visible.

The quarantine page, its JSON twin, the API, health and the list's notice."""

import gzip

import orjson
from helpers import envelope, ndjson


def _send_bad_batch(client, agent="Vector/0.43.0"):
    body = (
        ndjson(envelope("request", {"limit": 5}))
        + b'{"trace_id": "t2", "snapshot": "bogus", "payload": 1}\n'
    )
    return client.post("/api/v1/ingest", data=body, headers={"User-Agent": agent})


def test_a_rejected_record_is_listed_with_its_sender_and_reason(client):
    assert _send_bad_batch(client).get_json()["accepted"] == 1
    body = client.get("/api/v1/quarantine").get_json()
    [record] = body["records"]
    assert record["source"] == "Vector/0.43.0"
    assert record["code"] and "snapshot" in record["message"]
    assert '"bogus"' in record["raw"]
    assert body["counts"] == {"total": 1, "last_hour": 1}
    assert body["next_cursor"] is None


def test_the_quarantine_pages_newest_first_with_a_cursor(client):
    for n in range(5):
        client.post(
            "/api/v1/ingest", data=f'{{"trace_id": "t{n}", "snapshot": "nope", "payload": {n}}}'
        )
    first = client.get("/api/v1/quarantine?limit=2").get_json()
    assert [r["raw"] for r in first["records"]] == [
        '{"trace_id": "t4", "snapshot": "nope", "payload": 4}',
        '{"trace_id": "t3", "snapshot": "nope", "payload": 3}',
    ]
    rest = client.get(f"/api/v1/quarantine?limit=10&cursor={first['next_cursor']}").get_json()
    assert [r["raw"][14:16] for r in rest["records"]] == ["t2", "t1", "t0"]
    assert rest["next_cursor"] is None


def test_a_bad_page_parameter_is_a_400_in_the_error_shape(client):
    for query, code in (
        ("limit=0", "bad_parameter"),
        ("limit=501", "bad_parameter"),
        ("limit=x", "bad_parameter"),
        ("cursor=abc", "bad_cursor"),
        ("cursor=-1", "bad_cursor"),
        ("cursor=0", "bad_cursor"),
        ("cursor=99999999999999999999", "bad_cursor"),
    ):
        response = client.get(f"/api/v1/quarantine?{query}")
        assert response.status_code == 400, query
        assert response.get_json()["error"]["code"] == code, query


def test_quarantined_secrets_stay_redacted_on_the_page(client):
    client.post(
        "/api/v1/ingest",
        data=b'{"trace_id": "t", "snapshot": "x", "payload": {"password": "hunter2!!"}}',
    )
    page = client.get("/quarantine").get_data(as_text=True)
    assert "hunter2" not in page and "[REDACTED]" in page


def test_the_page_escapes_what_was_sent(client):
    client.post(
        "/api/v1/ingest",
        data=b'{"trace_id": "<script>alert(1)</script>", "snapshot": "x", "payload": 1}',
        headers={"User-Agent": "<img src=x onerror=alert(2)>"},
    )
    page = client.get("/quarantine").get_data(as_text=True)
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x" in page


def test_health_counts_the_quarantine(client):
    _send_bad_batch(client)
    assert client.get("/api/v1/health").get_json()["quarantine"] == {"total": 1, "last_hour": 1}


def test_the_list_says_when_records_were_rejected_in_the_last_hour(client):
    assert "rejected in the last hour" not in client.get("/").get_data(as_text=True)
    _send_bad_batch(client)
    page = client.get("/").get_data(as_text=True)
    assert "1 record rejected in the last hour" in page and 'href="/quarantine"' in page


def test_an_empty_quarantine_says_so(client):
    page = client.get("/quarantine").get_data(as_text=True)
    assert "No rejected records" in page


def test_the_json_twin_and_the_htmx_fragment(client):
    _send_bad_batch(client)
    assert client.get("/quarantine.json").get_json()["records"][0]["code"]
    fragment = client.get("/quarantine", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and "<tr>" in fragment


def test_broken_utf8_says_where_in_plain_words(client):
    body = (
        ndjson(envelope("request", {"limit": 5}))
        + b'{"trace_id": "t", "snapshot": "request", "payload": "\xff"}\n'
    )
    rejected = client.post("/api/v1/ingest", data=body).get_json()["rejected"]
    assert "not valid UTF-8 at byte offset" in rejected[0]["message"]


def test_the_cli_names_the_file_it_read(tmp_path, store, db_path):
    from webapp.pipeline.bulk import ingest_files

    path = tmp_path / "events.ndjson.gz"
    path.write_bytes(
        gzip.compress(ndjson(envelope("request", {"limit": 5})) + b'{"snapshot": 1}\n')
    )
    ingest_files(store, [str(path)], redactor=None)
    [record] = store.quarantine()
    assert record["source"] == f"tracediff ingest {path}"


def test_an_old_database_gains_the_source_column(tmp_path):
    import sqlite3

    from webapp.store import Store

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute(
        "CREATE TABLE quarantine (id INTEGER PRIMARY KEY, received_at TEXT NOT NULL, code TEXT NOT "
        "NULL,"
        " message TEXT NOT NULL, raw TEXT)"
    )
    conn.execute(
        "INSERT INTO quarantine VALUES (1, '2026-11-30T00:00:00.000000Z', 'not_json', 'old', 'x')"
    )
    conn.commit()
    conn.close()
    store = Store(path)
    assert store.quarantine()[0]["source"] is None
    assert orjson.dumps(store.quarantine_counts())
    store.close()


# ---- bodies refused whole: still a 422, and now seen in the quarantine, health and rejection alerts ----


def test_a_body_that_is_not_json_at_all_is_refused_and_quarantined(client):
    response = client.post(
        "/api/v1/ingest",
        data=b"<html>502 Bad Gateway</html>",
        headers={"User-Agent": "fluent-bit/3.1"},
    )
    assert response.status_code == 422 and response.get_json()["error"]["code"] == "unparseable"
    [record] = client.get("/api/v1/quarantine").get_json()["records"]
    assert record["code"] == "unparseable" and record["source"] == "fluent-bit/3.1"
    assert record["raw"] == "<html>502 Bad Gateway</html>"
    assert record["message"] == response.get_json()["error"]["message"]
    assert client.get("/api/v1/health").get_json()["quarantine"] == {"total": 1, "last_hour": 1}


def test_a_huge_refused_body_is_quarantined_in_a_bounded_excerpt(client):
    body = b"x" * 1_000_000
    assert client.post("/api/v1/ingest", data=body).status_code == 422
    [record] = client.get("/api/v1/quarantine").get_json()["records"]
    assert record["raw"].startswith("x" * 4096) and len(record["raw"]) < 4200
    assert record["raw"].endswith("(1000000 bytes in all)")


def test_a_broken_gzip_body_keeps_its_bytes_as_escapes_and_its_secrets_redacted(client):
    broken = gzip.compress(b'{"snapshot": "arguments"}')[:12]
    assert (
        client.post("/api/v1/ingest", data=broken, headers={"Content-Encoding": "gzip"}).status_code
        == 422
    )
    secret = b"not json at all; aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert client.post("/api/v1/ingest", data=secret).status_code == 422
    newest, oldest = client.get("/api/v1/quarantine").get_json()["records"]
    # a control character and a byte that is no UTF-8
    assert oldest["raw"].startswith("\\x1f\\x8b")
    assert "wJalrXUtnFEMI" not in newest["raw"] and newest["raw"].startswith("not json at all")


def test_a_refused_otlp_body_is_quarantined_too(client):
    response = client.post(
        "/v1/traces", data=b"{not otlp", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422
    [record] = client.get("/api/v1/quarantine").get_json()["records"]
    assert record["raw"] == "{not otlp" and "OTLP" in record["message"]


def test_a_refused_body_fires_a_rejected_events_alert(db_path):
    from receiver import Receiver

    from webapp import create_app
    from webapp.ops.sender import deliver_due
    from webapp.store import Store

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
        }
    )
    client, receiver = app.test_client(), Receiver()
    try:
        receiver.secret = client.post(
            "/api/v1/alerts", json={"url": receiver.url, "on": ["rejected_events"]}
        ).get_json()["secret"]
        client.post(
            "/api/v1/ingest", data=b"\x00\x01 not json", headers={"User-Agent": "vector/0.43"}
        )
        store = Store.open(db_path)
        assert deliver_due(store, app.config) == 1
        store.close()
        [(_, body)] = receiver.accepted
    finally:
        receiver.close()
    assert body["type"] == "ingest.rejected" and body["data"]["source"] == "vector/0.43"
    assert body["data"]["count"] == 1 and body["data"]["code"] == "unparseable"
