"""Traffic of a tool whose mapping layer renames every field.

Small integers, repeats, ids, dates."""

import random

TOOL = "bookTable"


def booking(rng: random.Random, index: int) -> tuple[dict, dict]:
    """Return (arguments, request) of one correct bookTable call."""
    seats = rng.randint(1, 8)
    arguments = {
        "seats": seats,
        "child_count": rng.randint(0, min(3, seats)),
        "store_id": f"st_{rng.randint(1000, 9999)}",
        "date": f"2026-12-{rng.randint(1, 28):02d}",
        "notes": rng.choice(["window", "quiet", "", "birthday"]),
    }
    request = {
        "quantity": arguments["seats"],
        "minors": arguments["child_count"],
        "locationId": arguments["store_id"],
        "day": arguments["date"],
        "comment": arguments["notes"],
        "channel": "agent",
    }
    return arguments, request


def events(
    arguments: dict, request: dict, trace_id: str, minute: int = 0, tool: str = TOOL
) -> list[dict]:
    """Return the ingest envelopes of one call (arguments, request, a 200 response)."""
    ts = f"2026-11-20T09:{minute % 60:02d}:00Z"
    base = {"trace_id": trace_id, "call_id": "call_01", "tool": tool, "ts": ts}
    return [
        {**base, "snapshot": "arguments", "payload": arguments},
        {
            **base,
            "snapshot": "request",
            "payload": request,
            "http": {"method": "POST", "url": "https://api.example.com/bookings"},
        },
        {**base, "snapshot": "response", "payload": {"ok": True}, "http": {"status_code": 200}},
    ]


def traffic(count: int, seed: int = 11) -> list[dict]:
    """Return the envelopes of `count` correct calls, one trace each."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        out += events(*booking(rng, i), trace_id=f"{seed:08x}{i:024x}", minute=i)
    return out
