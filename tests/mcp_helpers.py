"""What the MCP tests share.

The tools' arguments on the sample traces and the fields each answer documents, a call with a
payload of a given size, the lint documents, and the official MCP client over either transport."""

import contextlib
import os
import sys
from pathlib import Path

from helpers import envelope

from webapp.mcp.tools import OUTPUTS

ROOT = Path(__file__).resolve().parent.parent
# sample 25: findOrders sends limit 5 as "5" (release 1.4.2)
LIMIT_BUG = "e5ced2a1124649a0a739ed6d70becd82"
ORDERS = {"customerEmail": "ana@example.com", "status": "paid", "limit": 5}
SENT_AS_STRING = {"customer_email": "ana@example.com", "status": "paid", "limit": "5"}
FIXED = {"customer_email": "ana@example.com", "status": "paid", "limit": 5}
OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "orders", "version": "1"},
    "paths": {
        "/orders": {
            "get": {
                "operationId": "listOrders",
                "parameters": [
                    {"name": "page_size", "in": "query", "schema": {"type": "string"}},
                    {
                        "name": "status",
                        "in": "query",
                        "schema": {"type": "string", "enum": ["PAID", "OPEN"]},
                    },
                ],
                "responses": {"200": {"description": "the orders"}},
            }
        }
    },
}
TOOLS = [
    {
        "name": "listOrders",
        "description": "List orders.",
        "input_schema": {
            "type": "object",
            "properties": {
                "limit": {"type": "integer"},
                "status": {"type": "string", "enum": ["paid", "open"]},
            },
        },
    }
]

# each tool's arguments on the sample traces, and fields its answer must hold there
ON_THE_SAMPLES = {
    "search_traces": ({"tool": "findOrders", "release": "1.4.0"}, ("traces", "next_cursor")),
    "get_trace": (
        {"trace_id": LIMIT_BUG},
        ("trace_id", "permalink", "calls", "budget_bytes", "cut"),
    ),
    "list_problems": ({"tool": "findOrders"}, ("problems", "next_cursor")),
    # the id of sample 22's problem (limit sent as a string): what list_problems answers first, see
    # limit_problem
    "get_problem": (
        {"id": None},
        ("what", "exposure", "value_pairs", "nearest_clean_call", "last_clean_before"),
    ),
    "compare_release": ({"release": "1.4.0"}, ("release", "with", "broke", "fixed")),
    "get_tool": (
        {"name": "findOrders"},
        ("contract", "mappings", "observed", "request_line", "way_back"),
    ),
    "check_call": (
        {"tool": "findOrders", "arguments": ORDERS, "request": SENT_AS_STRING},
        ("outcome", "passed", "findings", "validation", "contract_digest"),
    ),
    "lint_tools": ({"tools": TOOLS, "openapi": OPENAPI}, ("tools", "summary")),
}


def limit_problem(problems: list[dict]) -> dict:
    """Return the samples' findOrders problem of `limit` sent as a string (its TD number is the
    order it came in)."""
    [found] = [
        p
        for p in problems
        if p["kind"] == "type_changed" and (p["left"] or {}).get("path") == "/limit"
    ]
    return found


def sample_arguments(name: str, problem_id: str | None = None) -> dict:
    """Return a tool's arguments on the samples; get_problem's names the limit problem."""
    arguments = ON_THE_SAMPLES[name][0]
    return {**arguments, "id": problem_id} if name == "get_problem" else arguments


def check_sample_answer(name: str, answer: dict) -> None:
    """Assert what each tool says on the sample traces: the documented fields, and the facts the
    samples hold."""
    assert set(ON_THE_SAMPLES[name][1]) <= set(answer), (name, sorted(answer))
    validate(name, answer)
    if name == "search_traces":
        assert len(answer["traces"]) == 2 and all(
            t["permalink"].endswith(t["trace_id"]) for t in answer["traces"]
        )
    elif name == "get_trace":
        [call] = answer["calls"]
        assert call["snapshots"]["request"]["payload"]["limit"] == "5"
        [finding] = [f for f in call["findings"] if f["severity"] != "info"]
        assert (finding["left"], finding["right"]) == (
            {"snapshot": "arguments", "path": "/limit"},
            {"snapshot": "request", "path": "/limit"},
        )
    elif name == "list_problems":
        assert limit_problem(answer["problems"])["transform"] == "integer>string"
    elif name == "get_problem":
        assert (
            answer["what"]
            == "findOrders: /limit sent as string instead of integer (arguments -> request)"
        )
        assert {"left": 5, "right": "5", "count": 2, "missing": []} in answer["value_pairs"]
        assert (
            answer["nearest_clean_call"]["permalink"]
            .split("/traces/")[1]
            .startswith(answer["nearest_clean_call"]["trace_id"])
        )
        assert answer["last_clean_before"]["release"] == "1.3.9"
    elif name == "compare_release":
        assert answer["with"] == "1.3.9" and limit_problem(answer["broke"]) == answer["broke"][0]
    elif name == "get_tool":
        assert answer["contract"]["arguments_schema"]["properties"]["limit"]["type"] == "integer"
        assert answer["observed"]["request"]["schema"]["properties"]["limit"]["type"] == [
            "integer",
            "string",
        ]
    elif name == "check_call":
        assert answer["passed"] is False and answer["validation"]["request"]["valid"] is False
    elif name == "lint_tools":
        [tool] = answer["tools"]
        kinds = {(m["kind"], m["left"]["path"], m["right"]["path"]) for m in tool["mismatches"]}
        assert ("type_mismatch", "/limit", "query:/page_size") in kinds and tool[
            "outcome"
        ] == "failed"


def validate(name: str, answer: dict) -> None:
    """Assert an answer holds to its tool's output schema."""
    from jsonschema import Draft202012Validator

    errors = list(Draft202012Validator(OUTPUTS[name]).iter_errors(answer))
    assert not errors, [error.message for error in errors[:3]]


def big_call(trace_id: str, size: int) -> list[dict]:
    """Return the events of a findOrders call whose response is about `size` bytes of orders."""
    order = {
        "id": "ord_000000",
        "status": "paid",
        "note": "n" * 180,
        "items": [{"sku": "sku-1", "qty": 1}] * 3,
    }
    count = max(size // len(str(order)), 1)
    orders = [{**order, "id": f"ord_{n:06d}"} for n in range(count)]
    return [
        envelope("arguments", ORDERS, trace_id, ts="2026-11-20T09:00:00Z"),
        envelope(
            "request",
            FIXED,
            trace_id,
            ts="2026-11-20T09:00:01Z",
            http={"method": "POST", "url": "/orders"},
        ),
        envelope(
            "response",
            {"orders": orders, "next_cursor": None},
            trace_id,
            ts="2026-11-20T09:00:02Z",
            http={"status_code": 200},
        ),
    ]


@contextlib.asynccontextmanager
async def mcp_client(transport: str, url: str, token: str | None, mode: str = "legacy"):
    """Yield the official MCP client on `tracediff mcp` (stdio, a process started here) or on `/mcp`
    (HTTP)."""
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    if transport == "stdio":
        args = ["-m", "webapp", "mcp", "--url", url, *(["--token", token] if token else [])]
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT))}
        async with Client(
            StdioServerParameters(command=sys.executable, args=args, env=env, cwd=ROOT), mode=mode
        ) as c:
            yield c
        return
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(
            streamable_http_client(f"{url}/mcp", http_client=http), mode=mode
        ) as client:
            yield client
