"""End to end: `tracediff serve` as a real process, fed over HTTP, read back."""

import time

import httpx
import pytest
from helpers import TRACE, ndjson, order_call


def wait_for_analysis(url: str, trace_id: str, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        trace = httpx.get(f"{url}/api/v1/traces/{trace_id}").json()
        if all(call["analyzed"] for call in trace["calls"]):
            return trace
        time.sleep(0.1)
    raise AssertionError("analysis did not finish")


@pytest.mark.slow
def test_a_batch_posted_over_http_is_readable_through_the_api_and_the_page(live_server):
    response = httpx.post(
        f"{live_server.url}/api/v1/ingest", content=ndjson(*order_call(limit_sent="5"))
    )
    assert response.status_code == 200 and response.json()["accepted"] == 3
    trace = wait_for_analysis(live_server.url, TRACE)
    call = trace["calls"][0]
    assert call["snapshots"]["request"]["payload"] == {"status": "paid", "limit": "5"}
    assert any(
        f["kind"] == "type_changed" and f["right"]["path"] == "/limit" for f in call["findings"]
    )
    page = httpx.get(f"{live_server.url}/traces/{TRACE}")
    assert page.status_code == 200 and "findOrders" in page.text


@pytest.mark.slow
def test_the_background_analyzer_analyses_new_calls_without_a_read(live_server):
    httpx.post(f"{live_server.url}/api/v1/ingest", content=ndjson(*order_call(limit_sent="5")))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        [row] = httpx.get(f"{live_server.url}/api/v1/traces").json()["traces"]
        if row["worst"] is not None:
            break
        time.sleep(0.1)
    assert row["worst"] == "warning" and "type_changed" in row["kinds"]


@pytest.mark.slow
def test_serve_demo_loads_the_sample_traces_into_an_empty_database(make_server):
    server = make_server("demo.db", args=["--demo"])
    traces = httpx.get(f"{server.url}/api/v1/traces?limit=100").json()["traces"]
    assert len(traces) >= 12
    assert httpx.get(f"{server.url}/api/v1/tools").json()["tools"]
    assert httpx.get(f"{server.url}/").status_code == 200
    server.stop()
    # a database that holds traces is left as it is, and said so
    again = make_server("demo.db", args=["--demo"])
    assert len(httpx.get(f"{again.url}/api/v1/traces?limit=100").json()["traces"]) == len(traces)
    assert "sample_traces/ not loaded" in again.logs()
