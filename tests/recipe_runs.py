"""Running the recipes of docs/instrumenting.md as a user would.

And reading what reached tracediff."""

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
from standins import ARGUMENTS, ORDERS, StandIn, anthropic_messages, openai_chat, orders_api

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "docs" / "recipes"
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SNAPSHOTS = ("arguments", "request", "response")
RECIPE_SETTINGS = ("TRACEPARENT", "RELEASE", "TRACEDIFF_LOG", "TRACEDIFF_URL", "MODEL")


def run_recipe(command: list, env: dict, cwd: Path, timeout: float = 60) -> str:
    """Run a recipe as a user would, with its settings in the environment; return its output."""
    # only what the test sets
    base = {k: v for k, v in os.environ.items() if k not in RECIPE_SETTINGS}
    # a scratch folder: nothing lands in the repository
    done = subprocess.run(
        command, env={**base, **env}, capture_output=True, text=True, timeout=timeout, cwd=cwd
    )
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
        assert time.monotonic() < stop, (
            f"trace {trace_id}: {response.status_code} {response.text[:2000]}"
        )
        time.sleep(0.2)


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
    assert [(f["left"]["path"], f["right"]["path"]) for f in bugs] == [("/limit", "/limit")], call[
        "findings"
    ]
    if source is not None:
        assert {snaps[s]["source"] for s in SNAPSHOTS} == {source}


def assert_result_passed_on(call: dict, payload=None) -> None:
    """The call holds the result the model got (the response restated), and the way back is
    quiet."""
    result = call["snapshots"]["result"]
    assert result["payload"] == (ORDERS if payload is None else payload)
    ends = lambda f: ((f["left"] or {}).get("snapshot"), (f["right"] or {}).get("snapshot"))  # noqa: E731
    way_back = [f for f in call["findings"] if "result" in ends(f)]
    assert [f for f in way_back if f["severity"] != "info"] == [], way_back
    # the aligned view's result column follows the response
    assert call["returned"]["pairs"]


def assert_release(call: dict, release: str) -> None:
    """Every snapshot carries the release it was logged with (a field of its own, or in the event's
    meta)."""
    for name in SNAPSHOTS:
        snap = call["snapshots"][name]
        assert release in (snap.get("release"), (snap.get("meta") or {}).get("release")), snap


@pytest.fixture
def orders():
    """The API behind the tool; it gzips its answers, as one behind a compressing proxy does."""
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
    """Load a log file into the server's database with `tracediff ingest`, as a user would."""
    tracediff = shutil.which("tracediff")
    command = [tracediff] if tracediff else [sys.executable, "-m", "webapp"]
    done = subprocess.run(
        [*command, "ingest", str(log_file), "--db", str(db_path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


class RecipeProcess:
    """A recipe that serves (the MCP server), run as its own process until the test ends."""

    def __init__(self, command: list, env: dict, log_path: Path):
        self.log_path = log_path
        with log_path.open("ab") as out:
            self.process = subprocess.Popen(
                command,
                env={**os.environ, **env},
                cwd=log_path.parent,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

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


def node_binary() -> str:
    """Return the node executable (18 or later: global fetch); skip without it, but fail on CI."""
    found = shutil.which("node")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("node is not installed; .ci/run installs it (apt-get install nodejs)")
    pytest.skip("node is not installed")
