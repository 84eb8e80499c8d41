"""Small builders shared by the tests.

Envelopes as a log shipper would send them."""

import functools

import orjson

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def envelope(
    snapshot="arguments", payload=None, trace_id=TRACE, call_id="call_01", **extra
) -> dict:
    """Return one ingest envelope (v1)."""
    event = {
        "trace_id": trace_id,
        "call_id": call_id,
        "snapshot": snapshot,
        "tool": "findOrders",
        "payload": {"limit": 5} if payload is None else payload,
    }
    event.update(extra)
    return event


def ndjson(*events) -> bytes:
    return b"".join(orjson.dumps(e) + b"\n" for e in events)


def order_call(trace_id=TRACE, limit_sent=5) -> list[dict]:
    """The three snapshots of a findOrders call; limit_sent='5' makes the classic bug."""
    return [
        envelope("arguments", {"status": "paid", "limit": 5}, trace_id, ts="2026-11-20T09:00:00Z"),
        envelope(
            "request",
            {"status": "paid", "limit": limit_sent},
            trace_id,
            ts="2026-11-20T09:00:01Z",
            http={"method": "POST", "url": "https://api.example.com/orders/search"},
        ),
        envelope(
            "response",
            {"orders": [], "total": 0},
            trace_id,
            ts="2026-11-20T09:00:02Z",
            http={"status_code": 200},
        ),
    ]


def nested(leaf, depth: int = 3000) -> dict:
    """Return {"a": {"a": ... {"v": leaf}}}, deeper than any walk should follow."""
    doc = node = {}
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    node["v"] = leaf
    return doc


def quick_and_thorough(quick: int, thorough: int):
    """Parametrize a property test's `examples`: a few in the quick set, every one in a run marked
    slow."""
    import pytest

    return pytest.mark.parametrize(
        "examples",
        [
            pytest.param(quick, id="quick"),
            pytest.param(thorough, id="thorough", marks=pytest.mark.slow),
        ],
    )


def parsed(path):
    """The syntax tree of a Python file, parsed once per test process for each text it holds.

    The layering, stage and engine checks each read the whole package; the trees are only read."""
    return _parsed_text(path.read_text())


@functools.cache
def _parsed_text(text: str):
    import ast

    return ast.parse(text)
