"""Wide events: calls whose payloads each hold `keys` top-level fields.

Arguments, request and response."""

import gzip
import random

import orjson

WORDS = (
    "invoice",
    "order",
    "refund",
    "customer",
    "shipment",
    "ledger",
    "budget",
    "review",
    "draft",
    "agent",
)


def wide_fields(keys: int, rng: random.Random) -> dict:
    """One payload of `keys` fields of mixed types, named like a wide export.

    `fieldName123`."""
    fields = {}
    for number in range(keys):
        kind = number % 4
        name = f"{WORDS[number % len(WORDS)]}Field{number}"
        if kind == 0:
            fields[name] = rng.choice(WORDS) + f"_{rng.randrange(10_000)}"
        elif kind == 1:
            fields[name] = rng.randrange(1_000_000)
        elif kind == 2:
            fields[name] = round(rng.random() * 1000, 2)
        else:
            fields[name] = rng.random() < 0.5
    return fields


def snake(name: str) -> str:
    """`invoiceField12` -> `invoice_field12`.

    The request names its fields in another case style."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def wide_call(number: int, keys: int, rng: random.Random, tool: str = "wideExport") -> list[dict]:
    """The three events of one wide call.

    Arguments, the request built from them (snake_case), the response."""
    arguments = wide_fields(keys, rng)
    trace_id = f"{number + 1:032x}"
    call_id = "call_01"
    request = {snake(name): value for name, value in arguments.items()}
    response = {
        "id": f"exp_{number}",
        **{snake(name): value for name, value in list(arguments.items())[: keys // 2]},
    }
    base = {"trace_id": trace_id, "call_id": call_id, "tool": tool}
    return [
        {**base, "snapshot": "arguments", "payload": arguments},
        {
            **base,
            "snapshot": "request",
            "payload": request,
            "http": {"method": "POST", "url": "https://api.example.com/exports"},
        },
        {**base, "snapshot": "response", "payload": response, "http": {"status_code": 200}},
    ]


def wide_ndjson(calls: int, keys: int, seed: int = 27, start: int = 0) -> bytes:
    """An NDJSON body of `calls` wide calls (three events each)."""
    rng = random.Random(seed)
    lines = []
    for number in range(start, start + calls):
        lines.extend(orjson.dumps(event) for event in wide_call(number, keys, rng))
    return b"\n".join(lines) + b"\n"


def wide_body(
    target_bytes: int, keys: int = 560, seed: int = 27, start: int = 0
) -> tuple[bytes, int]:
    """A gzip NDJSON body whose decompressed size is about `target_bytes`.

    Return it and its calls."""
    per_call = len(wide_ndjson(1, keys, seed))
    calls = max(1, target_bytes // per_call)
    return gzip.compress(wide_ndjson(calls, keys, seed, start), compresslevel=6), calls
