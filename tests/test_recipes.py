"""The recipes of docs/instrumenting.md, run as they are against local stand-ins and a real tracediff.

Each recipe file in docs/recipes/ is executed itself (never a copy): the real openai, anthropic, mcp and
OpenTelemetry packages, the machine's node, a real syslog-ng; then the trace is read from the server.
"""
import asyncio
import gzip
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import free_port
from standins import ARGUMENTS, ORDERS, StandIn, anthropic_messages, openai_chat, orders_api
from test_syslog_ng import SyslogNg, syslog_ng_binary

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "docs" / "recipes"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"

RECIPE_SETTINGS = ("TRACEPARENT", "RELEASE", "TRACEDIFF_LOG", "TRACEDIFF_URL", "MODEL")
PASTE_FROM, PASTE_TO = "tracediff: paste from here", "tracediff: paste to here"
PAGE = ROOT / "docs" / "instrumenting.md"


def run_recipe(command: list, env: dict, cwd: Path, timeout: float = 60) -> str:
    """Run a recipe as a user would, with its settings in the environment; return its output."""
    base = {k: v for k, v in os.environ.items() if k not in RECIPE_SETTINGS}  # only what the test sets
    done = subprocess.run(command, env={**base, **env}, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)  # a scratch folder: nothing lands in the repository
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def printed_trace_id(output: str) -> str:
    """Return the trace id of the permalink the recipe prints last."""
    match = re.search(r"/traces/([0-9a-f]{32})\s*\Z", output)
    assert match, output
    return match.group(1)


def read_trace(server, trace_id: str, calls: int = 1, deadline: float = 30.0) -> dict:
    """Read a trace through the API, waiting until a shipper has delivered its calls' snapshots."""
    stop = time.monotonic() + deadline
    while True:
        response = httpx.get(f"{server.url}/api/v1/traces/{trace_id}", timeout=10)
        if response.status_code == 200:
            trace = response.json()
            complete = [c for c in trace["calls"] if all(c["snapshots"].get(s) for s in SNAPSHOTS)]
            if len(complete) >= calls:
                return trace
        assert time.monotonic() < stop, f"trace {trace_id}: {response.status_code} {response.text[:2000]}"
        time.sleep(0.2)


SNAPSHOTS = ("arguments", "request", "response")


def assert_planted_bug(call: dict, tool: str = "find_orders", source: str | None = None) -> None:
    """The call holds its three snapshots as the agent saw them, and limit 5 -> "5" is found."""
    snaps = call["snapshots"]
    assert call["tool"] == tool
    assert snaps["arguments"]["payload"] == ARGUMENTS
    assert snaps["request"]["payload"] == {"status": "paid", "limit": "5"}
    assert snaps["request"]["http"]["method"] == "POST"
    assert snaps["request"]["http"]["url"].endswith("/orders/search")
    assert snaps["response"]["payload"] == ORDERS
    assert snaps["response"]["http"]["status_code"] == 200
    bugs = [f for f in call["findings"] if f["kind"] == "type_changed"]
    assert [(f["left"]["path"], f["right"]["path"]) for f in bugs] == [("/limit", "/limit")], call["findings"]
    assert all(f["kind"] != "type_changed" or f["right"]["path"] == "/limit" for f in call["findings"])
    if source is not None:
        assert {snaps[s]["source"] for s in SNAPSHOTS} == {source}


def assert_release(call: dict, release: str) -> None:
    """Every snapshot carries the release it was logged with (kept with the event until h13's field)."""
    for name in SNAPSHOTS:
        snap = call["snapshots"][name]
        assert release in (snap.get("release"), (snap.get("meta") or {}).get("release")), snap


@pytest.fixture
def orders():
    with StandIn(orders_api, compress=True) as api:
        yield api


@pytest.fixture
def openai_model():
    with StandIn(openai_chat) as model:
        yield model


@pytest.fixture
def anthropic_model():
    with StandIn(anthropic_messages) as model:
        yield model


