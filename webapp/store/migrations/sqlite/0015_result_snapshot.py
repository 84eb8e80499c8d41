"""Migration 15 (issue 24).

A fourth snapshot, `result` (what the tool handed back to the model).

A call keeps its current result as it keeps the other three (`calls.result_seq`); a trace says
whether every call has one (`traces.has_result`, for the list's "missing" filter). `complete` still
means arguments, request and response: a result is optional. Columns are added only where missing (a
database from before numbered migrations is upgraded by running them all again).
"""

COLUMNS = (
    ("calls", "result_seq", "INTEGER"),
    ("traces", "has_result", "INTEGER NOT NULL DEFAULT 0"),
)


def migrate(conn) -> None:
    """Add the columns where they are missing, and the missing-result index.

    The index of traces missing a result."""
    for table, column, kind in COLUMNS:
        if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    conn.execute(
        "CREATE INDEX IF NOT EXISTS traces_missing_result ON traces (last_ts, trace_id) WHERE "
        "has_result = 0"
    )
