"""Realistic findOrders events, made fast.

Three snapshots per call, about 2 KB each on average.

Each snapshot is serialised once as a template; only the ids and timestamps change per call,
so the client processes can produce tens of thousands of events per second.
"""

import json
import random

from common import SAMPLES

STATUSES = ("pending", "paid", "shipped", "delivered", "cancelled", "refunded")
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json",
    "user-agent": "AcmeAssistant/3.4 (iOS 19.1)",
    "x-request-id": "req_%(call)s",
}


def _orders(count: int, rng: random.Random) -> list[dict]:
    return [
        {
            "id": f"ord_{rng.randrange(16**8):08x}",
            "status": rng.choice(STATUSES),
            "total_cents": rng.randrange(100, 100_000),
            "currency": "EUR",
            "items_count": rng.randrange(1, 9),
            "created_at": f"2026-11-{rng.randrange(1, 28):02d}T{rng.randrange(24):02d}:02:11Z",
        }
        for _ in range(count)
    ]


def call_payloads(seed: int = 7, orders: int = 24) -> dict:
    """Return the three payloads of one findOrders call that is mapped correctly."""
    rng = random.Random(seed)
    arguments = {
        "customerEmail": "dana.whitfield@example.com",
        "status": "shipped",
        "createdAfter": "2026-11-01T00:00:00Z",
        "limit": orders,
    }
    request = {
        "customer_email": "dana.whitfield@example.com",
        "status": "shipped",
        "created_after": "2026-11-01T00:00:00Z",
        "limit": orders,
    }
    return {
        "arguments": arguments,
        "request": request,
        "response": {"orders": _orders(orders, rng), "next_cursor": None},
    }


def _template(snapshot: str, payload) -> str:
    record = {
        "trace_id": "%(trace)s",
        "call_id": "%(call)s",
        "snapshot": snapshot,
        "tool": "findOrders",
        "source": "foundation_models",
        "payload": payload,
        "ts": "%(ts)s",
        "event_id": "%(call)s-" + snapshot,
    }
    if snapshot != "arguments":
        http = {
            "method": "POST",
            "url": "https://api.example.com/v1/orders/search",
            "headers": HEADERS,
        }
        if snapshot == "response":
            http = {**http, "status_code": 200}
        record["http"] = http
    return json.dumps(record, separators=(",", ":")).replace("%", "%%").replace("%%(", "%(")


TEMPLATES = [_template(name, payload) for name, payload in call_payloads(orders=36).items()]


def call_lines(prefix: str, number: int) -> list[str]:
    """Return the three NDJSON lines of call `number`, with ids unique to `prefix`."""
    values = {
        "trace": f"{prefix}{number:012x}",
        "call": f"{prefix}-c{number}",
        "ts": f"2026-11-24T08:{number // 60 % 60:02d}:{number % 60:02d}.{number % 1000:03d}Z",
    }
    return [template % values for template in TEMPLATES]


def batch_body(prefix: str, first_call: int, events: int = 100) -> tuple[bytes, int]:
    """Return an NDJSON body of about `events` events and its number of calls.

    Whole calls."""
    calls = max(1, round(events / 3))
    lines = [line for n in range(first_call, first_call + calls) for line in call_lines(prefix, n)]
    return ("\n".join(lines) + "\n").encode(), calls


def contract() -> dict:
    """Return the findOrders contract from sample_traces/contracts."""
    return json.loads((SAMPLES / "contracts" / "findOrders.json").read_text())
