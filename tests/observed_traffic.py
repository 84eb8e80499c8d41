"""Generated traffic for observed schemas.

The issue's order tool, stable then changed, and correct traffic with optional fields, varied enums
and nullable values (tests and bench/observed.py share it)."""

import random
from datetime import datetime, timedelta

TOOL = "get_order"
STATUSES = ["paid", "pending", "refunded"]


START = datetime(2026, 12, 1, 9, 2)


def stamp(n: int) -> str:
    """Return the time of the n-th call: one a minute from 09:02 (so 300 calls end at 14:01)."""
    return (START + timedelta(minutes=n)).strftime("%Y-%m-%dT%H:%M:00Z")


def order(rng: random.Random, n: int, changed: bool = False) -> dict:
    """Return a response body: stable, or after the server change (total_cents a string, PAID_OUT,
    no currency)."""
    body = {
        "id": f"ord_{rng.randrange(16**8):08x}",
        "total_cents": rng.randrange(100, 100_000),
        "currency": rng.choice(["EUR", "USD"]),
        "status": rng.choice(STATUSES),
        "created_at": stamp(n),
        "items": [
            {"sku": f"SKU-{rng.randrange(1000)}", "qty": rng.randrange(1, 5)}
            for _ in range(rng.randrange(1, 4))
        ],
    }
    if rng.random() < 0.4:
        # optional and nullable
        body["coupon"] = rng.choice(["WINTER", "VIP", None])
    if changed:
        body["total_cents"] = f"{body['total_cents'] / 100:.2f}"
        body["status"] = "PAID_OUT"
        del body["currency"]
    return body


def varied(rng: random.Random, n: int) -> dict:
    """Return a correct body whose shape varies as real traffic does: optional and rare fields, an
    enum whose values come and go (a rare value first seen late), nullable values, numbers that are
    sometimes whole."""
    body = {
        "id": f"{rng.randrange(16**12):012x}-{n}",
        "price": round(rng.uniform(1, 500), rng.choice([0, 2])),
        "state": rng.choices(["open", "closed", "held", "archived"], [60, 30, 9, 1])[0],
        "tier": rng.choice(["gold", "silver", "bronze"])
        if n < 400
        else rng.choice(["silver", "bronze", "platinum"]),
        "updated_at": stamp(n) if rng.random() < 0.97 else None,
        "tags": rng.sample(["a", "b", "c", "d", "e", "f"], rng.randrange(0, 4)),
    }
    if rng.random() < 0.7:
        body["note"] = " ".join(
            rng.choice(["late", "gift", "fragile", "urgent"]) for _ in range(rng.randrange(1, 4))
        )
    if rng.random() < 0.995:
        # an optional field almost always there
        body["region"] = rng.choice(["eu", "us"])
    return body


def order_events(bodies, tool: str = TOOL, start: int = 0) -> list[dict]:
    """Return the ingest events of calls whose responses are `bodies` (arguments and request
    fixed)."""
    out = []
    for n, body in enumerate(bodies, start):
        base = {"trace_id": f"{n + 1:032x}", "call_id": "call_01", "tool": tool, "ts": stamp(n)}
        out += [
            {**base, "snapshot": "arguments", "payload": {"orderId": f"o{n}"}},
            {
                **base,
                "snapshot": "request",
                "payload": {"order_id": f"o{n}"},
                "http": {"method": "POST", "url": "https://shop.example.com/orders/get"},
            },
            {**base, "snapshot": "response", "payload": body, "http": {"status_code": 200}},
        ]
    return out


def mcp_results(events, changed_at=None):
    """Return an MCP CallToolResult per response event: its text, and the order's total as
    structuredContent."""
    out = []
    for n, event in enumerate(e for e in events if e["snapshot"] == "response"):
        body = event["payload"]
        structured = {
            "total": body["total_cents"] / 100,
            "currency": body["currency"],
            "status": body["status"],
        }
        if changed_at is not None and n >= changed_at:
            structured = {"total": f"{body['total_cents'] / 100:.2f}", "status": "PAID_OUT"}
        text = {"type": "text", "text": f"order total {structured['total']}"}
        out.append(
            {
                **event,
                "snapshot": "result",
                "payload": {"content": [text], "structuredContent": structured},
            }
        )
    return out
