"""What real GenAI instrumentation libraries send over OTLP.

Replayed through the real app.

Each recording in tests/fixtures/otlp/ is what one library exported while a real agent loop ran
(tests/instrumentations/agent_loop.py): the openai or anthropic SDK against a stand-in model asking
for one or two `find_orders` calls in one turn, the tool posting to an orders API with the planted
`limit` 5 -> "5". Replayed over protobuf and JSON, every tool call must have its three snapshots,
its tool name and a call id of its own, and the planted type change must be the only warning or
error.
"""

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "otlp"
AGENT_LOOP = Path(__file__).resolve().parent / "instrumentations" / "agent_loop.py"
# the MCP chain in two processes: <lib>-<stdio|http>-<turn> (tests/instrumentations/mcp_chain.py)
MCP_CHAIN = Path(__file__).resolve().parent / "instrumentations" / "mcp_chain.py"
RECORDINGS = sorted(p.stem for p in FIXTURES.glob("*.pb"))
PAID, REFUNDED = {"status": "paid", "limit": 5}, {"status": "refunded", "limit": 5}
ARGUMENTS = {"one": [PAID], "two": [PAID, REFUNDED]}
ORDERS = {"orders": [{"id": "ord_1", "status": "paid", "total_cents": 1250}], "total": 1}
LIVE_ENV = {
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "SPAN_AND_EVENT",
    "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
}


def posts_pb(stem: str) -> list[tuple[str, bytes]]:
    """Read a .pb recording: each post is its path, a newline, a 4-byte big-endian length and the
    body."""
    data, posts, at = (FIXTURES / f"{stem}.pb").read_bytes(), [], 0
    while at < len(data):
        end = data.index(b"\n", at)
        (size,) = struct.unpack(">I", data[end + 1 : end + 5])
        posts.append((data[at:end].decode(), data[end + 5 : end + 5 + size]))
        at = end + 5 + size
    return posts


def posts_json(stem: str) -> list[tuple[str, bytes]]:
    return [
        (p["path"], json.dumps(p["body"]).encode())
        for p in json.loads((FIXTURES / f"{stem}.json").read_text())
    ]


def replay(client, posts: list, content_type: str) -> None:
    for path, body in posts:
        response = client.post(path, data=body, content_type=content_type)
        assert response.status_code == 200, (path, response.data[:500])
        if content_type == "application/json":
            assert response.get_json().get("partialSuccess", {}).get("rejectedSpans", 0) in (
                0,
                "0",
            ), response.data


def trace_ids(posts: list) -> set[str]:
    ids = set()
    for path, body in posts:
        if path == "/v1/traces":
            doc = json.loads(body)
            ids |= {
                s["traceId"]
                for rs in doc["resourceSpans"]
                for ss in rs["scopeSpans"]
                for s in ss["spans"]
            }
    return ids


# records no message content: the results the agent sent back are not seen
NO_RESULTS = ("openlit-",)


# a framework's own tools beside find_orders: smolagents ends every run by calling final_answer
FRAMEWORK_TOOLS = ("final_answer",)


def assert_tool_calls(trace: dict, turn: str, results: bool = True) -> None:
    """Every tool call: its arguments, request and response, the right name, its own id, only the
    planted bug."""
    own = [c for c in trace["calls"] if c["tool"] in FRAMEWORK_TOOLS]
    # no HTTP call: nothing compared
    assert all(not c["complete"] and not c["findings"] for c in own), own
    mine = [c for c in trace["calls"] if c not in own]
    calls = sorted(mine, key=lambda c: c["snapshots"]["arguments"]["payload"]["status"])
    assert len(calls) == len(ARGUMENTS[turn]), [
        (c["call_id"], sorted(c["snapshots"])) for c in trace["calls"]
    ]
    assert len({c["call_id"] for c in calls}) == len(calls) and all(c["call_id"] for c in calls)
    for call, arguments in zip(calls, ARGUMENTS[turn]):
        snaps = call["snapshots"]
        assert call["tool"] == "find_orders"
        assert snaps["arguments"]["payload"] == arguments
        assert snaps["request"]["payload"] == {**arguments, "limit": "5"}
        assert snaps["request"]["http"]["url"].endswith("/orders/search")
        assert snaps["response"]["payload"] == ORDERS
        # what the agent handed back to the model, read from the next model request
        if results:
            assert snaps["result"]["payload"] == ORDERS
        loud = [
            (f["kind"], (f.get("left") or {}).get("path"), (f.get("right") or {}).get("path"))
            for f in call["findings"]
            if f["severity"] in ("warning", "error")
        ]
        assert loud == [("type_changed", "/limit", "/limit")], call["findings"]


@pytest.mark.parametrize("stem", RECORDINGS)
@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_a_real_library_recording_gives_every_tool_call_its_three_snapshots(client, stem, encoding):
    posts = posts_pb(stem) if encoding == "protobuf" else posts_json(stem)
    replay(
        client, posts, "application/x-protobuf" if encoding == "protobuf" else "application/json"
    )
    [trace_id] = trace_ids(posts_json(stem))
    trace = client.get(f"/api/v1/traces/{trace_id}").get_json()
    assert_tool_calls(trace, stem.rsplit("-", 1)[1], results=not stem.startswith(NO_RESULTS))


@pytest.mark.slow
# the replays cover both stores; this checks the library still sends the same
@pytest.mark.sqlite_only
@pytest.mark.parametrize("stem", RECORDINGS)
def test_a_live_run_of_the_library_gives_the_same_tool_calls(client, stem, tmp_path):
    # LIB.MODE (openai-v2.events) runs in LIB's virtualenv
    lib, provider, turn = stem.rsplit("-", 2)
    python = Path("/tmp/venvs") / lib.partition(".")[0] / "bin" / "python"
    if not python.exists():
        pytest.skip(
            f"no virtualenv for {lib} at {python.parent.parent} (tests/instrumentations/README.md "
            "makes one)"
        )
    script = MCP_CHAIN if provider in ("stdio", "http") else AGENT_LOOP
    done = subprocess.run(
        [str(python), str(script), lib, provider, turn, str(tmp_path / stem)],
        env={**os.environ, **LIVE_ENV},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    posts = [
        (p["path"], json.dumps(p["body"]).encode())
        for p in json.loads((tmp_path / f"{stem}.json").read_text())
    ]
    replay(client, posts, "application/json")
    [trace_id] = trace_ids(posts)
    assert_tool_calls(
        client.get(f"/api/v1/traces/{trace_id}").get_json(), turn, not stem.startswith(NO_RESULTS)
    )


assert sys.version_info >= (3, 11)


@pytest.mark.parametrize("turn", ["one", "two"])
def test_a_smolagents_run_gives_each_call_the_model_call_id_and_names_the_framework(client, turn):
    posts = posts_json(f"smolagents-openai-{turn}")
    replay(client, posts, "application/json")
    [trace_id] = trace_ids(posts)
    calls = client.get(f"/api/v1/traces/{trace_id}").get_json()["calls"]
    found = sorted(c["call_id"] for c in calls if c["tool"] == "find_orders")
    assert found == [f"call_standin_{n:02d}" for n in range(1, len(ARGUMENTS[turn]) + 1)]
    # not "openai", the model's provider under it
    assert {c["source"] for c in calls} == {"smolagents"}
