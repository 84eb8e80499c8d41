"""The baseline web apps.

Flask parses the JSON body and answers (/ingest), or parses it and inserts each event as it came
into SQLite (/ingest-store) - no validation, no redaction, no analysis."""

import os
import sqlite3

import orjson
from flask import Flask, request

app = Flask(__name__)
_conn = None
INSERT = (
    "INSERT OR IGNORE INTO events (event_id, trace_id, call_id, snapshot, payload, ts) VALUES (?, "
    "?, ?, ?, ?, ?)"
)


def _lines() -> list[dict]:
    return [
        orjson.loads(line) for line in request.get_data(cache=False).splitlines() if line.strip()
    ]


@app.post("/ingest")
def ingest():
    """Parse an NDJSON body and acknowledge its lines."""
    return {"accepted": len(_lines()), "duplicates": 0, "rejected": []}


@app.post("/ingest-store")
def ingest_store():
    """Parse an NDJSON body, insert its events in one transaction, acknowledge them."""
    rows = [
        (
            e["event_id"],
            e["trace_id"],
            e["call_id"],
            e["snapshot"],
            orjson.dumps(e["payload"]),
            e["ts"],
        )
        for e in _lines()
    ]
    conn = _connection()
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(INSERT, rows)
    conn.execute("COMMIT")
    return {"accepted": len(rows), "duplicates": 0, "rejected": []}


def _connection() -> sqlite3.Connection:
    global _conn
    if _conn is None:
        # the benchmark made the file (WAL, the baseline's table) before starting the server
        _conn = sqlite3.connect(os.environ["BARE_DATABASE"], isolation_level=None, timeout=30)
        _conn.execute("PRAGMA synchronous = NORMAL")
    return _conn


@app.get("/health")
def health():
    return {"status": "ok"}
