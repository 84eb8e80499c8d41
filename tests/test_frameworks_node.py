"""What Node agent frameworks send over OTLP, replayed through the real app.

Each recording in tests/fixtures/frameworks_node/ is what one framework exported while its real agent
ran (tests/instrumentations/node/record.mjs, driven by node_frameworks.py) against a stand-in model
asking for one or two `find_orders` calls in one turn, the tool posting to an orders API through the
Node recipe's tracedFetch with the planted `limit` 5 -> "5": the Vercel AI SDK (`ai` 6 with
experimental_telemetry, generateText and streamText; `ai` 7 with @ai-sdk/otel) and Mastra (with its
OtelBridge). The protobuf
and the OTLP/JSON exporter's posts are both replayed; every tool call must be one call with the
model's call id, its four snapshots, the framework as its source, and the planted type change as its
only warning, however the spans are split into requests.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_instrumentations import ARGUMENTS, ORDERS, posts_json, posts_pb, replay
from test_instrumentations_split import ORDERS as BATCHINGS
from test_instrumentations_split import calls_of, postings, trace_ids_of

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "frameworks_node"
RECORDINGS = sorted(p.stem for p in FIXTURES.glob("*.pb"))
RECORDER = Path(__file__).resolve().parent / "instrumentations" / "node_frameworks.py"
NODE_DIR = Path("/tmp/node-frameworks")
SOURCES = {
    "vercel-ai": "vercel-ai",
    "vercel-ai.stream": "vercel-ai",
    "vercel-ai5": "vercel-ai",
    "vercel-ai7": "vercel-ai",
    "vercel-ai7.legacy": "vercel-ai",
    "mastra": "mastra",
}
CALL_IDS = ["call_standin_01", "call_standin_02"]


def recorded(stem: str) -> list[dict]:
    return json.loads((FIXTURES / f"{stem}.json").read_text())


@pytest.mark.parametrize("stem", RECORDINGS)
@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_a_node_framework_recording_gives_one_call_per_tool_call(client, stem, encoding):
    framework, turn = stem.rsplit("-", 1)
    if encoding == "protobuf":
        replay(client, posts_pb(FIXTURES / stem), "application/x-protobuf")
    else:
        replay(client, posts_json(FIXTURES / stem), "application/json")
    [trace_id] = trace_ids_of(recorded(stem))
    trace = client.get(f"/api/v1/traces/{trace_id}").get_json()
    calls = sorted(trace["calls"], key=lambda c: c["call_id"])
    assert [c["call_id"] for c in calls] == CALL_IDS[: len(ARGUMENTS[turn])], [
        (c["call_id"], c["tool"], sorted(c["snapshots"])) for c in trace["calls"]
    ]
    for call, arguments in zip(calls, ARGUMENTS[turn]):
        snaps = call["snapshots"]
        assert call["tool"] == "find_orders"
        assert call["source"] == SOURCES[framework], call
        assert snaps["arguments"]["payload"] == arguments
        assert snaps["request"]["payload"] == {**arguments, "limit": "5"}
        assert snaps["response"]["payload"] == ORDERS
        assert snaps["response"]["http"]["status_code"] == 200
        assert snaps["result"]["payload"] == ORDERS
        loud = [
            (f["kind"], (f.get("left") or {}).get("path"), (f.get("right") or {}).get("path"))
            for f in call["findings"]
            if f["severity"] in ("warning", "error")
        ]
        assert loud == [("type_changed", "/limit", "/limit")], call["findings"]


@pytest.mark.parametrize("stem", RECORDINGS)
def test_a_node_framework_recording_one_request_per_span_gives_the_calls_of_one_request(
    client, stem
):
    found = postings(client, recorded(stem))
    assert len(found["recorded"]) == len(ARGUMENTS[stem.rsplit("-", 1)[1]])
    for order in BATCHINGS[1:]:
        assert found[order] == found["recorded"], order


@pytest.mark.slow
# the replays cover both stores; this checks the framework still sends the same
@pytest.mark.sqlite_only
@pytest.mark.parametrize("stem", RECORDINGS)
def test_a_live_run_of_the_node_framework_gives_the_same_calls(client, stem, tmp_path):
    framework, turn = stem.rsplit("-", 1)
    if shutil.which("node") is None or not (NODE_DIR / "node_modules").is_dir():
        pytest.skip(
            f"no node, or no packages at {NODE_DIR} (tests/instrumentations/README.md, 'Node')"
        )
    done = subprocess.run(
        [sys.executable, str(RECORDER), framework, turn, str(tmp_path / stem), str(NODE_DIR)],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    live = json.loads((tmp_path / f"{stem}.json").read_text())
    replay(client, [(p["path"], json.dumps(p["body"]).encode()) for p in live], "application/json")
    [trace_id] = trace_ids_of(live)
    replay(client, posts_json(FIXTURES / stem), "application/json")
    [recorded_id] = trace_ids_of(recorded(stem))
    assert calls_of(client, trace_id) == calls_of(client, recorded_id)
