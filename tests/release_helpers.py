"""A four-hour incident across releases.

1.0.0 correct but for one old bug, 1.1.0 with new mapping bugs, 1.1.1 the fix.

findOrders maps `status`, `limit`, `customerId` (-> `customer_id`) and `since`. 1.0.0 already sends
`limit` as a string once in a while (the old problem); 1.1.0 also upper-cases `status` and drops
`since` (two new problems); 1.1.1 fixes the two and keeps the old one. Times are minutes after a
base the caller picks.
"""

from datetime import UTC, datetime, timedelta

CONTRACT = {
    "arguments_schema": {
        "type": "object",
        "properties": {
            "status": {"type": "string"},
            "limit": {"type": "integer"},
            "customerId": {"type": "string"},
            "since": {"type": "string"},
        },
    },
    "request_schema": {
        "type": "object",
        "properties": {
            "status": {"type": "string"},
            "limit": {"type": "integer"},
            "customer_id": {"type": "string"},
            "since": {"type": "string"},
        },
    },
    "mapping": {"/customerId": "/customer_id"},
}
STATUSES = ("paid", "open", "refunded", "void")


def stamp(base: datetime, minutes: float) -> str:
    """Return the RFC 3339 time `minutes` after base."""
    return (base + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def order_call(
    n: int,
    ts: str,
    release: str,
    old_bug=False,
    upper=False,
    drop_since=False,
    source="app_intent",
    error=False,
) -> list[dict]:
    """Return the three events of findOrders call n; the flags choose its bugs."""
    trace_id = f"{n:032x}"
    status, limit = STATUSES[n % len(STATUSES)], 5 + n % 20
    arguments = {"status": status, "limit": limit, "customerId": f"c{n % 7}", "since": "2026-11-01"}
    request = {
        "status": status.upper() if upper else status,
        "limit": str(limit) if old_bug else limit,
        "customer_id": arguments["customerId"],
    }
    if not drop_since:
        request["since"] = arguments["since"]
    common = {
        "trace_id": trace_id,
        "call_id": "call_01",
        "tool": "findOrders",
        "ts": ts,
        "release": release,
        "source": source,
    }
    response = (
        {"error": {"code": "bad_status", "message": "unknown status"}}
        if error
        else {"orders": [], "total": 0}
    )
    return [
        {**common, "snapshot": "arguments", "payload": arguments},
        {
            **common,
            "snapshot": "request",
            "payload": request,
            "http": {"method": "POST", "url": "https://api.example.com/orders/search"},
        },
        {
            **common,
            "snapshot": "response",
            "payload": response,
            "http": {"status_code": 400 if error else 200},
        },
    ]


def incident(base: datetime | None = None, every: float = 4.0) -> list[dict]:
    """Return the events of a four-hour incident ending near `base` + 4 h: a call every `every`
    minutes.

    0-60 min: 1.0.0 (every fifth call sends limit as a string); 60-180: 1.1.0 (the same, plus status
    upper-cased in every second call and since dropped in every third); 180-240: 1.1.1 (only the old
    bug)."""
    base = base or datetime.now(UTC) - timedelta(hours=4)
    events, n, minute = [], 0, 0.0
    while minute < 240:
        release = "1.0.0" if minute < 60 else "1.1.0" if minute < 180 else "1.1.1"
        new = release == "1.1.0"
        events += order_call(
            n,
            stamp(base, minute),
            release,
            old_bug=n % 5 == 0,
            upper=new and n % 2 == 1,
            drop_since=new and n % 3 == 1,
            source="mcp" if n % 4 == 3 else "app_intent",
        )
        n += 1
        minute += every
    return events


def release_day(base: datetime, every: float = 3.0) -> list[dict]:
    """Return the four hours of the screenshots' incident, from `base`: a call every `every`
    minutes.

    0-60 min: 1.0.0, correct; 60-150: 1.1.0 with three mapping bugs (status upper-cased in every
    second call, since dropped in every third, limit sent as a string in every fourth); 150-240:
    1.1.1, the fix. The regression (1.1.2 upper-cases status again) is `regression_calls`, sent once
    the fix has been resolved."""
    events, n, minute = [], 0, 0.0
    while minute < 240:
        release = "1.0.0" if minute < 60 else "1.1.0" if minute < 150 else "1.1.1"
        broken = release == "1.1.0"
        events += order_call(
            n,
            stamp(base, minute),
            release,
            old_bug=broken and n % 4 == 0,
            upper=broken and n % 2 == 1,
            drop_since=broken and n % 3 == 1,
            source="mcp" if n % 4 == 3 else "app_intent",
        )
        n += 1
        minute += every
    return events


def regression_calls(now: datetime, count: int = 6, first: int = 5000) -> list[dict]:
    """Return `count` calls of 1.1.2 at `now` (after the resolve), every second one upper-casing
    status again."""
    return [
        event
        for n in range(first, first + count)
        for event in order_call(n, stamp(now, (n - first) / 600), "1.1.2", upper=n % 2 == 1)
    ]
