"""/metrics: what each counter counts, and what it must not.

In one process, the Flask test client; the labels and the gauges a real server samples, on
`tracediff serve`."""

import json
import platform
import time

import httpx
import pytest
from helpers import nested
from test_serving import metric_values

from webapp import create_app


def scrape(client, name: str) -> dict:
    return metric_values(client.get("/metrics").get_data(as_text=True), name)


def delta(before: dict, after: dict) -> dict:
    return {
        labels: after[labels] - before.get(labels, 0)
        for labels in after
        if after[labels] != before.get(labels, 0)
    }


@pytest.fixture
def client(db_path):
    return create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"}).test_client()


def test_rejected_events_are_counted_under_the_source_they_name(client):
    def event(n, **fields):
        return {
            "trace_id": f"rj{n:030d}",
            "snapshot": "request",
            "tool": "t",
            "source": "beta",
            "payload": {"n": n},
            **fields,
        }

    records = [
        event(1, snapshot="nope"),
        event(2, trace_id=""),
        event(3, payload=nested(1, depth=80)),
        event(4),
        {"source": "beta", "trace_id": "x"},
        {"snapshot": "nope", "payload": 1, "trace_id": "y"},
        event(5, source=7),
    ]
    before = scrape(client, "tracediff_ingest_events_total")
    answer = client.post(
        "/api/v1/ingest",
        data="\n".join(json.dumps(r) for r in records),
        headers={"User-Agent": "shipper/1.0"},
    )
    assert answer.status_code == 200 and answer.get_json()["accepted"] == 1
    codes = [r["code"] for r in answer.get_json()["rejected"]]
    counted = delta(before, scrape(client, "tracediff_ingest_events_total"))
    named = {}
    for code, record in zip(codes, [r for i, r in enumerate(records) if i != 3]):
        # as accepted events are
        source = record.get("source") if isinstance(record.get("source"), str) else ""
        key = f'{{code="{code}",endpoint="ingest",outcome="rejected",source="{source}"}}'
        named[key] = named.get(key, 0) + 1
    assert "too_deep" in codes and codes.count("bad_snapshot") == 2
    assert counted == {**named, '{code="",endpoint="ingest",outcome="accepted",source="beta"}': 1}
    assert sum(v for k, v in counted.items() if 'source="beta"' in k) == 5


def test_a_readiness_503_is_not_counted_as_the_database_refusing_writes(db_path, tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"})
    # a broken install: not ready, the database is fine
    app.template_folder = str(tmp_path / "no-templates")
    client = app.test_client()
    before = scrape(client, "tracediff_unavailable_responses_total")
    assert client.get("/api/v1/ready").status_code == 503
    assert delta(before, scrape(client, "tracediff_unavailable_responses_total")) == {}
    requests = scrape(client, "tracediff_http_requests_total")
    # still counted as a request
    assert requests['{method="GET",route="/api/v1/ready",status="503"}'] >= 1


# the disk headroom is SQLite's to keep (PostgreSQL's server watches its own disk)
@pytest.mark.sqlite_only
def test_a_write_the_database_refuses_is_counted_as_unavailable(db_path):
    app = create_app(
        {"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "MIN_FREE_MB": 10**9}
    )
    client = app.test_client()
    before = scrape(client, "tracediff_unavailable_responses_total")
    refused = client.post(
        "/api/v1/ingest",
        data=json.dumps({"trace_id": "t" * 32, "snapshot": "request", "payload": {}}),
    )
    assert refused.status_code == 503 and refused.get_json()["error"]["code"] == "store_unavailable"
    assert delta(before, scrape(client, "tracediff_unavailable_responses_total")) == {
        '{route="/api/v1/ingest"}': 1
    }


def series(text: str) -> set[str]:
    """Every sample line's name and labels in a scrape."""
    return {
        line.rsplit(" ", 1)[0] for line in text.splitlines() if line and not line.startswith("#")
    }


@pytest.mark.slow
def test_made_up_methods_and_paths_add_at_most_ten_series(make_server):
    server = make_server("methods.db")
    with httpx.Client(base_url=server.url, timeout=30) as http:
        # the first of each kind: its route's series (and /metrics' own) appear once, on every
        # worker
        for _ in range(4):
            http.request("M99999", "/x/first")
            http.get("/traces/made-up-first")
            http.get("/metrics")
        before = series(http.get("/metrics").text)
        # letters-only methods pass nginx too; every path is new
        for n in range(200):
            http.request(f"M{n:05d}" if n % 2 else f"PROBE{chr(65 + n % 26)}{n}", f"/x/{n}")
            http.get(f"/traces/made-up-{n}")
        after = series(http.get("/metrics").text)
    added = {line for line in after - before if line.startswith("tracediff_")}
    assert len(added) <= 10, sorted(added)
    assert any('method="other"' in line for line in after)
    assert not any("/x/" in line or "made-up" in line for line in after)


@pytest.mark.slow
def test_metrics_tell_the_process_the_build_and_alert_deliveries_by_outcome(make_server):
    from receiver import Receiver

    from webapp.version import __version__

    # the first attempt gets a 503: retried, then delivered
    receiver = Receiver(fail_first=1)
    server = make_server(
        "deliveries.db",
        env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1", "TRACEDIFF_ALERT_SUMMARY_WAIT": "0"},
    )
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            rule = http.post(
                "/api/v1/alerts",
                json={"url": receiver.url, "on": ["rejected_events"], "min_interval_s": 0},
            ).json()
            receiver.secret = rule["secret"]
            http.post(
                "/api/v1/ingest", content=b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'
            )
            deadline = time.monotonic() + 60
            while not receiver.accepted and time.monotonic() < deadline:
                time.sleep(0.2)
            assert receiver.accepted, receiver.attempts
            # the sender counts a delivery once the receiver's answer is back, after it was recorded
            deadline = time.monotonic() + 60
            text = http.get("/metrics").text
            while (
                '{outcome="delivered"}'
                not in metric_values(text, "tracediff_alert_deliveries_total")
                and time.monotonic() < deadline
            ):
                time.sleep(0.2)
                text = http.get("/metrics").text
    finally:
        receiver.close()
    deliveries = metric_values(text, "tracediff_alert_deliveries_total")
    assert '{outcome="delivered"}' in deliveries, f"no delivery counted in 60 s: {deliveries}"
    assert deliveries['{outcome="retrying"}'] == 1 and deliveries['{outcome="delivered"}'] == 1
    assert metric_values(text, "process_resident_memory_bytes")[""] > 10 * 2**20
    assert metric_values(text, "process_open_fds")[""] > 0
    assert metric_values(text, "tracediff_build_info") == {
        f'{{python="{platform.python_version()}",version="{__version__}"}}': 1.0
    }
    # sampled by the analyser every few seconds
    deadline = time.monotonic() + 15
    while not metric_values(text, "tracediff_database_up") and time.monotonic() < deadline:
        time.sleep(1)
        text = httpx.get(server.url + "/metrics").text
    assert metric_values(text, "tracediff_database_up") == {"": 1.0}
    assert metric_values(text, "tracediff_database_bytes")[""] > 0
