"""Builders for the problem tests.

findOrders calls that are clean or send limit as a string, at a chosen time."""

from datetime import UTC, datetime, timedelta

from helpers import ndjson

CONTRACT = {
    "arguments_schema": {
        "type": "object",
        "properties": {"limit": {"type": "integer"}, "status": {"type": "string"}},
    },
    "request_schema": {
        "type": "object",
        "properties": {"limit": {"type": "integer"}, "status": {"type": "string"}},
    },
}


def at(minutes: float = 0, base: datetime | None = None) -> str:
    """Return an RFC 3339 time `minutes` after base (default: now)."""
    moment = (base or datetime.now(UTC)) + timedelta(minutes=minutes)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def call(
    trace_id: str, ts: str, broken: bool = True, call_id: str = "call_01", limit: int = 5, **extra
) -> list:
    """Return the three events of one findOrders call at `ts`; broken sends limit as a string."""
    common = {"trace_id": trace_id, "call_id": call_id, "tool": "findOrders", "ts": ts, **extra}
    sent = str(limit) if broken else limit
    return [
        {**common, "snapshot": "arguments", "payload": {"status": "paid", "limit": limit}},
        {
            **common,
            "snapshot": "request",
            "payload": {"status": "paid", "limit": sent},
            "http": {"method": "POST", "url": "https://api.example.com/orders/search"},
        },
        {**common, "snapshot": "response", "payload": {"orders": []}, "http": {"status_code": 200}},
    ]


def send(client, *events) -> None:
    """Ingest events through the API and check that all were taken."""
    response = client.post("/api/v1/ingest", data=ndjson(*events))
    assert response.status_code == 200 and not response.get_json()["rejected"], response.get_json()


def trace(n: int) -> str:
    return f"{n:032x}"
