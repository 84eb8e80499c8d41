"""Generate a tracediff database of N analysed traces fast.

Executemany straight into the store's schema.

Each trace is one findOrders-like call with three small snapshots and a stored analysis; one
trace in seven has a type_changed error and one in eleven a dropped warning. Rows go in big
batches and the full-text index is filled in one statement at the end, so 1M traces take minutes.
"""

import random
import sqlite3
import time
from pathlib import Path

import orjson
from common import OUT

from webapp.store import Store

# bump when the generated rows change, so cached databases are rebuilt
VERSION = 1
TOOLS = (
    "findOrders",
    "createInvoice",
    "searchDocuments",
    "getDocument",
    "createTask",
    "sendEmail",
    "createNote",
    "getNote",
    "refundOrder",
    "listInvoices",
)
WORDS = (
    "invoice",
    "order",
    "refund",
    "customer",
    "shipment",
    "priority",
    "ledger",
    "quarter",
    "budget",
    "review",
    "draft",
    "meeting",
    "carrier",
    "parcel",
    "warehouse",
    "discount",
)
CHUNK = 20_000


def _analysis(i: int) -> tuple[str, str | None, int, int, str]:
    """Return (analysis JSON, worst, errors, warnings, kinds) of trace i."""
    findings = []
    if i % 7 == 0:
        findings.append(
            {
                "kind": "type_changed",
                "severity": "error",
                "path": "/limit",
                "message": "limit changed type from integer to string",
            }
        )
    if i % 11 == 0:
        findings.append(
            {
                "kind": "dropped",
                "severity": "warning",
                "path": "/priority",
                "message": "priority was dropped by the mapping",
            }
        )
    worst = "error" if i % 7 == 0 else "warning" if i % 11 == 0 else None
    summary = {"error": int(i % 7 == 0), "warning": int(i % 11 == 0), "info": 0}
    analysis = {
        "validation": {},
        "findings": findings,
        "summary": summary,
        "worst": worst,
        "alignment": [],
    }
    kinds = ",".join(sorted({f["kind"] for f in findings}))
    return orjson.dumps(analysis).decode(), worst, summary["error"], summary["warning"], kinds


def _rows(i: int, rng: random.Random, old_times: bool = False, pad: int = 0) -> dict:
    """The rows of trace i.

    `old_times`: times as tracediff wrote them before migration 10 (`.000Z`); `pad`: characters
    added to each payload (events of about 2 KB, the size bench/ingest.py sends)."""
    trace_id, tool = f"{i:032x}", TOOLS[i % len(TOOLS)]
    ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_790_000_000 + i)) + (
        ".000Z" if old_times else ".000000Z"
    )
    words = " ".join(rng.choices(WORDS, k=3)) + f" ticket{i % 100_000}"
    notes = {"notes": "x" * pad} if pad else {}
    payloads = {
        "arguments": {"customerId": f"cus_{i % 5000}", "query": words, "limit": 5, **notes},
        "request": {"customer_id": f"cus_{i % 5000}", "query": words, "limit": 5, **notes},
        "response": {"items": [{"id": f"it_{i}", "title": words}], "next_cursor": None, **notes},
    }
    seq0 = 3 * i + 1
    events = [
        (
            seq0 + n,
            f"g{i}-{name}",
            trace_id,
            "call_01",
            name,
            tool,
            "http",
            orjson.dumps(p).decode(),
            None if name == "arguments" else '{"status_code": 200}' if name == "response" else None,
            ts,
            ts,
        )
        for n, (name, p) in enumerate(payloads.items())
    ]
    analysis, worst, errors, warnings, kinds = _analysis(i)
    call = (
        trace_id,
        "call_01",
        tool,
        "http",
        seq0,
        seq0 + 1,
        seq0 + 2,
        200,
        ts,
        ts,
        analysis,
        worst,
        errors,
        warnings,
        kinds,
    )
    trace = (trace_id, ts, ts, tool, "http", worst or "clean", kinds, "200", errors, warnings)
    return {
        "events": events,
        "calls": [call],
        "traces": [trace],
        "trace_kinds": [(trace_id, k, ts) for k in kinds.split(",") if k],
        "trace_tools": [(trace_id, tool, ts)],
    }


INSERTS = {
    "events": "INSERT INTO events (seq, event_id, trace_id, call_id, snapshot, tool, source, "
    "payload, http, ts, "
    "received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "calls": "INSERT INTO calls (trace_id, call_id, tool, source, arguments_seq, request_seq, "
    "response_seq, "
    "status_code, first_ts, last_ts, analysis, worst, errors, warnings, kinds, version, "
    "analyzed_version) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1)",
    "traces": "INSERT INTO traces (trace_id, first_ts, last_ts, calls, tools, sources, "
    "has_arguments, has_request, "
    "has_response, complete, worst, kinds, status_codes, errors, warnings) "
    "VALUES (?, ?, ?, 1, ?, ?, 1, 1, 1, 1, ?, ?, ?, ?, ?)",
    "trace_kinds": "INSERT INTO trace_kinds (trace_id, kind, last_ts) VALUES (?, ?, ?)",
    "trace_tools": "INSERT INTO trace_tools (trace_id, tool, last_ts) VALUES (?, ?, ?)",
}


def generate(path: Path, traces: int, old_times: bool = False, pad: int = 0) -> float:
    """Fill a fresh database at path with `traces` traces.

    Return the seconds it took (see _rows for the options)."""
    began = time.perf_counter()
    # the real schema, created by the store itself
    Store(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA synchronous = OFF")
    rng = random.Random(5)
    for start in range(0, traces, CHUNK):
        batch = {table: [] for table in INSERTS}
        for i in range(start, min(traces, start + CHUNK)):
            for table, rows in _rows(i, rng, old_times, pad).items():
                batch[table].extend(rows)
        conn.execute("BEGIN")
        for table, sql in INSERTS.items():
            conn.executemany(sql, batch[table])
        conn.execute("COMMIT")
    conn.execute("INSERT INTO events_fts (rowid, body) SELECT seq, payload FROM events")
    conn.execute("ANALYZE")
    conn.close()
    return time.perf_counter() - began


def cached_db(traces: int) -> tuple[Path, float | None]:
    """Return a generated database of `traces` traces from bench/out/.

    Generating it when missing."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"pages-v{VERSION}-{traces}.db"
    if path.exists():
        return path, None
    partial = path.with_suffix(".partial")
    for leftover in OUT.glob(partial.name + "*"):
        leftover.unlink()
    seconds = generate(partial, traces)
    partial.rename(path)
    return path, seconds
