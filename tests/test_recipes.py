"""The recipes of docs/instrumenting.md.

Run as they are against local stand-ins and a real tracediff.

Each recipe file in docs/recipes/ is executed itself (never a copy): the real openai, anthropic and
OpenTelemetry packages, the machine's node, a real syslog-ng; then the trace is read from the
server. The MCP server recipe has its own file, test_recipes_mcp.py.
"""

import gzip
import json
import sys
from pathlib import Path

import httpx
import pytest
from node_packages import beside_packages
from recipe_runs import (  # noqa: F401 (fixtures)
    CALLER_TRACE,
    RECIPES,
    TRACEPARENT,
    anthropic_model,
    assert_planted_bug,
    assert_release,
    assert_result_passed_on,
    node_binary,
    openai_model,
    orders,
    printed_trace_id,
    read_trace,
    run_recipe,
    tracediff_ingest,
)
from standins import StandIn, openai_chat_calling
from test_syslog_ng import SyslogNg, syslog_ng_binary


@pytest.mark.slow
def test_the_openai_recipe_logs_three_snapshots_that_tracediff_ingest_loads(
    live_server, openai_model, orders, tmp_path
):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe(
        [sys.executable, str(RECIPES / "openai_logs.py")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "TRACEDIFF_LOG": str(log_file),
            "TRACEPARENT": TRACEPARENT,
            "RELEASE": "1.4.2",
            "TRACEDIFF_URL": live_server.url,
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    # the caller's trace id, not a new one
    assert printed_trace_id(output) == CALLER_TRACE
    # one line per snapshot, the result the model got too
    assert len(log_file.read_text().splitlines()) == 4
    tracediff_ingest(live_server.db_path, log_file)

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    # the model's tool call id
    assert call["call_id"] == "call_standin_01"
    assert_planted_bug(call, source="openai")
    assert_release(call, "1.4.2")
    # the role=tool content, its JSON parsed
    assert_result_passed_on(call)
    sent_back = openai_model.requests[-1]["body"]["messages"][-1]["content"]
    # what the model read, logged
    assert json.loads(sent_back) == call["snapshots"]["result"]["payload"]
    # The API behind the tool got the trace context, so its own logs can join the trace.
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE
    # The model got the tool's result back, and the agent finished.
    assert openai_model.requests[-1]["body"]["messages"][-1]["role"] == "tool"
    page = httpx.get(f"{live_server.url}/traces/{CALLER_TRACE}", timeout=10)
    assert page.status_code == 200 and "type_changed" in page.text


@pytest.mark.slow
def test_the_openai_recipe_shipped_by_a_real_syslog_ng(live_server, openai_model, orders, tmp_path):
    log_file = tmp_path / "tool-calls.ndjson"
    log_file.touch()
    daemon = SyslogNg(
        syslog_ng_binary(), tmp_path, log_file, f"{live_server.url}/api/v1/ingest"
    ).start()
    try:
        # the default log file, in the folder it runs in
        output = run_recipe(
            [sys.executable, str(RECIPES / "openai_logs.py")],
            {
                "OPENAI_BASE_URL": f"{openai_model.url}/v1",
                "OPENAI_API_KEY": "sk-standin",
                "ORDERS_API": orders.url,
            },
            tmp_path,
        )
        trace_id = printed_trace_id(output)
        # no TRACEPARENT given: a new W3C trace id
        assert trace_id != CALLER_TRACE
        [call] = read_trace(live_server, trace_id, deadline=60)["calls"]
        daemon.assert_running()
    finally:
        daemon.stop()
    assert_planted_bug(call, source="openai")
    assert_release(call, "dev")


@pytest.mark.slow
def test_the_anthropic_recipe_logs_three_snapshots_posted_to_the_http_api(
    live_server, anthropic_model, orders, tmp_path
):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe(
        [sys.executable, str(RECIPES / "anthropic_logs.py")],
        {
            "ANTHROPIC_BASE_URL": anthropic_model.url,
            "ANTHROPIC_API_KEY": "sk-ant-standin",
            "ORDERS_API": orders.url,
            "TRACEDIFF_LOG": str(log_file),
            "TRACEPARENT": TRACEPARENT,
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    response = httpx.post(
        f"{live_server.url}/api/v1/ingest", content=log_file.read_bytes(), timeout=10
    )
    assert response.status_code == 200 and response.json()["accepted"] == 4, response.text

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "toolu_standin_01"
    assert_planted_bug(call, source="anthropic")
    tool_results = anthropic_model.requests[-1]["body"]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in tool_results] == ["toolu_standin_01"]
    # the tool_result block the model got, as it got it
    assert_result_passed_on(call, tool_results[0])


@pytest.mark.slow
def test_the_opentelemetry_recipe_exports_spans_that_give_the_same_trace(
    live_server, openai_model, orders, tmp_path
):
    output = run_recipe(
        [sys.executable, str(RECIPES / "openai_otel.py")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{live_server.url}/v1/traces",
            "TRACEPARENT": TRACEPARENT,
            "RELEASE": "1.4.2",
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    # tracediff.source on the execute_tool span
    assert_planted_bug(call, source="openai")
    assert call["snapshots"]["request"]["meta"]["service.name"] == "orders-agent"
    # gen_ai.tool.call.result of the execute_tool span
    assert_result_passed_on(call)
    # The httpx instrumentation propagated the trace to the API behind the tool.
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE
    assert sent["headers"]["Accept-Encoding"] and "gzip" in sent["headers"]["Accept-Encoding"]


@pytest.mark.slow
def test_the_async_httpx_recipe_puts_the_bodies_on_its_spans_as_the_sync_one_does(
    live_server, openai_model, orders, tmp_path
):
    output = run_recipe(
        [sys.executable, str(RECIPES / "httpx_async_otel.py")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{live_server.url}/v1/traces",
            "TRACEPARENT": TRACEPARENT,
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    # the request and response bodies from the async hooks, the gzipped answer read whole
    assert_planted_bug(call, source="openai")
    assert_result_passed_on(call)
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE


# aiohttp's instrumentation pins another OpenTelemetry release than the project's: a virtualenv of its
# own (tests/instrumentations/README.md)
AIOHTTP_PYTHON = Path("/tmp/venvs/aiohttp/bin/python")


@pytest.mark.slow
def test_the_aiohttp_recipe_puts_the_bodies_on_its_spans_as_the_sync_one_does(
    live_server, openai_model, orders, tmp_path
):
    if not AIOHTTP_PYTHON.exists():
        pytest.skip(f"no virtualenv for the aiohttp recipe at {AIOHTTP_PYTHON.parent.parent}")
    output = run_recipe(
        [str(AIOHTTP_PYTHON), str(RECIPES / "aiohttp_otel.py")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{live_server.url}/v1/traces",
            "TRACEPARENT": TRACEPARENT,
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    # the request body from the chunks aiohttp wrote, the gzipped answer read whole and decompressed
    assert_planted_bug(call, source="openai")
    assert_result_passed_on(call)
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE


@pytest.mark.slow
def test_the_node_recipe_logs_three_snapshots_posted_gzipped_to_the_http_api(
    live_server, openai_model, orders, tmp_path
):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe(
        [node_binary(), str(RECIPES / "node_fetch.mjs")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "TRACEDIFF_LOG": str(log_file),
            "TRACEPARENT": TRACEPARENT,
            "RELEASE": "3.1.0",
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE
    response = httpx.post(
        f"{live_server.url}/api/v1/ingest",
        content=gzip.compress(log_file.read_bytes()),
        headers={"Content-Encoding": "gzip"},
        timeout=10,
    )
    assert response.status_code == 200 and response.json()["accepted"] == 4, response.text

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    assert_planted_bug(call, source="node")
    assert_result_passed_on(call)
    assert_release(call, "3.1.0")
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE


@pytest.mark.slow
def test_the_node_opentelemetry_recipe_puts_both_bodies_on_the_fetch_span(
    live_server, openai_model, orders, tmp_path
):
    output = run_recipe(
        [node_binary(), "--preserve-symlinks-main", beside_packages(RECIPES / "node_otel.mjs")],
        {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1",
            "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url,
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{live_server.url}/v1/traces",
            "TRACEPARENT": TRACEPARENT,
            "RELEASE": "3.2.0",
        },
        tmp_path,
    )
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE
    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    # tracediff.source on the execute_tool span
    assert_planted_bug(call, source="node")
    assert_result_passed_on(call)
    assert_release(call, "3.2.0")
    # the span's context went on to the API behind the tool
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE


@pytest.mark.slow
def test_a_copy_of_the_python_recipe_with_another_tool_name_shows_that_tools_calls(
    live_server, orders, tmp_path
):
    """What a new user does: copy the recipe, rename the tool, run it, ingest the file, open the
    trace."""
    agent = tmp_path / "my_agent.py"
    agent.write_text(
        (RECIPES / "openai_logs.py").read_text().replace("find_orders", "search_invoices")
    )
    with StandIn(openai_chat_calling("search_invoices")) as model:
        output = run_recipe(
            [sys.executable, str(agent)],
            {
                "OPENAI_BASE_URL": f"{model.url}/v1",
                "OPENAI_API_KEY": "sk-standin",
                "ORDERS_API": orders.url,
                "TRACEDIFF_URL": live_server.url,
            },
            tmp_path,
        )
    trace_id = printed_trace_id(output)
    # the permalink to open
    assert output.rstrip().endswith(f"{live_server.url}/traces/{trace_id}")
    tracediff_ingest(live_server.db_path, tmp_path / "tool-calls.ndjson")
    [call] = read_trace(live_server, trace_id)["calls"]
    assert_planted_bug(call, tool="search_invoices", source="openai")
    page = httpx.get(f"{live_server.url}/traces/{trace_id}", timeout=10)
    assert page.status_code == 200 and "search_invoices" in page.text


GET_DRIVER = """
import os, runpy, sys
recipe = runpy.run_path(sys.argv[1], run_name="recipe")   # the recipe file itself, its hooks and client
recipe["CALL"].set(("4bf92f3577b34da6a3ce929d0e0e4736", "call_get", "find_orders"))
recipe["log"]("arguments", {"status": "paid", "limit": 5})
recipe["http"].get(os.environ["ORDERS_API"] + "/orders", params={"status": "paid", "page_size": 5})
"""


@pytest.mark.slow
@pytest.mark.parametrize("recipe", ["openai_logs.py", "anthropic_logs.py"])
def test_a_recipe_logs_a_get_by_its_method_and_full_url_with_no_fake_body(
    live_server, orders, tmp_path, recipe
):
    log_file, driver = tmp_path / "tool-calls.ndjson", tmp_path / "get_driver.py"
    driver.write_text(GET_DRIVER)
    run_recipe(
        [sys.executable, str(driver), str(RECIPES / recipe)],
        {"ORDERS_API": orders.url, "TRACEDIFF_LOG": str(log_file)},
        tmp_path,
    )
    lines = [json.loads(line) for line in log_file.read_text().splitlines()]
    [request] = [line for line in lines if line["snapshot"] == "request"]
    assert request["payload"] is None and request["http"]["method"] == "GET"
    assert request["http"]["url"] == f"{orders.url}/orders?status=paid&page_size=5"
    tracediff_ingest(live_server.db_path, log_file)
    trace = httpx.get(
        f"{live_server.url}/api/v1/traces/4bf92f3577b34da6a3ce929d0e0e4736", timeout=10
    ).json()
    [call] = trace["calls"]
    # no flag at the root: the GET's arguments are read from its query
    assert call["worst"] == "info"
    assert {(row["arguments"], row["request"]) for row in call["alignment"]} >= {
        ("/status", "query:/status"),
        ("/limit", "query:/page_size"),
    }
