"""Redaction cost per event.

The RE2 proof of a clean event, and the walk of one that holds a secret.

Baseline, in the same run: serialising the same payload with orjson, which the proof needs anyway.
Run: python bench/redact.py [--quick]
"""

import time

import orjson
from common import options

from webapp.redaction.redactor import Redactor

CLEAN = {
    "status": "paid",
    "limit": 5,
    "customer": {"email": "dana.whitfield@example.com", "id": "cus_8f3a2b1c"},
    "items": [{"sku": f"ACME-{i}", "qty": i % 3 + 1, "priceCents": 1299 + i} for i in range(20)],
    "note": "Deliver to the back door, ring twice. Order placed from the mobile app.",
    "createdAt": "2026-11-30T09:00:00Z",
}
# the worst clean case: percent-escapes (a URL, "50% off") make the proof scan the decoded text as
# well
ESCAPED = {
    **CLEAN,
    "callback": "https://shop.example.com/track?q=back%20door%2C%20ring%20twice&ref=app%2Fios",
    "note": CLEAN["note"] + " 50% off.",
}
SECRET = {
    **CLEAN,
    "note": 'retry with export CLIENT_SECRET="Zq8Xw3Vb7Nm2Lk5J" and '
    "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",
}


def per_call(fn, payload, seconds: float) -> float:
    """Return microseconds per call of fn(payload), run for about `seconds`."""
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            fn(payload)
        count += 200
    return (time.perf_counter() - start) / count * 1e6


def main():
    args = options(__doc__, seconds=2.0)
    seconds = 0.2 if args.quick else args.seconds
    redactor = Redactor()
    baseline = per_call(orjson.dumps, CLEAN, seconds)
    clean = per_call(redactor.value, CLEAN, seconds)
    escaped = per_call(redactor.value, ESCAPED, seconds)
    escaped_base = per_call(orjson.dumps, ESCAPED, seconds)
    secret = per_call(redactor.value, SECRET, seconds)
    print(f"payload of {len(orjson.dumps(CLEAN))} bytes; baseline orjson.dumps {baseline:.1f} us")
    print(f"clean event (RE2 proof)   {clean:8.1f} us  = {clean / baseline:5.1f}x the baseline")
    print(
        f"clean, with %-escapes     {escaped:8.1f} us  = {escaped / escaped_base:5.1f}x its own "
        "orjson.dumps"
    )
    print(f"event holding secrets     {secret:8.1f} us  = {secret / baseline:5.1f}x the baseline")


if __name__ == "__main__":
    main()
