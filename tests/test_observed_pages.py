"""The observed schemas as people reach them.

The API's contract draft, adopting it, the CLI and the tool page."""

import random

import orjson
import pytest
from click.testing import CliRunner
from observed_traffic import TOOL, mcp_results, order, order_events

from webapp import create_app, pipeline
from webapp.cli.main import main
from webapp.store import Store

ADMIN = "admin-token-for-observed"


@pytest.fixture
def learnt(client, db_path):
    """A get_order tool with 80 correct calls analysed, so its shapes are learnt."""
    rng = random.Random(11)
    events = order_events([order(rng, n) for n in range(80)])
    assert client.post("/api/v1/ingest", data=orjson.dumps(events)).status_code == 200
    store = Store.open(db_path)
    pipeline.catch_up(store)
    yield store
    store.close()


def test_the_api_answers_a_json_schema_per_stage_with_its_calls(client, learnt):
    answer = client.get(f"/api/v1/tools/{TOOL}/observed").json
    assert list(answer) == ["arguments", "request", "response", "result"]
    assert answer["result"] == {"schema": None, "calls": 0}
    response = answer["response"]
    assert (
        response["calls"] == 80
        and response["schema"]["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    )
    assert response["schema"]["properties"]["total_cents"]["type"] == "integer"
    assert response["schema"]["properties"]["total_cents"]["x-tracediff-seen"] == {
        "calls": 80,
        "of": 80,
        "types": {"integer": 80},
    }
    assert answer["arguments"]["schema"]["required"] == ["orderId"]
    missing = client.get("/api/v1/tools/nope/observed")
    assert missing.status_code == 404 and missing.json["error"] == {
        "code": "tool_not_found",
        "message": "no tool 'nope': no contract and no calls",
        "retryable": False,
    }


def test_adopting_writes_the_schema_into_the_contract_and_the_next_bad_call_breaks_it(
    client, learnt
):
    done = client.post(f"/api/v1/tools/{TOOL}/observed/adopt", json={"stage": "response"})
    assert (
        done.status_code == 200
        and done.json["response_schema"]["properties"]["total_cents"]["type"] == "integer"
    )
    assert "x-tracediff-seen" not in orjson.dumps(done.json).decode()
    bad = client.post(f"/api/v1/tools/{TOOL}/observed/adopt", json={"stage": "status"})
    assert bad.status_code == 400 and bad.json["error"]["code"] == "bad_stage"
    none = client.post(f"/api/v1/tools/{TOOL}/observed/adopt", json={"stage": "result"})
    # no result logged
    assert none.status_code == 400 and none.json["error"]["code"] == "nothing_observed"
    rng = random.Random(12)
    events = order_events([order(rng, 80, changed=True)], start=80)
    client.post("/api/v1/ingest", data=orjson.dumps(events))
    pipeline.catch_up(learnt)
    call = learnt.get_trace(f"{81:032x}")["calls"][0]
    assert call["validation"]["response"]["valid"] is False
    assert {e["path"] for e in call["validation"]["response"]["errors"]} >= {
        "/total_cents",
        "/status",
    }
    # the declared schema wins
    assert not [f for f in call["findings"] if f["kind"] == "drift"]


def test_the_tool_page_shows_the_draft_beside_the_contract_and_where_traffic_disagrees(
    client, learnt
):
    html = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    assert 'aria-label="Observed schemas"' in html and "learnt from 80 calls" in html
    assert html.count('class="adopt"') == 3
    learnt.put_tool(
        TOOL,
        {"response_schema": {"type": "object", "properties": {"total_cents": {"type": "string"}}}},
    )
    html = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    assert "the contract declares a response schema, which wins" in html
    assert (
        "<code>/total_cents</code>: integer, where the schema says string <small>(80 of 80 "
        "calls)</small>" in html
    )
    assert "<code>/currency</code>: a field the schema does not declare" in html
    answer = client.post(f"/tools/{TOOL}/observed/adopt", data={"stage": "response"})
    assert answer.status_code == 303 and answer.headers["Location"] == f"/tools/{TOOL}#observed"
    assert (
        learnt.get_tool(TOOL)["response_schema"]["properties"]["total_cents"]["type"] == "integer"
    )
    data = client.get(f"/tools/{TOOL}.json").json
    assert (
        data["observed"]["response"]["declared"] is True
        and data["observed"]["response"]["disagreements"] == []
    )


def test_adopting_needs_an_admin_token_where_tokens_are_set(db_path):
    app = create_app(
        {"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "ADMIN_TOKENS": ADMIN}
    )
    client = app.test_client()
    client.post("/api/v1/ingest", data=orjson.dumps(order_events([order(random.Random(1), 0)])))
    pipeline.catch_up(Store.open(db_path))
    refused = client.post(f"/api/v1/tools/{TOOL}/observed/adopt", json={"stage": "response"})
    assert refused.status_code == 401 and refused.json["error"]["retryable"] is False
    page = client.post(f"/tools/{TOOL}/observed/adopt", data={"stage": "response"})
    assert page.status_code == 401
    ok = client.post(
        f"/api/v1/tools/{TOOL}/observed/adopt",
        json={"stage": "response"},
        headers={"Authorization": f"Bearer {ADMIN}"},
    )
    assert ok.status_code == 200 and ok.json["response_schema"]["type"] == "object"


def test_the_cli_prints_the_draft_of_a_stage_or_of_all(learnt, db_path):
    runner = CliRunner()
    one = runner.invoke(
        main, ["tools", "observed", TOOL, "--stage", "response", "--db", str(db_path)]
    )
    assert one.exit_code == 0, one.output
    assert orjson.loads(one.output)["properties"]["status"]["enum"] == [
        "paid",
        "pending",
        "refunded",
    ]
    every = runner.invoke(main, ["tools", "observed", TOOL, "--db", str(db_path)])
    assert orjson.loads(every.output)["request"]["calls"] == 80
    none = runner.invoke(
        main, ["tools", "observed", TOOL, "--stage", "result", "--db", str(db_path)]
    )
    assert none.exit_code == 1 and "no result of 'get_order' was learnt yet" in none.output
    unknown = runner.invoke(main, ["tools", "observed", "nope", "--db", str(db_path)])
    assert unknown.exit_code == 1 and "no tool 'nope'" in unknown.output


def test_a_drifted_call_shows_its_evidence_on_its_trace_page(client, learnt):
    events = order_events([order(random.Random(13), 80, changed=True)], start=80)
    client.post("/api/v1/ingest", data=orjson.dumps(events))
    pipeline.catch_up(learnt)
    html = client.get(f"/traces/{81:032x}").get_data(as_text=True)
    assert (
        "&#34;/total_cents&#34; integer in 80 of 80 calls since 09:02, a string since 10:22" in html
    )
    assert client.get(f"/traces/{81:032x}.json").json["calls"][0]["worst"] == "warning"
    assert client.get("/api/v1/problems?kind=drift").json["problems"][0]["kind"] == "drift"


def test_the_tool_page_adopts_the_result_schema_and_the_next_bad_result_shows_a_validation_error(
    client, db_path
):
    rng = random.Random(15)
    events = order_events([order(rng, n) for n in range(60)])
    client.post("/api/v1/ingest", data=orjson.dumps(events + mcp_results(events)))
    store = Store.open(db_path)
    pipeline.catch_up(store)
    html = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    assert html.count('class="adopt"') == 4 and "adopt as the result schema" in html
    assert "its <code>/structuredContent</code> part, what an MCP outputSchema describes" in html
    answer = client.post(f"/tools/{TOOL}/observed/adopt", data={"stage": "result"})
    assert answer.status_code == 303
    assert store.get_tool(TOOL)["result_schema"]["properties"]["currency"]["enum"] == ["EUR", "USD"]
    again = client.post(f"/api/v1/tools/{TOOL}/observed/adopt", json={"stage": "result"})
    assert again.status_code == 200 and again.json["result_schema"]["required"] == [
        "currency",
        "status",
        "total",
    ]
    later = order_events([order(rng, 60)], start=60)
    client.post("/api/v1/ingest", data=orjson.dumps(later + mcp_results(later, changed_at=0)))
    pipeline.catch_up(store)
    call = client.get(f"/api/v1/traces/{61:032x}").json["calls"][0]
    assert call["validation"]["result"]["valid"] is False
    assert "/structuredContent/total" in {e["path"] for e in call["validation"]["result"]["errors"]}
    page = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    assert "the contract declares a result schema, which wins" in page
    assert "<code>/structuredContent/total</code>: string, where the schema says number" in page
    store.close()


def test_the_tool_page_warns_that_adopting_accepts_the_open_drift_of_that_stage(client, db_path):
    rng = random.Random(12)
    bodies = [order(rng, n) for n in range(80)] + [
        order(rng, n, changed=True) for n in range(80, 90)
    ]
    assert client.post("/api/v1/ingest", data=orjson.dumps(order_events(bodies))).status_code == 200
    store = Store.open(db_path)
    pipeline.catch_up(store)
    drift = pipeline.observed.open_drift(store, TOOL)
    store.close()
    assert set(drift) == {"response"} and {"/total_cents", "/status"} <= {
        p["path"] for p in drift["response"]
    }
    page = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    stage = page.split('data-stage="response"', 1)[1].split('data-stage="result"', 1)[0]
    assert "open drift problem" in stage and "adopting it makes that shape the contract" in stage
    assert all(f'href="/problems/{p["id"]}"' in stage for p in drift["response"])
    before = page.split('data-stage="response"', 1)[0]
    # the arguments and the request did not change
    assert "open drift problem" not in before