def tracediff_ingest(db_path: Path, log_file: Path) -> str:
    done = subprocess.run([shutil.which("tracediff") or "tracediff", "ingest", str(log_file), "--db", str(db_path)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.slow
def test_the_openai_recipe_logs_three_snapshots_that_tracediff_ingest_loads(
        live_server, openai_model, orders, tmp_path):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe([sys.executable, str(RECIPES / "openai_logs.py")], {
        "OPENAI_BASE_URL": f"{openai_model.url}/v1", "OPENAI_API_KEY": "sk-standin", "ORDERS_API": orders.url,
        "TRACEDIFF_LOG": str(log_file), "TRACEPARENT": TRACEPARENT, "RELEASE": "1.4.2",
        "TRACEDIFF_URL": live_server.url}, tmp_path)
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE  # the caller's trace id, not a new one
    assert len(log_file.read_text().splitlines()) == 3  # one line per snapshot
    tracediff_ingest(live_server.db_path, log_file)

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"  # the model's tool call id
    assert_planted_bug(call, source="openai")
    assert_release(call, "1.4.2")
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
    daemon = SyslogNg(syslog_ng_binary(), tmp_path, log_file, f"{live_server.url}/api/v1/ingest").start()
    try:
        output = run_recipe([sys.executable, str(RECIPES / "openai_logs.py")], {
            "OPENAI_BASE_URL": f"{openai_model.url}/v1", "OPENAI_API_KEY": "sk-standin",
            "ORDERS_API": orders.url}, tmp_path)  # the default log file, in the folder it runs in
        trace_id = printed_trace_id(output)
        assert trace_id != CALLER_TRACE  # no TRACEPARENT given: a new W3C trace id
        [call] = read_trace(live_server, trace_id, deadline=60)["calls"]
        daemon.assert_running()
    finally:
        daemon.stop()
    assert_planted_bug(call, source="openai")
    assert_release(call, "dev")


@pytest.mark.slow
def test_the_anthropic_recipe_logs_three_snapshots_posted_to_the_http_api(
        live_server, anthropic_model, orders, tmp_path):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe([sys.executable, str(RECIPES / "anthropic_logs.py")], {
        "ANTHROPIC_BASE_URL": anthropic_model.url, "ANTHROPIC_API_KEY": "sk-ant-standin",
        "ORDERS_API": orders.url, "TRACEDIFF_LOG": str(log_file), "TRACEPARENT": TRACEPARENT}, tmp_path)
    assert output.startswith("You have 1 paid order.")
    response = httpx.post(f"{live_server.url}/api/v1/ingest", content=log_file.read_bytes(), timeout=10)
    assert response.status_code == 200 and response.json()["accepted"] == 3, response.text

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "toolu_standin_01"
    assert_planted_bug(call, source="anthropic")
    tool_results = anthropic_model.requests[-1]["body"]["messages"][-1]["content"]
    assert [b["tool_use_id"] for b in tool_results] == ["toolu_standin_01"]


@pytest.mark.slow
def test_the_opentelemetry_recipe_exports_spans_that_give_the_same_trace(
        live_server, openai_model, orders, tmp_path):
    output = run_recipe([sys.executable, str(RECIPES / "openai_otel.py")], {
        "OPENAI_BASE_URL": f"{openai_model.url}/v1", "OPENAI_API_KEY": "sk-standin", "ORDERS_API": orders.url,
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{live_server.url}/v1/traces", "TRACEPARENT": TRACEPARENT,
        "RELEASE": "1.4.2"}, tmp_path)
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    assert_planted_bug(call, source="openai")  # tracediff.source on the execute_tool span
    assert call["snapshots"]["request"]["meta"]["service.name"] == "orders-agent"
    # The httpx instrumentation propagated the trace to the API behind the tool.
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE
    assert sent["headers"]["Accept-Encoding"] and "gzip" in sent["headers"]["Accept-Encoding"]


class RecipeProcess:
    """A recipe that serves (the MCP server), run as its own process until the test ends."""

    def __init__(self, command: list, env: dict, log_path: Path):
        self.log_path = log_path
        with log_path.open("ab") as out:
            self.process = subprocess.Popen(command, env={**os.environ, **env}, cwd=log_path.parent, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)

    def wait_listening(self, port: int, deadline: float = 60.0) -> None:
        stop = time.monotonic() + deadline
        while time.monotonic() < stop:
            assert self.process.poll() is None, self.log_path.read_text()[-3000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.2)
        raise AssertionError(f"not listening on {port}: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)


@pytest.fixture
def mcp_server(orders, tmp_path):
    """The MCP recipe serving streamable HTTP on a free port, logging to tool-calls.ndjson."""
    port, log_file = free_port(), tmp_path / "tool-calls.ndjson"
    server = RecipeProcess([sys.executable, str(RECIPES / "mcp_server.py")], {
        "ORDERS_API": orders.url, "TRACEDIFF_LOG": str(log_file), "MCP_PORT": str(port), "RELEASE": "2.0.1"},
        tmp_path / "mcp-server.log")
    try:
        server.wait_listening(port)
        server.url, server.log_file = f"http://127.0.0.1:{port}/mcp", log_file
        yield server
    finally:
        server.stop()


async def call_tools_as_a_client(url: str) -> list:
    """Call find_orders with the official MCP client: traced by _meta (two at once), refused, by header."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(url) as client:
        traced, parallel = await asyncio.gather(  # two calls in flight at once keep their own ids
            client.call_tool("find_orders", ARGUMENTS, meta={"traceparent": TRACEPARENT}),
            client.call_tool("find_orders", ARGUMENTS, meta={"traceparent": f"00-{PARALLEL_TRACE}-00f067aa0ba902b7-01"}))
        assert not parallel.is_error
        refused = await client.call_tool("find_orders", {"status": "paid", "limit": "five"})
    header = {"traceparent": f"00-{HEADER_TRACE}-00f067aa0ba902b7-01"}
    async with httpx2.AsyncClient(headers=header, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            by_header = await client.call_tool("find_orders", ARGUMENTS)
    return [traced, refused, by_header]


HEADER_TRACE = "0af7651916cd43dd8448eb211c80319c"
PARALLEL_TRACE = "5e5106aa5e5106aa5e5106aa5e5106aa"


@pytest.mark.slow
def test_the_mcp_server_recipe_logs_each_tools_call_under_the_callers_trace(live_server, mcp_server, orders):
    traced, refused, by_header = asyncio.run(call_tools_as_a_client(mcp_server.url))  # the official client
    assert not traced.is_error and not by_header.is_error and refused.is_error
    tracediff_ingest(live_server.db_path, mcp_server.log_file)

    # The trace context in the request's _meta (SEP-414, what the SDK sends when OpenTelemetry is on).
    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    assert_release(call, "2.0.1")
    [call] = read_trace(live_server, PARALLEL_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    # ... or, from a client that sets none there, in the HTTP traceparent header.
    [call] = read_trace(live_server, HEADER_TRACE)["calls"]
    assert_planted_bug(call, source="mcp")
    sent = sorted(r["headers"]["traceparent"].split("-")[1] for r in orders.requests)
    assert sent == sorted([CALLER_TRACE, PARALLEL_TRACE, HEADER_TRACE])
    # Refused arguments never reach the API: the tools/call error result is the call's response.
    lines = [json.loads(line) for line in mcp_server.log_file.read_text().splitlines()]
    [refused_trace] = {e["trace_id"] for e in lines} - {CALLER_TRACE, PARALLEL_TRACE, HEADER_TRACE}
    [call] = httpx.get(f"{live_server.url}/api/v1/traces/{refused_trace}", timeout=10).json()["calls"]
    assert call["snapshots"]["arguments"]["payload"] == {"status": "paid", "limit": "five"}
    assert call["snapshots"].get("request") is None
    assert call["snapshots"]["response"]["payload"]["isError"] is True
    assert len(lines) == 3 + 3 + 3 + 2  # one line per snapshot


def node_binary() -> str:
    """Return the node executable (18 or later: global fetch); skip without it, but fail on CI."""
    found = shutil.which("node")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("node is not installed; .ci/run installs it (apt-get install nodejs)")
    pytest.skip("node is not installed")


@pytest.mark.slow
def test_the_node_recipe_logs_three_snapshots_posted_gzipped_to_the_http_api(
        live_server, openai_model, orders, tmp_path):
    log_file = tmp_path / "tool-calls.ndjson"
    output = run_recipe([node_binary(), str(RECIPES / "node_fetch.mjs")], {
        "OPENAI_BASE_URL": f"{openai_model.url}/v1", "OPENAI_API_KEY": "sk-standin", "ORDERS_API": orders.url,
        "TRACEDIFF_LOG": str(log_file), "TRACEPARENT": TRACEPARENT, "RELEASE": "3.1.0"}, tmp_path)
    assert output.startswith("You have 1 paid order.")
    assert printed_trace_id(output) == CALLER_TRACE
    response = httpx.post(f"{live_server.url}/api/v1/ingest", content=gzip.compress(log_file.read_bytes()),
                          headers={"Content-Encoding": "gzip"}, timeout=10)
    assert response.status_code == 200 and response.json()["accepted"] == 3, response.text

    [call] = read_trace(live_server, CALLER_TRACE)["calls"]
    assert call["call_id"] == "call_standin_01"
    assert_planted_bug(call, source="node")
    assert_release(call, "3.1.0")
    [sent] = orders.requests
    assert sent["headers"]["traceparent"].split("-")[1] == CALLER_TRACE


def paste_part(path: Path) -> str:
    """Return the lines between a recipe's paste markers."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if PASTE_FROM in line)
    end = next(i for i, line in enumerate(lines) if PASTE_TO in line)
    return "\n".join(lines[start + 1:end]).strip("\n")


RECIPE_FILES = sorted(p.name for p in RECIPES.iterdir() if p.is_file())


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_the_page_shows_each_recipes_paste_part_exactly_as_the_tested_file_has_it(name):
    page = PAGE.read_text()
    assert f"](recipes/{name})" in page
    blocks = re.findall(r"```\w*\n(.*?)\n```", page, flags=re.S)
    assert paste_part(RECIPES / name) in blocks


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_each_paste_part_is_short_enough_to_paste(name):
    code = [line for line in paste_part(RECIPES / name).splitlines() if line.strip()]
    assert len(code) <= (80 if name.endswith(".swift") else 50), len(code)


@pytest.mark.parametrize("name", RECIPE_FILES)
def test_every_recipe_is_run_by_a_test_here_or_says_it_is_not_run_in_ci(name):
    executed = re.findall(r'RECIPES / "([\w.]+)"\)\]', Path(__file__).read_text())
    assert name in executed or "NOT RUN IN CI" in (RECIPES / name).read_text()


def test_the_readme_quick_start_points_to_the_page_in_one_sentence_after_its_two_commands():
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("Post a snapshot", 1)[0]
    assert len(re.findall(r"```sh\n", quick)) == 2
    after = quick.rsplit("```", 1)[1]
    assert "send your own agent's calls" in after.lower() and "](docs/instrumenting.md)" in after
