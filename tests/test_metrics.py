"""/metrics in one process (the Flask test client): what each counter counts, and what it must not."""
import json

import pytest

from helpers import nested
from test_serving import metric_values
from webapp import create_app


def scrape(client, name: str) -> dict:
    return metric_values(client.get("/metrics").get_data(as_text=True), name)


def delta(before: dict, after: dict) -> dict:
    return {labels: after[labels] - before.get(labels, 0) for labels in after if after[labels] != before.get(labels, 0)}


@pytest.fixture
def client(db_path):
    return create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"}).test_client()


def test_rejected_events_are_counted_under_the_source_they_name(client):
    def event(n, **fields):
        return {"trace_id": f"rj{n:030d}", "snapshot": "request", "tool": "t", "source": "beta", "payload": {"n": n},
                **fields}
    records = [event(1, snapshot="nope"), event(2, trace_id=""), event(3, payload=nested(1, depth=80)),
               event(4), {"source": "beta", "trace_id": "x"}, {"snapshot": "nope", "payload": 1, "trace_id": "y"},
               event(5, source=7)]
    before = scrape(client, "tracediff_ingest_events_total")
    answer = client.post("/api/v1/ingest", data="\n".join(json.dumps(r) for r in records),
                         headers={"User-Agent": "shipper/1.0"})
    assert answer.status_code == 200 and answer.get_json()["accepted"] == 1
    codes = [r["code"] for r in answer.get_json()["rejected"]]
    counted = delta(before, scrape(client, "tracediff_ingest_events_total"))
    named = {}
    for code, record in zip(codes, [r for i, r in enumerate(records) if i != 3]):
        source = record.get("source") if isinstance(record.get("source"), str) else ""  # as accepted events are
        key = f'{{code="{code}",endpoint="ingest",outcome="rejected",source="{source}"}}'
        named[key] = named.get(key, 0) + 1
    assert "too_deep" in codes and codes.count("bad_snapshot") == 2
    assert counted == {**named, '{code="",endpoint="ingest",outcome="accepted",source="beta"}': 1}
    assert sum(v for k, v in counted.items() if 'source="beta"' in k) == 5


def test_a_readiness_503_is_not_counted_as_the_database_refusing_writes(db_path, tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"})
    app.template_folder = str(tmp_path / "no-templates")  # a broken install: not ready, the database is fine
    client = app.test_client()
    before = scrape(client, "tracediff_unavailable_responses_total")
    assert client.get("/api/v1/ready").status_code == 503
    assert delta(before, scrape(client, "tracediff_unavailable_responses_total")) == {}
    requests = scrape(client, "tracediff_http_requests_total")
    assert requests['{method="GET",route="/api/v1/ready",status="503"}'] >= 1  # still counted as a request


@pytest.mark.sqlite_only  # the disk headroom is SQLite's to keep (PostgreSQL's server watches its own disk)
def test_a_write_the_database_refuses_is_counted_as_unavailable(db_path):
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "MIN_FREE_MB": 10**9})
    client = app.test_client()
    before = scrape(client, "tracediff_unavailable_responses_total")
    refused = client.post("/api/v1/ingest", data=json.dumps({"trace_id": "t" * 32, "snapshot": "request",
                                                              "payload": {}}))
    assert refused.status_code == 503 and refused.get_json()["error"]["code"] == "store_unavailable"
    assert delta(before, scrape(client, "tracediff_unavailable_responses_total")) == {'{route="/api/v1/ingest"}': 1}
